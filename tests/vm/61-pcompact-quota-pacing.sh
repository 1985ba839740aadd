# SPDX-License-Identifier: GPL-2.0
# Under a quota, a stall's demand does not chain rounds: quota_ms is
# compaction time per second, so a node's rounds begin at least an interval
# apart even while stalls keep coming.  Here rounds are cut at 10 ms
# (quota_ms 50 of interval_ms 200), the thresholds are far below what frag
# leaves, and khugehog, paced at one allocation per ms so that its stream
# outlasts several intervals, stalls in direct compaction, each stall
# waking every node (stall_wake_ms 1).  Without the pacing a stall's wake
# starts the next round at once: 13-29 ms after the last began (6.1 and
# 7.3.4, a build without it).  The gaps are read from the trace between two
# markers around khugehog.
#
# A gap can tell only when a stall came early in the round before it (so
# that its wake, without the pacing, would have started a round well inside
# the interval) and that round emptied blocks (a round that did not may be
# deferred, which spaces rounds by itself, max_defer_shift 0: one interval).
# A deferral spaces rounds by itself too, so a gap whose first round was
# deferred (its pcompact_defer event) does not tell.  A back-off for kswapd
# has no event, so a node counts only when it has more gaps that tell than
# back-offs in the stream (each spaces at most the gap it falls in).
# Without such a gap the test skips: with the node-sysfs engine, whose only
# measure is the node's net gain, which the stream eats, `make check` of
# 967dd49 saw 14 and 15 of 15 rounds deferred on 7.3.4, and a build without
# the pacing passed on 6.1 when the few stalls came late in the intervals.
# So the engine is contig, which counts the blocks it empties itself (the
# pacing is the same for every engine), and its rounds are short so that
# the stream outruns them and stalls: run_max_mb 4, because the quota is
# checked between alloc_contig_range() calls, and one call of the default
# 256 MB could empty a hundred blocks (in the runs of 34b68fc's tree on 6.1
# and 6.12.118, 3-7 such rounds fed 584-592 allocations with 12-32 stalls,
# and the test skipped).
TIMEOUT=300
. /pc/tests/vm/lib.sh

TRACE=/sys/kernel/tracing
EVENTS="pcompact/pcompact_round_begin pcompact/pcompact_round_end pcompact/pcompact_defer
	compaction/mm_compaction_try_to_compact_pages"
INTERVAL_MS=200
# Rounds begin one interval apart at the earliest in jiffies, which the
# pacing counts and which can lag the trace clock: a tick's phase (4 ms at
# HZ=250), and a timekeeping CPU the host holds back until another CPU
# catches jiffies up (5 ticks, 20 ms, on kernels with MAX_STALLED_JIFFIES)
# or longer on those without.  50 ms covers the first two twice; a build
# without the pacing begins rounds 13-29 ms apart.
MIN_GAP_US=$(( (INTERVAL_MS - 50) * 1000 ))
# A stall wakes the nodes as it begins (the kretprobe's entry): one that
# began this soon after a round began tells, leaving the wake 100 ms of
# latency before a round it started would fall outside MIN_GAP.
EARLY_US=$(( MIN_GAP_US - 100000 ))

# The gaps are read from the trace's timestamps as seconds.microseconds,
# which a counter clock (x86-tsc, counter) would not give; global, because
# pcompactd may move between CPUs, whose local clocks need not agree.
old_clock=$(trace_clock_name)
trap '{ trace_events_off $EVENTS
	echo "$old_clock" > $TRACE/trace_clock; } 2>/dev/null' EXIT
echo global > $TRACE/trace_clock || fail "cannot set the trace clock to global"
insmod /pc/module/pcompact.ko enabled=0 engine=contig interval_ms=$INTERVAL_MS quota_ms=50 \
	run_max_mb=4 stall_wake_ms=1 max_defer_shift=0 wmark_low=2 wmark_high=5 || fail "insmod"
