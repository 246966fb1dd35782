#!/bin/bash
# blktests.sh KVER: the upstream blktests suite (its block, loop and dm
# groups) in a VM on the cached Debian kernel KVER (6.1|6.12), once with
# stock bfq and once with ours, bfq made the scheduler of every test device
# by a udev rule; then a table of the two.
#
# The suite is not ours and not in this repository: it is taken from
# BLKTESTS_SRC (a git dir or a checkout; default $BFQ_CACHE/blktests/src).
# A git dir's HEAD (or BLKTESTS_REV) is unpacked with git archive into
# $BFQ_CACHE/blktests/tree-<commit> (a git checkout gives its committed
# HEAD, not its uncommitted edits); a folder without git is copied to
# $BFQ_CACHE/blktests/tree-local. Its src/ helpers are built there. With
# no source at all the script says SKIP and exits 0.
#
# The guest is a Debian bookworm rootfs made with debootstrap (minbase and
# the packages the tests need, BLKTESTS_PACKAGES below), cached as
# $BFQ_CACHE/blktests/rootfs-<key>.cpio and rebuilt only when that list
# changes; the kernel's block, SCSI, md, NVMe, fs, lib and crypto modules
# ($BFQ_CACHE/KVER/blktests-modules-<key>.cpio); the suite; and an overlay
# with tests/blktests/ (guest /init, the udev rule and its logger) and, for
# IMPL=ours, build/KVER/bfq.ko in place of Debian's kernel/block/bfq.ko. All
# are concatenated into one initramfs; the guest runs from RAM (VM_MEM).
# The guest runs systemd-udevd: tests/blktests/99-blktests-bfq.rules.
#
# Writes build/KVER/results/blktests-IMPL.txt, one line per result:
#   <test>[ (<device or condition>)] TAB pass|fail|skip|not run TAB detail
# (skip: blktests said "not run", its reason; not run: the harness never
# ran it), keeps the guest logs in build/KVER/vm-logs/, and prints the
# table test | stock | ours, then one line per test that passes with stock:
#   PASS: blktests/KVER/<test>   or   FAIL: blktests/KVER/<test>
# and "N passed, N failed" last. Exits 1 when any line is a FAIL.
#
# Environment:
#   BLKTESTS_SRC=dir       the suite (see above)
#   BLKTESTS_REV=rev       the commit of a git source (default HEAD)
#   BLKTESTS_GROUPS="..."  groups or tests to run (default "block loop dm")
#   BLKTESTS_IMPL="..."    which boots (default "stock ours"); a table
#                          column not run now is read from the last file
#   BLKTESTS_TIMEOUT=N     blktests' TIMEOUT: seconds of I/O of each
#                          time-based test (default 20)
#   BLKTESTS_QUICK=1       blktests' QUICK_RUN: leave out the tests that
#                          are neither quick nor time-based (default 0)
#   BLKTESTS_EXCLUDE="..." tests or groups not to run
#   BLKTESTS_TEST_TMO=N    the guest kills a test after N s (default 600)
#   BLKTESTS_VM_TIMEOUT=N  one boot's limit in seconds (default 5400)
#   BLKTESTS_REBOOTS=N     boots after a guest hang or crash, each going on
#                          after the test it stopped in (default 2)
#   BLKTESTS_MIRROR=url    Debian mirror for debootstrap
#   VM_MEM                 guest memory (default here 4G)
#   BLKTESTS_VERBOSE=1     echo the guest console while it runs
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$BFQ_TOP/scripts/vm/common.sh"

KVER=${1:?usage: blktests.sh 6.1|6.12}
dir=$(kver_dir "$KVER")
groups=${BLKTESTS_GROUPS:-block loop dm}
impls=${BLKTESTS_IMPL:-stock ours}
src=${BLKTESTS_SRC:-$BFQ_CACHE/blktests/src}
bcache=$BFQ_CACHE/blktests
out=$BFQ_TOP/build/$KVER
gdir=$BFQ_TOP/tests/blktests
export VM_MEM=${VM_MEM:-4G}

for i in $impls; do
	case "$i" in ours|stock) ;; *) die "BLKTESTS_IMPL: ours or stock, not '$i'" ;; esac
