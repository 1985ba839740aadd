# SPDX-License-Identifier: GPL-2.0
# stall_run_mb: while allocations stall in direct compaction (one did within
# the last interval_ms), no alloc_contig_range() call of the engine covers
# more than stall_run_mb; with no stall in that window the same layout is
# emptied in runs as long as run_max_mb.  A long call isolates its whole
# range, which a stream of huge page allocations needs (6.1: a stream
# stopped on 100 failures in a row during or right after a 90-block call of
# 334 ms, results/trace61-pcompact/).
TIMEOUT=600
. /pc/tests/vm/lib.sh

T=/sys/kernel/tracing

# widest_call: the most blocks one traced call took, 0 without a call.
widest_call() {
	grep -o 'pcompact_range: .* nr_blocks=[0-9]*' $T/trace | sed 's/.*nr_blocks=//' |
		sort -n | tail -n 1 | grep . || echo 0
}

# No stall within the last 10 ms interval: runs as long as run_max_mb.
# Any allocation of order 1 or more that stalls counts, and a fragmented
# guest may stall some of its own (a slab page of order 1 to 3, say); and a
# call covers one run of movable blocks, the widest 6-30 blocks in the full
# suite's guests and 44-58 in a lone run, but a layout may offer none longer
# than a pair (6.12.118 in make check of b8c3928: 31 and 30 calls of one pair,
# no stall, then a try of 26 blocks).  So a try whose calls were all one
# pair is run again with a new frag, up to 5 tries.  The test fails when
# every try was short and at least one had no stall; when all of them
# stalled it proves nothing and is skipped.
short_quiet=0
for try in 1 2 3 4 5; do
	load_fragmented engine=contig stall_run_mb=4
	[ "$(cat $PC_PARAM/stall_run_mb)" = 4 ] ||
		fail "stall_run_mb reads $(cat $PC_PARAM/stall_run_mb)"
	stalls=$(node_stat_sum direct_stalls)
	compact_traced pcompact/pcompact_range
	quiet=$(widest_call)
	stalls=$(( $(node_stat_sum direct_stalls) - stalls ))
	note "no stall, try $try: $(grep -c 'pcompact_range:' $T/trace) calls, the widest $quiet blocks, $stalls stalls while compacting"
	stop_frag || fail "frag exit status $?"
	rmmod pcompact || fail "rmmod"
	[ "$quiet" -gt 2 ] && break
	[ "$stalls" -gt 0 ] || short_quiet=$((short_quiet + 1))
done
if [ "$quiet" -le 2 ]; then
	[ $short_quiet -gt 0 ] ||
		skip "allocations stalled while compacting in each of 5 quiet tries"
	fail "in $short_quiet of 5 tries with no stall no call was longer than one pair"
fi

# Allocations stalled within the last interval (60 s): one pair a call.
# Loaded with 10 ms so that the scores read are the fragmented ones.
load_fragmented --stalled engine=contig stall_run_mb=4
compact_traced pcompact/pcompact_range
stalled=$(widest_call)
note "stalled: $(grep -c 'pcompact_range:' $T/trace) calls, the widest $stalled blocks"
[ "$(grep -c 'pcompact_range:' $T/trace)" -gt 0 ] || fail "the engine made no call"
[ "$stalled" -le 2 ] || fail "a call emptied $stalled blocks within 60 s of a stall (stall_run_mb=4: one pair)"
stop_frag || fail "frag exit status $?"
rmmod khugehog || fail "rmmod khugehog"
rmmod pcompact || fail "rmmod"
check_dmesg_clean
