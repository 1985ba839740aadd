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

# fail also leaves /tmp/test-failed: called in a command substitution or a
# pipeline it ends only that subshell, and run-suite then fails the test
# from the mark instead of letting it pass on what the subshell left.
fail() { echo "FAIL: $*"; echo "$*" 2>/dev/null >> /tmp/test-fail; : 2>/dev/null > /tmp/test-failed; exit 1; }
skip() { echo "SKIP: $*"; echo "$*" 2>/dev/null >> /tmp/test-fail; exit 4; }
note() { echo "# $*"; }

. /pc/tests/vm/mm.sh

# Fail the test if the kernel log shows a warning or crash since the test
# began (run-suite clears the log before each test; the console keeps it
# all, and vm-run scans that).  The reason names the first such line, an
# OOM report's opening line before its stack.
check_dmesg_clean() {
	_cdc=$(dmesg | grep -m 1 -E -e 'invoked oom-killer' -e '(BUG|WARNING):' -e 'Call Trace' \
		-e 'Oops' -e '\[(pcompact|khugehog)\] enqueued on deprecated workqueue')
	[ -z "$_cdc" ] || fail "kernel log shows a splat: $_cdc"
}

# vmstat NAME: one /proc/vmstat counter.
vmstat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }

# oom_killed: whether the OOM killer has killed anything since the test
# sourced this file (the kernel's own count, which no log rotation loses).
OOM_KILLS_AT_START=$(vmstat oom_kill)
oom_killed() { [ "$(vmstat oom_kill)" != "$OOM_KILLS_AT_START" ]; }

# drain_pcp_lists: the per-cpu lists' pages back to the buddy lists before a
# manual compaction (mm.sh).
drain_pcp_lists() { pcp_drain_below 4096 30; }

# module_loaded NAME: whether the module NAME is in /proc/modules.
module_loaded() { grep -q "^$1 " /proc/modules; }

# kernel_function NAME: whether the kernel has an out-of-line function NAME
# (a text symbol in /proc/kallsyms), which a kprobe can name.
kernel_function() { grep -q -E "^[0-9a-f]+ [tT] $1\$" /proc/kallsyms; }

# kthreads_named PATTERN: count kernel threads whose name matches PATTERN.
kthreads_named() { ps -o comm | grep -c -E "$1"; }

# kthread_pid NAME: the pid of the task called NAME (empty when none).
kthread_pid() { ps -o pid,comm | awk -v n="$1" '$2 == n { print $1 }'; }

# cpus_allowed PID: the CPUs the task may run on, as a list like 0-1,3.
cpus_allowed() { awk '$1 == "Cpus_allowed_list:" { print $2 }' "/proc/$1/status"; }

# nodes_with_memory: the node ids that have memory, one per line.
nodes_with_memory() {
	for n in /sys/devices/system/node/node[0-9]*; do
		awk '/MemTotal/ { if ($4 > 0) exit 0; exit 1 }' "$n/meminfo" && echo "${n##*node}"
	done
}

# first_cpu NID: the node's first CPU, or nothing when it has none.
first_cpu() {
	sed -e 's/[-,].*//' "/sys/devices/system/node/node$1/cpulist"
}

PC_SYS=/sys/kernel/pcompact
PC_PARAM=/sys/module/pcompact/parameters

# param_state NAME...: the named pcompact parameters, a "name=value" line
# each, in $param_state.  read, not cat: the tests that compare every
# parameter after each of thousands of writes spent most of their time in
# execs under TCG.
param_state() {
	param_state=
	for _ps_name; do
		_ps_value=
		IFS= read -r _ps_value < "$PC_PARAM/$_ps_name"
		param_state="$param_state$_ps_name=$_ps_value
"
	done
}

# one_line TEXT: TEXT with its newlines as spaces, for a note or a reason
# (a parameter state, say).
one_line() { printf "%s" "$1" | tr "\n" " "; }

# node_stat NID FILE: one pcompact sysfs value of a node.
node_stat() { cat "$PC_SYS/node$1/$2"; }

# node_stat_sum NAME: one pcompact node counter summed over every node.
node_stat_sum() { cat "$PC_SYS"/node*/"$1" | awk '{ s += $1 } END { print s }'; }

# node_counters NAME...: a snapshot of pcompact's counters, one "nid:value"
# word per node with memory, value the sum of the NAMEs on that node.
node_counters() {
	for _nc_n in $(nodes_with_memory); do
		_nc_v=0
		for _nc_c in "$@"; do
			_nc_v=$((_nc_v + $(node_stat $_nc_n $_nc_c)))
		done
		printf '%s:%s ' "$_nc_n" "$_nc_v"
	done
}

