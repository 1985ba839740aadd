# SPDX-License-Identifier: GPL-2.0
# pcompact keeps its headroom: on a fragmented node held at its low
# watermark (a little above min, below high + 1024 pages) by a tmpfs that
# keeps writing there, neither engine starts any work (blocks_freed,
# failed_blocks and pages_migrated stay 0 although rounds run, and
# headroom_stops counts them), no such round defers the node (it lacks
# memory, not blocks to empty), the node's free memory never
# falls below its min watermark and nothing is OOM-killed.  Once the memory
# is given back, the same node compacts, and frag --verify finds every
# page it keeps intact.
TIMEOUT=600
. /pc/tests/vm/lib.sh

BOOST=/proc/sys/vm/watermark_boost_factor
old_boost=$(cat $BOOST)
old_fraction=$(cat $PCP_FRACTION 2>/dev/null)
HOLD=/tmp/hold
cleanup() {
	unfill_tmpfs $HOLD
	echo "$old_boost" > $BOOST
	[ -z "$old_fraction" ] || echo "$old_fraction" > $PCP_FRACTION
}
trap cleanup EXIT
# No watermark boosting: it would wake kswapd on fragmentation events, and
# pcompact (rightly) backs off from kswapd, which is not what is tested here.
echo 0 > $BOOST
# Per-CPU lists at their smallest.  Pages on them are free but not in the
# zone's free count, and on 6.12 a node's lists held 6462 pages (25 MB)
# here: when something drained them (the page allocator does after a failed
# reclaim), free memory jumped past pcompact's headroom between two looks
# of the hold below, and node-sysfs rightly ran.
if [ -n "$old_fraction" ]; then
	echo "$PCP_FRACTION_SMALLEST" > $PCP_FRACTION || fail "cannot shrink the per-cpu lists"
fi
nid=$(nodes_with_memory | tail -n 1)
[ "$(nodes_with_memory | wc -l)" -ge 2 ] || skip "needs a second node to take the overflow"

insmod /pc/module/pcompact.ko enabled=0 engine=node-sysfs proactiveness=100 interval_ms=100 \
	max_defer_shift=0 nodes="$nid" || fail "insmod"
start_frag --verify
# The kernel drains lists above their new high mark once a second: drained
# before the hold, so that it does not raise free memory during it.
wait_for "[ \$(pcp_pages $nid) -lt 1024 ]" 30 ||
	fail "node $nid: $(pcp_pages "$nid") pages still on the per-cpu lists"
# Hold node $nid's free memory at its low watermark: a tmpfs preferring the
# node is written until the node is at low + 4 MB, after which the page
# allocator takes the node's free memory only down to low and sends the
# rest to the other node, without waking kswapd.  Huge pages first, while
# the node has free 2 MB blocks (fill_node_tmpfs), so that those frag left
# go before its holes do, and what stays free on the node is fragmented.
min=$(zone_field "$nid" min)
low=$(zone_field "$nid" low)
high=$(zone_field "$nid" high)
fill_node_tmpfs $HOLD "$nid" "[ \$(zone_field $nid free) -le $((low + 1024)) ]" ||
	fail "could not bring node $nid down to its low watermark: free $(zone_field "$nid" free) pages"
# The fill writes up to 16 MB at a time and can overshoot
# past min (6.12 once stopped at min - 23 pages before pcompact was even
# enabled).  Give back whole files until the node is clear of min, then
# come down again 1 MB at a time, so that the window below starts
# between min and low and measures pcompact alone.
while [ "$(zone_field "$nid" free)" -lt $((min + 1024)) ]; do
	last=$(ls -t $HOLD | head -n 1)
	[ -n "$last" ] || fail "node $nid below min with nothing held"
	rm -f "$HOLD/$last"
done
n=0
while [ "$(zone_field "$nid" free)" -gt $((low + 1024)) ] && [ $n -lt 64 ]; do
	dd if=/dev/zero of=$HOLD/settle$n bs=1M count=1 2>/dev/null || break
	n=$((n + 1))
done
free=$(zone_field "$nid" free)
[ "$free" -ge "$min" ] || fail "node $nid: free $free pages, below min $min before pcompact runs"
note "node $nid: free $free pages, watermarks min $min low $low high $high," \
	"pcompact's headroom $((high + 1024)) + the unit; held in tmpfs $(du -sk $HOLD | cut -f1) kB;" \
	"$(pcp_pages "$nid") pages on the per-cpu lists"
