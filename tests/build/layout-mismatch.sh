#!/bin/bash
# layout-mismatch.sh KVER: the layout check (scripts/layout-check.sh) refuses
# a build whose block/ headers differ from the target kernel's. The private
# headers of KVER's cached linux-source are copied into
# build/KVER-layout-mismatch/block/ (its Makefile beside) with one member added at the head of
# struct elevator_queue (elevator.h), and the module is built against that
# copy (make KVER=KVER BLOCK_SRC=<copy> OUT=build/KVER-layout-mismatch/out).
# Passes when that build fails naming struct elevator_queue and leaves no
# bfq.ko. Writes "PASS: build/layout-mismatch/KVER" (or FAIL:) to
# build/KVER/results/layout-mismatch.txt; exits non-zero on FAIL.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

KVER=${1:?usage: layout-mismatch.sh 6.1|6.12}
kdir_cache=$(kver_dir "$KVER")
"$BFQ_TOP/scripts/fetch-kernel.sh" "$KVER"
name=build/layout-mismatch/$KVER
res=$BFQ_TOP/build/$KVER/results
work=$BFQ_TOP/build/$KVER-layout-mismatch
mkdir -p "$res"
rm -rf "$work"
mkdir -p "$work/block"

fail() {
	echo "FAIL: $name ($*)" | tee "$res/layout-mismatch.txt"
	exit 1
}

# The private headers the module includes (not the kernel's bfq-*.h: ours
# are found first, from the module's own folder).
for h in "$kdir_cache"/linux/block/*.h; do
	case "${h##*/}" in bfq-*) continue ;; esac
	cp "$h" "$work/block/"
done
# Its Makefile says which linux-source the headers are of.
cp "$kdir_cache/linux/Makefile" "$work/"
marker="unsigned long layout_mismatch_test;"
awk -v m="$marker" '
	/^struct elevator_queue *\{?$/ { f = 1 }
	{ print }
	f && /\{$/ { print "\t" m; f = 0 }' \
	"$kdir_cache/linux/block/elevator.h" > "$work/block/elevator.h"
grep -qF "$marker" "$work/block/elevator.h" ||
	fail "struct elevator_queue not found in elevator.h"
log "struct elevator_queue in $work/block/elevator.h:"
sed -n '/^struct elevator_queue/,/^}/p' "$work/block/elevator.h" | head -n 5 >&2

log "make KVER=$KVER BLOCK_SRC=$work/block OUT=$work/out (must fail)"
rc=0
make -C "$BFQ_TOP" --no-print-directory -j"$(nproc)" KVER="$KVER" \
	BLOCK_SRC="$work/block" OUT="$work/out" > "$work/build.log" 2>&1 || rc=$?
cat "$work/build.log"
[ $rc != 0 ] || fail "the build with an altered struct elevator_queue passed"
[ ! -e "$work/out/bfq.ko" ] || fail "the refused build left $work/out/bfq.ko"
grep -q '^bfq: struct elevator_queue differs between the block/ headers used' \
	"$work/build.log" || fail "the build failed without naming struct elevator_queue"
echo "PASS: $name" | tee "$res/layout-mismatch.txt"