# node_counter_in NID SNAPSHOT: NID's value in a node_counters snapshot
# (nothing when the snapshot lacks the node: the caller's arithmetic then
# fails and its [ -gt ] is false, rather than either taking it as 0).
node_counter_in() {
	for _nci_p in $2; do
		[ "${_nci_p%:*}" = "$1" ] && echo "${_nci_p#*:}"
	done
}

# unusable_indexes ORDER: "NID ZONE INDEX" for every zone, INDEX the kernel's
# unusable index (debugfs) at ORDER, times 100 and truncated, as an integer.
unusable_indexes() {
	awk -v o="$1" 'NF > 4 {
		sub(",", "", $2); split($(5 + o), v, ".")
		print $2, $4, v[1] * 100 + int(substr(v[2], 1, 2))
	}' /sys/kernel/debug/extfrag/unusable_index
}

# unusable_index NID ZONE ORDER: one zone's, as unusable_indexes.
unusable_index() {
	unusable_indexes "$3" | awk -v n="$1" -v z="$2" '$1 == n && $2 == z { print $3 }'
}

# highest_unusable_index ORDER: the highest unusable index (x100) at ORDER
# of the zones other than DMA (too small to matter).  At order 9 it is the
# kernel's extfrag for proactive compaction, so a node scores at most this.
highest_unusable_index() {
	unusable_indexes "$1" | awk '$2 != "DMA" && $3 > m { m = $3 } END { print m + 0 }'
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

# verify_frag [WHAT]: frag (started with --verify) checks every page it
# keeps (SIGUSR1); fail unless all are intact, then stop it.  WHAT names
# the phase in the failure message.
verify_frag() {
	kill -USR1 "$FRAG_PID"
	wait_for "grep -q -E 'verify (ok|FAILED)' $FRAG_OUT" 120 ||
		fail "frag did not verify${1:+ ($1)}"
	grep -q 'verify ok' "$FRAG_OUT" ||
		{ cat "$FRAG_OUT"; fail "frag --verify found changed pages${1:+ ($1)}"; }
	stop_frag || fail "frag exit status $?${1:+ ($1)}"
}

# zram_swap SIZE: swap on a zram device, so anonymous memory can be
# reclaimed and kswapd has real work (the initramfs has nothing else).
zram_swap() {
	grep -q zram0 /proc/swaps && return 0
	modprobe zram num_devices=1 || fail "modprobe zram"
	# A failed test may have left zram0 sized (make check of d9308ba,
	# 6.12.118: 48's failure failed 50 and 52 here), and a sized device
	# refuses a new size.
	echo 1 > /sys/block/zram0/reset || fail "zram reset"
	echo "$1" > /sys/block/zram0/disksize || fail "zram disksize"
	mkswap /dev/zram0 >/dev/null || fail "mkswap"
	swapon /dev/zram0 || fail "swapon"
}

zram_swap_off() {
	swapoff /dev/zram0 2>/dev/null
	# Called again from a failing test's trap: zram may be gone.
	[ -e /sys/block/zram0/reset ] && echo 1 > /sys/block/zram0/reset
	rmmod zram 2>/dev/null
	return 0
}

# --- reliability helpers (tests 5x, 9x) ---

# pcompact_kprobes: the lines of the kprobe list that are pcompact's
# kretprobe.  The list names the probed kernel function, not the module
# that registered the probe, so look for the functions hooks.c probes (no
# one else in the guest probes them).
pcompact_kprobes() {
	grep -E ' r +(try_to_compact_pages|__alloc_pages_direct_compact)\+' \
		/sys/kernel/debug/kprobes/list 2>/dev/null
}

# pcompact_leftovers SYSCTL: print what a pcompact that is gone left behind
# (module, sysfs, threads, trace events, kprobe, CPU hotplug state, a
# sysctl not back at SYSCTL); print nothing when nothing is left.
pcompact_leftovers() {
	[ -e /sys/module/pcompact ] && echo "/sys/module/pcompact"
	[ -e "$PC_SYS" ] && echo "$PC_SYS"
	[ "$(kthreads_named '^pcompactd')" = 0 ] || echo "pcompactd threads: $(ps -o comm | grep '^pcompactd' | tr '\n' ' ')"
	[ -e /sys/kernel/tracing/events/pcompact ] && echo "trace events"
	pcompact_kprobes | sed 's/^/kprobe: /'
	grep ' pcompact:' /sys/devices/system/cpu/hotplug/states 2>/dev/null | sed 's/^/CPU hotplug state: /'
	[ "$(cat /proc/sys/vm/compaction_proactiveness)" = "$1" ] ||
		echo "vm.compaction_proactiveness $(cat /proc/sys/vm/compaction_proactiveness), was $1"
	return 0
}

# assert_pcompact_gone SYSCTL WHAT: fail, naming WHAT, if pcompact left
# anything behind.
assert_pcompact_gone() {
	_left=$(pcompact_leftovers "$1")
	[ -z "$_left" ] || fail "$2: left behind: $(echo "$_left" | tr '\n' ';')"
}

# zone_field NID FIELD: FIELD ("min", "low", "high", or "free" for the free
# pages) of /proc/zoneinfo, summed over the zones of node NID, in pages.
zone_field() {
	awk -v n="Node $1," -v f="$2" '
		/^Node/ { on = (index($0, n) == 1) }
		on && f == "free" && $1 == "pages" && $2 == "free" { s += $3 }
		on && $1 == f && NF == 2 { s += $2 }
		END { print s + 0 }' /proc/zoneinfo
}

# fill_room_kb: free memory above the min watermarks and, after a space,
# half the gap between the min and low watermarks, each summed over the
# zones other than DMA (which user pages hardly get), in kB.
fill_room_kb() {
	awk '/^Node/ { dma = ($4 == "DMA") }
		$1 == "pages" && $2 == "free" { f = $3 }
		$1 == "min" && NF == 2 { m = $2 }
		$1 == "low" && NF == 2 && !dma { if (f > m) s += f - m; g += ($2 - m) / 2 }
		END { printf "%d %d\n", s * 4, g * 4 }' /proc/zoneinfo
}

# fill_tmpfs DIR CONDITION [MOUNT-OPTIONS]: mount a tmpfs as large as RAM
# on DIR (with MOUNT-OPTIONS, e.g. mpol=prefer:1) unless one is there, and
# write files of at most 16 MB into it until the shell condition CONDITION
# holds.  Stops when free memory is down to halfway between the min and low
# watermarks, so nothing is OOM-killed (kswapd wakes at the low ones), and
# returns 1 if CONDITION does not hold within 10 s then (or after a write
# that failed).  The pages are movable and, without swap, stay until
# unfill_tmpfs DIR.
fill_tmpfs() {
	mkdir -p "$1"
	grep -q " $1 tmpfs " /proc/mounts ||
		mount -t tmpfs -o "size=$(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo)k${3:+,$3}" \
			tmpfs "$1" || return 1
	_ft_n=$(ls "$1" | wc -l)
	while ! eval "$2"; do
		# shellcheck disable=SC2046
		set -- "$1" "$2" "${3:-}" $(fill_room_kb)
		# At the floor: give what was woken (kswapd) a moment to show.
		[ "$4" -gt "$5" ] || { wait_for "$2" 10; return; }
		_ft_kb=$((($4 - $5) / 2))
		[ "$_ft_kb" -le 16384 ] || _ft_kb=16384
		[ "$_ft_kb" -ge 256 ] || _ft_kb=256
		# A write that fails ends the fill: say why (make check of d0caf8d:
		# one failed at 1.73 GB and kswapd never woke; the error was lost).
		_ft_err=$(dd if=/dev/zero of="$1/fill$_ft_n" bs=4k count=$((_ft_kb / 4)) 2>&1 >/dev/null) ||
			{ note "fill_tmpfs: writing $1/fill$_ft_n ($_ft_kb kB, room/floor $4 $5 kB):" \
				"$(printf '%s\n' "$_ft_err" | head -n 1)"; wait_for "$2" 10; return; }
		_ft_n=$((_ft_n + 1))
	done
}

# fill_node_tmpfs DIR NID CONDITION: fill_tmpfs DIR CONDITION with a tmpfs
# that prefers node NID: in huge pages while NID has a free 2 MB block (so
# that its free blocks go before its holes do), then in 4 kB pages only.
# Left on, it did not stay on NID (7.3.4, test 51: 482 MB of the tmpfs on
# node 0, none of it in 2 MB pages: since 6.14 huge=always also writes
# large folios of the smaller orders, and those go wherever such a run is
# free), nothing of order 2 or more stayed free on either node (300 MB
# free on node 0 in 4 and 8 kB pages), a fork's order-2 allocation failed
# and the OOM killer took frag.
fill_node_tmpfs() {
	fill_tmpfs "$1" "[ \$(free_blocks_at_least 9 $2) -eq 0 ] || { $3; }" \
		"mpol=prefer:$2,huge=always" || return 1
	mount -o remount,huge=never "$1" || { note "cannot remount $1 huge=never"; return 1; }
	fill_tmpfs "$1" "$3"
}

unfill_tmpfs() {
	umount "$1" 2>/dev/null
	rmdir "$1" 2>/dev/null
	return 0
}

# wake_kswapd: fill memory until kswapd runs (reaching the low watermarks
# wakes it, and its tracepoints fire: a probe left behind by a module that
# is gone would crash the kernel now), then give the memory back.  With
# zram swap on meanwhile, so that kswapd's reclaim succeeds: after 16 runs
# that reclaim nothing a node is "hopeless" and kswapd is not woken for it
# again until some reclaim succeeds.
# revive_kswapd: kswapd gives up on a node after 16 balancing runs that
# reclaim nothing (no swap and nothing else to reclaim: khugehog running to
# failure does it, as in tests 31 and 49) and is not woken there again until
# some reclaim makes progress on the node; /proc/zoneinfo then says
# node_unreclaimable 1.  With swap on, put a little tmpfs on every CPU's
# node and reclaim it through the root cgroup's memory.reclaim from that
# CPU, which resets the count.  Returns 1 if a node stays unreclaimable.
revive_kswapd() {
	grep -q 'node_unreclaimable: *1' /proc/zoneinfo || return 0
	note "revive_kswapd: $(grep -c 'node_unreclaimable: *1' /proc/zoneinfo) zones unreclaimable"
	[ -e /sys/fs/cgroup/memory.reclaim ] ||
		mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
	mkdir -p /tmp/revive-kswapd
	mount -t tmpfs tmpfs /tmp/revive-kswapd || return 1
	for _rk_cpu in $(seq 0 $(($(nproc) - 1))); do
		taskset -c "$_rk_cpu" dd if=/dev/zero of=/tmp/revive-kswapd/$_rk_cpu bs=1M count=16 2>/dev/null
		taskset -c "$_rk_cpu" sh -c 'echo 8M > /sys/fs/cgroup/memory.reclaim' 2>/dev/null
	done
	umount /tmp/revive-kswapd
	! grep -q 'node_unreclaimable: *1' /proc/zoneinfo
}

wake_kswapd() {
	_wk_swap=0
	grep -q zram0 /proc/swaps || { zram_swap 512M; _wk_swap=1; }
	revive_kswapd || note "wake_kswapd: a node stays unreclaimable" \
		"($(grep -c 'node_unreclaimable: *1' /proc/zoneinfo) zones)"
	_wk_runs=$(vmstat pageoutrun)
	fill_tmpfs /tmp/wake-kswapd '[ "$(vmstat pageoutrun)" != "$_wk_runs" ]'
	_wk_rc=$?
	[ $_wk_rc = 0 ] || note "wake_kswapd: stopped with room/floor $(fill_room_kb) kB," \
		"$(ls /tmp/wake-kswapd | wc -l) files, $(du -sk /tmp/wake-kswapd | cut -f1) kB," \
		"pageoutrun $(vmstat pageoutrun), MemFree $(awk '$1 == "MemFree:" { print $2 }' /proc/meminfo) kB"
	unfill_tmpfs /tmp/wake-kswapd
	[ $_wk_swap = 0 ] || zram_swap_off
	return $_wk_rc
}

# as_nobody CMD...: run CMD as uid/gid 65534 (busybox su; adds the
# nobody user to /etc/passwd and /etc/group if they lack it).
as_nobody() {
	grep -q '^nobody:' /etc/passwd 2>/dev/null ||
		echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >> /etc/passwd
	grep -q '^nogroup:' /etc/group 2>/dev/null || echo 'nogroup:x:65534:' >> /etc/group
	_cmd=""
	for _a in "$@"; do _cmd="$_cmd '$(printf '%s' "$_a" | sed "s/'/'\\\\''/g")'"; done
	su -s /bin/sh nobody -c "$_cmd"
}

# set_wmarks LOW HIGH: pcompact's thresholds, written in the order the
# module accepts (it refuses, at every write, a low above the high).
set_wmarks() {
	{ echo "$1" > $PC_PARAM/wmark_low && echo "$2" > $PC_PARAM/wmark_high; } 2>/dev/null ||
		{ echo "$2" > $PC_PARAM/wmark_high && echo "$1" > $PC_PARAM/wmark_low; } ||
		fail "thresholds $1/$2 refused"
}

# top_score: the highest of pcompact's node scores.
top_score() {
	_top=0
	for _n in $(nodes_with_memory); do
		_s=$(node_stat $_n score)
		[ "$_s" -gt "$_top" ] && _top=$_s
	done
	echo $_top
}

# fragmented_nodes MIN: after frag, set pcompact's thresholds just below
# the most fragmented node's score (high = top - 4, low = high - 10, at
# most the defaults 90/80: how far frag gets depends on where its pages
# and the free margin land).  Sets LOW, ABOVE (the nodes above high) and
# FRAGMENTED_MIN (MIN, for compact_traced to choose again).
# A node's score is pcompact's last sample, up to interval_ms old, so it
# waits for one that has seen frag's frees (6.12: a small frag was ready
# in under 3 s and the scores still said 7).
fragmented_nodes() {
	FRAGMENTED_MIN=$1
	wait_for "[ \$(top_score) -ge $1 ]" 10 ||
		fail "frag left every node below $1 (highest $(top_score))"
	_fn_before=$(compaction_activity)
	_fn_seen=""
	for _fn_try in 1 2 3; do
		top=$(top_score)
		high=$((top - 4))
		[ $high -gt 90 ] && high=90
		LOW=$((high - 10))
		set_wmarks "$LOW" "$high"
		ABOVE=""
		_fn_scores=""
		for n in $(nodes_with_memory); do
			_s=$(node_stat $n score)
			_fn_scores="$_fn_scores $n:$_s"
			[ "$_s" -gt "$high" ] && ABOVE="$ABOVE $n"
		done
		[ -n "$ABOVE" ] && return 0
		# Something freed whole blocks between two reads of the scores
		# (7.3.4 once: node 1 from 95 to at most 90 with pcompact off):
		# choose again from the newer scores, and say what it was if it
		# keeps happening.
		_fn_seen="$_fn_seen, top $top then$_fn_scores"
		note "no node above $high any more (scores$_fn_scores; since frag:$(activity_since "$_fn_before")); choosing again"
		wait_for "[ \$(top_score) -ge $1 ]" 10 || break
	done
	fail "no node above the high threshold $high any more ($1 at least wanted${_fn_seen}; compaction and reclaim since frag:$(activity_since "$_fn_before"))"
}

# compaction_activity: the kernel's compaction and reclaim counters (and
# pcompact's per-node wakes), one line, for activity_since.
compaction_activity() {
	for _k in compact_daemon_wake compact_stall compact_success \
		  compact_migrate_scanned pgsteal_kswapd pgsteal_direct \
		  thp_fault_alloc thp_collapse_alloc; do
		printf '%s=%s ' "$_k" "$(vmstat $_k)"
	done
	for _n in $(nodes_with_memory); do
		printf 'node%s_kcompactd_wakes=%s ' "$_n" "$(node_stat $_n kcompactd_wakes)"
	done
}

# activity_since LINE: the counters of compaction_activity that moved since
# LINE, as name+delta.
activity_since() {
	{ echo "$1"; compaction_activity; } | tr ' ' '\n' | awk -F= '
		NF == 2 { if ($1 in was) { d = $2 - was[$1]; if (d) out = out " " $1 "+" d }
			  else was[$1] = $2 }
		END { print out == "" ? " none" : out }'
}

# node_summary NID: a node's score, state and round counters, on one line.
node_summary() {
	_ns="score $(node_stat "$1" score) state $(node_stat "$1" state)"
	for _c in rounds deferrals blocks_freed failed_blocks backoffs_kswapd \
		  backoffs_contention backoffs_stall; do
		_ns="$_ns $_c $(node_stat "$1" $_c)"
	done
	echo "$_ns"
}

# engine_dump NID: what a node's compactor is doing, for a test that waited
# in vain: the thread's state and kernel stack, kswapd's state, the node's
# free lists and the newest trace lines.
engine_dump() {
	for _t in pcompactd$1 kswapd$1; do
		_pid=$(kthread_pid $_t)
		[ -n "$_pid" ] || continue
		note "$_t ($_pid): $(awk '$1 == "State:" { print $2, $3 }' /proc/$_pid/status)"
		sed 's/^/#   /' /proc/$_pid/stack 2>/dev/null
	done
	grep "Node $1," /proc/buddyinfo | sed 's/^/# /'
	grep -v '^#' /sys/kernel/tracing/trace 2>/dev/null | tail -n 20 | sed 's/^/# /'
}

# trace_clock_name: the top trace buffer's clock, the one trace_clock marks.
trace_clock_name() {
	sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/tracing/trace_clock
}

# trace_stalls_begin, trace_stalls_end: the kernel's trace of direct
# compaction entries in between, in a tracefs instance of its own (so that
# tests tracing the top buffer keep theirs) on the top buffer's clock.
# trace_stalls_end sets LAST_STALL_TS to the last one's trace timestamp, in
# seconds: pcompact's hook marks a stall as it enters and leaves direct
# compaction, so its last stall is at or after LAST_STALL_TS.
STALL_TRACE=/sys/kernel/tracing/instances/pcompact-stalls
trace_stalls_begin() {
	rmdir $STALL_TRACE 2>/dev/null
	mkdir $STALL_TRACE || fail "cannot create the tracefs instance $STALL_TRACE"
	trace_clock_name > $STALL_TRACE/trace_clock ||
		fail "cannot set $STALL_TRACE's clock"
	echo 1 > $STALL_TRACE/events/compaction/mm_compaction_try_to_compact_pages/enable ||
		fail "no compaction/mm_compaction_try_to_compact_pages event"
}

trace_stalls_end() {
	echo 0 > $STALL_TRACE/tracing_on
	LAST_STALL_TS=$(awk '/ mm_compaction_try_to_compact_pages: / {
		for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i; break } }
		END { sub(":", "", t); print t }' $STALL_TRACE/trace)
	rmdir $STALL_TRACE || fail "cannot remove the tracefs instance $STALL_TRACE"
}

