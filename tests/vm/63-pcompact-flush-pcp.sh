# SPDX-License-Identifier: GPL-2.0
# flush_pcp: after a round, the per-CPU lists that hold free blocks back
# are drained, so what the round emptied is on the free lists at once.
# - off (the default), rounds drain nothing: pcp_flushes stays 0;
# - on, every fragmented node's round ends with a drain (pcp_flushes), and
#   the drained lists gave back whole free blocks (pcp_flush_blocks): each
#   page the kernel's compaction migrates frees its source to the
#   compacting CPU's list, so the last blocks a round empties wait there;
# - frag --verify then finds every page it keeps intact: the drain's
#   alloc_contig_range() takes only free pages and gives them back.
# The pages left on the lists are logged for both, not checked: anything
# that runs between the round and the read refills them.
TIMEOUT=600
. /pc/tests/vm/lib.sh

# node_rounds_done NID COUNT: the node had COUNT rounds and is not in one.
node_rounds_done() {
	[ "$(node_stat $1 rounds)" -ge "$2" ] && [ "$(node_stat $1 state)" != compacting ]
}

insmod /pc/module/pcompact.ko enabled=0 engine=node-sysfs || fail "insmod"
[ "$(cat $PC_PARAM/flush_pcp)" = N ] || fail "flush_pcp is $(cat $PC_PARAM/flush_pcp) by default"
start_frag --verify
fragmented_nodes 70

# Off: one round per node, no drain.
echo 1 > $PC_PARAM/enabled
for nid in $ABOVE; do
	wait_for "node_rounds_done $nid 1" 120 || fail "node $nid: no round in 120 s: $(node_summary $nid)"
done
echo 0 > $PC_PARAM/enabled
wait_for "! grep -q compacting $PC_SYS/node*/state" 60 || fail "rounds did not end"
[ "$(node_stat_sum pcp_flushes)" -eq 0 ] || fail "flush_pcp=N drained: $(node_stat_sum pcp_flushes)"
for nid in $ABOVE; do
	note "node $nid without the drain: $(pcp_pages $nid) pages on its per-CPU lists"
done

# On: fragment again, from scratch, and compact with the drain.
stop_frag >/dev/null 2>&1
start_frag --verify
fragmented_nodes 70
echo 1 > $PC_PARAM/flush_pcp || fail "flush_pcp=1 refused"
for nid in $ABOVE; do
	eval "rounds_$nid=$(node_stat $nid rounds)"
done
echo 1 > $PC_PARAM/enabled
for nid in $ABOVE; do
	eval "want=\$((rounds_$nid + 1))"
	wait_for "node_rounds_done $nid $want" 120 ||
		fail "node $nid: no round in 120 s: $(node_summary $nid)"
done
echo 0 > $PC_PARAM/enabled
wait_for "! grep -q compacting $PC_SYS/node*/state" 60 || fail "rounds did not end"
for nid in $ABOVE; do
	left=$(pcp_pages $nid)
	flushes=$(node_stat $nid pcp_flushes)
	blocks=$(node_stat $nid pcp_flush_blocks)
	note "node $nid with the drain: $flushes drains, $blocks blocks gained, $left pages left on its per-CPU lists"
	[ "$flushes" -ge 1 ] || fail "node $nid: no drain after its rounds: $(node_summary $nid)"
	[ "$blocks" -ge 1 ] || fail "node $nid: the drains freed no whole block"
done
verify_frag "after the drains"
rmmod pcompact || fail "rmmod"
check_dmesg_clean
