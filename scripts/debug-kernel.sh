#!/bin/bash
# debug-kernel.sh KVER: build the debug kernel of series KVER (6.1|6.12):
# the cached linux-source with our bfq-* in block/ (scripts/intree.sh
# --sync-only), bfq, null_blk and scsi_debug built in, and the kernel's
# checkers on: KASAN, lockdep (PROVE_LOCKING, PROVE_RCU), DEBUG_LIST,
# DEBUG_OBJECTS, kmemleak, hung-task and lockup detectors.
#
# Config: `make tinyconfig`, the kernel's kvm_guest.config, then our
# fragment tests/debug/debug.config and the series' own
# tests/debug/debug-KVER.config (merge_config.sh, as kunit.py does);
# every =y/=number line of the fragment must hold after olddefconfig, or the
# script stops and names the lost options. The config is redone only when
# the fragment changes.
#
# The build tree $BFQ_CACHE/KVER/debug-build is kept: after an edit of our
# files only they (and the link) are rebuilt. Result:
#   $BFQ_CACHE/KVER/debug/bzImage   booted by the VM lab (VMTEST_DEBUG=1,
#                                   scripts/stress.sh)
#   $BFQ_CACHE/KVER/debug/config    its .config
# Prints PASS:/FAIL: debug-kernel/KVER, also to build/KVER/results/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

KVER=${1:?usage: debug-kernel.sh 6.1|6.12}
dir=$(kver_dir "$KVER")
frag=$BFQ_TOP/tests/debug/debug.config
tree=$dir/intree
out=$dir/debug-build
dest=$dir/debug
res=$BFQ_TOP/build/$KVER/results
mkdir -p "$out" "$dest" "$res"

"$BFQ_TOP/scripts/intree.sh" --sync-only "$KVER"
# intree.sh's lock also serialises us against a KUnit or in-tree build
# resyncing the same tree.
exec 9>"$tree.lock"
flock 9

fail() {
	echo "FAIL: debug-kernel/$KVER" | tee "$res/debug-kernel.txt"
	die "$*"
}

kmake() { make -C "$tree" O="$out" ARCH=x86_64 "$@"; }

# The series' own additions (options only one of them has), after it.
frags=("$frag")
[ ! -f "${frag%.config}-$KVER.config" ] || frags+=("${frag%.config}-$KVER.config")
stamp=$(cat "${frags[@]}" "$0" | sha256sum | cut -c1-16)
if [ "$(cat "$out/.frag-stamp" 2>/dev/null)" != "$stamp" ] ||
   [ ! -f "$out/.config" ]; then
	log "configuring the $KVER debug kernel in $out"
	kmake -s tinyconfig
	KCONFIG_CONFIG=$out/.config "$tree/scripts/kconfig/merge_config.sh" \
		-m -O "$out" "$out/.config" "$tree/kernel/configs/kvm_guest.config" \
		"${frags[@]}" > "$out/merge.log" 2>&1 || fail "merge_config failed: see $out/merge.log"
	kmake -s olddefconfig
	lost=$(cat "${frags[@]}" | grep -E '^CONFIG_[A-Z0-9_]+=(y|[0-9]+)$' | while read -r l; do
			grep -qx "$l" "$out/.config" || echo "${l%%=*}"
		done)
	[ -z "$lost" ] || fail "options lost in olddefconfig (unmet dependencies): $(echo $lost)"
	echo "$stamp" > "$out/.frag-stamp"
fi

start=$SECONDS
log "building the $KVER debug kernel (log: $out/build.log)"
if ! kmake -j"$(nproc)" bzImage > "$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log" >&2
	fail "build failed"
fi
if grep -E 'block/bfq-[a-z]+\.c:[0-9]+:[0-9]+: (warning|error)' "$out/build.log" >&2; then
	fail "our files compile with warnings in the debug config"
fi
cp "$out/arch/x86/boot/bzImage" "$dest/bzImage.tmp"
mv "$dest/bzImage.tmp" "$dest/bzImage"
cp "$out/.config" "$dest/config"
log "debug kernel $(cat "$out/include/config/kernel.release") built in $((SECONDS - start))s: $dest/bzImage"
echo "PASS: debug-kernel/$KVER" | tee "$res/debug-kernel.txt"