start_frag
# shellcheck disable=SC2086 # one word per event
trace_from_empty $EVENTS
echo 1 > $PC_PARAM/enabled
stall_wakes0=$(node_stat_sum stall_wakes)
# What spaces rounds apart besides the pacing and leaves no event: kswapd back-offs.
spacers0=$(node_counters backoffs_kswapd)
echo "pacing: stream begins" > $TRACE/trace_marker
# Past the free 2 MB blocks frag left allocations stall; past one failure:
# a compaction deferral alone must not end the stream.
max=$(( $(free_blocks_at_least 9) + 600 ))
began=$(date +%s)
insmod /pc/khugehog/khugehog.ko max=$max delay_us=1000 stop_after_failures=200 ||
	fail "insmod khugehog"
echo "pacing: stream ends" > $TRACE/trace_marker
spacers1=$(node_counters backoffs_kswapd)
note "khugehog: $(grep -h -E '^(count|failures|stop_reason) ' /proc/khugehog/summary 2>/dev/null | tr '\n' ' ')" \
	"in about $(( $(date +%s) - began )) s"

rmmod khugehog || fail "rmmod khugehog"
echo 0 > $PC_PARAM/enabled
# shellcheck disable=SC2086 # one word per event
trace_events_off $EVENTS
stall_wakes=$(( $(node_stat_sum stall_wakes) - stall_wakes0 ))
overrun=$(awk '/^overrun:/ { s += $2 } END { print s + 0 }' $TRACE/per_cpu/cpu*/stats)
# A lost event can only make a gap look longer, never shorter.
[ "$overrun" = 0 ] || note "the trace lost $overrun events"

# One line per node: rounds begun in the stream, smallest gap in us, gaps
# that tell, smallest of those (-1: none).
gaps=$(awk -v early=$EARLY_US '
	function field(name,   i) {
		for (i = 1; i <= NF; i++)
			if (index($i, name "=") == 1) return substr($i, length(name) + 2)
		return ""
	}
	/pacing: stream begins/ { on = 1; next }
	/pacing: stream ends/ { on = 0; next }
	!on { next }
	{
		for (i = 1; i <= NF; i++)
			if ($i ~ /^[0-9]+\.[0-9]+:$/) t = substr($i, 1, length($i) - 1) * 1000000
	}
	/pcompact_round_begin:/ {
		nid = field("nid")
		n[nid]++
		if (nid in last) {
			gap = t - last[nid]
			if (!(nid in min) || gap < min[nid]) min[nid] = gap
			if (early_stall[nid] && emptied[nid] && !deferred[nid]) {
				told[nid]++
				if (!(nid in min_told) || gap < min_told[nid]) min_told[nid] = gap
			}
		}
		last[nid] = t
		early_stall[nid] = 0
		emptied[nid] = 0
		deferred[nid] = 0
	}
	/pcompact_defer:/ { deferred[field("nid")] = 1 }
	/pcompact_round_end:/ { emptied[field("nid")] = field("blocks_freed") + 0 > 0 }
	/mm_compaction_try_to_compact_pages:/ {
		for (nid in last)
			if (t - last[nid] <= early) early_stall[nid] = 1
	}
	END {
		for (nid in n)
			printf "%s %d %d %d %d\n", nid, n[nid], (nid in min) ? min[nid] : -1,
			       told[nid] + 0, (nid in min_told) ? min_told[nid] : -1
	}
' $TRACE/trace)
note "stall wakes in the stream: $stall_wakes; per node (nid, rounds, smallest gap in us, gaps that tell, smallest of those):" $gaps
tested=0
while read -r nid rounds gap told gap_told; do
	[ -n "$nid" ] || continue
	[ "$gap" -lt 0 ] || [ "$gap" -ge $MIN_GAP_US ] ||
		fail "node $nid: two rounds began $gap us apart, under the $INTERVAL_MS ms interval, with a quota"
	spaced=$(( $(node_counter_in $nid "$spacers1") - $(node_counter_in $nid "$spacers0") ))
	note "node $nid: $told gaps that tell, $spaced back-offs for kswapd in the stream"
	[ "$told" -gt "$spaced" ] && tested=$((tested + 1))
done <<EOF
$gaps
EOF
[ $tested -gt 0 ] ||
	skip "no node had more gaps after a stall within $((EARLY_US / 1000)) ms of the start of a round that emptied blocks and was not deferred than back-offs for kswapd ($stall_wakes stall wakes; ${gaps:-no rounds}): nothing to tell"
rmmod pcompact || fail "rmmod"
stop_frag || fail "frag exit"
check_dmesg_clean
