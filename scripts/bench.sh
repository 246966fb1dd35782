#!/bin/bash
# bench.sh KVER (make bench KVER=6.1|6.12): the benchmark tier. Every
# performance matrix with a bound, in full, on Debian's kernel KVER:
#   vm/KVER-bench/...  the VM tests' full form (VMTEST_QUICK=0): BENCH_VM,
#                      default lowlat-d1 lowlat-d32 merge-coop core-share
#                      cgroup-share lowlat-share cgroup-move
#   vm/KVER-bench/cgroup-psync  the group shares of one-request-at-a-time
#                      readers, the whole matrix, and tag-weight (a reader's
#                      group beside one of 64 libaio writers), under -icount
#                      with one vCPU (BENCH_PSYNC=0 leaves them out; about
#                      80 min)
#   lab/KVER/...       the lab's quick run on the disk model (make lab
#                      QUICK=1: calibration, one share and one start-up
#                      case with their guards), then experiment 5's video
#                      streams under -icount (tests/lab/quick-video.sh, its
#                      guards; about a minute); BENCH_LAB=0 leaves both out
#   bench/KVER/NAME    scripts/bench/run.sh KVER NAME for each NAME of
#                      BENCH_RUNS (default "tput bursts cgshare"; latency,
#                      the whole start-up/soft real-time/throughput table of
#                      every scheduler, takes about an hour a round): PASS
#                      when every PASS:/FAIL: verdict its table prints is a
#                      PASS (tput: ours >= 0.95x the best other scheduler,
#                      one round under -icount; bursts: median of 15 pairs
#                      <= 1.05; cgshare: every cgroup-share.sh check of
#                      ours, 3 rounds); SKIP for a table without verdicts
# Run by hand before a performance issue is resolved, on a quiet host: the
# bounds are timing ratios under TCG. Not part of make check.
#
# Writes docs/results/YYYY-MM-DD-bench-KVER.md (-2, -3... when that exists):
# date, commit, kernel, host and its load, the command, each step's verdict
# and time, every check and bound line the tests printed (medians and the
# runs they come from), each bench table. Prints PASS:/FAIL: lines and ends
# with "N passed, N failed"; exits 1 when a bound the tests assert missed.
#
# Environment: BENCH_VM, BENCH_RUNS (above); BENCH_ROUNDS and the other
# variables of scripts/bench/run.sh pass through; BENCH_OUT (the results
# file instead of the dated one).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$BFQ_TOP"

KVER=${1:?usage: bench.sh 6.1|6.12}
kver_dir "$KVER" > /dev/null
VMS=${BENCH_VM-lowlat-d1 lowlat-d32 merge-coop core-share cgroup-share lowlat-share cgroup-move}
RUNS=${BENCH_RUNS-tput bursts cgshare}
day=$(date +%F)
outf=${BENCH_OUT:-}
if [ -z "$outf" ]; then
	outf=docs/results/$day-bench-$KVER.md
	n=2
	while [ -e "$outf" ]; do
		outf=docs/results/$day-bench-$KVER-$n.md
		n=$((n + 1))
	done
fi
mkdir -p "$(dirname "$outf")" build/bench
logdir=build/bench/$KVER-$day
mkdir -p "$logdir"
all=$logdir/results.txt
: > "$all"
body=$logdir/body.md
: > "$body"
steps=$logdir/steps.md
: > "$steps"
load0=$(cut -d' ' -f1-3 /proc/loadavg)
t0=$SECONDS

# verdict NAME RC RESULTS: the step's PASS/FAIL lines, into the summary.
verdict() {
	local name=$1 rc=$2 res=$3 lines
	lines=$(grep -E '^(PASS|FAIL|SKIP): ' "$res" 2>/dev/null || true)
	if [ "$rc" != 0 ] && ! grep -q '^FAIL: ' <<< "$lines"; then
		lines+=${lines:+$'\n'}"FAIL: $name (exit status $rc)"
	elif ! grep -qE '^(PASS|FAIL): ' <<< "$lines"; then
		lines+=${lines:+$'\n'}"FAIL: $name (no results)"
	fi
	echo "$lines" | tee -a "$all"
}

echo "== bench/$KVER: module build"
if ! make --no-print-directory KVER="$KVER" > "$logdir/build.log" 2>&1; then
	tail -n 20 "$logdir/build.log"
	echo "FAIL: bench/$KVER/build" | tee -a "$all"
fi

