# Lost parallelism: two processes' synchronous requests are both in the
# device at once when the device takes many (the situation of blktests'
# block/017 and block/018).
#
# On a device that queues internally (an SSD, NVMe, anything with a tag
# depth above one) holding one process's request back while another
# process's request is in flight buys no guarantee: the device would serve
# both together. The rig is a null_blk with 32 tags and completions that
# take 2 s (1 s for the three-process case), so "in flight together" is
# seen in /sys/block/DEV/inflight and in the write time of
# /sys/block/DEV/stat without any timing bound tighter than a second.
#
#  1. A reads 4 KiB (O_DIRECT); 0.5 s later B writes 4 KiB (O_DIRECT);
#     0.7 s later the device holds one read and one write. Both with
#     low_latency 1 (A and B are applications starting, both raised) and
#     with low_latency 0 (two queues alike).
#  2. One read and two writes issued at once by three processes, 1 s each:
#     the two writes together account about 2 s of write time, not the
#     3 s or more of writes served one after the other.
#  3. strict_guarantees 1 keeps its meaning: one request in the device at
#     a time, so the write of case 1 waits (inflight 1 0).
. /tests/lib.sh
cleanup() { rm_nullb par0; rm_nullb par1; }
trap cleanup EXIT

load_bfq || die "loading the $VM_IMPL bfq failed"
dev=$(mk_nullb par0 irqmode=2 completion_nsec=2000000000 \
	hw_queue_depth=32 submit_queues=1) || die "cannot create par0"
Q=/sys/block/$dev/queue
set_sched $dev bfq || die "cannot select bfq on $dev"

# inflight after A's read and, 0.5 s later, B's write: "reads writes".
read_then_write() {
	local out
	dd if=/dev/$dev of=/dev/null bs=4096 iflag=direct count=1 \
		status=none &
	sleep 0.5
	dd if=/dev/zero of=/dev/$dev bs=4096 oflag=direct count=1 seek=64 \
		status=none &
	sleep 0.7
	out=$(awk '{ print $1, $2 }' /sys/block/$dev/inflight)
	wait
	echo "$out"
}

for ll in 1 0; do
	echo $ll > $Q/iosched/low_latency || die "low_latency=$ll refused"
	got=$(read_then_write)
	check "1: low_latency $ll: a read and a write in flight together ($got)" \
		[ "$got" = "1 1" ]
done

dev2=$(mk_nullb par1 irqmode=2 completion_nsec=1000000000 \
	hw_queue_depth=32 submit_queues=1) || die "cannot create par1"
set_sched $dev2 bfq || die "cannot select bfq on $dev2"
for ll in 1 0; do
	echo $ll > /sys/block/$dev2/queue/iosched/low_latency
	w0=$(awk '{ print $8 }' /sys/block/$dev2/stat)
	dd if=/dev/$dev2 of=/dev/null bs=4096 iflag=direct count=1 \
		status=none &
	dd if=/dev/zero of=/dev/$dev2 bs=4096 oflag=direct count=1 seek=64 \
		status=none &
	dd if=/dev/zero of=/dev/$dev2 bs=4096 oflag=direct count=1 seek=128 \
		status=none &
	wait
	w=$(( $(awk '{ print $8 }' /sys/block/$dev2/stat) - w0 ))
	# Together: 2 requests x 1 period. One after the other: 3 periods at
	# least (the second waits for the first), 5 behind the read.
	lim=2500
	check "2: low_latency $ll: two writes beside a read took ${w} ms of write time (<= $lim)" \
		[ "$w" -le "$lim" ]
done

echo 1 > $Q/iosched/low_latency
echo 1 > $Q/iosched/strict_guarantees || die "strict_guarantees=1 refused"
got=$(read_then_write)
check "3: strict_guarantees 1: the write waits for the read ($got)" \
	[ "$got" = "1 0" ]
echo 0 > $Q/iosched/strict_guarantees
finish
