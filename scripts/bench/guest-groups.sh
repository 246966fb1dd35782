# Benchmark "groups": what cgroups cost a scheduler. N psync 4k random
# readers (separate processes) on a null_blk that completes at once
# (irqmode=0, so the scheduler's CPU time is what limits IOPS), N = 1 and
# 64, first all in the root cgroup ("flat"), then each in a cgroup of its
# own, all at the default weight ("groups"). Total IOPS of ours, stock
# bfq and none, low_latency=0 (new readers are not raised, so only the groups
# differ), interleaved rounds, medians; the loss is 1 - groups / flat.
# "paired" is the median of each round's own loss (its groups run next to
# its flat run, in alternating order), which the host's drift between
# rounds does not move.
. /tests/lib.sh
. /tests/guest-lib.sh
SECS=${BENCH_SECS:-5}
# none: what the block layer itself pays for the cgroups (blkg lookups,
# per-cgroup stats), which no scheduler can save.
SCHEDS=$(bench_scheds ours stock none)
cg2_io || die "no io controller"
for i in $(seq 64); do
	mkdir -p $CG2/bg$i
done
dev=$(mk_nullb grp0 size=4096 memory_backed=0 irqmode=0 submit_queues=1) ||
	die "cannot create grp0"

# readers N MODE: N random readers (/tests/lowlat randread, one static
# process each, what fio --ioengine=psync --rw=randread --bs=4k does),
# each on its own 64 MiB region, in the root cgroup (MODE flat) or in
# bg1..bgN (groups); prints the device's reads per second over SECS s once
# every one of them runs. Counted at the device over one window for all.
# Not fio: 64 fio processes started together under TCG stalled in their
# start-up for 15-20 s on 6.12 and fio gave up on most of them ("job
# startup hung?"), so the window saw no reader at all.
readers() {
	local i cg a b t0 n
	for i in $(seq $1); do
		cg=$CG2
		[ "$2" = groups ] && cg=$CG2/bg$i
		cg_run $cg /tests/lowlat randread /dev/$dev $(((i - 1) * 64)) \
			64 $((SECS + 300)) > /dev/null
	done
	t0=$(date +%s)
	while [ "$(pidof lowlat | wc -w)" -lt $1 ]; do
		[ $(($(date +%s) - t0)) -lt 120 ] || {
			killall lowlat 2>/dev/null
			die "only $(pidof lowlat | wc -w) of $1 readers after 120 s"
		}
		sleep 0.1
	done
	# A fresh process runs slowly for its first second under TCG (its
	# code translated anew).
	sleep 2
	a=$(awk '{ print $1 }' /sys/block/$dev/stat)
	sleep $SECS
	b=$(awk '{ print $1 }' /sys/block/$dev/stat)
	n=$(pidof lowlat | wc -w)
	killall -INT lowlat 2>/dev/null
	wait
	# A run cut short counts nothing: the caller's $(...) ends with die's
	# "not ok" line, which the log shows.
	[ $n = $1 ] || die "$(($1 - n)) reader(s) ended inside the window"
	echo $(((b - a) / SECS))
}

for r in $(seq $BENCH_ROUNDS); do
	for s in $SCHEDS; do
		use_sched $dev $s || continue
		[ $s = none ] ||
			echo 0 > /sys/block/$dev/queue/iosched/low_latency
		# The first run after a switch came out 10x slower, ours and
		# stock alike (not understood): one run not counted.
		SECS=1 readers 1 flat > /dev/null
		# Odd rounds flat first, even rounds groups first: a drift of
		# the host within a round (another VM, the guest's own
		# warm-up) falls on both modes alike over the rounds.
		order="flat groups"
		[ $((r % 2)) = 0 ] && order="groups flat"
		for n in 1 64; do
			for m in $order; do
				v=$(readers $n $m)
				echo "round $r $s $n $m iops $v"
				echo "$v" >> /tmp/iops-$s-$n-$m
			done
			# This round's pair, groups / flat.
			awk -v f="$(tail -n 1 /tmp/iops-$s-$n-flat)" \
			    -v g="$(tail -n 1 /tmp/iops-$s-$n-groups)" \
			    'BEGIN { if (f) printf "%.4f\n", 100 * (1 - g / f) }' \
				>> /tmp/loss-$s-$n
		done
	done
done
echo BENCH-TABLE-BEGIN
echo "groups: psync 4k randread, N reader processes in the root cgroup (flat) or one cgroup each (groups), null_blk irqmode=0, $(nproc) vCPU, ${SECS}s runs, low_latency=0, median of $BENCH_ROUNDS"
printf '%-8s %10s %10s %7s %7s %10s %10s %7s %7s\n' scheduler "1 flat" "1 group" loss paired \
	"64 flat" "64 groups" loss paired
for s in $SCHEDS; do
	line=$(printf '%-8s' $s)
	for n in 1 64; do
		f=$(median < /tmp/iops-$s-$n-flat)
		g=$(median < /tmp/iops-$s-$n-groups)
		p=$(median < /tmp/loss-$s-$n)
		line="$line $(awk -v f=$f -v g=$g -v p=$p 'BEGIN { printf "%10d %10d %6.1f%% %6.1f%%", f, g, f ? 100 * (1 - g / f) : 0, p }')"
	done
	echo "$line"
done
echo BENCH-TABLE-END
set_sched $dev none; rm_nullb grp0; unload_bfq
for i in $(seq 64); do rmdir $CG2/bg$i; done
exit 0
