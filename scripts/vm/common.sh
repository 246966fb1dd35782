# Host-side helpers of the VM lab: sourced by scripts/vmtest.sh and
# scripts/demo.sh (after scripts/lib.sh), never run.
#
#   vm_base_initramfs KVER   -> path of the cached base cpio (busybox, fio and
#                               its libraries, stock modules, guest /init)
#   vm_overlay KVER OUT BFQ_KO FILE...
#                            -> writes OUT: our module + guest scripts, a cpio
#                               to concatenate after the base one
#   vm_boot KVER INITRD LOG TIMEOUT APPEND...
#                            -> boots the Debian kernel under TCG, serial to LOG
#   vm_rootfs CACHE WHAT MIRROR PKG...
#                            -> VM_ROOTFS: a cached Debian rootfs cpio
#                               (scripts/blktests.sh, scripts/dkms-vm.sh)

VM_DIR="$BFQ_TOP/scripts/vm"
# depmod and modinfo live in /sbin, not always on a user's PATH.
case ":$PATH:" in *:/usr/sbin:*) ;; *) PATH=$PATH:/usr/sbin:/sbin ;; esac

# Stock modules the guest needs (their dependencies are added by _vm_deps).
# ext4 (with jbd2, mbcache, crc16) for the low-latency tests' filesystem.
# nbd for the lab's disk model (tests/lab/diskmodel.c). nvme for a device
# that takes several discard ranges in one request (tests/vm/discard.sh).
VM_MODULES=(configfs null_blk scsi_debug sd_mod kyber-iosched loop dm-mod dm-snapshot ext4 nbd nvme)
# Soft dependencies modinfo's "depends" does not list (crc-t10dif asks the
# crypto API for "crct10dif", crc64-rocksoft for "crc64-rocksoft", ext4 and
# jbd2 for "crc32c"): taken when the kernel has them as modules.
VM_EXTRA_MODULES=(crct10dif_generic crct10dif-pclmul crc64_rocksoft_generic crc32c_generic)
# Optional tools copied with their libraries, when present: blktrace and
# blkparse for tests/vm/core-observe, dmsetup for the stress matrix's
# stacked devices, mke2fs (e2fsprogs; busybox's makes no ext4) for the
# low-latency tests' filesystem (the tests call it by its path: busybox sh
# runs its own applet of a name before looking it up in PATH).
# scripts/fetch-blktrace.sh builds a
# release that shows cgroup-tagged notes (Debian 12's 1.2.0 drops them);
# without it the host's own copies are taken. Tools from the cache go to the
# guest's /usr/bin.
VM_TOOLS=$BFQ_CACHE/tools/blktrace
VM_EXTRA_BINARIES=(/usr/sbin/blktrace /usr/bin/blkparse /usr/sbin/dmsetup /usr/sbin/mke2fs)

# _vm_modfile MODDIR NAME: path of NAME.ko[.xz] under MODDIR (- and _ alike).
_vm_modfile() {
	local d=$1 n=$2
	find "$d/kernel" \( -name "$n.ko" -o -name "$n.ko.xz" \
		-o -name "${n//-/_}.ko" -o -name "${n//-/_}.ko.xz" \
		-o -name "${n//_/-}.ko" -o -name "${n//_/-}.ko.xz" \) | head -1
}

