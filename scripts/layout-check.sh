#!/bin/bash
# layout-check.sh MODULE BLOCK_SRC KDIR: refuse a bfq.ko whose view
# of the block layer's private structures differs from the target kernel's.
#
# An out-of-tree build takes block/*.h (blk.h, elevator.h, blk-cgroup.h,
# ...) from BLOCK_SRC, a linux-source tree of the series, while the target
# kernel may be another version of that series: the private layouts change
# within a stable series, and a module that reads elevator_data or fills an
# elevator_type at the wrong offset corrupts the kernel. The Makefile runs
# this after every out-of-tree build (make, make KVER=, make KDIR= and so
# DKMS); on a mismatch it removes the module and the build fails.
#
# Compared, with pahole: every struct or union the module's debug info has
# from a header in BLOCK_SRC, our view, against the same struct in the
# target kernel's BTF: its size, and the offset and size of each member
# (the members of anonymous unions and structs included). Every member, not
# only those our code names: the kernel reads all of an elevator_type or a
# blkcg_policy we define, and all of a blkg_policy_data we embed. A few
# public structures of the headers package (KDIR) are compared too, to tell
# a BTF that is not the target kernel's from a wrong block/.
#
# The target kernel's BTF: $LAYOUT_BTF if set (a raw BTF file, a vmlinux or
# a bzImage), else the first found of
#   KDIR/vmlinux             a built kernel tree
#   /sys/kernel/btf/vmlinux  when the target is the running kernel
#   ROOT/boot/vmlinuz-<release>  the image beside headers installed in
#                            ROOT/usr/src/ (/, or a dpkg -x root such as
#                            $BFQ_CACHE/KVER/root for make KVER=)
#   /boot/vmlinuz-<release>, /usr/lib/debug/boot/vmlinux-<release>
# A bzImage's vmlinux is decompressed once and its .BTF section kept in
# $BFQ_CACHE/btf/ (or a temporary folder where that cannot be written).
# With no BTF found the build is refused: a DKMS build that cannot be
# checked is not trusted. LAYOUT_CHECK=0 skips the check.
#
# Tools: pahole (dwarves), objcopy (binutils); xz or zstd (gzip, lz4) for
# the bzImage of a kernel that is not running.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage="usage: layout-check.sh MODULE BLOCK_SRC KDIR"
module=${1:?$usage}
block_src=${2:?$usage}
kdir=${3:?$usage}

# say LINE...: the check's lines, named after the module as in a DKMS log.
say() {
	local l
	for l in "$@"; do echo "bfq: $l" >&2; done
}
# refuse LINE...: say them and fail the build.
refuse() {
	say "$@"
	exit 1
}

if [ "${LAYOUT_CHECK:-1}" = 0 ]; then
	say "LAYOUT_CHECK=0: the layouts of block/'s private structures are NOT checked against the target kernel"
	exit 0
fi

command -v pahole > /dev/null ||
	refuse "the layout check needs pahole (Debian: apt install dwarves); LAYOUT_CHECK=0 builds without it"
[ -f "$module" ] || refuse "$module: no such module"
[ -d "$block_src" ] || refuse "$block_src: no such folder (BLOCK_SRC)"
block_src=$(cd "$block_src" && pwd -P)

# The target: its release (uname -r) and version.
release=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' \
	"$kdir/include/generated/utsrelease.h" 2>/dev/null || true)
