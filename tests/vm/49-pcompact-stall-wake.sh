# SPDX-License-Identifier: GPL-2.0
# With stall_wake_ms set, a direct compaction stall on a node samples that
# node at once.  pcompactd samples every 60 s here (the longest interval):
# its first sample, at load, finds the node unfragmented; frag then
# fragments it without touching a parameter (a write would wake the
# threads); khugehog's allocations stall in direct compaction, and a round
# must start long before the next periodic sample is due.
TIMEOUT=300
. /pc/tests/vm/lib.sh

echo 0 > /proc/sys/vm/compaction_proactiveness
loaded=$(date +%s)
insmod /pc/module/pcompact.ko interval_ms=60000 stall_wake_ms=100 \
	wmark_low=40 wmark_high=50 || fail "insmod"
for nid in $(nodes_with_memory); do
	wait_for "[ \"\$(node_stat $nid state)\" = idle ]" 30 ||
		fail "node $nid not idle after load (state $(node_stat $nid state), score $(node_stat $nid score))"
done
rounds0=$(node_stat_sum rounds)
start_frag
# Beyond the free 2 MB blocks frag leaves, allocations stall; past one
# failure: a compaction deferral alone must not end the run.
max=$(( $(free_blocks_at_least 9) + 100 ))
insmod /pc/khugehog/khugehog.ko max=$max stop_after_failures=100 || fail "insmod khugehog"
rmmod khugehog || fail "rmmod khugehog"
waited=$(( $(date +%s) - loaded ))
[ "$waited" -lt 40 ] ||
	skip "frag and khugehog took ${waited} s: too close to the 60 s periodic sample to tell"
[ "$(node_stat_sum direct_stalls)" -gt 0 ] || fail "khugehog did not stall in direct compaction"
wait_for "[ \$(node_stat_sum rounds) -gt $rounds0 ]" $((55 - waited)) ||
	fail "no round within 55 s of loading despite $(node_stat_sum direct_stalls) stalls (stall_wakes $(node_stat_sum stall_wakes))"
[ "$(node_stat_sum stall_wakes)" -gt 0 ] || fail "a round started but stall_wakes is 0"
for nid in $(nodes_with_memory); do
	note "node $nid: direct_stalls $(node_stat $nid direct_stalls) stall_wakes $(node_stat $nid stall_wakes) rounds $(node_stat $nid rounds) score $(node_stat $nid score) state $(node_stat $nid state), $(( $(date +%s) - loaded )) s after load"
done
stop_frag || fail "frag exit"
rmmod pcompact || fail "rmmod"
check_dmesg_clean
