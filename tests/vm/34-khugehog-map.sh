#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# 34-khugehog-map: with map_at_end=1 khugehog maps every pageblock when its
# run ends (/proc/khugehog/block_map) and each zone's compaction state
# (zone_compaction); without it neither file exists.  The map is checked
# against what the kernel itself reports of the same memory, read right
# after the run in an otherwise idle guest:
# - per zone, its blocks of each migratetype are /proc/pagetypeinfo's
#   "Number of blocks type" counts (the type bits read right);
# - per zone, its blocks that are all within free buddies are the free
#   order-9 pages plus twice the free order-10 ones of /proc/buddyinfo,
#   and those with a free buddy head among the reset's samples are the
#   order-9 and order-10 ones,
#   and its free buddy pages over all zones are NR_FREE_PAGES as the run
#   ended (summary's free_pages_end);
# - its LRU pages are the LRU counters of /proc/vmstat;
# - the run's held 2 MB pages (gfp=thp: compound, as pageblock_skip_persistent()
#   needs; GFP_KERNEL's are not) each make a block "huge", with no free or
#   LRU page in it, and are the map's khugehog pages;
# - with gfp=kernel, whose 2 MB pages are not compound (their tail pages
#   at refcount 0), those are khugehog's pages, not free ones off the lists;
# - each zone's row has the zone's start and end from /proc/zoneinfo and
#   its scanners' cached PFNs within the zone, give or take a block (or
#   0, never set).
# - after a run on fragmented memory that ended on failed allocations,
#   each zone's deferral fields (considered, defer_shift, order_failed) are
#   what the kernel's compaction deferral events traced for the zone in
#   the allocating task's (insmod's) last event or in a later one of
#   another task (kcompactd); considered may also be 1 << defer_shift,
#   which compaction_deferred() sets without an event when it stops
#   deferring.
# The skip marks are not checked: nothing the kernel reports tells them.
TIMEOUT=300
. /pc/tests/vm/lib.sh

KO=/pc/khugehog/khugehog.ko
SUMMARY=/proc/khugehog/summary
MAP=/proc/khugehog/block_map
ZONES=/proc/khugehog/zone_compaction
HELD=64
[ -f "$KO" ] || fail "$KO is missing"
trap 'rmmod khugehog 2>/dev/null' EXIT
kv() { awk -v k="$1" '$1 == k { print $2; f = 1 } END { exit !f }' "$SUMMARY"; }

insmod "$KO" max=1 free_immediately=1 || fail "insmod khugehog"
[ -e "$MAP" ] || [ -e "$ZONES" ] && fail "a map without map_at_end=1"
kv map_blocks >/dev/null && fail "summary has map_blocks without map_at_end=1"
rmmod khugehog || fail "rmmod khugehog"

sync
echo 3 > /proc/sys/vm/drop_caches
echo 1 > /proc/sys/vm/compact_memory
drain_pcp_lists || note "per-cpu lists still hold $(pcp_pages) pages"
insmod "$KO" max=$HELD gfp=thp map_at_end=1 ||
	fail "insmod khugehog max=$HELD gfp=thp map_at_end=1"
# The kernel's own view, as soon as the run is over.
cp /proc/pagetypeinfo /tmp/map-pagetypeinfo
cp /proc/buddyinfo /tmp/map-buddyinfo
cp /proc/vmstat /tmp/map-vmstat
cp /proc/zoneinfo /tmp/map-zoneinfo
cp "$MAP" /tmp/map-blocks || fail "cannot read $MAP"
cp "$ZONES" /tmp/map-zones || fail "cannot read $ZONES"
[ "$(kv count)" = $HELD ] || fail "count $(kv count), expected $HELD"
note "map: $(grep '^map_' "$SUMMARY" | tr '\n' ' ')"
[ "$(kv map_dropped)" = 0 ] || fail "map_dropped $(kv map_dropped)"
rows=$(($(wc -l < /tmp/map-blocks) - 1))
[ "$(kv map_blocks)" = "$rows" ] || fail "map_blocks $(kv map_blocks), $rows rows"

