# vmtest-timeout: 420
# vmtest-tier: bench
# Injection and wakers at low_latency 0 and 1: a writer doing 4 KiB
# write + fsync on ext4 beside a sequential reader, ours against the
# stock module in the same boot. The fsync waits for the journal thread
# (jbd2), whose commit the writer's queue is woken by; while the device
# idles for the reader, the journal's and the writer's requests can be
# served (wakers, injection) instead of waiting for the reader's turn to
# end. Both mechanisms serve throughput, so they act whatever low_latency
# says.
#
# Device: null_blk, memory backed (ext4 on it), 1 ms timer completions,
# one request at a time. Reader: fio, 128 KiB direct sequential reads of
# a 64 MiB file, again and again. Writer: fio, 4 KiB buffered writes to
# its own file, fsync after each. RUNS runs of SECS s per (module,
# low_latency); each run's reader KiB/s and writer writes/s.
# Bounds, on the medians: at each low_latency ours' writer does at least
# as many writes/s as stock's (x (1 - TOL)), and ours' reader at least
# (1 - TOL) of stock's reader throughput (its share kept). RUNS 3, SECS 8,
# TOL 0.05.
. /tests/lib.sh
MNT=/tmp/injf
RUNS=${INJF_RUNS:-3}
SECS=${INJF_SECS:-8}
TOL=${INJF_TOL:-0.05}
cleanup() {
	umount $MNT 2>/dev/null
	rm_nullb injf0
}
trap 'cleanup >/dev/null 2>&1' EXIT
modprobe ext4 || die "no ext4"

# setup IMPL: the module, a fresh device and filesystem, the reader's file.
setup() {
	umount $MNT 2>/dev/null
	rm_nullb injf0
	unload_bfq
	case $1 in
	stock) load_stock ;;
	*) load_ours ;;
	esac || return 1
	dev=$(mk_nullb injf0 size=256 irqmode=2 completion_nsec=1000000 \
		hw_queue_depth=1 submit_queues=1) || return 1
	set_sched $dev bfq || return 1
	/usr/sbin/mke2fs -q -F -t ext4 -E lazy_itable_init=0,lazy_journal_init=0 \
		/dev/$dev > /dev/null || return 1
	mkdir -p $MNT && mount -t ext4 /dev/$dev $MNT || return 1
	dd if=/dev/zero of=$MNT/r bs=1M count=64 conv=fsync 2>/dev/null
}

# run LL: one run; prints "reader_KiB/s writer_writes/s".
run() {
	echo $1 > /sys/block/$dev/queue/iosched/low_latency
	sync
	echo 3 > /proc/sys/vm/drop_caches
	fio --minimal --name=r --filename=$MNT/r --rw=read --bs=128k \
		--direct=1 --ioengine=psync --time_based --runtime=$SECS \
		--size=64m > /tmp/injf-r.txt 2>&1 &
	local rp=$!
	fio --minimal --name=w --filename=$MNT/w --rw=write --bs=4k --fsync=1 \
		--ioengine=psync --time_based --runtime=$SECS --size=16m \
		> /tmp/injf-w.txt 2>&1
	wait $rp
	echo "$(awk -F';' 'NF > 100 { print $7 }' /tmp/injf-r.txt)" \
	     "$(awk -F';' 'NF > 100 { print $49 }' /tmp/injf-w.txt)"
}

for impl in ours stock; do
	setup $impl || die "setup of $impl failed"
	for ll in 0 1; do
		rr= ww=
		for i in $(seq $RUNS); do
			set -- $(run $ll)
			echo "$impl low_latency $ll run $i: reader ${1:-?} KiB/s, writer ${2:-?} writes/s"
			rr="$rr ${1:-0}"
			ww="$ww ${2:-0}"
		done
		eval "R_${impl}_$ll=$(echo $rr | median)"
		eval "W_${impl}_$ll=$(echo $ww | median)"
	done
done
for ll in 0 1; do
	eval "ro=\$R_ours_$ll rs=\$R_stock_$ll wo=\$W_ours_$ll ws=\$W_stock_$ll"
	echo "low_latency $ll medians: reader KiB/s ours $ro stock $rs; writer writes/s ours $wo stock $ws"
	check "low_latency $ll: ours' writer >= stock's x (1 - $TOL) ($wo vs $ws)" \
		awk "BEGIN { exit !($wo >= $ws * (1 - $TOL)) }"
	check "low_latency $ll: ours' reader >= stock's x (1 - $TOL) ($ro vs $rs)" \
		awk "BEGIN { exit !($ro >= $rs * (1 - $TOL)) }"
done
finish