done

if [ ! -e "$src" ]; then
	echo "SKIP: blktests/$KVER (no blktests source: set BLKTESTS_SRC to a blktests checkout)"
	exit 0
fi
[ -f "$dir/release" ] && [ -e "$dir/vmlinuz" ] ||
	die "kernel $KVER not fetched: run scripts/fetch-kernel.sh $KVER"
case " $impls " in
*" ours "*) [ -f "$out/bfq.ko" ] || die "$out/bfq.ko missing: run 'make KVER=$KVER' first" ;;
esac
release=$(cat "$dir/release")

# Host tools: the lab's, debootstrap for the rootfs, and what the suite's
# src/ helpers need to build (g++, liburing for miniublk).
"$BFQ_TOP/scripts/deps.sh"
apt_need debootstrap g++ make liburing-dev
mkdir -p "$bcache"

# --- the suite ------------------------------------------------------------
# tree: the unpacked suite with its helpers built; srcid names it.
gitdir=$(git -c safe.directory='*' -C "$src" rev-parse --absolute-git-dir 2>/dev/null) || gitdir=
if [ -n "$gitdir" ]; then
	rev=$(git -c safe.directory='*' --git-dir="$gitdir" rev-parse --verify \
		"${BLKTESTS_REV:-HEAD}^{commit}") || die "no commit ${BLKTESTS_REV:-HEAD} in $src"
	srcid=${rev:0:12}
	tree=$bcache/tree-$srcid
	if [ ! -f "$tree/.built" ]; then
		log "unpacking blktests $srcid from $gitdir"
		rm -rf "$tree" && mkdir -p "$tree"
		git -c safe.directory='*' --git-dir="$gitdir" archive "$rev" | tar -x -C "$tree"
	fi
else
	[ -x "$src/check" ] || die "$src is neither a git dir nor a blktests checkout (no ./check)"
	srcid=local
	tree=$bcache/tree-local
	mkdir -p "$tree"
	# The helpers built last time are kept: make builds what changed.
	rsync -a --delete --exclude=/results --exclude=/config --exclude=.git \
		--filter='protect /src/*' "$src"/ "$tree"/
	rm -f "$tree/.built"
fi
if [ ! -f "$tree/.built" ]; then
	log "building blktests' src/ helpers in $tree"
	make -C "$tree/src" -j2 > "$tree/build.log" 2>&1 ||
		{ tail -20 "$tree/build.log"; die "blktests' src/ does not build (log: $tree/build.log)"; }
	touch "$tree/.built"
fi

# --- the rootfs -------------------------------------------------------------
# What blktests' block, loop and dm groups call: bash, coreutils, gawk,
# util-linux (losetup in mount, column and hexdump in bsdextrautils), fio,
# kmod, udev, dmsetup, xfsprogs (xfs_io, mkfs.xfs), e2fsprogs, dosfstools,
# parted, fdisk (sfdisk), blktrace, pciutils (setpci), procps, psmisc
# (killall), liburing2 (miniublk), nvme-cli.
BLKTESTS_PACKAGES="bash coreutils gawk util-linux util-linux-extra mount
	bsdextrautils fdisk kmod udev fio dmsetup xfsprogs e2fsprogs dosfstools
	parted blktrace pciutils procps psmisc liburing2 nvme-cli"
vm_rootfs "$bcache" blktests \
	"${BLKTESTS_MIRROR:-http://deb.debian.org/debian}" $BLKTESTS_PACKAGES
rootfs=$VM_ROOTFS

# --- the kernel's modules ---------------------------------------------------
# Every module of the subsystems the tests load (null_blk, scsi_debug, sd,
# sr, loop, brd, ublk, dm-*, nvme, xfs, ext4, vfat, crc and crypto
# helpers), uncompressed, with depmod's files and the kernel config (the
# suite reads /boot/config-<release>).
MOD_DIRS="drivers/block drivers/md drivers/nvme drivers/cdrom drivers/scsi
	fs lib crypto block arch"
moddir=$(_vm_moddir "$KVER")
mkey=$( { echo "$release $MOD_DIRS"; stat -L -c '%s %Y' "$dir/vmlinuz"; } |
	sha256sum | cut -c1-16)
