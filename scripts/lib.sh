# SPDX-License-Identifier: GPL-2.0
# lib.sh: helpers shared by the shell scripts (sourced, not run).

CACHE=${PCOMPACT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pcompact}

log() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
die() { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit 1; }

# apt-cache answers from stale or empty lists on a fresh machine.
ensure_apt_lists() {
	if [ -z "$(ls /var/lib/apt/lists/ 2>/dev/null | grep -v -e lock -e partial -e auxfiles)" ] ||
	   ! apt-cache show linux-image-amd64 >/dev/null 2>&1; then
		log "running apt-get update"
		apt-get update -qq >&2 || die "apt-get update failed"
	fi
}

# Debian packages the scripts need, with the command each one provides.
PCOMPACT_DEPS="
qemu-system-x86:qemu-system-x86_64
busybox-static:busybox
dkms:dkms
kmod:modprobe
cpio:cpio
zstd:zstd
xz-utils:xz
python3-matplotlib:
python3-pytest:
gcc:gcc
make:make
libc6-dev:
bc:bc
libelf-dev:
dwarves:pahole
linux-libc-dev:
"

# Install whichever of PCOMPACT_DEPS is missing, saying what it installs.
ensure_packages() {
	local missing="" entry pkg
	for entry in $PCOMPACT_DEPS; do
		pkg=${entry%%:*}
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' ||
			missing="$missing $pkg"
	done
	[ -z "$missing" ] && return 0
	[ "$(id -u)" = 0 ] || die "missing Debian packages:$missing (run as root to install them)"
	log "installing Debian packages:$missing"
	ensure_apt_lists
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >&2 ||
		die "apt-get install$missing failed"
}
