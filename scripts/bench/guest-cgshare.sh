# Benchmark "cgshare": issue 7's group shares, ours and stock bfq side by
# side in one boot. tests/vm/cgroup-share.sh (100:300, 4 readers : 1 at
# equal weights, a depth-3 tree, a per-device weight, 100:300 through
# dm-linear; each a median of 5 windows, its bound +-5%) runs
# BENCH_ROUNDS times for each module, alternately; the table has every
# measured median, and whether each check held, per module and round.
. /tests/lib.sh
. /tests/guest-lib.sh
for r in $(seq $BENCH_ROUNDS); do
	for impl in ours stock; do
		VM_IMPL=$impl sh /tests/cgroup-share.sh > /tmp/cgs-$impl-$r.out 2>&1
		echo "round $r $impl: exit $?"
		grep -E '^(ok|not ok):' /tmp/cgs-$impl-$r.out | grep -E 'median' |
			sed "s/^/  $impl $r /"
	done
done
echo BENCH-TABLE-BEGIN
echo "cgshare: tests/vm/cgroup-share.sh's medians, ours and stock in one boot, $BENCH_ROUNDS round(s)"
for r in $(seq $BENCH_ROUNDS); do
	for impl in ours stock; do
		grep -E '^(ok|not ok):' /tmp/cgs-$impl-$r.out | grep -E 'median' |
			sed "s/^/$impl r$r /"
	done
done
# Verdicts on ours only: stock's medians are there to compare with.
for r in $(seq $BENCH_ROUNDS); do
	n=$(grep -cE '^not ok:' /tmp/cgs-ours-$r.out)
	k=$(grep -cE '^ok:' /tmp/cgs-ours-$r.out)
	if [ "$n" = 0 ] && [ "$k" -gt 0 ]; then
		echo "PASS: ours, round $r: all $k checks of cgroup-share.sh held"
	else
		echo "FAIL: ours, round $r: $n of $((n + k)) checks of cgroup-share.sh missed"
	fi
done
echo BENCH-TABLE-END
exit 0
