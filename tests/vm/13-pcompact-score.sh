# SPDX-License-Identifier: GPL-2.0
# Each zone's unweighted score equals the kernel's own figure,
# /sys/kernel/debug/extfrag/unusable_index at order 9, times 100, in
# several fragmentation states; the node score is their weighted sum.
TIMEOUT=400
. /pc/tests/vm/lib.sh

# Keep everything still while comparing: pcompact only observes.
insmod /pc/module/pcompact.ko enabled=0 || fail "insmod"

compare_all() {
	state=$1
	for nid in $(nodes_with_memory); do
		while read -r zone ours; do
			# Both are racy samples: retry until two reads agree.
			tries=0
			while :; do
				kernel=$(unusable_index "$nid" "$zone" 9)
				ours=$(awk -v z="$zone" '$1 == z { print $2 }' "$PC_SYS/node$nid/zone_scores")
				[ "$kernel" = "$ours" ] && break
				tries=$((tries + 1))
				[ $tries -ge 20 ] && fail "$state: node $nid $zone: ours $ours, kernel $kernel"
			done
			note "$state: node $nid $zone score $ours = unusable_index x 100"
		done < "$PC_SYS/node$nid/zone_scores"
	done
}

compare_all "fresh boot"
start_frag --percent 90
compare_all "fragmented"
# The sysfs score is pcompact's last sample (lib.sh fragmented_nodes).
wait_for "[ \$(top_score) -gt 70 ]" 10 ||
	fail "frag left no node above 70 (highest $(top_score))"
for nid in $(nodes_with_memory); do
	note "fragmented: node $nid score $(node_stat "$nid" score)"
done
stop_frag || fail "frag exit status"
compare_all "after frag"
rmmod pcompact || fail "rmmod"
check_dmesg_clean
