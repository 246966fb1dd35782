# Benchmark "cost": what the scheduler costs per request. psync 4k random
# reads, 1 and 2 jobs, low_latency 0, on a null_blk that completes at once
# (irqmode=0, no memory): IOPS under ours, stock bfq, mq-deadline and none,
# interleaved rounds, medians; and each one's ratio to none.
. /tests/lib.sh
. /tests/guest-lib.sh
SECS=${BENCH_SECS:-5}
SCHEDS=$(bench_scheds ours stock mq-deadline none)
dev=$(mk_nullb cost0 size=4096 memory_backed=0 irqmode=0 submit_queues=1) ||
	die "cannot create cost0"
for r in $(seq $BENCH_ROUNDS); do
	for j in 1 2; do
		for s in $SCHEDS; do
			use_sched $dev $s || continue
			# Both bfqs without raising: fio's new processes would be
			# raised (and idled for) through most of a short run. Set
			# at each selection: the tunables go with the elevator.
			ll=/sys/block/$dev/queue/iosched/low_latency
			[ -f $ll ] && echo 0 > $ll
			fio --name=c --filename=/dev/$dev --direct=1 --ioengine=psync \
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
echo "cost: psync 4k randread, null_blk irqmode=0, ${SECS}s runs, median of $BENCH_ROUNDS"
printf '%-12s %10s %10s %9s %9s\n' scheduler "1job IOPS" "2job IOPS" "1j/none" "2j/none"
# The ratios need none's runs: "-" when BENCH_SCHEDS left none out.
n1=0 n2=0
if [ -f /tmp/iops-none-1 ]; then
	n1=$(median < /tmp/iops-none-1); n2=$(median < /tmp/iops-none-2)
fi
for s in $SCHEDS; do
	a=$(median < /tmp/iops-$s-1); b=$(median < /tmp/iops-$s-2)
	awk -v s=$s -v a=$a -v b=$b -v n1=$n1 -v n2=$n2 'BEGIN {
		r1 = n1 > 0 ? sprintf("%.2f", a / n1) : "-"
		r2 = n2 > 0 ? sprintf("%.2f", b / n2) : "-"
		printf "%-12s %10d %10d %9s %9s\n", s, a, b, r1, r2 }'
done
echo "per round (IOPS): $(for s in $SCHEDS; do echo -n "$s 1j[$(cat /tmp/iops-$s-1 | tr '\n' ' ' | sed 's/ $//')] 2j[$(cat /tmp/iops-$s-2 | tr '\n' ' ' | sed 's/ $//')]; "; done)"
echo BENCH-TABLE-END
set_sched $dev none; rm_nullb cost0; unload_bfq
exit 0
