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

# A private apt configuration per Debian suite group, in the cache: its own
# sources list, lists, package cache and (empty) dpkg status, and none of the
# host's apt.conf.d, sources.list.d or preferences.  The host's apt sources and
# dpkg database are never read or written.  Groups:
#   bookworm          bookworm, bookworm-updates, bookworm-security (Debian 12)
#   trixie            trixie, trixie-updates, trixie-security (Debian 13)
#   trixie-backports  trixie-backports alone (its meta-packages win there)
#   sid               unstable
PCOMPACT_MIRROR=${PCOMPACT_MIRROR:-http://deb.debian.org/debian}
PCOMPACT_SECURITY_MIRROR=${PCOMPACT_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
PCOMPACT_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
PCOMPACT_APT_GROUPS="bookworm trixie trixie-backports sid"
# Signatures are always checked; the Valid-Until date of a Release file only
# when PCOMPACT_CHECK_VALID_UNTIL=true: a mirror snapshot (as on the test
# machines) serves sid's Release file after the week it is declared valid for.
PCOMPACT_CHECK_VALID_UNTIL=${PCOMPACT_CHECK_VALID_UNTIL:-false}

# apt_sources GROUP: the one-line sources of a group.
apt_sources() {
	local k="[signed-by=$PCOMPACT_KEYRING]"
	case "$1" in
	bookworm|trixie)
		echo "deb $k $PCOMPACT_MIRROR $1 main"
		echo "deb $k $PCOMPACT_MIRROR $1-updates main"
		echo "deb $k $PCOMPACT_SECURITY_MIRROR $1-security main" ;;
	trixie-backports|sid)
		echo "deb $k $PCOMPACT_MIRROR $1 main" ;;
	*) return 1 ;;
	esac
}

# papt GROUP apt-get|apt-cache ARGS...: run apt with GROUP's private
# configuration, creating it (and running update) the first time.
papt() {
	local group=$1 tool=$2 root lockfd=""
	shift 2
	root="$CACHE/apt/$group"
	local opts=(-o "Dir::Etc::sourcelist=$root/sources.list"
		    -o "Dir::Etc::sourceparts=$root/empty" -o "Dir::Etc::parts=$root/empty"
		    -o "Dir::Etc::preferences=$root/empty/none"
		    -o "Dir::Etc::preferencesparts=$root/empty"
		    -o "Dir::State::Lists=$root/lists" -o "Dir::State::status=$root/status"
		    -o "Dir::State::extended_states=$root/extended_states"
		    -o "Dir::Cache=$root/cache" -o "APT::Architecture=amd64"
		    -o "APT::Architectures::=amd64" -o "Acquire::Languages=none"
		    -o "APT::Sandbox::User=root" -o "Acquire::Check-Valid-Until=$PCOMPACT_CHECK_VALID_UNTIL")
	mkdir -p "$CACHE/apt"
	if [ ! -f "$root/.updated" ]; then
		# One update at a time per group (check runs fetch-kernel in parallel).
		exec {lockfd}>"$CACHE/apt/$group.lock"
		flock "$lockfd"
	fi
	if [ ! -f "$root/.updated" ]; then
		mkdir -p "$root/empty" "$root/lists/partial" "$root/cache/archives/partial"
		: > "$root/status"
		apt_sources "$group" > "$root/sources.list" || die "unknown apt group '$group'"
		log "apt-get update for $group (private lists in $root)"
		apt-get "${opts[@]}" -qq update >&2 || die "apt-get update for $group failed"
		touch "$root/.updated"
	fi
	[ -z "${lockfd:-}" ] || { exec {lockfd}>&-; unset lockfd; }
	"$tool" "${opts[@]}" "$@"
}

# papt_update GROUP: refresh GROUP's lists (the next papt call re-downloads).
papt_update() {
	rm -f "$CACHE/apt/$1/.updated"
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
sparse:sparse
mmdebstrap:mmdebstrap
debhelper:dh
dh-dkms:dh_dkms
dpkg-dev:dpkg-buildpackage
lintian:lintian
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