# vm_step LABEL "TESTS" [VAR=value...]: the VM tests' full form, in one
# guest booted with the given environment; verdicts as vm-bench/KVER/TEST.
vm_step() {
	local label=$1 tests=$2 s rc took glog t
	shift 2
	echo "== vm/$KVER: $tests (full form${*:+, $*})"
	s=$SECONDS
	# shellcheck disable=SC2086 # a list of test names
	env "$@" VMTEST_QUICK=0 VMTEST_TIER=bench scripts/vmtest.sh "$KVER" $tests \
		> "$logdir/vm-$label.log" 2>&1 && rc=0 || rc=$?
	took=$((SECONDS - s))
	sed 's|: vm/|: vm-bench/|' "build/$KVER/results/vmtest.txt" > "$logdir/vm-$label.txt"
	verdict "vm-bench/$KVER" $rc "$logdir/vm-$label.txt" > "$logdir/vm-$label.verdict"
	cat "$logdir/vm-$label.verdict"
	echo "| VM tests, full form: $tests${*:+ ($*)} | $took s | $(grep -c '^PASS' "$logdir/vm-$label.verdict") passed, $(grep -c '^FAIL' "$logdir/vm-$label.verdict") failed |" >> "$steps"
	glog=$(sed -n 's/.*guest log: //p' "$logdir/vm-$label.log" | tail -n 1)
	[ -n "$glog" ] || glog=$(ls -t "build/$KVER"/vm-logs/*.log 2>/dev/null | head -1)
	{
		echo "## VM tests, full form${*:+ ($*)}"
		echo
		for t in $tests; do
			echo "### $t: $(grep -E "^(PASS|FAIL|SKIP): vm-bench/$KVER/$t( |$)" "$logdir/vm-$label.txt" | cut -d: -f1)"
			echo
			echo '```'
			# What the test printed, less fio's and the helpers' chatter.
			[ -f "$glog" ] && sed -n "s/^\[$t\] //p" "$glog" |
				grep -vE '^(fio-|Starting |Jobs: |  [a-z]+: \(g=|  *(lat|clat|slat|bw|iops|cpu|IO depths|submit|complete|issued|latency) )' |
				awk '/ratios:|shares:/ {
					# Only the runs after "ratios:" or "shares:":
					# the label before them may hold numbers (a
					# per-device weight "254:0 300").
					n = 0; lo = ""; hi = ""; from = 1
					for (i = 1; i <= NF; i++) if ($i ~ /^(ratios|shares):$/) { from = i + 1; break }
					for (i = from; i <= NF; i++) if ($i ~ /^[0-9.]+$/ && $(i - 1) != "median" && $(i - 1) != "want") {
						if (lo == "" || $i + 0 < lo + 0) lo = $i
						if (hi == "" || $i + 0 > hi + 0) hi = $i
						n++
					}
					if (n > 1) { print $0 " [spread " lo "-" hi "]"; next }
				} { print }'
			echo '```'
			echo
		done
	} >> "$body"
}

if [ -n "$VMS" ] && ! grep -q '^FAIL:' "$all"; then
	vm_step tcg "$VMS"
fi
# The one-request-at-a-time group shares (cgroup-psync): where the device,
# not the guest's CPU, must be the limit, so under -icount (one vCPU).
if [ "${BENCH_PSYNC:-1}" = 1 ] && ! grep -q '^FAIL: bench/.*/build' "$all"; then
	vm_step psync "cgroup-psync tag-weight" "VM_ICOUNT=${VM_ICOUNT-shift=0,sleep=off}" \
		"VM_SMP=${VM_SMP:-1}"
fi

if [ "${BENCH_LAB:-1}" = 1 ] && ! grep -q '^FAIL: bench/.*/build' "$all"; then
	echo "== lab/$KVER: make lab QUICK=1"
	s=$SECONDS
	make --no-print-directory KVER="$KVER" lab QUICK=1 > "$logdir/lab.log" 2>&1 && rc=0 || rc=$?
	took=$((SECONDS - s))
	verdict "lab/$KVER" $rc "build/$KVER/results/lab.txt" > "$logdir/lab.verdict"
	cat "$logdir/lab.verdict"
	echo "| the lab's quick run (make lab QUICK=1) | $took s | $(grep -c '^PASS' "$logdir/lab.verdict") passed, $(grep -c '^FAIL' "$logdir/lab.verdict") failed |" >> "$steps"
	{
		echo "## The lab's quick run on the disk model"
		echo
		echo '```'
		grep -vE '^(== |make)' "$logdir/lab.log" | head -n 80
		echo '```'
		echo
	} >> "$body"
	# Experiment 5's streams and late frames under -icount (the disk
	# model's timers on time), with its regression guards.
	echo "== lab/$KVER: scripts/lab.sh $KVER quick-video (-icount)"
	s=$SECONDS
	VM_ICOUNT=${VM_ICOUNT-shift=0,sleep=off} VM_SMP=${VM_SMP:-1} \
		"$BFQ_TOP/scripts/lab.sh" "$KVER" quick-video > "$logdir/lab-video.log" 2>&1 &&
		rc=0 || rc=$?
	took=$((SECONDS - s))
	verdict "lab/$KVER" $rc "build/$KVER/results/lab.txt" > "$logdir/lab-video.verdict"
	cat "$logdir/lab-video.verdict"
	echo "| the lab's video streams (quick-video, -icount) | $took s | $(grep -c '^PASS' "$logdir/lab-video.verdict") passed, $(grep -c '^FAIL' "$logdir/lab-video.verdict") failed |" >> "$steps"
	glog=$(sed -n 's/.*guest log: \([^;]*\.log\).*/\1/p' "$logdir/lab-video.log" | tail -1)
	{
		echo "## Experiment 5 on the disk model, under -icount"
		echo
		echo '```'
		grep -vE '^(== |make)' "$logdir/lab-video.log" | head -n 40
		[ -f "$glog" ] && sed -n 's/^\[quick-video\] \(ok: \|not ok: \|bound \)/\1/p' "$glog"
		echo '```'
		echo
	} >> "$body"
fi

for n in $RUNS; do
	grep -q '^FAIL: bench/.*/build' "$all" && break
	echo "== bench/$KVER/$n: scripts/bench/run.sh $KVER $n"
	s=$SECONDS
	# Each run's own defaults (BENCH_ROUNDS and VM_ICOUNT set by hand win):
	# tput's bound is on a CPU-bound cell, so it runs under -icount, where
	# a round repeats within 0.1% and one is enough; bursts' bound is a
	# median of 15 pairs, as tests/lowlat/ll-fs.sh takes it.
	runenv=()
	case $n in
	tput) runenv=("VM_ICOUNT=${VM_ICOUNT-shift=0,sleep=off}"
		      "BENCH_ROUNDS=${BENCH_ROUNDS:-1}")
		# Debian's 6.1 hangs bringing up a second vCPU under -icount
		# (tsc=reliable does not help): one vCPU there.
		[ "$KVER" != 6.1 ] || runenv+=("VM_SMP=${VM_SMP:-1}") ;;
	bursts) runenv=("BENCH_ROUNDS=${BENCH_ROUNDS:-15}") ;;
	esac
	env "${runenv[@]}" scripts/bench/run.sh "$KVER" "$n" \
		> "$logdir/$n.log" 2>&1 && rc=0 || rc=$?
	took=$((SECONDS - s))
	txt=build/bench/$n-$KVER.txt
	res=$logdir/$n.txt
	if [ $rc != 0 ] || [ ! -s "$txt" ]; then
		echo "FAIL: bench/$KVER/$n (no table; see $logdir/$n.log)" > "$res"
	elif grep -q '^FAIL: ' "$txt"; then
		echo "FAIL: bench/$KVER/$n ($(grep -c '^FAIL: ' "$txt") of $(grep -cE '^(PASS|FAIL): ' "$txt") bound(s) missed in its table)" > "$res"
	elif grep -q '^PASS: ' "$txt"; then
		echo "PASS: bench/$KVER/$n ($(grep -c '^PASS: ' "$txt") bound(s) held)" > "$res"
	else
		case " tput bursts cgshare " in
		# These print their bounds' verdicts: none means a broken run.
		*" $n "*) echo "FAIL: bench/$KVER/$n (its table has no verdict line)" ;;
		*) echo "SKIP: bench/$KVER/$n (a table without bounds, reported only)" ;;
		esac > "$res"
	fi
	verdict "bench/$KVER/$n" 0 "$res" > "$logdir/$n.verdict"
	cat "$logdir/$n.verdict"
	echo "| scripts/bench/run.sh $KVER $n | $took s | $(cut -d' ' -f1 "$res" | tr -d :) |" >> "$steps"
	{
		echo "## scripts/bench/run.sh $KVER $n: $(cut -d: -f1 "$res")"
		echo
		echo '```'
		if [ -s "$txt" ]; then cat "$txt"; else tail -n 20 "$logdir/$n.log"; fi
		echo '```'
		echo
	} >> "$body"
