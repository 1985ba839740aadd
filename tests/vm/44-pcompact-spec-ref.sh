# SPDX-License-Identifier: GPL-2.0
# Another CPU can hold a speculative reference on a page of a range the
# engine just emptied (an RCU page-cache lookup's folio_try_get(), GUP-fast)
# at the moment the engine frees the range.  The fault-injection build takes
# such a reference on a tail page of each of the first ranges, across the
# free, and drops it afterwards.  The engine must leave that page to its
# holder: it must not be in the free lists while still referenced (the
# holder's put would free it a second time), and the kernel must see no bad
# page (6.1 checks every freed tail's refcount; 6.12 only with page checks
# on, so there the fault build checks the free lists itself).
TIMEOUT=400
. /pc/tests/vm/lib.sh

F=/pc/module-faults/pcompact.ko
[ -f $F ] || fail "no fault-injection build in the payload"
HOLDS=2
insmod $F enabled=0 engine=contig hold_ranges=$HOLDS || fail "insmod"
start_frag
fragmented_nodes 70
# A target far below frag's score, so that rounds empty several ranges: with
# fragmented_nodes' low threshold one 256 MB call can reach it, and on 7.x
# (frozen ranges) that single range is the only hold there is (7.3.4: 1 of 2
# in 300 s).
set_wmarks 20 "$high"
echo 1 > $PC_PARAM/enabled
wait_for "[ \$(cat $PC_PARAM/holds) -ge $HOLDS ] || [ \$(cat $PC_PARAM/hold_freed) -gt 0 ]" 300
dmesg | grep 'fault: held'
freed=$(cat $PC_PARAM/hold_freed)
[ "$freed" = 0 ] || fail "$freed held pages were in the free lists while referenced"
[ "$(cat $PC_PARAM/holds)" -ge $HOLDS ] ||
	fail "only $(cat $PC_PARAM/holds) of $HOLDS held references were released in 300 s"
dmesg | grep -q 'Bad page' && fail "the kernel reported a bad page"
note "held $(cat $PC_PARAM/holds) pages across their range's free; none freed under the holder"
stop_frag || fail "frag exit status $?"
rmmod pcompact || fail "rmmod"
# The memory the engine gave back must allocate cleanly: 2 MB pages on every node.
insmod /pc/khugehog/khugehog.ko free_immediately=1 max=256 || fail "khugehog"
grep -E '^(count|failures)' /proc/khugehog/summary
rmmod khugehog || fail "rmmod khugehog"
check_dmesg_clean
