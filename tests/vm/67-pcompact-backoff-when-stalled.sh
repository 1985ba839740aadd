# SPDX-License-Identifier: GPL-2.0
# backoff_when_stalled: with engine=node-sysfs, no round starts within
# interval_ms of a direct compaction stall (state stall-backoff, counted in
# backoffs_stall), so pcompactd never calls the kernel's compaction, whose
# call resets the zone's cached scanner positions under the stalled
# allocations' own compaction; with no stall that recent, rounds call the
# kernel's compaction as engine=node-sysfs does.
TIMEOUT=600
. /pc/tests/vm/lib.sh

# Allocations stalled within the last interval (60 s): every node above its
# high threshold backs off and starts no round.  Loaded with 10 ms so that
# the scores read are the fragmented ones.
load_fragmented --stalled engine=node-sysfs backoff_when_stalled=Y
[ "$(cat $PC_PARAM/backoff_when_stalled)" = Y ] ||
	fail "backoff_when_stalled reads $(cat $PC_PARAM/backoff_when_stalled)"
rounds_before=$(node_stat_sum rounds)
trace_from_empty compaction/mm_compaction_end
backoffs_before=$(node_counters backoffs_stall)
echo Y > $PC_PARAM/enabled || fail "cannot switch pcompact on"
for nid in $ABOVE; do
	before=$(node_counter_in "$nid" "$backoffs_before")
	# The counter moves just before the state is set.
	wait_for "[ \$(node_stat $nid backoffs_stall) -gt $before ] &&
		  [ \$(node_stat $nid state) = stall-backoff ]" 30 ||
		fail "node $nid did not back off within 30 s of enabling, a stall within the 60 s interval:" \
			"state $(node_stat "$nid" state), $(node_summary "$nid")"
done
echo N > $PC_PARAM/enabled
trace_events_off compaction/mm_compaction_end
note "stalled: $(node_stat_sum rounds) rounds ($rounds_before before), $(node_stat_sum backoffs_stall) stall back-offs, $(kernel_calls) kernel compactions"
[ "$(node_stat_sum rounds)" = "$rounds_before" ] ||
	fail "$(($(node_stat_sum rounds) - rounds_before)) rounds started within 60 s of a stall"
[ "$(kernel_calls)" = 0 ] || fail "$(kernel_calls) kernel compactions within 60 s of a stall"
stop_frag || fail "frag exit status $?"
rmmod khugehog || fail "rmmod khugehog"
rmmod pcompact || fail "rmmod"

# No stall: the kernel's compaction, as engine=node-sysfs.
load_fragmented engine=node-sysfs backoff_when_stalled=Y
compact_traced compaction/mm_compaction_end
note "no stall: $(node_stat_sum rounds) rounds, $(node_stat_sum backoffs_stall) stall back-offs, $(kernel_calls) kernel compactions"
[ "$(kernel_calls)" -gt 0 ] || fail "no kernel compaction with no stall"
[ "$(node_stat_sum backoffs_stall)" = 0 ] || fail "a node backed off with no stall"
stop_frag || fail "frag exit status $?"
rmmod pcompact || fail "rmmod"
check_dmesg_clean
