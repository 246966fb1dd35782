# Benchmark "scaling": 1, 16 and 256 concurrent sync readers (fio
# processes, psync 4k random reads) on a null_blk that completes at once
# (irqmode=0), meant for a one-vCPU guest (run.sh boots -smp 1): total IOPS
# under ours, stock bfq, mq-deadline and none, interleaved rounds, medians.
. /tests/lib.sh
. /tests/guest-lib.sh
SECS=${BENCH_SECS:-5}
SCHEDS=$(bench_scheds ours stock mq-deadline none)
dev=$(mk_nullb scale0 size=4096 memory_backed=0 irqmode=0 submit_queues=1) ||
	die "cannot create scale0"
for r in $(seq $BENCH_ROUNDS); do
	for j in 1 16 256; do
		for s in $SCHEDS; do
			use_sched $dev $s || continue
			[ -e /sys/block/$dev/queue/iosched/low_latency ] &&
				echo 0 > /sys/block/$dev/queue/iosched/low_latency
			fio --name=s --filename=/dev/$dev --direct=1 --ioengine=psync \
				--rw=randread --bs=4k --size=4G --numjobs=$j \
				--group_reporting --time_based --runtime=$SECS \
				--ramp_time=2 --output-format=terse --output=/tmp/s.t
			v=$(terse /tmp/s.t 8)
			echo "round $r jobs $j $s iops $v"
			echo "$v" >> /tmp/iops-$s-$j
		done
	done
done
echo BENCH-TABLE-BEGIN
echo "scaling: psync 4k randread, N fio processes, null_blk irqmode=0, $(nproc) vCPU, ${SECS}s runs, median of $BENCH_ROUNDS (ratio to none in parentheses)"
printf '%-12s %16s %16s %16s\n' scheduler "1 reader" "16 readers" "256 readers"
for s in $SCHEDS; do
	line=$(printf '%-12s' $s)
	for j in 1 16 256; do
		a=$(median < /tmp/iops-$s-$j); n=$(median < /tmp/iops-none-$j)
		line="$line $(awk -v a=$a -v n=$n 'BEGIN { printf "%9d (%4.2f)", a, a / n }')"
	done
	echo "$line"
done
echo BENCH-TABLE-END
set_sched $dev none; rm_nullb scale0; unload_bfq
exit 0
