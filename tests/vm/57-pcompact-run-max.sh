# SPDX-License-Identifier: GPL-2.0
# run_max_mb: no alloc_contig_range() call of the engine covers more than
# run_max_mb (rounded down to whole 4 MB pairs), and a short cap still
# empties every pair of a long run of movable pairs: with 4 MB (one pair a
# call) every fragmented node reaches the low threshold without a round
# running out of work.  (Runs were once collected 256 MB long and cut to the
# cap when emptied, the rest skipped until the next round: with the 16 MB
# cap of init_on_alloc=1 a round emptied 1 pair in 16 and then deferred.)
TIMEOUT=400
. /pc/tests/vm/lib.sh

T=/sys/kernel/tracing
insmod /pc/module/pcompact.ko enabled=0 engine=contig run_max_mb=4 || fail "insmod run_max_mb=4"
[ "$(cat $PC_PARAM/run_max_mb)" = 4 ] || fail "run_max_mb reads $(cat $PC_PARAM/run_max_mb), not 4"
start_frag
fragmented_nodes 70
note "thresholds $LOW/$(cat $PC_PARAM/wmark_high), nodes above: $ABOVE"
echo 1 > $T/events/pcompact/pcompact_range/enable
echo 1 > $PC_PARAM/enabled
for nid in $ABOVE; do
	wait_compaction_end $nid $LOW
done
echo 0 > $PC_PARAM/enabled
echo 0 > $T/events/pcompact/pcompact_range/enable
for nid in $ABOVE; do
	note "node $nid: $(node_summary $nid)"
	[ "$(node_stat $nid deferrals)" = 0 ] ||
		fail "node $nid: a round ran out of work at score $(node_stat $nid score), low $LOW"
done
calls=$(grep -c 'pcompact_range:' $T/trace)
widest=$(grep -o 'nr_blocks=[0-9]*' $T/trace | cut -d= -f2 | sort -n | tail -1)
note "$calls calls, the widest $widest blocks"
[ "$calls" -gt 0 ] || fail "the engine made no call"
[ "$widest" -le 2 ] || fail "a call emptied $widest blocks with run_max_mb=4 (one pair)"
stop_frag || fail "frag exit status $?"
rmmod pcompact || fail "rmmod"
check_dmesg_clean