# stall_in_direct_compaction: make allocations stall in direct compaction
# (pcompact loaded, memory fragmented): huge page allocations, 64 more than
# the free 2 MB blocks and the most the per-cpu lists can hold back, so that
# once those are taken each stalls.  16 more than the free blocks alone was
# not enough on 7.3.4 (make check of c534be9: 117 allocations with 101
# blocks free and no stall, right after test 66 had stalled with the same
# margin).
# khugehog holds them until the test unloads it, so that freeing them does
# not lower the scores.
stall_in_direct_compaction() {
	_sd_stalls=$(node_stat_sum direct_stalls)
	_sd_free2m=$(awk '$1 == "Node" { n += $14 + 2 * $15 } END { print n + 0 }' /proc/buddyinfo)
	_sd_max=$((_sd_free2m + $(pcp_pages) / 512 + 64))
	trace_stalls_begin
	insmod /pc/khugehog/khugehog.ko max=$_sd_max || fail "insmod khugehog max=$_sd_max"
	trace_stalls_end
	[ "$(node_stat_sum direct_stalls)" -gt "$_sd_stalls" ] ||
		fail "$_sd_max huge page allocations, $_sd_free2m blocks free, did not stall ($(grep -E '^(count|failures)' /proc/khugehog/summary | tr '\n' ' '))"
	note "direct compaction stalls: $_sd_stalls -> $(node_stat_sum direct_stalls) ($_sd_max allocations, $_sd_free2m blocks free)"
	STALLED_AT=$(date +%s)
}

