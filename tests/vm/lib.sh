# SPDX-License-Identifier: GPL-2.0
# lib.sh: helpers for the guest tests (busybox sh); source it.

# busybox sh prefers its own applets to anything on PATH, so without these
# insmod would be busybox's.  The tests use kmod's tools, as users do.
insmod() { /sbin/insmod "$@"; }
rmmod() { /sbin/rmmod "$@"; }
modprobe() { /sbin/modprobe "$@"; }
depmod() { /sbin/depmod "$@"; }
modinfo() { /sbin/modinfo "$@"; }
lsmod() { /sbin/lsmod "$@"; }

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 4; }
note() { echo "# $*"; }

# wait_for CONDITION TIMEOUT_S: poll a shell condition every 50 ms until it
# holds or TIMEOUT_S seconds pass.  Returns 1 on timeout.  This is how tests
# wait for state; they never sleep a fixed time and hope.
wait_for() {
	_wf_deadline=$(( $(date +%s) + $2 ))
	while ! eval "$1"; do
		[ "$(date +%s)" -ge "$_wf_deadline" ] && return 1
		usleep 50000
	done
	return 0
}

# Fail the test if the kernel log shows a warning or crash since boot.
check_dmesg_clean() {
	if dmesg | grep -E -e '(BUG|WARNING):' -e 'Call Trace' -e 'Oops'; then
		fail "kernel log shows a splat"
	fi
}

# vmstat NAME: one /proc/vmstat counter.
vmstat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }

# free_blocks_at_least ORDER: free blocks of ORDER or larger, in units of
# ORDER-sized blocks, summed over every zone of every node (/proc/buddyinfo).
free_blocks_at_least() {
	awk -v o="$1" '{ m = 1; for (i = 5 + o; i <= NF; i++) { s += $i * m; m *= 2 } }
		END { printf "%d\n", s }' /proc/buddyinfo
}

# kthreads_named PATTERN: count kernel threads whose name matches PATTERN.
kthreads_named() { ps -o comm | grep -c -E "$1"; }

# nodes_with_memory: the node ids that have memory, one per line.
nodes_with_memory() {
	for n in /sys/devices/system/node/node[0-9]*; do
		awk '/MemTotal/ { if ($4 > 0) exit 0; exit 1 }' "$n/meminfo" && echo "${n##*node}"
	done
}

PC_SYS=/sys/kernel/pcompact
PC_PARAM=/sys/module/pcompact/parameters

# node_stat NID FILE: one pcompact sysfs value of a node.
node_stat() { cat "$PC_SYS/node$1/$2"; }

# unusable_index NID ZONE ORDER: the kernel's unusable index (debugfs) of a
# zone at an order, times 100 and truncated, as an integer.
unusable_index() {
	awk -v n="Node $1," -v z="$2" -v o="$3" '
		index($0, n) == 1 && $4 == z { split($(5 + o), v, "."); print v[1] * 100 + int(substr(v[2], 1, 2)) }
	' /sys/kernel/debug/extfrag/unusable_index
}

# start_frag ARGS...: run frag in the background until it is ready; sets
# FRAG_PID and FRAG_OUT (its stdout).
start_frag() {
	FRAG_OUT=/tmp/frag.out
	rm -f /tmp/frag.ready "$FRAG_OUT"
	/pc/bin/frag --ready-file /tmp/frag.ready "$@" > "$FRAG_OUT" 2>&1 &
	FRAG_PID=$!
	wait_for "[ -e /tmp/frag.ready ] || ! kill -0 $FRAG_PID 2>/dev/null" 300 ||
		fail "frag not ready within 300 s"
	[ -e /tmp/frag.ready ] || { cat "$FRAG_OUT"; fail "frag exited early"; }
}

# stop_frag: SIGTERM frag and return its exit status.
stop_frag() {
	kill -TERM "$FRAG_PID"
	wait "$FRAG_PID"
}

# zram_swap SIZE: swap on a zram device, so anonymous memory can be
# reclaimed and kswapd has real work (the initramfs has nothing else).
zram_swap() {
	grep -q zram0 /proc/swaps && return 0
	modprobe zram num_devices=1 || fail "modprobe zram"
	echo "$1" > /sys/block/zram0/disksize || fail "zram disksize"
	mkswap /dev/zram0 >/dev/null || fail "mkswap"
	swapon /dev/zram0 || fail "swapon"
}

zram_swap_off() {
	swapoff /dev/zram0 2>/dev/null
	echo 1 > /sys/block/zram0/reset 2>/dev/null
	rmmod zram 2>/dev/null
	return 0
}