head -n 1 /tmp/map-blocks | grep -qx \
	'node,zone,block_pfn,migratetype,skip,huge,sampled_lru,sampled_buddy,lru_pages,buddy_pages,loose_pages,khugehog_pages' ||
	fail "block_map header: $(head -n 1 /tmp/map-blocks)"
head -n 1 /tmp/map-zones | grep -qx \
	'node,zone,start_pfn,end_pfn,cached_migrate_async_pfn,cached_migrate_sync_pfn,cached_free_pfn,init_migrate_pfn,init_free_pfn,considered,defer_shift,order_failed,blockskip_flush' ||
	fail "zone_compaction header: $(head -n 1 /tmp/map-zones)"

# Per zone and type: the map's blocks against pagetypeinfo's.  The two
# reads are a moment apart, so a block or two may change type between them.
awk '
	FNR == 1 { file++ }
	file == 1 && /^Number of blocks type/ { for (i = 5; i <= NF; i++) col[i] = $i; on = 1; next }
	file == 1 && /^(Free pages count|Page block|Number of mixed blocks)/ { on = 0 }
	file == 1 && on && $1 == "Node" {
		z = $2 $4
		sub(",", "", z)
		for (i = 5; i <= NF; i++) want[z "/" col[i]] = $i
		zones[z] = 1
	}
	file == 2 && FNR > 1 {
		split($0, f, ",")
		got[f[1] f[2] "/" f[4]]++
		known[f[4]] = 1
		zones[f[1] f[2]] = 1
	}
	END {
		for (k in got) if (!(k in want)) { print "type not in pagetypeinfo: " k; bad = 1 }
		for (k in want) {
			d = want[k] - got[k]
			off += d < 0 ? -d : d
			if (d) print "# " k ": pagetypeinfo " want[k] ", map " got[k] + 0
		}
		if (off > 2) { print off " blocks of difference"; bad = 1 }
		exit bad
	}' /tmp/map-pagetypeinfo /tmp/map-blocks || fail "block types differ from /proc/pagetypeinfo"

# Whole free blocks per zone against buddyinfo (order 9, and 10 twice),
# and the reset's samples in them: a free order-9 or order-10 buddy has its
# head at the block's first page, the one sampled page of the block that
# is a buddy head; the second block of an order-10 buddy has none.
awk '
	FNR == 1 { file++ }
	file == 1 {
		z = $2 $4; sub(",", "", z)
		want[z] = $(5 + 9) + 2 * $(5 + 10); heads[z] = $(5 + 9) + $(5 + 10)
	}
	file == 2 && FNR > 1 {
		split($0, f, ",")
		if (f[10] == 512) { got[f[1] f[2]]++; if (f[8] == 1) sampled[f[1] f[2]]++ }
	}
	END {
		for (z in want) {
			d = want[z] - got[z]; h = heads[z] - sampled[z]
			print "# " z ": buddyinfo " want[z] " whole free blocks, " heads[z] " heads; map " \
			      got[z] + 0 ", " sampled[z] + 0 " with a sampled head"
			if (d > 2 || d < -2 || h > 2 || h < -2) bad = 1
		}
		exit bad
	}' /tmp/map-buddyinfo /tmp/map-blocks || fail "whole free blocks differ from /proc/buddyinfo"

