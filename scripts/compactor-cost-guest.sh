#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# compactor-cost-guest.sh: runs in the VM for scripts/compactor-cost.
#
# The compactors' cost per page migrated and per block created, paired in
# one boot: every repeat runs each arm once, in an order of its own (drawn
# from COST_SEED), each on a fresh fragmentation as the bench's drain makes
# it (bench-guest.sh's settle and start_frag), for the bench's head start
# (COST_WINDOW_S from switch-on) with nothing else running.  Across boots
# the host load changes; within one boot the arms share it, so the ratio of
# two arms' costs in a boot is what the host compares.
#
# Settings from the environment:
#   COST_ARMS           arms, each run once per repeat: kernel (the sysctl at
#                       COST_PROACTIVENESS), pcompact (the module at it), or
#                       pcompact+ARG[+ARG...] (the module with those
#                       parameters, e.g. pcompact+any_cpu=0), or
#                       node-sysfs (the kernel's full compaction of every
#                       node through its sysfs compact file, at once, each
#                       written from a shell bound to its node's CPUs: the
#                       call pcompact's node-sysfs engine makes, without
#                       pcompact's watch, loop or fallback)
#   COST_REPEATS        repeats (default 2)
#   COST_PROACTIVENESS  proactiveness of every arm (default 80)
#   COST_WINDOW_S       seconds from switch-on to the measurement's end
#                       (default 10, the bench's head start)
#   COST_LEAD_S         seconds between fragmenting and switching on (default
#                       1, the bench's lead)
#   COST_SEED           seed of the arms' order
#   COST_OBSERVE        1: watch each window as the bench watches its head
#                       start, with its /proc/buddyinfo sampler (every 40 ms,
#                       its default) and its --trace-stream trace; 0 (the
#                       default): nothing else runs
#
# Writes one CSV row per arm run to fd 3 (header first); "=== error" there
# (bench-guest.sh's die) is a failed boot.
BENCH_GUEST_LIBRARY=1
COST_OBSERVE=${COST_OBSERVE:-0}
if [ "$COST_OBSERVE" = 1 ]; then
	BENCH_SAMPLE_S=0.040
	BENCH_TRACE_STREAM=1
fi
# shellcheck source=scripts/bench-guest.sh
. "${BENCH_PC:-/pc}/bench-guest.sh"

COST_ARMS=${COST_ARMS:-kernel pcompact}
COST_REPEATS=${COST_REPEATS:-2}
PROACTIVENESS=${COST_PROACTIVENESS:-80}
IDLE_S=${COST_WINDOW_S:-10}
LEAD_S=${COST_LEAD_S:-1}
COST_SEED=${COST_SEED:-1}

# vmstat_sum NAME...: the sum of those /proc/vmstat counters (0 if absent).
vmstat_sum() {
	awk -v names=" $* " 'index(names, " " $1 " ") { s += $2 } END { printf "%.0f\n", s }' \
		/proc/vmstat
}

# thread_run_ns PREFIX: CPU time of the compactor threads named PREFIX*.
thread_run_ns() {
	kthreads | awk -v p="$1" 'index($1, p) == 1 { s += $5 } END { printf "%.0f\n", s }'
}

# shuffled REPEAT: COST_ARMS in the order of that repeat, one per line.
shuffled() {
	echo "$COST_ARMS" | awk -v seed="$((COST_SEED * 1000 + $1))" 'BEGIN { srand(seed) }
		{ n = split($0, a, " ")
		  for (i = n; i > 1; i--) { j = int(rand() * i) + 1; t = a[i]; a[i] = a[j]; a[j] = t }
		  for (i = 1; i <= n; i++) print a[i] }'
}

# counters: one line of what the row subtracts.  The scanners' pages are
# compact_migrate_scanned and compact_free_scanned alone: every
# compact_zone() adds its scans there, whoever calls it, and 6.12's
# compact_node() adds kcompactd's proactive scans to compact_daemon_* as
# well, so summing both counted the kernel arm's twice there.
counters() {
	echo "$(thread_run_ns kcompactd) $(thread_run_ns pcompactd) $(free_blocks_at_least 9)" \
		"$(vmstat_sum pgmigrate_success)" \
		"$(vmstat_sum compact_migrate_scanned)" \
		"$(vmstat_sum compact_free_scanned)" \
		"$(node_scores_now both)"
}

