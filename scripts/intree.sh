#!/bin/bash
# intree.sh [--sync-only] KVER [TREE]
#
# Put our BFQ into a copy of the cached linux-source tree's block/ and, unless
# --sync-only, build block/bfq.ko there as the proof that it builds in-tree.
#
#   TREE (default $BFQ_CACHE/KVER/intree) is a `cp -al` hard-link copy of the
#   pristine $BFQ_CACHE/KVER/linux: cheap to create. A file of TREE is only
#   ever replaced by unlinking it first and writing a new one, never written
#   in place, so the pristine tree is never modified through a hard link.
#   Build products never go into TREE either (kbuild runs with O=), so TREE
#   stays a clean source tree that KUnit (scripts/kunit.sh) can share.
#
#   In TREE/block: the stock bfq-*.c/bfq-*.h are deleted; our top-level
#   bfq-*.c/bfq-*.h (KUnit bfq-*-test.c included) are copied in; our Kconfig
#   and Makefile become block/Kconfig.bfq and block/Makefile.bfq unchanged;
#   block/Kconfig.iosched loses the stock IOSCHED_BFQ, BFQ_GROUP_IOSCHED and
#   BFQ_CGROUP_DEBUG entries and sources Kconfig.bfq instead; in block/Makefile
#   the stock `bfq-y := ...` and `obj-$(CONFIG_IOSCHED_BFQ) += bfq.o` lines
#   become one `include $(srctree)/block/Makefile.bfq`.
#   ($(srctree)/$(src) is not used: on 6.12 with O=, $(src) is already
#   absolute, $(srctree)/block, so $(srctree)/$(src) names no directory.)
#
# Idempotent and re-syncing: a rerun replaces only the files whose content
# changed (those get a new mtime, the others keep theirs), so an incremental
# kernel build recompiles only what we edited.
#
# The build (not with --sync-only) uses Debian's config of that series
# (kdir/.config, IOSCHED_BFQ=m), minus debug info and module signing, in
# $BFQ_CACHE/KVER/intree-build: make olddefconfig modules_prepare
# block/bfq.ko. No vmlinux is built (far too slow on 2 cores), so modpost
# cannot resolve the kernel's symbols: KBUILD_MODPOST_WARN=1 turns its
# "undefined!" errors (6.12) into warnings. That exports check is the
# out-of-tree build's, against Debian's Module.symvers. It prints PASS:/FAIL:
# intree/KVER/build and writes it to build/KVER/results/intree.txt.
# INTREE_MAKEFLAGS passes more to the last make (e.g. W=1).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

sync_only=
if [ "${1:-}" = --sync-only ]; then sync_only=1; shift; fi
KVER=${1:?usage: intree.sh [--sync-only] 6.1|6.12|latest [TREE]}
dir=$(kver_dir "$KVER")
TREE=${2:-$dir/intree}
pristine=$dir/linux

"$BFQ_TOP/scripts/fetch-kernel.sh" "$KVER"

mkdir -p "$(dirname "$TREE")"
exec 9>"$TREE.lock"
flock 9

if [ ! -f "$TREE/.bfq-intree" ]; then
	log "creating $TREE (hard-link copy of $pristine)"
	rm -rf "$TREE" "$TREE.tmp"
	cp -al "$pristine" "$TREE.tmp"
	touch "$TREE.tmp/.bfq-intree"
	mv "$TREE.tmp" "$TREE"
fi

nchanged=0
# put SRC DST: replace DST by a copy of SRC if their contents differ. The old
# DST is unlinked first: it may be a hard link into the pristine tree.
put() {
	cmp -s "$1" "$2" && return 0
	rm -f "$2"
	cp "$1" "$2"
	nchanged=$((nchanged + 1))
	log "updated ${2#"$TREE"/}"
}

