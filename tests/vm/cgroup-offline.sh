# A group removed while its queue is in service, with nothing queued, the
# device idling for it: the group's state leaves the device under the
# block layer's queue_lock (blkg_destroy), and the turn taken from the
# group must not run the hardware queues from there. blk_mq_run_hw_queue()
# takes queue_lock itself when it finds nothing to run (6.12 and later),
# so a direct run there spins on the lock its caller holds: the kworker
# that offlines the group never returns (rcu stalls) and the device with
# it.
#
# Device: null_blk, 1 ms timer completions, one request at a time;
# low_latency 1 and slice_idle 1000 ms, so the device idles a long time
# for a new (raised) process's queue after its read. Each of ROUNDS
# rounds: in group cgof/x, fio (one thread) reads 4 blocks with O_DIRECT,
# then thinks 3 s; once the reads completed, fio moves to the root group
# (its queue stays in x until its next request) and x is removed at once.
# Asserted each round: the removal succeeds, debugfs sched/groups stops
# listing x within 3 s (the group left the device), and a direct read by
# another process completes within 5 s after it; then no kernel report.
# vmtest-timeout: 90
. /tests/lib.sh
G=$CG2/cgof
ROUNDS=${CGOF_ROUNDS:-3}
cleanup() {
	kill $P 2>/dev/null
	wait
	[ -d $G/x ] && cg_empty $G/x $CG2
	rm_groups
	rm_nullb cgof0
}
trap 'cleanup >/dev/null 2>&1' EXIT
P=

load_bfq || die "insmod of the $VM_IMPL bfq.ko failed"
cg2_io || die "no cgroup v2 io controller"
dev=$(mk_nullb cgof0 size=256 memory_backed=0 irqmode=2 \
	completion_nsec=1000000 hw_queue_depth=1 submit_queues=1) ||
	die "cannot create cgof0"
set_sched $dev bfq || die "cannot select bfq on $dev"
echo 1 > /sys/block/$dev/queue/iosched/low_latency
echo 1000 > /sys/block/$dev/queue/iosched/slice_idle ||
	die "cannot set slice_idle to 1000"
grep -q " /sys/kernel/debug " /proc/mounts ||
	mount -t debugfs none /sys/kernel/debug
GRP=/sys/kernel/debug/block/$dev/sched/groups
mkdir $G && echo +io > $G/cgroup.subtree_control || die "cannot make $G"
k0=$(dmesg | wc -l)

reads() { awk '{ print $1 }' /sys/block/$dev/stat; }
# listed: whether debugfs lists a group whose path ends in /x (ours only;
# stock has no such file, and the check is skipped).
listed() { [ -r $GRP ] && grep -q "path=/cgof/x " $GRP; }

for r in $(seq $ROUNDS); do
	mkdir $G/x || die "round $r: cannot make $G/x"
	r0=$(reads)
	cg_run $G/x fio --name=think --thread --filename=/dev/$dev \
		--direct=1 --ioengine=psync --rw=read --bs=4k --size=64k \
		--offset=$((r * 1024))k --thinktime=3000000 \
		--thinktime_blocks=4 --number_ios=5 --output=/dev/null
	P=$!
	i=0
	while [ $(($(reads) - r0)) -lt 4 ] && [ $i -lt 200 ]; do
		usleep 10000
		i=$((i + 1))
	done
	check "round $r: fio's 4 reads completed ($(($(reads) - r0)))" \
		[ $(($(reads) - r0)) -ge 4 ]
	cg_empty $G/x $CG2
	check "round $r: x removed while its queue idles" rmdir $G/x
	i=0
	while listed && [ $i -lt 30 ]; do
		usleep 100000
		i=$((i + 1))
	done
	check "round $r: the group left the device within 3 s" eval '! listed'
	t0=$(awk '{ printf "%d", $1 * 1000 }' /proc/uptime)
	timeout 5 dd if=/dev/$dev of=/dev/null bs=4k count=1 skip=$((8192 + r)) \
		iflag=direct 2>/dev/null
	rc=$?
	t1=$(awk '{ printf "%d", $1 * 1000 }' /proc/uptime)
	check "round $r: a read after the removal completes ($((t1 - t0)) ms, rc $rc)" \
		[ $rc = 0 ]
	kill $P 2>/dev/null
	wait $P 2>/dev/null
	P=
done
dmesg_reports $k0 && fail "kernel reports in dmesg"
finish
