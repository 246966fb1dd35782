# Benchmark "share": two psync sequential 4k readers at BE0:BE4 (ideal 2.0)
# and BE0:BE7 (ideal 8.0), low_latency=0, on null_blk irqmode=2 with
# completion_nsec 100000 and 1000000, hw_queue_depth 1 and 32; ours and
# stock bfq, interleaved rounds; the median ratio of BE0's bytes to the
# other's and its deviation from the ideal.
. /tests/lib.sh
. /tests/guest-lib.sh
SECS=${BENCH_SECS:-20}
CNSECS=${BENCH_CNSEC:-"100000 1000000"}
CNSECS=$(echo "$CNSECS" | tr , ' ')
for r in $(seq $BENCH_ROUNDS); do
	for c in $CNSECS; do
		for d in 1 32; do
			for s in ours stock; do
				load_${s} >/dev/null || continue
				dev=$(mk_nullb sh0 size=2048 memory_backed=0 irqmode=2 \
					completion_nsec=$c hw_queue_depth=$d submit_queues=1) ||
					die "cannot create sh0"
				set_sched $dev bfq
				echo 0 > /sys/block/$dev/queue/iosched/low_latency
				for lo in 4 7; do
					for p in 0 $lo; do
						ionice -c2 -n$p fio --name=p$p --filename=/dev/$dev \
							--direct=1 --ioengine=psync --rw=read --bs=4k \
							--size=256M --offset=$((p * 256))M --time_based \
							--runtime=$SECS --output-format=terse \
							--output=/tmp/p$p.t &
					done
					wait
					a=$(terse /tmp/p0.t 6); b=$(terse /tmp/p$lo.t 6)
					v=$(awk -v a=$a -v b=$b 'BEGIN { printf "%.2f", (b > 0) ? a / b : 999 }')
					echo "round $r cnsec $c depth $d $s be0:be$lo $a:$b KiB ratio $v"
					echo "$v" >> /tmp/r-$c-$d-$s-$lo
					echo "$a $b" >> /tmp/kib-$c-$d-$s-$lo
				done
				set_sched $dev none; rm_nullb sh0
			done
		done
	done
done
echo BENCH-TABLE-BEGIN
echo "share: 2 psync seq 4k readers, low_latency=0, null_blk irqmode=2, ${SECS}s runs, median of $BENCH_ROUNDS"
printf '%-8s %-5s %-6s %-8s %7s %6s %9s %12s  %s\n' cnsec depth sched pair ratio ideal deviation "KiB/s total" "ratios per round"
for c in $CNSECS; do
	for d in 1 32; do
		for s in ours stock; do
			for lo in 4 7; do
				f=/tmp/r-$c-$d-$s-$lo
				[ -f $f ] || continue
				m=$(median < $f)
				tot=$(awk -v t=$SECS '{ s += $1 + $2 } END { printf "%d", s / NR / t }' /tmp/kib-$c-$d-$s-$lo)
				awk -v c=$c -v d=$d -v s=$s -v lo=$lo -v m=$m -v tot=$tot -v all="$(tr '\n' ' ' < $f)" 'BEGIN {
					ideal = (lo == 4) ? 2.0 : 8.0
					printf "%-8s %-5s %-6s be0:be%d %7.2f %6.1f %+8.0f%% %12d  %s\n", c, d, s, lo, m, ideal, (m - ideal) / ideal * 100, tot, all }'
			done
		done
	done
done
echo BENCH-TABLE-END
unload_bfq
exit 0
