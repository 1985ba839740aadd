#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench-guest.sh: one scenario of `scripts/bench`, run as root inside the VM
# (busybox sh) or, with `scripts/bench --host`, on the machine itself.
#
# It fragments memory, switches the scenario's compaction mechanism on,
# runs an allocation stream and records what happened.  Everything it
# records goes to fd 3 as framed text files, which scripts/bench splits:
#
#   === file NAME lines=N ===      N lines of the file follow
#   === end NAME ===
#   # bench: ...                   progress, shown on the host
#   === error MESSAGE ===          the scenario failed
#   === done ===                   every file was sent
#
# A file without its end marker, or a run without "done", is a failed
# scenario: the host never takes partial output for a result.
#
# Settings come from the environment (scripts/bench sets all of them):
#   BENCH_SCENARIO      scenario name, for the record
#   BENCH_MECH          none | sysctl | module | manual: what compacts
#   BENCH_PROACTIVENESS vm.compaction_proactiveness (sysctl) or pcompact's
#                       proactiveness (module)
#   BENCH_MODULE_ARGS   extra pcompact.ko parameters (module; default none)
#   BENCH_WORKLOADS     space-separated, in order: khugehog, thp, pin,
#                       sweepD (khugehog with delay_us=D), khugehog-thp,
#                       khugehog-light (khugehog with gfp=thp / light)
#   BENCH_SWEEP_MAX     khugehog max= of the sweep (default 512 = 1 GiB)
#   BENCH_BURSTS, BENCH_BURST_LOW, BENCH_BURST_WAIT_S, BENCH_BURST_PAUSE_S
#                       the bursts workload (3 bursts, low 80, 60 s, 5 s)
#   BENCH_KHH_ARGS      khugehog.ko parameters of the khugehog workload
#   BENCH_THP_MB        size of the frag --thp-touch mapping, MiB
#   BENCH_FRAG_ARGS     extra frag arguments (default: none)
#   BENCH_OBSERVE_S     pin workload: seconds to watch the mechanism
#   BENCH_IDLE_S        seconds from switching the mechanism on to the first
#                       allocation (the head start every mechanism gets)
#   BENCH_LEAD_S        seconds sampled before the mechanism is switched on
#   BENCH_TAIL_S        seconds sampled after the allocation stream
#   BENCH_SAMPLE_S      sampler period in seconds (0.05 = 20 Hz)
#   BENCH_PC            payload directory (default /pc)
#   BENCH_TMP           scratch directory (default /tmp/bench)

PC=${BENCH_PC:-/pc}
TMP=${BENCH_TMP:-/tmp/bench}
KHH_KO=$PC/khugehog/khugehog.ko
PCOMPACT_KO=$PC/module/pcompact.ko
FRAG=$PC/bin/frag
. "$PC/mm.sh"
MECH=${BENCH_MECH:-none}
PROACTIVENESS=${BENCH_PROACTIVENESS:-0}
MODULE_ARGS=${BENCH_MODULE_ARGS:-}
SAMPLE_S=${BENCH_SAMPLE_S:-0.05}
LEAD_S=${BENCH_LEAD_S:-1}
IDLE_S=${BENCH_IDLE_S:-0}
TAIL_S=${BENCH_TAIL_S:-1}
FRAG_PIDS=""

say() { echo "# bench: $*" >&3; echo "# bench: $*"; }
die() {
	echo "=== error $* ===" >&3
	echo "bench-guest: error: $*"
	cleanup
	restore_settings
	exit 1
}

# The settings the benchmark changes, restored at the end: on a host
# (scripts/bench --host) they are the machine's own.
SAVED_SETTINGS=""
THP=/sys/kernel/mm/transparent_hugepage
save_settings() {
	for f in /proc/sys/vm/compaction_proactiveness /proc/sys/vm/watermark_boost_factor \
		"$PCP_FRACTION" "$THP/enabled" "$THP/defrag"; do
		[ -w "$f" ] || continue
		# THP files show every choice with the current one in brackets.
		v=$(sed -n 's/.*\[\(.*\)\].*/\1/p; t; p' "$f")
		SAVED_SETTINGS="$SAVED_SETTINGS $f=$v"
	done
}
restore_settings() {
	for s in $SAVED_SETTINGS; do
		echo "${s#*=}" > "${s%%=*}" 2>/dev/null
	done
	SAVED_SETTINGS=""
}

# Seconds since boot with centiseconds, from /proc/uptime: busybox date
# has no %N.  Boot time and the monotonic clock khugehog uses (ktime) run
# together in a guest that never suspends.
now() { read -r _up _idle < /proc/uptime; echo "$_up"; }

# mark NAME: note when a phase starts, in the workload's events file.
mark() { echo "$1 $(now)" >> "$TMP/$W.events"; }

# send NAME PATH: one framed file on fd 3.  awk ends every line with a
# newline, so the end marker always starts a line of its own.
send() {
	[ -f "$2" ] || die "cannot send $1: $2 is missing"
	echo "=== file $1 lines=$(awk 'END { print NR }' "$2") ===" >&3
	awk '{ print }' "$2" >&3
	echo "=== end $1 ===" >&3
}

kmod_loaded() { grep -q "^$1 " /proc/modules; }

# The kernel threads whose CPU time the benchmark reports, one line each:
# comm pid utime_ticks stime_ticks run_ns.  run_ns (schedstat) is the
# precise one; the ticks are USER_HZ (1/100 s).
kthreads() {
	for p in /proc/[0-9]*; do
		read -r comm 2>/dev/null < "$p/comm" || continue
		case "$comm" in
		kcompactd*|pcompactd*|kswapd*) ;;
		*) continue ;;
		esac
		read -r _pid _comm _st _pp _pg _se _tt _tp _fl _mi _cmi _ma _cma utime stime _rest \
			2>/dev/null < "$p/stat" || continue
		run_ns=0
		[ -r "$p/schedstat" ] && read -r run_ns _w _s < "$p/schedstat"
		echo "$comm ${p#/proc/} $utime $stime $run_ns"
	done
}

