# Guest-side helpers of the low-latency measurements (busybox sh), sourced
# after /tests/lib.sh by tests/vm/lowlat-*.sh and by
# scripts/bench/guest-latency.sh; shipped as /tests/ll-lib.sh with the
# static tool /tests/lowlat (tests/lowlat/lowlat.c).
#
# The device: null_blk, irqmode=2 (timer completion) with LL_CNSEC ns per
# request (default 200000: the slow end of the 50-200 us, so that a
# request costs the device more than it costs TCG's guest CPU to issue and
# complete it; see docs/results/ for the measurement), memory backed,
# LL_SIZE MiB, one submission queue; ext4 made in the guest and mounted on
# /mnt/NAME.
#   ll_dev NAME DEPTH        make it, mkfs, mount, lay the files out; sets
#                            LL_DEV (the disk) and LL_MNT (not in a $(...))
#   ll_dev_rm NAME           unmount and remove it
#   ll_sched SCHED ROT [LL]  ROT into queue/rotational, then the scheduler
#                            (ours|stock|mq-deadline|kyber|none); LL sets
#                            bfq's low_latency (default 1)
#   ll_bg_start KIND         the background: 10r-seq, 10r-rand, 5r5w-seq;
#                            back once its I/O flows
#   ll_bg_stop
#   ll_cold                  sync and drop the caches
#   ll_startup KIND          cold caches, KIND in the background from
#                            LL_LEAD s before (idle: none); prints the
#                            start-up's ms (at most LL_CAP s)
#   ll_startups KIND N       N start-ups under one run of KIND (started
#                            LL_LEAD s before the first), caches dropped
#                            before each; prints their ms, one a line
#   ll_startup_warm KIND [N] the same with the files cached: the CPU's part
#   ll_video KIND SECS       the same with the periodic reader; prints
#                            "frames late worst_ms"
#   ll_tput KIND SECS        KIND alone; prints the device's MB/s over SECS
#                            after LL_LEAD s (reads + writes, from stat)
#   ll_burst                 cold caches, 64 readers at once, each of
#                            4 files of 512 KiB; prints ms
LL=/tests/lowlat
LL_CNSEC=${LL_CNSEC:-200000}
LL_SIZE=${LL_SIZE:-1200}
# 8 s: the background's readers are new queues, raised as starting
# applications for a time sized from the device's peak rate (3 s before
# bfq has an estimate, 5-6 s measured on this device once it has). The
# measured application must meet the background in its steady state, as
# in BFQ's S suite (long-running readers and writers), not in the
# background's own start-up.
LL_LEAD=${LL_LEAD:-8}
# A start-up still running after LL_CAP s is stopped and counted as that.
LL_CAP=${LL_CAP:-30}
LL_BGFILE_MIB=32
# The burst: 64 processes at once, each reading 4 of these 512 KiB files
# in turn (128 MiB, about 1 s at depth 1). With one file each (0.3 s),
# single runs of the same setting spread by +-20%, too much for the
# bound's 5%.
LL_BURST_FILES=256
# Largest request, in sectors: a SATA disk's default (max_sectors_kb 1280).
# null_blk's own default, 255, splits every 128 KiB read in two requests
# (255 + 1 sectors), a device no disk resembles.
LL_MAX_SECTORS=${LL_MAX_SECTORS:-2560}
# CPUs (a diagnostic, off by default). Under TCG a guest CPU is ~30x
# slower than the host's, so the background's fio jobs, which a real
# machine would barely notice, take both vCPUs, and the measured
# application (start-up, periodic reader) waits for a CPU as much as for
# the disk: under 5r5w-seq at depth 32 the warm-cache control, a start-up
# with no I/O of its own, takes about 4x its idle time. LL_BG_CPUS and
# LL_APP_CPUS (vCPU lists) pin the background and the measured application
# apart, the same for every scheduler and for the idle runs. Not the
# default: pinned, depth 1 is unchanged and 6.12's start-ups under
# 5r5w-seq at depth 32 shorter, but 6.1 at depth 32 gets worse (a tenth
# to a fifth of the frames late under 10r-seq and 5r5w-seq, against at
# most 1.5% unpinned); why is not known yet (a guess: the kernel work of
# the pinned processes, kblockd runs and completions, landing on the vCPU
# the background saturates). See docs/results/2026-11-23-lowlat-rig.md.
# The benchmark sets them with BENCH_PIN=1 (scripts/bench/run.sh).
LL_BG_CPUS=${LL_BG_CPUS:-}
LL_APP_CPUS=${LL_APP_CPUS:-}
# LL_BG_NICE (a diagnostic, off by default): the background's fio jobs at
# this CPU nice, with their I/O priority held at BE 4, nice 0's, so that
# the I/O they ask for is the same. At nice 19 the start-ups under the
# read backgrounds come within about 1.5x idle, but under 5r5w-seq they
# stay around 2x, its writeback running in kworkers that no nice reaches
# (docs/results/2026-11-27-startup-5r5w-depth32-levers.md).
LL_BG_NICE=${LL_BG_NICE:-}
LL_DEV= LL_MNT=
# Results of an earlier script in the same boot are not this one's.
rm -rf /tmp/llr