# Free and LRU pages over all zones against the kernel's counters.
free_end=$(kv free_pages_end)
lru=$(awk '$1 ~ /^nr_(in)?active_(anon|file)$/ || $1 == "nr_unevictable" { s += $2 } END { print s }' /tmp/map-vmstat)
awk -F, -v free="$free_end" -v lru="$lru" '
	function off(a, b, slack) { return (a - b > slack || b - a > slack) }
	NR > 1 {
		buddy += $10; lrup += $9; loose += $11; held += $12
		if ($7 > $9 || $8 > 64 || $7 > 64 || $10 + $9 + $11 + $12 > 512) { print "impossible row: " $0; bad = 1 }
		if ($6 == 1)
			huge++
		if ($12 == 512 && $9 + $10) { print "a held block with free or LRU pages: " $0; bad = 1 }
	}
	END {
		print "# map: " buddy " free buddy pages (free_pages_end " free "), " lrup \
		      " LRU pages (vmstat " lru "), " loose " free off the lists, " huge " huge blocks"
		if (off(buddy, free, free / 100 + 512)) { print "free buddy pages off"; bad = 1 }
		if (off(lrup, lru, lru / 20 + 256)) { print "LRU pages off"; bad = 1 }
		if (huge < '"$HELD"' || huge > '"$HELD"' + 16) { print huge " huge blocks for '"$HELD"' held"; bad = 1 }
		if (held != '"$HELD"' * 512) { print held " khugehog pages for '"$HELD"' held"; bad = 1 }
		exit bad
	}' /tmp/map-blocks || fail "the map's page counts disagree with the kernel's"

# One row per zone with pages, its span and scanners inside it.
awk -F, '
	FNR == 1 { file++ }
	file == 1 && /^Node/ { z = $0; sub(/^Node /, "", z); sub(/, zone */, "", z) }
	file == 1 && $1 ~ /^ *spanned/ { split($0, a, " "); span[z] = a[2] }
	file == 1 && $1 ~ /^ *present/ { split($0, a, " "); present[z] = a[2] }
	file == 1 && $1 ~ /^ *start_pfn:/ { split($0, a, " "); start[z] = a[2] }
	file == 2 && FNR > 1 {
		z = $1 $2
		seen[z] = 1
		if ($3 != start[z] || $4 != start[z] + span[z]) { print "span of " z ": " $0; bad = 1 }
		# 0: not set since boot (compact_zone() starts from the ends then).
		# The kernel may leave a cached PFN a block past either end of a
		# zone that is not block-aligned, and resets it when it next starts.
		for (i = 5; i <= 7; i++)
			if ($i != 0 && ($i < $3 - 512 || $i > $4 + 512)) { print "scanner outside " z ": " $0; bad = 1 }
	}
	END {
		for (z in present) if (present[z] > 0 && !(z in seen)) { print "no row for " z; bad = 1 }
		exit bad
	}' /tmp/map-zoneinfo /tmp/map-zones || fail "zone_compaction disagrees with /proc/zoneinfo"
sed 's/^/# /' /tmp/map-zones
rmmod khugehog || fail "rmmod khugehog"

# GFP_KERNEL's 2 MB pages: khugehog's, not loose.  Counting their tail
# pages as free would make at least 511 loose pages per held page.  The
# first run's pages just freed may wait on the per-cpu lists: drained.
drain_pcp_lists || note "per-cpu lists still hold $(pcp_pages) pages"
insmod "$KO" max=$HELD map_at_end=1 || fail "insmod khugehog max=$HELD map_at_end=1"
awk -F, 'NR > 1 { held += $12; loose += $11 }
	END {
		print "# gfp=kernel: " held " khugehog pages, " loose " free off the lists"
		exit !(held == '"$HELD"' * 512 && loose < '"$HELD"' * 511 / 2)
	}' "$MAP" || fail "gfp=kernel: the held pages are not khugehog's in the map"
rmmod khugehog || fail "rmmod khugehog"

# The deferral fields: a GFP_KERNEL stream on fragmented memory until 8
# allocations in a row fail (sync compaction failing defers the zone), its
# compaction deferral events traced.  Bound to the last node, without the
# free memory margin (the other node keeps the guest alive, as in test 30),
# so that the run ends on failures: with the margin 6.1's compaction kept
# succeeding until the margin stopped the run, on frag's default pattern
# and on phys alike.  The kernel's proactive compaction is
# off meanwhile so that kcompactd touches the zones less.
proactiveness=$(cat /proc/sys/vm/compaction_proactiveness)
tr=/sys/kernel/tracing
events="compaction/mm_compaction_deferred compaction/mm_compaction_defer_compaction compaction/mm_compaction_defer_reset"
# The tests after this one need tracing on and these events off.
trap 'rmmod khugehog 2>/dev/null; echo "$proactiveness" > /proc/sys/vm/compaction_proactiveness
	trace_events_off $events 2>/dev/null
	echo 1 > $tr/tracing_on
	[ -n "$FRAG_PID" ] && kill -TERM "$FRAG_PID" 2>/dev/null' EXIT
