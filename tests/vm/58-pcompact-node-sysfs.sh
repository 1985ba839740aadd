# SPDX-License-Identifier: GPL-2.0
# engine=node-sysfs runs the kernel's full compaction of a
# node and ends it where pcompact's own loop would stop:
# - within the work quota: with quota_ms 100 (50 ms per 500 ms interval)
#   and a target of 10, every round lasts at most 250 ms, where the kernel's
#   compaction of a fragmented node to 10 takes most of a second or more
#   under TCG;
# - at the round's target: a round ends at or below the low threshold
#   (10 under the lowest node, at most 60), below it where the node's
#   rounds ended by reaching it (where the kernel's compaction stops a
#   zone: on a node of one zone the node score at the threshold is its
#   zone a point above), and not far below it (15 under),
#   where a full compaction takes frag's pattern (a quarter of every 2 MB
#   in use) to a score near 0 (6.12: 14).
#   The stop lags the target: the score counts the free lists only, and the
#   pages compaction frees reach them through the per-CPU lists (with the
#   lists at their default size, 6.1: 15 points below; 6.12 and 7.3.4: 3).
#   So the target phase runs with the lists at their smallest (lag 0-2) and
#   starts with them at most that full: a contig fallback's alloc_contig_range()
#   drains every list, and with the default lists a round on CI ended at 24
#   against a low threshold of 60, which releasing what the quota rounds
#   had left there at once would explain.
# - every node reaches that target: the quota rounds leave the free pages
#   they made on the per-CPU lists, where the kernel's free scanner does
#   not see them (6.12: the call ends at once having done nothing), and a
#   round the kernel's compaction leaves where it was goes on with the
#   contig engine (engine_fallbacks), whose alloc_contig_range() drains
#   those lists.  A round that ends where it began all the same defers,
#   as upstream: a node whose phase a deferral ended above the target is
#   measured again, and fails if it does so twice.
# frag --verify then finds every page it keeps intact.
TIMEOUT=600
. /pc/tests/vm/lib.sh

TRACE=/sys/kernel/tracing
END_EVENT=$TRACE/events/pcompact/pcompact_round_end
SCORE_EVENT=$TRACE/events/pcompact/pcompact_score
DEFER_EVENT=$TRACE/events/pcompact/pcompact_defer
RANGE_EVENT=$TRACE/events/pcompact/pcompact_range
QUOTA_MAX_NS=250000000
# The target phase's floor: never below this (see above).
FLOOR_MIN=25

[ -w $PCP_FRACTION ] || skip "no $PCP_FRACTION"
old_fraction=$(cat $PCP_FRACTION)
cleanup() {
	echo 0 > $END_EVENT/enable
	echo 0 > $SCORE_EVENT/enable
	echo 0 > $DEFER_EVENT/enable
	echo 0 > $RANGE_EVENT/enable
	echo "$old_fraction" > $PCP_FRACTION
}

# No deferral beyond one interval: a 50 ms round may not move the score.
# The interval is named: the quota's 50 ms per round are a share of it.
insmod /pc/module/pcompact.ko enabled=0 engine=node-sysfs interval_ms=500 max_defer_shift=0 ||
	fail "insmod"
start_frag --verify
fragmented_nodes 70
trap 'cleanup 2>/dev/null' EXIT