# load_fragmented [--stalled] ARG...: pcompact loaded switched off with the
# ARGs and interval_ms=10, so that the scores read are the fragmented ones,
# memory fragmented (start_frag) and the thresholds chosen (fragmented_nodes
# 70, which sets ABOVE and LOW).  With --stalled, allocations stall in
# direct compaction before that (stall_in_direct_compaction; khugehog stays
# loaded) and interval_ms becomes 60000, so that every round the test then
# starts is within interval_ms of a stall.
load_fragmented() {
	_lf_stalled=""
	[ "$1" = --stalled ] && { _lf_stalled=$1; shift; }
	insmod /pc/module/pcompact.ko enabled=0 "$@" interval_ms=10 ||
		fail "insmod $* interval_ms=10"
	fragment_anew $_lf_stalled
}

# fragment_anew [--stalled]: load_fragmented's fragmentation with pcompact
# already loaded (switched off): start_frag, with --stalled allocations
# stalled in direct compaction and interval_ms 60000, then fragmented_nodes 70.
fragment_anew() {
	STALLED_AT=""
	start_frag
	if [ "$1" = --stalled ]; then
		stall_in_direct_compaction
		echo 60000 > $PC_PARAM/interval_ms || fail "interval_ms 60000"
	fi
	fragmented_nodes 70
}

