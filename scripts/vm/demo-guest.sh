# Guest side of scripts/demo.sh (busybox sh, run by the VM's /init).
#
# One null_blk disk with a service time and a one-request hardware queue,
# so that requests contend: two readers, one at best-effort priority 0 and
# one at priority 7, read from it at once for DEMO_SECS seconds, under our
# bfq, the stock bfq and mq-deadline in turn. Each run's fio JSON report and
# per-reader bandwidth logs are printed between markers for the host:
#   VMDEMO-BEGIN <scheduler> <what>
#   ...
#   VMDEMO-END
. /tests/lib.sh

DEMO_SECS=${DEMO_SECS:-10}
CNSEC=${CNSEC:-2000000}

block() {	# block SCHED WHAT FILE
	echo "VMDEMO-BEGIN $1 $2"
	cat "$3"
	echo "VMDEMO-END"
}

run() {	# run LABEL SCHED
	local label=$1 sched=$2 d=/tmp/demo-$1
	mkdir -p "$d"
	set_sched "$dev" "$sched" || { echo "VMDEMO-ERROR $label cannot select $sched"; return 1; }
	echo "== $label: scheduler $(cat /sys/block/$dev/queue/scheduler)"
	# BFQ's low_latency would weight-raise both new readers alike for
	# their first seconds: off, so the run shows the ioprio weights.
	[ -e /sys/block/$dev/queue/iosched/low_latency ] &&
		echo 0 > /sys/block/$dev/queue/iosched/low_latency
	# With hw_queue_depth=1 the scheduler gets only 2 request tags by
	# default: the readers would queue for tags, not in the scheduler.
	echo 64 > /sys/block/$dev/queue/nr_requests 2>/dev/null
	echo "nr_requests: $(cat /sys/block/$dev/queue/nr_requests)"
	# Same workload for both readers, in two processes that differ only
	# in their best-effort I/O priority (ionice -c2 -n0 / -n7), each with
	# 4 requests in flight so that both stay backlogged.
	local r pids=
	for r in 0 7; do
		(cd "$d" && exec ionice -c2 -n$r fio --output-format=json \
			--output="$d/prio$r.json" --name=prio$r \
			--filename=/dev/$dev --direct=1 --ioengine=libaio --iodepth=4 \
			--rw=randread --bs=4k --time_based --runtime="$DEMO_SECS" \
			--size=512M --offset=$((r * 512))M \
			--log_avg_msec=500 --write_bw_log=prio$r \
			> "$d/prio$r.err" 2>&1) &
		pids="$pids $!"
	done
	local rc=0 p
	sleep 2
	for p in $(pidof fio); do echo "fio pid $p: $(ionice -p $p)"; done
	echo "iosched: $(grep -H . /sys/block/$dev/queue/iosched/* 2>/dev/null | sed 's|.*/||' | tr '\n' ' ')"
	for p in $pids; do wait $p || rc=$?; done
	[ $rc = 0 ] || { echo "VMDEMO-ERROR $label fio rc=$rc"; cat "$d"/prio*.err; }
	block "$label" json-prio0 "$d/prio0.json"
	block "$label" json-prio7 "$d/prio7.json"
	for f in "$d"/prio0_bw*.log; do block "$label" bwlog-prio0 "$f"; done
	for f in "$d"/prio7_bw*.log; do block "$label" bwlog-prio7 "$f"; done
	echo "== $label: done"
}

dev=$(mk_nullb demo size=4096 memory_backed=0 irqmode=2 \
	completion_nsec=$CNSEC hw_queue_depth=1 submit_queues=1) ||
	die "cannot create the demo null_blk device"
echo "demo device /dev/$dev: completion ${CNSEC} ns, hw_queue_depth 1"

load_ours && run ours bfq
load_stock && run stock bfq
unload_bfq
run mq-deadline mq-deadline
set_sched "$dev" none
rm_nullb demo
echo "VMDEMO-FINISHED"
exit 0
