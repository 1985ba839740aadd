# SPDX-License-Identifier: GPL-2.0
# 50 modprobe/rmmod cycles (make soak; 15 inside make check, whose time
# budget the full 50 would eat) of the DKMS-installed pcompact under memory
# pressure (zram swap, a workload allocating past free memory, so kswapd
# reclaims and wakes), each unloading while a compaction round runs where
# one can be caught, with parameters rewritten meanwhile: every cycle
# leaves no thread, sysfs entry, kprobe or trace event behind and the
# sysctl where it was; the kswapd and kcompactd tracepoints, which fire
# all along, never call a probe that is gone.
TIMEOUT=900
. /pc/tests/vm/lib.sh

if [ "${PC_SOAK_MINUTES:-1}" -ge 10 ]; then CYCLES=50; else CYCLES=15; fi
SYSCTL=/proc/sys/vm/compaction_proactiveness
orig=$(cat $SYSCTL)
modinfo -n pcompact | grep -q '/updates/dkms/' || fail "modprobe pcompact is not the DKMS module: $(modinfo -n pcompact)"
rm -f /tmp/stop-cycles
pids=""
cleanup() {
	touch /tmp/stop-cycles
	for p in $pids; do wait "$p"; done
	zram_swap_off
}
trap cleanup EXIT

zram_swap 1G
# frag keeps 7 of every 8 pages: memory is nearly full and what is free is
# in holes all over it.
start_frag --keep 7/8
# Pressure: allocate all that is free but half the low watermarks, again
# and again: the zones go below low, kswapd wakes and swaps frag's pages
# to zram.  The pause between two allocations is the workload's pacing
# (compaction gets its chances between them), not a wait for anything.
low_mb=$(( ($(zone_field 0 low) + $(zone_field 1 low)) / 256 ))
(
	while [ ! -e /tmp/stop-cycles ]; do
		free_mb=$(awk '$1 == "MemFree:" { print int($2 / 1024) }' /proc/meminfo)
		dd if=/dev/zero of=/dev/null bs=$((free_mb - low_mb / 2))M count=1 2>/dev/null
		usleep 200000
	done
) &
pids="$pids $!"
# Parameter writes at random while modules come and go: most find no
# module, some land while pcompact loads or unloads.
(
	while [ ! -e /tmp/stop-cycles ]; do
		case $((RANDOM % 5)) in
		0) echo $((10 + RANDOM % 90)) > $PC_PARAM/interval_ms ;;
		1) echo $((90 + RANDOM % 11)) > $PC_PARAM/proactiveness ;;
		2) echo $((RANDOM % 3)) > $PC_PARAM/max_defer_shift ;;
		3) echo $((RANDOM % 2 * 500)) > $PC_PARAM/quota_ms ;;
		4) echo all > $PC_PARAM/nodes ;;
		esac 2>/dev/null
		usleep $((RANDOM % 20000))
	done
) &
pids="$pids $!"
wait_for "[ \$(vmstat pswpout) -gt 0 ]" 60 || fail "no swap-out under the pressure"

i=0
caught=0
refrag=0
while [ $i -lt $CYCLES ]; do
	i=$((i + 1))
	modprobe pcompact proactiveness=100 interval_ms=10 max_defer_shift=0 ||
		fail "cycle $i: modprobe"
	grep -c ' attached$' $PC_SYS/hooks | grep -qx 4 || fail "cycle $i: hooks $(tr '\n' ';' < $PC_SYS/hooks)"
	if wait_for "grep -q -x compacting $PC_SYS/node*/state" 20; then
		caught=$((caught + 1))
	else
		note "cycle $i: no round caught running (states $(cat $PC_SYS/node*/state | tr '\n' ' '))"
	fi
	rounds=$(node_stat_sum rounds)
	modprobe -r pcompact || fail "cycle $i: modprobe -r"
	assert_pcompact_gone "$orig" "cycle $i"
	[ $((i % 10)) != 0 ] || note "cycle $i at $(cut -d. -f1 /proc/uptime) s:" \
		"$(grep MemFree /proc/meminfo | tr -s ' '), pswpout $(vmstat pswpout), pageoutrun $(vmstat pageoutrun)"
	# Compaction undoes frag's work: fragment again when it has.
	if [ "$rounds" = 0 ]; then
		stop_frag || fail "frag exit at cycle $i"
		start_frag --keep 7/8
		refrag=$((refrag + 1))
	fi
done
touch /tmp/stop-cycles
for p in $pids; do wait "$p"; done
pids=""
note "$CYCLES cycles, $caught unloaded during a round, frag restarted $refrag times;" \
	"pswpout $(vmstat pswpout), pageoutrun $(vmstat pageoutrun), compact_stall $(vmstat compact_stall)"
[ "$caught" -ge $((CYCLES / 2)) ] || fail "only $caught of $CYCLES cycles caught a round running"
stop_frag || fail "frag exit"
wake_kswapd || fail "could not wake kswapd after the cycles"
assert_pcompact_gone "$orig" "the end"
check_dmesg_clean