[ "$free" -lt $((high + 1024)) ] || fail "node $nid free $free is not below the headroom"
[ "$(node_stat "$nid" score)" -gt 10 ] || fail "node $nid score $(node_stat "$nid" score): nothing to compact"

# Compact: rounds run (the score is far above the high threshold, 10) and
# find every block too dear for the headroom.
rounds0=$(node_stat "$nid" rounds)
echo 1 > $PC_PARAM/enabled
lowest=$free
highest=$free
topped_mb=0
held() {
	f=$(zone_field "$nid" free)
	[ "$f" -ge "$lowest" ] || lowest=$f
	[ "$f" -le "$highest" ] || highest=$f
	# Keep the node held: what kernel threads freed meanwhile is taken again.
	[ "$f" -le $((low + 2048)) ] && return 1
	# A node that stays above the mark while the writes land elsewhere
	# would have the hold fill the whole machine 4 MB at a time, and the
	# OOM killer end the test: fail first, saying so.
	[ $topped_mb -lt 256 ] || fail "node $nid: free $f pages stayed above $((low + 2048))" \
		"after $topped_mb MB written to hold it"
	dd if=/dev/zero of=$HOLD/top$topped_mb bs=1M count=4 2>/dev/null
	topped_mb=$((topped_mb + 4))
	return 1
}
worked() {
	for _c in blocks_freed failed_blocks pages_migrated; do
		[ "$(node_stat "$nid" $_c)" != 0 ] && return 0
	done
	return 1
}
# A measurement window: 20 rounds of compaction wanted and not done, the
# first 10 by the default engine (node-sysfs, which checks the headroom
# once before it calls the kernel), the rest by contig (which checks it
# before each range it empties).
window() {
	_stops=$(node_stat "$nid" headroom_stops)
	_deferrals=$(node_stat "$nid" deferrals)
	wait_for "held || worked || [ \$(node_stat $nid rounds) -ge $((rounds0 + $1)) ]" 120 ||
		fail "node $nid: only $(( $(node_stat "$nid" rounds) - rounds0 )) rounds in 120 s" \
			"(engine $(cat $PC_PARAM/engine), state $(node_stat "$nid" state)," \
			"backoffs_kswapd $(node_stat "$nid" backoffs_kswapd))"
	oom_killed && fail "the OOM killer ran while node $nid was held" \
		"(free now $(zone_field "$nid" free), lowest seen $lowest, min $min; $topped_mb MB topped up)"
	worked && fail "node $nid: engine $(cat $PC_PARAM/engine) worked below its headroom:" \
		"free now $(zone_field "$nid" free), highest seen $highest, pcp $(pcp_pages "$nid");" \
		"$(node_summary "$nid") pages_migrated $(node_stat "$nid" pages_migrated)"
	[ "$(node_stat "$nid" headroom_stops)" -gt "$_stops" ] ||
		fail "node $nid: engine $(cat $PC_PARAM/engine) counted no headroom stop"
	[ "$(node_stat "$nid" deferrals)" = "$_deferrals" ] ||
		fail "node $nid: engine $(cat $PC_PARAM/engine) deferred after rounds the headroom" \
			"stopped (deferrals $_deferrals -> $(node_stat "$nid" deferrals))"
}
window 10
echo contig > $PC_PARAM/engine || fail "engine contig"
window 20
note "node $nid after $(( $(node_stat "$nid" rounds) - rounds0 )) rounds: blocks_freed" \
	"$(node_stat "$nid" blocks_freed), failed_blocks $(node_stat "$nid" failed_blocks)," \
	"deferrals $(node_stat "$nid" deferrals), free at least $lowest pages (min $min)," \
	"state $(node_stat "$nid" state), score $(node_stat "$nid" score)"
[ "$lowest" -ge "$min" ] || fail "node $nid free fell to $lowest pages, below its min watermark $min"
oom_killed && fail "the OOM killer ran"
kill -0 "$FRAG_PID" || fail "frag died"

# Memory back: the same node compacts now.
unfill_tmpfs $HOLD
wait_for "[ \$(node_stat $nid blocks_freed) -gt 0 ]" 120 ||
	fail "node $nid: no block freed with the memory back (free $(zone_field "$nid" free))"
note "node $nid with the memory back: blocks_freed $(node_stat "$nid" blocks_freed)"
echo 0 > $PC_PARAM/enabled
stop_frag || { cat "$FRAG_OUT"; fail "frag exit"; }
grep -q '^frag: verify ok' "$FRAG_OUT" || fail "frag verify: $(grep '^frag: verify' "$FRAG_OUT")"
rmmod pcompact || fail "rmmod"
check_dmesg_clean
