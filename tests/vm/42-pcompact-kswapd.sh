# SPDX-License-Identifier: GPL-2.0
# Under memory pressure, while kswapd reclaims on the node, pcompact backs
# off (state kswapd-backoff, backoffs_kswapd counted) and goes back to
# compacting once the pressure is gone.
TIMEOUT=400
. /pc/tests/vm/lib.sh

# Sample every 10 ms: kswapd works in bursts, and the back-off needs it in
# two consecutive samples.  A round that makes no progress defers only 40 ms
# (max_defer_shift 2), so a node is back to compacting within a few samples.
insmod /pc/module/pcompact.ko enabled=0 interval_ms=10 max_defer_shift=2 ||
	fail "insmod"
start_frag
# Swap only now: with swap during frag's run kswapd would undo its layout.
# A failure must not leave the pressure running or zram0 in use as swap
# for the tests after this one.
wsf=$(cat /proc/sys/vm/watermark_scale_factor)
trap 'touch /tmp/stop-pressure; zram_swap_off; echo $wsf > /proc/sys/vm/watermark_scale_factor' EXIT
zram_swap 1G
# kswapd reclaims from a zone's low watermark up to its high one: the
# default gap (0.1% of memory, a few MB here) is refilled in bursts that can
# end between two samples, and a faster host makes them shorter still (CI,
# 7.3.4: no node backed off in 120 s).  10% keeps kswapd reclaiming for a
# whole swap-out of about 100 MB per node each time the pressure returns.
echo 1000 > /proc/sys/vm/watermark_scale_factor || fail "watermark_scale_factor"
# An earlier test that used up a node's memory with nothing to swap to can
# have left its kswapd hopeless, and then it is never woken: since 7.x
# only reclaim on a balanced node, or a free on a node with a higher
# numbered memory node, revives it, so the last node stays hopeless (CI and
# make check, 7.3.4: node 1, no kswapd wakeup in 120 s of swapping).
# Enabling demotion resets every node's failures (memory-tiers.c); without
# tiers it demotes nothing, and the old value goes back at once.
hopeless=""
for nid in $(nodes_with_memory); do
	[ "$(node_unreclaimable $nid)" = 1 ] && hopeless="$hopeless $nid"
done
demotion=/sys/kernel/mm/numa/demotion_enabled
if [ -n "$hopeless" ] && [ -w $demotion ]; then
	old_demotion=$(cat $demotion)
	echo false > $demotion && echo true > $demotion
	echo "$old_demotion" > $demotion
fi
for nid in $hopeless; do
	note "node $nid: kswapd was hopeless, now node_unreclaimable $(node_unreclaimable $nid)"
done
fragmented_nodes 70
above=$ABOVE
# Thresholds 0/0 keep every fragmented node compacting through the pressure
# instead of racing kswapd: with thresholds under frag's score a node could
# compact down to idle between two of kswapd's bursts and have nothing to
# back off from (7.3.4: idle at 34 over high 46 after 5 rounds, 8 kswapd
# wakeups, no back-off).  Only a node whose free memory is all in whole
# order-9 blocks scores 0, which reclaim freeing scattered 4K pages prevents
# (with the back-off broken, a node compacted down to 1 under the pressure).
set_wmarks 0 0
high=0

# Pressure: allocate a little more than is free, again and again, so kswapd
# keeps swapping frag's pages out to zram.  Each allocation runs on a CPU of
# a node under test, taking turns: unpinned, it could run on another node's
# CPU, whose kswapd then keeps that node above its low watermark so that the
# fallback never drains the node under test (7.3.4: node 1 compacted to 0
# with no kswapd wakeup on it while kswapd0 swapped 213 MB out).
pressure_cpus=""
for nid in $above; do
	c=$(first_cpu "$nid")
	[ -n "$c" ] && pressure_cpus="$pressure_cpus $c"
done
[ -n "$pressure_cpus" ] || fail "no CPU on the nodes under test ($above)"
rm -f /tmp/stop-pressure
(
	while [ ! -e /tmp/stop-pressure ]; do
		for c in $pressure_cpus; do
			free_mb=$(awk '$1 == "MemFree:" { print int($2 / 1024) }' /proc/meminfo)
			taskset -c "$c" dd if=/dev/zero of=/dev/null bs=$((free_mb + 150))M count=2 2>/dev/null
		done
	done
) &
pressure=$!
wait_for "grep -q 'kswapd' /proc/[0-9]*/stat 2>/dev/null && [ \$(awk '\$1 == \"pswpout\" { print \$2 }' /proc/vmstat) -gt 0 ]" 60 ||
	fail "no swap-out under pressure"
echo 1 > $PC_PARAM/enabled
seen=""
summary=""
for nid in $above; do
	# A node that compacted down to idle below high before kswapd caught
	# it has no round left to hold back: stop waiting for it.  One that
	# has run no round yet may still (the pressure can lift its score).
	wait_for "[ \$(node_stat $nid backoffs_kswapd) -gt 0 ] ||
		{ [ \$(node_stat $nid rounds) -gt 0 ] && [ \$(node_stat $nid state) = idle ] &&
		  [ \$(node_stat $nid score) -le $high ]; }" 120 ||
		summary="$summary; node $nid: 120 s without a back-off"
	[ "$(node_stat $nid backoffs_kswapd)" -gt 0 ] && seen="$seen $nid"
	state="node $nid under pressure: score $(node_stat $nid score) (high $high) state $(node_stat $nid state) backoffs_kswapd $(node_stat $nid backoffs_kswapd) kswapd_wakes $(node_stat $nid kswapd_wakes) rounds $(node_stat $nid rounds) deferrals $(node_stat $nid deferrals) node_unreclaimable $(node_unreclaimable $nid)"
	note "$state"
	summary="$summary; $state"
done
touch /tmp/stop-pressure
wait $pressure
echo "$wsf" > /proc/sys/vm/watermark_scale_factor
note "pswpout $(vmstat pswpout) pgscan_kswapd $(vmstat pgscan_kswapd)"
# CI shows only the failing line: it carries what each node did.
[ -n "$seen" ] || fail "no node backed off for kswapd$summary; pswpout $(vmstat pswpout) pgscan_kswapd $(vmstat pgscan_kswapd) oom_kill $(vmstat oom_kill)"

# Pressure gone: every node that backed off compacts again, until it is at
# or under the high threshold (swapping may have lowered a score to between
# low and high, where by design no new round starts) or until a round makes
# no progress and defers, which is the design too (CI, 6.1: node 0 deferred
# at 58 over high 47 after a round, with what swapping left behind).  A node
# still backing off, or idle above high with no new round, fails.
for nid in $seen; do
	high=$(node_stat $nid wmark_high)
	rounds=$(node_stat $nid rounds)
	wait_for "[ \$(node_stat $nid score) -le $high ] ||
		{ [ \$(node_stat $nid rounds) -gt $rounds ] &&
		  [ \$(node_stat $nid state) != kswapd-backoff ]; }" 200 ||
		fail "node $nid stuck at $(node_stat $nid score) ($(node_stat $nid state), rounds $(node_stat $nid rounds) since $rounds) above $high after the pressure"
	note "node $nid after the pressure: score $(node_stat $nid score) (high $high) state $(node_stat $nid state) rounds $(node_stat $nid rounds) (was $rounds) deferrals $(node_stat $nid deferrals) skipped_unmovable $(node_stat $nid skipped_unmovable)"
done
stop_frag || fail "frag exit"
rmmod pcompact || fail "rmmod"
zram_swap_off
check_dmesg_clean