mods=$dir/blktests-modules-$mkey.cpio
if [ ! -f "$mods" ]; then
	log "packing $KVER's modules for the blktests guest"
	stage=$(mktemp -d)
	m=$stage/lib/modules/$release
	mkdir -p "$m" "$stage/boot"
	for d in $MOD_DIRS; do
		[ -d "$moddir/kernel/$d" ] || continue
		mkdir -p "$m/kernel/$d"
		cp -a "$moddir/kernel/$d/." "$m/kernel/$d/"
	done
	find "$m" -name '*.ko.xz' -exec xz -d {} +
	find "$m" -name '*.ko.zst' -exec zstd -q -d --rm {} +
	cp "$moddir"/modules.builtin* "$moddir"/modules.order "$m/" 2>/dev/null || true
	depmod -b "$stage" "$release" || die "depmod failed for the $KVER modules"
	# The rootfs's /lib is a link to usr/lib: a lib/ folder in a later
	# archive would replace that link.
	mkdir -p "$stage/usr/lib"
	mv "$stage/lib/modules" "$stage/usr/lib/modules"
	rmdir "$stage/lib"
	cp "$dir/root/boot/config-$release" "$stage/boot/"
	(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet) > "$mods.tmp"
	rm -rf "$stage"
	rm -f "$dir"/blktests-modules-*.cpio
	mv "$mods.tmp" "$mods"
fi

# --- the suite's cpio ---------------------------------------------------------
suite=$bcache/suite-$srcid.cpio
if [ ! -f "$suite" ] || [ "$tree/.built" -nt "$suite" ]; then
	stage=$(mktemp -d)
	mkdir -p "$stage/opt"
	cp -a "$tree" "$stage/opt/blktests"
	rm -rf "$stage/opt/blktests/results" "$stage/opt/blktests/config"
	(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet) > "$suite.tmp"
	rm -rf "$stage"
	mv "$suite.tmp" "$suite"
fi

# --- one boot per implementation ---------------------------------------------
mkdir -p "$out/results" "$out/vm-logs"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tmo_test=${BLKTESTS_TEST_TMO:-600}
vm_tmo=${BLKTESTS_VM_TIMEOUT:-5400}

# overlay IMPL SKIP: the guest /init, the udev rule and its logger, the run's
# settings, and for ours our module in place of Debian's.
overlay() {
	local impl=$1 skip=$2 stage
	stage=$(mktemp -d)
	mkdir -p "$stage/etc/udev/rules.d" "$stage/usr/local/sbin" \
		 "$stage/usr/lib/modules/$release/kernel/block"
	cp "$gdir/init" "$stage/init"
	chmod 755 "$stage/init"
	cp "$gdir/99-blktests-bfq.rules" "$stage/etc/udev/rules.d/"
	install -m 755 "$gdir/blktests-udev-log" "$stage/usr/local/sbin/"
	if [ "$impl" = ours ]; then
		cp "$out/bfq.ko" "$stage/usr/lib/modules/$release/kernel/block/bfq.ko"
	fi
	cat > "$stage/etc/blktests-run.conf" <<-CONF
	BT_IMPL=$impl
	BT_TESTS="$groups"
	BT_EXCLUDE="${BLKTESTS_EXCLUDE:-}"
	BT_TIMEOUT=${BLKTESTS_TIMEOUT:-20}
	BT_QUICK=${BLKTESTS_QUICK:-0}
	BT_TEST_TMO=$tmo_test
	BT_WD=$vm_tmo
	BT_SKIP="$skip"
	CONF
	(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet)
	rm -rf "$stage"
}

# all_tests: the tests BLKTESTS_GROUPS names, as the guest lists them.
all_tests() {
	local g f
	for g in $groups; do
		if [ -d "$tree/tests/$g" ]; then
			for f in "$tree/tests/$g"/[0-9][0-9][0-9]; do echo "${f#"$tree"/tests/}"; done
		else
			echo "$g"
		fi
	done
}

