# SPDX-License-Identifier: GPL-2.0
# takeover when vm.compaction_proactiveness cannot be read or written:
# - a failed read is an error, not a value: pcompact keeps holding the
#   sysctl with the saved value and restores it once it can;
# - a failed restore keeps the takeover (and takeover=N fails with the
#   error) instead of leaving the sysctl at 0 for good;
# - the sysctl file is opened the same way whoever asks: a takeover=N
#   written from a mount namespace without /proc still restores it;
# - a takeover that cannot start leaves takeover=N and the sysctl alone.
. /pc/tests/vm/lib.sh

SYSCTL=/proc/sys/vm/compaction_proactiveness
VMDIR=/proc/sys/vm
orig=$(cat $SYSCTL)
state() { echo "$(cat $PC_PARAM/takeover) $(cat $PC_SYS/takeover_active) $(cat $PC_SYS/takeover_saved)"; }
# Undo what this test mounts, whatever happens.
cleanup() {
	umount $VMDIR 2>/dev/null
	umount /proc/sys 2>/dev/null
	rmmod pcompact 2>/dev/null
	echo "$orig" > $SYSCTL
}
trap cleanup EXIT
# hide_vm: an empty tmpfs over /proc/sys/vm, for every task and kworker:
# opening the sysctl fails with ENOENT.
hide_vm() { mount -t tmpfs -o size=4k hidevm $VMDIR || fail "cannot mount over $VMDIR"; }
# A file a kernel thread closed is released a jiffy later (fput() defers it
# to delayed_fput_work), and pcompactd reads the sysctl every 50 ms: an
# unmount may find the mount busy for that moment, so retry it.
unhide_vm() { wait_for "umount $VMDIR 2>/dev/null" 5 || fail "cannot unmount $VMDIR"; }
# ro_sys: /proc/sys read-only (a read-only bind mount): reads work, writes
# fail with EROFS.
ro_sys() {
	mount -o bind /proc/sys /proc/sys && mount -o remount,bind,ro /proc/sys ||
		fail "cannot make /proc/sys read-only"
	(echo 1 > $SYSCTL) 2>/dev/null && fail "$SYSCTL is still writable"
	return 0
}
rw_sys() { wait_for "umount /proc/sys 2>/dev/null" 5 || fail "cannot unmount the read-only /proc/sys"; }

# --- 1: the restore cannot be written (EROFS) ---
echo 35 > $SYSCTL
insmod /pc/module/pcompact.ko interval_ms=50 || fail "insmod"
[ "$(cat $SYSCTL)" = 0 ] || fail "sysctl is $(cat $SYSCTL) while loaded"
dmesg -c > /dev/null
ro_sys
echo 0 > $PC_PARAM/takeover 2>/dev/null && fail "takeover=0 succeeded though the sysctl cannot be written"
[ "$(state)" = "Y 1 35" ] || fail "after the failed restore: takeover/active/saved are $(state), expected Y 1 35"
dmesg -r | grep -q '^<3>.*pcompact: takeover: cannot restore vm.compaction_proactiveness to 35 (error -30)' ||
	fail "the failed restore is not logged as an error"
rw_sys
rmmod pcompact || fail "rmmod"
[ "$(cat $SYSCTL)" = 35 ] || fail "unload after the failed restore left the sysctl at $(cat $SYSCTL)"
note "restore refused by a read-only /proc/sys: takeover kept, restored on unload"

# --- 2: the sysctl cannot be read (ENOENT) ---
insmod /pc/module/pcompact.ko interval_ms=50 || fail "insmod"
dmesg -c > /dev/null
hide_vm
wait_for "dmesg -r | grep -q '^<3>.*pcompact: takeover: cannot read .* (error -2) to watch it'" 10 ||
	fail "pcompactd did not log the failed read as an error"
[ "$(cat $PC_SYS/takeover_conflicts)" = 0 ] || fail "a failed read was counted as a write to the sysctl"
echo 0 > $PC_PARAM/takeover 2>/dev/null && fail "takeover=0 succeeded though the sysctl is gone"
[ "$(state)" = "Y 1 35" ] || fail "after the failed read: takeover/active/saved are $(state), expected Y 1 35"
dmesg -r | grep -q '^<3>.*pcompact: takeover: cannot read .* (error -2); deciding by the last value seen, 0' ||
	fail "the failed read at release is not logged as an error"
dmesg | grep -q 'compaction_proactiveness is -' && fail "an errno was logged as the sysctl's value"
unhide_vm
echo 0 > $PC_PARAM/takeover || fail "takeover=0 once the sysctl is back"
[ "$(cat $SYSCTL)" = 35 ] || fail "takeover=0 left the sysctl at $(cat $SYSCTL)"
[ "$(state)" = "N 0 35" ] || fail "after the release: $(state), expected N 0 35"
note "failed reads logged as errors, takeover kept until the sysctl came back"

# --- 3: released from a mount namespace without /proc ---
echo 1 > $PC_PARAM/takeover || fail "takeover=1"
[ "$(cat $SYSCTL)" = 0 ] || fail "takeover=1 left the sysctl at $(cat $SYSCTL)"
unshare -m sh -c "umount -l /proc && [ ! -e $SYSCTL ] && echo 0 > $PC_PARAM/takeover" ||
	fail "takeover=0 from a namespace without /proc failed"
[ "$(cat $SYSCTL)" = 35 ] || fail "takeover=0 from a namespace without /proc left the sysctl at $(cat $SYSCTL)"
rmmod pcompact || fail "rmmod"
[ "$(cat $SYSCTL)" = 35 ] || fail "sysctl changed at unload with takeover off"

# --- 4: a takeover that cannot start ---
dmesg -c > /dev/null
hide_vm
insmod /pc/module/pcompact.ko || fail "insmod with the sysctl hidden"
dmesg -r | grep -q "^<3>.*pcompact: takeover: cannot read .* (error -2); the kernel's proactive compaction stays as it is" ||
	fail "the failed takeover at load is not logged as an error"
[ "$(state)" = "N 0 -1" ] || fail "after the failed takeover at load: $(state), expected N 0 -1"
echo 1 > $PC_PARAM/takeover 2>/dev/null && fail "takeover=1 succeeded though the sysctl is gone"
[ "$(cat $PC_PARAM/takeover)" = N ] || fail "the failed takeover=1 left takeover $(cat $PC_PARAM/takeover)"
unhide_vm
[ "$(cat $SYSCTL)" = 35 ] || fail "the failed takeover changed the sysctl to $(cat $SYSCTL)"
echo 1 > $PC_PARAM/takeover || fail "takeover=1 once the sysctl is back"
[ "$(state)" = "Y 1 35" ] || fail "after takeover=1: $(state), expected Y 1 35"
rmmod pcompact || fail "rmmod"
[ "$(cat $SYSCTL)" = 35 ] || fail "unload left the sysctl at $(cat $SYSCTL)"
trap - EXIT
echo "$orig" > $SYSCTL
check_dmesg_clean
