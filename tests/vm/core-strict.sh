# strict_guarantees=1: at most one request in the device at any time, and
# I/O still completes correctly (crc32c verify).
#
# /sys/block/DEV/inflight counts the requests the driver holds. It is
# sampled in a busy loop while a multi-job fio runs; the same workload with
# strict_guarantees=0 first shows that the sampler does see more than one
# request in flight when bfq allows it (else the check would prove nothing).
. /tests/lib.sh
trap 'rm_nullb strict0 >/dev/null 2>&1' EXIT

load_bfq || die "insmod of the $VM_IMPL bfq.ko failed"
# Memory backed (for verify), a 500 us timer completion and an 8-request
# hardware queue: plenty of room for several requests at once.
dev=$(mk_nullb strict0 size=256 irqmode=2 completion_nsec=500000 \
	hw_queue_depth=8 submit_queues=1) || die "cannot create strict0"
set_sched "$dev" bfq || die "cannot select bfq on $dev"
S=/sys/block/$dev/queue/iosched/strict_guarantees

# workload SECS OUT: two libaio jobs (8 in flight each) and two psync jobs,
# random read/write with crc32c verify, each on its own 32 MiB region.
workload() {
	fio --filename=/dev/$dev --direct=1 --bs=4k --size=32M \
	    --verify=crc32c --verify_fatal=1 --do_verify=1 --rw=randrw \
	    --time_based --runtime="$1" \
	    --name=a0 --ioengine=libaio --iodepth=8 --offset=0 \
	    --name=a1 --ioengine=libaio --iodepth=8 --offset=32M \
	    --name=s0 --ioengine=psync --offset=64M \
	    --name=s1 --ioengine=psync --offset=96M \
	    --output="$2"
}
# sample: read inflight until fio ends; prints "max samples busy".
sample() {
	local max=0 n=0 busy=0 r w t
	while pidof fio >/dev/null; do
		read r w < /sys/block/$dev/inflight
		t=$((r + w)); n=$((n + 1))
		[ $t -gt 0 ] && busy=$((busy + 1))
		[ $t -gt $max ] && max=$t
	done
	echo "$max $n $busy"
}

echo 0 > $S
workload 4 /tmp/fio0.out & sleep 0.5
set -- $(sample); wait
echo "strict_guarantees=0: max inflight $1 over $2 samples ($3 busy)"
check "control: more than 1 in flight without strict_guarantees (max $1)" [ "$1" -gt 1 ]

check "strict_guarantees=1 accepted" sh -c "echo 1 > $S"
check "strict_guarantees reads back 1" [ "$(cat $S)" = 1 ]
workload 8 /tmp/fio1.out & fpid=$!; sleep 0.5
set -- $(sample); wait $fpid; rc=$?
echo "strict_guarantees=1: max inflight $1 over $2 samples ($3 busy)"
fiosum /tmp/fio1.out
check "at most 1 request in flight with strict_guarantees (max $1)" [ "$1" -le 1 ]
check "the sampler saw the device busy ($3 of $2 samples)" [ "$3" -gt 0 ]
check "fio exited 0 (rc=$rc)" [ "$rc" = 0 ]
check "fio reports err=0 (verify passed)" sh -c '! grep -q "err= *[1-9]" /tmp/fio1.out'
check "fio did I/O" grep -q 'READ:' /tmp/fio1.out
set_sched "$dev" none
rm_nullb strict0
unload_bfq
finish
