# SPDX-License-Identifier: GPL-2.0
# The soak: pcompact runs for PC_SOAK_MINUTES (1 in make check, 10 or more
# in make soak) while, all at once,
# - frag --verify fragments memory, holds it while pcompact compacts, checks
#   every kept page, frees it all, and starts again;
# - khugehog allocates 2 MB pages and frees them, load after load;
# - a page-cache workload writes files on a tmpfs and reads them back;
# - the parameters are rewritten at random every second (proactiveness
#   20..100, intervals, quotas, deferral, engines, nodes, thresholds, and
#   bad values that must be refused).
# Pass: no page frag keeps changes, no file read back differs, every
# counter only grows, the rounds, blocks and pages traced by
# pcompact_round_end add up to the counters, rmmod succeeds and leaves
# nothing behind, and the console shows no warning, oops or lockup (vm-run
# panics the guest on any).
TIMEOUT=3600
. /pc/tests/vm/lib.sh

MINUTES=${PC_SOAK_MINUTES:-1}
case $MINUTES in ''|*[!0-9]*|0) fail "PC_SOAK_MINUTES='$MINUTES' is not a whole number of minutes >= 1" ;; esac
S=/tmp/soak
T=/sys/kernel/tracing
SYSCTL=/proc/sys/vm/compaction_proactiveness
rm -rf $S
mkdir -p $S/pc
orig=$(cat $SYSCTL)
# wfail MSG: a worker's failure, for the main loop to report.
wfail() { echo "$*" >> $S/fail; exit 1; }
stopping() { [ -e $S/stop ]; }
pids=""
# On an early exit: stop the workers and the trace event.  After a full
# run there is nothing left to stop (the module is gone, $S removed).
cleanup() {
	[ -d $S ] || return 0
	touch $S/stop
	for p in $pids; do wait "$p"; done
	[ -e $T/events/pcompact/enable ] && echo 0 > $T/events/pcompact/enable
}
trap cleanup EXIT

insmod /pc/module/pcompact.ko enabled=0 proactiveness=60 || fail "insmod"
# Every round's end goes to the trace buffer, to add up against the counters.
echo 0 > $T/tracing_on
echo > $T/trace
echo 4096 > $T/buffer_size_kb
echo 1 > $T/events/pcompact/pcompact_round_end/enable
echo 1 > $T/tracing_on
echo 1 > $PC_PARAM/enabled
start=$(date +%s)
deadline=$((start + MINUTES * 60))
note "soaking for $MINUTES minutes"

# --- frag: fragment, hold while pcompact works, verify, free, again ---
(
	n=0
	while ! stopping; do
		n=$((n + 1))
		FRAG_OUT=$S/frag.out
		rm -f $S/frag.ready
		/pc/bin/frag --ready-file $S/frag.ready --verify --seed $n > $FRAG_OUT 2>&1 &
		FRAG_PID=$!
		wait_for "[ -e $S/frag.ready ] || ! kill -0 $FRAG_PID 2>/dev/null" 600 ||
			wfail "frag cycle $n: not ready within 600 s"
		[ -e $S/frag.ready ] || wfail "frag cycle $n: exited early: $(tail -n 3 $FRAG_OUT)"
		# Hold while pcompact moves the pages: until it freed 64 more
		# blocks, 60 s passed or the soak ends (the workload's rhythm).
		b0=$(node_stat_sum blocks_freed)
		wait_for "stopping || [ \$(node_stat_sum blocks_freed) -ge $((b0 + 64)) ]" 60
		kill -USR1 $FRAG_PID
		wait_for "grep -q '^frag: verify .*when=sigusr1' $FRAG_OUT" 300 ||
			wfail "frag cycle $n: no verify after SIGUSR1"
		kill -TERM $FRAG_PID
		wait $FRAG_PID
		rc=$?
		grep '^frag: verify' $FRAG_OUT >> $S/frag.verify
		grep -q '^frag: verify FAILED' $FRAG_OUT && wfail "frag cycle $n: $(grep '^frag: verify' $FRAG_OUT | head -n 3)"
		[ "$rc" = 0 ] || wfail "frag cycle $n: exit $rc: $(tail -n 3 $FRAG_OUT)"
		[ "$(grep -c '^frag: verify ok' $FRAG_OUT)" = 2 ] || wfail "frag cycle $n: $(grep '^frag: verify' $FRAG_OUT)"
		echo "$n" > $S/frag.cycles
	done
) &
pids="$pids $!"

