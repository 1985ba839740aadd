# SPDX-License-Identifier: GPL-2.0
# nice: every pcompactd runs at kcompactd's nice value 0 by default, takes a
# new value written at runtime, starts at the value given at load (also
# when nodes= restarts it), and keeps its value when a write is refused.
. /pc/tests/vm/lib.sh

# thread_nice PID: field 19 of /proc/PID/stat (the comm has no spaces).
thread_nice() { awk '{ print $19 }' "/proc/$1/stat"; }

# threads_at NICE: whether every node's pcompactd runs at NICE.
threads_at() {
	for nid in $(nodes_with_memory); do
		pid=$(kthread_pid pcompactd$nid)
		[ -n "$pid" ] && [ "$(thread_nice "$pid")" = "$1" ] || return 1
	done
}

# expect_nice NICE WHAT: fail unless every thread reaches NICE within 10 s.
expect_nice() {
	wait_for "threads_at $1" 10 || {
		for nid in $(nodes_with_memory); do
			pid=$(kthread_pid pcompactd$nid)
			note "pcompactd$nid (pid $pid): nice $([ -n "$pid" ] && thread_nice "$pid")"
		done
		fail "$2: not every pcompactd at nice $1"
	}
}

insmod /pc/module/pcompact.ko || fail "insmod"
[ "$(cat $PC_PARAM/nice)" = 0 ] || fail "nice defaults to $(cat $PC_PARAM/nice), not 0"
expect_nice 0 "default"
echo 19 > $PC_PARAM/nice || fail "nice=19 refused"
expect_nice 19 "nice 19 at runtime"
echo -5 > $PC_PARAM/nice || fail "nice=-5 refused"
expect_nice -5 "nice -5 at runtime"
dmesg -c >/dev/null
echo 20 > $PC_PARAM/nice 2>/dev/null && fail "nice=20 accepted"
dmesg | grep -q "pcompact: nice: 20 is outside -20..19" || fail "no log line for nice=20"
[ "$(cat $PC_PARAM/nice)" = -5 ] || fail "a refused write changed nice to $(cat $PC_PARAM/nice)"
threads_at -5 || fail "a refused write changed a thread's nice value"
rmmod pcompact || fail "rmmod"

insmod /pc/module/pcompact.ko nice=10 || fail "insmod nice=10"
expect_nice 10 "nice=10 at load"
# A thread nodes= stops and starts again is a new task, at the value too.
first=$(nodes_with_memory | head -n 1)
last=$(nodes_with_memory | tail -n 1)
if [ "$first" != "$last" ]; then
	old_pid=$(kthread_pid pcompactd$last)
	echo "$first" > $PC_PARAM/nodes || fail "nodes=$first"
	wait_for "[ -z \"\$(kthread_pid pcompactd$last)\" ]" 10 ||
		fail "pcompactd$last still runs after nodes=$first"
	echo all > $PC_PARAM/nodes || fail "nodes=all"
	wait_for "[ -n \"\$(kthread_pid pcompactd$last)\" ]" 10 ||
		fail "pcompactd$last not restarted by nodes=all"
	[ "$(kthread_pid pcompactd$last)" != "$old_pid" ] ||
		fail "pcompactd$last kept pid $old_pid across the restart"
	expect_nice 10 "after nodes= restarted pcompactd$last"
else
	note "one node with memory: no restart to check"
fi
rmmod pcompact || fail "rmmod"
note "threads follow nice: 0 by default, 19 and -5 at runtime, 10 from load"
check_dmesg_clean
