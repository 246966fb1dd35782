#!/bin/bash
# fetch-kernel.sh KVER: put one Debian kernel series (6.1 from bookworm, 6.12
# from bookworm-backports, "trixie": Debian 13's own 6.12, "latest": the
# newest kernel of trixie-backports, 7.3 at the time of writing) into the
# cache without installing it on the host:
#   $BFQ_CACHE/KVER/root/      dpkg -x of image, headers, kbuild packages
#   $BFQ_CACHE/KVER/kdir       -> the prepared headers tree (make KDIR=)
#   $BFQ_CACHE/KVER/vmlinuz    the kernel the VM lab boots
#   $BFQ_CACHE/KVER/release    its `uname -r`
#   $BFQ_CACHE/KVER/linux/     the unpacked linux-source tree (private block
#                              headers, checkpatch, KUnit, in-tree builds)
# Idempotent: a finished series is marked by $BFQ_CACHE/KVER/.fetched.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

KVER=${1:?usage: fetch-kernel.sh 6.1|6.12|trixie|latest}
dir=$(kver_dir "$KVER")
[ -f "$dir/.fetched" ] && exit 0
"$BFQ_TOP/scripts/deps.sh"
mkdir -p "$dir/debs"

# A private source list (6.12, trixie, latest): the host's apt configuration is
# left untouched. Each has its own lists, so that bookworm-backports and
# trixie's packages never mix.
apt_opts=()
private_source() {
	local adir=$1 suites=$2
	mkdir -p "$adir/lists/partial" "$adir/archives/partial"
	cat > "$adir/backports.sources" <<SRC
Types: deb
URIs: http://deb.debian.org/debian
Suites: $suites
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	apt_opts=(-o "Dir::Etc::sourcelist=$adir/backports.sources"
		  -o Dir::Etc::sourceparts=/dev/null
		  -o "Dir::State::Lists=$adir/lists"
		  -o "Dir::Cache::archives=$adir/archives")
	apt_get "${apt_opts[@]}" update -qq
}
case "$KVER" in
6.12)   private_source "$BFQ_CACHE/apt" bookworm-backports ;;
trixie|latest) private_source "$BFQ_CACHE/apt-trixie" "trixie-backports trixie" ;;
esac

# The newest ABI of the series, e.g. 6.1.0-56-amd64, 6.12.48+deb12-amd64,
# (trixie) 6.12.117+deb13-amd64 or (latest) 7.3.4+deb13-amd64.
case "$KVER" in
6.1)    re='^linux-image-6\.1\.0-[0-9]+-amd64$' ;;
6.12)   re='^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$' ;;
trixie) re='^linux-image-6\.12\.[0-9]+\+deb13-amd64-unsigned$' ;;
latest) re='^linux-image-[0-9]+\.[0-9]+\.[0-9]+\+deb13-amd64(-unsigned)?$' ;;
esac
image=$(apt-cache "${apt_opts[@]}" search --names-only "$re" |
	awk '{print $1}' | sort -V | tail -1)
