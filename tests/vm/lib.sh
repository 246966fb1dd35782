# Guest-side helpers of the VM tests (busybox sh); sourced by tests/vm/*.sh.
#
# Both our module and the stock one are module "bfq" and register elevator
# "bfq": only one of them can be loaded at a time. On the debug kernel
# (VM_BUILTIN=1) ours is built in, and so are null_blk and scsi_debug: the
# load/unload helpers then only switch schedulers.
#   load_ours / load_stock   unload whichever bfq is loaded, insmod this one
#   load_bfq                 the one the boot asked for (vmimpl=ours|stock)
#   unload_bfq               switch every device off bfq, then rmmod bfq
#   mk_nullb NAME [key=value ...]  a null_blk device made through configfs;
#                            prints the disk name (/dev/<that>)
#   rm_nullb NAME
#   sdebug_load [param=value ...]  scsi_debug with one host (module
#                            parameters; built in: the boot's parameters)
#   sdebug_disk              its disk's name, once it appears
#   sdebug_unload            remove its hosts (and the module when one)
#   set_sched DEV SCHED / cur_sched DEV
#   ok MSG / fail MSG        report a check; the script exits 1 at the end
#                            (finish) when any check failed
#   skip REASON              end the test as skipped (exit 77), with why
#   VM_QUICK                 1 under make check / make vmtest: the quick
#                            form of a share or latency test (fewer rounds,
#                            loose bounds); 0 under make bench

OURS_KO=/lib/modules/ours/bfq.ko
STOCK_KO=/lib/modules/stock/bfq.ko
NULLB_CFS=/sys/kernel/config/nullb
VM_IMPL=${VM_IMPL:-ours}
VM_BUILTIN=${VM_BUILTIN:-0}
FAILS=0

ok()   { echo "ok: $*"; }
fail() { echo "not ok: $*"; FAILS=$((FAILS + 1)); }
# check DESC CMD...: ok when CMD succeeds.
check() { local d=$1; shift; if "$@"; then ok "$d"; else fail "$d"; fi; }
finish() {
	if [ "$FAILS" -eq 0 ]; then echo "all checks passed"; exit 0; fi
	echo "$FAILS check(s) failed"; exit 1
}
die() { echo "not ok: $*"; exit 1; }
# skip REASON: the test cannot run here (not a pass): the host prints
# SKIP: vm/KVER/TEST (REASON).
skip() { echo "skip: $*"; exit 77; }

bfq_loaded() { grep -q '^bfq ' /proc/modules; }

cur_sched() { sed -n 's/.*\[\(.*\)\].*/\1/p' "/sys/block/$1/queue/scheduler"; }
set_sched() { echo "$2" > "/sys/block/$1/queue/scheduler"; }

unload_bfq() {
	local q
	for q in /sys/block/*/queue/scheduler; do
		[ -e "$q" ] || continue
		grep -q '\[bfq\]' "$q" && echo none > "$q"
	done
	[ "$VM_BUILTIN" = 1 ] && return 0
	bfq_loaded || return 0
	# A removed cgroup's bfq data is freed after an RCU grace period and
	# holds a module reference until then: rmmod right after rmdir may be
	# refused for a moment (Documentation/bfq-iosched.rst), so retry for
	# up to 5 s before calling it a failure.
	local n=0
	until rmmod bfq 2>/dev/null; do
		n=$((n + 1))
		[ $n -le 250 ] || { rmmod bfq; return 1; }
		usleep 20000
	done
	[ $n = 0 ] || echo "rmmod bfq took $n retries ($((n * 20)) ms)"
	return 0
}

_load() {
	unload_bfq || return 1
	if [ "$VM_BUILTIN" = 1 ]; then
		echo "bfq is built in ($(uname -r))"
		return 0
	fi
	[ -f "$1" ] || { echo "no $1 in the guest"; return 1; }
	insmod "$1" || return 1
	echo "loaded $1 (taint: $(cat /sys/module/bfq/taint 2>/dev/null))"
}
load_ours()  { _load "$OURS_KO"; }
load_stock() { _load "$STOCK_KO"; }
load_bfq() {
	case "$VM_IMPL" in
	stock) load_stock ;;
	*) load_ours ;;
	esac
}

# mk_nullb NAME [key=value ...]: defaults size=256 (MiB), memory_backed=1,
# blocksize=512; each key=value is written to the configfs attribute.
mk_nullb() {
	local name=$1 d kv; shift
	[ -d /sys/module/null_blk ] ||
		modprobe null_blk nr_devices=0 || return 1
	d=$NULLB_CFS/$name
	mkdir "$d" || return 1
	echo 256 > "$d/size"
	echo 1 > "$d/memory_backed"
	echo 512 > "$d/blocksize"
	for kv in "$@"; do
		echo "${kv#*=}" > "$d/${kv%%=*}" || { echo "mk_nullb: bad $kv"; return 1; }
	done
	echo 1 > "$d/power" || return 1
	# Since 5.x the disk takes the configfs directory's name.
	if [ -e "/sys/block/$name" ]; then echo "$name"
	else echo "nullb$(cat "$d/index")"; fi
}

rm_nullb() {
	local d=$NULLB_CFS/$1
	[ -d "$d" ] || return 0
	echo 0 > "$d/power"
	rmdir "$d"
}

SDEBUG_SYS=/sys/bus/pseudo/drivers/scsi_debug
# sdebug_disk: the name of scsi_debug's disk once it appears (within 5 s),
# its /dev node made; fails when none does.
sdebug_disk() {
	local s dev= i=0
	while [ $i -lt 50 ] && [ -z "$dev" ]; do
		for s in $SDEBUG_SYS/adapter*/host*/target*/*/block/*; do
			[ -e "$s" ] && dev=${s##*/}
		done
		[ -n "$dev" ] || usleep 100000
		i=$((i + 1))
	done
	[ -n "$dev" ] || return 1
	[ -e /dev/$dev ] || mknod /dev/$dev b $(tr : ' ' < /sys/block/$dev/dev)
	echo $dev
}
sdebug_load() {
	if [ "$VM_BUILTIN" = 1 ]; then
		echo 1 > $SDEBUG_SYS/add_host
	else
		modprobe sd_mod && modprobe scsi_debug "$@"
	fi
}

