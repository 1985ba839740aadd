#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# 30-khugehog: khugehog.ko refuses bad parameters, times allocations, fills
# memory, pins unmovable pages that compaction cannot move, and gives all of
# it back on rmmod.
TIMEOUT=300
. /pc/tests/vm/lib.sh

KO=/pc/khugehog/khugehog.ko
SUMMARY=/proc/khugehog/summary
SAMPLES=/proc/khugehog/samples

[ -f "$KO" ] || fail "$KO is missing"
trap 'rmmod khugehog 2>/dev/null' EXIT

kv() { awk -v k="$1" '$1 == k { print $2; f = 1 } END { exit !f }' "$SUMMARY"; }
# Free memory in kB: MemFree plus the pages on the per-cpu free lists, where
# freed pages (order 9 too) wait and which MemFree does not count.
memfree_kb() {
	pcp=$(awk '$1 == "count:" { s += $2 } END { print s + 0 }' /proc/zoneinfo)
	awk -v pcp="$pcp" '$1 == "MemFree:" { print $2 + pcp * 4 }' /proc/meminfo
}
# ge A B: decimal A >= decimal B
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }
# Let compaction start from a clean slate: no page cache, compacted.
settle() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
	echo 1 > /proc/sys/vm/compact_memory
}
show_summary() { note "summary:"; sed 's/^/#   /' "$SUMMARY"; }

# load ARGS...: insmod, which returns when the run is over.
load() {
	module_loaded khugehog && fail "khugehog is still loaded before insmod $*"
	note "insmod khugehog $*"
	insmod "$KO" "$@" || fail "insmod khugehog $* failed"
	[ -r "$SUMMARY" ] || fail "no $SUMMARY after insmod $*"
}

unload() {
	rmmod khugehog || fail "rmmod khugehog failed"
	module_loaded khugehog && fail "khugehog still loaded after rmmod"
	[ -e /proc/khugehog ] && fail "/proc/khugehog still exists after rmmod"
}

# The latency keys must be non-decreasing (min, p5 .. p99.9, max), with the
# mean in [min, max] and positive, finite times.
check_latencies() {
	awk '
		$1 ~ /^(min|p[0-9.]+|max)_us$/ {
			if (n++ && $2 + 0 < prev) { print "not increasing at " $1; bad = 1 }
			prev = $2 + 0
		}
		$1 == "min_us" { min = $2 + 0 }
		$1 == "max_us" { max = $2 + 0 }
		$1 == "mean_us" { mean = $2 + 0 }
		END {
			if (n != 15) { print n " latency keys, expected 15"; bad = 1 }
			# No upper bound: latency is for the benchmark, not a test.
			if (min <= 0) { print "min not positive"; bad = 1 }
			if (mean < min || mean > max) { print "mean outside [min, max]"; bad = 1 }
			exit bad
		}' "$SUMMARY" || fail "latency statistics are not sane"
}

# check_samples N NODE: N records plus the header, all successful, on NODE
# (or on any node with memory when NODE is "any"), times non-decreasing.
check_samples() {
	awk -F, -v n="$1" -v node="$2" -v nodes=" $(nodes_with_memory | tr '\n' ' ')" '
		NR == 1 {
			if ($0 != "index,t_ns,latency_ns,node,zone,success") { print "bad header: " $0; bad = 1 }
			next
		}
		{
			if (NF != 6 || $1 != NR - 2 || $6 != 1 || $5 == "-") { print "bad record: " $0; bad = 1 }
			if ($2 + 0 < t) { print "t_ns goes backwards: " $0; bad = 1 }
			t = $2 + 0
			if (node != "any" && $4 != node) { print "wrong node: " $0; bad = 1 }
			if (index(nodes, " " $4 " ") == 0) { print "node without memory: " $0; bad = 1 }
		}
		END { if (NR - 1 != n) { print NR - 1 " records, expected " n; bad = 1 }; exit bad }
	' "$SAMPLES" || fail "/proc/khugehog/samples is wrong"
}

