# SPDX-License-Identifier: GPL-2.0
# vm.compact_unevictable_allowed=0 keeps compaction off unevictable
# (mlocked) pages; alloc_contig_range() ignores it, so the engine must honour
# it itself.  frag --mlock locks its kept pages: with the sysctl at 0 their
# physical map (pagemap) must not change however long pcompact works, and
# with it at 1 the same pages do move (the test can see a move).
TIMEOUT=500
. /pc/tests/vm/lib.sh

SYSCTL=/proc/sys/vm/compact_unevictable_allowed
old=$(cat $SYSCTL)
echo 0 > $SYSCTL || fail "write $SYSCTL"
insmod /pc/module/pcompact.ko enabled=0 engine=contig || fail "insmod"
start_frag --mlock --map /tmp/mlock-map.csv
grep -q 'mlock=1' "$FRAG_OUT" || fail "frag did not lock its pages"
fragmented_nodes 70
echo 1 > $PC_PARAM/enabled
for nid in $ABOVE; do
	wait_compaction_end $nid $LOW
done
kill -USR1 "$FRAG_PID"
wait_for "[ -s /tmp/mlock-map.csv.1 ]" 60 || fail "frag wrote no second map"
for nid in $ABOVE; do
	note "allowed=0 node $nid: score $(node_stat $nid score) blocks_freed $(node_stat $nid blocks_freed) skipped_unmovable $(node_stat $nid skipped_unmovable)"
done
cmp -s /tmp/mlock-map.csv /tmp/mlock-map.csv.1 ||
	fail "mlocked pages moved with compact_unevictable_allowed=0"

echo 1 > $SYSCTL
echo "$LOW" > $PC_PARAM/wmark_low	# a parameter write ends the deferral
for nid in $ABOVE; do
	wait_for "[ \$(node_stat $nid score) -le $LOW ]" 300 ||
		fail "node $nid still at $(node_stat $nid score) with unevictable pages allowed"
done
kill -USR1 "$FRAG_PID"
wait_for "[ -s /tmp/mlock-map.csv.2 ]" 60 || fail "frag wrote no third map"
cmp -s /tmp/mlock-map.csv /tmp/mlock-map.csv.2 &&
	fail "no mlocked page moved even with compact_unevictable_allowed=1"
note "allowed=1: pages moved, blocks_freed $(node_stat_sum blocks_freed)"
stop_frag || fail "frag exit status $?"
rmmod pcompact || fail "rmmod"
echo "$old" > $SYSCTL
check_dmesg_clean
