#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# 32-khugehog-node: a node-bound run (node=N) stops at its node's margin,
# keep_free_mb plus the node's high watermarks, measured against the node's
# free memory, and reports its share of the node's free memory: the other
# nodes' free memory can neither keep it going nor dilute the share.
TIMEOUT=300
. /pc/tests/vm/lib.sh

KO=/pc/khugehog/khugehog.ko
SUMMARY=/proc/khugehog/summary
[ -f "$KO" ] || fail "$KO is missing"
[ "$(nodes_with_memory | wc -l)" -ge 2 ] || skip "needs two nodes with memory"
trap 'rmmod khugehog 2>/dev/null' EXIT
kv() { awk -v k="$1" '$1 == k { print $2; f = 1 } END { exit !f }' "$SUMMARY"; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }
# node_high NID: the high watermarks of node NID's populated zones, in
# pages (an empty Movable zone still shows a watermark of 32 pages).
node_high() {
	awk -v n="Node $1," '
		/^Node/ { on = (index($0, n) == 1) }
		on && $1 == "high" && NF == 2 { h = $2 }
		on && $1 == "present" && $2 > 0 { s += h }
		END { print s + 0 }' /proc/zoneinfo
}

n=$(nodes_with_memory | tail -n 1)
sync
echo 3 > /proc/sys/vm/drop_caches
echo 1 > /proc/sys/vm/compact_memory
# Pages on the per-cpu lists (tens of MB after the last test's frees on
# 6.12, whose lists grow with the load) return to the buddy lists at their
# own pace, and the node's free count grows by as much before khugehog
# reads it: drain them, and allow for what is left.
drain_pcp_lists || note "per-cpu lists still hold $(pcp_pages) pages"
node_pcp0=$(pcp_pages "$n")
node_free0=$(zone_field "$n" free)
all_free0=$(awk '$1 == "MemFree:" { print int($2 / 4) }' /proc/meminfo)
margin=$((64 * 256 + $(node_high "$n")))
note "node $n: $node_free0 pages free ($node_pcp0 more on per-cpu lists) of $all_free0 in all; expected margin $margin pages"
insmod "$KO" node="$n" keep_free_mb=64 || fail "insmod khugehog node=$n"
node_free1=$(zone_field "$n" free)
note "summary: $(tr '\n' ' ' < $SUMMARY)"
note "node $n free after the run: $node_free1 pages"

[ "$(kv margin_pages)" = "$margin" ] ||
	fail "margin_pages $(kv margin_pages), expected 64 MB plus node $n's high watermarks, $margin"
# The start figure is the node's, not the whole machine's.
start=$(kv free_pages_start)
ge "$start" "$((node_free0 * 9 / 10))" && ge "$((node_free0 + node_pcp0 + 2048))" "$start" ||
	fail "free_pages_start $start is not node $n's free memory ($node_free0 pages, $node_pcp0 on per-cpu lists)"
# The run stops at the node's margin (or at a failure before it), never below.
case "$(kv stop_reason)" in
margin | failures) ;;
*) fail "stop_reason $(kv stop_reason)" ;;
esac
ge "$node_free1" "$((margin - 1024))" ||
	fail "node $n has $node_free1 free pages after the run, below its margin $margin"
ge "$(kv free_pages_end)" "$((margin - 512))" || fail "free_pages_end $(kv free_pages_end) is below the margin"
# Most of the node's free memory above the margin was obtained, and the
# share is of the node's free memory.
ge "$(kv free_share_pct)" 80 || fail "allocated only $(kv free_share_pct)% of node $n's free memory"
rmmod khugehog || fail "rmmod khugehog"
trap - EXIT
check_dmesg_clean