# --- 1: bad parameters are refused, nothing is loaded, dmesg names them ---
# "parameters|name the kernel log must show"
while IFS='|' read -r params name; do
	[ -n "$params" ] || continue
	before=$(dmesg | wc -l)
	# shellcheck disable=SC2086
	insmod "$KO" $params 2>/dev/null && { rmmod khugehog; fail "insmod khugehog $params succeeded"; }
	module_loaded khugehog && fail "khugehog is loaded after insmod $params failed"
	dmesg | tail -n +"$((before + 1))" | grep -q "khugehog: .*$name" ||
		fail "insmod khugehog $params: the kernel log does not name $name"
	note "refused: $params"
done <<EOF
order=11|order
order=99|order
order=abc|order
gfp=bogus|gfp=bogus
gfp=|gfp=
node=7|node=7
node=-2|node=-2
delay_us=1000001|delay_us=1000001
stop_after_failures=0|stop_after_failures=0
stop_after_failures=1000001|stop_after_failures=1000001
pin=1 order=8|order=8
pin=1 gfp=thp|gfp=thp
pin=1 gfp=light|gfp=light
pin=1 free_immediately=1|free_immediately=1
keep_free_mb=4000000|keep_free_mb=4000000
free_immediately=1 max=18446744073709551615|max=
map_at_end=2|map_at_end
EOF

# --- 2: a short run, pages freed at once ---
load max=50 free_immediately=1
show_summary
[ "$(kv count)" = 50 ] || fail "count $(kv count), expected 50"
[ "$(kv failures)" = 0 ] || fail "failures $(kv failures), expected 0"
[ "$(kv stop_reason)" = max ] || fail "stop_reason $(kv stop_reason), expected max"
[ "$(kv held_pages)" = 0 ] || fail "free_immediately=1 but held_pages $(kv held_pages)"
[ "$(kv order)" = 9 ] && [ "$(kv gfp)" = kernel ] && [ "$(kv node)" = -1 ] ||
	fail "defaults are not order 9, gfp kernel, node -1"
check_latencies
check_samples 50 any
unload

# every gfp mode, and __GFP_THISNODE on every node with memory
for mode in thp light; do
	load gfp=$mode max=20 free_immediately=1
	[ "$(kv gfp)" = $mode ] && [ "$(kv count)" = 20 ] || fail "gfp=$mode: $(kv gfp) count $(kv count)"
	check_samples 20 any
	unload
done
# the smallest and largest orders, held until rmmod (compound pages for thp)
for args in "order=0 max=1000" "order=10 max=5 gfp=thp" "order=3 max=100 gfp=light"; do
	# shellcheck disable=SC2086
	load $args
	c=${args#*max=}
	c=${c%% *}
	[ "$(kv count)" = "$c" ] || fail "$args: count $(kv count)"
	[ "$(kv held_pages)" = "$(kv allocated_pages)" ] || fail "$args: held_pages $(kv held_pages)"
	check_samples "$c" any
	unload
done
for n in $(nodes_with_memory); do
	load node="$n" max=20 free_immediately=1 delay_us=100
	[ "$(kv count)" = 20 ] || fail "node=$n: count $(kv count)"
	check_samples 20 "$n"
	unload
done

# --- 3: fill memory, then give it all back ---
# Nothing in this guest is reclaimable, so the safety margin (keep_free_mb,
# default 64 MB plus the high watermarks) is what keeps the shell alive:
# the run ends at the margin or, if compaction gives up first, at the
# first failure.
settle
free0=$(memfree_kb)
load
show_summary
ge "$(kv free_share_pct)" 80 || fail "allocated only $(kv free_share_pct)% of free memory, expected >= 80%"
case "$(kv stop_reason) $(kv failures)" in
"margin 0") ;;
"failures 1") tail -n 1 "$SAMPLES" | grep -q ',-1,-,0$' || fail "the last record is not the failure" ;;
*) fail "stop_reason $(kv stop_reason) with $(kv failures) failures" ;;
esac
ge "$(kv free_pages_end)" "$(( $(kv margin_pages) - 512 ))" || fail "the run went below its margin"
[ "$(kv held_pages)" = "$(kv allocated_pages)" ] || fail "held_pages differs from allocated_pages"
check_latencies
held=$(memfree_kb)
ge "$((free0 - held))" "$(( $(kv held_pages) * 4 * 9 / 10 ))" ||
	fail "MemFree fell by only $((free0 - held)) kB while holding $(kv held_pages) pages"
