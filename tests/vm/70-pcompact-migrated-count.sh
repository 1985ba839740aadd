# SPDX-License-Identifier: GPL-2.0
# With engine=node-sysfs a round's pages_migrated are the pages its own call
# of the kernel's compaction migrated: the nr_migrated of the
# mm_compaction_migratepages events of that node's pcompactd within the
# round, exactly (a round that fell back to the contig engine adds the
# in-use pages of the ranges it emptied, so it counts at least those).  The
# count it replaced, PGMIGRATE_SUCCESS over the call, took in every other
# task's migrations meanwhile: the other node's pcompactd when both nodes
# compact at once, as here, kcompactd, stalled allocations (a build that
# counts them: 70945 counted against its thread's 44066, 6.12.118).  The
# test says how many pages other tasks' compaction migrated during the
# checked rounds (the contig engine's migrations have no such event); with
# none it could not tell the two counts apart.  drain_before_call is off
# here: a drain that empties a block half in use adds that block's in-use
# pages to the round's count (no migratepages event: the contig path), as a
# fallback does, so with it on a kernel round's count is exact only when no
# drain emptied a block.
TIMEOUT=300
. /pc/tests/vm/lib.sh

TRACE=/sys/kernel/tracing
EVENTS="compaction/mm_compaction_migratepages pcompact/pcompact_round_begin pcompact/pcompact_round_end"
old_buffer_kb=$(cat $TRACE/buffer_size_kb)
old_clock=$(trace_clock_name)
cleanup() {
	trace_events_off $EVENTS
	echo "$old_buffer_kb" > $TRACE/buffer_size_kb
	echo "$old_clock" > $TRACE/trace_clock
}
trap 'cleanup 2>/dev/null' EXIT

load_fragmented engine=node-sysfs drain_before_call=0
grep -q '^tracepoint:mm_compaction_migratepages attached$' $PC_SYS/hooks ||
	fail "the migratepages hook is not attached: $(one_line "$(cat $PC_SYS/hooks)")"
# Every node's rounds from where frag left it to 20: long enough under TCG
# for the nodes' rounds to overlap, and a few thousand events a node.
LOW=20
set_wmarks $LOW 30
echo 100 > $PC_PARAM/interval_ms || fail "interval_ms 100"
echo 8192 > $TRACE/buffer_size_kb || fail "cannot size the trace buffer"
# A round's events are told by time across CPUs (its thread moves between
# them): one clock for all, not each CPU's own.
echo global > $TRACE/trace_clock || fail "cannot set the trace clock to global"
compact_traced $EVENTS
lost=$(awk '$1 == "overrun:" { s += $2 } END { print s + 0 }' $TRACE/per_cpu/cpu*/stats)
[ "$lost" = 0 ] || fail "the trace lost $lost events: the comparison would be short"

# One line per traced round of a pcompactd thread: NID ROUTE COUNTED OWN
# OTHERS, COUNTED the round's pages_migrated, OWN the nr_migrated of its
# thread's migratepages events between its begin and end, OTHERS those of
# every other task meanwhile.
threads=
for nid in $(nodes_with_memory); do
	pid=$(kthread_pid pcompactd$nid)
	[ -n "$pid" ] || fail "no pcompactd$nid"
	threads="$threads $pid:$nid"
done
rounds=$(awk -v threads="$threads" '
	BEGIN { n = split(threads, t, " "); for (i = 1; i <= n; i++) { split(t[i], p, ":"); node[p[1]] = p[2] } }
	match($0, /-[0-9]+ +\[[0-9]+\]/) {
		pid = substr($0, RSTART + 1, RLENGTH - 1); sub(/ .*/, "", pid)
		if ($0 ~ /pcompact_round_begin:/ && pid in node) { open[pid] = 1; own[pid] = 0; others[pid] = 0 }
		else if ($0 ~ /mm_compaction_migratepages:/ && match($0, /nr_migrated=[0-9]+/)) {
			nr = substr($0, RSTART + 12, RLENGTH - 12)
			for (p in open)
				if (open[p]) { if (p == pid) own[p] += nr; else others[p] += nr }
		} else if ($0 ~ /pcompact_round_end:/ && open[pid]) {
			match($0, /pages_migrated=[0-9]+/); counted = substr($0, RSTART + 15, RLENGTH - 15)
			match($0, /route=[a-z-]+/); route = substr($0, RSTART + 6, RLENGTH - 6)
			print node[pid], route, counted, own[pid], others[pid]
			open[pid] = 0
		}
	}' $TRACE/trace)
[ -n "$rounds" ] || fail "no traced round: $(for nid in $ABOVE; do node_summary $nid; done)"

checked=0
others_total=0
others_kernel=0
echo "$rounds" | {
	while read -r nid route counted own others; do
		note "node $nid: $route round, pages_migrated $counted, its thread's compaction migrated $own, other tasks' $others"
		case $route in
		kernel)
			[ "$counted" = "$own" ] ||
				fail "node $nid: a kernel round counted $counted pages migrated, its thread migrated $own (other tasks $others)"
			others_kernel=$((others_kernel + others))
			;;
		kernel-then-contig)
			[ "$counted" -ge "$own" ] ||
				fail "node $nid: a fallback round counted $counted pages migrated, fewer than its kernel call's $own"
			;;
		*) continue ;;
		esac
		checked=$((checked + 1))
		others_total=$((others_total + others))
	done
	[ "$checked" -gt 0 ] || fail "no round called the kernel's compaction: $(one_line "$rounds")"
	note "$checked rounds checked; other tasks' compaction migrated $others_total pages during them"
	# Only a kernel round that other tasks' migrations overlapped tells
	# the node's own count from PGMIGRATE_SUCCESS (a fallback round's
	# check is "at least", which that count meets too).
	[ "$others_kernel" -gt 0 ] ||
		skip "no kernel round overlapped another task's compaction: the two counts agree here"
}
rc=$?
[ $rc = 0 ] || exit $rc

stop_frag || fail "frag exit status $?"
rmmod pcompact || fail "rmmod"
check_dmesg_clean
