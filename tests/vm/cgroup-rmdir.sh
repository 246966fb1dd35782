# A cgroup removed while its queue holds requests hands the queue, with its
# requests, to the nearest group above it (rule 11 of bfq-cgroup.c), where
# they are served at that level's share instead of the removed group's.
#
# In group cgrm (io enabled below it): a reader in b (weight 100) and one
# in d (weight 1), both at random with 32 requests in flight (fio libaio,
# O_DIRECT), so d gets about a hundredth of the device. A second after
# d's queue appears, d's process moves to e (weight 100) and d is removed,
# its 32 reads still waiting in d's queue: the process submits nothing
# more until they complete. Asserted:
#   - in the 2 s after the removal the moved process reads at least 256
#     KiB in e: its old reads are served at the parent's level, and its
#     new ones at e's share (kept at weight 1 the old reads take several
#     seconds, and the process reads next to nothing meanwhile);
#   - debugfs sched/groups no longer lists d;
#   - where the kernel counts dying io states (cgroup.stat
#     nr_dying_subsys_io, 6.12), d's is released within 4 s;
# and no kernel report meanwhile.
# Device: null_blk, 1 ms timer completions, one request at a time, 128
# scheduler tags (nr_requests), so the reads wait in bfq.
# vmtest-timeout: 120
. /tests/lib.sh
G=$CG2/cgrm
cleanup() {
	kill $P1 $P2 2>/dev/null
	wait
	for d in $G/b $G/d $G/e; do [ -d $d ] && cg_empty $d $CG2; done
	rm_groups
	rm_nullb cgrm0
}
trap 'cleanup >/dev/null 2>&1' EXIT
P1= P2=

load_bfq || die "insmod of the $VM_IMPL bfq.ko failed"
cg2_io || die "no cgroup v2 io controller"
dev=$(mk_nullb cgrm0 size=1024 memory_backed=0 irqmode=2 \
	completion_nsec=1000000 hw_queue_depth=1 submit_queues=1) ||
	die "cannot create cgrm0"
set_sched $dev bfq || die "cannot select bfq on $dev"
echo 128 > /sys/block/$dev/queue/nr_requests ||
	die "cannot set nr_requests to 128"
echo 0 > /sys/block/$dev/queue/iosched/low_latency
MM=$(cat /sys/block/$dev/dev)
grep -q " /sys/kernel/debug " /proc/mounts ||
	mount -t debugfs none /sys/kernel/debug
GRP=/sys/kernel/debug/block/$dev/sched/groups
mkdir $G && echo +io > $G/cgroup.subtree_control || die "cannot make $G"
mkgroups b:100 d:1 e:100 || die "cannot make the groups"
k0=$(dmesg | wc -l)

dying() { sed -n 's/^nr_dying_subsys_io //p' $G/cgroup.stat; }
now_ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }

cg_run $G/b fio --name=bulk --filename=/dev/$dev --direct=1 \
	--ioengine=libaio --iodepth=32 --rw=randread --bs=4k --size=512m \
	--time_based --runtime=12 --output=/dev/null
P1=$!
cg_run $G/d fio --name=deep --filename=/dev/$dev --direct=1 \
	--ioengine=libaio --iodepth=32 --rw=randread --bs=4k --offset=512m \
	--size=256m --time_based --runtime=12 --output=/dev/null
P2=$!
# d's queue holds its reads once d is listed (a group is placed with its
# first queue); fio takes a while to start under TCG.
listed=0
for i in $(seq 100); do
	grep -q "path=/cgrm/d " $GRP 2>/dev/null && { listed=1; break; }
	usleep 100000
done
[ $listed = 1 ] || die "d never appeared in sched/groups"
sleep 1
echo "d's reads completed: $(grp_rbytes d) bytes"
cg_empty $G/d $G/e || die "cannot move d's processes to e"
e0=$(grp_rbytes e)
t0=$(now_ms)
rmdir $G/d || die "cannot remove d"
sleep 2
e1=$(grp_rbytes e)
e1ms=$(($(now_ms) - t0))
t=
while [ -n "$(dying)" ] && [ $(($(now_ms) - t0)) -lt 6000 ]; do
	[ "$(dying)" = 0 ] && { t=$(($(now_ms) - t0)); break; }
	usleep 20000
done
echo "after d's removal: e read $((${e1:-0} - ${e0:-0})) bytes in" \
	"$e1ms ms; d's io state released" \
	"$([ -n "$(dying)" ] && echo "${t:-not within 6000} ms after" ||
	   echo "(not counted by this kernel)")"
check "the moved process read >= 256 KiB in e in 2 s ($((${e1:-0} - ${e0:-0})) bytes)" \
	[ "$((${e1:-0} - ${e0:-0}))" -ge 262144 ]
unlisted() { ! grep -q "path=/cgrm/d " $GRP; }
check "sched/groups no longer lists d" unlisted
if [ -n "$(dying)" ]; then
	check "d's io state released within 4 s (${t:-over 6000} ms)" \
		[ "${t:-99999}" -le 4000 ]
fi
kill $P1 $P2 2>/dev/null
wait
P1= P2=
dmesg_reports $k0 && fail "kernel reports in dmesg"
finish
