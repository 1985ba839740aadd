# SPDX-License-Identifier: GPL-2.0
# progress_when_stalled: with engine=node-sysfs, a round whose call of the
# kernel's compaction migrated pages within interval_ms of a direct
# compaction stall counts in fed_stall_rounds (and is not deferred for lack
# of progress: the rule itself is unit-tested, test_score.c); without the
# parameter, or with no stall that recent, no round counts.
TIMEOUT=600
. /pc/tests/vm/lib.sh

# fed_rounds [--stalled] ARGS: load_fragmented [--stalled] ARGS, compact
# every node above its high threshold; ROUNDS, MIGRATED and FED are the sums
# of rounds, pages_migrated and fed_stall_rounds over the nodes.
fed_rounds() {
	load_fragmented "$@"
	compact_traced compaction/mm_compaction_end
	ROUNDS=$(node_stat_sum rounds)
	MIGRATED=$(node_stat_sum pages_migrated)
	FED=$(node_stat_sum fed_stall_rounds)
	stop_frag || fail "frag exit status $?"
	if module_loaded khugehog; then rmmod khugehog || fail "rmmod khugehog"; fi
	rmmod pcompact || fail "rmmod"
}

fed_rounds --stalled engine=node-sysfs progress_when_stalled=Y
note "stalled, on: $ROUNDS rounds, $MIGRATED pages migrated, $FED counted as feeding stalls"
[ "$MIGRATED" -gt 0 ] || fail "the rounds migrated nothing"
[ "$FED" -gt 0 ] || fail "no round that migrated pages within 60 s of a stall counted"
fed_rounds --stalled engine=node-sysfs progress_when_stalled=N
note "stalled, off: $ROUNDS rounds, $MIGRATED pages migrated, $FED counted"
[ "$FED" = 0 ] || fail "$FED rounds counted with progress_when_stalled=N"
fed_rounds engine=node-sysfs progress_when_stalled=Y
note "no stall, on: $ROUNDS rounds, $MIGRATED pages migrated, $FED counted"
[ "$FED" = 0 ] || fail "$FED rounds counted with no stall"
check_dmesg_clean