done

passed=$(grep -c '^PASS: ' "$all")
failed=$(grep -c '^FAIL: ' "$all")
release=$(cat "$(kver_dir "$KVER")/release" 2>/dev/null || echo unknown)
commit=$(git log -1 --format='%h %s' 2>/dev/null || echo unknown)
dirty=$(git status --porcelain -- 'bfq-*' Makefile Kconfig tests scripts 2>/dev/null | head -1)
{
	echo "# make bench on $KVER, $day"
	echo
	echo "- Date: $(date -u '+%F %T') UTC"
	echo "- Commit: $commit${dirty:+ (with uncommitted changes)}"
	echo "- Kernel: Debian $release under QEMU/TCG (2 vCPUs)"
	echo "- Host: $(nproc) cores; load $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
	echo "- Command: \`make bench KVER=$KVER\`${BENCH_VM+ BENCH_VM=\"$BENCH_VM\"}${BENCH_RUNS+ BENCH_RUNS=\"$BENCH_RUNS\"}${BENCH_ROUNDS:+ BENCH_ROUNDS=$BENCH_ROUNDS}${BENCH_PSYNC:+ BENCH_PSYNC=$BENCH_PSYNC}${BENCH_LAB:+ BENCH_LAB=$BENCH_LAB}"
	echo "- Wall time: $((SECONDS - t0)) s"
	echo "- Result: $passed passed, $failed failed"
	echo
	echo "Every bound a test asserts is a PASS/FAIL line below; a bound the"
	echo "test only reports reads \"bound met (reported)\" or \"bound not met"
	echo "yet (reported)\". Medians come with the runs they are taken from, and"
	echo "\"[spread lo-hi]\" gives their range."
	echo
	echo "| step | time | verdict |"
	echo "|---|---|---|"
	cat "$steps"
	echo
	echo '```'
	cat "$all"
	echo '```'
	echo
	cat "$body"
} > "$outf"
echo "results: $outf"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
