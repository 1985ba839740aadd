# SPDX-License-Identifier: GPL-2.0
# Load/unload cycles while a compaction round runs leave no thread, sysfs
# entry, kprobe, trace event or warning behind, and the sysctl ends where it
# started.  8 cycles in make check, 20 in make soak (PC_SOAK_MINUTES >= 10):
# 52 cycles modprobe the same way, and make check's minutes are counted.
TIMEOUT=600
. /pc/tests/vm/lib.sh

if [ "${PC_SOAK_MINUTES:-1}" -ge 10 ]; then CYCLES=20; else CYCLES=8; fi

SYSCTL=/proc/sys/vm/compaction_proactiveness
orig=$(cat $SYSCTL)
start_frag
i=0
while [ $i -lt $CYCLES ]; do
	i=$((i + 1))
	# Refragment once the cycles before have compacted most of the
	# memory: otherwise no round starts and the cycle only waits.
	if [ "$(highest_unusable_index 9)" -lt 50 ]; then
		stop_frag || fail "frag exit"
		start_frag
	fi
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
done
stop_frag || fail "frag exit"
note "$CYCLES cycles clean"
check_dmesg_clean
