#!/bin/bash
# version-floor.sh KVER: bfq-compat.h refuses kernels it is not correct on.
# The cached headers of KVER are copied beside themselves (their relative
# links still resolve) with LINUX_VERSION_CODE changed, and the module is
# built against the copy (make KDIR=<copy> OUT=build/KVER-floor/out). It
# must stop at bfq-compat.h's #error, with the error's words, for:
#   6.1:  6.1.190, one below the floor of the 6.1 series;
#   6.12: 6.13.0, a series the module does not know;
#   latest (7.3): 7.3.3, one below the floor of the 7.3 series.
# A control build of the unaltered headers (the normal build/KVER) is what
# make check's build/KVER step does. Writes "PASS: build/version-floor/KVER"
# (or FAIL:) to build/KVER/results/version-floor.txt; exits non-zero on FAIL.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

KVER=${1:?usage: version-floor.sh 6.1|6.12|latest}
"$BFQ_TOP/scripts/fetch-kernel.sh" "$KVER"
kdir=$(readlink -f "$(kver_dir "$KVER")/kdir")
name=build/version-floor/$KVER
res=$BFQ_TOP/build/$KVER/results
work=$BFQ_TOP/build/$KVER-floor
mkdir -p "$res"
case "$KVER" in
6.1)  ver="6 1 190" want="bfq needs 6.1.191 or later in the 6.1 series" ;;
6.12) ver="6 13 0" want="bfq builds for the 6.1 (6.1.191 on), 6.12 and 7.3 (7.3.4 on) series only" ;;
latest) ver="7 3 3" want="bfq builds for the 6.1 (6.1.191 on), 6.12 and 7.3 (7.3.4 on) series only" ;;
esac

fail() {
	echo "FAIL: $name ($*)" | tee "$res/version-floor.txt"
	exit 1
}

copy=$kdir-bfq-floor
rm -rf "$copy" "$work"
mkdir -p "$work"
trap 'rm -rf "$copy"' EXIT
cp -a "$kdir" "$copy"
# From 7.0 on the headers' Makefile names its own folder (KBUILD_OUTPUT):
# the copy's must name the copy.
sed -i "s|^KBUILD_OUTPUT=.*|KBUILD_OUTPUT=$copy|" "$copy/Makefile"
vh=$copy/include/generated/uapi/linux/version.h
[ -f "$vh" ] || fail "no include/generated/uapi/linux/version.h in $kdir"
read -r a b c <<< "$ver"
sed -i -e "s/^#define LINUX_VERSION_CODE .*/#define LINUX_VERSION_CODE $(( (a << 16) + (b << 8) + c ))/" \
	-e "s/^#define LINUX_VERSION_PATCHLEVEL .*/#define LINUX_VERSION_PATCHLEVEL $b/" \
	-e "s/^#define LINUX_VERSION_SUBLEVEL .*/#define LINUX_VERSION_SUBLEVEL $c/" "$vh"
log "make KDIR=${copy#"$BFQ_CACHE"/} (LINUX_VERSION_CODE of $a.$b.$c; must fail)"
rc=0
make -C "$BFQ_TOP" --no-print-directory KDIR="$copy" \
	BLOCK_SRC="$(kver_dir "$KVER")/linux/block" OUT="$work/out" \
	> "$work/build.log" 2>&1 || rc=$?
grep -E 'error|Error' "$work/build.log" | head -n 5 >&2 || true
[ $rc != 0 ] || fail "the build for $a.$b.$c passed"
[ ! -e "$work/out/bfq.ko" ] || fail "the refused build left $work/out/bfq.ko"
grep -qF "#error \"$want" "$work/build.log" ||
	fail "the build failed, but not at bfq-compat.h's #error: see ${work#"$BFQ_TOP"/}/build.log"
echo "PASS: $name" | tee "$res/version-floor.txt"
