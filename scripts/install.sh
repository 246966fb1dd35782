#!/bin/bash
# install.sh install BFQ.KO | uninstall [RELEASE...]
#
# install: copy BFQ.KO to $ROOT/lib/modules/<release>/updates/bfq.ko, where
#   <release> is the kernel it was built for (first word of its vermagic), and
#   run depmod for that release: updates/ is searched before kernel/, so
#   `modprobe bfq` and the elevator auto-load then take ours, not the
#   distribution's block/bfq.ko. A bfq already loaded stays until it is
#   unloaded (rmmod bfq, with no queue using it) or the next boot.
# uninstall: remove updates/bfq.ko for the given releases, or for every
#   release under $ROOT/lib/modules that has one, and run depmod for each.
#
# ROOT is $INSTALL_MOD_PATH, else $DESTDIR, else / (the kbuild and packaging
# conventions): install into a staging root to test or to package. With
# ROOT=/ the release's modules must be installed (lib/modules/<release>/kernel)
# or we refuse, since depmod would write a modules.dep of ours alone.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

root=${INSTALL_MOD_PATH:-${DESTDIR:-}}
root=${root%/}
usage="usage: install.sh install BFQ.KO | uninstall [RELEASE...]"

run_depmod() {
	if [ -n "$root" ]; then
		depmod -b "$root" "$1"
	else
		as_root depmod "$1"
	fi
}

case "${1:-}" in
install)
	ko=${2:?$usage}
	[ -f "$ko" ] || die "$ko: no such module (build it first: make KVER=...)"
	[ "$(modinfo -F name "$ko")" = bfq ] || die "$ko is not a bfq module"
	release=$(modinfo -F vermagic "$ko" | awk '{print $1}')
	[ -n "$release" ] || die "$ko: no vermagic"
	mdir=$root/lib/modules/$release
	if [ -z "$root" ] && [ ! -d "$mdir/kernel" ]; then
		die "kernel $release is not installed here (no $mdir/kernel);" \
		    "use INSTALL_MOD_PATH=<dir> to stage"
	fi
	as_root install -D -m 0644 "$ko" "$mdir/updates/bfq.ko"
	run_depmod "$release"
	log "installed $mdir/updates/bfq.ko for $release"
	if [ -z "$root" ] && [ "$(uname -r)" = "$release" ] &&
	   grep -q '^bfq ' /proc/modules; then
		log "a bfq is loaded: ours takes over after 'rmmod bfq' or a reboot"
	fi
	;;
uninstall)
	shift
	releases=("$@")
	if [ ${#releases[@]} -eq 0 ]; then
		shopt -s nullglob
		for f in "$root"/lib/modules/*/updates/bfq.ko; do
			r=${f%/updates/bfq.ko}
			releases+=("${r##*/}")
		done
		shopt -u nullglob
	fi
	[ ${#releases[@]} -gt 0 ] || { log "no updates/bfq.ko installed"; exit 0; }
	for release in "${releases[@]}"; do
		f=$root/lib/modules/$release/updates/bfq.ko
		[ -e "$f" ] || { log "$release: no $f"; continue; }
		as_root rm -f "$f"
		rmdir "$root/lib/modules/$release/updates" 2>/dev/null || true
		run_depmod "$release"
		log "removed $f"
	done
	;;
*)
	die "$usage"
	;;
esac
