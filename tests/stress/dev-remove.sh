# Stress 2: devices removed under I/O. The first half of the time: a
# null_blk disk on bfq is powered off through configfs (then its directory
# removed) while two fio jobs write to it, and made again; the second half:
# a scsi_debug disk on bfq is deleted through sysfs under fio, and comes back
# by a host rescan or by removing and re-adding the host. fio's errors from
# the vanished device are expected; a fio that does not end after the
# removal (S_HANG seconds) is an error, and so is any kernel report.
# Iterations: devices removed.
. /tests/slib.sh
trap 'rm_nullb dr0 >/dev/null 2>&1; s_sd_fini >/dev/null 2>&1' EXIT

load_bfq || die "cannot load bfq"

# lossy_fio DEV TAG: writers and a reader on DEV that keep going until the
# device is gone (or 120 s).
lossy_fio() {
	fio_bg "$2" --filename=/dev/$1 --allow_file_create=0 --direct=1 --bs=4k --time_based \
	    --runtime=120 --verify=crc32c --verify_state_save=0 \
	    --name=aio --ioengine=libaio --iodepth=16 --rw=randwrite \
	    --size=16M --verify_backlog=64 \
	    --name=sync --ioengine=psync --rw=randrw --offset=16M --size=16M \
	    --name=rd --ioengine=libaio --iodepth=4 --rw=randread --offset=32M \
	    --size=16M
}

# Half the time for null_blk.
half=$((S_T0 + SECS / 2))
n=0
while [ "$(date +%s)" -lt $half ]; do
	n=$((n + 1))
	# Completions inline, by softirq, or by a timer (I/O still in flight
	# when the power goes).
	case $((n % 3)) in
	0) opts="irqmode=0" ;;
	1) opts="irqmode=1" ;;
	2) opts="irqmode=2 completion_nsec=$((20000 + $(rnd 200000)))" ;;
	esac
	dev=$(s_nullb dr0 size=64 hw_queue_depth=$((1 + $(rnd 32))) $opts) ||
		{ s_err "cannot make null_blk dr0 ($opts)"; break; }
	base=$(s_ios $dev)
	lossy_fio "$dev" dr-$n
	s_io_wait $dev $base || echo "no I/O on $dev 20 s after fio started"
	usleep $((100000 + $(rnd 1000000)))
	if echo 0 > $NULLB_CFS/dr0/power; then ITER=$((ITER + 1))
	else s_err "power=0 refused"; fi
	# Sometimes the directory goes at once, under the still-open disk.
	[ $((n % 2)) = 0 ] && { rmdir $NULLB_CFS/dr0 || s_err "rmdir dr0 failed"; }
	fio_collect dr-$n $FIO_PID lossy
	[ -d $NULLB_CFS/dr0 ] && { rmdir $NULLB_CFS/dr0 || s_err "rmdir dr0 failed"; }
	[ -e /sys/block/$dev ] && s_err "$dev still there after power=0"
done
echo "null_blk: $n round(s)"

# scsi_debug: the disk under its (first) host.
SD=/sys/bus/pseudo/drivers/scsi_debug
sd_disk() {
	local b
	for b in $SD/adapter*/host*/target*/*/block/*; do
		[ -e "$b" ] && { basename "$b"; return 0; }
	done
	return 1
}
sd_wait() {
	local i=0
	while [ $i -lt 100 ]; do
		sd_disk && return 0
		usleep 100000; i=$((i + 1))
	done
	return 1
}
s_sd_fini() { [ -e $SD/add_host ] && [ "$(cat $SD/add_host)" != 0 ] && sdebug_unload; }

if sdebug_load dev_size_mb=64 max_queue=8 && sd=$(sd_wait); then
	m=0
	# At least one round, however long the null_blk half took.
	while [ $m = 0 ] || s_running; do
		m=$((m + 1))
		set_sched "$sd" bfq || { s_err "cannot select bfq on $sd"; break; }
		base=$(s_ios $sd)
		lossy_fio "$sd" sd-$m
		s_io_wait $sd $base || echo "no I/O on $sd 20 s after fio started"
		usleep $((100000 + $(rnd 1000000)))
		if echo 1 > /sys/block/$sd/device/delete; then ITER=$((ITER + 1))
		else s_err "delete of $sd refused"; fi
		fio_collect sd-$m $FIO_PID lossy
		if [ $((m % 2)) = 0 ]; then
			# Rescan the host: the deleted disk comes back.
			h=$(basename $(ls -d $SD/adapter*/host* | head -1))
			echo "- - -" > /sys/class/scsi_host/$h/scan ||
				s_err "rescan of $h failed"
		else
			s_sd_fini; sdebug_load dev_size_mb=64 max_queue=8 ||
				{ s_err "scsi_debug host re-add failed"; break; }
		fi
		sd=$(sd_wait) || { s_err "scsi_debug disk did not come back"; break; }
	done
	echo "scsi_debug: $m round(s)"
	s_sd_fini
else
	s_err "no scsi_debug disk"
fi
s_finish
