#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# deb.sh DEB RELEASE OUT-DIR: install the pcompact-dkms package DEB with apt
# in a throw-away overlay of the Debian 13 build chroot (scripts/chroot-run
# trixie --scratch) that has the headers of the cached kernel RELEASE under
# /lib/modules/RELEASE/build, as linux-headers-RELEASE would put them.  The
# package's postinst must have dkms build and install pcompact.ko for
# RELEASE; purging the package must remove the module and the sources.
# Prints KTAP; logs go to OUT-DIR.  The cached chroot itself is not changed.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

if [ "${1:-}" = --in-chroot ]; then
	# Inside the overlay: $2 release, $3 deb, $4 version, $5 out, $6 kernels dir.
	rel=$2 deb=$3 version=$4 out=$5 kdir=$6
	n=0
	result() {
		n=$((n + 1))
		if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; fi
	}
	mkdir -p "/lib/modules/$rel"
	ln -sfn "$kdir/build" "/lib/modules/$rel/build"
	for f in modules.order modules.builtin modules.builtin.modinfo; do
		[ -f "$kdir/modules/$f" ] && cp "$kdir/modules/$f" "/lib/modules/$rel/"
	done
	echo "KTAP version 1"
	echo "1..8"
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$deb" \
		> "$out/deb-install.log" 2>&1
	result $? "apt-get install $(basename "$deb")"

	dkms status -m pcompact -v "$version" -k "$rel" 2>/dev/null | tee "$out/deb-dkms-status.log" |
		grep -q "pcompact/$version, $rel, .*: installed"
	result $? "postinst: dkms built and installed pcompact/$version for $rel"

	ko=$(ls "/lib/modules/$rel/updates/dkms/pcompact.ko"* 2>/dev/null | sed -n 1p)
	modver=$(modinfo -F version "$ko" 2>/dev/null)
	magic=$(modinfo -F vermagic "$ko" 2>/dev/null)
	[ -n "$ko" ] && [ "$modver" = "$version" ] && [ "${magic%% *}" = "$rel" ]
	result $? "pcompact.ko in /lib/modules/$rel/updates/dkms (version '$modver', vermagic '${magic%% *}')"

	[ -f "/usr/src/pcompact-$version/dkms.conf" ] && [ -f "/usr/src/pcompact-$version/module/Kbuild" ]
	result $? "sources in /usr/src/pcompact-$version"

	DEBIAN_FRONTEND=noninteractive apt-get purge -y pcompact-dkms > "$out/deb-purge.log" 2>&1
	result $? "apt-get purge pcompact-dkms"

	! ls "/lib/modules/$rel/updates/dkms/pcompact.ko"* >/dev/null 2>&1
	result $? "purge removed pcompact.ko from /lib/modules/$rel"

	[ -z "$(dkms status -m pcompact 2>/dev/null)" ] && [ ! -e /var/lib/dkms/pcompact ]
	result $? "purge removed pcompact from dkms"

	[ ! -e "/usr/src/pcompact-$version" ]
	result $? "purge removed /usr/src/pcompact-$version"
	exit 0
fi

deb=$1 rel=$2 out=$3
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
mkdir -p "$out"
deb=$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")
out=$(cd "$out" && pwd)
root=$("$top/scripts/chroot-run" trixie --create) || { echo "Bail out! no trixie chroot"; exit 1; }
before=$(ls -d "$root"/usr/src/* "$root"/var/lib/dkms/* 2>/dev/null)
"$top/scripts/chroot-run" trixie --scratch --kernel "$rel" --bind "$(dirname "$deb")" --bind "$out" -- \
	"$top/tests/host/deb.sh" --in-chroot "$rel" "$deb" "$version" "$out" "$CACHE/kernels/$rel" |
	tee "$out/deb-ktap.log" | sed '/^1\.\.8$/s/8/9/'
after=$(ls -d "$root"/usr/src/* "$root"/var/lib/dkms/* 2>/dev/null)
if [ "$before" = "$after" ]; then
	echo "ok 9 the cached trixie chroot is unchanged"
else
	echo "not ok 9 the cached trixie chroot is unchanged"
fi
! grep -q '^not ok' "$out/deb-ktap.log" && [ "$before" = "$after" ] &&
	[ "$(grep -c '^ok' "$out/deb-ktap.log")" = 8 ]
