# Stress 10: queue merge and split churn (issue 8). /tests/mergeio (C,
# static, tests/stress/mergeio.c) keeps 6 processes reading one region of
# a bfq null_blk, each checking every block: in phases of about 100 ms they
# read interleaved blocks (their queues merge) or random ones (the merged
# queue turns seeky and splits); some change their ioprio (split off), all
# exit after a random number of reads and are respawned (members gone while
# merged). Meanwhile the processes are moved between cgroups every 20-200
# ms (a member leaves for another group). The device's merge and split
# counters (debugfs) are printed: both must have moved, or the scenario
# did not do what it is for. Iterations: processes spawned + moves.
. /tests/slib.sh
trap 's_cg_fini >/dev/null 2>&1; rm_nullb mg0 >/dev/null 2>&1' EXIT

load_bfq || die "cannot load bfq"
s_cg_init || die "no cgroup v2 io controller"
dev=$(s_nullb mg0 size=64 hw_queue_depth=2 irqmode=2 completion_nsec=100000) ||
	die "no null_blk"
[ -x /tests/mergeio ] || die "no /tests/mergeio"
st=/sys/kernel/debug/block/$dev/sched/service_trees
counters() { sed -n 's/^merges=\([0-9]*\) splits=\([0-9]*\)/\1 \2/p' $st 2>/dev/null; }
set -- $(counters) 0 0
m0=$1 s0=$2

/tests/mergeio /dev/$dev 8 $(s_left) 6 > /tmp/mergeio.out 2> /tmp/mergeio.err &
mpid=$!
moves=0
while kill -0 $mpid 2>/dev/null && s_running; do
	for p in $(pidof mergeio); do
		[ $(rnd 3) = 0 ] || continue
		if s_cg_move $p; then moves=$((moves + 1))
		else s_err "move of $p refused"; fi
	done
	usleep $((20000 + $(rnd 180000)))
done
s_wait $mpid $S_HANG || s_err "mergeio hung"
wait $mpid
rc=$?
cat /tmp/mergeio.out
head -5 /tmp/mergeio.err
set -- $(counters) 0 0
echo "moves=$moves merges=$(($1 - m0)) splits=$(($2 - s0))"
[ $(($1 - m0)) -gt 0 ] || s_err "no queue merged"
[ $(($2 - s0)) -gt 0 ] || s_err "no merged queue split"
set -- $(sed -n 's/^MERGEIO children=\([0-9]*\) verified=\([0-9]*\) errors=\([0-9]*\).*/\1 \2 \3/p' /tmp/mergeio.out)
if [ $# = 3 ]; then
	ITER=$((ITER + $1 + moves)); VERIFIED=$((VERIFIED + $2)); IOS=$((IOS + $2))
	[ "$3" = 0 ] || s_err "mergeio: $3 error(s)"
else
	s_err "mergeio printed no result"
fi
[ "$rc" = 0 ] || s_err "mergeio exited $rc"
s_cg_fini
set_sched "$dev" none
rm_nullb mg0
s_finish
