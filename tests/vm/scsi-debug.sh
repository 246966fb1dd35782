# bfq on a SCSI disk (scsi_debug): select, do verified I/O, switch away.
. /tests/lib.sh
trap 'for q in /sys/block/sd*/queue/scheduler; do echo none > $q; done 2>/dev/null; sdebug_unload 2>/dev/null' EXIT

load_bfq || die "insmod of the $VM_IMPL bfq.ko failed"
sdebug_load dev_size_mb=64 max_queue=8 || die "loading scsi_debug failed"
dev=$(sdebug_disk) || die "no scsi_debug disk appeared"
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
