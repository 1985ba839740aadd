# SPDX-License-Identifier: GPL-2.0
# drain_before_call: with engine=node-sysfs, a round drains the per-CPU lists
# of its node's zones before it calls the kernel's compaction, so that the
# call's free scanner sees the pages parked there (frag's frees, right after
# it fragments).  Seen from the kernel's side, with a kprobe on
# drain_all_pages() (alloc_contig_range() calls it once its range is
# isolated; the functions it calls, where they are not inlined) and the
# compaction tracepoints:
# - off, a node's pcompactd calls the kernel's compaction
#   before it drains anything (its fallback to contig, if any, drains after);
# - on (the default), it drains first, on every node whose lists held a pageblock's worth
#   when compaction was switched on (call_drains counts it, and
#   call_drain_failures those of its calls that failed);
# - frag --verify then finds every page it keeps intact: the drain takes a
#   free block and gives it back, or, where the zone has none, empties a
#   block at most half in use as the contig engine does.
TIMEOUT=600
. /pc/tests/vm/lib.sh

KPROBES=/sys/kernel/tracing/kprobe_events
[ -w $KPROBES ] || skip "no kprobe events in this kernel ($KPROBES)"
# Leave none of this test's probes behind, whatever ends it.
trap 'echo 0 > /sys/kernel/tracing/events/pctest/enable 2>/dev/null
	for fn in $probed; do echo "-:pctest/drain_$fn" >> $KPROBES; done 2>/dev/null
	[ -z "$acr" ] || echo "-:pctest/acr_ret" >> $KPROBES 2>/dev/null' EXIT
# Every function of the drain that the kernel kept out of line: the compiler
# may inline drain_all_pages() into alloc_contig_range(), its neighbour.
probed=""
for fn in __drain_all_pages drain_all_pages drain_pages_zone; do
	kernel_function "$fn" || continue
	echo "p:pctest/drain_$fn $fn" >> $KPROBES || fail "cannot probe $fn"
	probed="$probed $fn"
done
[ -n "$probed" ] || skip "none of the per-CPU list drain's functions can be probed here"
note "probed:$probed"
# What each alloc_contig_range() call returned, as the kernel saw it: the
# witness call_drain_failures is checked against.  The function the module
# calls: the frozen variant where the kernel has one (7.x, compat.h), named
# _noprof since 6.10.
acr=""
for fn in alloc_contig_frozen_range_noprof alloc_contig_range_noprof alloc_contig_range; do
	kernel_function "$fn" || continue
	echo "r:pctest/acr_ret $fn ret=\$retval:s32" >> $KPROBES || fail "cannot probe $fn's return"
	acr=$fn
	break
done
[ -n "$acr" ] || note "alloc_contig_range() cannot be probed here: drain failures not checked against it"

insmod /pc/module/pcompact.ko enabled=0 engine=node-sysfs interval_ms=10 || fail "insmod"
[ "$(cat $PC_PARAM/drain_before_call)" = Y ] ||
	fail "drain_before_call is $(cat $PC_PARAM/drain_before_call) by default"

# node_thread NID: set PID to the node's pcompactd's pid.  Called in this
# shell, not in a command substitution, so that its fail ends the test.
node_thread() {
	PID=$(kthread_pid "pcompactd$1")
	[ -n "$PID" ] || fail "no pcompactd$1"
}

# thread_trace PID: the trace's events of the thread PID, in order.
thread_trace() {
	awk -v pid="$1" '{ task = $1; sub(/.*-/, "", task) } task == pid' \
		/sys/kernel/tracing/trace
}

# first_of PID: what the thread PID did first in the trace, "drain"
# (drain_all_pages) or "call" (the kernel's compaction began), or "none".
first_of() {
	thread_trace "$1" | awk '
		/ drain_[_a-z]+: / { print "drain"; found = 1; exit }
		/ mm_compaction_begin: / { print "call"; found = 1; exit }
		END { if (!found) print "none" }'
}

