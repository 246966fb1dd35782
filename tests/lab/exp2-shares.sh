# Experiment 2: bandwidth distribution among 2 and 5 sequential readers of
# 128 MiB each, spread evenly from the outer edge to the inner one (the
# zones differ by 2x), as in BFQ's 2007 tables
# (bfq-v0-results-linux-2.6.21.txt): equal weights under every scheduler,
# then weights 1:2, 10:1, 2:2:2:1:1 and 10:2:2:1:1 under the two bfqs
# (cgroup v2 io.bfq.weight 50 per unit; the others have no weights). Each
# reader's MB/s is the mean of LAB_ROUNDS runs with its 95% confidence
# interval; "dev" is the largest deviation of a reader from its ideal
# share of the measured total (BFQ's claim: within ~3%).
#
# low_latency=0 on bfq (the 2007 BFQ had no weight raising), max_budget
# auto. Runs are time-based (LAB_SECS each), where the 2007 runs read the
# files to their end.
# vmtest-timeout: 1500
. /tests/lib.sh
. /tests/guest-lib.sh
. /tests/lab-lib.sh
SECS=${LAB_SECS:-5}
ROUNDS=${LAB_ROUNDS:-3}
BS=${LAB_BS:-128k}
lab_start
span=$((DEV_BYTES - 128 * 1048576))

# offsets N: N offsets spread from 0 to the last 128 MiB, 4 KiB aligned.
# In the shell's 64-bit arithmetic: mawk's printf "%d" stops at 2^31 - 1,
# which put every reader past 2 GiB at the same offset.
offsets() {
	local i
	for i in $(seq 0 $(($1 - 1))); do
		printf "%d " $((span * i / ($1 - 1) / 4096 * 4096))
	done
}
# The readers must sit where the table says: the last at the inner edge.
set -- $(offsets 5)
[ "$5" -eq $((span / 4096 * 4096)) ] && [ "$2" -gt 0 ] && [ "$4" -gt "$3" ] ||
	echo "BENCH-ERROR exp2 reader offsets $* do not span 0..$span" >&2

# case S WEIGHTS: LAB_ROUNDS runs of readers with these weights (a comma
# list; "eq" prefix: no cgroups, all in the root); one table row.
case_run() {
	local s=$1 ws=$2 n specs i w o
	n=$(echo ${ws#eq} | tr , '\n' | grep -c .)
	: > /tmp/x2
	lab_sched $s || return 1
	lab_bfq_set low_latency 0
	for r in $(seq $ROUNDS); do
		specs= i=1
		for o in $(offsets $n); do
			w=$(echo ${ws#eq} | cut -d, -f$i)
			case $ws in
			eq*) specs="$specs $o" ;;
			*) specs="$specs $o@$((w * 50))" ;;
			esac
			i=$((i + 1))
		done
		lab_readers $SECS $BS $specs >> /tmp/x2
	done
	awk -v s=$s -v ws=$ws -v n=$n -v t=$SECS "$LAB_AWK_SQRT"'
	BEGIN { split("12.71 4.30 3.18 2.78 2.57 2.45 2.36 2.31 2.26", tq, " ") }
	{ for (i = 1; i <= n; i++) { v[NR, i] = $i * 1024 / t / 1e6; sum[i] += v[NR, i] } }
	END {
		w = ws; sub(/^eq/, "", w); split(w, wt, ",")
		for (i = 1; i <= n; i++) { m[i] = sum[i] / NR; tot += m[i]; wsum += wt[i] }
		line = ""; dev = 0
		for (i = 1; i <= n; i++) {
			q = 0
			for (r = 1; r <= NR; r++) q += (v[r, i] - m[i]) * (v[r, i] - m[i])
			ci = (NR > 1) ? tq[NR - 1] * sqrt_(q / (NR - 1) / NR) : 0
			ideal = tot * wt[i] / wsum
			d = (m[i] - ideal) / ideal * 100
			if (d < 0 ? -d > dev : d > dev) dev = d < 0 ? -d : d
			line = line sprintf(" %.2f+-%.2f", m[i], ci)
			data = data sprintf(" r%d=%.3f ci%d=%.3f", i, m[i], i, ci)
		}
		printf "%-12s %-12s %7.2f %6.1f%% %s\n", s, ws, tot, dev, line
		printf "LAB-DATA exp2 sched=%s weights=%s total=%.3f maxdev=%.2f%s\n", s, ws, tot, dev, data
	}' /tmp/x2
}

lab_table exp2-shares
echo "psync readers, $BS direct, 128 MiB each spread over the disk, ${SECS}s x $ROUNDS rounds"
echo "weights: eq = equal, no cgroups; else cgroup io.bfq.weight = 50 x the number"
printf '%-12s %-12s %7s %7s  %s\n' sched weights 'MB/s' 'dev' 'per reader MB/s +-95% (outer to inner)'
for s in $(lab_scheds); do
	case_run $s eq1,1
	case_run $s eq1,1,1,1,1
	case $s in
	ours|stock|bfq)
		for ws in 1,2 10,1 2,2,2,1,1 10,2,2,1,1; do
			case_run $s $ws
		done ;;
	esac
done
lab_done