# khh_blocks_now: "WHOLE HELD", the free pageblocks as the bench's stream
# counts them at its start: whole (in a free buddy of order 9 or more) and
# held (every page free, some on the per-CPU lists, where the score and
# free_blocks_at_least do not see them).  khugehog counts them as it loads;
# with a margin above any free memory it then allocates nothing.
khh_blocks_now() {
	_khh_margin=$(awk '$1 == "MemTotal:" { print int($2 / 1024) - 1 }' /proc/meminfo)
	/sbin/insmod "$KHH_KO" keep_free_mb="$_khh_margin" ||
		die "insmod khugehog.ko keep_free_mb=$_khh_margin failed"
	_khh=$(awk '$1 == "whole_blocks_start" { w = $2 } $1 == "held_blocks_start" { h = $2 }
		$1 == "count" { n = $2 } END { print w + 0, h + 0, n + 0 }' /proc/khugehog/summary)
	/sbin/rmmod khugehog || die "rmmod khugehog failed"
	case "$_khh" in
	*" 0") echo "${_khh% 0}" ;;
	*) die "khugehog allocated while counting blocks: $_khh" ;;
	esac
}

# pcompact_rounds_now: "ROUNDS FALLBACKS", pcompact's rounds and engine
# fallbacks (a node-sysfs call that made no progress, then the contig
# engine) on every node since it was loaded for this arm; "0 0" when it
# is not loaded (the kernel's arm).
pcompact_rounds_now() {
	[ -d /sys/kernel/pcompact ] || { echo "0 0"; return; }
	cat /sys/kernel/pcompact/node*/rounds | awk '{ s += $1 } END { printf "%d ", s }'
	cat /sys/kernel/pcompact/node*/engine_fallbacks | awk '{ s += $1 } END { printf "%d\n", s }'
}

# observed: "SAMPLES EVENTS", what the window's observers saw: the sampler's
# passes over /proc/buddyinfo (the lead's included) and the events the trace
# took (kept or overwritten); "0 0" when they did not run.
observed() {
	[ "$COST_OBSERVE" = 1 ] || { echo "0 0"; return; }
	_samples=$(grep -c '^T ' "$TMP/$W.samples")
	_events=$(cat /sys/kernel/tracing/per_cpu/cpu*/stats 2>/dev/null |
		awk '$1 == "entries:" || $1 == "overrun:" { s += $2 } END { printf "%d\n", s }')
	echo "$_samples $_events"
}

