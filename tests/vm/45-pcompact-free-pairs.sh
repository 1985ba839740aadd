# SPDX-License-Identifier: GPL-2.0
# Already-free memory is no work.  With part of memory fragmented by frag and
# the rest free in whole 4 MB pairs, rounds that aim at a score of 0 must
# empty only blocks that hold pages: at most the 2 MB regions frag's pages
# occupy (its physical map, from pagemap) plus a few holding the guest's own
# files, and no call may be on a range with nothing in use.  (A free order-10
# buddy marks only its first page PageBuddy; its second block once read as
# 512 free pages of cost 0, and every round emptied every free pair again.)
TIMEOUT=400
. /pc/tests/vm/lib.sh

OTHER_BLOCKS=64		# blocks of guest files, modules and page tables
insmod /pc/module/pcompact.ko enabled=0 engine=contig || fail "insmod"
start_frag --percent 35 --map /tmp/frag-map.csv
frag_blocks=$(($(wc -l < /tmp/frag-map.csv) - 1))
fragmented_nodes 20
echo 0 > $PC_PARAM/wmark_low || fail "wmark_low 0"
T=/sys/kernel/tracing
echo 1 > $T/events/pcompact/pcompact_range/enable
echo 1 > $T/events/pcompact/pcompact_round_end/enable
echo 1 > $PC_PARAM/enabled
for nid in $ABOVE; do
	wait_compaction_end $nid 0
done
echo 0 > $PC_PARAM/enabled
echo 0 > $T/events/pcompact/pcompact_range/enable
echo 0 > $T/events/pcompact/pcompact_round_end/enable
calls=$(grep -c 'pcompact_range:' $T/trace)
empty=$(grep 'pcompact_range:' $T/trace | grep -c ' in_use=0 ')
freed=$(node_stat_sum blocks_freed)
note "frag occupies $frag_blocks 2 MB regions; engine freed $freed blocks in $calls calls, $empty on ranges with nothing in use"
[ "$calls" -gt 0 ] || fail "the engine made no call"
[ "$empty" = 0 ] || fail "$empty calls on ranges with nothing in use"
[ "$freed" -le $((frag_blocks + OTHER_BLOCKS)) ] ||
	fail "freed $freed blocks, more than frag's $frag_blocks regions + $OTHER_BLOCKS"
stop_frag || fail "frag exit status $?"
rmmod pcompact || fail "rmmod"
check_dmesg_clean
