#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# 33-khugehog-blocks: before its first allocation, khugehog counts each
# node's free pageblocks: those free as one buddy (whole_blocks_start, what
# /proc/buddyinfo shows) and those whose pages are all free but some wait
# on per-cpu lists (held_blocks_start), which /proc/buddyinfo does not show.
# - idle, with the lists drained, the whole blocks of each node are the
#   node's free order-9 blocks in /proc/buddyinfo, less the few that
#   loading khugehog takes;
# - right after frag exits, its pages freed through the per-cpu lists,
#   blocks are held, each with at least one of its pages off the buddy
#   lists, and draining the lists turns most of them into whole ones.
TIMEOUT=300
. /pc/tests/vm/lib.sh

KO=/pc/khugehog/khugehog.ko
SUMMARY=/proc/khugehog/summary
[ -f "$KO" ] || fail "$KO is missing"
trap 'rmmod khugehog 2>/dev/null' EXIT
kv() { awk -v k="$1" '$1 == k { print $2; f = 1 } END { exit !f }' "$SUMMARY"; }
# count_blocks: one khugehog run that allocates a single page and frees it:
# only its count before the first allocation matters.
count_blocks() {
	insmod "$KO" max=1 free_immediately=1 || fail "insmod khugehog"
	note "summary: $(grep blocks "$SUMMARY" | tr '\n' ' ')"
}

# Idle, drained: whole blocks as the buddy lists show them.
sync
echo 3 > /proc/sys/vm/drop_caches
echo 1 > /proc/sys/vm/compact_memory
drain_pcp_lists || note "per-cpu lists still hold $(pcp_pages) pages"
for n in $(nodes_with_memory); do
	eval "buddy_$n=$(free_blocks_at_least 9 "$n")"
done
count_blocks
total=0
for n in $(nodes_with_memory); do
	eval "want=\$buddy_$n"
	got=$(kv "whole_blocks_start_node$n") || fail "no whole_blocks_start_node$n"
	kv "held_blocks_start_node$n" >/dev/null || fail "no held_blocks_start_node$n"
	# Loading khugehog and its record arrays may split a few blocks first.
	[ "$got" -ge "$((want - 6))" ] && [ "$got" -le "$((want + 2))" ] ||
		fail "node $n: whole_blocks_start $got, /proc/buddyinfo had $want"
	total=$((total + got))
done
[ "$(kv whole_blocks_start)" -eq "$total" ] ||
	fail "whole_blocks_start $(kv whole_blocks_start) is not the nodes' sum $total"
rmmod khugehog || fail "rmmod khugehog"

# frag's exit frees nearly all memory, the last of it through the lists.
start_frag
stop_frag
pcp=$(pcp_pages)
count_blocks
held=$(kv held_blocks_start)
loose=$(kv held_pages_start)
left=$(pcp_pages)
note "per-cpu lists held $pcp pages before the count, $left after"
# 6.1 drains the lists of another node's zones within seconds: a count
# that ran after their drain has nothing to find.
if [ "$held" -eq 0 ]; then
	[ "$left" -ge 1024 ] || skip "the per-cpu lists drained to $left pages around the count"
	fail "no held block with $pcp, then $left pages on the per-cpu lists"
fi
[ "$loose" -ge "$held" ] && [ "$loose" -le "$((held * 512))" ] ||
	fail "held_pages_start $loose for $held held blocks"
whole=$(kv whole_blocks_start)
rmmod khugehog || fail "rmmod khugehog"

# Drained, most held blocks are whole.  A few held blocks prove nothing
# here: each count's own page, freed at once, may wait on a list.
[ "$held" -ge 8 ] || skip "only $held held blocks to drain"
drain_pcp_lists || skip "the per-cpu lists still hold $(pcp_pages) pages after 30 s"
count_blocks
[ "$(kv held_blocks_start)" -le "$((held / 2))" ] ||
	fail "held_blocks_start $(kv held_blocks_start) after the drain, $held before"
[ "$(kv whole_blocks_start)" -gt "$whole" ] ||
	fail "whole_blocks_start $(kv whole_blocks_start) after the drain, $whole before"
rmmod khugehog || fail "rmmod khugehog"
trap - EXIT
check_dmesg_clean
