# Shared settings for the project's scripts; sourced, never run.
# BFQ_CACHE holds every downloaded or built kernel artefact: nothing of it is
# committed and every script recreates what is missing.
BFQ_CACHE=${BFQ_CACHE:-/var/cache/bfq-lab}
BFQ_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

die() { echo "$(basename "$0"): $*" >&2; exit 1; }
log() { echo "== $*" >&2; }

# kver_dir KVER: the cache folder of one kernel series (6.1 or 6.12), or of
# "latest", the newest kernel of Debian trixie-backports.
kver_dir() {
	case "$1" in
	6.1|6.12|trixie|latest) echo "$BFQ_CACHE/$1" ;;
	*) die "unknown KVER '$1' (6.1, 6.12, trixie or latest)" ;;
	esac
}

# as_root CMD...: run CMD as root (CI and the lab run as root already).
as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}
# as_root_apt ARGS...: apt_get (below) as root.
as_root_apt() {
	if [ "$(id -u)" = 0 ]; then apt_get "$@"
	else sudo bash -c ". '$BFQ_TOP/scripts/lib.sh' && apt_get \"\$@\"" apt_get "$@"; fi
}

# apt_need PKG...: install those of the Debian packages PKG that are
# missing (none missing: no apt at all).
apt_need() {
	local p missing=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	log "installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive as_root_apt update -qq ||
		DEBIAN_FRONTEND=noninteractive as_root_apt update
	DEBIAN_FRONTEND=noninteractive as_root_apt install -y -qq \
		--no-install-recommends "${missing[@]}"
}

# apt_get ARGS...: apt-get that waits for another apt or dpkg (unattended
# upgrades, a second checkout's scripts) instead of failing on its lock:
# apt's own wait for the dpkg frontend lock, and for the other locks (the
# package lists', the archives') a retry every 10 s, up to 10 minutes in all.
apt_get() {
	local t0=$SECONDS errf rc
	errf=$(mktemp)
	while :; do
		apt-get -o DPkg::Lock::Timeout=600 "$@" 2> "$errf" && rc=0 || rc=$?
		cat "$errf" >&2
		if [ $rc != 0 ] && grep -qE 'Could not get lock|Unable to (acquire|lock)' "$errf" &&
		   [ $((SECONDS - t0)) -lt 600 ]; then
			echo "== apt is busy (another apt or dpkg runs): waiting" >&2
			sleep 10
			continue
		fi
		rm -f "$errf"
		return $rc
	done
}

# build_static OUT SRC [ARGS...]: a static test tool for the guests (their
# initramfs has no C library); ARGS (more flags, libraries) go after SRC.
build_static() {
	local out=$1 src=$2
	shift 2
	gcc -static -O2 -Wall -o "$out" "$src" "$@" ||
		die "cannot build ${src#"$BFQ_TOP"/} (gcc -static: libc6-dev)"
}
