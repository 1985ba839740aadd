# SPDX-License-Identifier: GPL-2.0
# Under memory pressure, while kswapd reclaims on the node, pcompact backs
# off (state kswapd-backoff, backoffs_kswapd counted) and goes back to
# compacting once the pressure is gone.
TIMEOUT=400
. /pc/tests/vm/lib.sh

# Sample every 10 ms: kswapd works in bursts, and the back-off needs it in
# two consecutive samples.
insmod /pc/module/pcompact.ko enabled=0 interval_ms=10 || fail "insmod"
start_frag
# Swap only now: with swap during frag's run kswapd would undo its layout.
zram_swap 1G
fragmented_nodes 70
above=$ABOVE

# Pressure: allocate a little more than is free, again and again, so kswapd
# keeps swapping frag's pages out to zram.
(
	while [ ! -e /tmp/stop-pressure ]; do
		free_mb=$(awk '$1 == "MemFree:" { print int($2 / 1024) }' /proc/meminfo)
		dd if=/dev/zero of=/dev/null bs=$((free_mb + 150))M count=2 2>/dev/null
	done
) &
pressure=$!
rm -f /tmp/stop-pressure
wait_for "grep -q 'kswapd' /proc/[0-9]*/stat 2>/dev/null && [ \$(awk '\$1 == \"pswpout\" { print \$2 }' /proc/vmstat) -gt 0 ]" 60 ||
	fail "no swap-out under pressure"
echo 1 > $PC_PARAM/enabled
seen=""
for nid in $above; do
	if wait_for "[ \$(node_stat $nid backoffs_kswapd) -gt 0 ]" 120; then
		seen="$seen $nid"
	fi
	note "node $nid under pressure: state $(node_stat $nid state) backoffs_kswapd $(node_stat $nid backoffs_kswapd) kswapd_wakes $(node_stat $nid kswapd_wakes) rounds $(node_stat $nid rounds)"
done
touch /tmp/stop-pressure
wait $pressure
note "pswpout $(vmstat pswpout) pgscan_kswapd $(vmstat pgscan_kswapd)"
[ -n "$seen" ] || fail "no node backed off for kswapd"

# Pressure gone: compaction goes on until no node is above the high
# threshold (swapping may have lowered a score to between low and high,
# where by design no new round starts).
for nid in $seen; do
	high=$(node_stat $nid wmark_high)
	wait_for "[ \$(node_stat $nid score) -le $high ]" 200 ||
		fail "node $nid stuck at $(node_stat $nid score) ($(node_stat $nid state)) above $high after the pressure"
done
stop_frag || fail "frag exit"
rmmod pcompact || fail "rmmod"
zram_swap_off
check_dmesg_clean
