# Experiment 6: application start-up time and throughput under heavy
# background I/O, the S suite's workloads as in BFQ's blk-mq results
# (bfq-mq-results-linux-4.19.txt: on an HDD, BFQ keeps gnome-terminal's
# start-up about as fast as on an idle disk under 10r-seq and 5r5w-seq,
# the other schedulers do not let it start within 60 s; on an SSD BFQ's
# throughput is within ~3% of the best, the others start it much slower).
#
# ext4 over the whole disk model (then over the SSD model); the
# background from LAB_LEAD s before: 10r-seq / 10r-rand (ten readers,
# 128 KiB sequential or 4 KiB random, direct), 5r5w-seq / 5r5w-rand (five
# such readers and five buffered writers overwriting their files); the
# application is tests/lowlat's model start-up (300 small files in 30
# directories, then 15 MiB of larger ones, read cold), stopped at LAB_CAP
# s. Per device, scheduler and workload: the start-up's time, and the
# background's throughput over the lead (sectors read and written). bfq
# with its defaults (low_latency on).
#
# LAB_MODELS (default "disk ssd"), LAB_KINDS and LAB_SCHEDS (commas or
# spaces) narrow the run; LAB_TRACE=1 prints where the application's
# reads waited (lab-lib.sh, lab_trace_off) to the log; LAB_GUARD=X asserts that ours starts the
# application within X times its idle time under each background (the
# idle run uses the first of LAB_SCHEDS): quick-startup.sh does that.
#
# On a real disk: LAB_DEV=sdX sh exp6-startup.sh makes an ext4 on it!
# vmtest-timeout: 1500
. /tests/lib.sh
. /tests/guest-lib.sh
. /tests/lab-lib.sh
LEAD=${LAB_LEAD:-5}
CAP=${LAB_CAP:-20}
MODELS=$(echo "${LAB_MODELS:-disk ssd}" | tr ',' ' ')
GUARD=${LAB_GUARD:-}
KINDS=$(echo "${LAB_KINDS:-10r-seq 10r-rand 5r5w-seq 5r5w-rand}" | tr ',' ' ')
MNT=/mnt/lab
LL=/tests/lowlat
trap 'bg_stop; umount $MNT 2>/dev/null; lab_stop >/dev/null' EXIT

# fs: ext4 on the whole device, few inodes and a small journal (all
# zeroed now: no lazy-init I/O later), the background's files, then the
# application spread by ext4 over the disk's block groups.
fs() {
	local i
	modprobe ext4 || return 1
	/usr/sbin/mke2fs -q -F -t ext4 -N 65536 -J size=32 \
		-E lazy_itable_init=0,lazy_journal_init=0 /dev/$DEV >/dev/null || return 1
	mkdir -p $MNT && mount -t ext4 /dev/$DEV $MNT || return 1
	mkdir -p $MNT/bg
	for i in 0 1 2 3 4 5 6 7 8 9; do $LL fill $MNT/bg/r$i 32 || return 1; done
	for i in 0 1 2 3 4; do $LL fill $MNT/bg/w$i 32 || return 1; done
	$LL layout $MNT || return 1
	sync
}

BGPID=
# bg KIND: the background as one fio, a process per job, files bg/rN, bg/wN.
bg_start() {
	local rw=read bs=128k nw=0
	case $1 in
	idle) return 0 ;;
	10r-seq) ;;
	10r-rand) rw=randread bs=4k ;;
	5r5w-seq) nw=5 ;;
	5r5w-rand) rw=randread bs=4k nw=5 ;;
	esac
	set -- --directory=$MNT/bg --ioengine=psync --time_based --runtime=3600 \
		--name=r --filename_format='r$jobnum' --numjobs=$((10 - nw)) \
		--rw=$rw --bs=$bs --direct=1
	[ $nw -gt 0 ] && set -- "$@" --name=w --filename_format='w$jobnum' \
		--numjobs=$nw --rw=${rw%read}write --bs=$bs --direct=0
	fio --output=/tmp/bg.out "$@" &
	BGPID=$!
}
bg_stop() {
	[ -n "$BGPID" ] || return 0
	kill -INT $BGPID 2>/dev/null; wait $BGPID 2>/dev/null
	BGPID=
}
sectors() { awk '{ print $3 + $7 }' /sys/block/$DEV/stat; }

# cell S KIND: prints "startup_ms MB/s".
cell() {
	local a b ms
	lab_sched $1 || return 1
	lab_cold
	lab_trace_on
	bg_start $2
	a=$(sectors)
	sleep $LEAD
	b=$(sectors)
	ms=$($LL startup $MNT $((CAP * 1000)) | sed -n 's/.*STARTUP ms=\([0-9]*\).*/\1/p')
	lab_trace_off lowlat >&2
	bg_stop
	echo "${ms:-$((CAP * 1000))} $(awk -v a=$a -v b=$b -v t=$LEAD 'BEGIN { printf "%.2f", (b - a) * 512 / t / 1e6 }')"
}

lab_table exp6-startup
echo "start-up (ms, stopped at ${CAP}000) and background MB/s over the ${LEAD}s lead"
printf '%-5s %-12s %-10s %10s %8s\n' device sched workload startup_ms 'MB/s'
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }
for model in $MODELS; do
	lab_start -m $model
	fs || { echo "BENCH-ERROR no filesystem on $DEV"; lab_stop; continue; }
	for k in idle $KINDS; do
		for s in $(lab_scheds); do
			set -- $(cell $s $k)
			printf '%-5s %-12s %-10s %10s %8s\n' $model $s $k $1 $2
			lab_data exp6 "device=$model sched=$s workload=$k startup_ms=$1 mbps=$2"
			# Idle: one scheduler is enough.
			[ $k = idle ] && { idle_ms=$1; break; }
			[ -n "$GUARD" ] && [ $s = ours ] &&
				check "$model: ours starts the application under $k in $1 ms <= ${GUARD}x idle ($idle_ms ms)" \
					le "$1" "$(awk -v i=$idle_ms -v g=$GUARD 'BEGIN { print i * g }')"
		done
	done
	set_sched $DEV none
	umount $MNT
	lab_stop
done
lab_end
unload_bfq
finish
