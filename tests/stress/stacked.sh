# Stress 9: stacked devices over bfq. Null_blk A (bfq) carries a dm-linear
# (st-lin, A's first 64 MiB), a snapshot origin and its snapshot
# (st-orig/st-snap over st-base = A's second 64 MiB; the COW on null_blk B,
# bfq too) and a loop device over A itself (offset 128 MiB); a second loop
# device sits on a file in tmpfs, with bfq on both loop devices. A round:
# build the stack, run verifying fio writers through every top device while
# their processes are moved between cgroups (when cgroup v2 has io), then
# start unverified writers again and tear the stack down under them, in one
# of three orders (dm first; A powered off under everything first; loops
# and the COW device first). Only a hang or a kernel report is an error
# in the teardown. Iterations: stacks built and torn down.
. /tests/slib.sh
export DM_DISABLE_UDEV=1
DMS="st-snap st-orig st-lin st-base"
cleanup() {
	for n in $DMS; do dmsetup --noudevsync remove --retry $n 2>/dev/null; done
	for l in $LOOPS; do losetup -d $l 2>/dev/null; done
	rm_nullb sta; rm_nullb stb; rm -f /tmp/st.img
	s_cg_fini
}
trap 'cleanup >/dev/null 2>&1' EXIT

load_bfq || die "cannot load bfq"
if [ "$VM_BUILTIN" != 1 ]; then
	modprobe loop 2>/dev/null; modprobe dm-mod 2>/dev/null; modprobe dm-snapshot 2>/dev/null
fi
command -v dmsetup >/dev/null || die "no dmsetup in the guest"
cg=1
s_cg_init || { cg=0; echo "no cgroup moves"; }

# 64 MiB in 512-byte sectors.
SZ=131072
dm() { dmsetup --noudevsync "$@"; }
mknode() {	# the /dev/mapper node, made if missing
	[ -e /dev/mapper/$1 ] || dm mknodes $1
	[ -e /dev/mapper/$1 ]
}

build() {
	A=$(s_nullb sta size=256 hw_queue_depth=8) || return 1
	B=$(s_nullb stb size=160 hw_queue_depth=8) || return 1
	dm create st-lin --table "0 $SZ linear /dev/$A 0" &&
	dm create st-base --table "0 $SZ linear /dev/$A $SZ" &&
	mknode st-base &&
	dm create st-snap --table "0 $SZ snapshot /dev/mapper/st-base /dev/$B P 8" &&
	dm create st-orig --table "0 $SZ snapshot-origin /dev/mapper/st-base" ||
		return 1
	for n in st-lin st-snap st-orig; do mknode $n || return 1; done
	L1=$(losetup -f) && losetup -o $((128 << 20)) $L1 /dev/$A || return 1
	dd if=/dev/zero of=/tmp/st.img bs=1M count=0 seek=64 2>/dev/null
	L2=$(losetup -f) && losetup $L2 /tmp/st.img || return 1
	LOOPS="$L1 $L2"
	for l in $L1 $L2; do
		set_sched ${l#/dev/} bfq || { echo "no bfq on $l"; return 1; }
	done
	echo "stack: A=$A B=$B dm: $(dm ls | tr '\n' ' ') loops: $LOOPS"
}

# topfio TAG SECS [lossy]: writers through every top device, for SECS
# (verifying: at most SECS, then the verification of what is left).
topfio() {
	local extra="--runtime=$2"
	[ "${3:-}" = lossy ] && extra="--runtime=$2 --time_based"
	fio_bg "$1" $FIO_V $extra --ioengine=psync \
	    --name=lin --filename=/dev/mapper/st-lin --rw=randwrite --size=32M \
	    --verify_backlog=32 \
	    --name=orig --filename=/dev/mapper/st-orig --rw=randwrite \
	    --size=32M --verify_backlog=32 \
	    --name=snap --filename=/dev/mapper/st-snap --rw=randwrite \
	    --offset=32M --size=32M --verify_backlog=32 \
	    --name=loopA --filename=$L1 --rw=randwrite --size=32M \
	    --verify_backlog=32 \
	    --name=loopF --filename=$L2 --ioengine=libaio --iodepth=8 \
	    --rw=randwrite --size=32M --verify_backlog=64
}

# movefor PID SECS: move PID's processes between cgroups for SECS seconds
# (or until it ends).
movefor() {
	local end=$(($(date +%s) + $2)) p
	while kill -0 $1 2>/dev/null && [ "$(date +%s)" -lt $end ]; do
		if [ $cg = 1 ]; then
			for p in $(pidof fio); do s_cg_move $p || s_err "move of $p refused"; done
		fi
		usleep $((50000 + $(rnd 200000)))
	done
}

teardown() {
	case $1 in
	0)	for n in $DMS; do dm remove --force $n 2>/dev/null; done
		for l in $LOOPS; do losetup -d $l; done
		rm_nullb stb; rm_nullb sta ;;
	1)	echo 0 > $NULLB_CFS/sta/power
		rm_nullb stb
		for l in $LOOPS; do losetup -d $l; done
		for n in $DMS; do dm remove --force $n 2>/dev/null; done ;;
	2)	for l in $LOOPS; do losetup -d $l; done
		echo 0 > $NULLB_CFS/stb/power
		for n in $DMS; do dm remove --force $n 2>/dev/null; done
		rm_nullb sta ;;
	esac
}

round=0
while s_running; do
	round=$((round + 1))
	LOOPS=
	build || { s_err "cannot build the stack"; dm ls; cleanup; break; }
	# A third of the remaining time, 4 to 15 s, for verified I/O: many
	# short rounds, so that every teardown order comes round.
	t=$(( $(s_left) / 3 )); [ $t -lt 4 ] && t=4; [ $t -gt 15 ] && t=15
	topfio st-v$round $t
	movefor $FIO_PID $((t + S_HANG))
	fio_collect st-v$round $FIO_PID verify
	base=$(s_ios $A)
	topfio st-l$round 60 lossy
	lpid=$FIO_PID
	# The teardown starts once the writers' I/O reaches A.
	s_io_wait $A $base || echo "no I/O on $A 20 s after fio started"
	movefor $lpid 1
	teardown $((round % 3))
	fio_collect st-l$round $lpid lossy
	cleanup > /dev/null 2>&1
	dm ls | grep st- && s_err "dm devices left after the teardown"
	for n in $DMS; do
		[ -e /dev/mapper/$n ] && s_err "/dev/mapper/$n left after the teardown" &&
			rm -f /dev/mapper/$n
	done
	losetup -a | grep -E "st.img|$A" && s_err "loop devices left after the teardown"
	[ $cg = 1 ] && s_cg_init > /dev/null
	ITER=$((ITER + 1))
done
echo "$round round(s)"
s_finish