# Quota: three rounds per node, each cut at its deadline long before the
# target.  A round's elapsed time is the guest's clock, which runs on while
# a loaded host holds the vCPU back: a node with one round over the bound
# is measured again, and fails only if another round overruns (a build that
# ignores the quota overruns in every round).
echo 100 > $PC_PARAM/quota_ms || fail "quota_ms 100"
set_wmarks 10 15
quota_rounds() {
	echo > $TRACE/trace
	echo 1 > $END_EVENT/enable
	echo 1 > $PC_PARAM/enabled
	for nid in $1; do
		wait_for "[ \$(round_ends $nid elapsed_ns | wc -l) -ge 3 ] ||
			  [ \$(node_stat $nid score) -le 10 ]" 120 ||
			fail "node $nid: fewer than 3 rounds in 120 s: $(node_summary $nid)"
	done
	echo 0 > $PC_PARAM/enabled
}
# quota_report NID WHAT: note the node's traced rounds; sets rounds and over.
quota_report() {
	rounds=$(round_ends $1 elapsed_ns | wc -l)
	took=$(round_ends $1 elapsed_ns | sort -n | tail -n 1)
	over=$(rounds_over $1 $QUOTA_MAX_NS)
	note "$2: node $1 rounds $rounds, longest $((${took:-0} / 1000000)) ms, $over over $((QUOTA_MAX_NS / 1000000)) ms, score $(node_stat $1 score)"
}
quota_rounds "$ABOVE"
again=""
for nid in $ABOVE; do
	quota_report $nid quota
	# One overrun among three rounds or more is measured again.
	if [ "$over" -gt 1 ] || { [ "$over" = 1 ] && [ "$rounds" -lt 3 ]; }; then
		fail "node $nid: $over of $rounds rounds over $((QUOTA_MAX_NS / 1000000)) ms with a quota of 50 ms per round"
	fi
	[ "$over" = 0 ] || again="$again $nid"
done
if [ -n "$again" ]; then
	note "node(s)$again: one round over $((QUOTA_MAX_NS / 1000000)) ms; measuring three more"
	quota_rounds "$again"
	for nid in $again; do
		quota_report $nid "quota again"
		[ "$rounds" -gt 0 ] || fail "node $nid: a round over $((QUOTA_MAX_NS / 1000000)) ms, and no round left to measure again"
		[ "$over" = 0 ] ||
			fail "node $nid: a round over $((QUOTA_MAX_NS / 1000000)) ms with a quota of 50 ms per round, measured twice"
	done
fi

# Target: thresholds TARGET_LOW / TARGET_LOW + 5, no quota.  The quota
# rounds did a few hundred ms of work, which leaves a node anywhere from 93
# to 59 (6.1, whose compaction is quicker); a node they took below 50
# (6.1 with the contig fallback once) has nothing left to show here.
# The target sits 10 points under the lowest node left, at most 60, so that
# every chosen node starts a round, and FLOOR 15 under the target, never
# below 25 (a full compaction ends near 14).  The score counts what the quota
# rounds freed only once the per-cpu lists give it back, so the lists are
# shrunk to their smallest and emptied down to it first.
pcp_before=$(pcp_pages)
echo "$PCP_FRACTION_SMALLEST" > $PCP_FRACTION || fail "cannot shrink the per-cpu lists"
wait_for "[ \$(pcp_pages) -le \$(pcp_high_sum) ]" 30 ||
	fail "$(pcp_pages) pages still on the per-cpu lists after 30 s, above their high marks' $(pcp_high_sum)"
note "per-cpu lists: $pcp_before pages, then $(pcp_pages) under high marks summing to $(pcp_high_sum)"
echo 0 > $PC_PARAM/quota_ms

# target_trace NID: the node's traced round ends, deferrals and contig
# calls of the target phase, and its free lists.
target_trace() {
	grep -E "pcompact_(round_end|defer|range): nid=$1 " $TRACE/trace | tail -n 40 | sed 's/^/#   /'
	grep "Node $1," /proc/buddyinfo | sed 's/^/# /'
}

