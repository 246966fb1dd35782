#!/bin/bash
# fetch-blktrace.sh: build static blktrace and blkparse from a release that
# understands cgroup-tagged notes, for the VM lab.
#
# Why: on a kernel with CONFIG_BLK_CGROUP (Debian's) every blktrace note
# message carries a cgroup id (__BLK_TN_CGROUP in the action word), ours and
# the stock scheduler's alike. Debian 12's blktrace 1.2.0 does not know that
# bit and drops every such note, so its blkparse never shows a scheduler's
# messages. blktrace 1.3.0 does. We take the upstream source tarball from
# Debian's trixie archive (a private deb-src list; the host's apt setup is not
# touched), check it against the SHA256 of the signed Sources index and build
# the two tools statically, so they run in the guest without libraries.
#
#   $BFQ_CACHE/tools/blktrace/{blktrace,blkparse,VERSION}
#
# Idempotent: a finished build is reused. Prints the tools' folder.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$BFQ_CACHE/tools/blktrace
if [ -x "$out/blkparse" ] && [ -x "$out/blktrace" ]; then
	echo "$out"
	exit 0
fi
"$BFQ_TOP/scripts/deps.sh"

adir=$BFQ_CACHE/apt-src
mkdir -p "$adir/lists/partial"
cat > "$adir/trixie-src.sources" <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
apt_opts=(-o "Dir::Etc::sourcelist=$adir/trixie-src.sources"
	  -o Dir::Etc::sourceparts=/dev/null
	  -o "Dir::State::Lists=$adir/lists")
apt_get "${apt_opts[@]}" update -qq

# Only the upstream tarball is needed: Debian's packaging changes nothing
# in the two tools we build.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"	# apt-helper downloads as _apt
line=$(cd "$work" && apt_get "${apt_opts[@]}" --print-uris source blktrace |
       grep -E "^'[^']*/blktrace_[0-9.]+\.orig\.tar\.[a-z0-9]+' ") ||
	die "trixie's Sources index lists no blktrace orig tarball"
read -r uri file _size hash <<< "$line"
uri=${uri//\'/}
case "$hash" in SHA256:*) ;; *) die "no SHA256 for $file ($hash)" ;; esac
ver=${file#blktrace_}
ver=${ver%.orig.tar.*}
case "$ver" in
1.[0-2]|1.[0-2].*) die "trixie has blktrace $ver, older than 1.3.0" ;;
esac
log "fetching blktrace $ver source ($uri)"
/usr/lib/apt/apt-helper download-file "$uri" "$work/$file" "$hash" >/dev/null

tar -C "$work" -xf "$work/$file"
src=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'blktrace*' | head -1)
[ -n "$src" ] || die "unexpected layout in $file"
make -C "$src" -s blktrace blkparse LDFLAGS=-static >/dev/null 2>&1 ||
	make -C "$src" blktrace blkparse LDFLAGS=-static
mkdir -p "$out.new"
install -m 755 "$src/blktrace" "$src/blkparse" "$out.new/"
echo "$ver" > "$out.new/VERSION"
rm -rf "$out"
mv "$out.new" "$out"
log "blktrace $ver built in $out"
echo "$out"