# --- khugehog: allocate up to 64 2 MB pages, hold them, free them ---
(
	n=0
	while ! stopping; do
		n=$((n + 1))
		case $((n % 3)) in 0) gfp=kernel ;; 1) gfp=thp ;; 2) gfp=light ;; esac
		insmod /pc/khugehog/khugehog.ko max=64 gfp=$gfp 2>$S/khh.err ||
			wfail "khugehog load $n: $(cat $S/khh.err)"
		awk '$1 == "count" { print $2 }' /proc/khugehog/summary >> $S/khh.counts
		rmmod khugehog || wfail "khugehog load $n: rmmod"
		echo "$n" > $S/khh.cycles
		usleep 500000	# the workload's rate
	done
) &
pids="$pids $!"

# --- page cache: write files, read them back ---
(
	dd if=/dev/urandom of=$S/pc/pattern bs=1M count=8 2>/dev/null
	want=$(md5sum < $S/pc/pattern)
	n=0
	while ! stopping; do
		n=$((n + 1))
		cp $S/pc/pattern $S/pc/copy$n || wfail "page cache: cp $n"
		[ "$(md5sum < $S/pc/copy$n)" = "$want" ] || wfail "page cache: copy $n reads back different"
		rm -f $S/pc/copy$((n - 2))
		echo "$n" > $S/pc.files
		usleep 200000	# the workload's rate
	done
) &
pids="$pids $!"

# --- parameters: one random write a second (the workload's rate) ---
# The first node that is not possible (memory hotplug may add possible nodes).
nonode=$(( $(sed 's/.*[-,]//' /sys/devices/system/node/possible) + 1 ))
(
	n=0
	bad=0
	while ! stopping; do
		n=$((n + 1))
		r=$((RANDOM % 23))
		case $r in
		0|1|2|3|4|5) p=proactiveness v=$((20 + RANDOM % 81)) ;;
		6|7) p=interval_ms v=$((10 + RANDOM % 991)) ;;
		8) p=max_defer_shift v=$((RANDOM % 7)) ;;
		9) p=quota_ms v=$(((RANDOM % 2) * (RANDOM % 1001))) ;;
		10) p=engine; [ $((RANDOM % 2)) = 0 ] && v=node-sysfs || v=contig ;;
		11) p=nodes; case $((RANDOM % 3)) in 0) v=0 ;; 1) v=1 ;; 2) v=all ;; esac ;;
		12) p=enabled v=$((RANDOM % 4 != 0)) ;;
		13) p=takeover v=$((RANDOM % 2)) ;;
		14) p=wmark_low v=-1 ;;
		15) p=wmark_high v=-1 ;;
		16) p=order v=$((8 + RANDOM % 3)) ;;
		17) p=reserve_ms v=$(((RANDOM % 2) * (RANDOM % 10001))) ;;
		18) p=stall_wake_ms v=$(((RANDOM % 2) * (RANDOM % 1001))) ;;
		19) if [ $((RANDOM % 2)) = 0 ]; then p=any_cpu v=$((RANDOM % 2))
		    else p=run_max_mb v=$((4 + RANDOM % 1021)); fi ;;
		20) p=proactiveness v=$((101 + RANDOM % 1000)) ;;
		21) p=interval_ms v=$((RANDOM % 10)) ;;
		22) p=nodes v=$((nonode + RANDOM % 100)) ;;
		esac
		if echo "$v" > $PC_PARAM/$p 2>/dev/null; then
			[ $r -ge 20 ] && wfail "param write $n: bad $p=$v accepted"
		else
			[ $r -lt 20 ] && [ $r != 11 ] && wfail "param write $n: $p=$v refused"
			bad=$((bad + 1))
		fi
		echo "$n $bad" > $S/params
		usleep 1000000
	done
) &
pids="$pids $!"

