# vmtest-timeout: 300
# Group shares under cgroup v2 (issue 7): io.bfq.weight divides the device
# between groups, and among the children of a group, in proportion to the
# weights, whatever the number of processes in each group.
#   a. weights 100 : 300, one reader each               -> 1:3 +-5%
#   b. equal weights, 4 readers : 1 reader              -> 1:1 +-5%
#   c. the tree A(200){A1(100), A2(300)}, B(100){B1(100)} (depth 3 under
#      our test group) -> A1 1/6, A2 1/2, B1 1/3 of the device, +-5% each
#   d. weights 100 : "default 100" + "MAJ:MIN 300"      -> 1:3 +-5%
#   e. a. through a dm-linear device on the bfq disk    -> 1:3 +-5%
#
# Device: null_blk, 4 ms timer completions, one-request hardware queue,
# nothing stored (memory_backed=0), merges off (nomerges=2). Each reader is
# fio libaio, iodepth 16, 4 KiB sequential reads: its bfq queue always holds
# requests, so no share depends on bfq's idling windows (which TCG jitter
# makes expire), and the device, not the guest's CPU, is the bottleneck:
# it completes 160-230 requests a second, where the guest issues 440-800
# 4 KiB reads a second to a 1 ms device (host loaded, or a CPU hog in the
# guest). With merges on, a 1 ms device and iodepth 8 the guest's CPU is
# the limit and a 100:300 ratio held ~3 for 10 s, then fell to ~1.2 (not
# investigated; the 8 reads merge into one or two requests, so little
# waits in bfq): not a test of weights. Merges off, 4 ms and iodepth 16
# hold ~3, a CPU hog running in the guest or not, closest with max_budget
# 64 (see docs/results/2026-11-23-groups-share-tests.md).
# nr_requests 128: at depth 1 the block layer gives the scheduler 2 tags
# only, and then the tag wait queue, not bfq, decides who is served
# (measured 1:1.2 instead of 1:3). max_budget 64 sectors (8 requests):
# bfq serves a queue at most a budget at a time, so in a 3 s window of
# ~650 requests a group's count is off by at most a budget or two.
#
# Measured: every reader started in its group (the shell writes its own
# pid to cgroup.procs, then execs fio); once every group has done I/O and
# LEAD s more, ROUNDS consecutive windows of WIN s, each group's bytes from
# its io.stat (the block layer's count, not bfq's); the bound applies to
# the median of the windows' ratios. Quick form (VM_QUICK=1, make check):
# 3 windows of 2 s and +-15%, a guard that the weights act at all; the
# full form (make bench) is 5 windows of 3 s and +-5%.
. /tests/lib.sh
G=$CG2/cgs
DM=cgs-lin
PIDS=
# fresh: the groups of the last case gone, G empty again.
fresh() {
	rm_groups
	mkdir $G && echo +io > $G/cgroup.subtree_control
}
cleanup() {
	stop_readers
	rm_groups
	dmsetup --noudevsync remove --retry $DM 2>/dev/null
	rm_nullb cgs0
}
trap 'cleanup >/dev/null 2>&1' EXIT
export DM_DISABLE_UDEV=1
if [ "${VM_QUICK:-0}" = 1 ]; then
	WIN=${CGS_WIN:-2} ROUNDS=${CGS_ROUNDS:-3} TOL=${CGS_TOL:-0.15}
else
	WIN=${CGS_WIN:-3} ROUNDS=${CGS_ROUNDS:-5} TOL=${CGS_TOL:-0.05}
fi
PCT=$(awk -v t=$TOL 'BEGIN { printf "%g", t * 100 }')
LEAD=${CGS_LEAD:-2}
CNSEC=${CGS_CNSEC:-4000000}
BUDGET=${CGS_BUDGET:-64}

load_bfq || die "insmod of the $VM_IMPL bfq.ko failed"
cg2_io || die "no cgroup v2 io controller"
dev=$(mk_nullb cgs0 size=4096 memory_backed=0 irqmode=2 \
	completion_nsec=$CNSEC hw_queue_depth=1 submit_queues=1) ||
	die "cannot create cgs0"
set_sched "$dev" bfq || die "cannot select bfq on $dev"
echo 0 > /sys/block/$dev/queue/iosched/low_latency
echo 128 > /sys/block/$dev/queue/nr_requests ||
	die "nr_requests 128 refused"
echo 2 > /sys/block/$dev/queue/nomerges
echo $BUDGET > /sys/block/$dev/queue/iosched/max_budget
MM=$(cat /sys/block/$dev/dev)
mkdir $G && echo +io > $G/cgroup.subtree_control || die "cannot make $G"

