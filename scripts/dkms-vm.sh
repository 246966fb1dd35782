#!/bin/bash
# dkms-vm.sh KVER: DKMS on the cached Debian kernel KVER (6.1|6.12|trixie|latest),
# shown in a VM booted on that kernel's own image: in the guest, `dkms add`,
# `dkms build` and `dkms install` of our source tree for the running
# kernel, `modprobe bfq` taking ours from updates/, I/O through it on a
# null_blk device, then `dkms remove` and `modprobe bfq` taking Debian's
# kernel/block/bfq.ko again. tests/dkms/README.md says what each check
# means.
#
# The guest is a Debian bookworm rootfs made with debootstrap (minbase and
# what DKMS and a module build need, DKMS_PACKAGES below), cached as
# $BFQ_CACHE/dkms/rootfs-<key>.cpio and rebuilt only when that list
# changes. A second archive, $BFQ_CACHE/KVER/dkms-kernel-<key>.cpio, holds
# the kernel's side as a Debian system with its headers installed has it:
#   /usr/lib/modules/<release>/   kernel/block (Debian's bfq.ko) and
#                                 kernel/drivers/block (null_blk), with
#                                 their dependencies, as Debian compresses
#                                 them, the build and source links, depmod
#   /usr/src/linux-headers-*, /usr/lib/linux-kbuild-*
#                                 the headers and kbuild packages (for
#                                 latest with the host programs that
#                                 scripts/fetch-kernel.sh rebuilt for
#                                 bookworm's C library)
#   /boot/config-<release>
#   /var/cache/bfq-lab/KVER/      what the Makefile's KDIR mode takes from
#                                 the cache: linux/block/*.h (the private
#                                 headers, the kernel's own bfq-*.h left
#                                 out), linux/Makefile, release; marked
#                                 .fetched as scripts/fetch-kernel.sh does
#                                 (the guest has no network to fetch with)
# The last holds the source tree as `dkms add` expects it, git archive of
# the repository's HEAD in /usr/src/bfq-ours-0.1 (committed work only), the
# guest /init (tests/dkms/init) and the run's settings. The three are
# concatenated into one initramfs; the guest runs from RAM (VM_MEM).
#
# Writes build/KVER/results/dkms.txt: one line per check,
#   PASS: dkms/KVER/<check>   or   FAIL: dkms/KVER/<check> (detail)
# and "N passed, N failed" last (printed too); a check the guest never
# reported is a FAIL. Keeps the guest log in build/KVER/vm-logs/ and appends
# the build's and the boot's times to build/KVER/results/dkms-times.txt.
# Exits 1 when any line is a FAIL.
#
# Environment:
#   DKMS_VM_TIMEOUT=N  the boot's limit in seconds (default 5400: the
#                      module's build under TCG takes minutes)
#   DKMS_JOBS=N        dkms build -j N in the guest (default: the guest's
#                      vCPU count, as dkms itself)
#   DKMS_MIRROR=url    Debian mirror for debootstrap
#   VM_SMP, VM_MEM     guest vCPUs (default 2) and memory (default here 4G)
#   DKMS_VERBOSE=1     echo the guest console while it runs
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$BFQ_TOP/scripts/vm/common.sh"

KVER=${1:?usage: dkms-vm.sh 6.1|6.12|trixie|latest}
dir=$(kver_dir "$KVER")
dcache=$BFQ_CACHE/dkms
out=$BFQ_TOP/build/$KVER
gdir=$BFQ_TOP/tests/dkms
export VM_MEM=${VM_MEM:-4G}
vm_tmo=${DKMS_VM_TIMEOUT:-5400}

[ -f "$dir/.fetched" ] && [ -e "$dir/vmlinuz" ] ||
	die "kernel $KVER not fetched: run scripts/fetch-kernel.sh $KVER"
release=$(cat "$dir/release")
moddir=$(_vm_moddir "$KVER")

# The checks the guest reports, in its order: one that never reports is a
# FAIL (the guest stopped before it).
CHECKS="add build install status modinfo-updates modprobe-ours loaded-ours
	io-ours rmmod remove modinfo-stock modprobe-stock loaded-stock io-stock"

