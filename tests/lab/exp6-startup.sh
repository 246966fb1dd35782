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
# s. Per device, scheduler and workload: the start-up's time, the
# background's throughput over the head start (the device's sectors read
# and written; its first LAB_LEAD s, LAB_LEAD 5 by default, the
# background alone), and over the start-up's window (the background's
# own: its processes' read_bytes, the submitted bytes of their direct
# reads, plus the sectors the device wrote, as the application writes
# nothing) and the device's (the application's reads with it); with the
# guest's CPU busy % and the MB/s written over the head start (a cell where every scheduler keeps the CPU near 100% is
# bound by the emulated CPU, not by the device). bfq with its defaults
# (low_latency on).
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
trap 'lab_bg_stop; umount $MNT 2>/dev/null; lab_stop >/dev/null' EXIT

# fs: lab_fs's ext4 and background files, then the application spread
# by ext4 over the disk's block groups.
fs() {
	lab_fs $MNT || return 1
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
sectors() { awk '{ print $3 + $7 }' /sys/block/$DEV/stat; }
wsectors() { awk '{ print $7 }' /sys/block/$DEV/stat; }
# bg_bytes: the bytes the background's job processes read plus the bytes
# the device wrote.
bg_bytes() {
	local r
	r=$(lab_read_bytes $(cat /proc/$BGPID/task/*/children 2>/dev/null) |
		awk '{ for (i = 1; i <= NF; i++) s += $i; print s + 0 }')
	awk -v r=$r '{ print r + $7 * 512 }' /sys/block/$DEV/stat
}
# cpu_ticks: "busy total" jiffies of all CPUs (idle and iowait not busy).
cpu_ticks() { awk '$1 == "cpu" { t = 0; for (i = 2; i <= NF; i++) t += $i; print t - $5 - $6, t }' /proc/stat; }
mbps() { awk -v a=$1 -v b=$2 -v t=$3 'BEGIN { printf "%.2f", (t > 0 ? (b - a) / t / 1e6 : 0) }'; }

# cell S KIND: prints "startup_ms MB/s-head-start MB/s-start-up
# CPU-busy-%-head-start written-MB/s-head-start device-MB/s-start-up".
cell() {
	local a b c d e f ms u v wa wb
	lab_sched $1 || return 1
	lab_cold
	lab_trace_on
	bg_start $2
	a=$(sectors)
	wa=$(wsectors)
	u=$(cpu_ticks)
	sleep $LEAD
	b=$(sectors)
	wb=$(wsectors)
	v=$(cpu_ticks)
	c=$(bg_bytes)
	e=$(sectors)
	ms=$($LL startup $MNT $((CAP * 1000)) | sed -n 's/.*STARTUP ms=\([0-9]*\).*/\1/p')
	d=$(bg_bytes)
	f=$(sectors)
	lab_trace_off lowlat >&2
	lab_bg_stop
	ms=${ms:-$((CAP * 1000))}
	echo "$ms $(mbps $((a * 512)) $((b * 512)) $LEAD)" \
		"$(mbps $c $d $(awk -v m=$ms 'BEGIN { print m / 1000 }'))" \
		"$(echo $u $v | awk '{ printf "%.0f", ($4 > $2 ? 100 * ($3 - $1) / ($4 - $2) : 0) }')" \
		"$(mbps $((wa * 512)) $((wb * 512)) $LEAD)" \
		"$(mbps $((e * 512)) $((f * 512)) $(awk -v m=$ms 'BEGIN { print m / 1000 }'))"
}

lab_table exp6-startup
echo "start-up (ms, stopped at ${CAP}000), background MB/s over its ${LEAD}s head start and over the start-up"
printf '%-5s %-12s %-10s %10s %8s %8s %5s %8s %8s\n' device sched workload startup_ms 'MB/s' 'win MB/s' 'cpu%' 'wr MB/s' 'dev win'
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }
for model in $MODELS; do
	lab_start -m $model
	fs || { fail "BENCH-ERROR no filesystem on $DEV"; lab_stop; continue; }
	for k in idle $KINDS; do
		for s in $(lab_scheds); do
			set -- $(cell $s $k)
			printf '%-5s %-12s %-10s %10s %8s %8s %5s %8s %8s\n' $model $s $k $1 $2 ${3:-0} ${4:-0} ${5:-0} ${6:-0}
			lab_data exp6 "device=$model sched=$s workload=$k startup_ms=$1 mbps=$2 win_mbps=${3:-0} cpu_pct=${4:-0} wr_mbps=${5:-0} dev_win_mbps=${6:-0}"
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
