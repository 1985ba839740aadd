# SPDX-License-Identifier: GPL-2.0
# pcompact.ko loads, starts one pcompactd<N> per node with memory, free to
# run on every CPU (any_cpu's default; 56 checks the binding it changes),
# and unloads leaving no thread or sysfs entry behind.
. /pc/tests/vm/lib.sh

insmod /pc/module/pcompact.ko || fail "insmod pcompact.ko"
[ -d /sys/module/pcompact/parameters ] || fail "no /sys/module/pcompact/parameters"
[ "$(cat $PC_PARAM/any_cpu)" = Y ] || fail "any_cpu defaults to $(cat $PC_PARAM/any_cpu), not Y"

all=$(cat /sys/devices/system/cpu/possible)
for nid in $(nodes_with_memory); do
	wait_for "[ -n \"\$(kthread_pid pcompactd$nid)\" ]" 10 || fail "no pcompactd$nid"
	pid=$(kthread_pid pcompactd$nid)
	allowed=$(cpus_allowed "$pid")
	note "pcompactd$nid pid $pid cpus_allowed $allowed"
	# The thread binds itself as it starts (after kthread() bound it to
	# its node on 6.14+).
	wait_for "[ \"\$(cpus_allowed $pid)\" = $all ]" 10 ||
		fail "pcompactd$nid runs on $(cpus_allowed "$pid"), not every CPU $all"
done
threads=$(kthreads_named '^pcompactd[0-9]+$')
want=$(nodes_with_memory | wc -l)
[ "$threads" = "$want" ] || fail "$threads pcompactd threads for $want nodes with memory"

rmmod pcompact || fail "rmmod pcompact"
[ "$(kthreads_named '^pcompactd')" = 0 ] || fail "pcompactd threads left after rmmod"
[ ! -e /sys/module/pcompact ] || fail "/sys/module/pcompact left after rmmod"
check_dmesg_clean