unload
settle
free1=$(memfree_kb)
note "MemFree before $free0 kB, holding $held kB, after rmmod $free1 kB"
ge "$free1" "$((free0 * 97 / 100))" || fail "rmmod gave back too little: MemFree $free1 kB, was $free0 kB"

# Exhaust one node (__GFP_THISNODE; the other node keeps the system
# alive) and stop after 3 consecutive failures: keep_free_mb=0, as the
# margin of a node-bound run is the node's own (32-khugehog-node.sh).
n=$(nodes_with_memory | tail -n 1)
load node="$n" stop_after_failures=3 keep_free_mb=0
show_summary
[ "$(kv stop_reason)" = failures ] || fail "node=$n stop_after_failures=3: stop_reason $(kv stop_reason)"
ge "$(kv failures)" 3 || fail "stop_after_failures=3: failures $(kv failures)"
tail -n 3 "$SAMPLES" | awk -F, -v n="$n" '$4 != n || $5 != "-" || $6 != 0 { exit 1 }' ||
	fail "stop_after_failures=3: the last 3 records are not failures on node $n"
awk -F, -v n="$n" 'NR > 1 && $6 == 1 && $4 != n { exit 1 }' "$SAMPLES" ||
	fail "node=$n: a page came from another node"
[ "$(( $(wc -l < "$SAMPLES") - 1 ))" = "$(kv attempts)" ] || fail "samples and attempts disagree"
[ "$(( $(kv count) + $(kv failures) ))" = "$(kv attempts)" ] || fail "count + failures != attempts"
unload

# --- 4: pin mode leaves unmovable pages in every 2 MB block ---
settle
free0=$(memfree_kb)
blocks0=$(free_blocks_at_least 9)
load pin=1
show_summary
pinned=$(kv pinned_blocks)
[ "$pinned" -gt 0 ] || fail "pin mode pinned no blocks"
[ "$(kv held_pages)" = "$((pinned * 128))" ] || fail "held_pages $(kv held_pages), expected $((pinned * 128))"
blocks1=$(free_blocks_at_least 9)
echo 1 > /proc/sys/vm/compact_memory
blocks2=$(free_blocks_at_least 9)
note "free order>=9 blocks: before $blocks0, pinned $blocks1, after compact_memory $blocks2 ($pinned blocks pinned)"
[ "$blocks1" -le "$((blocks0 / 10))" ] || fail "pin mode left $blocks1 of $blocks0 free order-9 blocks"
[ "$blocks2" -le "$((blocks0 / 10))" ] || fail "compact_memory repaired pin mode: $blocks2 of $blocks0 free order-9 blocks"
unload
settle
blocks3=$(free_blocks_at_least 9)
free1=$(memfree_kb)
note "after rmmod: $blocks3 free order>=9 blocks, MemFree $free1 kB (was $free0 kB)"
[ "$blocks3" -ge "$((blocks0 * 7 / 10))" ] || fail "rmmod restored only $blocks3 of $blocks0 free order-9 blocks"
ge "$free1" "$((free0 * 97 / 100))" || fail "rmmod gave back too little: MemFree $free1 kB, was $free0 kB"

check_dmesg_clean
exit 0
