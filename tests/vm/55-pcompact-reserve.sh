# SPDX-License-Identifier: GPL-2.0
# reserve_ms: demand for free blocks starts a round below the high
# threshold.  Node 0 is fragmented (score above 60) under thresholds 50/100,
# so the score alone never starts a round.  khugehog then takes node 0's
# free 2 MB blocks at a steady pace, and more.  With reserve_ms 0 pcompact
# measures that demand and does nothing; with reserve_ms 3000 the same
# demand must start rounds (reserve_rounds) that free blocks.
TIMEOUT=300
. /pc/tests/vm/lib.sh

TRACE=/sys/kernel/tracing
SCORE_EVENT=$TRACE/events/pcompact/pcompact_score

# demand_phase: khugehog on node 0, free blocks plus 50 allocations 10 ms
# apart, held until rmmod; then 10 more samples of node 0 (the traced score
# events), long enough for a reserve to act on what it measured.
demand_phase() {
	max=$(( $(node_stat 0 free_blocks) + 50 ))
	insmod /pc/khugehog/khugehog.ko node=0 max=$max delay_us=10000 \
		stop_after_failures=100 || fail "insmod khugehog"
	echo > $TRACE/trace
	wait_for "[ \$(grep -c 'pcompact_score: nid=0 ' $TRACE/trace) -ge 10 ]" 30 ||
		fail "node 0 sampled fewer than 10 times in 30 s"
	note "$1: khugehog max $max; node 0 demand_rate $(node_stat 0 demand_rate) reserve $(node_stat 0 reserve) free_blocks $(node_stat 0 free_blocks) score $(node_stat 0 score) rounds $(node_stat 0 rounds) reserve_rounds $(node_stat 0 reserve_rounds) blocks_freed $(node_stat 0 blocks_freed)"
	rmmod khugehog || fail "rmmod khugehog"
}

# node0_state: what node 0's memory looks like, for a fragmentation that
# did not take.
node0_state() {
	note "node 0: $(awk '/MemFree/ { print $3, $4 }' /sys/devices/system/node/node0/meminfo) free; buddyinfo: $(grep 'Node 0' /proc/buddyinfo | tr -s ' ' | tr '\n' ';')"
	note "node 0 free pages by type: $(grep '^Node *0,' /proc/pagetypeinfo | grep -E 'Movable|Isolate' | tr -s ' ' | tr '\n' ';')"
	note "frag: $(tail -n 3 "$FRAG_OUT" | tr '\n' ';')"
}

# Node 0 explicitly: frag over all memory once left it at score 58 on 6.1,
# and so did frag --node 0 once (6.1, make check of c027194, after 54):
# fragment again once before calling the setup failed.
start_frag --node 0
insmod /pc/module/pcompact.ko engine=contig wmark_low=50 wmark_high=100 interval_ms=100 \
	reserve_ms=0 || fail "insmod"
if ! wait_for "[ \$(node_stat 0 score) -gt 60 ]" 10; then
	note "node 0 not fragmented (score $(node_stat 0 score)): fragmenting again"
	node0_state
	stop_frag
	start_frag --node 0
	wait_for "[ \$(node_stat 0 score) -gt 60 ]" 10 || {
		node0_state
		fail "node 0 not fragmented: score $(node_stat 0 score)"
	}
fi
echo 1 > $SCORE_EVENT/enable

demand_phase "reserve_ms 0"
[ "$(node_stat 0 rounds)" = 0 ] || fail "a round ran with reserve_ms 0 and the score below high"
rate=$(node_stat 0 demand_rate)
[ "${rate%%.*}" -gt 0 ] || [ "${rate#*.}" != 000 ] || fail "no demand measured (demand_rate $rate)"

echo 3000 > $PC_PARAM/reserve_ms || fail "reserve_ms 3000"
demand_phase "reserve_ms 3000"
[ "$(node_stat 0 reserve_rounds)" -gt 0 ] ||
	fail "no round started for the reserve (reserve $(node_stat 0 reserve), free_blocks $(node_stat 0 free_blocks))"
# A round begun by the last samples counts what it freed when it ends.
wait_for "[ \$(node_stat 0 blocks_freed) -gt 0 ] || [ \$(node_stat 0 state) != compacting ]" 60
[ "$(node_stat 0 blocks_freed)" -gt 0 ] || fail "reserve rounds freed no block: $(node_summary 0)"

echo 0 > $SCORE_EVENT/enable
echo > $TRACE/trace
stop_frag || fail "frag exit"
rmmod pcompact || fail "rmmod"
check_dmesg_clean
