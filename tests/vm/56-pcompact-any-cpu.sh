# SPDX-License-Identifier: GPL-2.0
# any_cpu: each node's pcompactd may run on every CPU kernel threads may use
# (every possible CPU here: no isolcpus) by default, only on its node's CPUs
# (as kcompactd) once any_cpu is cleared, and on all again when it is set;
# given at load it applies from the start.
. /pc/tests/vm/lib.sh

ALL=$(cat /sys/devices/system/cpu/possible)

# check_binding WHAT: every node's thread is allowed its node's CPUs
# (WHAT=node; all CPUs when the node has none) or all CPUs (WHAT=all).
check_binding() {
	for nid in $(nodes_with_memory); do
		pid=$(kthread_pid pcompactd$nid)
		[ -n "$pid" ] || fail "no pcompactd$nid"
		want=$ALL
		if [ "$1" = node ]; then
			want=$(cat /sys/devices/system/node/node$nid/cpulist)
			[ -n "$want" ] || want=$ALL
		fi
		# A thread binds itself as it starts (after kthread() bound it to
		# its node on 6.14+): a thread just started may not have yet.
		wait_for "[ \"\$(cpus_allowed $pid)\" = $want ]" 10 ||
			fail "$2: pcompactd$nid may run on CPUs $(cpus_allowed $pid), want $want"
	done
}

insmod /pc/module/pcompact.ko || fail "insmod"
check_binding all "default"
echo 0 > $PC_PARAM/any_cpu || fail "any_cpu=0 refused"
check_binding node "any_cpu cleared at runtime"
echo 1 > $PC_PARAM/any_cpu || fail "any_cpu=1 refused"
check_binding all "any_cpu set at runtime"
rmmod pcompact || fail "rmmod"

insmod /pc/module/pcompact.ko any_cpu=0 || fail "insmod any_cpu=0"
check_binding node "any_cpu=0 at load"
# A node restarted by nodes= starts where any_cpu says.
echo 0 > $PC_PARAM/nodes || fail "nodes=0"
echo all > $PC_PARAM/nodes || fail "nodes=all"
check_binding node "after restarting the threads"
rmmod pcompact || fail "rmmod"
note "threads follow any_cpu: all $ALL by default, node CPUs when cleared"
check_dmesg_clean