# pcompact's per-node statistics as "node<N>/<file> value" lines.
pcompact_stats() {
	[ -d /sys/kernel/pcompact ] || return 0
	for f in /sys/kernel/pcompact/node*/*; do
		[ -f "$f" ] || continue
		v=$(tr '\n' ' ' < "$f" 2>/dev/null)
		n=${f%/*}
		echo "${n##*/}/${f##*/} $v"
	done
	for f in /sys/module/pcompact/parameters/*; do
		echo "param/${f##*/} $(cat "$f" 2>/dev/null)"
	done
}

# snapshot NAME: the state the deltas are computed from.
snapshot() {
	cat /proc/vmstat > "$TMP/$W.vmstat_$1"
	cat /proc/buddyinfo > "$TMP/$W.buddyinfo_$1"
	kthreads > "$TMP/$W.kthreads_$1"
	pcompact_stats > "$TMP/$W.pcompact_$1"
	# Pageblocks by migratetype: the kernel's compaction takes free pages
	# only from movable blocks, so where few are, its calls find no target.
	cat /proc/pagetypeinfo > "$TMP/$W.pagetypeinfo_$1"
	# Free pages waiting on the per-cpu lists: NR_FREE_PAGES (and so
	# khugehog's free_pages_start) does not count them.
	{
		echo "pcp_pages $(pcp_pages)"
		for _n in /sys/devices/system/node/node[0-9]*; do
			echo "pcp_pages_node${_n##*node} $(pcp_pages "${_n##*node}")"
		done
	} > "$TMP/$W.pcp_$1"
	SNAPSHOTS="$SNAPSHOTS $1"
}

# The sampler: /proc/buddyinfo (and pcompact's own node scores when it is
# loaded) every SAMPLE_S seconds, with the uptime.  Only shell builtins in
# the loop, so it costs the guest little and keeps its rate while the
# workload takes the CPUs: the pause is a read with a timeout on a FIFO no
# one writes to, as sleep would fork and exec each time.  (This needs a
# shell whose read has a fractional -t and -u: busybox sh or bash.)  The
# host turns the raw lines into node scores and free order-9 blocks.
sampler() {
	rm -f "$TMP/pause"
	mkfifo "$TMP/pause" || return 1
	exec 9<> "$TMP/pause"
	while [ ! -e "$TMP/sampler.stop" ]; do
		read -r t _idle < /proc/uptime
		echo "T $t"
		while IFS= read -r line; do
			echo "B $line"
		done < /proc/buddyinfo
		for f in /sys/kernel/pcompact/node*/score; do
			[ -r "$f" ] || continue
			read -r s < "$f"
			n=${f%/score}
			echo "P ${n##*node} $s"
		done
		# shellcheck disable=SC3045 # busybox sh and bash have read -t and -u
		read -r -t "$SAMPLE_S" -u 9 _nothing
	done
	exec 9<&-
}

start_sampler() {
	rm -f "$TMP/sampler.stop"
	sampler > "$TMP/$W.samples" 2>/dev/null &
	SAMPLER_PID=$!
}

stop_sampler() {
	[ -n "$SAMPLER_PID" ] || return 0
	touch "$TMP/sampler.stop"
	wait "$SAMPLER_PID"
	SAMPLER_PID=""
}

# Same starting point for every run: no page cache, memory compacted, the
# kernel's proactive compaction and watermark boosting off (boosting wakes
# kcompactd, which would make "vanilla" more than on-demand compaction).
settle() {
	echo 0 > /proc/sys/vm/compaction_proactiveness
	echo 0 > /proc/sys/vm/watermark_boost_factor
	sync
	echo 3 > /proc/sys/vm/drop_caches
	echo 1 > /proc/sys/vm/compact_memory
}

# The NUMA nodes with memory, one per line.
memory_nodes() {
	for d in /sys/devices/system/node/node[0-9]*; do
		[ -r "$d/meminfo" ] || continue
		awk '$3 == "MemTotal:" && $4 > 0 { found = 1 } END { exit !found }' "$d/meminfo" &&
			echo "${d##*node}"
	done
}

# start_frag: one frag per NUMA node (frag --node N), one after the other,
# so every node is fragmented the same way in every scenario whichever CPU
# runs frag; with BENCH_FRAG_PER_NODE=0 (or no node directory) a single
# frag as before.  map.csv (and later map.csv.1) join the nodes' maps.
start_frag() {
	rm -f "$TMP"/frag.*.ready "$TMP/map.csv" "$TMP"/map.csv.* "$TMP"/map.*.csv* "$TMP/$W.frag_out"
	FRAG_PIDS=""
	FRAG_NODES=""
	[ "${BENCH_FRAG_PER_NODE:-1}" = 1 ] && FRAG_NODES=$(memory_nodes)
	for n in ${FRAG_NODES:-all}; do
		_node_arg=""
		[ "$n" = all ] || _node_arg="--node $n"
		# shellcheck disable=SC2086
		"$FRAG" $_node_arg --map "$TMP/map.$n.csv" --ready-file "$TMP/frag.$n.ready" \
			$BENCH_FRAG_ARGS > "$TMP/$W.frag_out.$n" 2>&1 &
		_pid=$!
		FRAG_PIDS="$FRAG_PIDS $_pid"
		wait_for "[ -e $TMP/frag.$n.ready ] || ! kill -0 $_pid 2>/dev/null" 900 0.1 ||
			die "frag ($n) not ready within 900 s"
		[ -e "$TMP/frag.$n.ready" ] ||
			die "frag ($n) exited early$(oom_report "$_pid"): $(tail -n 3 "$TMP/$W.frag_out.$n" | tr '\n' ' ')"
	done
	join_maps "" map.csv
}

# join_maps SUFFIX OUT: the nodes' maps (map.N.csv SUFFIX) as one CSV.
join_maps() {
	_first=1
	for n in ${FRAG_NODES:-all}; do
		if [ $_first = 1 ]; then
			cat "$TMP/map.$n.csv$1"
			_first=0
		else
			tail -n +2 "$TMP/map.$n.csv$1"
		fi
	done > "$TMP/$2"
}

# frag_out: every frag's output, node by node.
frag_out() {
	for n in ${FRAG_NODES:-all}; do
		echo "# frag ${n}"
		cat "$TMP/$W.frag_out.$n"
	done > "$TMP/$W.frag_out"
}

stop_frag() {
	[ -n "$FRAG_PIDS" ] || return 0
	for p in $FRAG_PIDS; do
		kill -TERM "$p" 2>/dev/null
	done
	for p in $FRAG_PIDS; do
		wait "$p"
	done
	FRAG_PIDS=""
	frag_out
}

# oom_report PID: "; " and the OOM killer's line about PID, or nothing.
# The guest has nothing to reclaim: past khugehog's margin an allocation
# elsewhere can bring the OOM killer, and frag is the largest process.
oom_report() {
	_oom=$(dmesg | grep -m 1 "Killed process $1 ")
	[ -z "$_oom" ] || echo "; ${_oom#*] }"
}

# The occupancy map after the run: SIGUSR1 makes each frag write
# map.N.csv.1.  A frag that has exited (the OOM killer's) ends the run at
# once: its pages were freed under the stream or after it, so the layout
# the run measured is gone, and no map will come.
frag_map_after() {
	for p in $FRAG_PIDS; do
		kill -USR1 "$p" 2>/dev/null ||
			die "frag (pid $p) had exited by the stream's end$(oom_report "$p")"
	done
	# shellcheck disable=SC2086 # one pid per word
	set -- $FRAG_PIDS
	for n in ${FRAG_NODES:-all}; do
		_done="grep -q 'frag: map file=$TMP/map.$n.csv.1 ' $TMP/$W.frag_out.$n"
		wait_for "$_done || ! kill -0 $1 2>/dev/null" 300 0.1 ||
			die "frag ($n) wrote no map after SIGUSR1"
		eval "$_done" ||
			die "frag ($n, pid $1) exited before writing its map$(oom_report "$1")"
		shift
	done
	join_maps .1 map.csv.1
}

# trace_start EVENT...: trace only these events (subsystem/name), from an
# empty buffer.  An event this kernel lacks ends the run: a trace without
# it would count as "none happened".
trace_start() {
	_tr=/sys/kernel/tracing
	echo 0 > "$_tr/tracing_on"
	echo 0 > "$_tr/events/enable"
	echo > "$_tr/trace"
	for e in "$@"; do
		echo 1 > "$_tr/events/$e/enable" || die "cannot trace $e"
	done
	echo 1 > "$_tr/tracing_on"
}

# compact_memory LABEL: one write to /proc/sys/vm/compact_memory, waited
# for (the write returns when compaction has finished), with what it did:
# its exit status and duration, the compaction counters and buddyinfo
# before and after, and with BENCH_TRACE=1 the kernel's compaction trace
# (one begin/end line per zone: where the scanners stopped and why).
compact_memory() {
	_f="$TMP/$W.compact_$1"
	_tr=/sys/kernel/tracing
	{
		echo "label $1"
		[ -n "$PCP_NOTE" ] && echo "$PCP_NOTE"
		echo "t_start $(now)"
		grep -E '^(compact_|pgmigrate_)' /proc/vmstat | sed 's/^/before_/'
		sed 's/^/buddy_before /' /proc/buddyinfo
	} > "$_f"
	PCP_NOTE=""
	if [ "${BENCH_TRACE:-0}" = 1 ] && [ -w "$_tr/tracing_on" ]; then
		trace_start compaction/mm_compaction_begin compaction/mm_compaction_end \
			compaction/mm_compaction_migratepages
	fi
	echo 1 > /proc/sys/vm/compact_memory
	_rc=$?
	{
		echo "t_end $(now)"
		echo "rc $_rc"
		grep -E '^(compact_|pgmigrate_)' /proc/vmstat | sed 's/^/after_/'
		sed 's/^/buddy_after /' /proc/buddyinfo
	} >> "$_f"
	if [ "${BENCH_TRACE:-0}" = 1 ] && [ -w "$_tr/tracing_on" ]; then
		echo 0 > "$_tr/tracing_on"
		grep -E 'mm_compaction_(begin|end):' "$_tr/trace" | sed 's/^ */trace /' >> "$_f"
		awk '/mm_compaction_migratepages/ { for (i = 1; i <= NF; i++) {
			if ($i ~ /^nr_migrated=/) { sub(/.*=/, "", $i); m += $i }
			if ($i ~ /^nr_failed=/) { sub(/.*=/, "", $i); f += $i } } n++ }
			END { print "trace_migratepages calls=" n + 0 " migrated=" m + 0 " failed=" f + 0 }' \
			"$_tr/trace" >> "$_f"
		echo > "$_tr/trace"
	fi
	SEND_EXTRA="$SEND_EXTRA compact_$1.txt=$_f"
}

