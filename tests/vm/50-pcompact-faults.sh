# SPDX-License-Identifier: GPL-2.0
# Every setup step of pcompact made to fail, through the fault injection of
# the test build (/pc/module-faults/pcompact.ko, `make pcompact-faults`):
# - node state, sysfs group, memory notifier or thread creation failing makes
#   the load fail with ENOMEM, the CPU hotplug state with ENOSPC (no dynamic
#   state free), and leaves nothing behind (no sysfs, thread, kprobe,
#   tracepoint probe, trace event, CPU hotplug state; the sysctl restored);
# - the kprobe or a tracepoint lookup failing leaves the module working
#   without that hook, listed as failed in /sys/kernel/pcompact/hooks;
# - a thread that cannot start at runtime fails the nodes= write and leaves
#   nodes as it was.
TIMEOUT=300
. /pc/tests/vm/lib.sh

KO=/pc/module-faults/pcompact.ko
SYSCTL=/proc/sys/vm/compaction_proactiveness
[ -f $KO ] || fail "$KO is missing (make pcompact-faults)"
modinfo -F parm $KO | grep -q '^fault:' || fail "$KO has no fault parameter"
modinfo -F parm /pc/module/pcompact.ko | grep -q '^fault' &&
	fail "the production module has fault injection parameters"
orig=$(cat $SYSCTL)
# The takeover must have something to restore.
[ "$orig" != 0 ] || { echo 20 > $SYSCTL; orig=20; }
nodes=$(nodes_with_memory | wc -l)
last=$(nodes_with_memory | tail -n 1)
[ "$nodes" -ge 2 ] || skip "needs two nodes with memory for the partial failures"

# injected STEP: how many failures of STEP the kernel log shows since dmesg -c.
injected() { dmesg | grep -c "pcompact: fault: injected failure of step $1 "; }
hook() { grep "^$1" $PC_SYS/hooks; }

# --- Fatal steps: "parameters|step|what must have run before it" ---
fatal=0
while IFS='|' read -r args step what; do
	[ -n "$args" ] || continue
	dmesg -c >/dev/null
	# shellcheck disable=SC2086
	if insmod $KO $args 2>/tmp/insmod.err; then
		rmmod pcompact
		fail "$args: insmod succeeded"
	fi
	case $step in
	cpuhp) errno=ENOSPC msg='No space left on device' ;;
	*) errno=ENOMEM msg='Cannot allocate memory' ;;
	esac
	grep -q "$msg" /tmp/insmod.err ||
		fail "$args: insmod did not fail with $errno: $(cat /tmp/insmod.err)"
	[ "$(injected "$step")" = 1 ] || fail "$args: $(injected "$step") injected $step failures, expected 1"
	assert_pcompact_gone "$orig" "$args"
	case $what in
	takeover) dmesg | grep -q 'takeover: vm.compaction_proactiveness restored' ||
			fail "$args: the takeover was not undone" ;;
	thread0) dmesg | grep -q 'cannot create pcompactd' ||
			fail "$args: no log line for the thread" ;;
	esac
	fatal=$((fatal + 1))
	note "$args: refused, nothing left"
done <<EOF
fault=alloc|alloc|
fault=alloc fault_after=1|alloc|node 0's state
fault=sysfs|sysfs|
fault=sysfs fault_after=1|sysfs|the top directory
fault=sysfs fault_after=2|sysfs|node 0's directory
fault=notifier|notifier|takeover
fault=cpuhp|cpuhp|takeover
fault=kthread|kthread|thread0
fault=kthread fault_after=1|kthread|thread0
EOF

# --- Optional hooks: the module loads and works without them ---
# "parameters|kretprobe|kcompactd tracepoint|kswapd tracepoint" (attached or failed N)
while IFS='|' read -r args kp tk ts; do
	[ -n "$args" ] || continue
	dmesg -c >/dev/null
	# shellcheck disable=SC2086
	insmod $KO $args interval_ms=50 || fail "$args: insmod failed"
	note "$args: $(tr '\n' ';' < $PC_SYS/hooks)"
	hook kretprobe: | grep -q " $kp\$" || fail "$args: kretprobe not '$kp'"
	hook tracepoint:mm_compaction_kcompactd_wake | grep -q " $tk\$" ||
		fail "$args: kcompactd tracepoint not '$tk'"
	hook tracepoint:mm_vmscan_kswapd_wake | grep -q " $ts\$" ||
		fail "$args: kswapd tracepoint not '$ts'"
	[ "$(cat $PC_PARAM/fault_hits)" -gt 0 ] || fail "$args: no failure injected"
	case $kp in
	attached) [ -n "$(pcompact_kprobes)" ] || fail "$args: no kretprobe in the kprobe list" ;;
	*) [ -z "$(pcompact_kprobes)" ] || fail "$args: a kretprobe is registered: $(pcompact_kprobes)" ;;
	esac
	# Everything else works: threads, sampling, parameters, takeover.
	[ "$(kthreads_named '^pcompactd[0-9]+$')" = "$nodes" ] || fail "$args: not $nodes threads"
	[ "$(cat $PC_SYS/takeover_active)" = 1 ] || fail "$args: no takeover"
	wait_score_samples 20 "$last" >/dev/null || fail "$args: node $last not sampled"
	echo 100 > $PC_PARAM/interval_ms || fail "$args: interval_ms write"
	rmmod pcompact || fail "$args: rmmod"
	assert_pcompact_gone "$orig" "$args: after rmmod"
	note "$args: loaded without the failed hooks, unloaded clean"