# wait_compaction_end NID LOW [SECS]: wait until the node's compaction has
# ended: its score at or below LOW, a round deferred (it ran out of work or
# did not lower the score), or pcompact idle on the node.  After SECS
# (default 300) it dumps what the node's compactor is doing and fails.  A node
# pcompact found at or below its high threshold, and so never compacted (the
# kernel lowered its score after fragmented_nodes read it), leaves ABOVE with
# a note (one idle with no round at a score above it fails); the test fails
# when no node is left, or with WCE_RETURN_WHEN_NONE_LEFT set it returns 2
# (compact_traced then chooses the thresholds again).
# Deferrals and rounds count from what compaction_marks noted, else from 0
# (a module loaded afresh).
wait_compaction_end() {
	eval "_wce_deferrals=\${_wce_deferrals_$1:-0} _wce_rounds=\${_wce_rounds_$1:-0}"
	wait_for "[ \$(node_stat $1 score) -le $2 ] || [ \$(node_stat $1 deferrals) -gt $_wce_deferrals ] ||
		  [ \$(node_stat $1 state) = idle ]" "${3:-300}" || {
		engine_dump "$1"
		fail "node $1: compaction did not end in ${3:-300} s (low $2): $(node_summary "$1")"
	}
	[ "$(node_stat "$1" rounds)" = "$_wce_rounds" ] || return 0
	# Idle without a round is right only at or below the node's high
	# threshold; a sample above it starts a round within interval_ms.
	wait_for "[ \$(node_stat $1 score) -le \$(node_stat $1 wmark_high) ] ||
		  [ \$(node_stat $1 rounds) != $_wce_rounds ]" 5 ||
		fail "node $1: idle with no round above its high threshold $(node_stat $1 wmark_high): $(node_summary "$1")"
	[ "$(node_stat "$1" rounds)" = "$_wce_rounds" ] || return 0
	note "node $1 was at or below the high threshold when pcompact looked: $(node_summary "$1")"
	ABOVE=$(echo " $ABOVE " | sed "s/ $1 / /; s/^ *//; s/ *$//")
	[ -n "$ABOVE" ] && return 0
	[ -n "$WCE_RETURN_WHEN_NONE_LEFT" ] && return 2
	fail "no node was left above the high threshold to compact"
}