# reader GROUP OFFSET_MB [FILE [fio args]]: a reader in G/GROUP.
reader() {
	local g=$1 off=$2 f=${3:-/dev/$dev}
	shift 2; [ $# -gt 0 ] && shift
	cg_run "$G/$g" fio --name="${g##*/}" --filename="$f" --direct=1 \
		--ioengine=libaio --iodepth=16 --rw=read --bs=4k --size=256M \
		--offset="${off}M" --time_based --runtime=120 \
		--output=/dev/null "$@"
	PIDS="$PIDS $!"
}
# pair_case NAME WANT GROUP1 GROUP2: the median ratio is WANT +-TOL.
pair_case() {
	local r m
	grp_measure "$3" "$4" || { fail "$1: no measurement"; return; }
	r=$(grp_ratios); m=$(echo $r | median)
	echo "$1: $4:$3 ratios: $r median $m (want $2)"
	check "$1: median ratio $m within $PCT% of $2" within "$m" "$2"
}

# a. 100 : 300, one reader each.
mkgroups a1:100 a2:300 || die "cannot make the groups of a"
echo "a2's io.bfq.weight: $(cat $G/a2/io.bfq.weight | tr '\n' ' ')"
reader a1 0; reader a2 256
pair_case "a (100:300)" 3 a1 a2
stop_readers; fresh

# b. equal weights, 4 readers (4 processes) : 1.
mkgroups b1:100 b2:100 || die "cannot make the groups of b"
reader b1 0 "" --numjobs=4 --offset_increment=256M
reader b2 1024
pair_case "b (4 readers : 1, equal weights)" 1 b2 b1
stop_readers; fresh

# c. A(200){A1(100), A2(300)}, B(100){B1(100)}: A gets 2/3, B 1/3; A1 a
# quarter of A, A2 three quarters.
mkgroups A:200 B:100 A/A1:100 A/A2:300 B/B1:100 ||
	die "cannot make the groups of c"
reader A/A1 0; reader A/A2 256; reader B/B1 512
if grp_measure A/A1 A/A2 B/B1; then
	for leaf in "A1 1 0.16667" "A2 2 0.5" "B1 3 0.33333"; do
		set -- $leaf
		s=$(grp_shares $2)
		m=$(echo $s | median)
		echo "c: $1 shares: $s median $m (want $3)"
		check "c: $1's median share $m within $PCT% of $3" within "$m" "$3"
	done
else
	fail "c: no measurement"
fi
stop_readers; fresh

# d. A per-device weight overrides the group's default on that device.
mkgroups d1:100 d2:100 || die "cannot make the groups of d"
check "d: '$MM 300' accepted" sh -c "echo '$MM 300' > $G/d2/io.bfq.weight"
w=$(cat $G/d2/io.bfq.weight | tr '\n' ' ')
echo "d2's io.bfq.weight: $w"
check "d: io.bfq.weight shows the default and '$MM 300'" \
	sh -c "echo '$w' | grep -q 'default 100' && echo '$w' | grep -q '$MM 300'"
reader d1 0; reader d2 256
pair_case "d (default 100, $MM 300 : 100)" 3 d1 d2
stop_readers
check "d: '$MM default' accepted (per-device reset)" \
	sh -c "echo '$MM default' > $G/d2/io.bfq.weight"
w=$(cat $G/d2/io.bfq.weight | tr '\n' ' ')
check "d: the device line is gone after the reset ($w)" \
	sh -c "! echo '$w' | grep -q '$MM'"
fresh

# e. a. through dm-linear over the bfq disk (bio-based, no scheduler of its
# own: the remapped bios reach bfq with their group).
secs=$(cat /sys/block/$dev/size)
[ "$VM_BUILTIN" = 1 ] || modprobe dm-mod
if dmsetup --noudevsync create $DM --table "0 $secs linear /dev/$dev 0" &&
   { [ -e /dev/mapper/$DM ] || dmsetup --noudevsync mknodes $DM; } &&
   [ -e /dev/mapper/$DM ]; then
	mkgroups e1:100 e2:300 || die "cannot make the groups of e"
	reader e1 0 /dev/mapper/$DM; reader e2 256 /dev/mapper/$DM
	grp_measure e1 e2 || fail "e: no measurement"
	r=$(grp_ratios); m=$(echo $r | median)
	echo "e (100:300 via dm-linear): e2:e1 ratios: $r median $m (want 3)"
	# Users report no fairness on LVM with the stock module, but stock
	# holds 1:3 here on both kernels (dm-linear remaps each bio in the
	# submitter's context, and the clone keeps its group): asserted for
	# both, like a.
	check "e: median ratio $m through dm-linear within $PCT% of 3" within "$m" 3
	stop_readers
	rm_groups
	dmsetup --noudevsync remove --retry $DM || fail "dmsetup remove $DM"
else
	fail "e: cannot create dm-linear $DM over /dev/$dev"
	rm_groups
fi

set_sched "$dev" none
rm_nullb cgs0
unload_bfq || fail "bfq unloads"
finish
