# SPDX-License-Identifier: GPL-2.0
# pcompact.ko loads, starts one pcompactd<N> per node with memory, bound to
# that node's CPUs, and unloads leaving no thread or sysfs entry behind.
. /pc/tests/vm/lib.sh

insmod /pc/module/pcompact.ko || fail "insmod pcompact.ko"
[ -d /sys/module/pcompact/parameters ] || fail "no /sys/module/pcompact/parameters"

for nid in $(nodes_with_memory); do
	wait_for "ps -o comm | grep -qx pcompactd$nid" 10 || fail "no pcompactd$nid"
	pid=$(kthread_pid pcompactd$nid)
	allowed=$(cpus_allowed "$pid")
	cpus=$(cat "/sys/devices/system/node/node$nid/cpulist")
	note "pcompactd$nid pid $pid cpus_allowed $allowed node cpus ${cpus:-none}"
	[ -z "$cpus" ] || [ "$allowed" = "$cpus" ] ||
		fail "pcompactd$nid runs on $allowed, node $nid has $cpus"
done
threads=$(kthreads_named '^pcompactd[0-9]+$')
want=$(nodes_with_memory | wc -l)
[ "$threads" = "$want" ] || fail "$threads pcompactd threads for $want nodes with memory"

rmmod pcompact || fail "rmmod pcompact"
[ "$(kthreads_named '^pcompactd')" = 0 ] || fail "pcompactd threads left after rmmod"
[ ! -e /sys/module/pcompact ] || fail "/sys/module/pcompact left after rmmod"
check_dmesg_clean
