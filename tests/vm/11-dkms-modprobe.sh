# SPDX-License-Identifier: GPL-2.0
# The DKMS-installed module is found by depmod and loaded by kmod's modprobe
# with a parameter, as a user would after `make install`.
. /pc/tests/vm/lib.sh

rel=$(uname -r)
ls /lib/modules/"$rel"/updates/dkms/pcompact.ko* >/dev/null 2>&1 ||
	fail "no DKMS-installed pcompact under /lib/modules/$rel/updates/dkms"
depmod -a || fail "depmod"
path=$(modinfo -F filename pcompact) || fail "modinfo cannot find pcompact"
case "$path" in */updates/dkms/pcompact.ko*) ;; *) fail "modinfo finds $path" ;; esac
modprobe pcompact proactiveness=20 || fail "modprobe pcompact proactiveness=20"
[ "$(cat /sys/module/pcompact/parameters/proactiveness)" = 20 ] || fail "proactiveness not 20"
[ "$(cat /sys/module/pcompact/version)" = "$(modinfo -F version pcompact)" ] ||
	fail "loaded version differs from the installed one"
wait_for "[ \$(kthreads_named '^pcompactd[0-9]+\$') -ge 1 ]" 10 || fail "no pcompactd thread"
modprobe -r pcompact || fail "modprobe -r pcompact"
[ ! -e /sys/module/pcompact ] || fail "still loaded after modprobe -r"
check_dmesg_clean
