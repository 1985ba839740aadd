#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench-guest.sh: one scenario of `scripts/bench`, run as root inside the VM
# (busybox sh) or, with `scripts/bench --host`, on the machine itself.
#
# It fragments memory, switches the scenario's compaction mechanism on,
# runs an allocation stream and records what happened.  Everything it
# records goes to fd 3 as framed text files, which scripts/bench splits:
#
#   === file NAME lines=N ===      N lines of the file follow
#   === end NAME ===
#   # bench: ...                   progress, shown on the host
#   === error MESSAGE ===          the scenario failed
#   === done ===                   every file was sent
#
# A file without its end marker, or a run without "done", is a failed
# scenario: the host never takes partial output for a result.
#
# Settings come from the environment (scripts/bench sets all of them):
#   BENCH_SCENARIO      scenario name, for the record
#   BENCH_MECH          none | sysctl | module | manual: what compacts
#   BENCH_PROACTIVENESS vm.compaction_proactiveness (sysctl) or pcompact's
#                       proactiveness (module)
#   BENCH_WORKLOADS     space-separated, in order: khugehog, thp, pin
#   BENCH_KHH_ARGS      khugehog.ko parameters of the khugehog workload
#   BENCH_THP_MB        size of the frag --thp-touch mapping, MiB
#   BENCH_FRAG_ARGS     extra frag arguments (default: none)
#   BENCH_OBSERVE_S     pin workload: seconds to watch the mechanism
#   BENCH_IDLE_S        seconds from switching the mechanism on to the first
#                       allocation (the head start every mechanism gets)
#   BENCH_LEAD_S        seconds sampled before the mechanism is switched on
#   BENCH_TAIL_S        seconds sampled after the allocation stream
#   BENCH_SAMPLE_S      sampler period in seconds (0.05 = 20 Hz)
#   BENCH_PC            payload directory (default /pc)
#   BENCH_TMP           scratch directory (default /tmp/bench)

PC=${BENCH_PC:-/pc}
TMP=${BENCH_TMP:-/tmp/bench}
KHH_KO=$PC/khugehog/khugehog.ko
PCOMPACT_KO=$PC/module/pcompact.ko
FRAG=$PC/bin/frag
MECH=${BENCH_MECH:-none}
PROACTIVENESS=${BENCH_PROACTIVENESS:-0}
SAMPLE_S=${BENCH_SAMPLE_S:-0.05}
LEAD_S=${BENCH_LEAD_S:-1}
IDLE_S=${BENCH_IDLE_S:-0}
TAIL_S=${BENCH_TAIL_S:-1}
FRAG_PID=""

say() { echo "# bench: $*" >&3; echo "# bench: $*"; }
die() {
	echo "=== error $* ===" >&3
	echo "bench-guest: error: $*"
	cleanup
	restore_settings
	exit 1
}

# The settings the benchmark changes, restored at the end: on a host
# (scripts/bench --host) they are the machine's own.
SAVED_SETTINGS=""
THP=/sys/kernel/mm/transparent_hugepage
save_settings() {
	for f in /proc/sys/vm/compaction_proactiveness /proc/sys/vm/watermark_boost_factor \
		"$THP/enabled" "$THP/defrag"; do
		[ -w "$f" ] || continue
		# THP files show every choice with the current one in brackets.
		v=$(sed -n 's/.*\[\(.*\)\].*/\1/p; t; p' "$f")
		SAVED_SETTINGS="$SAVED_SETTINGS $f=$v"
	done
}
restore_settings() {
	for s in $SAVED_SETTINGS; do
		echo "${s#*=}" > "${s%%=*}" 2>/dev/null
	done
	SAVED_SETTINGS=""
}

# Seconds since boot with centiseconds, from /proc/uptime: busybox date
# has no %N.  Boot time and the monotonic clock khugehog uses (ktime) run
# together in a guest that never suspends.
now() { read -r _up _idle < /proc/uptime; echo "$_up"; }

# mark NAME: note when a phase starts, in the workload's events file.
mark() { echo "$1 $(now)" >> "$TMP/$W.events"; }

# send NAME PATH: one framed file on fd 3.  awk ends every line with a
# newline, so the end marker always starts a line of its own.
send() {
	[ -f "$2" ] || die "cannot send $1: $2 is missing"
	echo "=== file $1 lines=$(awk 'END { print NR }' "$2") ===" >&3
	awk '{ print }' "$2" >&3
	echo "=== end $1 ===" >&3
}

kmod_loaded() { grep -q "^$1 " /proc/modules; }