# run_impl IMPL: boots until every test has run (a boot that hangs or
# crashes is followed by one that goes on after the test it stopped in, at
# most BLKTESTS_REBOOTS times); writes the results file.
run_impl() {
	local impl=$1 stamp logf res boots=0 skip= qrc last t0 blog t
	stamp=$(date +%Y%m%d-%H%M%S)
	logf=$out/vm-logs/blktests-$impl-$stamp.log
	res=$out/results/blktests-$impl.txt
	: > "$logf"
	: > "$res.tmp"
	t0=$(date +%s)
	while :; do
		overlay "$impl" "$skip" > "$work/overlay.cpio"
		cat "$rootfs" "$mods" "$suite" "$work/overlay.cpio" > "$work/initrd.cpio"
		blog=$logf.boot$boots
		log "booting $KVER ($impl bfq) for blktests $groups (log: $logf)"
		if [ "${BLKTESTS_VERBOSE:-0}" = 1 ]; then
			touch "$blog"; tail -n +1 -f "$blog" & tailpid=$!
		fi
		set +e
		vm_boot "$KVER" "$work/initrd.cpio" "$blog" "$((vm_tmo + 120))" ""
		qrc=$?
		set -e
		[ -n "${tailpid:-}" ] && kill "$tailpid" 2>/dev/null
		tailpid=
		tr -d '\r' < "$blog" > "$blog.clean"
		cat "$blog.clean" >> "$logf"
		rm -f "$blog"
		# What this boot reported (anywhere in a line: a kernel message
		# may have been printed just before it).
		sed -n 's/.*BLKTESTS-RESULT \(.*\)$/\1/p' "$blog.clean" >> "$res.tmp"
		if grep -q 'BLKTESTS-BFQ-ERROR' "$blog.clean"; then
			grep 'BLKTESTS-BFQ' "$blog.clean" >&2
			die "the guest did not load the $impl bfq (log: $logf)"
		fi
		grep -q 'BLKTESTS-DONE' "$blog.clean" && { rm -f "$blog.clean"; break; }
		# Hung or crashed: in the last test begun and not ended.
		last=$(sed -n 's/.*BLKTESTS-BEGIN \([^ ]*\).*/\1/p' "$blog.clean" | tail -1)
		if [ -n "$last" ] && ! grep -q "BLKTESTS-END $last " "$blog.clean"; then
			printf '%s\tfail\tthe guest hung or crashed in it (qemu status %s)\n' "$last" "$qrc" >> "$res.tmp"
			echo "   blktests/$KVER/$impl: the guest stopped in $last (qemu status $qrc); the log's tail:"
		else
			last=
			echo "   blktests/$KVER/$impl: the guest stopped outside a test (qemu status $qrc); the log's tail:"
		fi
		tail -n 30 "$blog.clean" | sed 's/^/   | /'
		t=$(sed -n 's/.*BLKTESTS-END \([^ ]*\) .*/\1/p' "$blog.clean" | tr '\n' ' ')
		rm -f "$blog.clean"
		# A boot that ran no test will not do better the next time.
		[ -n "$t$last" ] || break
		skip="$skip $t $last"
		boots=$((boots + 1))
		[ $boots -le "${BLKTESTS_REBOOTS:-2}" ] || break
	done
	# One line per result; a test that never reported is "not run".
	awk -F'\t' '!s[$1]++' "$res.tmp" > "$res"
	rm -f "$res.tmp"
	all_tests | while read -r t; do
		awk -F'\t' -v t="$t" '$1 == t || index($1, t " (") == 1 { f = 1 } END { exit !f }' "$res" ||
			printf '%s\tnot run\tthe guest stopped before it\n' "$t" >> "$res"
	done
	local secs=$(( $(date +%s) - t0 ))
	log "blktests/$KVER/$impl: $secs s wall, $((boots + 1)) boot(s); log: $logf"
	echo "$(date -u +%FT%TZ) blktests/$KVER/$impl: $secs s, $((boots + 1)) boot(s), groups: $groups" \
		>> "$out/results/blktests-times.txt"
}

for impl in $impls; do
	run_impl "$impl"
done

# --- the table ----------------------------------------------------------------
"$BFQ_TOP/scripts/blktests-table.sh" "$KVER" \
	"$out/results/blktests-stock.txt" "$out/results/blktests-ours.txt"
