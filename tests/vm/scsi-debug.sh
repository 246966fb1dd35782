# bfq on a SCSI disk (scsi_debug): select, do verified I/O, switch away.
. /tests/lib.sh
trap 'for q in /sys/block/sd*/queue/scheduler; do echo none > $q; done 2>/dev/null; sdebug_unload 2>/dev/null' EXIT

load_bfq || die "insmod of the $VM_IMPL bfq.ko failed"
sdebug_load dev_size_mb=64 max_queue=8 || die "loading scsi_debug failed"
dev=
i=0
while [ $i -lt 50 ] && [ -z "$dev" ]; do
	for s in /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/*; do
		[ -e "$s" ] && dev=${s##*/}
	done
	[ -n "$dev" ] || usleep 100000
	i=$((i + 1))
done
[ -n "$dev" ] || die "no scsi_debug disk appeared"
[ -e /dev/$dev ] || mknod /dev/$dev b $(tr : ' ' < /sys/block/$dev/dev)
echo "scsi_debug disk: $dev, schedulers: $(cat /sys/block/$dev/queue/scheduler)"
check "bfq selectable on $dev" set_sched "$dev" bfq
fio --name=sd --filename=/dev/$dev --direct=1 --ioengine=libaio \
    --rw=randrw --bs=4k --iodepth=8 --size=16M --verify=crc32c \
    --verify_fatal=1 --do_verify=1 --output=/tmp/fio.out
rc=$?
tail -n 4 /tmp/fio.out
check "fio on scsi_debug under bfq exited 0 (rc=$rc)" [ $rc = 0 ]
check "switch away" set_sched "$dev" none
check "scsi_debug unloads" sdebug_unload
check "bfq unloads" unload_bfq
finish