# The kernel threads whose CPU time the benchmark reports, one line each:
# comm pid utime_ticks stime_ticks run_ns.  run_ns (schedstat) is the
# precise one; the ticks are USER_HZ (1/100 s).
kthreads() {
	for p in /proc/[0-9]*; do
		read -r comm 2>/dev/null < "$p/comm" || continue
		case "$comm" in
		kcompactd*|pcompactd*|kswapd*) ;;
		*) continue ;;
		esac
		read -r _pid _comm _st _pp _pg _se _tt _tp _fl _mi _cmi _ma _cma utime stime _rest \
			2>/dev/null < "$p/stat" || continue
		run_ns=0
		[ -r "$p/schedstat" ] && read -r run_ns _w _s < "$p/schedstat"
		echo "$comm ${p#/proc/} $utime $stime $run_ns"
	done
}

# pcompact's per-node statistics as "node<N>/<file> value" lines.
pcompact_stats() {
	[ -d /sys/kernel/pcompact ] || return 0
	for f in /sys/kernel/pcompact/node*/*; do
		[ -f "$f" ] || continue
		v=$(tr '\n' ' ' < "$f" 2>/dev/null)
		n=${f%/*}
		echo "${n##*/}/${f##*/} $v"
	done
	for f in /sys/module/pcompact/parameters/*; do
		echo "param/${f##*/} $(cat "$f" 2>/dev/null)"
	done
}

# snapshot NAME: the state the deltas are computed from.
snapshot() {
	cat /proc/vmstat > "$TMP/$W.vmstat_$1"
	cat /proc/buddyinfo > "$TMP/$W.buddyinfo_$1"
	kthreads > "$TMP/$W.kthreads_$1"
	pcompact_stats > "$TMP/$W.pcompact_$1"
	# Free pages waiting on the per-cpu lists: NR_FREE_PAGES (and so
	# khugehog's free_pages_start) does not count them.
	awk '$1 == "count:" { s += $2 } END { print "pcp_pages " s + 0 }' /proc/zoneinfo \
		> "$TMP/$W.pcp_$1"
	SNAPSHOTS="$SNAPSHOTS $1"
}

# The sampler: /proc/buddyinfo (and pcompact's own node scores when it is
# loaded) every SAMPLE_S seconds, with the uptime.  Only shell builtins in
# the loop, so it costs the guest little and keeps its rate while the
# workload takes the CPUs: the pause is a read with a timeout on a FIFO no
# one writes to, as sleep would fork and exec each time.  (This needs a
# shell whose read has a fractional -t and -u: busybox sh or bash.)  The
# host turns the raw lines into node scores and free order-9 blocks.
sampler() {
	rm -f "$TMP/pause"
	mkfifo "$TMP/pause" || return 1
	exec 9<> "$TMP/pause"
	while [ ! -e "$TMP/sampler.stop" ]; do
		read -r t _idle < /proc/uptime
		echo "T $t"
		while IFS= read -r line; do
			echo "B $line"
		done < /proc/buddyinfo
		for f in /sys/kernel/pcompact/node*/score; do
			[ -r "$f" ] || continue
			read -r s < "$f"
			n=${f%/score}
			echo "P ${n##*node} $s"
		done
		# shellcheck disable=SC3045 # busybox sh and bash have read -t and -u
		read -r -t "$SAMPLE_S" -u 9 _nothing
	done
	exec 9<&-
}

start_sampler() {
	rm -f "$TMP/sampler.stop"
	sampler > "$TMP/$W.samples" 2>/dev/null &
	SAMPLER_PID=$!
}

stop_sampler() {
	[ -n "$SAMPLER_PID" ] || return 0
	touch "$TMP/sampler.stop"
	wait "$SAMPLER_PID"
	SAMPLER_PID=""
}

# Same starting point for every run: no page cache, memory compacted, the
# kernel's proactive compaction and watermark boosting off (boosting wakes
# kcompactd, which would make "vanilla" more than on-demand compaction).
settle() {
	echo 0 > /proc/sys/vm/compaction_proactiveness
	echo 0 > /proc/sys/vm/watermark_boost_factor
	sync
	echo 3 > /proc/sys/vm/drop_caches
	echo 1 > /proc/sys/vm/compact_memory
}

# wait_until CONDITION SECONDS: poll a shell condition every 0.1 s.
wait_until() {
	_deadline=$(( $(date +%s) + $2 ))
	while ! eval "$1"; do
		[ "$(date +%s)" -ge "$_deadline" ] && return 1
		sleep 0.1
	done
}

