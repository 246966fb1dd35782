# Benchmark "cost": what the scheduler costs per request. psync 4k random
# reads, 1 and 2 jobs, low_latency 0, on a null_blk that completes at once
# (irqmode=0, no memory): IOPS under ours, stock bfq, mq-deadline and none,
# interleaved rounds, medians; and each one's ratio to none.
. /tests/lib.sh
. /tests/guest-lib.sh
SECS=${BENCH_SECS:-5}
SCHEDS=$(bench_scheds ours stock mq-deadline none)
# COST_JOBS=a,b and COST_LL=0|1 on the kernel command line (run.sh's
# BENCH_APPEND): other reader counts, and low_latency for both bfqs (1:
# the heuristics' cost too; readers started together are a large burst);
# COST_IDLE=N slice_idle for both bfqs (ms; 0 never idles);
# COST_TIMER=NS null_blk completes each request NS ns after it is
# dispatched, from a timer (irqmode=2), instead of at once: a reader
# sleeps for its request, so with one vCPU several readers' requests are
# in the device together and the turn changes at nearly every request.
# COST_AIO=N: libaio at depth N instead of psync.
JOBS="1 2"
LL=0
IDLE=
NULLB="irqmode=0"
ENGINE="--ioengine=psync"
for w in $(cat /proc/cmdline); do
	case "$w" in
	COST_JOBS=?*) JOBS=$(echo "${w#*=}" | tr , ' ') ;;
	COST_LL=[01]) LL=${w#*=} ;;
	COST_IDLE=[0-9]*) IDLE=${w#*=} ;;
	COST_TIMER=[0-9]*) NULLB="irqmode=2 completion_nsec=${w#*=}" ;;
	COST_AIO=[0-9]*) ENGINE="--ioengine=libaio --iodepth=${w#*=}" ;;
	esac
done
dev=$(mk_nullb cost0 size=4096 memory_backed=0 $NULLB submit_queues=1) ||
	die "cannot create cost0"
for r in $(seq $BENCH_ROUNDS); do
	for j in $JOBS; do
		for s in $SCHEDS; do
			use_sched $dev $s || continue
			# Both bfqs without raising: fio's new processes would be
			# raised (and idled for) through most of a short run. Set
			# at each selection: the tunables go with the elevator.
			ll=/sys/block/$dev/queue/iosched/low_latency
			[ -f $ll ] && echo $LL > $ll
			si=/sys/block/$dev/queue/iosched/slice_idle
			[ -n "$IDLE" ] && [ -f $si ] && echo $IDLE > $si
			fio --name=c --filename=/dev/$dev --direct=1 $ENGINE \
				--rw=randread --bs=4k --size=4G --numjobs=$j \
				--group_reporting --time_based --runtime=$SECS \
				--ramp_time=1 --output-format=terse --output=/tmp/c.t
			v=$(terse /tmp/c.t 8)
			echo "round $r jobs $j $s iops $v"
			echo "$v" >> /tmp/iops-$s-$j
		done
	done
done
echo BENCH-TABLE-BEGIN
echo "cost: ${ENGINE#--ioengine=} 4k randread, null_blk $NULLB, low_latency $LL, ${SECS}s runs, median of $BENCH_ROUNDS (ratio to none in parentheses)"
printf '%-12s' scheduler
for j in $JOBS; do printf ' %18s' "${j} job(s) IOPS"; done
echo
for s in $SCHEDS; do
	printf '%-12s' $s
	for j in $JOBS; do
		a=$(median < /tmp/iops-$s-$j)
		# The ratio needs none's runs: "-" when BENCH_SCHEDS left it out.
		n=0
		[ -f /tmp/iops-none-$j ] && n=$(median < /tmp/iops-none-$j)
		awk -v a=$a -v n=$n 'BEGIN {
			r = n > 0 ? sprintf("(%.2f)", a / n) : "(-)"
			printf " %11d %6s", a, r }'
	done
	echo
done
echo "per round (IOPS): $(for s in $SCHEDS; do echo -n "$s"; for j in $JOBS; do echo -n " ${j}j[$(tr '\n' ' ' < /tmp/iops-$s-$j | sed 's/ $//')]"; done; echo -n "; "; done)"
echo BENCH-TABLE-END
set_sched $dev none; rm_nullb cost0; unload_bfq
exit 0