done <<EOF
fault=kprobe|failed -12|attached|attached
fault=tracepoint|attached|failed -2|failed -2
fault=tracepoint fault_after=1|attached|attached|failed -2
fault=kprobe,tracepoint|failed -12|failed -2|failed -2
EOF

# --- A thread that cannot start at runtime ---
insmod $KO nodes="$last" || fail "insmod nodes=$last"
first=$(nodes_with_memory | head -n 1)
[ "$(node_stat "$first" running)" = 0 ] || fail "node $first runs with nodes=$last"
dmesg -c >/dev/null
echo kthread > $PC_PARAM/fault
echo all > $PC_PARAM/nodes 2>/dev/null && fail "nodes=all succeeded without a thread"
[ "$(cat $PC_PARAM/nodes)" = "$last" ] || fail "nodes is '$(cat $PC_PARAM/nodes)' after the failed write"
[ "$(node_stat "$first" running)" = 0 ] && [ "$(node_stat "$last" running)" = 1 ] ||
	fail "the failed nodes= write changed which threads run"
dmesg | grep -q 'pcompact: nodes: cannot start a pcompactd (-12); nodes unchanged' ||
	fail "no log line for the failed nodes= write"
echo none > $PC_PARAM/fault
echo all > $PC_PARAM/nodes || fail "nodes=all without the fault"
wait_for "[ \$(node_stat $first running) = 1 ]" 10 || fail "node $first did not start"

# Moving pcompact from one node to another when the new thread cannot
# start: the old node's thread must be the one it had (stopped first and
# restarted under the same fault, it would be gone or new).
if [ "$first" != "$last" ]; then
	echo "$first" > $PC_PARAM/nodes || fail "nodes=$first"
	wait_for "[ \$(node_stat $last running) = 0 ]" 10 || fail "node $last still runs"
	pid=$(kthread_pid "pcompactd$first")
	[ -n "$pid" ] || fail "no pcompactd$first"
	echo kthread > $PC_PARAM/fault
	echo "$last" > $PC_PARAM/nodes 2>/dev/null && fail "nodes=$last succeeded without a thread"
	echo none > $PC_PARAM/fault
	[ "$(cat $PC_PARAM/nodes)" = "$first" ] ||
		fail "nodes is '$(cat $PC_PARAM/nodes)' after the failed move"
	[ "$(kthread_pid "pcompactd$first")" = "$pid" ] ||
		fail "the failed move to node $last did not keep pcompactd$first (pid $pid, now '$(kthread_pid "pcompactd$first")')"
	[ "$(node_stat "$last" running)" = 0 ] || fail "node $last runs after the failed move"
	echo all > $PC_PARAM/nodes || fail "nodes=all after the failed move"
fi

# Bad fault= values are refused like any other parameter.
for v in bogus "kthread," ",sysfs" "kthread,nope"; do
	echo "$v" > $PC_PARAM/fault 2>/dev/null && fail "fault='$v' accepted"
done
[ "$(cat $PC_PARAM/fault)" = none ] || fail "refused fault= writes changed it: $(cat $PC_PARAM/fault)"
rmmod pcompact || fail "rmmod"
insmod $KO fault=bogus 2>/dev/null && fail "insmod fault=bogus succeeded"
assert_pcompact_gone "$orig" "fault=bogus"

# --- The kernel's tracepoints still work, and call nothing that is gone ---
# (a probe left registered by one of the failed loads above would crash
# the kernel when kswapd wakes).
insmod $KO || fail "insmod without faults"
grep -c ' attached$' $PC_SYS/hooks | grep -qx 4 || fail "hooks: $(cat $PC_SYS/hooks)"
before=$(node_stat_sum kswapd_wakes)
wake_kswapd || fail "could not wake kswapd"
wait_for "[ \$(node_stat_sum kswapd_wakes) -gt $before ]" 30 ||
	fail "the kswapd hook saw no wakeup"
rmmod pcompact || fail "rmmod"
assert_pcompact_gone "$orig" "the last rmmod"
note "$fatal fatal and 4 optional step failures, 1 runtime thread failure: nothing left behind"
check_dmesg_clean
