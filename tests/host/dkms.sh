#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dkms.sh RELEASE HEADERS-DIR OUT-DIR: the real `dkms add / build / install`
# of pcompact for one kernel, in a private DKMS tree under OUT-DIR (the
# host's /var/lib/dkms, /usr/src and /lib/modules are not touched).  Prints
# KTAP; leaves the install tree in OUT-DIR/modules/RELEASE for the VM suite.
set -uo pipefail
rel=$1 kdir=$2 out=$3
top=$(cd "$(dirname "$0")/../.." && pwd)
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
tree="$out/dkms"
rm -rf "$tree"
mkdir -p "$tree/var" "$tree/src" "$tree/modules/$rel"
# Never sign in the test: signing would create a MOK key in /var/lib/dkms.
export sign_file=/nonexistent
dkms_cmd=(dkms --dkmstree "$tree/var" --sourcetree "$tree/src"
	  --installtree "$tree/modules" --kernelsourcedir "$kdir")
n=0 failed=0
result() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; failed=1; fi
}
host_state() {
	ls -la /var/lib/dkms /usr/src "/lib/modules/$rel" 2>&1 | grep -v '^total'
}

echo "KTAP version 1"
echo "1..8"
before=$(host_state)
src=$(make -s -C "$top" dkms-src | tail -n1)
"${dkms_cmd[@]}" add "$top/$src" > "$out/dkms-add.log" 2>&1
result $? "dkms add"

# What dkms copied is what users get in /usr/src: only the build inputs.
extra=$(cd "$tree/src/pcompact-$version" 2>/dev/null &&
	find . -type f | grep -v -E '^\./(dkms\.conf|module/(Kbuild|[a-z_]+\.[ch]))$')
[ -d "$tree/src/pcompact-$version" ] && [ -z "$extra" ]
result $? "dkms source tree holds only dkms.conf and module/ sources${extra:+ (extra: $(echo $extra))}"

"${dkms_cmd[@]}" build "pcompact/$version" -k "$rel" > "$out/dkms-build.log" 2>&1
rc=$?
[ $rc = 0 ] || cat "$tree/var/pcompact/$version/build/make.log" >> "$out/dkms-build.log" 2>/dev/null
result $rc "dkms build -k $rel"

"${dkms_cmd[@]}" install "pcompact/$version" -k "$rel" --no-depmod > "$out/dkms-install.log" 2>&1
result $? "dkms install -k $rel"

ko=$(ls "$tree/modules/$rel/updates/dkms/pcompact.ko"* 2>/dev/null | sed -n 1p)
[ -n "$ko" ]
result $? "module installed under updates/dkms"

modver=$(modinfo -F version "$ko" 2>/dev/null)
[ "$modver" = "$version" ]
result $? "MODULE_VERSION ($modver) equals dkms.conf PACKAGE_VERSION ($version)"

"${dkms_cmd[@]}" status -k "$rel" 2>/dev/null | grep "pcompact/$version, $rel, .*: installed" >/dev/null
result $? "dkms status says installed"

[ "$before" = "$(host_state)" ]
result $? "host /var/lib/dkms, /usr/src and /lib/modules/$rel untouched"
exit $failed
