# Benchmark "bursts": issue 6's bursts bound alone, for ours and, with
# run.sh's BENCH_BASE_KO, the build before a change, in one boot: 64
# parallel readers of 4 files of 512 KiB each on ext4 over the lowlat rig's
# null_blk (depth BURST_DEPTH, default 32; rotational BURST_ROT, default 0;
# both from the kernel command line, run.sh's BENCH_APPEND), cold caches,
# low_latency 1 then 0 back to back, BENCH_ROUNDS pairs per build, the
# builds alternated pair by pair; the median of each build's paired ratios
# (tests/lowlat/ll-fs.sh asserts ours' <= 1.05 at depth 32).
. /tests/lib.sh
. /tests/guest-lib.sh
. /tests/ll-lib.sh
# base only when run.sh shipped one (BENCH_BASE_KO).
SCHEDS=$(bench_scheds ours $([ -f /tests/base-bfq.ko ] && echo base))
DEPTH=32 ROT=0
for w in $(cat /proc/cmdline); do
	case "$w" in
	BURST_DEPTH=?*) DEPTH=${w#*=} ;;
	BURST_ROT=[01]) ROT=${w#*=} ;;
	esac
done
ll_dev llb0 $DEPTH || die "cannot make the ext4 device"
sched() { bench_ll_sched "$1" $ROT "$2"; }
# BURST_RELOAD=1: the build is loaded again before each run, as
# ll-fs.sh's bursts did until this bench showed what that costs; else
# only low_latency changes between the two runs of a pair.
RELOAD=0
for w in $(cat /proc/cmdline); do
	case "$w" in BURST_RELOAD=1) RELOAD=1 ;; esac
done
for r in $(seq $BENCH_ROUNDS); do
	for s in $SCHEDS; do
		sched $s 1 || die "cannot select $s"
		a=$(ll_burst)
		if [ $RELOAD = 1 ]; then
			sched $s 0 || die "cannot select $s"
		else
			echo 0 > /sys/block/$LL_DEV/queue/iosched/low_latency
		fi
		b=$(ll_burst)
		echo "round $r $s low_latency 1: $a ms, 0: $b ms"
		echo "$a $b" >> /tmp/bursts-$s
	done
done
echo BENCH-TABLE-BEGIN
echo "bursts: 64 readers x 4 files of 512 KiB, ext4 on null_blk depth $DEPTH rotational $ROT, $BENCH_ROUNDS pairs (low_latency 1 then 0), builds alternated"
for s in $SCHEDS; do
	x=$(awk '{ printf "%.3f\n", $1 / $2 }' /tmp/bursts-$s | ll_median)
	echo "$s: median of the paired ratios ${x}x; pairs (ms): $(tr '\n' ',' < /tmp/bursts-$s)"
	[ $s = ours ] || continue
	# The bound tests/lowlat/ll-fs.sh asserts at depth 32, as a verdict.
	if awk -v x=$x 'BEGIN { exit !(x <= 1.05) }'; then
		echo "PASS: ours' bursts at low_latency 1 take ${x}x the time at 0 <= 1.05x"
	else
		echo "FAIL: ours' bursts at low_latency 1 take ${x}x the time at 0, want <= 1.05x"
	fi
done
echo BENCH-TABLE-END
ll_dev_rm llb0
unload_bfq
exit 0