# Share (whole %) of the free pages that sit in free blocks of order 9 or more.
free_in_blocks_pct() {
	# No ^ in awk: busybox's may lack the math library.
	awk '{ w = 1; for (i = 5; i <= NF; i++) { p = $i * w; t += p; if (i >= 14) b += p; w *= 2 } }
		END { print (t ? int(100 * b / t) : 0) }' /proc/buddyinfo
}


# pcp_drain: the per-cpu lists' pages back to the buddy lists before manual
# compacts (see manual_compaction; mm.sh), until fewer than
# BENCH_PCP_DRAINED pages are left or 30 s.  The numbers go into the next
# compaction record.
pcp_drain() {
	PCP_NOTE="pcp_before $(pcp_pages)"
	_t0=$(now)
	pcp_drain_below "${BENCH_PCP_DRAINED:-4096}" 30
	PCP_NOTE="$PCP_NOTE
pcp_after_drain $(pcp_pages)
drain_s $(awk -v a="$_t0" -v b="$(now)" 'BEGIN { print b - a }')"
}

# manual_compaction: the floor is memory compacted before the stream, so
# write compact_memory again while less than BENCH_MANUAL_PCT% of the free
# memory is in free order-9 blocks, at most BENCH_MANUAL_WRITES times.  On
# 6.12 one write can end at once having done nothing: the free scanner
# starts at the top of the zone, where the pages frag freed last still sit
# on the per-cpu lists (not in the buddy lists), doubles its stride on
# every block it finds empty, and at a stride of 4 or more samples only
# the pages frag keeps (every 4th); it meets the migration scanner without
# a free page and the zone counts as complete.  Every write is recorded.
manual_compaction() {
	_i=1
	while :; do
		pcp_drain
		compact_memory "manual$_i"
		# Compaction leaves the pages it freed on the per-cpu lists too:
		# drain them again and record the state the stream will meet.
		pcp_drain
		{
			echo "$PCP_NOTE" | sed 's/^pcp_after_drain/drained_pcp/; /^pcp_before/d; /^drain_s/d'
			sed 's/^/buddy_drained /' /proc/buddyinfo
		} >> "$TMP/$W.compact_manual$_i"
		PCP_NOTE=""
		[ "$(free_in_blocks_pct)" -ge "${BENCH_MANUAL_PCT:-90}" ] && break
		[ "$_i" -ge "${BENCH_MANUAL_WRITES:-3}" ] && break
		_i=$((_i + 1))
	done
}