# ll_app ARGS: the measured application, /tests/lowlat ARGS, on its vCPU.
ll_app() {
	if [ -n "$LL_APP_CPUS" ]; then
		taskset -c "$LL_APP_CPUS" $LL "$@"
	else
		$LL "$@"
	fi
}

ll_dev() {
	local name=$1 depth=$2 i
	modprobe ext4 || { echo "BENCH-ERROR no ext4 module"; return 1; }
	LL_DEV=$(mk_nullb "$name" size=$LL_SIZE memory_backed=1 irqmode=2 \
		completion_nsec=$LL_CNSEC hw_queue_depth=$depth submit_queues=1 \
		max_sectors=$LL_MAX_SECTORS) ||
		return 1
	set_sched "$LL_DEV" none
	# Inode tables and journal zeroed now: no ext4lazyinit I/O later.
	/usr/sbin/mke2fs -q -F -t ext4 -E lazy_itable_init=0,lazy_journal_init=0 \
		"/dev/$LL_DEV" >/dev/null || return 1
	LL_MNT=/mnt/$name
	mkdir -p "$LL_MNT"
	mount -t ext4 "/dev/$LL_DEV" "$LL_MNT" || return 1
	# The background's files first, in their own directories, then the
	# application (its directories spread over the block groups between
	# them), the video and the burst's files.
	mkdir -p "$LL_MNT/bg" "$LL_MNT/burst"
	for i in 0 1 2 3 4 5 6 7 8 9; do
		$LL fill "$LL_MNT/bg/r$i" $LL_BGFILE_MIB || return 1
	done
	for i in 0 1 2 3 4; do
		$LL fill "$LL_MNT/bg/w$i" $LL_BGFILE_MIB || return 1
	done
	$LL layout "$LL_MNT" || return 1
	$LL fill "$LL_MNT/video" 64 || return 1
	for i in $(seq 0 $((LL_BURST_FILES - 1))); do
		dd if=/dev/zero of="$LL_MNT/burst/f$i" bs=64k count=8 \
			2>/dev/null || return 1
	done
	sync
}

ll_dev_rm() {
	ll_bg_stop
	[ -n "$LL_MNT" ] && umount "$LL_MNT" 2>/dev/null
	set_sched "$LL_DEV" none 2>/dev/null
	rm_nullb "$1"
	LL_DEV= LL_MNT=
}

ll_sched() {
	local s=$1 rot=$2 lowlat=${3:-1}
	echo "$rot" > "/sys/block/$LL_DEV/queue/rotational"
	case "$s" in
	ours)  load_ours >/dev/null && set_sched "$LL_DEV" bfq ;;
	stock) load_stock >/dev/null && set_sched "$LL_DEV" bfq ;;
	kyber) unload_bfq && modprobe kyber-iosched && set_sched "$LL_DEV" kyber ;;
	*)     unload_bfq && set_sched "$LL_DEV" "$s" ;;
	esac || { echo "BENCH-ERROR cannot select $s on $LL_DEV"; return 1; }
	case "$s" in
	ours|stock) echo "$lowlat" > "/sys/block/$LL_DEV/queue/iosched/low_latency" ;;
	esac
}

ll_cold() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
}

