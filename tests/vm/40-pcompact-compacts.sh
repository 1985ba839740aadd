# SPDX-License-Identifier: GPL-2.0
# After frag pushes the nodes above the high threshold, pcompactd brings
# every node to or below the low one in bounded time, free order-9 blocks
# rise, and frag --verify finds every kept page intact.  Below the high
# threshold it does nothing.
TIMEOUT=600
. /pc/tests/vm/lib.sh

insmod /pc/module/pcompact.ko proactiveness=20 || fail "insmod"

# Unfragmented: the score sits below high, so no round starts.
echo 1 > /sys/kernel/tracing/events/pcompact/pcompact_score/enable
wait_for "[ \$(grep -c 'pcompact_score: nid=0' /sys/kernel/tracing/trace) -ge 4 ]" 30 ||
	fail "no score samples"
echo 0 > /sys/kernel/tracing/events/pcompact/pcompact_score/enable
for nid in $(nodes_with_memory); do
	note "idle: node $nid score $(node_stat $nid score) rounds $(node_stat $nid rounds)"
	[ "$(node_stat $nid score)" -le 90 ] || skip "node $nid fragmented at boot"
	[ "$(node_stat $nid rounds)" = 0 ] || fail "node $nid compacted below the high threshold"
done

echo 0 > $PC_PARAM/enabled
start_frag --verify
before=$(free_blocks_at_least 9)
cat /proc/buddyinfo
for nid in $(nodes_with_memory); do
	note "fragmented: node $nid score $(node_stat $nid score)"
done
fragmented_nodes 70
above=$ABOVE
note "thresholds $(node_stat 0 wmark_low)/$(node_stat 0 wmark_high), nodes above: $above"

start=$(date +%s)
echo 1 > $PC_PARAM/enabled
for nid in $above; do
	wait_for "[ \$(node_stat $nid score) -le $LOW ]" 300 ||
		fail "node $nid still at $(node_stat $nid score) after 300 s"
done
took=$(( $(date +%s) - start ))
after=$(free_blocks_at_least 9)
cat /proc/buddyinfo
for nid in $above; do
	note "node $nid: score $(node_stat $nid score) rounds $(node_stat $nid rounds) blocks_freed $(node_stat $nid blocks_freed) pages_migrated $(node_stat $nid pages_migrated) failed $(node_stat $nid failed_blocks) compact_ms $(node_stat $nid compact_ms)"
	[ "$(node_stat $nid blocks_freed)" -gt 0 ] || fail "node $nid freed no blocks"
done
note "score at or below low after ${took}s; free order-9 blocks $before -> $after"
[ "$after" -gt "$before" ] || fail "free order-9 blocks did not rise ($before -> $after)"

verify_frag
cat "$FRAG_OUT"
rmmod pcompact || fail "rmmod"
check_dmesg_clean