# mech_arm: load pcompact switched off (enabled=0) before fragmenting, so
# that switching it on is one write to a file, as the kernel's sysctl is:
# an insmod at switch-on started pcompact's first compaction 84-165 ms
# after it (busybox's insmod and the module's load, its kprobe and
# threads) against 1-8 ms for the sysctl write (6.1 under TCG,
# 2026-11-27), time the switch-on target counted against it.  On a server
# the module is loaded at boot.  While switched off its threads only
# sample the score.
mech_arm() {
	[ "$MECH" = module ] || return 0
	kmod_loaded pcompact && die "pcompact is still loaded from the previous workload"
	# shellcheck disable=SC2086
	/sbin/insmod "$PCOMPACT_KO" proactiveness="$PROACTIVENESS" $MODULE_ARGS enabled=0 ||
		die "insmod pcompact.ko proactiveness=$PROACTIVENESS $MODULE_ARGS enabled=0 failed"
}

# With BENCH_TRACE_STREAM=1, from switch-on to the end of the stream: the
# kernel's compaction outcomes (each direct compaction's priority, each
# zone's suitability, end status and deferral, and each batch of pages it
# migrated, by thread, and each block its free scanner sampled: pages looked
# at and taken) and, with pcompact loaded, its rounds, deferrals and contig
# calls: why allocations failed, and who moved the pages.  The free scanner's
# samples tell a call that met its scanners at the zone's start for want of
# targets (README, "The wall and frag's stride pattern").
STREAM_TRACE_EVENTS="compaction/mm_compaction_try_to_compact_pages
	compaction/mm_compaction_suitable compaction/mm_compaction_end
	compaction/mm_compaction_deferred compaction/mm_compaction_defer_compaction
	compaction/mm_compaction_defer_reset compaction/mm_compaction_kcompactd_wake
	compaction/mm_compaction_migratepages compaction/mm_compaction_isolate_freepages
	pcompact/pcompact_round_begin pcompact/pcompact_round_end
	pcompact/pcompact_defer pcompact/pcompact_range"
