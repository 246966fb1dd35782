# vmtest-timeout: 240
# Buffered writers in two cgroups at io.bfq.weight 100 : 300: the heavier
# group writes at least three times as much. The page cache's writeback of
# each group's dirty pages is issued in the group (cgroup writeback: io
# and memory controllers on), into the group's async queue, and bfq
# divides the device between the groups' queues by weight; writeback
# throttling, which bfq turns off, would cap both groups alike. The stock
# module, in the same boot setup, gives 1:0.99 (6.12).
#
# Device: null_blk, memory backed (ext4 on it), 4 ms timer completions,
# one request at a time, 64 KiB requests at most; low_latency 0;
# max_budget 1024 sectors (16 requests), so that a 3 s window holds many
# turns of each group. 1024 scheduler requests: with fewer, the async
# writes of both groups fill the async share of the tags, each flusher
# waits for a tag in turn, the block layer hands them out alternately,
# and the groups write alike whatever bfq decides (128 requests: 1:1.0).
# The tag policy cannot tell one group's async write from another's when
# it runs (the flusher asks for the tag, the bio is not at hand), so that
# limit stays. Writers: fio, 64 KiB buffered writes over a 96 MiB file
# each, again and again; the dirty limits low (4 MiB background, 16 MiB),
# so writeback runs all along and the writers wait on it.
#
# Measured: each group's written bytes (io.stat wbytes, the block layer's
# count) over ROUNDS windows of WIN s once both wrote and LEAD s more (the
# page cache's per-group dirty limits follow each group's write rate and
# take ~10 s to settle). The median of the windows' g2 : g1 ratios must be
# at least 3 (1 - TOL): the heavier group gets its share; and at most 6:
# the lighter keeps at least half of its own. Both groups' async queues
# stay backlogged throughout (debugfs sched/queues: 60-118 requests each),
# yet the ratio comes out 3.3-4.0, not 3 (7 runs, 6.1 and 6.12): the
# lighter group gets about a fifth less than its share; not explained
# yet. Quick form (make check): 3 windows of 3 s, TOL 0.25; full form
# (make bench): 5 windows of 4 s, TOL 0.10.
. /tests/lib.sh
G=$CG2/cgw
MNT=/tmp/cgw
PIDS=
dirty_save
cleanup() {
	stop_readers
	umount $MNT
	rm_groups
	rm_nullb cgw0
	dirty_restore
}
trap 'cleanup >/dev/null 2>&1' EXIT
if [ "${VM_QUICK:-0}" = 1 ]; then
	WIN=${CGW_WIN:-3} ROUNDS=${CGW_ROUNDS:-3} TOL=${CGW_TOL:-0.25}
else
	WIN=${CGW_WIN:-4} ROUNDS=${CGW_ROUNDS:-5} TOL=${CGW_TOL:-0.10}
fi
LEAD=${CGW_LEAD:-12}

load_bfq || die "insmod of the $VM_IMPL bfq.ko failed"
cg2_io || die "no cgroup v2 io controller"
grep -qw memory $CG2/cgroup.controllers ||
	skip "no memory controller: cgroup writeback needs it"
echo +memory > $CG2/cgroup.subtree_control ||
	die "cannot enable the memory controller"
dev=$(mk_nullb cgw0 size=512 irqmode=2 completion_nsec=4000000 \
	hw_queue_depth=1 submit_queues=1) || die "cannot create cgw0"
set_sched "$dev" bfq || die "cannot select bfq on $dev"
q=/sys/block/$dev/queue
echo 0 > $q/iosched/low_latency
echo 1024 > $q/nr_requests || die "nr_requests 1024 refused"
echo 64 > $q/max_sectors_kb
echo 1024 > $q/iosched/max_budget
MM=$(cat /sys/block/$dev/dev)
modprobe ext4 || die "no ext4"
/usr/sbin/mke2fs -q -F -t ext4 -E lazy_itable_init=0,lazy_journal_init=0 \
	/dev/$dev > /dev/null || die "mke2fs failed"
mkdir -p $MNT && mount -t ext4 /dev/$dev $MNT || die "cannot mount ext4"
echo $((16 << 20)) > /proc/sys/vm/dirty_bytes
echo $((4 << 20)) > /proc/sys/vm/dirty_background_bytes
mkdir $G && echo "+io +memory" > $G/cgroup.subtree_control ||
	die "cannot make $G"
mkgroups g1:100 g2:300 || die "cannot make the groups"

# writer GROUP: a buffered writer in G/GROUP, on its own file.
writer() {
	cg_run $G/$1 fio --name=$1 --filename=$MNT/$1 --rw=write --bs=64k \
		--size=96m --time_based --runtime=600 --ioengine=psync \
		--direct=0 > /tmp/cgw-$1.txt 2>&1
	PIDS="$PIDS $!"
}
grp_wbytes() { grp_bytes "$1" wbytes; }
writer g1
writer g2
grp_wait_io g1:wbytes g2:wbytes || die "no writeback from both groups"
sleep $LEAD
prev="$(grp_wbytes g1) $(grp_wbytes g2)"
d0=$(awk '{ print $5, $7 }' /sys/block/$dev/stat)
r=
for i in $(seq $ROUNDS); do
	sleep $WIN
	cur="$(grp_wbytes g1) $(grp_wbytes g2)"
	set -- $prev $cur
	echo "  window $i: KiB written: g1 $((($3 - $1) / 1024)) g2 $((($4 - $2) / 1024))"
	r="$r $(awk "BEGIN { d = $3 - $1; printf \"%.3f\", (d > 0) ? ($4 - $2) / d : 999 }")"
	prev=$cur
done
d1=$(awk '{ print $5, $7 }' /sys/block/$dev/stat)
set -- $d0 $d1
echo "device: $((($3 - $1) / (WIN * ROUNDS))) writes/s of $((($4 - $2) / ($3 - $1 + 1) / 2)) KiB on average"
stop_readers
m=$(echo $r | median)
echo "g2:g1 ratios:$r median $m (weights 1:3)"
check "the 300 group writes at least 3 (1 - $TOL) times the 100 group (median $m)" \
	awk "BEGIN { exit !($m >= 3 * (1 - $TOL)) }"
check "the 100 group keeps at least half its share (median $m <= 6)" \
	awk "BEGIN { exit !($m <= 6) }"
finish