# --- the main loop: counters only grow, until the time is up ---
COUNTERS="rounds blocks_freed pages_migrated failed_blocks skipped_unmovable deferrals backoffs_kswapd backoffs_contention compact_ms direct_stalls direct_stall_us kcompactd_wakes kswapd_wakes stall_wakes reserve_rounds"
sample() {
	for nid in $(nodes_with_memory); do
		(cd $PC_SYS/node$nid && cat $COUNTERS) | tr '\n' ' '
	done
}
prev=$(sample)
samples=0
while [ "$(date +%s)" -lt $deadline ]; do
	[ -s $S/fail ] && fail "$(cat $S/fail)"
	now=$(sample)
	echo "$prev|$now" | awk -F'|' -v names="$COUNTERS" '
		{ n = split($1, a, " "); split($2, b, " "); m = split(names, c, " ")
		  for (i = 1; i <= n; i++) if (b[i] + 0 < a[i] + 0) { print "counter " c[(i - 1) % m + 1] " went from " a[i] " to " b[i]; bad = 1 }
		  exit bad }' || fail "a counter went backwards"
	for nid in $(nodes_with_memory); do
		d=$PC_SYS/node$nid
		[ "$(cat $d/deferrals)" -le "$(cat $d/rounds)" ] || fail "node $nid: more deferrals than rounds"
		[ "$(cat $d/score)" -le 100 ] || fail "node $nid: score $(cat $d/score)"
		case $(cat $d/state) in idle|compacting|kswapd-backoff|contention-backoff|deferred|disabled) ;;
		*) fail "node $nid: state $(cat $d/state)" ;; esac
	done
	prev=$now
	samples=$((samples + 1))
	# Sample again in about 2 s (a measurement period, not a wait for state).
	wait_for "[ -s $S/fail ] || [ \$(date +%s) -ge $(( $(date +%s) + 2 )) ]" 5
done

# --- the end: stop everything, add up, unload ---
touch $S/stop
for p in $pids; do wait "$p"; done
pids=""
[ -s $S/fail ] && fail "$(cat $S/fail)"
echo 0 > $PC_PARAM/enabled
wait_for "! grep -q -x compacting $PC_SYS/node*/state" 120 || fail "a round did not stop"
echo 0 > $T/tracing_on
overrun=$(cat $T/per_cpu/cpu*/stats | awk '$1 == "overrun:" { s += $2 } END { print s + 0 }')
for nid in $(nodes_with_memory); do
	d=$PC_SYS/node$nid
	traced=$(grep "pcompact_round_end: nid=$nid " $T/trace | tr ' ' '\n' | awk -F= '
		$1 == "blocks_freed" { b += $2 } $1 == "pages_migrated" { p += $2 } $1 == "elapsed_ns" { n++ }
		END { printf "%d %d %d\n", n, b, p }')
	counted="$(cat $d/rounds) $(cat $d/blocks_freed) $(cat $d/pages_migrated)"
	note "node $nid: rounds, blocks freed, pages migrated: counted $counted, traced $traced"
	if [ "$overrun" = 0 ]; then
		[ "$traced" = "$counted" ] || fail "node $nid: the trace adds up to $traced, the counters say $counted"
	else
		note "the trace buffer overran ($overrun events lost): sums not compared"
	fi
done
echo 0 > $T/events/pcompact/enable
echo > $T/trace
rmmod pcompact || fail "rmmod"
assert_pcompact_gone "$orig" "rmmod after the soak"
verified=$(awk '$1 == "frag:" && $3 == "ok" { split($4, a, "="); s += a[2] } END { print s + 0 }' $S/frag.verify)
note "soak: $MINUTES min, $(cat $S/frag.cycles 2>/dev/null || echo 0) frag cycles," \
	"$verified pages verified, $(cat $S/khh.cycles 2>/dev/null || echo 0) khugehog loads" \
	"($(awk '{ s += $1 } END { print s + 0 }' $S/khh.counts 2>/dev/null) 2 MB pages)," \
	"$(cat $S/pc.files) page-cache files read back," \
	"$(cut -d' ' -f1 $S/params) parameter writes ($(cut -d' ' -f2 $S/params) refused), $samples samples"
rm -rf $S
check_dmesg_clean
