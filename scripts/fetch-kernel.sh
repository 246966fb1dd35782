#!/bin/bash
# fetch-kernel.sh KVER: put one Debian kernel series (6.1 from bookworm, 6.12
# from bookworm-backports) into the cache without installing it on the host:
#   $BFQ_CACHE/KVER/root/      dpkg -x of image, headers, kbuild packages
#   $BFQ_CACHE/KVER/kdir       -> the prepared headers tree (make KDIR=)
#   $BFQ_CACHE/KVER/vmlinuz    the kernel the VM lab boots
#   $BFQ_CACHE/KVER/release    its `uname -r`
#   $BFQ_CACHE/KVER/linux/     the unpacked linux-source tree (private block
#                              headers, checkpatch, KUnit, in-tree builds)
# Idempotent: a finished series is marked by $BFQ_CACHE/KVER/.fetched.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

KVER=${1:?usage: fetch-kernel.sh 6.1|6.12}
dir=$(kver_dir "$KVER")
[ -f "$dir/.fetched" ] && exit 0
"$BFQ_TOP/scripts/deps.sh"
mkdir -p "$dir/debs"

apt_opts=()
if [ "$KVER" = 6.12 ]; then
	# A private source list: the host's apt configuration is left untouched.
	adir=$BFQ_CACHE/apt
	mkdir -p "$adir/lists/partial" "$adir/archives/partial"
	cat > "$adir/backports.sources" <<SRC
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	apt_opts=(-o "Dir::Etc::sourcelist=$adir/backports.sources"
		  -o Dir::Etc::sourceparts=/dev/null
		  -o "Dir::State::Lists=$adir/lists"
		  -o "Dir::Cache::archives=$adir/archives")
	apt_get "${apt_opts[@]}" update -qq
fi

# The newest ABI of the series, e.g. 6.1.0-56-amd64 or 6.12.48+deb12-amd64.
case "$KVER" in
6.1)  re='^linux-image-6\.1\.0-[0-9]+-amd64$' ;;
6.12) re='^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$' ;;
esac
image=$(apt-cache "${apt_opts[@]}" search --names-only "$re" |
	awk '{print $1}' | sort -V | tail -1)
[ -n "$image" ] || die "no linux-image for $KVER in the apt lists"
abi=${image#linux-image-}
abi=${abi%-unsigned}
flavourless=${abi%-amd64}
pkgs=("$image" "linux-headers-$abi" "linux-headers-$flavourless-common"
      "linux-source-$KVER")
kbuild=$(apt-cache "${apt_opts[@]}" depends "linux-headers-$abi" |
	 awk '/Depends: linux-kbuild/ {print $2}' | head -1)
pkgs+=("$kbuild")
log "fetching ${pkgs[*]}"
(cd "$dir/debs" && apt_get "${apt_opts[@]}" download "${pkgs[@]}")

rm -rf "$dir/root" "$dir/linux"
mkdir -p "$dir/root"
for deb in "$dir"/debs/*.deb; do
	dpkg -x "$deb" "$dir/root"
done
release=$(ls "$dir/root/lib/modules" | head -1)
echo "$release" > "$dir/release"
# The headers' Makefile includes the -common tree by its installed, absolute
# path: point it into the cache instead.
sed -i "s|^include /usr/src/|include $dir/root/usr/src/|" \
	"$dir/root/usr/src/linux-headers-$release/Makefile"
ln -sfn "root/usr/src/linux-headers-$release" "$dir/kdir"
ln -sfn "root/boot/vmlinuz-$release" "$dir/vmlinuz"

log "unpacking linux-source-$KVER"
tarball=$(ls "$dir"/root/usr/src/linux-source-"$KVER".tar.* | head -1)
mkdir -p "$dir/linux.tmp"
tar xf "$tarball" -C "$dir/linux.tmp" --strip-components=1
mv "$dir/linux.tmp" "$dir/linux"
rm -f "$tarball"
touch "$dir/.fetched"
log "kernel $KVER ready: $release"
