# SPDX-License-Identifier: GPL-2.0
# takeover: vm.compaction_proactiveness is 0 while pcompact is loaded and
# comes back on unload; a write meanwhile is noticed and reported, and then
# stands; takeover=0 leaves the sysctl alone.
. /pc/tests/vm/lib.sh

SYSCTL=/proc/sys/vm/compaction_proactiveness
echo 35 > $SYSCTL
insmod /pc/module/pcompact.ko || fail "insmod"
[ "$(cat $SYSCTL)" = 0 ] || fail "sysctl is $(cat $SYSCTL) while loaded"
[ "$(cat $PC_SYS/takeover_active)" = 1 ] && [ "$(cat $PC_SYS/takeover_saved)" = 35 ] ||
	fail "takeover state wrong"
rmmod pcompact || fail "rmmod"
[ "$(cat $SYSCTL)" = 35 ] || fail "sysctl not restored: $(cat $SYSCTL)"

# A write while loaded is noticed (within a sample or two) and then wins.
insmod /pc/module/pcompact.ko interval_ms=50 || fail "insmod"
dmesg -c > /dev/null
echo 25 > $SYSCTL
wait_for "[ \$(cat $PC_SYS/takeover_conflicts) -ge 1 ]" 10 || fail "sysctl write not noticed"
dmesg | grep -q 'compaction_proactiveness set to 25 while pcompact is loaded' || fail "not reported"
rmmod pcompact || fail "rmmod"
[ "$(cat $SYSCTL)" = 25 ] || fail "the administrator's 25 was overwritten: $(cat $SYSCTL)"

# takeover=0: hands off; switching it on at runtime takes over, off restores.
echo 30 > $SYSCTL
insmod /pc/module/pcompact.ko takeover=0 || fail "insmod takeover=0"
[ "$(cat $SYSCTL)" = 30 ] || fail "takeover=0 changed the sysctl"
echo 1 > /sys/module/pcompact/parameters/takeover || fail "takeover=1 at runtime"
[ "$(cat $SYSCTL)" = 0 ] || fail "runtime takeover did not zero the sysctl"
echo 0 > /sys/module/pcompact/parameters/takeover || fail "takeover=0 at runtime"
[ "$(cat $SYSCTL)" = 30 ] || fail "runtime release did not restore 30"
rmmod pcompact || fail "rmmod"
[ "$(cat $SYSCTL)" = 30 ] || fail "sysctl changed at unload with takeover off"
echo 20 > $SYSCTL
check_dmesg_clean