# _vm_deps MODDIR NAME...: NAME and everything it depends on, one path a line.
_vm_deps() {
	local d=$1; shift
	local -A seen=()
	local queue=("$@") n f dep
	while [ ${#queue[@]} -gt 0 ]; do
		n=${queue[0]}; queue=("${queue[@]:1}")
		[ -n "${seen[$n]:-}" ] && continue
		seen[$n]=1
		f=$(_vm_modfile "$d" "$n")
		[ -n "$f" ] || die "module $n not found under $d"
		echo "$f"
		for dep in $(modinfo -F depends "$f" | tr , ' '); do
			queue+=("$dep")
		done
	done
}

_vm_moddir() {
	local dir release
	dir=$(kver_dir "$1")
	release=$(cat "$dir/release")
	echo "$dir/root/lib/modules/$release"
}

# _vm_base_inputs KVER: every input of the base image, one a line, in a
# stable order; its hash names the cached image.
_vm_base_inputs() {
	local moddir=$(_vm_moddir "$1") n f
	{
		echo /bin/busybox
		echo /usr/bin/fio
		ldd /usr/bin/fio | awk '/=>/ && $3 ~ /^\// {print $3} /^\t\/.*ld-linux/ {print $1}'
		for f in "${VM_EXTRA_BINARIES[@]}"; do
			[ -x "$VM_TOOLS/${f##*/}" ] && f=$VM_TOOLS/${f##*/}
			[ -x "$f" ] || continue
			echo "$f"
			# A static tool has no libraries: ldd says so and fails.
			ldd "$f" 2>/dev/null | awk '/=>/ && $3 ~ /^\// {print $3} /^\t\/.*ld-linux/ {print $1}' || true
		done
		_vm_deps "$moddir" "${VM_MODULES[@]}"
		for n in "${VM_EXTRA_MODULES[@]}"; do
			f=$(_vm_modfile "$moddir" "$n")
			[ -n "$f" ] && _vm_deps "$moddir" "$n"
		done
		_vm_modfile "$moddir" bfq
	} | awk '!seen[$0]++'
}

vm_base_initramfs() {
	local kver=$1 dir release moddir key out stage f rel n
	dir=$(kver_dir "$kver")
	release=$(cat "$dir/release")
	moddir=$(_vm_moddir "$kver")
	[ -d "$moddir" ] || die "no kernel modules in $moddir: run scripts/fetch-kernel.sh $kver"
	"$BFQ_TOP/scripts/fetch-blktrace.sh" > /dev/null ||
		log "warning: no blktrace 1.3 build; the guest gets the host's blkparse"
	local inputs
	inputs=$(_vm_base_inputs "$kver") || exit 1
	# The key covers the inputs' identity (path, size, mtime), this file
	# and the guest /init, so a change to any of them rebuilds the image.
	key=$( { echo "$inputs" | while read -r f; do
			stat -L -c '%n %s %Y' "$f"; done
		 cat "$VM_DIR/common.sh" "$VM_DIR/init"; } |
	       sha256sum | cut -c1-16)
	out=$dir/vm-base-$key.cpio
	if [ -f "$out" ]; then echo "$out"; return; fi
	log "building the $kver base initramfs ($out)"
	stage=$(mktemp -d)
	mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,lib,lib64,etc,proc,sys,dev,tmp,run,root,mnt}
	mkdir -p "$stage/lib/modules/$release/kernel" "$stage/lib/modules/stock" \
		 "$stage/lib/modules/ours" "$stage/tests"
	cp /bin/busybox "$stage/bin/busybox"
	for n in $(/bin/busybox --list); do
		[ -e "$stage/bin/$n" ] || ln -s busybox "$stage/bin/$n"
	done
	cp /usr/bin/fio "$stage/usr/bin/fio"
	echo "$inputs" | while read -r f; do
		case "$f" in
		/bin/busybox|/usr/bin/fio) ;;
		"$VM_TOOLS"/*) cp "$f" "$stage/usr/bin/${f##*/}" ;;
		*/kernel/block/bfq.ko*)
			# The stock scheduler: loaded by path with insmod only,
			# so modprobe never confuses it with ours.
			if [[ $f == *.xz ]]; then xz -dc "$f" > "$stage/lib/modules/stock/bfq.ko"
			else cp "$f" "$stage/lib/modules/stock/bfq.ko"; fi ;;
		"$moddir"/*)
			rel=${f#"$moddir"/}
			mkdir -p "$stage/lib/modules/$release/$(dirname "$rel")"
			if [[ $f == *.xz ]]; then xz -dc "$f" > "$stage/lib/modules/$release/${rel%.xz}"
			else cp "$f" "$stage/lib/modules/$release/$rel"; fi ;;
		*)
			# A shared library, at the path the loader looks for it.
			mkdir -p "$stage$(dirname "$f")"
			cp -L "$f" "$stage$f" ;;
		esac
	done
	# The libraries ldd found under /lib live in /usr/lib on merged-/usr
	# Debian: keep both names working.
	[ -d "$stage/usr/lib" ] || mkdir -p "$stage/usr/lib"
	cp "$moddir"/modules.builtin* "$moddir"/modules.order "$stage/lib/modules/$release/" 2>/dev/null || true
	depmod -b "$stage" "$release" || die "depmod failed for the $kver initramfs"
	cp "$VM_DIR/init" "$stage/init"
	chmod 755 "$stage/init"
	echo "$release" > "$stage/etc/release"
	for n in "${VM_EXTRA_MODULES[@]}"; do
		[ -n "$(_vm_modfile "$moddir" "$n")" ] && echo "$n"
	done > "$stage/lib/modules/preload"
	# Uncompressed: the image is unpacked faster than gzip decompresses
	# under TCG, and the kernel accepts concatenated cpio archives.
	(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) > "$out.tmp.$$"
	rm -rf "$stage"
	rm -f "$dir"/vm-base-*.cpio  # older keys
	mv "$out.tmp.$$" "$out"
	echo "$out"
}

# vm_overlay KVER OUT BFQ_KO [FILE...]: OUT gets our module as
# /lib/modules/ours/bfq.ko (when BFQ_KO is not empty) and each FILE under
# /tests/.
vm_overlay() {
	local kver=$1 out=$2 ko=$3 stage f; shift 3
	stage=$(mktemp -d)
	mkdir -p "$stage/lib/modules/ours" "$stage/tests"
	[ -n "$ko" ] && cp "$ko" "$stage/lib/modules/ours/bfq.ko"
	for f in "$@"; do cp "$f" "$stage/tests/"; done
	(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) > "$out"
	rm -rf "$stage"
}

# trace_options=norecord-cmd: enabling any trace event would otherwise hook
# the sched_switch/sched_wakeup tracepoints to record task names, patching
# the scheduler's hottest code while every vCPU runs it; under multi-threaded
# TCG that live patching can leave a vCPU executing a stale int3 ("Oops:
# int3" in ttwu_do_activate, seen once on 6.12 when a test turned tracing
# off). Our tests read pids, not task names.
# vm_boot KVER INITRD LOG TIMEOUT APPEND: boot once; the serial console goes
# to LOG. Returns qemu's status (124 when the host timeout fired).
# VM_SMP=N sets the guest's vCPU count (default 2), VM_MEM its memory
# (default 2G).
# VM_DEBUG=1 boots the debug kernel of KVER (scripts/debug-kernel.sh) instead
# of Debian's: bfq (ours), null_blk and scsi_debug are built in, so the boot
# creates no devices of its own and the guest helpers are told (vmbuiltin=1).
# The base initramfs's Debian modules are simply not used there.
# Every guest also has an NVMe controller with one 64 MiB namespace, backed
# by a sparse file that lives as long as the boot; its driver is not
# loaded until a test asks for it (modprobe nvme).
vm_boot() {
	local kver=$1 initrd=$2 logf=$3 tmo=$4 append=$5 dir kernel nvme rc
	dir=$(kver_dir "$kver")
	kernel=$dir/vmlinuz
	if [ "${VM_DEBUG:-0}" = 1 ]; then
		kernel=$(vm_debug_kernel "$kver") || return 1
		# acpi=noirq: the built-in nvme driver's PCI interrupt lookup
		# (at probe and at power-off) runs the ACPI _PRT method, which
		# under TCG with KASAN and kmemleak took over 22 s and tripped
		# the soft-lockup detector; the BIOS's routing table does it.
		append="vmbuiltin=1 acpi=noirq null_blk.nr_devices=0 scsi_debug.add_host=0 scsi_debug.dev_size_mb=64 scsi_debug.max_queue=8 $append"
	fi
	nvme=$(mktemp "${TMPDIR:-/tmp}/bfq-nvme.XXXXXX") || return 1
	truncate -s 64M "$nvme" || { rm -f "$nvme"; return 1; }
	# VM_ICOUNT (e.g. shift=0,sleep=off): the guest's clock counts
	# instructions, one vCPU thread runs them all (QEMU's -icount needs
	# single-threaded TCG); a CPU-bound benchmark's rate is then
	# instructions per operation, not the host's load.
	local accel=(-accel tcg,thread=multi)
	[ -n "${VM_ICOUNT:-}" ] && accel=(-accel tcg,thread=single -icount "$VM_ICOUNT")
	timeout -k 10 "$tmo" qemu-system-x86_64 \
		"${accel[@]}" -cpu max -smp "${VM_SMP:-2}" -m "${VM_MEM:-2G}" \
		-nographic -no-reboot \
		-drive "file=$nvme,if=none,id=nvm0,format=raw,discard=unmap" \
		-device nvme,serial=bfqlab0,drive=nvm0 \
		-kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 trace_options=norecord-cmd $append" \
		< /dev/null > "$logf" 2>&1
	rc=$?
	rm -f "$nvme"
	return $rc
}

# vm_debug_kernel KVER: the path of KVER's debug kernel; fails when it has
# not been built (make debug-kernel KVER=...).
vm_debug_kernel() {
	local k
	k=$(kver_dir "$1")/debug/bzImage
	[ -f "$k" ] || { echo "no debug kernel $k: run 'make debug-kernel KVER=$1'" >&2; return 1; }
	echo "$k"
}

# Kernel log lines that are reports of the checkers (KASAN, lockdep, RCU,
# list and object debugging, kmemleak, hung task, lockups) or of a WARN/BUG.
VM_REPORT_RE='WARNING:|BUG:|Oops|Call Trace|KASAN|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|lock held when returning|list_(add|del) corruption|ODEBUG:|unreferenced object|blocked for more than|soft lockup|hard LOCKUP|rcu_sched detected stalls|rcu: INFO|general protection fault|kernel BUG'

# Emulator faults. Under multi-threaded TCG a vCPU can still run an old
# translation of kernel text that another vCPU has just patched (static
# keys, tracepoints, sched_clock going stable): it executes the int3 that
# text_poke_bp() had put there and removed, and the kernel dies with "Oops:
# int3" (6.1: "int3: 0000 [#1]") although the byte in memory is no longer
# an int3 (the oops' Code: line shows it). Seen about once in 20 short
# boots on this host, at boot and when a test toggles a tracepoint.
VM_EMU_FAULT_RE='Oops: int3|int3: 0000 \[#'
# vm_emu_fault LOG: LOG (without \r) holds such a crash: an int3 oops whose
# Code: line shows no 0xcc just before the faulting ip.
vm_emu_fault() {
	# The pattern spelt out: awk -v would eat its backslash.
	awk '
		/Oops: int3|int3: 0000 \[#/ { seen = 1; next }
		seen && /Code: / {
			sub(/.*Code: /, "")
			n = split($0, b, " ")
			for (i = 2; i <= n; i++)
				if (b[i] ~ /^</) { ok = (b[i - 1] != "cc"); exit }
			exit
		}
		END { exit !ok }' "$1"
}

# vm_rootfs CACHE WHAT MIRROR PKG...: a Debian bookworm minbase with PKG,
# made by debootstrap from MIRROR, packed as one newc cpio for a guest that
# runs from RAM (no docs, apt lists, or kernel modules of the host's), and
# kept in CACHE as rootfs-<key>.cpio, the key a hash of the package list:
# made again only when the list changes (the older ones are removed). Its
# path goes to VM_ROOTFS. WHAT names it in the log. The stage folder,
# CACHE/rootfs-stage.<this shell's pid>, is removed when done or failed; a
# caller that may be interrupted removes it in its trap.
vm_rootfs() {
	local cache=$1 what=$2 mirror=$3 pkgs key stage
	shift 3
	pkgs=$(echo "$@" | tr ' ' ,)
	key=$(echo "bookworm minbase $pkgs" | sha256sum | cut -c1-16)
	VM_ROOTFS=$cache/rootfs-$key.cpio
	[ -f "$VM_ROOTFS" ] && return 0
	log "building the $what rootfs (debootstrap bookworm: $pkgs)"
	stage=$cache/rootfs-stage.$$
	rm -rf "$stage"
	debootstrap --variant=minbase --include="$pkgs" bookworm "$stage" \
		"$mirror" > "$cache/debootstrap.log" 2>&1 || {
		tail -20 "$cache/debootstrap.log"
		rm -rf "$stage"
		die "debootstrap failed (log: $cache/debootstrap.log)"
	}
	rm -rf "$stage"/usr/share/{doc,man,info,locale} "$stage"/var/cache/apt/* \
		"$stage"/var/lib/apt/lists/* "$stage"/lib/modules/*
	(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort |
		cpio -o -H newc --quiet) > "$VM_ROOTFS.tmp"
	rm -rf "$stage"
	rm -f "$cache"/rootfs-*.cpio
	mv "$VM_ROOTFS.tmp" "$VM_ROOTFS"
}
