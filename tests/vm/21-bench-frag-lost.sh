#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# 21-bench-frag-lost: the benchmark's guest script ends a run at once, with
# an error naming frag, when frag has exited under it (in the benchmark,
# the OOM killer's doing past khugehog's margin), rather than waiting
# minutes for a map that frag can no longer write.
TIMEOUT=300
. /pc/tests/vm/lib.sh

[ -r /pc/bench-guest.sh ] || fail "/pc/bench-guest.sh is missing from the payload"
# bench-guest.sh's payload layout, made of the tests' one.
PCB=/tmp/pcb
BT=/tmp/bench-lost
OUT=/tmp/bench-lost.fd3
mkdir -p $PCB/bin
ln -sf /pc/khugehog $PCB/khugehog
ln -sf /pc/bin/frag $PCB/bin/frag
ln -sf /pc/tests/vm/mm.sh $PCB/mm.sh

guest=""
cleanup() {
	[ -n "$guest" ] && kill -KILL "$guest" 2>/dev/null
	for p in $(pidof frag); do kill -KILL "$p"; done
	module_loaded khugehog && rmmod khugehog
}
trap cleanup EXIT

BENCH_PC=$PCB BENCH_TMP=$BT BENCH_MECH=none BENCH_WORKLOADS=khugehog \
	BENCH_KHH_ARGS="gfp=kernel max=4" BENCH_IDLE_S=0 BENCH_LEAD_S=1 BENCH_TAIL_S=1 \
	BENCH_ALLOC_CPU=none sh /pc/bench-guest.sh 3> $OUT > /tmp/bench-lost.out 2>&1 &
guest=$!
wait_for "grep -q '^frag_ready ' $BT/khugehog.events 2>/dev/null || ! kill -0 $guest 2>/dev/null" 240 0.1 ||
	fail "bench-guest.sh did not fragment within 240 s"
kill -0 $guest 2>/dev/null ||
	fail "bench-guest.sh ended before fragmenting: $(grep -m 1 '^=== error' $OUT)"
frags=$(pidof frag)
[ -n "$frags" ] || fail "no frag running after frag_ready"
for p in $frags; do kill -KILL "$p"; done
note "killed frag ($frags) after frag_ready"
wait_for "! kill -0 $guest 2>/dev/null" 120 0.1 ||
	fail "bench-guest.sh still running 120 s after frag was killed: $(tail -n 3 /tmp/bench-lost.out | tr '\n' ' ')"
wait "$guest"
rc=$?
guest=""
note "bench-guest.sh exit $rc: $(grep -m 1 '^=== error' $OUT)"
[ "$rc" != 0 ] || fail "bench-guest.sh exited 0 with frag gone"
grep -q '^=== error frag (.*exited' $OUT || fail "no error naming frag on fd 3: $(grep -m 1 '^=== error' $OUT)"
! grep -q '^=== done ===' $OUT || fail "bench-guest.sh said done with frag gone"
module_loaded khugehog && fail "khugehog.ko still loaded after the failed run"
check_dmesg_clean