# pcompactd_pids: the pcompactd threads' pids, as an extended regex.
pcompactd_pids() {
	ps -o pid,comm | awk '$2 ~ /^pcompactd/ { p = p (p ? "|" : "") $1 } END { print p }'
}

# wait_score_samples TIMEOUT_S NID...: wait for a pcompact_score trace event
# of each node NID, sampled after the call.  A node's sysfs score is its last
# sample's, up to interval_ms old: read after a change of the node's free
# memory it can be the state before the change (test 58 on CI, 6.1: 71 read
# right after the per-cpu lists emptied, 52 when its phase began).  The
# trace buffer is emptied first.  Returns 1 after printing the node that had
# no sample within TIMEOUT_S seconds.
wait_score_samples() {
	_ws_timeout=$1
	shift
	_ws_event=/sys/kernel/tracing/events/pcompact/pcompact_score/enable
	echo > /sys/kernel/tracing/trace
	echo 1 > $_ws_event || fail "no pcompact_score event"
	for _ws_nid in "$@"; do
		if ! wait_for "grep -q 'pcompact_score: nid=$_ws_nid ' /sys/kernel/tracing/trace" "$_ws_timeout"; then
			echo 0 > $_ws_event
			echo "$_ws_nid"
			return 1
		fi
	done
	echo 0 > $_ws_event
}

