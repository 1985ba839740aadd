# SPDX-License-Identifier: GPL-2.0
# progress_when_stalled: with engine=node-sysfs, a round whose call of the
# kernel's compaction migrated pages within interval_ms of a direct
# compaction stall counts in fed_stall_rounds (and is not deferred for lack
# of progress: the rule itself is unit-tested, test_score.c); without the
# parameter, or with no stall that recent, no round counts.
TIMEOUT=600
. /pc/tests/vm/lib.sh

# fed_rounds ARGS: load with ARGS, fragment, compact every node above its
# high threshold; ROUNDS, MIGRATED and FED are the sums of rounds,
# pages_migrated and fed_stall_rounds over the nodes.
fed_rounds() {
	insmod /pc/module/pcompact.ko enabled=0 engine=node-sysfs interval_ms=10 "$@" ||
		fail "insmod $*"
	start_frag
	[ "$STALL" = 1 ] && stall_in_direct_compaction
	echo 60000 > $PC_PARAM/interval_ms || fail "interval_ms 60000"
	fragmented_nodes 70
	compact_traced compaction/mm_compaction_end
	ROUNDS=$(node_stat_sum rounds)
	MIGRATED=$(node_stat_sum pages_migrated)
	FED=$(node_stat_sum fed_stall_rounds)
	stop_frag || fail "frag exit status $?"
	[ "$STALL" = 1 ] && { rmmod khugehog || fail "rmmod khugehog"; }
	rmmod pcompact || fail "rmmod"
}

STALL=1
fed_rounds progress_when_stalled=Y
note "stalled, on: $ROUNDS rounds, $MIGRATED pages migrated, $FED counted as feeding stalls"
[ "$MIGRATED" -gt 0 ] || fail "the rounds migrated nothing"
[ "$FED" -gt 0 ] || fail "no round that migrated pages within 60 s of a stall counted"
fed_rounds progress_when_stalled=N
note "stalled, off: $ROUNDS rounds, $MIGRATED pages migrated, $FED counted"
[ "$FED" = 0 ] || fail "$FED rounds counted with progress_when_stalled=N"
STALL=0
fed_rounds progress_when_stalled=Y
note "no stall, on: $ROUNDS rounds, $MIGRATED pages migrated, $FED counted"
[ "$FED" = 0 ] || fail "$FED rounds counted with no stall"
check_dmesg_clean