start_frag() {
	rm -f "$TMP/frag.ready" "$TMP/map.csv" "$TMP"/map.csv.*
	# shellcheck disable=SC2086
	"$FRAG" --map "$TMP/map.csv" --ready-file "$TMP/frag.ready" $BENCH_FRAG_ARGS \
		> "$TMP/$W.frag_out" 2>&1 &
	FRAG_PID=$!
	wait_until "[ -e $TMP/frag.ready ] || ! kill -0 $FRAG_PID 2>/dev/null" 900 ||
		die "frag not ready within 900 s"
	[ -e "$TMP/frag.ready" ] || die "frag exited early: $(tail -n 3 "$TMP/$W.frag_out" | tr '\n' ' ')"
}

stop_frag() {
	[ -n "$FRAG_PID" ] || return 0
	kill -TERM "$FRAG_PID" 2>/dev/null
	wait "$FRAG_PID"
	FRAG_PID=""
}

# The occupancy map after the run: SIGUSR1 makes frag write map.csv.1.
frag_map_after() {
	kill -USR1 "$FRAG_PID"
	wait_until "grep -q 'frag: map file=$TMP/map.csv.1 ' $TMP/$W.frag_out" 300 ||
		die "frag wrote no map after SIGUSR1"
}

mech_on() {
	mark mech_on
	case "$MECH" in
	none) ;;
	sysctl) echo "$PROACTIVENESS" > /proc/sys/vm/compaction_proactiveness ||
			die "cannot set vm.compaction_proactiveness" ;;
	module) /sbin/insmod "$PCOMPACT_KO" proactiveness="$PROACTIVENESS" ||
			die "insmod pcompact.ko proactiveness=$PROACTIVENESS failed" ;;
	manual) echo 1 > /proc/sys/vm/compact_memory ;;
	*) die "unknown mechanism $MECH" ;;
	esac
	mark mech_ready
}

mech_off() {
	kmod_loaded pcompact && /sbin/rmmod pcompact
	echo 0 > /proc/sys/vm/compaction_proactiveness
}

# wait_idle: let the mechanism run alone until IDLE_S seconds after it was
# switched on (a manual compaction that took longer is not waited for).
wait_idle() {
	_until=$(awk -v t="$(grep '^mech_on ' "$TMP/$W.events" | tail -n 1 | cut -d' ' -f2)" \
		-v i="$IDLE_S" 'BEGIN { print t + i }')
	while awk -v now="$(now)" -v u="$_until" 'BEGIN { exit !(now < u) }'; do
		sleep 0.1
	done
}

cleanup() {
	stop_sampler
	stop_frag
	kmod_loaded khugehog && /sbin/rmmod khugehog
	mech_off
}

# send_workload: every file the workload left, then its events.
send_workload() {
	for s in $SNAPSHOTS; do
		for k in vmstat buddyinfo kthreads pcompact pcp; do
			send "$W/${k}_$s.txt" "$TMP/$W.${k}_$s"
		done
	done
	send "$W/samples.txt" "$TMP/$W.samples"
	send "$W/events.txt" "$TMP/$W.events"
	for extra in $SEND_EXTRA; do
		send "$W/${extra%%=*}" "${extra#*=}"
	done
}

begin_workload() {
	W=$1
	SNAPSHOTS=""
	SEND_EXTRA=""
	: > "$TMP/$W.events"
	say "$W: $2"
}

# khugehog: back-to-back 2 MB allocations in the fragmented state.
workload_khugehog() {
	begin_workload khugehog "fragmenting"
	settle
	mark frag_start
	start_frag
	mark frag_ready
	say "khugehog: fragmented; allocating with $MECH"
	snapshot before
	start_sampler
	sleep "$LEAD_S"
	mech_on
	wait_idle
	mark alloc_start
	# shellcheck disable=SC2086
	/sbin/insmod "$KHH_KO" $BENCH_KHH_ARGS || die "insmod khugehog.ko $BENCH_KHH_ARGS failed"
	mark alloc_end
	snapshot after
	sleep "$TAIL_S"
	stop_sampler
	mark map_after
	frag_map_after
	cp /proc/khugehog/summary "$TMP/khh.summary"
	cp /proc/khugehog/samples "$TMP/khh.samples"
	/sbin/rmmod khugehog || die "rmmod khugehog failed"
	stop_frag
	mech_off
	SEND_EXTRA="summary.txt=$TMP/khh.summary samples.csv=$TMP/khh.samples
		map_before.csv=$TMP/map.csv map_after.csv=$TMP/map.csv.1
		frag_out.txt=$TMP/$W.frag_out"
	send_workload
}

