# SPDX-License-Identifier: GPL-2.0
# With any_cpu=0 pcompactd<N> runs on node N's CPUs, and is bound to them
# again when one comes back online after the node had none (the scheduler
# widened its CPUs meanwhile), as the kernel does for kcompactd; with
# any_cpu it stays free to run anywhere.  The CPU hotplug state goes away with the module.
. /pc/tests/vm/lib.sh

STATES=/sys/devices/system/cpu/hotplug/states
# A CPU that can go offline and is the only CPU of a node with memory.
cpu="" nid=""
for c in /sys/devices/system/cpu/cpu[0-9]*; do
	[ -w "$c/online" ] || continue
	for n in "$c"/node[0-9]*; do
		[ -e "$n" ] || continue
		n=${n##*node}
		[ "$(cat /sys/devices/system/node/node$n/cpulist)" = "${c##*cpu}" ] || continue
		nodes_with_memory | grep -qx "$n" || continue
		cpu=${c##*cpu} nid=$n
	done
done
[ -n "$cpu" ] || skip "no hot-pluggable CPU that is alone on a node with memory"
ONLINE=/sys/devices/system/cpu/cpu$cpu/online
trap 'echo 1 > $ONLINE 2>/dev/null; rmmod pcompact 2>/dev/null' EXIT

insmod /pc/module/pcompact.ko interval_ms=50 any_cpu=0 || fail "insmod"
grep -q ' pcompact:online$' $STATES || fail "no pcompact CPU hotplug state in $STATES"
pid=$(kthread_pid pcompactd$nid)
[ -n "$pid" ] || fail "no pcompactd$nid"
allowed() { cpus_allowed "$pid"; }
[ "$(allowed)" = "$cpu" ] || fail "pcompactd$nid runs on CPUs $(allowed), not node $nid's $cpu"

for round in 1 2; do
	echo 0 > $ONLINE || fail "cannot offline CPU $cpu"
	# pcompactd wakes every 50 ms; the scheduler then moves it off the CPU.
	wait_for "[ \"\$(allowed)\" != $cpu ]" 20 || fail "pcompactd$nid still bound to offline CPU $cpu"
	note "CPU $cpu offline: pcompactd$nid allowed on $(allowed)"
	echo 1 > $ONLINE || fail "cannot online CPU $cpu"
	wait_for "[ \"\$(allowed)\" = $cpu ]" 20 ||
		fail "round $round: pcompactd$nid allowed on $(allowed) after CPU $cpu came back, not $cpu"
	note "CPU $cpu online again: pcompactd$nid bound to $(allowed)"
done
[ "$(node_stat "$nid" running)" = 1 ] || fail "pcompactd$nid stopped"
# With any_cpu the CPU's return must not narrow the thread to its node.
echo 1 > $PC_PARAM/any_cpu || fail "any_cpu=1"
all=$(cat /sys/devices/system/cpu/possible)
echo 0 > $ONLINE && echo 1 > $ONLINE || fail "CPU $cpu hotplug with any_cpu"
[ "$(allowed)" = "$all" ] ||
	fail "with any_cpu, pcompactd$nid allowed on $(allowed) after CPU $cpu came back, not $all"
rmmod pcompact || fail "rmmod"
grep ' pcompact:' $STATES && fail "the CPU hotplug state outlived the module"
# A hotplug after unload must call nothing that is gone.
echo 0 > $ONLINE && echo 1 > $ONLINE || fail "CPU $cpu hotplug after rmmod"
trap - EXIT
check_dmesg_clean
