# Verified I/O under bfq on a device with a service time and a two-request
# queue (timer completions, so bfq idles and its timers run), then leave
# bfq and unload it right after the I/O stops (idle timer still armed).
. /tests/lib.sh
trap 'rm_nullb slow0 >/dev/null 2>&1' EXIT

load_bfq || die "insmod of the $VM_IMPL bfq.ko failed"
dev=$(mk_nullb slow0 size=128 irqmode=2 completion_nsec=200000 \
	hw_queue_depth=2 submit_queues=1) || die "cannot create slow0"
set_sched "$dev" bfq || die "cannot select bfq on $dev"

# Three synchronous readers/writers and one async-ish libaio job, each on
# its own 32 MiB region.
fio --filename=/dev/$dev --direct=1 --bs=4k --size=32M --io_size=2M \
    --verify=crc32c --verify_fatal=1 --do_verify=1 --rw=randrw \
    --name=s0 --ioengine=psync --offset=0 \
    --name=s1 --ioengine=psync --offset=32M \
    --name=s2 --ioengine=psync --offset=64M \
    --name=a0 --ioengine=libaio --iodepth=8 --offset=96M \
    --output=/tmp/fio.out
rc=$?
fiosum /tmp/fio.out
check "fio exited 0 (rc=$rc)" [ $rc = 0 ]
check "fio reports err=0" sh -c '! grep -q "err= *[1-9]" /tmp/fio.out'

# Sequential readers at QD1, stopped abruptly, then bfq torn down at once.
fio --filename=/dev/$dev --direct=1 --bs=16k --ioengine=psync --rw=read \
    --time_based --runtime=2 --name=r0 --offset=0 --size=32M \
    --name=r1 --offset=64M --size=32M --output=/tmp/fio2.out
rc=$?
check "sequential readers exited 0 (rc=$rc)" [ $rc = 0 ]
check "switch to none right after" set_sched "$dev" none
# Built in (the debug kernel) there is no module to unload: leaving bfq
# above already tore its per-device state down with the timer armed.
[ "$VM_BUILTIN" = 1 ] || check "rmmod bfq right after" rmmod bfq
rm_nullb slow0
finish
