# strict_guarantees=1: at most one request in the device at any time, and
# I/O still completes correctly (crc32c verify).
#
# "In the device" is counted where the driver sees it: the block_rq_issue
# tracepoint fires when a request is handed to null_blk, block_rq_complete
# when null_blk reports it done (block_rq_requeue when it hands it back).
# With trace_clock=counter every event takes the next value of one atomic
# counter shared by all CPUs, so the merged trace is in true order across
# CPUs and the running count of issued-minus-completed is the device's
# queue length. (trace_clock=global is not: it reads each CPU's TSC, which
# Debian's 6.1 finds unsynchronized under TCG, and only clamps it to the
# last value handed out, so an issue on one CPU can tie with or precede
# the completion it followed on the other, and the count can read 2 where
# the device held 1, though rarely.)
# (/sys/block/DEV/inflight, sampled, is not that either: the block layer
# marks a completed request idle only after the scheduler's
# finish_request, so a request dispatched on the other CPU right then is
# briefly seen beside it.) See
# docs/results/2026-11-27-core-strict-trace-clock.md.
#
# The same multi-job workload with strict_guarantees=0 first shows that
# the count does exceed 1 when bfq allows it (else the check proves
# nothing).
. /tests/lib.sh
T=/sys/kernel/tracing
[ -d $T/events ] || T=/sys/kernel/debug/tracing
trap 'echo 0 > $T/tracing_on; rm_nullb strict0 >/dev/null 2>&1' EXIT

load_bfq || die "insmod of the $VM_IMPL bfq.ko failed"
# Memory backed (for verify), a 500 us timer completion and an 8-request
# hardware queue: plenty of room for several requests at once.
dev=$(mk_nullb strict0 size=256 irqmode=2 completion_nsec=500000 \
	hw_queue_depth=8 submit_queues=1) || die "cannot create strict0"
set_sched "$dev" bfq || die "cannot select bfq on $dev"
S=/sys/block/$dev/queue/iosched/strict_guarantees
mm=$(tr : , < /sys/block/$dev/dev)	# as the trace writes it: 251,0

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

# traced SECS OUT: run the workload with the three block events of our
# device traced; prints "max issued completed lost rc" where max is the
# largest number of requests the device held at once, lost the events the
# ring buffer dropped (the count is only valid when it is 0) and rc fio's
# exit status.
traced() {
	local e rc=0 lost
	echo 0 > $T/tracing_on
	echo counter > $T/trace_clock
	echo 16384 > $T/buffer_size_kb
	: > $T/trace
	for e in block_rq_issue block_rq_complete block_rq_requeue; do
		echo 1 > $T/events/block/$e/enable
	done
	echo 1 > $T/tracing_on
	workload "$1" "$2" > /dev/null 2>&1 || rc=$?
	echo 0 > $T/tracing_on
	for e in block_rq_issue block_rq_complete block_rq_requeue; do
		echo 0 > $T/events/block/$e/enable
	done
	lost=$(cat $T/per_cpu/cpu*/stats | awk '/^overrun:/ { s += $2 } END { print s + 0 }')
	# "... block_rq_issue: 251,0 WS 4096 () 1234 + 8 [fio]": the device
	# is the word after the event name. A completion of a request issued
	# before tracing began would drive the count below 0: clamp it.
	awk -v mm="$mm" -v lost="$lost" -v rc=$rc -v show="$(cat $S)" '
		{ for (i = 1; i < NF; i++) if ($i ~ /^block_rq_/) break
		  if ($(i + 1) != mm) next }
		{ ctx[++m % 8] = $0 }
		$i == "block_rq_issue:" { n++; iss++; if (n > max) max = n
			# The first time it exceeds 1: the events that led there.
			if (n > 1 && show && !shown) { shown = 1
				for (k = m - 7; k <= m; k++)
					if (k > 0) print "  | " ctx[k % 8] > "/dev/stderr" } }
		$i == "block_rq_complete:" || $i == "block_rq_requeue:" {
			if ($i == "block_rq_complete:") done++
			if (n > 0) n-- }
		END { print max + 0, iss + 0, done + 0, lost, rc }' $T/trace
	: > $T/trace
}

echo 0 > $S
set -- $(traced 3 /tmp/fio0.out)
echo "strict_guarantees=0: at most $1 requests in the device ($2 issued, $3 completed, $4 events lost)"
check "control: the trace is complete ($4 events lost)" [ "$4" = 0 ]
check "control: more than 1 in the device without strict_guarantees (max $1)" [ "$1" -gt 1 ]

check "strict_guarantees=1 accepted" sh -c "echo 1 > $S"
check "strict_guarantees reads back 1" [ "$(cat $S)" = 1 ]
set -- $(traced 8 /tmp/fio1.out)
echo "strict_guarantees=1: at most $1 requests in the device ($2 issued, $3 completed, $4 events lost)"
fiosum /tmp/fio1.out
check "the trace is complete ($4 events lost)" [ "$4" = 0 ]
check "the device served requests ($2 issued, $3 completed)" [ "$3" -gt 100 ]
check "at most 1 request in the device with strict_guarantees (max $1)" [ "$1" -eq 1 ]
check "fio exited 0 (rc=$5)" [ "$5" = 0 ]
check "fio reports err=0 (verify passed)" sh -c '! grep -q "err= *[1-9]" /tmp/fio1.out'
check "fio did I/O" grep -q 'READ:' /tmp/fio1.out
echo local > $T/trace_clock
echo 1408 > $T/buffer_size_kb
set_sched "$dev" none
rm_nullb strict0
unload_bfq
finish
