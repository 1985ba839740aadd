# SPDX-License-Identifier: GPL-2.0
# engine=node-sysfs's fallback, made to run every round by the test build's
# idle_node_sysfs (each kernel call ends at once having done nothing, as on
# a node whose free pages sit on the per-CPU lists):
# - a fallback round makes one contig call of at most one pair (2 blocks,
#   1024 pages moved) and then the kernel's call once more: node-sysfs
#   calls = 2 x rounds; with that call idle too the round counts as
#   exhausted and the node defers (deferrals = rounds), rather than contig
#   emptying the node (the fallback that took the rest of the round freed
#   tens of blocks a round and used seconds of CPU on unmovable memory);
# - with quota_ms 100 (50 ms per 500 ms interval) a fallback round stays
#   within 250 ms (the whole-round fallback: 1090 ms on 6.12);
# frag --verify then finds every page it keeps intact.
TIMEOUT=300
. /pc/tests/vm/lib.sh

KO=/pc/module-faults/pcompact.ko
TRACE=/sys/kernel/tracing
END_EVENT=$TRACE/events/pcompact/pcompact_round_end
QUOTA_MAX_NS=250000000
[ -f $KO ] || fail "$KO is missing (make pcompact-faults)"

# Deferral of one interval, so that rounds follow each other; an interval of
# 2 s, so that between them every node sits deferred long enough to be seen.
insmod $KO enabled=0 engine=node-sysfs max_defer_shift=0 interval_ms=2000 idle_node_sysfs=1 ||
	fail "insmod"
start_frag --verify
fragmented_nodes 70
# Thresholds far below, so that a pair freed a round never takes a node out
# of work; every node above them is one that runs rounds.
set_wmarks 10 15
ABOVE=""
for nid in $(nodes_with_memory); do
	[ "$(node_stat $nid score)" -gt 15 ] && ABOVE="$ABOVE $nid"
done
trap 'echo 0 > $END_EVENT/enable' EXIT

# round_ends NID FIELD: that field of the node's traced round ends, one a line.
round_ends() {
	grep "pcompact_round_end: nid=$1 " $TRACE/trace |
		sed -n "s/.* $2=\([0-9]*\).*/\1/p"
}
idle_calls() { cat $PC_PARAM/idle_calls; }

# run_rounds [deferred]: enable pcompact until every node above has had 3
# more rounds (and, given "deferred", is deferred, between rounds:
# disabling it then cuts no round short).
run_rounds() {
	cond=true
	for nid in $ABOVE; do
		cond="$cond && [ \$(node_stat $nid rounds) -ge $(($(node_stat $nid rounds) + 3)) ]"
		[ "$1" = deferred ] && cond="$cond && [ \$(node_stat $nid state) = deferred ]"
	done
	echo > $TRACE/trace
	echo 1 > $END_EVENT/enable
	echo 1 > $PC_PARAM/enabled
	wait_for "$cond" 90 || {
		for nid in $ABOVE; do note "node $nid: $(node_summary $nid)"; done
		fail "3 more rounds on every node${1:+, each then $1,} not seen in 90 s"
	}
	echo 0 > $PC_PARAM/enabled
	for nid in $ABOVE; do
		wait_for "[ \$(node_stat $nid state) = disabled ]" 60 ||
			fail "node $nid: still $(node_stat $nid state) 60 s after enabled=0"
	done
	echo 0 > $END_EVENT/enable
}

# Every round falls back, without a quota.
calls0=$(idle_calls)
run_rounds deferred
rounds=0
nodes=0
for nid in $(nodes_with_memory); do
	rounds=$((rounds + $(node_stat $nid rounds)))
	nodes=$((nodes + 1))
done
calls=$(($(idle_calls) - calls0))
note "node-sysfs calls $calls over $rounds rounds"
for nid in $ABOVE; do
	r=$(node_stat $nid rounds)
	note "node $nid: $(node_summary $nid) pages_migrated $(node_stat $nid pages_migrated) engine_fallbacks $(node_stat $nid engine_fallbacks)"
	[ "$(node_stat $nid engine_fallbacks)" -eq "$r" ] ||
		fail "node $nid: $(node_stat $nid engine_fallbacks) fallbacks in $r rounds, each of whose calls was idle"
	# A round may have begun as the wait ended, and been cut by enabled=0.
	[ "$(node_stat $nid deferrals)" -ge $((r - 1)) ] ||
		fail "node $nid: $(node_stat $nid deferrals) deferrals in $r rounds that got nothing from the kernel's call"
	for blocks in $(round_ends $nid blocks_freed); do
		[ "$blocks" -le 2 ] ||
			fail "node $nid: a fallback round freed $blocks blocks, more than one pair"
	done
	for pages in $(round_ends $nid pages_migrated); do
		[ "$pages" -le 1024 ] ||
			fail "node $nid: a fallback round moved $pages pages, more than one pair holds"
	done
	[ "$(node_stat $nid blocks_freed)" -gt 0 ] || fail "node $nid: the fallback freed nothing"
done
[ "$calls" -le $((2 * rounds)) ] && [ "$calls" -ge $((2 * rounds - nodes)) ] ||
	fail "$calls node-sysfs calls in $rounds rounds: each round's call is not retried once after the fallback"

# Within the quota: 50 ms of each 500 ms interval.
echo 500 > $PC_PARAM/interval_ms || fail "interval_ms 500"
echo 100 > $PC_PARAM/quota_ms || fail "quota_ms 100"
run_rounds
for nid in $ABOVE; do
	took=$(round_ends $nid elapsed_ns | sort -n | tail -n 1)
	note "quota: node $nid rounds $(round_ends $nid elapsed_ns | wc -l), longest $((took / 1000000)) ms"
	[ "$took" -le $QUOTA_MAX_NS ] ||
		fail "node $nid: a fallback round of $((took / 1000000)) ms with a quota of 50 ms per round"
done

kill -USR1 "$FRAG_PID"
wait_for "grep -q -E 'verify (ok|FAILED)' $FRAG_OUT" 120 || fail "frag did not verify"
grep -q 'verify ok' "$FRAG_OUT" || fail "frag --verify found changed pages"
stop_frag || fail "frag exit status $?"
rmmod pcompact || fail "rmmod"
check_dmesg_clean
