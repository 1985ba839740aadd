# SPDX-License-Identifier: GPL-2.0
# contig_when_stalled: with engine=node-sysfs, a round that starts within
# interval_ms of a direct compaction stall empties blocks with the contig
# engine and never calls the kernel's compaction, whose call resets the
# zone's cached scanner positions when its scanners meet; a round with no
# stall that recent calls the kernel's compaction as engine=node-sysfs
# does.
TIMEOUT=600
. /pc/tests/vm/lib.sh

T=/sys/kernel/tracing

# Allocations stalled within the last interval (60 s): the contig engine,
# the kernel's compaction never called by pcompactd.  Loaded with 10 ms so
# that the scores read are the fragmented ones.
load_fragmented --stalled engine=node-sysfs contig_when_stalled=Y
[ "$(cat $PC_PARAM/contig_when_stalled)" = Y ] ||
	fail "contig_when_stalled reads $(cat $PC_PARAM/contig_when_stalled)"
stalled_before=$(node_stat_sum stalled_contig_rounds)
compact_traced pcompact/pcompact_range compaction/mm_compaction_end
stalled_rounds=$(node_stat_sum stalled_contig_rounds)
calls=$(grep -c 'pcompact_range:' $T/trace)
note "stalled: $(node_stat_sum rounds) rounds, $stalled_rounds with contig ($stalled_before before), $calls contig calls, $(kernel_calls) kernel compactions"
[ "$stalled_rounds" -gt "$stalled_before" ] || fail "no round used the contig engine within 60 s of a stall"
[ "$calls" -gt 0 ] || fail "the contig engine made no call"
[ "$(kernel_calls)" = 0 ] || fail "$(kernel_calls) kernel compactions within 60 s of a stall"
stop_frag || fail "frag exit status $?"
rmmod khugehog || fail "rmmod khugehog"
rmmod pcompact || fail "rmmod"

# No stall: the kernel's compaction, as engine=node-sysfs.
load_fragmented engine=node-sysfs contig_when_stalled=Y
compact_traced pcompact/pcompact_range compaction/mm_compaction_end
note "no stall: $(node_stat_sum rounds) rounds, $(node_stat_sum stalled_contig_rounds) with contig, $(kernel_calls) kernel compactions"
[ "$(kernel_calls)" -gt 0 ] || fail "no kernel compaction with no stall"
[ "$(node_stat_sum stalled_contig_rounds)" = 0 ] ||
	fail "a round used the contig engine with no stall"
stop_frag || fail "frag exit status $?"
rmmod pcompact || fail "rmmod"
check_dmesg_clean
