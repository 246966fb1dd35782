# Scheduler tags and group weights: a group whose processes could fill
# every scheduler tag must not take a reader's share away before bfq sees
# the reader's requests.
#
# Group W holds 64 fio jobs writing at random, O_DIRECT, libaio at depth
# 32 each (2,048 requests wanted at once, far more than the device's
# scheduler tags); group R one reader, psync, O_DIRECT, 4 KiB at random.
# Weights W:R 100:100 and 100:900; on a null_blk with hardware depth 1
# (4 ms timer completions, 2 scheduler tags by default) and depth 32 (10
# ms, 64 tags). low_latency 0, so that no raising is measured. After a
# lead of TW_LEAD s, TW_ROUNDS windows of 2 s: the reader's part of the
# bytes both groups moved (io.stat) is within TW_TOL (relative) of its
# weight's share, 1/2 and 9/10, in the median window.
#
# Under plain TCG 64 libaio jobs keep the guest's CPU busy: make bench
# runs it under VM_ICOUNT, one vCPU.
# Environment (KEY=value on the guest's command line): TW_DEPTHS ("1 32"),
# TW_WEIGHTS ("100:100 100:900", W:R), TW_LEAD (4), TW_ROUNDS (3),
# TW_TOL (0.10).
# vmtest-tier: bench
# vmtest-timeout: 600
. /tests/lib.sh
G=$CG2/tw
cleanup() {
	kill $PW $PR 2>/dev/null
	wait
	for d in $G/w $G/r; do cg_empty $d $CG2; done
	rm_groups
	rm_nullb tw0
}
trap 'cleanup >/dev/null 2>&1' EXIT
PW= PR=

depths=$(echo "${TW_DEPTHS:-1 32}" | tr , ' ')
weights=$(echo "${TW_WEIGHTS:-100:100 100:900}" | tr , ' ')
LEAD=${TW_LEAD:-4}
ROUNDS=${TW_ROUNDS:-3}
TOL=${TW_TOL:-0.10}
WIN=2

load_bfq || die "insmod of the $VM_IMPL bfq.ko failed"
cg2_io || die "no cgroup v2 io controller"
mkdir $G && echo +io > $G/cgroup.subtree_control || die "cannot make $G"
mkgroups w:100 r:100 || die "cannot make the groups"

for d in $depths; do
	case $d in 1) ns=4000000 ;; *) ns=10000000 ;; esac
	dev=$(mk_nullb tw0 size=1024 irqmode=2 completion_nsec=$ns \
		hw_queue_depth=$d submit_queues=1) || die "cannot create tw0"
	set_sched $dev bfq || die "cannot select bfq on $dev"
	echo 0 > /sys/block/$dev/queue/iosched/low_latency
	MM=$(cat /sys/block/$dev/dev)
	for wt in $weights; do
		echo ${wt%:*} > $G/w/io.bfq.weight
		echo ${wt#*:} > $G/r/io.bfq.weight
		want=$(awk -v w=${wt%:*} -v r=${wt#*:} 'BEGIN { printf "%.4f", r / (w + r) }')
		cg_run $G/w fio --name=w --filename=/dev/$dev --rw=randwrite \
			--bs=4k --direct=1 --ioengine=libaio --iodepth=32 \
			--numjobs=64 --offset=0 --size=512m --time_based \
			--runtime=600 --output=/dev/null
		PW=$!
		cg_run $G/r fio --name=r --filename=/dev/$dev --rw=randread \
			--bs=4k --direct=1 --ioengine=psync --offset=512m \
			--size=256m --time_based --runtime=600 --output=/dev/null
		PR=$!
		grp_wait_io w:wbytes r:rbytes || die "the groups did no I/O"
		sleep $LEAD
		sh=
		w0=$(grp_bytes w wbytes) r0=$(grp_bytes r rbytes)
		for i in $(seq $ROUNDS); do
			sleep $WIN
			w1=$(grp_bytes w wbytes) r1=$(grp_bytes r rbytes)
			echo "  window $i: KiB w $(((w1 - w0) / 1024)) r $(((r1 - r0) / 1024))"
			sh="$sh $(awk -v w=$((w1 - w0)) -v r=$((r1 - r0)) 'BEGIN { printf "%.4f", (w + r) ? r / (w + r) : 0 }')"
			w0=$w1 r0=$r1
		done
		med=$(echo $sh | median)
		check "depth $d, W:R $wt: the reader's part $med (windows: $sh) within $TOL of $want" \
			within $med $want
		kill $PW $PR 2>/dev/null
		wait
		cg_empty $G/w $CG2
		cg_empty $G/r $CG2
	done
	rm_nullb tw0
done
finish
