# SPDX-License-Identifier: GPL-2.0
# With stall_wake_ms set, a direct compaction stall samples every node at
# once, not only the stalling CPU's: the allocation may be short of another
# node's blocks.  pcompactd samples every 60 s here (the longest interval):
# its first sample, at load, finds the nodes unfragmented; frag then
# fragments one node without touching a parameter (a write would wake the
# threads); khugehog, pinned to a CPU of another node where there is one,
# allocates from the fragmented node and stalls in direct compaction, which
# is charged to its CPU's node.  The fragmented node must start a round long
# before its next periodic sample is due.
TIMEOUT=300
. /pc/tests/vm/lib.sh

target=$(nodes_with_memory | head -n 1)
stall_node=""
for n in $(nodes_with_memory); do
	[ "$n" != "$target" ] && [ -n "$(first_cpu $n)" ] && { stall_node=$n; break; }
done
[ -n "$stall_node" ] || stall_node=$target
cpu=$(first_cpu $stall_node)
[ -n "$cpu" ] || skip "node $stall_node has no CPU to stall on"
note "fragmenting node $target, allocating from it on CPU $cpu (node $stall_node)"

echo 0 > /proc/sys/vm/compaction_proactiveness
loaded=$(date +%s)
insmod /pc/module/pcompact.ko interval_ms=60000 stall_wake_ms=100 \
	wmark_low=40 wmark_high=50 || fail "insmod"
for nid in $(nodes_with_memory); do
	wait_for "[ \"\$(node_stat $nid state)\" = idle ]" 30 ||
		fail "node $nid not idle after load (state $(node_stat $nid state), score $(node_stat $nid score))"
done
rounds0=$(node_stat $target rounds)
stalls0=$(node_stat $target direct_stalls)
start_frag --node "$target"
# Beyond the free 2 MB blocks frag leaves, allocations stall; past one
# failure: a compaction deferral alone must not end the run.
max=$(( $(free_blocks_at_least 9) + 100 ))
taskset -c "$cpu" /sbin/insmod /pc/khugehog/khugehog.ko node="$target" max=$max \
	stop_after_failures=100 || fail "insmod khugehog node=$target on CPU $cpu"
rmmod khugehog || fail "rmmod khugehog"
waited=$(( $(date +%s) - loaded ))
[ "$waited" -lt 40 ] ||
	skip "frag and khugehog took ${waited} s: too close to the 60 s periodic sample to tell"
[ "$(node_stat $stall_node direct_stalls)" -gt 0 ] ||
	fail "khugehog did not stall in direct compaction on CPU $cpu (node $stall_node)"
if [ "$stall_node" != "$target" ]; then
	# The stalls are the other node's: only a wake of every node reaches this one.
	[ "$(node_stat $target direct_stalls)" -eq "$stalls0" ] ||
		fail "stalls were charged to node $target, not only to CPU $cpu's node $stall_node: the test cannot tell"
fi
wait_for "[ \$(node_stat $target rounds) -gt $rounds0 ]" $((55 - waited)) ||
	fail "node $target: no round within 55 s of loading despite $(node_stat $stall_node direct_stalls) stalls on node $stall_node (node $target stall_wakes $(node_stat $target stall_wakes), score $(node_stat $target score))"
[ "$(node_stat $target stall_wakes)" -gt 0 ] ||
	fail "node $target started a round but its stall_wakes is 0"
for nid in $(nodes_with_memory); do
	note "node $nid: direct_stalls $(node_stat $nid direct_stalls) stall_wakes $(node_stat $nid stall_wakes) rounds $(node_stat $nid rounds) score $(node_stat $nid score) state $(node_stat $nid state), $(( $(date +%s) - loaded )) s after load"
done
stop_frag || fail "frag exit"
rmmod pcompact || fail "rmmod"
check_dmesg_clean
