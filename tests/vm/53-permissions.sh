# SPDX-License-Identifier: GPL-2.0
# Permissions: pcompact's statistics (like /proc/vmstat) and parameters are
# world-readable and shown no kernel address; parameters are writable by
# root only, statistics by no one; khugehog's raw samples are root-only.
# An unprivileged user can read but change nothing.  frag refuses --map
# without CAP_SYS_ADMIN (as a plain user, and as root of a user namespace,
# which has the uid but not the capability), says why and exits 2 before
# allocating; without --map it runs unprivileged.
. /pc/tests/vm/lib.sh

# mode PATH: octal permission bits.
mode() { stat -c %a "$1"; }

insmod /pc/module-faults/pcompact.ko || fail "insmod (test build, for its extra parameters)"
insmod /pc/khugehog/khugehog.ko max=4 free_immediately=1 || fail "insmod khugehog"
find $PC_SYS -type f | while read -r f; do
	[ "$(mode "$f")" = 444 ] || fail "$f has mode $(mode "$f"), want 444"
done || exit 1
find $PC_SYS -type d | while read -r d; do
	[ "$(mode "$d")" = 755 ] || fail "$d has mode $(mode "$d"), want 755"
done || exit 1
checked=$(find $PC_SYS -type f | wc -l)
for f in $PC_PARAM/*; do
	case ${f##*/} in
	fault_hits|holds|hold_freed|idle_calls) want=444 ;;
	*) want=644 ;;
	esac
	[ "$(mode "$f")" = $want ] || fail "$f has mode $(mode "$f"), want $want"
	checked=$((checked + 1))
done
for f in /sys/module/khugehog/parameters/*; do
	[ "$(mode "$f")" = 444 ] || fail "$f has mode $(mode "$f"), want 444 (load-time only)"
	checked=$((checked + 1))
done
[ "$(mode /proc/khugehog/summary)" = 444 ] || fail "summary mode $(mode /proc/khugehog/summary)"
[ "$(mode /proc/khugehog/samples)" = 400 ] || fail "samples mode $(mode /proc/khugehog/samples)"
checked=$((checked + 2))
# What anyone can read shows no kernel pointer.
# shellcheck disable=SC2046
grep -l -E '(0x)?ffff[0-9a-f]{12}' $(find $PC_SYS $PC_PARAM /proc/khugehog -type f -perm -004) &&
	fail "a world-readable file shows a kernel address"
note "$checked files have the expected modes"

# An unprivileged user reads, and changes nothing.
as_nobody cat $PC_SYS/node0/score $PC_SYS/hooks $PC_PARAM/interval_ms /proc/khugehog/summary >/dev/null ||
	fail "nobody cannot read pcompact's statistics"
as_nobody cat /proc/khugehog/samples >/dev/null 2>&1 && fail "nobody can read /proc/khugehog/samples"
before=$(cat $PC_PARAM/interval_ms $PC_PARAM/fault)
for p in interval_ms enabled nodes fault; do
	as_nobody sh -c "echo 1 > $PC_PARAM/$p" 2>/tmp/nobody.err && fail "nobody wrote $p"
	grep -q 'Permission denied' /tmp/nobody.err || fail "writing $p as nobody: $(cat /tmp/nobody.err)"
done
as_nobody sh -c "echo 1 > $PC_SYS/node0/score" 2>/dev/null && fail "nobody wrote a statistic"
[ "$(cat $PC_PARAM/interval_ms $PC_PARAM/fault)" = "$before" ] || fail "a refused write changed a parameter"
rmmod khugehog || fail "rmmod khugehog"
rmmod pcompact || fail "rmmod pcompact"

# frag --map needs CAP_SYS_ADMIN: refused as nobody, and as root of a user
# namespace (uid 0 there, but no capability over the real pagemap).
free0=$(awk '$1 == "MemFree:" { print $2 }' /proc/meminfo)
for how in as_nobody "unshare -r"; do
	$how /pc/bin/frag --map /tmp/nobody-map.csv --size 64M >/tmp/frag.out 2>/tmp/frag.err
	rc=$?
	[ "$rc" = 2 ] || fail "frag --map ($how): exit $rc, want 2: $(cat /tmp/frag.err)"
	grep -q 'refusing --map: .*lacks CAP_SYS_ADMIN; run frag as root or drop --map' /tmp/frag.err ||
		fail "frag --map ($how): no reason given: $(cat /tmp/frag.err)"
	grep -q '^frag: start' /tmp/frag.out && fail "frag --map ($how) started allocating"
	note "frag --map ($how): $(cat /tmp/frag.err)"
done
free1=$(awk '$1 == "MemFree:" { print $2 }' /proc/meminfo)
[ $((free0 - free1)) -lt 32768 ] || fail "MemFree fell by $((free0 - free1)) kB around the refused runs"
# Without --map, frag runs unprivileged and says the histogram is missing.
as_nobody /pc/bin/frag --size 8M --hold-seconds 0 >/tmp/frag.out 2>/tmp/frag.err ||
	fail "frag as nobody without --map: $(cat /tmp/frag.err)"
grep -q '^frag: histogram unavailable reason=no-pfns' /tmp/frag.out ||
	fail "frag as nobody: $(cat /tmp/frag.out)"
check_dmesg_clean