# The S suite's backgrounds as one fio run, one process per job: sequential
# readers (direct, 128 KiB: a readahead window), random readers (direct,
# 4 KiB) and buffered sequential writers overwriting their files.
LL_BGPID=
ll_bg_start() {
	local kind=$1 nr nw i f=/tmp/ll-bg.fio
	case "$kind" in
	idle) return 0 ;;
	10r-seq) nr=10 nw=0 rw=read bs=128k ;;
	10r-rand) nr=10 nw=0 rw=randread bs=4k ;;
	5r5w-seq) nr=5 nw=5 rw=read bs=128k ;;
	*) echo "BENCH-ERROR no background $kind"; return 1 ;;
	esac
	{
		echo "[global]"
		echo "ioengine=psync"
		echo "time_based=1"
		echo "runtime=3600"
		echo "allow_file_create=0"
		[ -n "$LL_BG_CPUS" ] && echo "cpus_allowed=$LL_BG_CPUS"
		if [ -n "$LL_BG_NICE" ]; then
			echo "nice=$LL_BG_NICE"
			echo "prioclass=2"
			echo "prio=4"
		fi
		i=0
		while [ $i -lt $nr ]; do
			echo "[r$i]"
			echo "filename=$LL_MNT/bg/r$i"
			echo "rw=$rw"
			echo "bs=$bs"
			echo "direct=1"
			i=$((i + 1))
		done
		i=0
		while [ $i -lt $nw ]; do
			echo "[w$i]"
			echo "filename=$LL_MNT/bg/w$i"
			echo "rw=write"
			echo "bs=128k"
			echo "direct=0"
			i=$((i + 1))
		done
	} > $f
	fio --output=/tmp/ll-bg.out $f &
	LL_BGPID=$!
	ll_bg_flowing
}

# ll_bg_flowing: back once the device has moved data for the background
# (fio takes a while to start ten jobs on a busy host), at most 10 s;
# LL_LEAD counts from there.
ll_bg_flowing() {
	local a b n=0
	a=$(ll_sectors)
	while [ $n -lt 100 ]; do
		sleep 0.1
		b=$(ll_sectors)
		[ $((b - a)) -gt 2048 ] && return 0
		n=$((n + 1))
	done
	echo "ll: background $kind moved no data in 10 s" >&2
}

ll_bg_stop() {
	[ -n "$LL_BGPID" ] || return 0
	kill -INT "$LL_BGPID" 2>/dev/null
	wait "$LL_BGPID" 2>/dev/null
	LL_BGPID=
}

ll_startup() {
	local out
	ll_cold
	ll_bg_start "$1" || return 1
	[ "$1" = idle ] || sleep "$LL_LEAD"
	out=$(ll_app startup "$LL_MNT" $((LL_CAP * 1000)))
	ll_bg_stop
	echo "$out" | sed -n 's/.*STARTUP ms=\([0-9]*\).*/\1/p' | grep . ||
		echo $((LL_CAP * 1000))
}

# ll_startups KIND N: as ll_startup, N times in one run of the background
# (the S suite's readers and writers run on between start-ups). With the
# background running, only clean pages are dropped: syncing its writers'
# dirty data each time would be a workload of its own.
# With LL_DETAIL set, each start-up also appends "RUNQ_MS BLKIO_MS MS" to
# that file: its time runnable but waiting for a CPU, and waiting for its
# block I/O (lowlat.c's STARTUP line; delay accounting is switched on; -1
# when not known, as for a start-up stopped at the cap), and its time.
ll_startups() {
	local i=0 out ms d
	[ -z "$LL_DETAIL" ] || echo 1 > /proc/sys/kernel/task_delayacct
	ll_cold
	ll_bg_start "$1" || return 1
	[ "$1" = idle ] || sleep "$LL_LEAD"
	while [ $i -lt "$2" ]; do
		[ $i -gt 0 ] && echo 3 > /proc/sys/vm/drop_caches
		out=$(ll_app startup "$LL_MNT" $((LL_CAP * 1000)))
		ms=$(echo "$out" | sed -n 's/.*STARTUP ms=\([0-9]*\).*/\1/p')
		[ -n "$ms" ] || ms=$((LL_CAP * 1000))
		echo "$ms"
		d=$(echo "$out" | sed -n 's/.* runq_ms=\([-0-9]*\) blkio_ms=\([-0-9]*\).*/\1 \2/p')
		[ -z "$LL_DETAIL" ] || echo "${d:--1 -1} $ms" >> "$LL_DETAIL"
		i=$((i + 1))
	done
	ll_bg_stop
}