blk=$TREE/block
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Our sources, by glob, so that new files (bfq-cgroup.c, tests) follow.
shopt -s nullglob
ours=()
for f in "$BFQ_TOP"/bfq-*.c "$BFQ_TOP"/bfq-*.h; do ours+=("$(basename "$f")"); done
[ ${#ours[@]} -gt 0 ] || log "warning: no bfq-*.c/bfq-*.h in $BFQ_TOP yet"
# Delete the stock files and any of ours that no longer exist.
for f in "$blk"/bfq-*.c "$blk"/bfq-*.h; do
	b=$(basename "$f")
	[[ " ${ours[*]} " == *" $b "* ]] && continue
	rm -f "$f"
	nchanged=$((nchanged + 1))
	log "removed block/$b"
done
shopt -u nullglob
for b in "${ours[@]}"; do put "$BFQ_TOP/$b" "$blk/$b"; done
put "$BFQ_TOP/Kconfig" "$blk/Kconfig.bfq"
put "$BFQ_TOP/Makefile" "$blk/Makefile.bfq"

# block/Kconfig.iosched, always derived from the pristine one: drop from the
# `config IOSCHED_BFQ` line up to the line before `endmenu`, source ours there.
awk '
	/^config IOSCHED_BFQ[ \t]*$/ { skip = 1; found = 1 }
	/^endmenu/ && skip { print "source \"block/Kconfig.bfq\""; print ""; skip = 0 }
	!skip { print }
	END { if (!found || skip) exit 1 }
' "$pristine/block/Kconfig.iosched" > "$tmp/Kconfig.iosched" ||
	die "block/Kconfig.iosched: no 'config IOSCHED_BFQ' ... 'endmenu' block"
# Verify by structure: exactly the three BFQ entries went, nothing else.
gone=$(comm -23 <(grep -E '^(menu)?config ' "$pristine/block/Kconfig.iosched" | sort) \
		<(grep -E '^(menu)?config ' "$tmp/Kconfig.iosched" | sort) | tr '\n' ' ')
[ "$gone" = "config BFQ_CGROUP_DEBUG config BFQ_GROUP_IOSCHED config IOSCHED_BFQ " ] ||
	die "block/Kconfig.iosched: removed unexpected entries: $gone"
[ "$(grep -c '^source "block/Kconfig.bfq"$' "$tmp/Kconfig.iosched")" = 1 ] ||
	die "block/Kconfig.iosched: source line not added"
grep -q '^endmenu' "$tmp/Kconfig.iosched" || die "block/Kconfig.iosched: endmenu lost"
put "$tmp/Kconfig.iosched" "$blk/Kconfig.iosched"

# block/Makefile: the two stock bfq lines become one include of ours.
awk '
	/^bfq-y[ \t]*:=/ { n1++; next }
	/^obj-\$\(CONFIG_IOSCHED_BFQ\)[ \t]*\+=[ \t]*bfq\.o[ \t]*$/ {
		n2++; print "include $(srctree)/block/Makefile.bfq"; next
	}
	{ print }
	END { if (n1 != 1 || n2 != 1) exit 1 }
' "$pristine/block/Makefile" > "$tmp/Makefile" ||
	die "block/Makefile: expected one 'bfq-y :=' and one 'obj-\$(CONFIG_IOSCHED_BFQ) += bfq.o' line"
[ "$(grep -c bfq "$tmp/Makefile")" = 1 ] ||
	die "block/Makefile: stray bfq lines left: $(grep -n bfq "$tmp/Makefile" | tr '\n' ' ')"
put "$tmp/Makefile" "$blk/Makefile"

log "$TREE in sync ($nchanged files changed)"
[ -n "$sync_only" ] && exit 0

# The proof: build block/bfq.ko in-tree, out of TREE (O=).
out=$dir/intree-build
res=$BFQ_TOP/build/$KVER/results
mkdir -p "$out" "$res"
if [ ! -f "$out/.config" ] || [ "$dir/kdir/.config" -nt "$out/.config" ]; then
	cp "$dir/kdir/.config" "$out/.config"
	"$TREE/scripts/config" --file "$out/.config" \
		--module IOSCHED_BFQ --enable BFQ_GROUP_IOSCHED \
		--disable DEBUG_INFO --disable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT \
		--disable DEBUG_INFO_DWARF4 --disable DEBUG_INFO_DWARF5 \
		--enable DEBUG_INFO_NONE --disable DEBUG_INFO_BTF \
		--disable MODULE_SIG_ALL --set-str MODULE_SIG_KEY certs/signing_key.pem \
		--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS ""
fi
start=$SECONDS
log "building block/bfq.ko in $out"
if make -s -C "$TREE" O="$out" olddefconfig &&
   grep -q '^CONFIG_IOSCHED_BFQ=m' "$out/.config" &&
   make -s -C "$TREE" O="$out" -j"$(nproc)" modules_prepare &&
   make -C "$TREE" O="$out" -j"$(nproc)" KBUILD_MODPOST_WARN=1 \
	${INTREE_MAKEFLAGS:-} block/bfq.ko &&
   [ -f "$out/block/bfq.ko" ]; then
	line="PASS: intree/$KVER/build"
else
	line="FAIL: intree/$KVER/build"
fi
log "in-tree build took $((SECONDS - start))s"
echo "$line" | tee "$res/intree.txt"
[[ $line == PASS:* ]]