[ -n "$release" ] || release=$(cat "$kdir/include/config/kernel.release" 2>/dev/null || true)
[ -n "$release" ] || refuse "$kdir: no kernel release in it (not a prepared kernel tree or headers)"
target_version=$(awk '/^#define LINUX_VERSION_(MAJOR|PATCHLEVEL|SUBLEVEL) / { v = v (v ? "." : "") $3 }
	END { print v }' "$kdir/include/generated/uapi/linux/version.h" 2>/dev/null || true)
source_version=$(awk -F' = ' '/^(VERSION|PATCHLEVEL|SUBLEVEL) = / { v = v (v ? "." : "") $2 }
	/^SUBLEVEL/ { exit } END { print v }' "$block_src/../Makefile" 2>/dev/null || true)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# btf_of FILE: the path of FILE's BTF (raw BTF as is, else the .BTF section
# of a vmlinux or of a bzImage's vmlinux, extracted once into the cache);
# fails if it has none.
btf_of() {
	local f=$1 magic cache key name out vmlinux old
	[ -r "$f" ] || return 1
	magic=$(od -An -tx1 -N4 "$f" | tr -d ' \n')
	case "$magic" in
	9feb01*) echo "$f"; return 0 ;;	# raw BTF, as in /sys/kernel/btf
	esac
	cache=$BFQ_CACHE/btf
	mkdir -p "$cache" 2> /dev/null && [ -w "$cache" ] || cache=$tmp
	key=$(sha256sum "$f" | cut -c1-16)
	# Named after the image's path, not its name alone: the headers of
	# several kernels call theirs "vmlinux".
	name=$(basename "$f")-$(readlink -f "$f" | sha256sum | cut -c1-8)
	out=$cache/$name-$key.btf
	if [ ! -s "$out" ]; then
		vmlinux=$f
		if [ "$magic" != 7f454c46 ]; then	# not ELF: a bzImage
			vmlinux=$tmp/vmlinux
			extract_vmlinux "$f" "$vmlinux" || return 1
		fi
		objcopy -O binary --only-section=.BTF "$vmlinux" "$tmp/btf" 2> /dev/null ||
			return 1
		[ "$(od -An -tx1 -N2 "$tmp/btf" | tr -d ' \n')" = 9feb ] || return 1
		# One BTF kept per image, the one of its current content; a
		# build extracting the same at once renames over ours.
		for old in "$cache/$name"-????????????????.btf; do
			[ "$old" = "$out" ] || rm -f "$old"
		done
		mv "$tmp/btf" "$out"
		rm -f "$tmp/vmlinux"
	fi
	echo "$out"
}

# extract_vmlinux BZIMAGE OUT: the vmlinux of an x86 bzImage, from the
# payload its boot header locates (boot protocol 2.08 and later); the
# payload's last 4 bytes are its uncompressed size (appended by kbuild, or
# gzip's own trailer).
extract_vmlinux() {
	local img=$1 out=$2 setup off len start magic dec want
	[ "$(od -An -c -j 514 -N4 "$img" | tr -d ' ')" = HdrS ] || return 1
	setup=$(od -An -tu1 -j 497 -N1 "$img" | tr -d ' ')
	[ "$setup" != 0 ] || setup=4
	read -r off len < <(od -An -tu4 -j 584 -N8 "$img")
	start=$(((setup + 1) * 512 + off))
	tail -c +$((start + 1)) "$img" | head -c "$len" > "$tmp/payload"
	magic=$(od -An -tx1 -N4 "$tmp/payload" | tr -d ' \n')
	case "$magic" in
	fd377a58) dec="xz -dc" ;;
	28b52ffd) dec="zstd -dcq" ;;
	1f8b*) dec="gzip -dc" ;;
	02214c18) dec="lz4 -dc" ;;
	5d00*) dec="xz -dc --format=lzma" ;;
	*) say "$img: a payload of unknown compression ($magic)"; return 1 ;;
	esac
	command -v "${dec%% *}" > /dev/null || {
		say "$img is compressed with ${dec%% *}, which is not installed"
		return 1
	}
	want=$(tail -c 4 "$tmp/payload" | od -An -tu4 | tr -d ' ')
	# The decompressors complain about the size appended after the stream.
	$dec < "$tmp/payload" > "$out" 2> /dev/null || true
	rm -f "$tmp/payload"
	[ "$(stat -c %s "$out")" = "$want" ] &&
		[ "$(od -An -tx1 -N4 "$out" | tr -d ' \n')" = 7f454c46 ]
}

btf=
if [ -n "${LAYOUT_BTF:-}" ]; then
	src=$LAYOUT_BTF
	btf=$(btf_of "$src") || refuse "LAYOUT_BTF=$src: no BTF found in it"
