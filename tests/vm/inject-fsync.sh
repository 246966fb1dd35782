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
# low_latency), each run's reader KiB/s, writer writes/s and the device's
# completed requests/s and the reads' part of them (/sys/block/DEV/stat).
# Bounds, on the medians, at each low_latency (TOL of slack):
#  - ours' writer does at least as many writes/s as stock's: the wakers
#    serve the journal the fsync waits for;
#  - the device completes at least as many requests/s under ours as under
#    stock: injection keeps it busy while it idles for a queue;
#  - ours' reader keeps its share: its reads are at least stock's part of
#    the requests the device completed, or the part its weight is owed,
#    whichever is less. Every request costs the device the same
#    millisecond, so that part is the reader's share of the device's
#    time. The device is saturated (a read costs it two requests, an
#    fsync two to three: data, journal, commit), so a scheduler gives one
#    side more only by giving the other less. The writer and the journal
#    thread take turns (the writer waits for the commit, the commit for
#    the writer's fsync), so the reader shares the device with one of
#    them at a time, and is owed at least its weight's part against the
#    heavier of the two: 40 / (40 + 50) = 0.444 with the journal thread
#    at ext4's default best-effort level 3 (weight 50; the reader's and
#    writer's level 4 is weight 40; read with ionice). Where stock gives
#    the reader more than that it starves the writer (6.12 at
#    low_latency 0: 3-16 fsyncs a second).
# The reader alone, once per (module, low_latency), is printed for
# reference. RUNS 3, SECS 8, TOL 0.05.
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
	# The journal thread's best-effort level (ionice prints "...: prio N").
	jl=$(ionice -p $(pid_of "jbd2/$dev-8") 2>/dev/null |
	     sed -n 's/^best-effort: prio \([0-7]\)$/\1/p')
	[ -n "$jl" ] || { echo "no best-effort level for jbd2/$dev-8" >&2; return 1; }
}

# pid_of COMM: the pid of the first task named COMM.
pid_of() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(cat $p/comm 2>/dev/null)" = "$1" ] && { echo ${p#/proc/}; return; }
	done
}
# weight LEVEL: the weight of best-effort LEVEL (40 for 4, 50 for 3).
weight() { echo $(( (8 - $1) * 10 )); }

# ios: reads and writes the device completed so far (its requests).
ios() { awk '{ print $1, $5 }' /sys/block/$dev/stat; }
# now: the guest's clock, in seconds.
now() { awk '{ print $1 }' /proc/uptime; }

# run LL [alone]: one run; prints "reader_KiB/s writer_writes/s dev_ios/s
# reader_share", the last the reads' part of the requests the device
# completed (with alone, no writer: its figure is 0).
run() {
	local rp r0 w0 t0 r1 w1 t1 w=0
	echo $1 > /sys/block/$dev/queue/iosched/low_latency
	sync
	echo 3 > /proc/sys/vm/drop_caches
	set -- $1 "$2" $(ios) $(now)
	r0=$3 w0=$4 t0=$5
	fio --minimal --name=r --filename=$MNT/r --rw=read --bs=128k \
		--direct=1 --ioengine=psync --time_based --runtime=$SECS \
		--size=64m > /tmp/injf-r.txt 2>&1 &
	rp=$!
	if [ "$2" != alone ]; then
		fio --minimal --name=w --filename=$MNT/w --rw=write --bs=4k \
			--fsync=1 --ioengine=psync --time_based \
			--runtime=$SECS --size=16m > /tmp/injf-w.txt 2>&1
		w=$(awk -F';' 'NF > 100 { print $49 }' /tmp/injf-w.txt)
	fi
	wait $rp
	set -- $(ios) $(now)
	r1=$1 w1=$2 t1=$3
	echo "$(awk -F';' 'NF > 100 { print $7 }' /tmp/injf-r.txt)" "${w:-0}" \
	     "$(awk "BEGIN { r = $r1 - $r0; w = $w1 - $w0;
		printf \"%d %.3f\", (r + w) / ($t1 - $t0), r / (r + w) }")"
}

for impl in ours stock; do
	setup $impl || die "setup of $impl failed"
	for ll in 0 1; do
		set -- $(run $ll alone)
		echo "$impl low_latency $ll reader alone: ${1:-?} KiB/s, device ${3:-?} requests/s"
		rr= ww= dd= ss=
		for i in $(seq $RUNS); do
			set -- $(run $ll)
			echo "$impl low_latency $ll run $i: reader ${1:-?} KiB/s, writer ${2:-?} writes/s, device ${3:-?} requests/s, reader's share ${4:-?}"
			rr="$rr ${1:-0}"
			ww="$ww ${2:-0}"
			dd="$dd ${3:-0}"
			ss="$ss ${4:-0}"
		done
		eval "R_${impl}_$ll=$(echo $rr | median)"
		eval "W_${impl}_$ll=$(echo $ww | median)"
		eval "D_${impl}_$ll=$(echo $dd | median)"
		eval "S_${impl}_$ll=$(echo $ss | median)"
	done
done
for ll in 0 1; do
	eval "ro=\$R_ours_$ll rs=\$R_stock_$ll wo=\$W_ours_$ll ws=\$W_stock_$ll"
	eval "dvo=\$D_ours_$ll dvs=\$D_stock_$ll so=\$S_ours_$ll ss=\$S_stock_$ll"
	echo "low_latency $ll medians: reader KiB/s ours $ro stock $rs; writer writes/s ours $wo stock $ws; device requests/s ours $dvo stock $dvs; reader's share ours $so stock $ss"
	check "low_latency $ll: ours' writer >= stock's x (1 - $TOL) ($wo vs $ws)" \
		awk "BEGIN { exit !($wo >= $ws * (1 - $TOL)) }"
	check "low_latency $ll: the device's requests/s under ours >= stock's x (1 - $TOL) ($dvo vs $dvs)" \
		awk "BEGIN { exit !($dvo >= $dvs * (1 - $TOL)) }"
	wr=$(weight 4) wj=$(weight $jl)
	owed=$(awk "BEGIN { m = $wj > $wr ? $wj : $wr; printf \"%.3f\", $wr / ($wr + m) }")
	sb=$(awk "BEGIN { print ($ss < $owed ? $ss : $owed) }")
	check "low_latency $ll: ours' reader's share >= min(stock's, owed $owed) x (1 - $TOL) ($so vs $sb; journal at level $jl)" \
		awk "BEGIN { exit !($so >= $sb * (1 - $TOL)) }"
done
finish