"$BFQ_TOP/scripts/deps.sh"
apt_need debootstrap
mkdir -p "$dcache"
# The run's scratch (the staging folders included): removed however the
# script ends.
work=$(mktemp -d)
rstage=$dcache/rootfs-stage.$$
trap 'rm -rf "$work" "$rstage"' EXIT

# --- the rootfs -------------------------------------------------------------
# dkms (and through its dependencies gcc-12, make, dpkg-dev, patch, kmod);
# libc6-dev and libelf-dev for kbuild; dwarves (pahole) and binutils
# (objcopy) for scripts/layout-check.sh; xz-utils for the modules dkms
# compresses as the kernel's config says; openssl for the key dkms signs
# the module with, as on a real system.
DKMS_PACKAGES="dkms make gcc libc6-dev libelf-dev dwarves binutils kmod
	xz-utils openssl bash coreutils util-linux"
vm_rootfs "$dcache" DKMS "${DKMS_MIRROR:-http://deb.debian.org/debian}" \
	$DKMS_PACKAGES
rootfs=$VM_ROOTFS

# --- the kernel's side --------------------------------------------------------
# Modules: the block layer's (Debian's bfq.ko) and the block drivers'
# (null_blk), and whatever those two need from elsewhere.
MOD_DIRS="block drivers/block"
kbuild=$(cd "$dir/root/usr/lib" && ls -d linux-kbuild-* | head -1)
mkey=$( { echo "$release $MOD_DIRS $kbuild"
	  stat -L -c '%s %Y' "$dir/vmlinuz" "$dir/.fetched"
	  sed -n '/^# --- the kernel/,/^# --- the source/p' "$0"; } |
	sha256sum | cut -c1-16)
