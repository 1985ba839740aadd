#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# 21-bench-frag-lost: the benchmark's guest script ends a run at once, with
# an error naming frag, when frag has exited under it (in the benchmark,
# the OOM killer's doing past khugehog's margin), rather than waiting
# minutes for a map that frag can no longer write.
#
# The frag the guest script runs is a stand-in that runs the real one and
# kills it when the guest asks for the map after the stream (SIGUSR1), the
# moment the OOM killer takes frag at the stream's end.  Killing frag from
# here after frag_ready instead raced the guest script: a stream of four
# allocations is over in about two seconds, and a test slowed by a loaded
# host missed that window and saw a complete run.
TIMEOUT=300
. /pc/tests/vm/lib.sh

[ -r /pc/bench-guest.sh ] || fail "/pc/bench-guest.sh is missing from the payload"
# bench-guest.sh's payload layout, made of the tests' one.
PCB=/tmp/pcb
BT=/tmp/bench-lost
OUT=/tmp/bench-lost.fd3
KILLED=/tmp/bench-lost.killed
mkdir -p $PCB/bin
rm -f $KILLED
ln -sf /pc/khugehog $PCB/khugehog
ln -sf /pc/tests/vm/mm.sh $PCB/mm.sh
cat > $PCB/bin/frag <<STANDIN
#!/bin/sh
/pc/bin/frag "\$@" &
real=\$!
trap 'kill -TERM \$real' TERM
trap 'kill -KILL \$real; echo "\$real" > $KILLED' USR1
while kill -0 \$real 2>/dev/null; do
	wait \$real
done
wait \$real
STANDIN
chmod +x $PCB/bin/frag

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
wait_for "! kill -0 $guest 2>/dev/null" 240 0.1 ||
	fail "bench-guest.sh still running after 240 s: $(tail -n 3 /tmp/bench-lost.out | tr '\n' ' ')"
wait "$guest"
rc=$?
guest=""
note "bench-guest.sh exit $rc: $(grep -m 1 '^=== error' $OUT)"
grep -q '^frag_ready ' $BT/khugehog.events ||
	fail "bench-guest.sh ended before fragmenting: $(grep -m 1 '^=== error' $OUT)"
[ -s $KILLED ] || fail "frag was never asked for its map: $(grep -m 1 '^=== error' $OUT)"
note "frag (pid $(cat $KILLED)) killed when asked for its map"
[ "$rc" != 0 ] || fail "bench-guest.sh exited 0 with frag gone"
grep -q '^=== error frag (.*exited' $OUT || fail "no error naming frag on fd 3: $(grep -m 1 '^=== error' $OUT)"
! grep -q '^=== done ===' $OUT || fail "bench-guest.sh said done with frag gone"
[ -z "$(pidof frag)" ] || fail "frag still running after the failed run: $(pidof frag)"
module_loaded khugehog && fail "khugehog.ko still loaded after the failed run"
check_dmesg_clean
