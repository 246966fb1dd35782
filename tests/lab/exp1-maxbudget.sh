# Experiment 1: aggregate throughput of two sequential readers of 128 MiB
# at the two ends of the disk (offset 0 and the last 128 MiB), as bfq's
# max_budget goes 0 (auto-tuned), 4096, 8192, 16384 sectors; mq-deadline,
# kyber and none once each for reference. The first table and figure of
# BFQ's 2007 results (bfq-v0-results-linux-2.6.21.txt: BFQ 22.46 MB/s at
# 16384 sectors on a 36 MB/s disk; CFQ 16.91, C-LOOK 20.59, AS 32.97).
#
# low_latency=0 on bfq: the 2007 BFQ had no weight raising. Each reader
# has one 128 KiB request at a time (LAB_BS); a scheduler that does not
# wait for the next request of the reader it serves alternates between
# the two ends, paying a full-stroke seek and a rotation for each request.
#
# On a real disk: LAB_DEV=sdX LAB_SCHEDS="bfq mq-deadline" sh exp1-maxbudget.sh
# (with /tests/lib.sh, guest-lib.sh and lab-lib.sh beside it).
# vmtest-timeout: 600
. /tests/lib.sh
. /tests/guest-lib.sh
. /tests/lab-lib.sh
SECS=${LAB_SECS:-10}
ROUNDS=${LAB_ROUNDS:-2}
BS=${LAB_BS:-128k}
peak=$($LAB_MODEL -E | awk '$1 == "seq_outer_MBps" { print $2 }')
lab_start
far=$((DEV_BYTES - 128 * 1048576))

# run S MB: one round; prints the aggregate MB/s.
run() {
	lab_sched "$1" || return 1
	lab_bfq_set low_latency 0
	[ "$2" != - ] && lab_bfq_set max_budget "$2"
	lab_readers $SECS $BS 0 $far |
		awk -v t=$SECS '{ printf "%.2f\n", ($1 + $2) * 1024 / t / 1e6 }'
}

lab_table exp1-maxbudget
echo "2 psync readers, $BS direct, 128 MiB at each end, ${SECS}s x $ROUNDS rounds; disk peak $peak MB/s"
printf '%-12s %10s %9s %7s %9s  %s\n' sched max_budget 'MB/s' '+-95%' '% peak' rounds
for s in $(lab_scheds); do
	case $s in
	ours|stock|bfq) budgets="0 4096 8192 16384" ;;
	*) budgets=- ;;
	esac
	for b in $budgets; do
		: > /tmp/x1
		for r in $(seq $ROUNDS); do
			run $s $b >> /tmp/x1
		done
		m=$(mean < /tmp/x1) ci=$(ci95 < /tmp/x1)
		pct=$(awk -v m=$m -v p=$peak 'BEGIN { printf "%.0f", m / p * 100 }')
		printf '%-12s %10s %9s %7s %9s  %s\n' $s $b $m $ci $pct "$(tr '\n' ' ' < /tmp/x1)"
		lab_data exp1 "sched=$s max_budget=$b mbps=$m ci=$ci peak=$peak"
	done
done
lab_done