# ll_startup_warm KIND [N]: the control: the same start-up with its files
# cached (no I/O of its own), so that what KIND costs it is only CPU time
# (TCG: the background's null_blk copies and fio run on the same vCPUs).
# N runs (default 1) under one run of KIND; prints their ms, one a line.
ll_startup_warm() {
	local out i=0
	ll_app startup "$LL_MNT" >/dev/null
	ll_bg_start "$1" || return 1
	[ "$1" = idle ] || sleep "$LL_LEAD"
	while [ $i -lt "${2:-1}" ]; do
		out=$(ll_app startup "$LL_MNT" $((LL_CAP * 1000)))
		echo "$out" | sed -n 's/.*STARTUP ms=\([0-9]*\).*/\1/p'
		i=$((i + 1))
	done
	ll_bg_stop
}

ll_video() {
	local out
	ll_cold
	ll_bg_start "$1" || return 1
	[ "$1" = idle ] || sleep "$LL_LEAD"
	out=$(ll_app video "$LL_MNT/video" "$2")
	ll_bg_stop
	echo "$out" | sed -n 's/.*frames=\([0-9]*\) late=\([0-9]*\) worst_late_ms=\([0-9.]*\).*/\1 \2 \3/p'
}

# sectors read + written, /sys/block/DEV/stat fields 3 and 7.
ll_sectors() { awk '{ print $3 + $7 }' "/sys/block/$LL_DEV/stat"; }

ll_tput() {
	local a b cpus=$LL_BG_CPUS r=0
	ll_cold
	# The background alone, on every vCPU: its own throughput.
	LL_BG_CPUS=
	ll_bg_start "$1" || r=1
	LL_BG_CPUS=$cpus
	[ $r = 0 ] || return 1
	sleep "$LL_LEAD"
	a=$(ll_sectors)
	sleep "$2"
	b=$(ll_sectors)
	ll_bg_stop
	awk -v a=$a -v b=$b -v t=$2 'BEGIN { printf "%.1f\n", (b - a) * 512 / 1048576 / t }'
}

ll_burst() {
	local files= i out
	for i in $(seq 0 $((LL_BURST_FILES - 1))); do
		files="$files $LL_MNT/burst/f$i"
	done
	ll_cold
	out=$($LL burst 64 $files)
	echo "$out" | sed -n 's/.*BURST ms=\([0-9]*\).*/\1/p'
}

# ll_median: of the numbers on stdin (one or more per line).
ll_median() {
	tr ' ' '\n' | grep . | sort -n |
		awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Results: ll_rec KEY VALUE appends VALUE to /tmp/llr/KEY; ll_med KEY is
# their median ("nan" when none).
ll_rec() { mkdir -p /tmp/llr; echo "$2" >> "/tmp/llr/$1"; }
ll_med() {
	if [ -f "/tmp/llr/$1" ]; then ll_median < "/tmp/llr/$1"; else echo nan; fi
}
ll_all() { [ -f "/tmp/llr/$1" ] && tr '\n' ' ' < "/tmp/llr/$1"; }

# ll_share DEV LL RAMP SECS A B: the core's share case (two psync
# sequential 4k readers at BE A and BE B on the raw device DEV under bfq,
# low_latency LL); RAMP s are left out of the count (raising period).
# Prints the ratio of A's bytes to B's.
ll_share() {
	local dev=$1 lowlat=$2 ramp=$3 secs=$4 r a b
	echo "$lowlat" > "/sys/block/$dev/queue/iosched/low_latency"
	for r in $5 $6; do
		ionice -c2 -n$r fio --name=p$r --filename=/dev/$dev --direct=1 \
			--ioengine=psync --rw=read --bs=4k --size=256M \
			--offset=$((r * 256))M --time_based --ramp_time=$ramp \
			--runtime=$secs --output-format=terse \
			--output=/tmp/p$r.t &
	done
	wait
	a=$(cut -d';' -f6 /tmp/p$5.t); b=$(cut -d';' -f6 /tmp/p$6.t)
	awk -v a=$a -v b=$b 'BEGIN { printf "%.2f\n", (b > 0) ? a / b : 999 }'
}
