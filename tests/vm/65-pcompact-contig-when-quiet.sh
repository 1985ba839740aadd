# SPDX-License-Identifier: GPL-2.0
# contig_when_quiet: with engine=node-sysfs, a round that starts with no
# direct compaction stall within the last interval_ms empties blocks with
# the contig engine and never calls the kernel's compaction; a round that
# starts within interval_ms of a stall calls the kernel's compaction as
# engine=node-sysfs does.  Ahead of a stream the kernel's compaction moved
# 240-740 pages per free block it added on 6.12, the contig engine the
# 127-134 in use (results/trace612-migrated/, trace61-migrated/).
TIMEOUT=600
. /pc/tests/vm/lib.sh

T=/sys/kernel/tracing

# No stall: the contig engine from the first round, the kernel's compaction
# never called.
load_fragmented engine=node-sysfs contig_when_quiet=Y
[ "$(cat $PC_PARAM/contig_when_quiet)" = Y ] ||
	fail "contig_when_quiet reads $(cat $PC_PARAM/contig_when_quiet)"
compact_traced pcompact/pcompact_range compaction/mm_compaction_end
quiet_rounds=$(node_stat_sum quiet_contig_rounds)
calls=$(grep -c 'pcompact_range:' $T/trace)
note "no stall: $(node_stat_sum rounds) rounds, $quiet_rounds with contig, $calls contig calls, $(kernel_calls) kernel compactions"
[ "$quiet_rounds" -gt 0 ] || fail "no round used the contig engine with no stall"
[ "$calls" -gt 0 ] || fail "the contig engine made no call"
[ "$(kernel_calls)" = 0 ] || fail "$(kernel_calls) kernel compactions with no stall"
stop_frag || fail "frag exit status $?"
rmmod pcompact || fail "rmmod"

# Allocations stalled within the last interval (60 s): the kernel's
# compaction, as engine=node-sysfs.  Loaded with 10 ms so that the scores
# read are the fragmented ones.  A round that starts more than 60 s after
# the last stall is quiet and rightly uses contig: on 6.1 under TCG three
# rounds took 60 s (make check of 3c84a39), so a contig round fails the
# test only when it started within 60 s of the first stall, and hence of
# the last.
load_fragmented --stalled engine=node-sysfs contig_when_quiet=Y
quiet_before=$(node_stat_sum quiet_contig_rounds)
compact_traced pcompact/pcompact_range compaction/mm_compaction_end
since_stall=$(($(date +%s) - STALL_FROM))
note "stalled: $(node_stat_sum rounds) rounds, $(node_stat_sum quiet_contig_rounds) with contig ($quiet_before before), $(kernel_calls) kernel compactions, $since_stall s since the stalls began"
[ "$(kernel_calls)" -gt 0 ] || fail "no kernel compaction within 60 s of a stall"
# date +%s counts whole seconds: under 59 is surely under 60.
[ "$(node_stat_sum quiet_contig_rounds)" = "$quiet_before" ] || [ "$since_stall" -ge 59 ] ||
	fail "a round used the contig engine within 60 s of a stall"
stop_frag || fail "frag exit status $?"
rmmod khugehog || fail "rmmod khugehog"
rmmod pcompact || fail "rmmod"
check_dmesg_clean
