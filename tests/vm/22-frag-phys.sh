#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# 22-frag-phys: frag --pattern phys keeps the pages at the same physical
# offsets of every 2M region, every 4th PFN for the default keep of 1/4,
# whatever order the allocator handed the pages out in (the kernel's
# pagemap, read here, says where they are); the kept pages keep their data;
# without CAP_SYS_ADMIN, which pagemap needs to show PFNs, it is refused
# before anything is allocated.
TIMEOUT=300
. /pc/tests/vm/lib.sh

FRAG=/pc/bin/frag
SIZE_MB=256

[ -x "$FRAG" ] || fail "$FRAG is missing"
[ "$(id -u)" = 0 ] || skip "needs root: pagemap shows PFNs only with CAP_SYS_ADMIN"

as_nobody "$FRAG" --pattern phys --size 4M >/tmp/frag-nobody.out 2>/tmp/frag-nobody.err &&
	fail "frag --pattern phys ran without CAP_SYS_ADMIN"
grep -q 'refusing --pattern phys' /tmp/frag-nobody.err ||
	fail "frag --pattern phys as nobody: $(cat /tmp/frag-nobody.err)"
grep -q '^frag: start' /tmp/frag-nobody.out && fail "frag --pattern phys as nobody started allocating"

cleanup() { [ -n "$FRAG_PID" ] && kill -TERM "$FRAG_PID" 2>/dev/null && wait "$FRAG_PID"; }
trap cleanup EXIT
start_frag --pattern phys --size ${SIZE_MB}M --verify
kept=$(sed -n 's/^frag: ready kept_pages=\([0-9]*\) .*pattern=phys .*/\1/p' "$FRAG_OUT")
[ -n "$kept" ] || fail "no ready line with pattern=phys: $(cat "$FRAG_OUT")"

# frag's mapping: its anonymous mapping of SIZE_MB (2M aligned, so its
# pagemap entries start on a 4K boundary of the pagemap file).
range=$(awk -v want=$((SIZE_MB * 256)) '$6 == "" {
		split($1, a, "-"); print a[1], a[2] }' "/proc/$FRAG_PID/maps" |
	while read -r lo hi; do
		[ $(( (0x$hi - 0x$lo) / 4096 )) = $((SIZE_MB * 256)) ] && echo "$((0x$lo))" && break
	done)
[ -n "$range" ] || fail "no ${SIZE_MB}M anonymous mapping in /proc/$FRAG_PID/maps"
# One 8-byte entry per 4K page: bit 63 present, bits 0-54 the PFN.
dd if="/proc/$FRAG_PID/pagemap" bs=4096 skip=$((range / 4096 / 512)) count=$((SIZE_MB * 256 * 8 / 4096)) \
	2>/dev/null | od -A n -v -t x8 | tr -s ' ' '\n' | grep . > /tmp/pagemap.hex
entries=$(wc -l < /tmp/pagemap.hex)
[ "$entries" = $((SIZE_MB * 256)) ] || fail "read $entries pagemap entries, want $((SIZE_MB * 256))"
# Present when the first hex digit is 8-f; the PFN's last hex digit mod 8
# tells every 4th PFN (0 or 4) from the others.
counts=$(awk '{ if (index("89abcdef", substr($1, 1, 1))) { n++
		r = (index("0123456789abcdef", substr($1, 16, 1)) - 1) % 8
		if (r == 0) zero++; else if (r == 4) four++; else off++ } }
	END { print n + 0, off + 0, zero + 0, four + 0 }' /tmp/pagemap.hex)
set -- $counts
present=$1 off=$2 at_0=$3 at_4=$4
note "pagemap: $present of $entries pages present, $off of them at a PFN not divisible by 4, $at_0 and $at_4 at PFN 0 and 4 mod 8; frag kept $kept"
[ "$present" = "$kept" ] || fail "pagemap shows $present pages present, frag says it kept $kept"
[ "$off" = 0 ] || fail "$off kept pages are at a PFN not divisible by 4"
# How many pages that is depends on which PFNs the allocator handed out
# (whole 2M regions of frag's give exactly 128 of 512; CI, 6.12.118: 8.4%
# of a 256M frag), so what shows every 4th PFN and not every 8th or 16th
# is that both PFNs 0 and 4 mod 8 are kept, each at least a quarter as
# often as the other.
[ "$present" -ge $((SIZE_MB * 256 / 64)) ] ||
	fail "$present pages kept of $entries, under a 64th"
[ $((at_0 * 4)) -ge "$at_4" ] && [ $((at_4 * 4)) -ge "$at_0" ] ||
	fail "kept $at_0 pages at PFN 0 mod 8 and $at_4 at 4 mod 8: not every 4th PFN"

verify_frag "pattern phys"
FRAG_PID=
check_dmesg_clean
exit 0