# thp: a THP-backed mapping written page by page (a JVM heap pre-touch).
workload_thp() {
	begin_workload thp "fragmenting"
	settle
	mark frag_start
	start_frag
	mark frag_ready
	say "thp: fragmented; touching ${BENCH_THP_MB} MiB with $MECH"
	snapshot before
	start_sampler
	sleep "$LEAD_S"
	mech_on
	wait_idle
	mark alloc_start
	"$FRAG" --thp-touch "${BENCH_THP_MB}M" --hold-seconds 0 > "$TMP/thp.out" 2>&1 ||
		die "frag --thp-touch failed: $(tail -n 2 "$TMP/thp.out" | tr '\n' ' ')"
	mark alloc_end
	snapshot after
	sleep "$TAIL_S"
	stop_sampler
	stop_frag
	mech_off
	SEND_EXTRA="thp_touch.txt=$TMP/thp.out frag_out.txt=$TMP/$W.frag_out"
	send_workload
}

# pin: unmovable fragmentation (khugehog pin=1 keeps the last quarter of
# every 2 MB block it can get), then watch what the mechanism does for
# BENCH_OBSERVE_S seconds (defer, back off), then the THP touch.
workload_pin() {
	begin_workload pin "pinning unmovable pages"
	settle
	mark frag_start
	/sbin/insmod "$KHH_KO" pin=1 || die "insmod khugehog.ko pin=1 failed"
	cp /proc/khugehog/summary "$TMP/pin.summary"
	mark frag_ready
	say "pin: pinned; watching $MECH for ${BENCH_OBSERVE_S}s"
	snapshot before
	start_sampler
	sleep "$LEAD_S"
	mech_on
	mark observe_start
	sleep "$BENCH_OBSERVE_S"
	mark observe_end
	snapshot mid
	say "pin: touching ${BENCH_THP_MB} MiB"
	mark alloc_start
	"$FRAG" --thp-touch "${BENCH_THP_MB}M" --hold-seconds 0 > "$TMP/pin-thp.out" 2>&1 ||
		die "frag --thp-touch failed: $(tail -n 2 "$TMP/pin-thp.out" | tr '\n' ' ')"
	mark alloc_end
	snapshot after
	sleep "$TAIL_S"
	stop_sampler
	/sbin/rmmod khugehog || die "rmmod khugehog failed"
	mech_off
	SEND_EXTRA="pin_summary.txt=$TMP/pin.summary thp_touch.txt=$TMP/pin-thp.out"
	send_workload
}

# The machine and its settings, once per scenario.
send_environment() {
	{
		echo "scenario ${BENCH_SCENARIO:-?}"
		echo "mechanism $MECH"
		echo "proactiveness $PROACTIVENESS"
		echo "release $(uname -r)"
		echo "cpus $(grep -c '^processor' /proc/cpuinfo)"
		echo "nodes_online $(cat /sys/devices/system/node/online 2>/dev/null)"
		echo "cmdline $(cat /proc/cmdline)"
		echo "mem_total_kb $(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo)"
		for s in compaction_proactiveness watermark_boost_factor extfrag_threshold \
			min_free_kbytes compact_unevictable_allowed; do
			echo "sysctl_$s $(cat /proc/sys/vm/$s 2>/dev/null)"
		done
		for s in enabled defrag; do
			echo "thp_$s $(cat /sys/kernel/mm/transparent_hugepage/$s 2>/dev/null)"
		done
		echo "khugehog_args $BENCH_KHH_ARGS"
		echo "thp_mb $BENCH_THP_MB"
		echo "sample_s $SAMPLE_S"
	} > "$TMP/env"
	# Only the lines the score needs: zone headers and present pages.
	awk '/^Node/ || $1 == "present" || $1 == "managed" || $1 == "spanned" { print }' \
		/proc/zoneinfo > "$TMP/zones"
	send env.txt "$TMP/env"
	send zones.txt "$TMP/zones"
}

main() {
	[ "$(id -u)" = 0 ] || die "needs root"
	for f in "$KHH_KO" "$FRAG"; do
		[ -e "$f" ] || die "$f is missing"
	done
	[ "$MECH" != module ] || [ -e "$PCOMPACT_KO" ] || die "$PCOMPACT_KO is missing"
	rm -rf "$TMP"
	mkdir -p "$TMP" || die "cannot create $TMP"
	save_settings
	# THP only where asked for (madvise), as in the seed's Java test.
	echo madvise > "$THP/enabled"
	echo madvise > "$THP/defrag"
	settle
	send_environment
	for w in $BENCH_WORKLOADS; do
		case "$w" in
		khugehog) workload_khugehog ;;
		thp) workload_thp ;;
		pin) workload_pin ;;
		*) die "unknown workload $w" ;;
		esac
	done
	restore_settings
	echo "=== done ===" >&3
}

main