STREAM_TRACE_BUFFER_KB=8192
stream_trace_on() {
	[ "${BENCH_TRACE_STREAM:-0}" = 1 ] || return 0
	_events=""
	for e in $STREAM_TRACE_EVENTS; do
		case "$e" in pcompact/*) [ "$MECH" = module ] || continue ;; esac
		_events="$_events $e"
	done
	echo "$STREAM_TRACE_BUFFER_KB" > /sys/kernel/tracing/buffer_size_kb
	# shellcheck disable=SC2086
	trace_start $_events
}

# stream_trace_stop at the stream's end (shell builtins only: it allocates
# nothing); stream_trace_save copies the trace to tmpfs, up to the buffer's
# 8 MB, once khugehog has freed its pages, as does frag's map after the
# stream (workload_khugehog): see pcp_lists_smallest.
stream_trace_stop() {
	[ "${BENCH_TRACE_STREAM:-0}" = 1 ] || return 0
	_tr=/sys/kernel/tracing
	echo 0 > "$_tr/tracing_on"
	for e in $STREAM_TRACE_EVENTS; do
		[ -e "$_tr/events/$e/enable" ] && echo 0 > "$_tr/events/$e/enable"
	done
}

stream_trace_save() {
	[ "${BENCH_TRACE_STREAM:-0}" = 1 ] || return 0
	_tr=/sys/kernel/tracing
	grep -v '^#' "$_tr/trace" > "$TMP/$W.stream_trace"
	echo > "$_tr/trace"
	SEND_EXTRA="$SEND_EXTRA stream_trace.txt=$TMP/$W.stream_trace"
}

# With BENCH_BLOCK_FLAGS=1 the mechanism is switched off the moment the
# stream ends (block_flags_freeze: a stream stopped on failures ends right
# after its zone's last restart), and each pageblock's page flags
# are then read (/proc/kpageflags: KPF_LRU bit 5, KPF_BUDDY bit 10), for the
# deferral ladder's restart: __reset_isolation_pfn() samples every 8th page
# of a block from its start, an LRU page making it a migration source and a
# free buddy head a target.  Per block with either: its first PFN, the
# sampled LRU pages and buddy heads, and those among all its pages.  The
# snapshot after the stream and the second of sampling after it then see
# the mechanism switched off.
block_flags_freeze() {
	[ "${BENCH_BLOCK_FLAGS:-0}" = 1 ] || return 0
	case "$MECH" in
	sysctl) echo 0 > /proc/sys/vm/compaction_proactiveness ;;
	module) echo N > /sys/module/pcompact/parameters/enabled ;;
	esac
}

block_flags_save() {
	[ "${BENCH_BLOCK_FLAGS:-0}" = 1 ] || return 0
	[ -r /proc/kpageflags ] || die "--block-flags: no /proc/kpageflags"
	# One line of 8 flag words per 8 pages: the first is the sampled one.
	od -An -v -tx8 -w64 /proc/kpageflags | awk '
		function bit(word, digit, value) {
			return int((index("0123456789abcdef", substr(word, digit, 1)) - 1) / value) % 2
		}
		{
			b = int((NR - 1) / 64)
			sl[b] += bit($1, 15, 2)
			sb[b] += bit($1, 14, 4)
			for (i = 1; i <= NF; i++) {
				al[b] += bit($i, 15, 2)
				ab[b] += bit($i, 14, 4)
			}
			last = b
		}
		END {
			print "block_pfn,sampled_lru,sampled_buddy,lru_pages,buddy_heads"
			for (b = 0; b <= last; b++)
				if (al[b] + ab[b])
					printf "%d,%d,%d,%d,%d\n", b * 512, sl[b], sb[b], al[b], ab[b]
		}' > "$TMP/$W.block_flags" || die "cannot read /proc/kpageflags"
	SEND_EXTRA="$SEND_EXTRA block_flags.csv=$TMP/$W.block_flags"
}

# With BENCH_BLOCK_TYPES=1 khugehog maps each pageblock when its stream
# ends, in the allocating task before anything is freed (map_at_end=1):
# what the zone's last compaction left, types and skip marks included.
block_types_args() {
	if [ "${BENCH_BLOCK_TYPES:-0}" = 1 ]; then echo map_at_end=1; fi
}

block_types_save() {
	[ "${BENCH_BLOCK_TYPES:-0}" = 1 ] || return 0
	cp /proc/khugehog/block_map "$TMP/$W.block_map" &&
		cp /proc/khugehog/zone_compaction "$TMP/$W.zone_compaction" ||
		die "--block-types: khugehog left no map"
	SEND_EXTRA="$SEND_EXTRA block_map.csv=$TMP/$W.block_map"
	SEND_EXTRA="$SEND_EXTRA zone_compaction.csv=$TMP/$W.zone_compaction"
}

mech_on() {
	stream_trace_on
	mark mech_on
	case "$MECH" in
	none) ;;
	sysctl) echo "$PROACTIVENESS" > /proc/sys/vm/compaction_proactiveness ||
			die "cannot set vm.compaction_proactiveness" ;;
	module) echo Y > /sys/module/pcompact/parameters/enabled ||
			die "cannot switch pcompact on (enabled=Y)" ;;
	manual) manual_compaction ;;
	*) die "unknown mechanism $MECH" ;;
	esac
	mark mech_ready
}

mech_off() {
	kmod_loaded pcompact && /sbin/rmmod pcompact
	echo 0 > /proc/sys/vm/compaction_proactiveness
}

# wait_idle: let the mechanism run alone until IDLE_S seconds after it was
# switched on (a manual compaction that took longer is not waited for).
wait_idle() {
	_until=$(awk -v t="$(grep '^mech_on ' "$TMP/$W.events" | tail -n 1 | cut -d' ' -f2)" \
		-v i="$IDLE_S" 'BEGIN { print t + i }')
	while awk -v now="$(now)" -v u="$_until" 'BEGIN { exit !(now < u) }'; do
		sleep 0.1
	done
}

cleanup() {
	stop_sampler
	stop_frag
	kmod_loaded khugehog && /sbin/rmmod khugehog
	mech_off
}

# send_workload: every file the workload left, then its events.
send_workload() {
	for s in $SNAPSHOTS; do
		for k in vmstat buddyinfo kthreads pcompact pcp pagetypeinfo; do
			send "$W/${k}_$s.txt" "$TMP/$W.${k}_$s"
		done
	done
	send "$W/samples.txt" "$TMP/$W.samples"
	send "$W/events.txt" "$TMP/$W.events"
	for extra in $SEND_EXTRA; do
		send "$W/${extra%%=*}" "${extra#*=}"
	done
}

begin_workload() {
	W=$1
	pcp_lists_default
	SNAPSHOTS=""
	SEND_EXTRA=""
	: > "$TMP/$W.events"
	say "$W: $2"
}

# pcp_lists_smallest right after a stream's "after" snapshot, and
# pcp_lists_default as the next workload begins: a stream stopped at
# khugehog's margin leaves keep_free_mb above the high watermark, and the
# compaction still running then moves free pages onto the per-cpu lists
# (28 MB on one CPU in 3 GiB on 6.12), which the watermarks leave out; the
# kernel drains them for an allocation only after reclaim made progress,
# none here (no swap, no page cache), so the harness's own next fork or
# copy OOM-killed frag (README: the 1-node bench at 80).  At their smallest
# mark every free to the lists gives the excess back (read in 6.12:
# free_unref_page_commit()), and the periodic decay the rest.  Only the
# tail's samples see it; no metric reads them.  Builtins only: no fork.
PCP_FRACTION_BEFORE=""
pcp_lists_smallest() {
	[ -w "$PCP_FRACTION" ] || return 0
	[ -n "$PCP_FRACTION_BEFORE" ] || read -r PCP_FRACTION_BEFORE < "$PCP_FRACTION"
	echo "$PCP_FRACTION_SMALLEST" > "$PCP_FRACTION"
}
pcp_lists_default() {
	[ -n "$PCP_FRACTION_BEFORE" ] || return 0
	echo "$PCP_FRACTION_BEFORE" > "$PCP_FRACTION"
}

# end_allocation: the demand is over; record the state after it and let
# the sampler see TAIL_S seconds more before it stops.
end_allocation() {
	mark alloc_end
	snapshot after
	pcp_lists_smallest
	sleep "$TAIL_S"
	stop_sampler
}

# khugehog: back-to-back 2 MB allocations in the fragmented state.
# workload_khugehog [NAME ARGS]: NAME is the workload (default khugehog),
# ARGS its khugehog.ko parameters (default BENCH_KHH_ARGS): the rate sweep
# (sweepD: delay_us=D, max=BENCH_SWEEP_MAX) and the gfp=thp / gfp=light
# streams (khugehog-thp, khugehog-light) are the same run with other
# parameters.
workload_khugehog() {
	_khh_args="${2:-$BENCH_KHH_ARGS} $(block_types_args)"
	begin_workload "${1:-khugehog}" "fragmenting"
	settle
	mech_arm
	mark frag_start
	start_frag
	mark frag_ready
	say "$W: fragmented; allocating with $MECH ($_khh_args)"
	snapshot before
	start_sampler
	sleep "$LEAD_S"
	mech_on
	wait_idle
	# The head start's own snapshot: what the compactors and kswapd did
	# before the stream (why a mechanism did not act).
	snapshot start
	mark alloc_start
	# shellcheck disable=SC2086
	$ALLOC_PIN /sbin/insmod "$KHH_KO" $_khh_args || die "insmod khugehog.ko $_khh_args failed"
	block_flags_freeze
	end_allocation
	stream_trace_stop
	block_flags_save
	cp /proc/khugehog/summary "$TMP/khh.summary"
	cp /proc/khugehog/samples "$TMP/khh.samples"
	block_types_save
	/sbin/rmmod khugehog || die "rmmod khugehog failed"
	stream_trace_save
	mark map_after
	frag_map_after
	stop_frag
	mech_off
	SEND_EXTRA="$SEND_EXTRA summary.txt=$TMP/khh.summary samples.csv=$TMP/khh.samples
		map_before.csv=$TMP/map.csv map_after.csv=$TMP/map.csv.1
		frag_out.txt=$TMP/$W.frag_out"
	send_workload
}

# node_scores_now WHAT: the node scores now, as the host computes them
# (metrics.py): zone score = present * extfrag(9) / (node present + 1), node
# = sum.  WHAT is max (the highest), list (every node's with memory,
# "S0;S1", in node order: a node without memory has no buddyinfo line and
# no place in it) or both ("MAX LIST", from one reading; the list "-" if
# empty, so that no field goes missing).  No ^ in awk: busybox's may lack
# the math library.
node_scores_now() {
	awk -v what="$1" 'FNR == NR {
		if ($1 == "Node") { node = $2; sub(",", "", node); zone = $4 }
		else if ($1 == "present") { p[node " " zone] = $2; np[node] += $2 }
		next }
	{ node = $2; sub(",", "", node); zone = $4; w = 1; free = 0; suit = 0
	  if (node + 0 > last) last = node + 0
	  for (i = 5; i <= NF; i++) { free += $i * w; if (i >= 14) suit += $i * w / 512; w *= 2 }
	  ef = free ? int((free - suit * 512) * 100 / free) : 0
	  s[node] += int(p[node " " zone] * ef / (np[node] + 1)) }
	END {
		m = 0; out = ""
		for (n = 0; n <= last; n++) if (n in s) {
			if (s[n] > m) m = s[n]
			out = out (out == "" ? "" : ";") s[n]
		}
		if (what == "max") print m
		else if (what == "list") print out
		else print m, (out == "" ? "-" : out) }' "$TMP/zones" /proc/buddyinfo
}

max_node_score() {
	node_scores_now max
}

# burst_size LOW: 80% of the free order-9 blocks there are when the free
# memory (buddy lists) is fragmented to score LOW: the stock the mechanism
# should have built by then.
burst_size() {
	awk -v low="$1" '{ w = 1; for (i = 5; i <= NF; i++) { t += $i * w; w *= 2 } }
		END { n = int(0.8 * t * (100 - low) / 100 / 512); print (n > 0 ? n : 1) }' \
		/proc/buddyinfo
}

# compactor_run_ns: CPU time of every kcompactd and pcompactd thread, summed.
compactor_run_ns() {
	kthreads | awk '$1 ~ /^(kcompactd|pcompactd)/ { s += $5 } END { printf "%.0f\n", s }'
}

# wait_burst_ready LOW HIGH LIMIT_S: wait until every node is at or below
# LOW ("low"), or at or below HIGH with the compactors idle ("idle": under 10 ms
# of CPU in a whole second; both check the score every half second, which
# costs microseconds).  Between the thresholds neither mechanism starts, so
# waiting there for LOW waits for nothing.  Prints low, idle or timeout.
wait_burst_ready() {
	_end=$(awk -v t="$(now)" -v l="$3" 'BEGIN { print t + l }')
	_win_t=$(now)
	_win_ns=$(compactor_run_ns)
	while :; do
		_score=$(max_node_score)
		[ "$_score" -le "$1" ] && { echo low; return; }
		_t=$(now)
		if awk -v a="$_win_t" -v b="$_t" 'BEGIN { exit !(b - a >= 1) }'; then
			_ns=$(compactor_run_ns)
			if [ "$_score" -le "$2" ] && [ $((_ns - _win_ns)) -lt 10000000 ]; then
				echo idle
				return
			fi
			_win_t=$_t
			_win_ns=$_ns
		fi
		awk -v t="$_t" -v e="$_end" 'BEGIN { exit !(t >= e) }' && { echo timeout; return; }
		sleep 0.1
	done
}

# bursts: sized bursts, repeated.  Fragment, switch the mechanism on, then
# BENCH_BURSTS times: wait until every node is at or below the low
# threshold (BENCH_BURST_LOW), or at or below the high one (BENCH_BURST_HIGH) with
# the compactors idle (timed, at most BENCH_BURST_WAIT_S), allocate
# 80% of the stock it should have built, free it, fragment again with the
# mechanism still on, pause BENCH_BURST_PAUSE_S.  Does the compactor
# refill between demands?
workload_bursts() {
	begin_workload bursts "fragmenting"
	settle
	mech_arm
	mark frag_start
	start_frag
	mark frag_ready
	say "bursts: fragmented; ${BENCH_BURSTS:-3} bursts with $MECH"
	snapshot before
	start_sampler
	sleep "$LEAD_S"
	mech_on
	_low=${BENCH_BURST_LOW:-80}
	_high=${BENCH_BURST_HIGH:-90}
	_k=1
	while [ "$_k" -le "${BENCH_BURSTS:-3}" ]; do
		mark "burst${_k}_wait"
		_t0=$(now)
		_ready=$(wait_burst_ready "$_low" "$_high" "${BENCH_BURST_WAIT_S:-60}")
		_reached=0
		[ "$_ready" = low ] && _reached=1
		_max=$(burst_size "$_low")
		# The head start ends at the first burst: the compactors' CPU up to
		# here tells a node the mechanism tried in vain (its outcome) from
		# one it never ran on (a void run).
		[ "$_k" -gt 1 ] || snapshot start
		mark "burst${_k}_start"
		# shellcheck disable=SC2086
		$ALLOC_PIN /sbin/insmod "$KHH_KO" $BENCH_KHH_ARGS max="$_max" ||
			die "insmod khugehog.ko max=$_max failed"
		mark "burst${_k}_end"
		{
			echo "burst $_k"
			echo "low $_low"
			echo "reached_low $_reached"
			echo "ready $_ready"
			echo "high $_high"
			echo "wait_s $(awk -v a="$_t0" -v b="$(now)" 'BEGIN { print b - a }')"
			echo "max $_max"
		} > "$TMP/burst$_k.info"
		cp /proc/khugehog/summary "$TMP/burst$_k.summary"
		cp /proc/khugehog/samples "$TMP/burst$_k.samples"
		/sbin/rmmod khugehog || die "rmmod khugehog failed"
		SEND_EXTRA="$SEND_EXTRA burst${_k}_info.txt=$TMP/burst$_k.info
			burst${_k}_summary.txt=$TMP/burst$_k.summary
			burst${_k}_samples.csv=$TMP/burst$_k.samples"
		if [ "$_k" -lt "${BENCH_BURSTS:-3}" ]; then
			mark "burst${_k}_refrag"
			stop_frag
			start_frag
			sleep "${BENCH_BURST_PAUSE_S:-5}"
		fi
		_k=$((_k + 1))
	done
	end_allocation
	stop_frag
	mech_off
	send_workload
}

# thp: a THP-backed mapping written page by page (a JVM heap pre-touch).
workload_thp() {
	begin_workload thp "fragmenting"
	settle
	mech_arm
	mark frag_start
	start_frag
	mark frag_ready
	say "thp: fragmented; touching ${BENCH_THP_MB} MiB with $MECH"
	snapshot before
	start_sampler
	sleep "$LEAD_S"
	mech_on
	wait_idle
	mark alloc_start
	$ALLOC_PIN "$FRAG" --thp-touch "${BENCH_THP_MB}M" --hold-seconds 0 > "$TMP/thp.out" 2>&1 ||
		die "frag --thp-touch failed: $(tail -n 2 "$TMP/thp.out" | tr '\n' ' ')"
	end_allocation
	stop_frag
	mech_off
	SEND_EXTRA="$SEND_EXTRA thp_touch.txt=$TMP/thp.out frag_out.txt=$TMP/$W.frag_out"
	send_workload
}

# pin: unmovable fragmentation (khugehog pin=1 keeps the last quarter of
# every 2 MB block it can get), then watch what the mechanism does for
# BENCH_OBSERVE_S seconds (defer, back off), then the THP touch.
workload_pin() {
	begin_workload pin "pinning unmovable pages"
	settle
	mech_arm
	mark frag_start
	/sbin/insmod "$KHH_KO" pin=1 || die "insmod khugehog.ko pin=1 failed"
	cp /proc/khugehog/summary "$TMP/pin.summary"
	mark frag_ready
	say "pin: pinned; watching $MECH for ${BENCH_OBSERVE_S}s"
	snapshot before
	start_sampler
	sleep "$LEAD_S"
	mech_on
	mark observe_start
	sleep "$BENCH_OBSERVE_S"
	mark observe_end
	snapshot mid
	say "pin: touching ${BENCH_THP_MB} MiB"
	mark alloc_start
	$ALLOC_PIN "$FRAG" --thp-touch "${BENCH_THP_MB}M" --hold-seconds 0 > "$TMP/pin-thp.out" 2>&1 ||
		die "frag --thp-touch failed: $(tail -n 2 "$TMP/pin-thp.out" | tr '\n' ' ')"
	end_allocation
	/sbin/rmmod khugehog || die "rmmod khugehog failed"
	mech_off
	SEND_EXTRA="$SEND_EXTRA pin_summary.txt=$TMP/pin.summary thp_touch.txt=$TMP/pin-thp.out"
	send_workload
}

# The machine and its settings, once per scenario.
# zones_snapshot: $TMP/zones, the lines the score needs (zone headers and
# present pages) and where each zone starts (scripts/reset-walk).
zones_snapshot() {
	awk '/^Node/ || $1 == "present" || $1 == "managed" || $1 == "spanned" ||
		$1 == "start_pfn:" { print }' \
		/proc/zoneinfo > "$TMP/zones"
}

send_environment() {
	{
		echo "scenario ${BENCH_SCENARIO:-?}"
		echo "mechanism $MECH"
		echo "proactiveness $PROACTIVENESS"
		echo "release $(uname -r)"
		echo "cpus $(grep -c '^processor' /proc/cpuinfo)"
		echo "nodes_online $(cat /sys/devices/system/node/online 2>/dev/null)"
		echo "cmdline $(cat /proc/cmdline)"
		echo "mem_total_kb $(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo)"
		for s in compaction_proactiveness watermark_boost_factor extfrag_threshold \
			min_free_kbytes compact_unevictable_allowed; do
			echo "sysctl_$s $(cat /proc/sys/vm/$s 2>/dev/null)"
		done
		for s in enabled defrag; do
			echo "thp_$s $(cat /sys/kernel/mm/transparent_hugepage/$s 2>/dev/null)"
		done
		echo "alloc_cpu $ALLOC_CPU"
		echo "khugehog_args $BENCH_KHH_ARGS"
		echo "sweep_max ${BENCH_SWEEP_MAX:-512}"
		echo "thp_mb $BENCH_THP_MB"
		echo "sample_s $SAMPLE_S"
		echo "module_switch enabled"
		echo "pcp_after_stream smallest"
		echo "pcp_fraction_after_stream $PCP_FRACTION_SMALLEST"
	} > "$TMP/env"
	zones_snapshot
	send env.txt "$TMP/env"
	send zones.txt "$TMP/zones"
}

# ALLOC_PIN: the command prefix that pins the allocation streams (khugehog's
# insmod, the THP touch) to one CPU: BENCH_ALLOC_CPU node0 (default: the
# first CPU of node 0, so kcompactd0/pcompactd0 share it), a CPU number,
# or none.
set_alloc_pin() {
	ALLOC_PIN=""
	ALLOC_CPU=none
	case "${BENCH_ALLOC_CPU:-node0}" in
	none) return 0 ;;
	node0) ALLOC_CPU=$(sed 's/[-,].*//' /sys/devices/system/node/node0/cpulist 2>/dev/null) ;;
	*) ALLOC_CPU=$BENCH_ALLOC_CPU ;;
	esac
	command -v taskset > /dev/null || die "no taskset to pin the allocator to CPU $ALLOC_CPU"
	ALLOC_PIN="taskset -c ${ALLOC_CPU:-0}"
}