else
	running=$(uname -r)
	root=$(cd "$kdir" && pwd -P)
	case "$root" in
	*/usr/src/*) root=${root%/usr/src/*} ;;
	*) root=/ ;;
	esac
	tried=()
	for src in "$kdir/vmlinux" \
		   "$([ "$release" = "$running" ] && echo /sys/kernel/btf/vmlinux)" \
		   "${root%/}/boot/vmlinuz-$release" "/boot/vmlinuz-$release" \
		   "/usr/lib/debug/boot/vmlinux-$release"; do
		[ -n "$src" ] || continue
		case " ${tried[*]} " in *" $src "*) continue ;; esac
		tried+=("$src")
		[ -e "$src" ] || continue
		if [ ! -r "$src" ]; then
			say "$src: not readable by $(id -un) (root's only?)"
			continue
		fi
		btf=$(btf_of "$src") && break
		say "$src: no BTF found in it"
	done
	[ -n "$btf" ] || refuse \
		"no BTF of the target kernel $release, so the layouts of block/'s private structures cannot be checked" \
		"looked for: ${tried[*]} (the running kernel is $running)" \
		"LAYOUT_BTF=<raw BTF, vmlinux or bzImage of $release> names it; LAYOUT_CHECK=0 builds unchecked, at the kernel's risk"
fi

# Our structures: those the module's DWARF has from a header in BLOCK_SRC
# ("private"), and the public anchors from KDIR's headers.
pahole -F dwarf -I "$module" 2> /dev/null | awk '
	/^\/\* <[0-9a-f]+> .*:[0-9]+ \*\/$/ {
		file = $3; sub(/:[0-9]+$/, "", file); next
	}
	file != "" && /^(struct|union) [A-Za-z0-9_]+ \{/ { print $2, $1, file }
	{ file = "" }' > "$tmp/types"
[ -s "$tmp/types" ] ||
	refuse "$module has no debug info (its kernel config has no CONFIG_DEBUG_INFO): nothing to check the layouts with; LAYOUT_CHECK=0 builds unchecked"
# The folders of the declarations, each resolved once (links, "..").
declare -A real kind
private=()
while read -r name k file; do
	kind[$name]=$k
	dir=${file%/*}
	[ -n "${real[$dir]+set}" ] ||
		real[$dir]=$(cd "$dir" 2> /dev/null && pwd -P || echo -)
	[ "${real[$dir]}" = "$block_src" ] && private+=("$name")
done < "$tmp/types"
[ ${#private[@]} -gt 0 ] ||
	refuse "$module: no structure of $block_src in its debug info (was it built with BLOCK_SRC=$block_src?)"
public=()
for name in request_queue request blk_mq_hw_ctx; do
	grep -q "^$name " "$tmp/types" && public+=("$name")
done

# layout: pahole's C of each struct on stdin, as lines "NAME size N" and
# "NAME .MEMBER OFFSET SIZE" (OFFSET "byte" or "byte:bit" for a bitfield; a
# member of a named inner struct as .outer.inner, one of an anonymous one as
# its own).
layout() {
	awk '
	function strip(s) {
		while (match(s, /__attribute__\(\(__[a-z_]+__(\([^()]*\))?\)\)/))
			s = substr(s, 1, RSTART - 1) substr(s, RSTART + RLENGTH)
		return s
	}
	d == 0 && /^(struct|union) [A-Za-z0-9_]+ \{/ { s = $2; d = 1; buf[1] = ""; next }
	d == 0 { next }
	{ line = $0; sub(/^[ \t]+/, "", line) }
	d == 1 && line ~ /^\/\* size: [0-9]+,/ { split(line, w, /[ ,]+/); size = w[3]; next }
	line ~ /^\/\*/ || line == "" { next }
	line ~ /\{$/ { buf[++d] = ""; next }
	d == 1 && line ~ /^}/ {
		print s, "size", size
		n = split(buf[1], m, "\n")
		for (i = 1; i < n; i++)
			print s, m[i]
		d = 0; next
	}
	match(line, /\/\* *[0-9]+(: *[0-9]+)? +[0-9]+ *\*\/$/) {
		c = substr(line, RSTART + 2, RLENGTH - 4)
		gsub(/: +/, ":", c); sub(/^ +/, "", c); split(c, w, / +/)
		off = w[1]; sz = w[2]
		decl = strip(substr(line, 1, RSTART - 1))
		sub(/[ \t]*;[ \t]*$/, "", decl)
		if (decl ~ /^}/) {
			# The end of an inner struct or union.
			name = decl; sub(/^}[ \t]*/, "", name); sub(/\[.*$/, "", name)
			inner = buf[d--]
			if (name != "") {
				gsub(/(^|\n)\./, "&" name ".", inner)
				inner = "." name " " off " " sz "\n" inner
			}
			buf[d] = buf[d] inner
			next
		}
		if (match(decl, /\(\*+ *[A-Za-z0-9_]+/)) {
			name = substr(decl, RSTART, RLENGTH); sub(/^\(\*+ */, "", name)
		} else {
			n = split(decl, w, /[ \t*]+/); name = w[n]
			sub(/\[.*$/, "", name); sub(/:.*$/, "", name)
		}
		buf[d] = buf[d] "." name " " off " " sz "\n"
	}'
}

list=$(IFS=,; echo "${private[*]},${public[*]}")
pahole -F dwarf -C "$list" "$module" 2> /dev/null | layout > "$tmp/ours"
pahole -F btf -C "$list" "$btf" 2> /dev/null | layout > "$tmp/target"
[ -s "$tmp/ours" ] || refuse "pahole printed none of $list from $module"
[ -s "$tmp/target" ] || refuse "pahole printed none of $list from $btf ($src)"

# "NAME WHY" for each structure whose layout differs between ours and the
# target's: the first four differences found.
awk '
function q(m) { return "'"'"'" substr(m, 2) "'"'"'" }
function note(x) { if (++k <= 4) out = out "; " x }
FNR == 1 { f++ }
f == 1 { if ($2 == "size") osz[$1] = $3; else { o[$1, $2] = $3 " " $4; ord[$1, ++n[$1]] = $2 } next }
{ if ($2 == "size") tsz[$1] = $3; else { t[$1, $2] = $3 " " $4; tord[$1, ++tn[$1]] = $2 } }
END {
	for (s in osz) {
		out = ""; k = 0
		if (!(s in tsz)) { print s, "not in the target kernel"; continue }
		if (osz[s] != tsz[s])
			note("size " osz[s] " vs " tsz[s])
		for (i = 1; i <= n[s]; i++) {
			m = ord[s, i]; split(o[s, m], a, " ")
			if (!((s, m) in t)) { note("member " q(m) " only in the headers"); continue }
			split(t[s, m], b, " ")
			if (a[1] != b[1])
				note("member " q(m) " at " a[1] " vs " b[1])
			else if (a[2] != b[2])
				note("member " q(m) " of size " a[2] " vs " b[2])
		}
		for (i = 1; i <= tn[s]; i++)
			if (!((s, tord[s, i]) in o))
				note("member " q(tord[s, i]) " only in the target kernel")
		if (k > 4)
			out = out "; and " k - 4 " more"
		if (k)
			print s, substr(out, 3)
	}
}' "$tmp/ours" "$tmp/target" > "$tmp/diffs"

# why NAME: how NAME differs, "" if it does not.
why() {
	awk -v s="$1" '$1 == s { sub(/^[^ ]+ /, ""); print }' "$tmp/diffs"
}

bad=()
for name in "${public[@]}"; do
	w=$(why "$name")
	[ -z "$w" ] || bad+=("${kind[$name]} $name differs between the kernel headers ($kdir) and the BTF used ($src): $w")
done
if [ ${#bad[@]} -gt 0 ]; then
	if [ "$src" = /sys/kernel/btf/vmlinux ]; then
		bad+=("the running kernel is another build of $release than these headers' (upgraded, not rebooted?): LAYOUT_BTF=/boot/vmlinuz-$release names the image they are for")
	else
		bad+=("$src is not the BTF of the kernel these headers are for: LAYOUT_BTF= names the right one")
	fi
	refuse "${bad[@]}"
fi

for name in "${private[@]}"; do
	w=$(why "$name")
	[ -z "$w" ] || bad+=("${kind[$name]} $name differs between the block/ headers used ($block_src) and the target kernel's BTF ($src): $w")
done
if [ ${#bad[@]} -gt 0 ]; then
	refuse "${bad[@]}" \
		"refusing to build for $release${target_version:+ ($target_version)} with the block/ headers of ${source_version:+linux-source $source_version in }$block_src: get the linux-source of the target kernel's exact version and pass its block/ as BLOCK_SRC=<dir> (LAYOUT_CHECK=0 builds anyway, at the kernel's risk)"
fi
echo "layout: ${#private[@]} private structures of block/ (${private[*]}) match the BTF of $release ($src)"
