# Two independent processes are not each other's wakers to idle for:
# two psync random readers of a null_blk that completes at once
# (irqmode=0), one per vCPU, low_latency 0. Each reader issues a request,
# gets it served and issues the next, so each completes just before the
# other asks, again and again, and bfq-inject.c's rule 4 takes them for
# each other's wakers. Idling for such a pair gains nothing (the turn
# given away goes to the waker, and the wakee's next request finds
# nobody ahead: bfq_waker_rivals() in bfq-iosched.c) and cost the pair
# a quarter to a half of its IOPS, a timer set and cancelled at every
# fourth request.
# Asserted, over 2 s of the trace: the device idled (bfq_idle_start) for
# fewer than 1% of the requests the device completed; both readers read.
# Skipped with one vCPU, where the readers do not run side by side.
. /tests/lib.sh
T=/sys/kernel/tracing
[ -d $T/events ] || T=/sys/kernel/debug/tracing
cleanup() {
	kill $P 2>/dev/null
	wait
	echo 0 > $T/tracing_on 2>/dev/null
	echo 0 > $T/events/bfq/enable 2>/dev/null
	[ -n "${dev:-}" ] && set_sched $dev none 2>/dev/null
	rm_nullb wpair
}
trap cleanup EXIT

[ "$(nproc)" -ge 2 ] || skip "one vCPU: the readers never run side by side"
load_bfq || die "loading the $VM_IMPL bfq failed"
[ -d $T/events/bfq/bfq_idle_start ] || skip "no bfq tracepoints in $T"
dev=$(mk_nullb wpair size=4096 memory_backed=0 irqmode=0 submit_queues=1) ||
	die "cannot create the null_blk"
set_sched $dev bfq || die "cannot select bfq on $dev"
echo 0 > /sys/block/$dev/queue/iosched/low_latency
majmin=$(tr : , < /sys/block/$dev/dev)

echo 0 > $T/tracing_on
: > $T/trace
echo 8192 > $T/buffer_size_kb
echo 1 > $T/events/bfq/bfq_idle_start/enable
echo 1 > $T/events/bfq/bfq_waker/enable
fio --name=r --filename=/dev/$dev --direct=1 --ioengine=psync \
	--rw=randread --bs=4k --size=4G --numjobs=2 --runtime=6 \
	--time_based --output-format=terse --terse-version=3 \
	--output=/tmp/fio.terse &
P=$!
sleep 2
a=$(awk '{ print $1 }' /sys/block/$dev/stat)
echo 1 > $T/tracing_on
sleep 2
echo 0 > $T/tracing_on
b=$(awk '{ print $1 }' /sys/block/$dev/stat)
wait $P
rc=$?
P=
grep " $majmin " $T/trace > /tmp/trace.txt
reads=$((b - a))
idles=$(grep -c ' bfq_idle_start: ' /tmp/trace.txt)
wakers=$(grep -c ' bfq_waker: ' /tmp/trace.txt)
echo "in 2 s: $reads reads completed, $idles idle slices started, $wakers waker changes"
check "fio exited 0 ($rc)" [ $rc = 0 ]
both_read() {
	[ "$(awk -F';' '$7 > 0' /tmp/fio.terse | wc -l)" = 2 ]
}
check "both readers read" both_read
check "reads were traced ($reads)" [ "$reads" -gt 1000 ]
check "idled for fewer than 1% of the reads ($idles of $reads)" \
	[ $((idles * 100)) -lt "$reads" ]
finish
