# SPDX-License-Identifier: GPL-2.0
# mm.sh: memory helpers shared by the guest tests (lib.sh) and the
# benchmark's guest script (bench-guest.sh); busybox sh, source it.

# wait_for CONDITION TIMEOUT_S [POLL_S]: evaluate a shell condition every
# POLL_S seconds (default 0.05) until it holds or TIMEOUT_S seconds pass.
# Returns 1 on timeout.  This is how the tests and the benchmark wait for
# state: never a fixed sleep in the hope that it is long enough.
wait_for() {
	_wf_deadline=$(( $(date +%s) + $2 ))
	while ! eval "$1"; do
		[ "$(date +%s)" -ge "$_wf_deadline" ] && return 1
		sleep "${3:-0.05}"
	done
	return 0
}

# zoneinfo_sum FIELD [NID]: a /proc/zoneinfo field ("count:" and "high:" of
# every CPU's per-cpu list, "node_unreclaimable:"), summed over the zones of
# node NID, or of every node without it.
zoneinfo_sum() {
	awk -v f="$1" -v n="${2:+Node $2,}" '
		/^Node/ { on = (n == "" || index($0, n) == 1) }
		on && $1 == f { s += $2 }
		END { print s + 0 }' /proc/zoneinfo
}

# node_unreclaimable NID: 1 when kswapd has given up on node NID (16 runs
# without reclaiming anything) and is no longer woken for it, else 0.
node_unreclaimable() {
	[ "$(zoneinfo_sum node_unreclaimable: "$1")" -gt 0 ] && echo 1 || echo 0
}

# pcp_pages [NID]: pages on the per-cpu free lists.  They are free but not
# counted in the zones' free pages until they go back to the buddy lists.
pcp_pages() { zoneinfo_sum count: "$1"; }

# free_blocks_at_least ORDER [NID]: free blocks of ORDER or larger, in units
# of ORDER-sized blocks, summed over every zone of node NID, or of every node
# (/proc/buddyinfo).
free_blocks_at_least() {
	awk -v o="$1" -v n="${2:+$2,}" 'n == "" || $2 == n {
			m = 1; for (i = 5 + o; i <= NF; i++) { s += $i * m; m *= 2 } }
		END { printf "%d\n", s }' /proc/buddyinfo
}

# pcp_high_sum [NID]: the per-cpu lists' high marks: how many pages the
# lists may keep (the pageset's "high:", not the zone's high watermark,
# which has no colon).
pcp_high_sum() { zoneinfo_sum high: "$1"; }

# PCP_FRACTION: the per-cpu lists' size as a fraction of their zone (0 the
# kernel's default, 8 the largest, larger values smaller lists).
PCP_FRACTION=/proc/sys/vm/percpu_pagelist_high_fraction
# PCP_FRACTION_SMALLEST: the value that gives the lists their smallest high
# mark (the kernel's floor, a few batches per CPU).
PCP_FRACTION_SMALLEST=1000000

# pcp_drain_below PAGES TIMEOUT_S: give the pages on the per-cpu free lists
# back to the buddy lists, where compaction's free scanner can see them.
# Pages freed a moment ago sit there, and compact_memory's free scanner then
# finds nothing at frag's stride and declares a zone done (README: why one
# compact_memory did nothing on 6.12).  The lists' high mark goes to its
# minimum (the kernel then drains the excess once a second) until fewer
# than PAGES remain or TIMEOUT_S seconds pass, then back.  Returns 1 on
# timeout or when the setting cannot be written; 0 where the kernel has no
# such setting.
pcp_drain_below() {
	[ -w "$PCP_FRACTION" ] || return 0
	_old=$(cat "$PCP_FRACTION")
	echo "$PCP_FRACTION_SMALLEST" > "$PCP_FRACTION" || return 1
	wait_for "[ \$(pcp_pages) -lt $1 ]" "$2"
	_rc=$?
	echo "$_old" > "$PCP_FRACTION"
	return $_rc
}