sdebug_unload() {
	if [ "$VM_BUILTIN" = 1 ]; then
		echo "-$(cat $SDEBUG_SYS/add_host)" > $SDEBUG_SYS/add_host
	else
		rmmod scsi_debug
	fi
}

# fiosum FILE: the lines of a fio report worth keeping in the console log.
fiosum() {
	grep -E 'err=|fio:|verify|READ:|WRITE:|issued rwts|IOPS=' "$1"
}

# dirty_save / dirty_restore: the page cache's dirty limits as the test
# found them, and back (a limit set in bytes reads 0 as a ratio and the
# other way round: whichever is set is written back).
dirty_save() {
	DIRTY0="$(cat /proc/sys/vm/dirty_bytes) $(cat /proc/sys/vm/dirty_ratio)"
	DIRTY0="$DIRTY0 $(cat /proc/sys/vm/dirty_background_bytes)"
	DIRTY0="$DIRTY0 $(cat /proc/sys/vm/dirty_background_ratio)"
}
dirty_restore() {
	[ -n "${DIRTY0:-}" ] || return 0
	set -- $DIRTY0
	if [ "$1" != 0 ]; then echo $1 > /proc/sys/vm/dirty_bytes
	else echo $2 > /proc/sys/vm/dirty_ratio; fi
	if [ "$3" != 0 ]; then echo $3 > /proc/sys/vm/dirty_background_bytes
	else echo $4 > /proc/sys/vm/dirty_background_ratio; fi
}

# stop_readers: kill the background readers listed in PIDS, wait for them.
stop_readers() {
	[ -n "$PIDS" ] && kill $PIDS 2>/dev/null
	wait
	PIDS=
}
# rm_groups: the v2 group G and every group below it, deepest first.
rm_groups() {
	[ -d $G ] || return 0
	for d in $(find $G -depth -mindepth 1 -type d); do rmdir "$d"; done
	rmdir $G
}

# cgroups (tests/vm/cgroup-*.sh). A controller is on one hierarchy at a
# time: the v2 tests enable io under CG2 and leave it mounted; cgroup-v1
# takes io back from it (no groups, -io) before it mounts blkio on v1.
#   cg2_io                   cgroup2 on CG2 (mounted if needed) with +io in
#                            the root's subtree_control
#   cg_run CGDIR CMD...      CMD in the background inside cgroup CGDIR (v1
#                            or v2): the shell writes its own pid to
#                            cgroup.procs and execs CMD, so $! is CMD's pid
#   cg_empty GROUP DEST      move what GROUP still holds to DEST, wait (<= 2 s)
#                            until it is unpopulated
#   median                   the median of the numbers on stdin
#   dmesg_reports [N]        kernel reports (most of the host's VM_REPORT_RE) in
#                            the kernel log; with N, only after line N
CG2=/sys/fs/cgroup
cg2_io() {
	local i
	grep -q " $CG2 cgroup2 " /proc/mounts ||
		mount -t cgroup2 none $CG2 || return 1
	# A v1 hierarchy unmounted while it still had (dying) groups lives on
	# unmounted and keeps blkio: mounted again and unmounted without
	# groups, it dies, asynchronously, and gives io back to v2.
	if [ "$(awk '$1 == "blkio" { print $2 }' /proc/cgroups)" != 0 ] &&
	   ! grep -q ' cgroup .*blkio' /proc/mounts; then
		mkdir -p /mnt/blkio-gone
		mount -t cgroup -o blkio none /mnt/blkio-gone &&
			umount /mnt/blkio-gone
	fi
	for i in $(seq 50); do
		grep -qw io $CG2/cgroup.controllers &&
			echo +io > $CG2/cgroup.subtree_control 2>/dev/null && return 0
		sleep 0.2
	done
	echo "cg2_io: no io controller on cgroup2 ($(cat $CG2/cgroup.controllers))"
	return 1
}
cg_run() {
	local cg=$1; shift
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$cg" "$@" &
}
# cg_empty GROUP DEST: move whatever the v2 GROUP still holds into DEST (a
# fio job forked while its parent sat in GROUP is born there) and wait, at
# most 2 s, until the kernel reports GROUP unpopulated: a task that has
# exited but is not yet released still counts, and rmdir then fails with
# EBUSY. 1 if it is still populated then.
cg_empty() {
	local i=0 q
	while [ $i -lt 40 ]; do
		for q in $(cat "$1/cgroup.procs" 2>/dev/null); do
			echo "$q" > "$2/cgroup.procs" 2>/dev/null
		done
		grep -q '^populated 0' "$1/cgroup.events" 2>/dev/null && return 0
		usleep 50000
		i=$((i + 1))
	done
	return 1
}

