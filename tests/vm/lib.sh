# SPDX-License-Identifier: GPL-2.0
# lib.sh: helpers for the guest tests (busybox sh); source it.

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
	awk -v o="$1" '{ for (i = 5 + o; i <= NF; i++) s += $i * 2 ^ (i - 5 - o) }
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
