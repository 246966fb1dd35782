# Idle slices shaped by the queue (bfq_idle_slice() in bfq-iosched.c):
#   1. an application raised as it starts, reading a block every ~10 ms
#      (fio psync, thinktime 10 ms) beside a greedy sequential reader, is
#      waited for longer than slice_idle (its mean think time and a
#      quarter again, when that is at most two slices): its next read
#      finds the device still its own, where with slice_idle alone (8 ms)
#      every read came after the idling had given the device to the
#      greedy reader. Asserted: the median of its idle slices (tracepoint
#      bfq_idle_start) is above slice_idle, and fewer than half of its
#      reads are followed by an idle_timeout expiry of its queue (with
#      slice_idle alone, nearly all);
#   2. a seeky reader (random 4 KiB reads, one at a time) of a higher
#      ioprio level than a sequential reader beside it, so that the
#      device idles for it (different weights), with slice_idle 20 ms:
#      its slices are twice its think time, at least a quarter of the
#      slice: the median at most half of slice_idle (before: all 20 ms);
#      the sequential reader's bytes are printed, not asserted.
# Device: null_blk, 1 ms timer completions, one-request hardware queue.
# Timing is TCG's; the bounds leave room for a think time several times
# the unloaded one.
# vmtest-timeout: 120
. /tests/lib.sh
T=/sys/kernel/tracing
[ -d $T/events ] || T=/sys/kernel/debug/tracing
cleanup() {
	kill $P1 $P2 2>/dev/null
	wait
	echo 0 > $T/tracing_on
	for e in bfq_idle_start bfq_expire; do
		echo 0 > $T/events/bfq/$e/enable
	done
	rm_nullb idle0
}
trap 'cleanup >/dev/null 2>&1' EXIT
P1= P2=

load_bfq || die "insmod of the $VM_IMPL bfq.ko failed"
dev=$(mk_nullb idle0 size=2048 memory_backed=0 irqmode=2 \
	completion_nsec=1000000 hw_queue_depth=1 submit_queues=1) ||
	die "cannot create idle0"
set_sched "$dev" bfq || die "cannot select bfq on $dev"
IOS=/sys/block/$dev/queue/iosched
k0=$(dmesg | wc -l)

# job_pid FIO_PID: the pid of the job process fio forked (<= 10 s).
job_pid() {
	local i=0 s
	while [ $i -lt 100 ]; do
		for s in /proc/[0-9]*/stat; do
			awk -v p="$1" '$4 == p { print $1; f = 1 }
				END { exit !f }' "$s" 2>/dev/null && return 0
		done
		usleep 100000
		i=$((i + 1))
	done
	return 1
}
trace_on() {
	echo 0 > $T/tracing_on; : > $T/trace
	echo 16384 > $T/buffer_size_kb
	for e in bfq_idle_start bfq_expire; do
		echo 1 > $T/events/bfq/$e/enable
	done
	echo 1 > $T/tracing_on
}
trace_off() {
	echo 0 > $T/tracing_on
	cp $T/trace /tmp/idle.trace; : > $T/trace
}
# slices PID: PID's queue's idle slices in the trace, in ns, one a line.
slices() {
	sed -n "s/.* bfq_idle_start: .* bfq$1 slice=\([0-9]*\)ns.*/\1/p" \
		/tmp/idle.trace
}
med() { sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'; }

# --- 1. a raised application that thinks longer than slice_idle ---------
echo 1 > $IOS/low_latency
slice=$(cat $IOS/slice_idle_us)000
fio --name=bulk --filename=/dev/$dev --direct=1 --ioengine=psync \
	--rw=read --bs=64k --size=1g --time_based --runtime=6 \
	--output-format=terse --output=/tmp/bulk.t &
P1=$!
# The bulk reader's own start-up raising is over by the time the
# application starts.
sleep 2
trace_on
fio --name=app --filename=/dev/$dev --direct=1 --ioengine=psync \
	--rw=randread --bs=4k --offset=1g --size=512m --thinktime=10000 \
	--time_based --runtime=2 --output-format=terse --output=/tmp/app.t &
P2=$!
app=$(job_pid $P2) || die "fio's application job did not start"
wait $P2; P2=
trace_off
wait $P1; P1=
# terse: field 6 read KiB, 40 mean latency in us
reads=$(($(cut -d';' -f6 /tmp/app.t) / 4))
lat=$(cut -d';' -f40 /tmp/app.t | cut -d. -f1)
lost=$(grep -c " bfq_expire: .* bfq$app idle_timeout" /tmp/idle.trace)
n=$(slices $app | wc -l)
m=$(slices $app | med)
echo "application (bfq$app): $reads reads, mean latency ${lat} us," \
	"$n idle slices, median ${m} ns (slice_idle ${slice} ns)," \
	"$lost turns lost at idle_timeout; bulk reader" \
	"$(cut -d';' -f6 /tmp/bulk.t) KiB in 6 s"
check "the application read (${reads:-0} reads)" [ "${reads:-0}" -gt 20 ]
check "its median idle slice ${m} ns > slice_idle ${slice} ns" \
	[ "$n" -gt 0 -a "$m" -gt "$slice" ]
check "its turn lost at idle_timeout after < half its reads ($lost of ${reads:-0})" \
	[ $((lost * 2)) -lt "${reads:-0}" ]

# --- 2. a seeky reader idled for because of its weight -------------------
echo 0 > $IOS/low_latency
echo 20000 > $IOS/slice_idle_us
slice=20000000
trace_on
ionice -c2 -n7 fio --name=seq --filename=/dev/$dev --direct=1 \
	--ioengine=psync --rw=read --bs=64k --size=1g --time_based \
	--runtime=3 --output-format=terse --output=/tmp/seq.t &
P1=$!
ionice -c2 -n0 fio --name=seeky --filename=/dev/$dev --direct=1 \
	--ioengine=psync --rw=randread --bs=4k --offset=1g --size=1g \
	--time_based --runtime=3 --output-format=terse --output=/tmp/seeky.t &
P2=$!
seeky=$(job_pid $P2) || die "fio's seeky job did not start"
wait $P2; P2=
wait $P1; P1=
trace_off
echo 8000 > $IOS/slice_idle_us
n=$(slices $seeky | wc -l)
m=$(slices $seeky | med)
echo "seeky reader (bfq$seeky): $(($(cut -d';' -f6 /tmp/seeky.t) / 4)) reads," \
	"$n idle slices, median ${m} ns (slice_idle ${slice} ns);" \
	"sequential reader $(cut -d';' -f6 /tmp/seq.t) KiB"
check "the seeky reader was idled for ($n slices)" [ "$n" -gt 10 ]
check "its median idle slice ${m} ns <= half of slice_idle" \
	[ $((m * 2)) -le "$slice" ]

dmesg_reports $k0 && fail "kernel reports in dmesg"
finish
