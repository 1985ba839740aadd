#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# engine-cost-guest.sh: the guest side of scripts/engine-cost.  Fragments
# memory with frag, lets pcompact's engine bring every node from the score
# frag left to LOW, and prints what it cost as one line of key=value pairs
# on fd 3: the scan (time and pageblocks read) and the alloc_contig_range()
# calls (count, blocks, time), from pcompact's counters and its
# pcompact_range trace events.  DROP=N instead of LOW sets the target N
# points below the lowest node's score, so the work asked for stays small
# while the node grows.
. /pc/tests/vm/lib.sh

insmod /pc/module/pcompact.ko enabled=0 || fail "insmod"
start_frag
if [ -n "${DROP:-}" ]; then
	min=100
	for nid in $(nodes_with_memory); do
		s=$(node_stat $nid score)
		[ "$s" -lt "$min" ] && min=$s
	done
	# Just below every node's score, so each starts a round at once.
	high=$((min - 1))
	LOW=$((min - DROP))
else
	LOW=${LOW:-20}
	high=$((LOW + 10))
fi
set_wmarks "$LOW" "$high"
scores=""
for nid in $(nodes_with_memory); do scores="$scores$(node_stat $nid score)/"; done
T=/sys/kernel/tracing
echo 16384 > $T/buffer_size_kb
echo 1 > $T/events/pcompact/pcompact_range/enable
start=$(date +%s)
echo 1 > $PC_PARAM/enabled
for nid in $(nodes_with_memory); do
	wait_for "[ \$(node_stat $nid score) -le $LOW ] || [ \$(node_stat $nid deferrals) -ge 1 ]" 1200 ||
		fail "node $nid not at $LOW after 1200 s"
	# The sysfs score moves during a round; its counters are added at its end.
	wait_for "[ \$(node_stat $nid state) != compacting ]" 1200 ||
		fail "node $nid still compacting after 1200 s"
done
took=$(( $(date +%s) - start ))
echo 0 > $PC_PARAM/enabled
echo 0 > $T/events/pcompact/pcompact_range/enable
calls=$(grep 'pcompact_range:' $T/trace | awk '
	{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	  n++; b += v["nr_blocks"]; ns += v["elapsed_ns"]; if (v["elapsed_ns"] > mx) mx = v["elapsed_ns"]
	  if (v["err"] != 0) e++ }
	END { printf "calls=%d call_blocks=%d call_ms=%.1f call_max_ms=%.2f call_errors=%d", n, b, ns / 1e6, mx / 1e6, e }')
mem_kb=$(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo)
echo "engine-cost: kernel=$(uname -r) target=${DROP:+drop$DROP} mem_kb=$mem_kb nodes=$(nodes_with_memory | wc -l)" \
	"$(grep -o "init_on_alloc=[01]" /proc/cmdline || echo init_on_alloc=default)" \
	"scores_before=$scores low=$LOW took_s=$took" \
	"rounds=$(node_stat_sum rounds) blocks_freed=$(node_stat_sum blocks_freed)" \
	"pages_migrated=$(node_stat_sum pages_migrated) compact_ms=$(node_stat_sum compact_ms)" \
	"scan_us=$(node_stat_sum scan_us) scanned_blocks=$(node_stat_sum scanned_blocks)" \
	"deferrals=$(node_stat_sum deferrals) $calls" >&3
stop_frag
rmmod pcompact