# writers_start: the node-sysfs arm's switch-on.  Each writer measures its
# own CPU around its write (the shell's builtin echo, so the compaction
# runs in that shell) and leaves it in $TMP/writer.<nid>; kcompactd's and
# pcompactd's CPU is read from outside, which a shell that has exited
# cannot be.
writers_start() {
	WRITERS=""
	rm -f "$TMP"/writer.*
	for _node in /sys/devices/system/node/node[0-9]*; do
		_nid=${_node##*node}
		# A node without CPUs is compacted from any CPU, as kcompactd is.
		_cpus=$(cat "$_node/cpulist")
		[ -n "$_cpus" ] || _cpus=$(cat /sys/devices/system/cpu/online)
		# shellcheck disable=SC2016
		taskset -c "$_cpus" sh -c \
			'read -r a _ < /proc/self/schedstat; echo 1 > "$1/compact"
			 read -r b _ < /proc/self/schedstat; echo $((b - a)) > "$2.tmp"
			 mv "$2.tmp" "$2"' sh "$_node" "$TMP/writer.$_nid" &
		WRITERS="$WRITERS $_nid:$!"
	done
}

# writers_stop: sets WRITERS_NS, the writers' CPU time, and WRITERS_BUSY, 1
# if any was still compacting when the window closed (then its CPU so far,
# start-up included, and it is killed and waited for: a fatal signal ends
# the kernel's compaction at its next batch); 0 and 0 for the other arms.
# Not in a subshell: only this shell can wait for its writers.
writers_stop() {
	WRITERS_NS=0 WRITERS_BUSY=0
	for _w in ${WRITERS:-}; do
		_nid=${_w%%:*} _pid=${_w#*:}
		_run=""
		if [ ! -e "$TMP/writer.$_nid" ] &&
		   read -r _run _rest 2>/dev/null < "/proc/$_pid/schedstat"; then
			WRITERS_BUSY=1
			kill -9 "$_pid" 2>/dev/null
		fi
		wait "$_pid" || true
		# A writer that ended between the two looks has left its file.
		[ -n "$_run" ] ||
			_run=$(cat "$TMP/writer.$_nid") ||
			die "node-sysfs writer of node $_nid ended without its time"
		WRITERS_NS=$((WRITERS_NS + _run))
	done
	WRITERS=""
}

# run_arm ARM REPEAT POSITION
run_arm() {
	MODULE_ARGS=""
	WRITERS=""
	case "$1" in
	kernel) MECH=sysctl ;;
	pcompact) MECH=module ;;
	pcompact+*) MECH=module; MODULE_ARGS=$(echo "${1#pcompact+}" | tr + ' ') ;;
	node-sysfs) MECH=none ;;
	*) die "unknown arm '$1'" ;;
	esac
	begin_workload "cost-$2-$3" "$1: fragmenting"
	settle
	mech_arm
	start_frag
	[ "$COST_OBSERVE" = 1 ] && start_sampler
	sleep "$LEAD_S"
	_before=$(counters)
	mech_on
	[ "$1" = node-sysfs ] && writers_start
	wait_idle
	_after=$(counters)
	writers_stop
	_rounds=$(pcompact_rounds_now)
	_khh_after=$(khh_blocks_now)
	stop_sampler
	stream_trace_stop
	_observed=$(observed)
	# A compactor that did nothing leaves the trace empty; the report voids
	# that run.  A sampler that never ran is the harness's failure.
	[ "$COST_OBSERVE" = 1 ] && case "$_observed" in 0\ *)
		die "$1: --observe, yet the sampler saw nothing ($_observed)" ;;
	esac
	_last=$(compactor_run_ns)
	sleep 1
	# Still compacting when the window closed: its cost per page holds, its
	# blocks are the window's, not a finished compaction's.
	_busy=$(( $(compactor_run_ns) - _last > 10000000 || WRITERS_BUSY ? 1 : 0 ))
	_pcp=$(pcp_pages)
	stop_frag
	mech_off
	echo "$2 $3 $1 $_before $_after $_pcp $_busy $_observed $_khh_after $_rounds $WRITERS_NS" |
		awk -v w="$IDLE_S" '{
		k = ($12 - $4) / 1e6; p = ($13 - $5) / 1e6; s = $28 / 1e6
		printf "%d,%d,%s,%s,%.3f,%.3f,%.3f,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%s,%s,%d,%d,%d,%d,%d,%d,%.3f\n",
			$1, $2, $3, w, k + p + s, k, p, $6, $14, $14 - $6, $15 - $7,
			$16 - $8, $17 - $9, $10, $18, $20, $21, $11, $19, $22, $23, $24, $25,
			$26, $27, s }' >&3
}

main_cost() {
	[ "$(id -u)" = 0 ] || die "needs root"
	[ -e "$FRAG" ] || die "$FRAG is missing"
	[ -e "$PCOMPACT_KO" ] || die "$PCOMPACT_KO is missing"
	[ -e "$KHH_KO" ] || die "$KHH_KO is missing"
	rm -rf "$TMP"
	mkdir -p "$TMP" || die "cannot create $TMP"
	save_settings
	zones_snapshot
	# The trace's buffer is allocated before any window, not inside the first.
	[ "$COST_OBSERVE" = 1 ] && echo "$STREAM_TRACE_BUFFER_KB" > /sys/kernel/tracing/buffer_size_kb
	echo "repeat,position,arm,window_s,compactor_cpu_ms,kcompactd_ms,pcompactd_ms," \
		"blocks_before,blocks_after,blocks_created,pages_migrated,migrate_scanned," \
		"free_scanned,max_score_before,max_score_after,pcp_pages_after,busy_at_end," \
		"node_scores_before,node_scores_after,sampler_samples,trace_events," \
		"whole_blocks_after,held_blocks_after,pcompact_rounds,engine_fallbacks,writers_ms" |
		tr -d ' ' >&3
	_rep=1
	while [ "$_rep" -le "$COST_REPEATS" ]; do
		_pos=1
		for arm in $(shuffled "$_rep"); do
			run_arm "$arm" "$_rep" "$_pos"
			_pos=$((_pos + 1))
		done
		_rep=$((_rep + 1))
	done
	restore_settings
	echo "=== done ===" >&3
}

main_cost