[ -n "$image" ] || die "no linux-image for $KVER in the apt lists"
abi=${image#linux-image-}
abi=${abi%-unsigned}
flavourless=${abi%-amd64}
# The source package and its tarball are named after the series X.Y.
series=$(echo "$abi" | cut -d. -f1,2)
# The image: up to 6.12 the one package linux-image-ABI(-unsigned). From
# 7.0 on (trixie-backports) linux-image-ABI is empty: the kernel is in
# linux-binary-unsigned-ABI (linux-binary-ABI is the signed one), its
# modules in linux-modules-ABI, its config and System.map in
# linux-base-ABI.
if apt-cache "${apt_opts[@]}" show "linux-binary-unsigned-$abi" > /dev/null 2>&1; then
	pkgs=("linux-binary-unsigned-$abi" "linux-modules-$abi" "linux-base-$abi")
else
	pkgs=("$image")
fi
pkgs+=("linux-headers-$abi" "linux-headers-$flavourless-common"
       "linux-source-$series")
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
# Debian 13's packages have no /lib (merged /usr): the modules are in
# /usr/lib/modules/<release>/. From 7.0 on they have no /boot either: the
# image (vmlinuz or vmlinuz.unsigned), config and System.map are there
# too. Links give the cache the older layout the other scripts read
# (root/lib/modules/, root/boot/vmlinuz-<release>, ...), for the files
# the packages did not put in /boot.
if [ ! -d "$dir/root/lib/modules" ] && [ -d "$dir/root/usr/lib/modules" ]; then
	ln -sfn usr/lib "$dir/root/lib"
	release=$(ls "$dir/root/usr/lib/modules" | head -1)
	mkdir -p "$dir/root/boot"
	m=../usr/lib/modules/$release
	b=$dir/root/boot
	for f in vmlinuz.unsigned vmlinuz; do
		[ ! -e "$b/vmlinuz-$release" ] || break
		if [ -f "$dir/root/usr/lib/modules/$release/$f" ]; then
			ln -sfn "$m/$f" "$b/vmlinuz-$release"
			break
		fi
	done
	[ -e "$b/config-$release" ] || ln -sfn "$m/config" "$b/config-$release"
	[ -e "$b/System.map-$release" ] ||
		ln -sfn "$m/System.map" "$b/System.map-$release"
fi
release=$(ls "$dir/root/lib/modules/" | head -1)
[ -e "$dir/root/boot/vmlinuz-$release" ] || die "no kernel image for $release in the packages"
echo "$release" > "$dir/release"
# The headers' Makefile includes the -common tree by its installed, absolute
# path (and from 7.0 on names itself so in KBUILD_OUTPUT): point them into
# the cache instead.
sed -i -e "s|^include /usr/src/|include $dir/root/usr/src/|" \
	-e "s|^KBUILD_OUTPUT=/usr/src/|KBUILD_OUTPUT=$dir/root/usr/src/|" \
	"$dir/root/usr/src/linux-headers-$release/Makefile"
ln -sfn "root/usr/src/linux-headers-$release" "$dir/kdir"
ln -sfn "root/boot/vmlinuz-$release" "$dir/vmlinuz"

log "unpacking linux-source-$series"
tarball=$(ls "$dir"/root/usr/src/linux-source-"$series".tar.* | head -1)
mkdir -p "$dir/linux.tmp"
tar xf "$tarball" -C "$dir/linux.tmp" --strip-components=1
mv "$dir/linux.tmp" "$dir/linux"
rm -f "$tarball"

# The host programs of the headers and kbuild packages (modpost, objtool,
# resolve_btfids) are built for the packages' Debian release: trixie's
# (latest) need a newer C library than a bookworm host has. Those that
# cannot run here are built again from the linux-source tree, with the
# kernel's config, and take the packaged ones' place.
broken=()
while IFS= read -r f; do
	# Not ldd | grep -q: grep leaving early would fail ldd (pipefail).
	libs=$(ldd "$f" 2>&1 || true)
	[[ $libs != *'not found'* ]] || broken+=("$f")
done < <(find "$dir/root/usr/src/linux-headers-$release" \
	      "$dir"/root/usr/lib/linux-kbuild-* -type f -perm -u+x)
if [ ${#broken[@]} -gt 0 ]; then
	log "building the host programs this host cannot run: ${broken[*]##*/}"
	ht=$dir/hosttools
	rm -rf "$ht"
	mkdir -p "$ht"
	cp "$dir/root/boot/config-$release" "$ht/.config"
	make -C "$dir/linux" O="$ht" CC=gcc olddefconfig > "$ht/build.log" 2>&1 &&
	make -C "$dir/linux" O="$ht" CC=gcc -j"$(nproc)" modules_prepare \
		>> "$ht/build.log" 2>&1 ||
		die "building the host programs failed: $ht/build.log"
	for f in "${broken[@]}"; do
		# objtool.real-x86 and modpost.real-*, behind Debian's
		# wrappers, are objtool and modpost in the tree (modpost
		# reads any ELF class, objtool only its architecture's).
		case "$f" in */objtool.real-*) [[ $f == *.real-x86 ]] || continue ;; esac
		rel=${f#"$dir"/root/usr/src/linux-headers-"$release"/}
		rel=${rel#"$dir"/root/usr/lib/linux-kbuild-*/}
		rel=${rel%.real-*}
		[ -x "$ht/$rel" ] || { log "no $rel built: ${f##*/} left as is"; continue; }
		cp "$ht/$rel" "$f"
	done
fi
touch "$dir/.fetched"
log "kernel $KVER ready: $release"
