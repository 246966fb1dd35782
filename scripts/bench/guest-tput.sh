# Benchmark "tput": issue 6's throughput bound alone (tests/lowlat/ll-fs.sh
# reports it with make check): each read background of the S suite alone
# (10r-seq, 10r-rand) on ext4 over the lowlat rig's null_blk, depth
# TPUT_DEPTH (default 32), rotational TPUT_ROT (default 0), under ours
# (low_latency 1 unless TPUT_LL=0), none and mq-deadline (BENCH_SCHEDS: any of ours, base,
# stock, mq-deadline, kyber, none). Per run: the device's MB/s over
# BENCH_SECS (default 2) after TPUT_LEAD s (default 2: ten readers started
# together are a large burst, never raised, so no raising period has to
# pass), the guest CPU's busy share over the window, its busy time per
# request and its context switches per request (a kblockd run or an extra
# wakeup a request shows there). BENCH_ROUNDS rounds, the schedulers'
# order rotated each round; medians. The TPUT_* settings come from the
# kernel command line (run.sh's BENCH_APPEND); TPUT_LL=0 runs both bfqs
# at low_latency 0 (the bound is for 1), to tell what the low-latency
# heuristics cost.
#
# Meant for run.sh with VM_ICOUNT=shift=0,sleep=off: the guest's clock then
# counts instructions (1 ns each), a CPU of 1 GIPS, repeatable runs, and
# the busy time per request is instructions per request. One host thread
# runs both vCPUs there: one round of the defaults takes about 8 minutes
# of wall time (6.12). Under plain TCG the guest's CPU is ~30x slower against
# null_blk's timers, and every scheduler is CPU-bound at depth 32
# (docs/results/).
. /tests/lib.sh
. /tests/guest-lib.sh
. /tests/ll-lib.sh
SECS=${BENCH_SECS:-2}
SCHEDS=$(bench_scheds ours none mq-deadline)
DEPTH=32 ROT=0 LEAD=2 BGS="10r-seq 10r-rand" LOWLAT=1
for w in $(cat /proc/cmdline); do
	case "$w" in
	TPUT_DEPTH=?*) DEPTH=${w#*=} ;;
	TPUT_ROT=[01]) ROT=${w#*=} ;;
	TPUT_LEAD=?*) LEAD=${w#*=} ;;
	TPUT_BGS=?*) BGS=$(echo "${w#*=}" | tr , ' ') ;;
	TPUT_LL=[01]) LOWLAT=${w#*=} ;;
	esac
done
ll_dev llt0 $DEPTH || die "cannot make the ext4 device"
# "busy total requests sectors switches": CPU ticks (USER_HZ) busy and in
# all, requests and sectors the device completed, context switches.
snap() {
	awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8 }' /proc/stat
	awk '{ print $1 + $5, $3 + $7 }' /sys/block/$LL_DEV/stat
	awk '/^ctxt / { print $2 }' /proc/stat
}
# rotate N WORDS...: the words, the first N moved to the end.
rotate() {
	local n=$1
	shift
	while [ $n -gt 0 ]; do
		set -- "$@" "$1"
		shift
		n=$((n - 1))
	done
	echo "$@"
}
nsch=$(echo $SCHEDS | wc -w)
for r in $(seq $BENCH_ROUNDS); do
	for bg in $BGS; do
		for s in $(rotate $(((r - 1) % nsch)) $SCHEDS); do
			bench_ll_sched $s $ROT $LOWLAT || die "cannot select $s"
			ll_cold
			ll_bg_start $bg || die "cannot start $bg"
			sleep $LEAD
			a=$(snap | tr '\n' ' ')
			sleep $SECS
			b=$(snap | tr '\n' ' ')
			ll_bg_stop
			echo "$a $b" | awk -v t=$SECS '{
				busy = $6 - $1; all = $7 - $2; n = $8 - $3
				printf "%.1f %.1f %.0f %.2f\n", ($9 - $4) * 512 / 1048576 / t,
					all ? 100 * busy / all : 0,
					n ? busy * 10000000 / n : 0,
					n ? ($10 - $5) / n : 0 }' > /tmp/tp
			read -r mbs busy per sw < /tmp/tp
			echo "round $r $bg $s: $mbs MB/s, CPU busy $busy%, $per ns CPU a request, $sw context switches a request"
			echo $mbs >> /tmp/tp-$bg-$s
			echo $busy >> /tmp/tb-$bg-$s
			echo $per >> /tmp/tn-$bg-$s
			echo $sw >> /tmp/ts-$bg-$s
		done
	done
done
echo BENCH-TABLE-BEGIN
echo "tput: each background alone, ext4 on null_blk depth $DEPTH rotational $ROT, bfqs at low_latency $LOWLAT, ${SECS}s after ${LEAD}s, medians of $BENCH_ROUNDS; ns a request: the guest's CPU busy time over the requests done (instructions under -icount shift=0); cs/req: the guest's context switches over the requests done"
printf '%-10s %-12s %9s %8s %9s %12s %9s\n' background scheduler MB/s ratio "CPU busy" "ns/request" "cs/req"
for bg in $BGS; do
	best=0
	for s in $SCHEDS; do
		[ $s = ours ] && continue
		v=$(median < /tmp/tp-$bg-$s)
		best=$(awk -v a=$v -v b=$best 'BEGIN { print (a > b) ? a : b }')
	done
	for s in $SCHEDS; do
		v=$(median < /tmp/tp-$bg-$s)
		x=$(awk -v a=$v -v b=$best 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
		printf '%-10s %-12s %9s %8s %8s%% %12s %9s\n' $bg $s $v $x \
			"$(median < /tmp/tb-$bg-$s)" "$(median < /tmp/tn-$bg-$s)" \
			"$(median < /tmp/ts-$bg-$s)"
		[ $s = ours ] && echo "$bg $x" >> /tmp/tp-bound
	done
done
echo "(ratio: to the best scheduler other than ours; the bound for ours is >= 0.95)"
# The verdicts make bench.sh counts: one line per background.
while read -r bg x; do
	if awk -v x=$x 'BEGIN { exit !(x != "-" && x >= 0.95) }'; then
		echo "PASS: ours under $bg: ${x}x the best other scheduler >= 0.95x"
	else
		echo "FAIL: ours under $bg: ${x}x the best other scheduler, want >= 0.95x"
	fi
done < /tmp/tp-bound
echo BENCH-TABLE-END
ll_dev_rm llt0
unload_bfq
exit 0
