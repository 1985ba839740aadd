# SPDX-License-Identifier: GPL-2.0
# Under a quota, a stall's demand does not chain rounds: quota_ms is
# compaction time per second, so a node's rounds begin at least an interval
# apart even while every round sees stalls.  Here rounds are cut at 50 ms
# (quota_ms 250 of interval_ms 200), the thresholds are far below what
# frag leaves, and khugehog, paced at one allocation per ms so that its
# stream outlasts several intervals (back to back it took under 0.4 s on
# 6.1: one round per node), stalls in direct compaction throughout, each
# stall waking every node (stall_wake_ms 1).  Without the pacing the demand
# raised during a round started the next one as the last ended, about 50 ms
# later.  The gaps are read from the rounds' trace events between two
# trace markers around khugehog.  A deferred round (max_defer_shift 0: one
# interval) spaces rounds by itself, so a node counts only when at least
# two of its rounds in the stream were not deferred: then at least one gap
# follows a round that was not (6.1, 6.12, 7.3.4: 6-9 rounds, 2-6 deferred).
TIMEOUT=300
. /pc/tests/vm/lib.sh

TRACE=/sys/kernel/tracing
BEGIN_EVENT=$TRACE/events/pcompact/pcompact_round_begin
INTERVAL_MS=200
# Rounds begin one interval apart at the earliest; the trace clock and the
# jiffies the pacing counts can differ by a tick (4 ms at HZ=250).
MIN_GAP_US=$(( (INTERVAL_MS - 20) * 1000 ))

# The gaps are read from the trace's timestamps as seconds.microseconds,
# which a counter clock (x86-tsc, counter) would not give.
old_clock=$(sed 's/.*\[\(.*\)\].*/\1/' $TRACE/trace_clock)
trap '{ echo 0 > $BEGIN_EVENT/enable; echo "$old_clock" > $TRACE/trace_clock; } 2>/dev/null' EXIT
echo local > $TRACE/trace_clock || fail "cannot set the trace clock to local"
insmod /pc/module/pcompact.ko enabled=0 interval_ms=$INTERVAL_MS quota_ms=250 \
	stall_wake_ms=1 max_defer_shift=0 wmark_low=2 wmark_high=5 || fail "insmod"
start_frag
echo > $TRACE/trace
echo 1 > $BEGIN_EVENT/enable
echo 1 > $PC_PARAM/enabled
stall_wakes0=$(node_stat_sum stall_wakes)
# deferrals_of NID LIST: the node's count in a list of "nid:deferrals".
deferrals_now() { for n in $(nodes_with_memory); do printf '%s:%s ' $n "$(node_stat $n deferrals)"; done; }
deferrals_of() { for _p in $2; do [ "${_p%:*}" = "$1" ] && echo "${_p#*:}"; done; }
deferrals0=$(deferrals_now)
echo "pacing: stream begins" > $TRACE/trace_marker
# Past the free 2 MB blocks frag left allocations stall; past one failure:
# a compaction deferral alone must not end the stream.
max=$(( $(free_blocks_at_least 9) + 600 ))
began=$(date +%s)
insmod /pc/khugehog/khugehog.ko max=$max delay_us=1000 stop_after_failures=200 ||
	fail "insmod khugehog"
echo "pacing: stream ends" > $TRACE/trace_marker
deferrals1=$(deferrals_now)
note "khugehog: $(grep -h -E '^(count|failures|stop_reason) ' /proc/khugehog/summary 2>/dev/null | tr '\n' ' ')" \
	"in about $(( $(date +%s) - began )) s"

rmmod khugehog || fail "rmmod khugehog"
echo 0 > $PC_PARAM/enabled
echo 0 > $BEGIN_EVENT/enable
stall_wakes=$(( $(node_stat_sum stall_wakes) - stall_wakes0 ))

# One line per node: rounds begun in the stream, smallest gap in us.
gaps=$(awk '
	/pacing: stream begins/ { on = 1; next }
	/pacing: stream ends/ { on = 0; next }
	on && /pcompact_round_begin:/ {
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^[0-9]+\.[0-9]+:$/) t = substr($i, 1, length($i) - 1) * 1000000
			if ($i ~ /^nid=/) nid = substr($i, 5)
		}
		n[nid]++
		if ((nid in last) && (!(nid in min) || t - last[nid] < min[nid]))
			min[nid] = t - last[nid]
		last[nid] = t
	}
	END { for (nid in n) printf "%s %d %d\n", nid, n[nid], (nid in min) ? min[nid] : -1 }
' $TRACE/trace)
note "stall wakes in the stream: $stall_wakes; per node (nid, rounds, smallest gap in us):" $gaps
[ "$stall_wakes" -ge 3 ] || fail "only $stall_wakes stall wakes: khugehog did not stall enough to tell"
tested=0
while read -r nid rounds gap; do
	[ -n "$nid" ] || continue
	deferred=$(( $(deferrals_of $nid "$deferrals1") - $(deferrals_of $nid "$deferrals0") ))
	note "node $nid: $deferred deferrals in the stream"
	[ $((rounds - deferred)) -ge 2 ] || continue
	tested=$((tested + 1))
	[ "$gap" -ge $MIN_GAP_US ] ||
		fail "node $nid: two rounds began $gap us apart, under the $INTERVAL_MS ms interval, with a quota"
done <<EOF
$gaps
EOF
[ $tested -gt 0 ] ||
	fail "no node had 2 rounds in the stream that were not deferred: nothing to tell (${gaps:-no rounds})"
rmmod pcompact || fail "rmmod"
stop_frag || fail "frag exit"
check_dmesg_clean
