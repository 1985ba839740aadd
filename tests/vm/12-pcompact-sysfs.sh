# SPDX-License-Identifier: GPL-2.0
# pcompact's observability: sysfs statistics per node, the hooks listing,
# its own tracepoints in tracefs; all gone after rmmod.
. /pc/tests/vm/lib.sh

insmod /pc/module/pcompact.ko || fail "insmod"
[ "$(cat $PC_SYS/version)" = "$(cat /sys/module/pcompact/version)" ] || fail "sysfs version"
cat $PC_SYS/hooks
grep -q 'tracepoint:mm_vmscan_kswapd_wake attached' $PC_SYS/hooks || fail "kswapd hook not attached"
grep -q 'tracepoint:mm_compaction_kcompactd_wake attached' $PC_SYS/hooks || fail "kcompactd hook not attached"
grep -q 'tracepoint:mm_compaction_migratepages attached' $PC_SYS/hooks || fail "migratepages hook not attached"
grep -q '^kretprobe:.* attached' $PC_SYS/hooks || fail "direct compaction kretprobe not attached"
for nid in $(nodes_with_memory); do
	d=$PC_SYS/node$nid
	for f in score zone_scores wmark_low wmark_high state running rounds blocks_freed \
		 pages_migrated failed_blocks skipped_unmovable deferrals backoffs_kswapd \
		 backoffs_contention backoffs_stall compact_ms direct_stalls direct_stall_us kcompactd_wakes \
		 kswapd_wakes stall_wakes reserve_rounds engine_fallbacks headroom_stops pcp_flushes \
		 pcp_flush_blocks call_drains call_drain_blocks call_drain_failures quiet_contig_rounds fed_stall_rounds \
		 free_blocks reserve demand_rate; do
		[ -r "$d/$f" ] || fail "no $d/$f"
	done
	[ "$(node_stat $nid wmark_low)" = 80 ] && [ "$(node_stat $nid wmark_high)" = 90 ] ||
		fail "default thresholds are not 80/90"
	[ "$(node_stat $nid running)" = 1 ] || fail "node$nid not running"
	grep -q -E '^(DMA32|Normal|Movable) [0-9]+$' "$d/zone_scores" || fail "no DMA32/Normal/Movable zone score"
	# Nothing but root may write anything here.
	[ -z "$(find $PC_SYS -perm -o+w -o -perm -g+w)" ] || fail "group/world-writable sysfs file"
done
ls /sys/kernel/tracing/events/pcompact/pcompact_score >/dev/null || fail "no pcompact_score event"
ls /sys/kernel/tracing/events/pcompact/pcompact_round_begin >/dev/null || fail "no round_begin event"
ls /sys/kernel/tracing/events/pcompact/pcompact_round_end >/dev/null || fail "no round_end event"

# The score tracepoint fires every interval for every node.
echo 1 > /sys/kernel/tracing/events/pcompact/pcompact_score/enable
echo 50 > $PC_PARAM/interval_ms
wait_for "[ \$(grep -c 'pcompact_score: nid=0' /sys/kernel/tracing/trace) -ge 3 ]" 20 ||
	fail "no score samples traced"
echo 0 > /sys/kernel/tracing/events/pcompact/pcompact_score/enable
echo > /sys/kernel/tracing/trace

rmmod pcompact || fail "rmmod"
[ ! -e $PC_SYS ] || fail "$PC_SYS left after rmmod"
[ ! -e /sys/kernel/tracing/events/pcompact ] || fail "trace events left after rmmod"
grep -q pcompact /sys/kernel/debug/kprobes/list 2>/dev/null && fail "kprobe left after rmmod"
check_dmesg_clean
