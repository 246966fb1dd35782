#!/bin/bash
# btf-cache.sh KVER KVER...: scripts/layout-check.sh keeps the BTF it
# extracts from each kernel's image apart. The cached headers of 6.12,
# trixie and latest all name their image "vmlinux"; a cache kept one BTF
# per image name, so the checks of two of them evicted each other's, and
# one running while the other replaced it failed (make check's lanes
# build several kernels at once). The layout check runs for each KVER's
# built module (build/KVER/bfq.ko) in turn, with the BTF cache in a fresh
# folder: each kernel's BTF must still be there after the others'.
# Writes "PASS: build/btf-cache" (or FAIL:) to build/check-btf-cache.txt.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

[ $# -ge 2 ] || die "usage: btf-cache.sh KVER KVER..."
res=$BFQ_TOP/build/check-btf-cache.txt
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0
for k in "$@"; do
	dir=$(kver_dir "$k")
	[ -f "$BFQ_TOP/build/$k/bfq.ko" ] || die "build/$k/bfq.ko missing: make KVER=$k first"
	BFQ_CACHE=$work "$BFQ_TOP/scripts/layout-check.sh" "$BFQ_TOP/build/$k/bfq.ko" \
		"$dir/linux/block" "$dir/kdir"
	n=$((n + 1))
	have=$(find "$work/btf" -name '*.btf' | wc -l)
	echo "after $k: $have BTF file(s) cached"
	if [ "$have" != "$n" ]; then
		echo "FAIL: build/btf-cache ($have BTF files cached after $n kernels: one evicted another's)" | tee "$res"
		exit 1
	fi
done
echo "PASS: build/btf-cache" | tee "$res"
