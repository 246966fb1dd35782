# Switch schedulers back and forth (bfq, mq-deadline, none, kyber) while a
# verifying fio runs: no I/O may be lost or corrupted. Quick form
# (VM_QUICK=1, make check): fio's region once instead of three times.
. /tests/lib.sh
trap 'rm_nullb nullb0 >/dev/null 2>&1' EXIT

load_bfq || die "insmod of the $VM_IMPL bfq.ko failed"
modprobe kyber-iosched 2>/dev/null
dev=$(mk_nullb nullb0 size=128 hw_queue_depth=16) || die "cannot create null_blk nullb0"
set_sched "$dev" bfq || die "cannot select bfq on $dev"
S=/sys/block/$dev/queue/scheduler
echo "schedulers: $(cat $S)"

loops=3
[ "${VM_QUICK:-0}" = 1 ] && loops=1
scheds="bfq mq-deadline bfq none"
grep -qw kyber $S && scheds="$scheds bfq kyber"

fio --name=switch --filename=/dev/$dev --direct=1 --ioengine=libaio \
    --rw=randrw --bs=4k --iodepth=16 --numjobs=2 --size=32M \
    --offset_increment=32M --loops=$loops \
    --verify=crc32c --verify_backlog=256 --verify_fatal=1 --do_verify=1 \
    --group_reporting --output=/tmp/fio.out &
pid=$!
n=0; bad=0
# Switch until fio ends (bounded: 300 switches).
while kill -0 $pid 2>/dev/null && [ $n -lt 300 ]; do
	for s in $scheds; do
		kill -0 $pid 2>/dev/null || break
		if echo $s > $S; then n=$((n + 1)); else bad=$((bad + 1)); echo "switch to $s failed"; fi
		usleep 100000
	done
done
wait $pid
rc=$?
fiosum /tmp/fio.out
echo "$n switches done, $bad refused; now $(cat $S)"
check "switched at least 10 times while fio ran" [ $n -ge 10 ]
check "no switch was refused" [ $bad = 0 ]
check "fio exited 0 (rc=$rc)" [ $rc = 0 ]
check "fio reports err=0" sh -c '! grep -q "err= *[1-9]" /tmp/fio.out'
set_sched "$dev" none
rm_nullb nullb0
unload_bfq || fail "bfq unloads"
rmmod kyber_iosched 2>/dev/null
finish