# Group shares (cgroup-share, cgroup-psync). The caller sets G (its v2
# group), dev and MM (the device and its MAJ:MIN), WIN, ROUNDS, LEAD, TOL.
#   mkgroups PATH:WEIGHT...  groups under G, parents first, with io enabled
#                            below each parent and the given io.bfq.weight
#   grp_bytes GROUP FIELD    GROUP's io.stat FIELD (rbytes, wbytes) on MM;
#                            grp_rbytes GROUP its rbytes
#   grp_wait_io GROUP:FIELD... until each FIELD is counted (<= 30 s in all)
#   grp_measure GROUP...     once every GROUP did I/O and LEAD s more,
#                            ROUNDS windows of WIN s: GRP_W gets a line per
#                            window, the device's completed requests, then
#                            each GROUP's bytes (io.stat, the block layer's
#                            count); prints them in KiB
#   grp_ratios               each window's second group's bytes / first's
#   grp_shares COL           each window's COLth group's part of the total
#   within X WANT            |X / WANT - 1| <= TOL
GRP_W=/tmp/grp.w
mkgroups() {
	local gw p
	for gw; do
		p=$G/${gw%:*}
		grep -qw io "${p%/*}/cgroup.subtree_control" ||
			echo +io > "${p%/*}/cgroup.subtree_control" || return 1
		mkdir "$p" || return 1
		[ -e "$p/io.bfq.weight" ] || {
			echo "no io.bfq.weight in $p: $VM_IMPL bfq has no cgroup policy"
			return 1; }
		echo "${gw#*:}" > "$p/io.bfq.weight" || return 1
	done
}
grp_bytes() { sed -n "s/^$MM .*$2=\([0-9]*\) .*/\1/p" "$G/$1/io.stat"; }
grp_rbytes() { grp_bytes "$1" rbytes; }
grp_wait_io() {
	local gf n=0
	for gf; do
		while [ -z "$(grp_bytes "${gf%:*}" "${gf#*:}")" ]; do
			n=$((n + 1))
			[ $n -gt 150 ] && { echo "no I/O counted in ${gf%:*} after 30 s"; return 1; }
			sleep 0.2
		done
	done
}
grp_snap() {
	local s g
	s=$(awk '{ print $1 }' /sys/block/$dev/stat)
	for g; do s="$s $(grp_rbytes $g)"; done
	echo $s
}
grp_measure() {
	local g w= prev cur i
	: > $GRP_W
	for g; do w="$w $g:rbytes"; done
	# shellcheck disable=SC2086 # a list of GROUP:FIELD
	grp_wait_io $w || return 1
	sleep $LEAD
	prev=$(grp_snap "$@")
	for i in $(seq $ROUNDS); do
		sleep $WIN
		cur=$(grp_snap "$@")
		echo "$prev $cur" | awk '{ n = NF / 2
			for (i = 1; i <= n; i++) printf "%.0f ", $(i + n) - $i
			print "" }' >> $GRP_W
		prev=$cur
	done
	awk -v w=$WIN '{ printf "  window %d: device %d req/s; KiB:", NR, $1 / w
		for (i = 2; i <= NF; i++) printf " %d", $i / 1024; print "" }' $GRP_W
}
grp_ratios() { awk '{ printf "%.3f ", ($2 > 0) ? $3 / $2 : 999 }' $GRP_W; }
grp_shares() {
	awk -v c=$(($1 + 1)) '{ t = 0; for (i = 2; i <= NF; i++) t += $i
		printf "%.4f ", (t > 0) ? $c / t : 0 }' $GRP_W
}
within() { awk "BEGIN { d = $1 / $2 - 1; exit !(d <= $TOL && d >= -$TOL) }"; }
median() {
	tr ' ' '\n' | grep . | sort -n |
		awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
dmesg_reports() {
	dmesg | tail -n +$((${1:-0} + 1)) | grep -E 'WARNING:|BUG:|Oops|Call Trace|KASAN|circular locking|recursive locking|inconsistent lock state|suspicious RCU usage|list_(add|del) corruption|ODEBUG:|general protection fault|kernel BUG'
}