# zone_pcp_max NID: the most pages the per-CPU lists of one zone of node NID
# hold, over its zones (the module drains a zone whose lists hold a
# pageblock's worth).
zone_pcp_max() {
	awk -v n="Node $1," '
		/^Node/ { on = index($0, n) == 1; zone = $0 }
		on && $1 == "count:" { s[zone] += $2 }
		END { for (z in s) if (s[z] > m) m = s[z]; print m + 0 }' /proc/zoneinfo
}

# phase: fragment anew, note the most pages one zone's per-CPU lists hold on
# each node (PCP_<N>) and compact every node of ABOVE to its end with both
# events traced.
phase() {
	start_frag --verify
	fragmented_nodes 70
	for nid in $ABOVE; do
		eval "PCP_$nid=$(zone_pcp_max "$nid")"
	done
	compact_traced pctest compaction/mm_compaction_begin
}

# Off: the call comes first.
echo N > $PC_PARAM/drain_before_call || fail "drain_before_call N refused"
phase
for nid in $ABOVE; do
	node_thread "$nid"
	first=$(first_of "$PID")
	eval "pcp=\$PCP_$nid"
	note "off, node $nid: $pcp pages on one zone's per-CPU lists, first: $first"
	[ "$first" != drain ] || fail "node $nid drained before its call with drain_before_call N"
done
[ "$(node_stat_sum call_drains)" -eq 0 ] || fail "drain_before_call N counted $(node_stat_sum call_drains) drains"
[ "$(node_stat_sum call_drain_failures)" -eq 0 ] ||
	fail "drain_before_call N counted $(node_stat_sum call_drain_failures) failed drains"
stop_frag >/dev/null 2>&1

# On: the drain comes first on every node one of whose zones' lists held
# twice a pageblock (512 pages on x86) when compaction was switched on, so
# that their decay until the round does not take them below one.
echo Y > $PC_PARAM/drain_before_call || fail "drain_before_call Y refused"
phase
checked=0
for nid in $ABOVE; do
	node_thread "$nid"
	first=$(first_of "$PID")
	eval "pcp=\$PCP_$nid"
	drains=$(node_stat "$nid" call_drains)
	failures=$(node_stat "$nid" call_drain_failures)
	gained=$(node_stat "$nid" call_drain_blocks)
	note "on, node $nid: $pcp pages on one zone's per-CPU lists, first: $first, $drains drains ($failures failed) gained $gained blocks"
	[ "$failures" -le "$drains" ] || fail "node $nid: $failures failed drains of $drains"
	# Only a call that took its block adds to call_drain_blocks.
	[ "$gained" -eq 0 ] || [ "$failures" -lt "$drains" ] ||
		fail "node $nid: all $drains drains failed, yet they gained $gained blocks"
	# The thread's other alloc_contig_range() calls (a contig fallback)
	# return too, so each count is at most what the kernel returned.
	if [ -n "$acr" ]; then
		returned_ok=$(thread_trace "$PID" | grep -c ' acr_ret: .* ret=0$')
		returned_err=$(thread_trace "$PID" | grep ' acr_ret: ' | grep -vc ' ret=0$')
		note "node $nid: its thread's $acr returned 0 $returned_ok times, an error $returned_err times"
		[ $((drains - failures)) -le "$returned_ok" ] ||
			fail "node $nid: $((drains - failures)) drains took their block, $acr returned 0 $returned_ok times"
		[ "$failures" -le "$returned_err" ] ||
			fail "node $nid: $failures failed drains counted, $acr returned an error $returned_err times"
	fi
	[ "$pcp" -ge 1024 ] || continue
	checked=$((checked + 1))
	[ "$first" = drain ] || fail "node $nid: $pcp pages on one zone's per-CPU lists and its first act was '$first', not a drain; its first events: $(thread_trace "$PID" | head -3 | tr -s ' ')"
	[ "$(node_stat "$nid" call_drains)" -ge 1 ] || fail "node $nid drained, call_drains is 0"
done
verify_frag "after the drains"
rmmod pcompact || fail "rmmod"
check_dmesg_clean
[ "$checked" -gt 0 ] || skip "no node had 1024 pages on one zone's per-CPU lists after frag"