# round_ends NID FIELD: that field of the node's traced pcompact_round_end
# events in /sys/kernel/tracing/trace, one a line.
round_ends() {
	grep "pcompact_round_end: nid=$1 " /sys/kernel/tracing/trace |
		sed -n "s/.* $2=\([0-9]*\).*/\1/p"
}

# rounds_over NID MAX_NS: how many of the node's traced rounds lasted over MAX_NS.
rounds_over() {
	round_ends $1 elapsed_ns | awk -v max=$2 '$1 > max { n++ } END { print n + 0 }'
}

# kernel_calls: the kernel compactions pcompactd ran (mm_compaction_end
# lines of its threads in /sys/kernel/tracing/trace), 0 without one.
kernel_calls() {
	_kc_pids=$(pcompactd_pids)
	[ -n "$_kc_pids" ] || fail "no pcompactd thread to count the kernel compactions of"
	grep -c -E -- "-($_kc_pids) +\[[0-9]+\].* mm_compaction_end:" /sys/kernel/tracing/trace
}

# wait_disabled SECS NID...: after enabled=0, wait until each node reads
# disabled, so that its round in flight has ended and counted what it did
# (a round counts in rounds as it begins, in the other counters as it ends).
wait_disabled() {
	_wd_secs=$1
	shift
	for _wd_n in "$@"; do
		wait_for "[ \$(node_stat $_wd_n state) = disabled ]" "$_wd_secs" ||
			fail "node $_wd_n: still $(node_stat $_wd_n state) $_wd_secs s after enabled=0"
	done
}

