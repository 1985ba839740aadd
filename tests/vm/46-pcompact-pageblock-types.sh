# SPDX-License-Identifier: GPL-2.0
# alloc_contig_range() gives an emptied range back as MIGRATE_MOVABLE
# pageblocks (6.1, 6.12) and, on a HIGHATOMIC block, leaks the reserve's
# accounting.  The engine empties only MOVABLE pageblocks, so rounds must not
# turn a block of another type that holds pages movable: on the nodes they
# work on, the Unmovable, Reclaimable and HighAtomic block counts
# (/proc/pagetypeinfo) may fall only by blocks that were free as a whole
# before the rounds.  Those the kernel itself may re-type: since 6.10 a free
# block of 2 MB or more that merges with a free neighbour of another type
# gives the neighbour its type (__free_one_page(), "Match buddy type"), so any
# free next to it can turn it movable, and alloc_contig_range()'s drain of
# the per-CPU lists can complete a free block first (6.12 lost one such
# block with no whole one free before).  So a type may lose one block more.
# (The old engine, which emptied such blocks, lost two Reclaimable blocks
# beyond the one free there on 6.12.)  The counts before and after are
# printed: they are the figures the README quotes.
TIMEOUT=400
. /pc/tests/vm/lib.sh

# pagetypeinfo_blocks NID TYPE: pageblocks of TYPE on node NID, all zones
# (the file repeats its free-pages and block-count sections per node).
pagetypeinfo_blocks() {
	awk -v n="$1" -v t="$2" '
		/^Number of blocks type/ { for (i = 1; i <= NF; i++) col[$i] = i; on = 1; next }
		/^(Free pages count|Page block)/ { on = 0 }
		on && $1 == "Node" && $2 == n "," { s += $(col[t]) }
		END { print s + 0 }' /proc/pagetypeinfo
}
# free_whole_blocks NID TYPE: free blocks of TYPE on node NID that are whole
# pageblocks (free pages of order 9, and of order 10 counted twice).
free_whole_blocks() {
	awk -v n="$1" -v t="$2" '
		$1 == "Node" && $2 == n "," && $5 == "type" && $6 == t { s += $16 + 2 * $17 }
		END { print s + 0 }' /proc/pagetypeinfo
}
types="Unmovable Movable Reclaimable HighAtomic"
counts() { for t in $types; do printf '%s=%s ' "$t" "$(pagetypeinfo_blocks "$1" "$t")"; done; }
free_counts() { for t in $types; do printf '%s=%s ' "$t" "$(free_whole_blocks "$1" "$t")"; done; }
# field NAME LIST: the value of NAME=value in LIST.
field() { echo "$2" | tr ' ' '\n' | awk -F= -v t="$1" '$1 == t { print $2 }'; }

insmod /pc/module/pcompact.ko enabled=0 engine=contig || fail "insmod"
start_frag
fragmented_nodes 70
for nid in $ABOVE; do
	eval "before_$nid='$(counts "$nid")'"
	eval "free_$nid='$(free_counts "$nid")'"
	note "node $nid before: $(counts "$nid")free whole blocks: $(free_counts "$nid")"
done
echo 0 > $PC_PARAM/wmark_low || fail "wmark_low 0"
echo 1 > $PC_PARAM/enabled
for nid in $ABOVE; do
	wait_compaction_end $nid 0
done
echo 0 > $PC_PARAM/enabled
for nid in $ABOVE; do
	note "node $nid after:  $(counts "$nid") blocks_freed=$(node_stat $nid blocks_freed) skipped_type=$(node_stat $nid skipped_type) skipped_unmovable=$(node_stat $nid skipped_unmovable)"
	[ "$(node_stat $nid blocks_freed)" -gt 0 ] || fail "node $nid freed nothing: $(node_summary $nid)"
	for t in Unmovable Reclaimable HighAtomic; do
		b=$(field "$t" "$(eval "echo \$before_$nid")")
		f=$(field "$t" "$(eval "echo \$free_$nid")")
		a=$(pagetypeinfo_blocks "$nid" "$t")
		[ "$a" -ge $((b - f - 1)) ] ||
			fail "node $nid: $t pageblocks fell from $b to $a: more than the $f that were free and one"
	done
done
stop_frag || fail "frag exit status $?"
rmmod pcompact || fail "rmmod"
check_dmesg_clean
