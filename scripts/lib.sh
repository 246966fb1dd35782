# Shared settings for the project's scripts; sourced, never run.
# BFQ_CACHE holds every downloaded or built kernel artefact: nothing of it is
# committed and every script recreates what is missing.
BFQ_CACHE=${BFQ_CACHE:-/var/cache/bfq-lab}
BFQ_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

die() { echo "$(basename "$0"): $*" >&2; exit 1; }
log() { echo "== $*" >&2; }

# kver_dir KVER: the cache folder of one kernel series (6.1 or 6.12).
kver_dir() {
	case "$1" in
	6.1|6.12) echo "$BFQ_CACHE/$1" ;;
	*) die "unknown KVER '$1' (6.1 or 6.12)" ;;
	esac
}

# as_root CMD...: run CMD as root (CI and the lab run as root already).
as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}
