#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# 33-khugehog-blocks: before its first allocation, khugehog counts each
# node's free pageblocks: those free as one buddy (whole_blocks_start, what
# /proc/buddyinfo shows) and those whose pages are all free but some wait
# on per-cpu lists (held_blocks_start), which /proc/buddyinfo does not show.
# - idle, with the lists drained, the whole blocks of each node are the
#   node's free order-9 blocks in /proc/buddyinfo, less the few that
#   loading khugehog takes;
# - right after frag exits on a CPU of the node it filled, its pages freed
#   through that CPU's per-cpu lists, blocks of the node are held, each
#   with at least one of its pages off the buddy lists, and draining the
#   lists turns most of them into whole ones.
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

# frag's exit frees its pages through the per-cpu lists of the CPU it
# exits on.  Left alone the lists hold only a chance share of them: 6.1
# drains a CPU's lists of another node's zones within seconds (vmstat's
# expiry), and a list that reaches its high mark gives all but a batch
# back, so its count at the end of a long free is anywhere from a batch to
# the mark (6.1: 162 pages on a 10507-page list in one run, 10079 on an
# 11088-page one in the next).  So frag fills a little of the node of the
# CPU the test now runs on, and the lists' mark is the highest the kernel
# allows (1/8 of the zone) while it exits: every page it frees stays on
# that CPU's own list.
node=""
for n in $(nodes_with_memory); do
	[ -n "$(first_cpu "$n")" ] && { node=$n; break; }
done
[ -n "$node" ] || fail "no node with both memory and a CPU"
cpu=$(first_cpu "$node")
taskset -p -c "$cpu" $$ >/dev/null || fail "cannot pin the test to CPU $cpu"
[ -w "$PCP_FRACTION" ] || skip "no $PCP_FRACTION to keep the freed pages on the lists"
old_fraction=$(cat "$PCP_FRACTION")
trap 'echo "$old_fraction" > "$PCP_FRACTION"; rmmod khugehog 2>/dev/null' EXIT
start_frag --node "$node" --percent 30
drain_pcp_lists || note "per-cpu lists still hold $(pcp_pages) pages"
echo 8 > "$PCP_FRACTION" || fail "cannot write 8 to $PCP_FRACTION"
stop_frag
pcp=$(pcp_pages "$node")
count_blocks
held=$(kv "held_blocks_start_node$node")
loose=$(kv held_pages_start)
left=$(pcp_pages "$node")
note "node $node's per-cpu lists held $pcp pages before the count, $left after"
if [ "$held" -eq 0 ]; then
	[ "$pcp" -ge 1024 ] || skip "frag's exit left only $pcp pages on node $node's per-cpu lists"
	fail "no held block on node $node with $pcp, then $left pages on its per-cpu lists"
fi
held_all=$(kv held_blocks_start)
[ "$loose" -ge "$held_all" ] && [ "$loose" -le "$((held_all * 512))" ] ||
	fail "held_pages_start $loose for $held_all held blocks"
whole=$(kv "whole_blocks_start_node$node")
rmmod khugehog || fail "rmmod khugehog"
echo "$old_fraction" > "$PCP_FRACTION" || fail "cannot restore $PCP_FRACTION to $old_fraction"

# Drained, most held blocks are whole.  A few held blocks prove nothing
# here: each count's own page, freed at once, may wait on a list.
[ "$held" -ge 8 ] || skip "only $held held blocks to drain"
drain_pcp_lists || skip "the per-cpu lists still hold $(pcp_pages) pages after 30 s"
count_blocks
after=$(kv "held_blocks_start_node$node")
[ "$after" -le "$((held / 2))" ] ||
	fail "node $node: held_blocks_start $after after the drain, $held before"
after=$(kv "whole_blocks_start_node$node")
[ "$after" -gt "$whole" ] ||
	fail "node $node: whole_blocks_start $after after the drain, $whole before"
rmmod khugehog || fail "rmmod khugehog"
trap - EXIT
check_dmesg_clean
