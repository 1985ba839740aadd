# SPDX-License-Identifier: GPL-2.0
# contig_when_quiet: with engine=node-sysfs, a round that starts with no
# direct compaction stall within the last interval_ms empties blocks with
# the contig engine and never calls the kernel's compaction; a round that
# starts within interval_ms of a stall calls the kernel's compaction as
# engine=node-sysfs does.  Ahead of a stream the kernel's compaction moved
# 240-740 pages per free block it added on 6.12, the contig engine the
# 127-134 in use (results/trace612-migrated/, trace61-migrated/).
TIMEOUT=600
. /pc/tests/vm/lib.sh

T=/sys/kernel/tracing

# The stalled phase sets trace timestamps against pcompact's elapsed_ns, a
# ktime_get_ns() (mono) count: mono, whichever CPU traced, as seconds.
old_clock=$(trace_clock_name)
trap 'echo "$old_clock" > $T/trace_clock 2>/dev/null' EXIT
echo mono > $T/trace_clock || fail "cannot set the trace clock to mono"

# No stall: the contig engine from the first round, the kernel's compaction
# never called.
load_fragmented engine=node-sysfs contig_when_quiet=Y
[ "$(cat $PC_PARAM/contig_when_quiet)" = Y ] ||
	fail "contig_when_quiet reads $(cat $PC_PARAM/contig_when_quiet)"
compact_traced pcompact/pcompact_range pcompact/pcompact_round_end compaction/mm_compaction_end
quiet_rounds=$(node_stat_sum quiet_contig_rounds)
calls=$(grep -c 'pcompact_range:' $T/trace)
traced_rounds=$(grep -c ' pcompact_round_end: ' $T/trace)
other_routes=$(grep ' pcompact_round_end: ' $T/trace | grep -v -c ' route=quiet-contig$')
note "no stall: $(node_stat_sum rounds) rounds, $quiet_rounds with contig, $traced_rounds traced ($other_routes not route=quiet-contig), $calls contig calls, $(kernel_calls) kernel compactions"
[ "$quiet_rounds" -gt 0 ] || fail "no round used the contig engine with no stall"
[ "$calls" -gt 0 ] || fail "the contig engine made no call"
[ "$(kernel_calls)" = 0 ] || fail "$(kernel_calls) kernel compactions with no stall"
[ "$traced_rounds" -gt 0 ] || fail "no pcompact_round_end traced"
[ "$other_routes" = 0 ] ||
	fail "rounds with no stall traced with another route: $(grep ' pcompact_round_end: ' $T/trace | grep -v ' route=quiet-contig$' | head -3)"
stop_frag || fail "frag exit status $?"
rmmod pcompact || fail "rmmod"

# Allocations stalled within the last interval (60 s): the kernel's
# compaction, as engine=node-sysfs.  Loaded with 10 ms so that the scores
# read are the fragmented ones.  A round that starts 60 s or more after the
# last stall is quiet and rightly uses contig (on 6.1 under TCG three rounds
# took 60 s, make check of 3c84a39), so each round's start, from its
# pcompact_round_end, is set against the last direct compaction the kernel
# traced (LAST_STALL_TS, on the same clock): pcompact's last stall is at or
# after it, so a round that began under 59 s after it began within 60 s of
# pcompact's.
load_fragmented --stalled engine=node-sysfs contig_when_quiet=Y
quiet_before=$(node_stat_sum quiet_contig_rounds)
compact_traced pcompact/pcompact_range pcompact/pcompact_round_end compaction/mm_compaction_end
[ -n "$LAST_STALL_TS" ] || fail "no direct compaction traced while allocations stalled"
# "SECONDS_FROM_THE_LAST_STALL ROUTE" per round.
rounds=$(awk -v stall="$LAST_STALL_TS" '/ pcompact_round_end: / {
	for (i = 1; i <= NF; i++) {
		if ($i ~ /^[0-9]+\.[0-9]+:$/) t = $i + 0
		if ($i ~ /^elapsed_ns=/) { split($i, kv, "="); ns = kv[2] }
		if ($i ~ /^route=/) { split($i, kv, "="); route = kv[2] }
	}
	printf "%.3f %s\n", t - ns / 1e9 - stall, route }' $T/trace)
early=$(echo "$rounds" | awk 'NF && $1 < 59' | wc -l)
early_contig=$(echo "$rounds" | awk 'NF && $1 < 59 && $2 !~ /^kernel/')
note "stalled: $(node_stat_sum rounds) rounds, $(node_stat_sum quiet_contig_rounds) with contig ($quiet_before before), $(kernel_calls) kernel compactions; rounds (s after the last stall, route): $(echo "$rounds" | tr '\n' ';')"
[ "$early" -gt 0 ] || fail "no round began within 59 s of the last stall: nothing was tested"
[ -z "$early_contig" ] ||
	fail "rounds began within 60 s of a stall without the kernel's compaction: $(echo "$early_contig" | tr '\n' ';')"
[ "$(kernel_calls)" -gt 0 ] || fail "no kernel compaction within 60 s of a stall"
stop_frag || fail "frag exit status $?"
rmmod khugehog || fail "rmmod khugehog"
rmmod pcompact || fail "rmmod"
check_dmesg_clean
