#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# compare-compaction-guest.sh: runs in the VM.  For each method, fragment
# memory the same way (frag defaults, from a compacted start), compact with
# that method until it is done, and write one CSV row to fd 3:
#   pcompact        pcompact.ko at proactiveness 20, until every node it
#                   triggered on is at or below its low threshold (80)
#   compact_memory  echo 1 > /proc/sys/vm/compact_memory (synchronous)
#   kernel20        vm.compaction_proactiveness=20 (kcompactd), until every
#                   node above 90 is at or below 80 (scores read from
#                   pcompact loaded as an observer: enabled=0 takeover=0)
. /pc/tests/vm/lib.sh

SYSCTL=/proc/sys/vm/compaction_proactiveness
LIMIT=${PC_COMPARE_LIMIT:-300}
now_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }

# scores: "nid:score ..." of every node with memory.
scores() { for n in $(nodes_with_memory); do printf '%s:%s ' "$n" "$(node_stat $n score)"; done; }

# wait_scores_low NODES: until each node's score is at most 80.
wait_scores_low() {
	for n in $1; do
		wait_for "[ \$(node_stat $n score) -le 80 ]" "$LIMIT" || return 1
	done
}

echo "method,elapsed_ms,freed_blocks,pages_migrated,migrated_per_freed_block,scores_before,scores_after,done,verify" >&3
for method in pcompact compact_memory kernel20; do
	echo 0 > $SYSCTL
	sync; echo 3 > /proc/sys/vm/drop_caches; echo 1 > /proc/sys/vm/compact_memory
	start_frag --verify
	insmod /pc/module/pcompact.ko enabled=0 takeover=0 interval_ms=100 || fail "insmod observer"
	wait_for "[ \$(node_stat 0 rounds) -ge 0 ] && grep -q . $PC_SYS/node0/score" 10
	above=""
	for n in $(nodes_with_memory); do
		[ "$(node_stat $n score)" -gt 90 ] && above="$above $n"
	done
	before_scores=$(scores)
	blocks0=$(free_blocks_at_least 9)
	migrated0=$(vmstat pgmigrate_success)
	t0=$(now_ms)
	done=yes
	case $method in
	pcompact)
		echo 20 > $PC_PARAM/proactiveness
		echo 1 > $PC_PARAM/enabled
		wait_scores_low "$above" || done=no
		;;
	compact_memory)
		echo 1 > /proc/sys/vm/compact_memory
		;;
	kernel20)
		echo 20 > $SYSCTL
		wait_scores_low "$above" || done=no
		echo 0 > $SYSCTL
		;;
	esac
	t1=$(now_ms)
	echo 0 > $PC_PARAM/enabled
	after_scores=$(scores)
	blocks1=$(free_blocks_at_least 9)
	migrated1=$(vmstat pgmigrate_success)
	if [ "$method" = pcompact ]; then
		own=""
		for n in $(nodes_with_memory); do
			own="$own node$n:blocks_freed=$(node_stat $n blocks_freed),pages_migrated=$(node_stat $n pages_migrated)"
		done
		note "pcompact's own counters:$own"
	fi
	rmmod pcompact
	kill -USR1 "$FRAG_PID"
	wait_for "grep -q -E 'verify (ok|FAILED)' $FRAG_OUT" 120
	verify=$(grep -o -E 'verify (ok|FAILED)' "$FRAG_OUT" | head -n1 | cut -d' ' -f2)
	stop_frag
	freed=$((blocks1 - blocks0))
	migrated=$((migrated1 - migrated0))
	per=$(awk -v m="$migrated" -v f="$freed" 'BEGIN { if (f > 0) printf "%.1f", m / f; else print "n/a" }')
	echo "$method,$((t1 - t0)),$freed,$migrated,$per,$before_scores,$after_scores,$done,$verify" >&3
	note "$method: $((t1 - t0)) ms, free order-9 blocks $blocks0 -> $blocks1, pgmigrate_success +$migrated, scores $before_scores-> $after_scores, verify $verify"
done
echo 20 > $SYSCTL
