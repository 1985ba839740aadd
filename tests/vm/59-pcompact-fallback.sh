# SPDX-License-Identifier: GPL-2.0
# engine=node-sysfs's fallback, made to run every round by the test build's
# idle_node_sysfs (each kernel call ends at once having done nothing, as on
# a node whose free pages sit on the per-CPU lists): the round goes on with
# the contig engine, bounded.
# - It empties only blocks at most half in use: with frag keeping 3/4 of
#   every 2 MB, no block is freed and each round ends exhausted, so the node
#   defers (unbounded, contig emptied nearly full blocks on unmovable
#   fragmentation at ~460 pages each, for up to 5.3 s of CPU in 45 s).
# - With frag's default quarter kept and quota_ms 100 (50 ms per 500 ms
#   interval) it frees blocks and every round lasts at most 250 ms (calls
#   of run_max_mb: a round of 1090 ms in 58 on 6.12).
# - Without a quota, from a fresh frag state (after the quota rounds a
#   node can sit between the low and high thresholds, where no round
#   starts), every node then reaches the low threshold.
# frag --verify finds every page it keeps intact after each of the last two.
TIMEOUT=400
. /pc/tests/vm/lib.sh

KO=/pc/module-faults/pcompact.ko
TRACE=/sys/kernel/tracing
END_EVENT=$TRACE/events/pcompact/pcompact_round_end
QUOTA_MAX_NS=250000000
TARGET_LOW=60
[ -f $KO ] || fail "$KO is missing (make pcompact-faults)"

# Deferral of one interval, so that rounds follow each other; the interval
# is named, as the quota's 50 ms per round are a share of it.
insmod $KO enabled=0 engine=node-sysfs interval_ms=500 max_defer_shift=0 idle_node_sysfs=1 ||
	fail "insmod"
trap '{ echo 0 > $END_EVENT/enable; } 2>/dev/null' EXIT

# fragment LOW HIGH ARGS: frag with ARGS, thresholds LOW/HIGH, and every
# node above HIGH in ABOVE.  (fragmented_nodes sets LOW and high: the
# thresholds asked for are kept under other names.)
fragment() {
	want_low=$1
	want_high=$2
	shift 2
	start_frag "$@"
	fragmented_nodes 70
	set_wmarks "$want_low" "$want_high"
	ABOVE=""
	for nid in $(nodes_with_memory); do
		[ "$(node_stat $nid score)" -gt "$want_high" ] && ABOVE="$ABOVE $nid"
	done
	[ -n "$ABOVE" ] || fail "frag $*: no node above $want_high"
	note "frag $*: thresholds $(cat $PC_PARAM/wmark_low)/$(cat $PC_PARAM/wmark_high), nodes above:$ABOVE"
}

# stat_at STAT: that counter of every node in ABOVE, space-separated.
stat_at() { for nid in $ABOVE; do printf '%s ' "$(node_stat $nid "$1")"; done; }

# run_until N STAT: enable pcompact until STAT of every node in ABOVE has
# grown by N, then disable it and wait until no round runs.
run_until() {
	cond=true
	set -- "$1" "$2" $(stat_at "$2")
	n=$1
	stat=$2
	shift 2
	for nid in $ABOVE; do
		cond="$cond && [ \$(node_stat $nid $stat) -ge $(($1 + n)) ]"
		shift
	done
	echo > $TRACE/trace
	echo 1 > $END_EVENT/enable
	echo 1 > $PC_PARAM/enabled
	wait_for "$cond" 120 || {
		for nid in $ABOVE; do note "node $nid: $(node_summary $nid)"; done
		fail "$stat did not grow by $n on every node in 120 s"
	}
	echo 0 > $PC_PARAM/enabled
	wait_disabled 60 $ABOVE
	echo 0 > $END_EVENT/enable
}

# Three quarters of frag's blocks in use: the fallback may empty only the
# blocks frag left lighter (at most half in use), and then defers.  Low
# thresholds (10/15): a node never leaves work for a block or two freed.
fragment 10 15 --keep 0.75
run_until 2 deferrals
for nid in $ABOVE; do
	note "3/4 kept: node $nid: $(node_summary $nid) pages_migrated $(node_stat $nid pages_migrated) engine_fallbacks $(node_stat $nid engine_fallbacks)"
	[ "$(node_stat $nid engine_fallbacks)" -ge 2 ] ||
		fail "node $nid: $(node_stat $nid engine_fallbacks) fallbacks where every kernel call was idle"
	round_ends $nid blocks_freed > /tmp/blocks
	round_ends $nid pages_migrated > /tmp/pages
	paste /tmp/blocks /tmp/pages | while read -r blocks pages; do
		note "node $nid: a round freed $blocks blocks moving $pages pages"
		[ "$pages" -le $((blocks * 256)) ] ||
			fail "node $nid: a fallback round moved $pages pages for $blocks blocks, over half a block each"
	done || exit 1
done
stop_frag || fail "frag (3/4 kept) exit status $?"

# A quarter in use, within the quota.
fragment 10 15 --verify
echo 100 > $PC_PARAM/quota_ms || fail "quota_ms 100"
# A round's elapsed time is the guest's clock, which runs on while a loaded
# host holds the vCPU back: one round over the bound is measured again, and
# only another overrun fails (a build that ignores the quota overruns in
# every round).
quota_overruns() {
	overruns=0
	for nid in $ABOVE; do
		took=$(round_ends $nid elapsed_ns | sort -n | tail -n 1)
		note "quota$1: node $nid rounds $(round_ends $nid elapsed_ns | wc -l), longest $((took / 1000000)) ms, blocks freed $(round_ends $nid blocks_freed | tr '\n' ' ')"
		overruns=$((overruns + $(rounds_over $nid $QUOTA_MAX_NS)))
	done
}
run_until 3 rounds
quota_overruns ""
[ "$overruns" -le 1 ] ||
	fail "$overruns fallback rounds over $((QUOTA_MAX_NS / 1000000)) ms with a quota of 50 ms per round"
if [ "$overruns" = 1 ]; then
	note "one round over $((QUOTA_MAX_NS / 1000000)) ms; measuring three more per node"
	run_until 3 rounds
	quota_overruns " again"
	[ "$overruns" = 0 ] ||
		fail "a fallback round over $((QUOTA_MAX_NS / 1000000)) ms with a quota of 50 ms per round, measured twice"
fi
verify_frag "quota"

# Without a quota, to the target.
echo 0 > $PC_PARAM/quota_ms
fragment $TARGET_LOW $((TARGET_LOW + 5)) --verify
echo 1 > $PC_PARAM/enabled
for nid in $ABOVE; do
	wait_for "[ \$(node_stat $nid score) -le $TARGET_LOW ]" 120 || {
		engine_dump $nid
		fail "node $nid: not at $TARGET_LOW 120 s into the fallback's rounds: $(node_summary $nid)"
	}
done
echo 0 > $PC_PARAM/enabled
for nid in $ABOVE; do
	note "target: node $nid: $(node_summary $nid) pages_migrated $(node_stat $nid pages_migrated) engine_fallbacks $(node_stat $nid engine_fallbacks)"
done

verify_frag "target"
rmmod pcompact || fail "rmmod"
check_dmesg_clean
