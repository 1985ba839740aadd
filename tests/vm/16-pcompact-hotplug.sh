# SPDX-License-Identifier: GPL-2.0
# A pcompactd starts when a node gets memory and stops when the node loses
# it.  vm-run --hotplug-mem gives the guest a memory-less node with an
# offline DIMM; onlining its memory blocks brings the node online.
. /pc/tests/vm/lib.sh

hp=""
for n in /sys/devices/system/node/node[0-9]*; do
	ls "$n" | grep -q '^memory[0-9]' || continue
	nid=${n##*node}
	grep -q online "$n"/memory[0-9]*/state && continue
	hp=$nid
done
[ -n "$hp" ] || skip "no node with only offline memory (vm-run --hotplug-mem)"
blocks=$(ls -d /sys/devices/system/node/node$hp/memory[0-9]*)
note "node $hp: memory blocks $(echo $blocks | wc -w), all offline"

insmod /pc/module/pcompact.ko || fail "insmod"
[ "$(node_stat $hp running)" = 0 ] || fail "pcompactd$hp runs on a node without memory"
[ "$(kthreads_named "^pcompactd$hp\$")" = 0 ] || fail "pcompactd$hp exists"

for b in $blocks; do echo online_movable > $b/state || fail "cannot online $b"; done
wait_for "[ \$(kthreads_named '^pcompactd$hp\$') = 1 ]" 10 || fail "no pcompactd$hp after onlining"
[ "$(node_stat $hp running)" = 1 ] || fail "node$hp/running is not 1"
note "node $hp online: pcompactd$hp started, score $(node_stat $hp score)"

for b in $blocks; do echo offline > $b/state || fail "cannot offline $b"; done
wait_for "[ \$(kthreads_named '^pcompactd$hp\$') = 0 ]" 10 || fail "pcompactd$hp still there after offlining"
[ "$(node_stat $hp running)" = 0 ] || fail "node$hp/running is not 0"

# nodes= keeps a node out even when its memory comes online.
echo 0-1 > $PC_PARAM/nodes || fail "nodes=0-1"
for b in $blocks; do echo online_movable > $b/state || fail "cannot online $b"; done
[ "$(kthreads_named "^pcompactd$hp\$")" = 0 ] || fail "pcompactd$hp started against nodes=0-1"
for b in $blocks; do echo offline > $b/state || fail "cannot offline $b"; done
rmmod pcompact || fail "rmmod"
check_dmesg_clean
