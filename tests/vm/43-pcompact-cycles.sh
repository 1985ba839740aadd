# SPDX-License-Identifier: GPL-2.0
# 20 load/unload cycles while a compaction round runs leave no thread,
# sysfs entry, kprobe, trace event or warning behind, and the sysctl ends
# where it started.
TIMEOUT=600
. /pc/tests/vm/lib.sh

SYSCTL=/proc/sys/vm/compaction_proactiveness
orig=$(cat $SYSCTL)
start_frag
i=0
while [ $i -lt 20 ]; do
	i=$((i + 1))
	insmod /pc/module/pcompact.ko proactiveness=100 interval_ms=10 || fail "cycle $i: insmod"
	# Unload only once a round is under way on some node.
	wait_for "grep -q -x compacting $PC_SYS/node*/state" 30 ||
		note "cycle $i: no round seen running (memory already compact?)"
	rmmod pcompact || fail "cycle $i: rmmod"
	[ "$(kthreads_named '^pcompactd')" = 0 ] || fail "cycle $i: pcompactd left"
	[ ! -e $PC_SYS ] || fail "cycle $i: sysfs left"
	[ ! -e /sys/kernel/tracing/events/pcompact ] || fail "cycle $i: trace events left"
	! grep -q pcompact /sys/kernel/debug/kprobes/list 2>/dev/null || fail "cycle $i: kprobe left"
	[ "$(cat $SYSCTL)" = "$orig" ] || fail "cycle $i: sysctl $(cat $SYSCTL), was $orig"
	# Refragment now and then so later cycles still find work.
	if [ $((i % 5)) = 0 ]; then
		stop_frag || fail "frag exit"
		start_frag
	fi
done
stop_frag || fail "frag exit"
note "20 cycles clean"
check_dmesg_clean