kcpio=$dir/dkms-kernel-$mkey.cpio
if [ ! -f "$kcpio" ]; then
	log "packing $KVER's modules, headers and block/ headers for the DKMS guest"
	stage=$work/kernel
	m=$stage/usr/lib/modules/$release
	mkdir -p "$m" "$stage/boot" "$stage/usr/src" "$stage/usr/lib"
	for d in $MOD_DIRS; do
		mkdir -p "$m/kernel/$d"
		cp -a "$moddir/kernel/$d/." "$m/kernel/$d/"
	done
	_vm_deps "$moddir" bfq null_blk | while read -r f; do
		rel=${f#"$moddir"/}
		mkdir -p "$m/$(dirname "$rel")"
		cp -a "$f" "$m/$rel"
	done
	cp -a "$moddir"/modules.builtin* "$moddir"/modules.order "$moddir"/build \
		"$moddir"/source "$m/"
	depmod -b "$stage/usr" "$release" || die "depmod failed for the $KVER modules"
	cp -L "$dir/root/boot/config-$release" "$stage/boot/"
	# The headers and kbuild packages as dpkg installs them; the headers'
	# Makefile named its -common tree (and from 7.0 its own) by the
	# cache's path, fetch-kernel.sh's edit: back to /usr/src.
	cp -a "$dir"/root/usr/src/linux-headers-* "$dir"/root/usr/src/linux-kbuild-* \
		"$stage/usr/src/"
	cp -a "$dir/root/usr/lib/$kbuild" "$stage/usr/lib/"
	sed -i "s|$dir/root/usr/src/|/usr/src/|" \
		"$stage/usr/src/linux-headers-$release/Makefile"
	# The Makefile's KDIR mode: BLOCK_SRC=/var/cache/bfq-lab/KVER/linux/block.
	# Its headers only, and not the kernel's own bfq-*.h: our module
	# has its own.
	c=$stage/var/cache/bfq-lab/$KVER
	mkdir -p "$c/linux/block"
	find "$dir/linux/block" -maxdepth 1 -name '*.h' ! -name 'bfq-*' \
		-exec cp -a -t "$c/linux/block/" {} +
	cp -a "$dir/linux/Makefile" "$c/linux/"
	cp "$dir/release" "$c/"
	touch "$c/.fetched"
	(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet) > "$kcpio.tmp"
	rm -rf "$stage"
	rm -f "$dir"/dkms-kernel-*.cpio
	mv "$kcpio.tmp" "$kcpio"
fi

# --- the source tree and the overlay -------------------------------------------
mkdir -p "$out/results" "$out/vm-logs"
commit=$(git -C "$BFQ_TOP" rev-parse --short=12 HEAD)
git -C "$BFQ_TOP" diff --quiet HEAD -- || log "warning: uncommitted changes are not in the guest (git archive of HEAD, $commit)"
stage=$work/stage
mkdir -p "$stage/usr/src/bfq-ours-0.1"
git -C "$BFQ_TOP" archive HEAD | tar -x -C "$stage/usr/src/bfq-ours-0.1"
cp "$gdir/init" "$stage/init"
chmod 755 "$stage/init"
mkdir -p "$stage/etc"
cat > "$stage/etc/dkms-vm.conf" <<CONF
DV_KVER=$KVER
DV_COMMIT=$commit
DV_JOBS=${DKMS_JOBS:-}
DV_WD=$vm_tmo
CONF
(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet) > "$work/overlay.cpio"
rm -rf "$stage"
cat "$rootfs" "$kcpio" "$work/overlay.cpio" > "$work/initrd.cpio"

# --- the boot -----------------------------------------------------------------
stamp=$(date +%Y%m%d-%H%M%S)
logf=$out/vm-logs/dkms-$stamp.log
res=$out/results/dkms.txt
log "booting $KVER ($release) for DKMS at $commit (log: $logf)"
tailpid=
if [ "${DKMS_VERBOSE:-0}" = 1 ]; then
	touch "$logf.raw"; tail -n +1 -f "$logf.raw" & tailpid=$!
fi
t0=$(date +%s)
set +e
vm_boot "$KVER" "$work/initrd.cpio" "$logf.raw" "$((vm_tmo + 120))" ""
qrc=$?
set -e
secs=$(( $(date +%s) - t0 ))
[ -n "$tailpid" ] && kill "$tailpid" 2>/dev/null
tr -d '\r' < "$logf.raw" > "$logf"
rm -f "$logf.raw"

# --- the results ----------------------------------------------------------------
# The guest's lines "DKMS-RESULT <check> TAB pass|fail TAB detail" (found
# anywhere in a line: a kernel message may have been printed before).
sed -n 's/.*DKMS-RESULT \(.*\)$/\1/p' "$logf" > "$work/results"
pass=0 fail=0
: > "$res.tmp"
for c in $CHECKS; do
	line=$(awk -F'\t' -v c="$c" '$1 == c { print; exit }' "$work/results")
	st=$(echo "$line" | cut -f2)
	detail=$(echo "$line" | cut -f3-)
	if [ -z "$line" ]; then
		st=fail detail="not reported: the guest stopped before it (qemu status $qrc)"
	fi
	if [ "$st" = pass ]; then
		echo "PASS: dkms/$KVER/$c${detail:+ ($detail)}"
		pass=$((pass + 1))
	else
		echo "FAIL: dkms/$KVER/$c${detail:+ ($detail)}"
		fail=$((fail + 1))
	fi >> "$res.tmp"
done
echo "$pass passed, $fail failed" >> "$res.tmp"
mv "$res.tmp" "$res"
cat "$res"
build_secs=$(sed -n 's/.*DKMS-TIME build \([0-9]*\).*/\1/p' "$logf" | tail -1)
# The make command dkms ran, as it echoes it: its -j.
jobs=$(sed -n "s/^\[build\] 'make' \(-j[0-9]*\) .*/\1/p" "$logf" | head -1)
echo "$(date -u +%FT%TZ) dkms/$KVER: commit $commit, dkms build ${build_secs:-?} s (make ${jobs:-?}), boot $secs s (vCPUs ${VM_SMP:-2}), host load $(cut -d' ' -f1-3 /proc/loadavg)" \
	>> "$out/results/dkms-times.txt"
log "dkms/$KVER: dkms build ${build_secs:-?} s (make ${jobs:-?}) in the guest, the boot $secs s wall; log: $logf"
if [ "$fail" -gt 0 ]; then
	echo "   dkms/$KVER: the guest log's tail:"
	grep -v 'DKMS-RESULT' "$logf" | tail -n 40 | sed 's/^/   | /'
	exit 1
fi