# compaction_marks [--clear]: note each node's deferrals and rounds, from
# which wait_compaction_end then counts (a test that compacts more than once
# with one module loaded, 69: a deferral of the phase before must not end
# the next); --clear forgets them.
compaction_marks() {
	for _cm_n in $(nodes_with_memory); do
		if [ "$1" = --clear ]; then
			unset "_wce_deferrals_$_cm_n" "_wce_rounds_$_cm_n"
		else
			eval "_wce_deferrals_$_cm_n=$(node_stat $_cm_n deferrals) _wce_rounds_$_cm_n=$(node_stat $_cm_n rounds)"
		fi
	done
}

# trace_from_empty EVENT...: trace the events (SUBSYSTEM/NAME under
# /sys/kernel/tracing/events) from an empty buffer.
trace_from_empty() {
	echo 0 > /sys/kernel/tracing/tracing_on
	echo > /sys/kernel/tracing/trace
	for _tf_event in "$@"; do
		echo 1 > "/sys/kernel/tracing/events/$_tf_event/enable" || fail "no $_tf_event event"
	done
	echo 1 > /sys/kernel/tracing/tracing_on
}

# trace_events_off EVENT...: stop tracing the events (SUBSYSTEM/NAME).
trace_events_off() {
	for _tf_event in "$@"; do
		echo 0 > "/sys/kernel/tracing/events/$_tf_event/enable"
	done
}

# compact_traced EVENT...: trace the events (SUBSYSTEM/NAME under
# /sys/kernel/tracing/events) from an empty buffer while pcompact compacts:
# switch it on, wait until every node of ABOVE ends its compaction, switch
# it off and wait for the rounds in flight to end.  If every node of ABOVE
# fell to its high threshold before pcompact's first round, it chooses the
# thresholds again (fragmented_nodes) and starts over, three times at most.
# The events stay in /sys/kernel/tracing/trace for the caller.
compact_traced() {
	trace_from_empty "$@"
	for _ct_try in 1 2 3; do
		compaction_marks
		echo Y > $PC_PARAM/enabled || fail "cannot switch pcompact on"
		_ct_none_left=""
		WCE_RETURN_WHEN_NONE_LEFT=1
		for nid in $ABOVE; do
			wait_compaction_end $nid $LOW || { _ct_none_left=1; break; }
		done
		unset WCE_RETURN_WHEN_NONE_LEFT
		echo N > $PC_PARAM/enabled
		compaction_marks --clear
		_ct_running=""
		for _ct_n in $(nodes_with_memory); do
			[ "$(node_stat $_ct_n running)" = 1 ] && _ct_running="$_ct_running $_ct_n"
		done
		wait_disabled 60 $_ct_running
		[ -n "$_ct_none_left" ] || break
		[ $_ct_try = 3 ] && fail "no node was left above the high threshold to compact, three times"
		# A stalled phase's rounds must start within interval_ms (60 s) of
		# the stall: no time for another attempt after half of it.
		[ -n "$STALLED_AT" ] && [ $(($(date +%s) - STALLED_AT)) -gt 30 ] &&
			fail "no node was left above the high threshold to compact, $(($(date +%s) - STALLED_AT)) s after the stall"
		# Every node fell to its high threshold between fragmented_nodes
		# and pcompact's first look (7.3.4, make check of ea1b9b0: node 1
		# from over 90 to 87, no round run): choose from the newer scores.
		note "attempt $_ct_try: every node fell to its high threshold before pcompact's first round; choosing again"
		fragmented_nodes "${FRAGMENTED_MIN:-70}"
	done
	trace_events_off "$@"
}