echo 0 > /proc/sys/vm/compaction_proactiveness
start_frag
node=$(nodes_with_memory | tail -n 1)
# shellcheck disable=SC2086 # one word per event
trace_from_empty $events
# By pid: the trace may not know insmod's name ("<...>-499"), and the
# shell may fork again for a command in the background.
args="node=$node keep_free_mb=0 map_at_end=1 stop_after_failures=8"
sh -c 'echo $$ > /tmp/map-insmod-pid; exec insmod "$1" $2' sh "$KO" "$args" || fail "insmod khugehog $args"
insmod_pid=$(cat /tmp/map-insmod-pid)
echo 0 > $tr/tracing_on
grep -v '^#' $tr/trace > /tmp/map-defer-trace
# shellcheck disable=SC2086 # one word per event
trace_events_off $events
echo 1 > $tr/tracing_on
note "$(wc -l < /tmp/map-defer-trace) deferral events traced, insmod pid $insmod_pid; by task: $(awk '{ n[$1]++ } END { for (t in n) printf "%s %d ", t, n[t] }' /tmp/map-defer-trace)"
cp "$ZONES" /tmp/map-defer-zones || fail "cannot read $ZONES"
note "fragmented run: $(grep -E '^(count|failures|stop_reason) ' "$SUMMARY" | tr '\n' ' ')"
[ "$(kv failures)" -gt 0 ] || fail "the run on fragmented memory had no failure: $(kv stop_reason)"
rmmod khugehog || fail "rmmod khugehog"
stop_frag || fail "frag exit status $?"
FRAG_PID=
echo "$proactiveness" > /proc/sys/vm/compaction_proactiveness
awk '
	FNR == 1 { file++ }
	file == 1 && / mm_compaction_defe/ {
		for (i = 1; i <= NF; i++) {
			split($i, kv, "=")
			if (kv[1] == "node") z = kv[2]
			else if (kv[1] == "zone") z = z kv[2]
			else if (kv[1] == "order_failed") failed = kv[2]
			else if (kv[1] == "consider") considered = kv[2]
			else if (kv[1] == "limit") limit = kv[2]
		}
		# The map was read after the last event of insmod: it shows the
		# state that event traced or one a later event of another task did.
		if ($1 ~ "-" pid "$")
			states[z] = considered " " limit " " failed
		else if (z in states)
			states[z] = states[z] "|" considered " " limit " " failed
		next
	}
	file == 2 && FNR > 1 {
		z = $1 $2
		if (!(z in states)) { print "# " z ": no event of the run"; next }
		# No ^: busybox awk may lack its math library.
		for (limit = 1, i = 0; i < $11; i++)
			limit *= 2
		got = $10 " " limit " " $12
		print "# " z ": map considered, limit, order_failed " got "; traced at the end of the run and after " states[z]
		compared++
		n = split(states[z], traced, "|")
		for (match_ = 0, i = 1; i <= n && !match_; i++) {
			split(traced[i], w, " ")
			# considered may be the limit: compaction_deferred() sets
			# it so without an event.
			match_ = limit == w[2] && $12 == w[3] && ($10 == w[1] || $10 == w[2])
		}
		if (!match_) { print "deferral state of " z ": map " got ", traced " states[z]; bad = 1 }
	}
	END {
		if (!compared) { print "no zone to compare"; bad = 1 }
		exit bad
	}' pid=$insmod_pid FS=' ' /tmp/map-defer-trace FS=, /tmp/map-defer-zones ||
	fail "zone_compaction's deferral fields disagree with the traced deferral events"
[ -e /proc/khugehog ] && fail "/proc/khugehog still exists after rmmod"
check_dmesg_clean
exit 0