main() {
	[ "$(id -u)" = 0 ] || die "needs root"
	set_alloc_pin
	for f in "$KHH_KO" "$FRAG"; do
		[ -e "$f" ] || die "$f is missing"
	done
	[ "$MECH" != module ] || [ -e "$PCOMPACT_KO" ] || die "$PCOMPACT_KO is missing"
	rm -rf "$TMP"
	mkdir -p "$TMP" || die "cannot create $TMP"
	save_settings
	# THP only where asked for (madvise), as in the seed's Java test.
	echo madvise > "$THP/enabled"
	echo madvise > "$THP/defrag"
	settle
	send_environment
	for w in $BENCH_WORKLOADS; do
		case "$w" in
		khugehog) workload_khugehog ;;
		sweep[0-9]*)
			workload_khugehog "$w" \
				"$BENCH_KHH_ARGS delay_us=${w#sweep} max=${BENCH_SWEEP_MAX:-512}" ;;
		khugehog-thp|khugehog-light)
			workload_khugehog "$w" "$(echo "$BENCH_KHH_ARGS" |
				sed "s/gfp=[a-z]*/gfp=${w#khugehog-}/")" ;;
		thp) workload_thp ;;
		bursts) workload_bursts ;;
		pin) workload_pin ;;
		*) die "unknown workload $w" ;;
		esac
	done
	restore_settings
	echo "=== done ===" >&3
}

# scripts/compactor-cost-guest.sh sources this file for its functions.
[ -n "${BENCH_GUEST_LIBRARY:-}" ] || main