# target_phase WHAT: one target phase on the nodes of ABOVE.  Fails the
# test on a round far below the target, a node that reached it and stopped
# at it, or one that ended above it without a deferral; sets SHORT to the
# nodes whose compaction a deferral ended above the target.
target_phase() {
	# The target is chosen from scores sampled after the lists gave their
	# pages back (6.1 on CI: 71 read before, 52 when the phase began, so no
	# round).
	missing=$(wait_score_samples 10 $ABOVE) ||
		fail "node $missing: no score sample within 10 s of emptying the per-cpu lists"
	above_target=
	lowest=100
	for nid in $ABOVE; do
		score=$(node_stat $nid score)
		if [ "$score" -ge $((FLOOR_MIN + 25)) ]; then
			above_target="$above_target $nid"
			[ "$score" -ge "$lowest" ] || lowest=$score
		else
			note "$1: node $nid left out, score $score"
		fi
	done
	[ -n "$above_target" ] ||
		fail "$1: no node at $((FLOOR_MIN + 25)) or above: $(for nid in $ABOVE; do node_summary $nid; done)"
	ABOVE=$above_target
	TARGET_LOW=$((lowest - 10))
	[ $TARGET_LOW -le 60 ] || TARGET_LOW=60
	FLOOR=$((TARGET_LOW - 15))
	note "$1: low threshold $TARGET_LOW, floor $FLOOR, nodes$ABOVE"
	set_wmarks $TARGET_LOW $((TARGET_LOW + 5))
	echo > $TRACE/trace
	# What a round that falls short did, for its failure message.
	echo 1 > $DEFER_EVENT/enable
	echo 1 > $RANGE_EVENT/enable
	# The end of this phase's compaction: the node idle (its last round
	# reached the target; the state changes after the round's trace
	# event), a round that did not lower the score (deferred), or one the
	# headroom stopped (not deferred, as it lacked memory, not blocks).
	# Disabling pcompact before then would end a round early.  Counted
	# from before enabling: a headroom stop at a round's start is over at
	# once.
	deferrals_at=$(node_counters deferrals)
	headroom_stops_at=$(node_counters headroom_stops)
	echo 1 > $PC_PARAM/enabled
	reached=
	for nid in $ABOVE; do
		wait_for "[ \$(node_stat $nid state) = idle ] || deferred $nid || out_of_room $nid" 300 || {
			engine_dump $nid
			fail "node $nid: compaction did not end in 300 s: $(node_summary $nid)"
		}
		deferred $nid || out_of_room $nid || reached="$reached $nid"
	done
	echo 0 > $PC_PARAM/enabled
	wait_disabled 30 $ABOVE
	SHORT=
	for nid in $ABOVE; do
		rounds=$(round_ends $nid score_after | tr '\n' ' ')
		note "$1: node $nid scores after each round: $rounds; $(node_summary $nid) pages_migrated $(node_stat $nid pages_migrated) engine_fallbacks $(node_stat $nid engine_fallbacks)"
		[ -n "$rounds" ] || fail "node $nid: no round in the target phase"
		for after in $rounds; do
			[ "$after" -ge $FLOOR ] ||
				fail "node $nid: a round ended at score $after, far below the low threshold $TARGET_LOW"
		done
		last=${rounds% }
		last=${last##* }
		if [ "$last" -gt $TARGET_LOW ]; then
			target_trace $nid
			deferred $nid ||
				fail "node $nid: compaction ended at $last, above the low threshold $TARGET_LOW, with no deferral"
			SHORT="$SHORT $nid"
		fi
		case " $reached " in
		*" $nid "*)
			[ "$last" -lt $TARGET_LOW ] ||
				fail "node $nid: its rounds reached the target and ended at $last, the low threshold, not below it"
			;;
		esac
		[ "$(node_stat $nid blocks_freed)" -gt 0 ] || fail "node $nid: no net block freed: $(node_summary $nid)"
	done
}
# deferred NID, out_of_room NID: a round of the node's deferred, or was
# stopped by the headroom, in this phase: its rounds did not end by
# reaching the target.
deferred() {
	[ "$(node_stat "$1" deferrals)" -gt "$(node_counter_in "$1" "$deferrals_at")" ]
}
out_of_room() {
	[ "$(node_stat "$1" headroom_stops)" -gt "$(node_counter_in "$1" "$headroom_stops_at")" ]
}

# A round the kernel's compaction leaves where it was defers, as upstream
# (6.12.118 on a clean clone: one round, 66 -> 66, against a target of 56).
# The phase is measured again on such a node: a build that stops short of
# the target does it twice.
target_phase target
if [ -n "$SHORT" ]; then
	note "node(s)$SHORT: deferred above the target; measuring again"
	ABOVE=$SHORT
	target_phase "target again"
	[ -z "$SHORT" ] ||
		fail "node(s)$SHORT: compaction deferred above the low threshold $TARGET_LOW, measured twice"
fi

verify_frag
rmmod pcompact || fail "rmmod"
check_dmesg_clean
