# Mixed random reads and writes with crc32c verification on a memory-backed
# null_blk under bfq: fio must find no error. On the debug kernel's quick
# run (make check) a quarter of the I/O: KASAN makes every request several
# times dearer, and the stress matrix verifies far more there.
. /tests/lib.sh
trap 'rm_nullb nullb0 >/dev/null 2>&1' EXIT

io=16M pio=4M
[ "$VM_BUILTIN" = 1 ] && [ "${VM_QUICK:-0}" = 1 ] && io=4M pio=1M
load_bfq || die "insmod of the $VM_IMPL bfq.ko failed"
dev=$(mk_nullb nullb0 size=256) || die "cannot create null_blk nullb0"
set_sched "$dev" bfq || die "cannot select bfq on $dev"

# Four jobs, each on its own 32 MiB region (so they never overwrite each
# other's blocks), verifying as they go (verify_backlog) and at the end.
fio --name=mixed --filename=/dev/$dev --direct=1 --ioengine=libaio \
    --rw=randrw --rwmixread=50 --bs=4k --iodepth=8 --numjobs=4 \
    --size=32M --offset_increment=32M --io_size=$io \
    --verify=crc32c --verify_backlog=512 --verify_fatal=1 \
    --do_verify=1 --group_reporting --output=/tmp/fio.out
rc=$?
fiosum /tmp/fio.out
check "fio exited 0 (rc=$rc)" [ $rc = 0 ]
check "fio reports err=0" sh -c '! grep -q "err= *[1-9]" /tmp/fio.out'
check "fio did I/O" grep -q 'READ:' /tmp/fio.out
check "bfq still current after the run" [ "$(cur_sched "$dev")" = bfq ]

# A second, psync engine pass (several synchronous processes, which is
# what bfq idles for).
fio --name=sync --filename=/dev/$dev --direct=1 --ioengine=psync \
    --rw=randrw --bs=4k --numjobs=3 --size=16M --offset_increment=64M \
    --io_size=$pio --verify=crc32c --verify_fatal=1 --do_verify=1 \
    --group_reporting --output=/tmp/fio2.out
rc=$?
fiosum /tmp/fio2.out
check "fio psync exited 0 (rc=$rc)" [ $rc = 0 ]
check "fio psync reports err=0" sh -c '! grep -q "err= *[1-9]" /tmp/fio2.out'

set_sched "$dev" none
rm_nullb nullb0
unload_bfq || fail "bfq unloads"
finish
