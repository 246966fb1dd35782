# Guest-side helpers of the benchmarks (busybox sh), after /tests/lib.sh.
BENCH_ROUNDS=${BENCH_ROUNDS:-3}
for w in $(cat /proc/cmdline); do
	case "$w" in
	BENCH_ROUNDS=?*) BENCH_ROUNDS=${w#*=} ;;
	BENCH_SECS=?*) BENCH_SECS=${w#*=} ;;
	BENCH_CNSEC=?*) BENCH_CNSEC=${w#*=} ;;
	BENCH_SCHEDS=?*) BENCH_SCHEDS=$(echo "${w#*=}" | tr , ' ') ;;
	esac
done

# bench_scheds DEFAULT...: the schedulers a benchmark compares, BENCH_SCHEDS
# if set (a subset, e.g. to rerun ours alone), else its own list.
bench_scheds() {
	echo "${BENCH_SCHEDS:-$*}"
}

# use_sched DEV S: S is ours, stock (the bfq elevator of that module),
# base (run.sh's BENCH_BASE_KO, another build of ours), mq-deadline,
# kyber or none.
use_sched() {
	case "$2" in
	ours)  load_ours >/dev/null && set_sched "$1" bfq ;;
	stock) load_stock >/dev/null && set_sched "$1" bfq ;;
	base)  _load /tests/base-bfq.ko >/dev/null && set_sched "$1" bfq ;;
	# A module in Debian's kernels, not loaded until asked for.
	kyber) unload_bfq && modprobe kyber-iosched && set_sched "$1" kyber ;;
	*)     unload_bfq && set_sched "$1" "$2" ;;
	esac || { echo "BENCH-ERROR cannot select $2 on $1"; return 1; }
}

# bench_ll_sched S ROT LL: ll_sched (tests/lowlat/ll-lib.sh, sourced by the
# caller) on LL_DEV, and base too, with ROT and LL set as ll_sched sets them.
bench_ll_sched() {
	case "$1" in
	base) _load /tests/base-bfq.ko >/dev/null &&
		echo "$2" > "/sys/block/$LL_DEV/queue/rotational" &&
		set_sched "$LL_DEV" bfq &&
		echo "$3" > "/sys/block/$LL_DEV/queue/iosched/low_latency" ;;
	*) ll_sched "$1" "$2" "$3" ;;
	esac
}

# median: of the numbers on stdin (one or more per line).
median() {
	tr ' ' '\n' | grep . | sort -n |
		awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# fio terse (v3) fields: 6 read KiB, 7 read KiB/s, 8 read IOPS.
terse() { cut -d';' -f"$2" "$1"; }

# The elevator's hooks: the functions its elevator_mq_ops point to, by
# the names each module gives them.
elv_hooks() {
	case "$1" in
	ours|base|stock) echo bfq_limit_depth bfq_prepare_request \
		bfq_bio_merge bfq_insert_requests bfq_dispatch_request \
		bfq_has_work bfq_finish_request ;;
	mq-deadline) echo dd_limit_depth dd_prepare_request dd_bio_merge \
		dd_insert_requests dd_dispatch_request dd_has_work \
		dd_finish_request ;;
	kyber) echo kyber_limit_depth kyber_prepare_request kyber_bio_merge \
		kyber_insert_requests kyber_dispatch_request kyber_has_work \
		kyber_finish_request ;;
	esac
}

# traced_reads DEV JOBS SECS: JOBS psync 4k random readers on /dev/DEV
# (fio, in the background), the tracer on for SECS after a 1 s lead;
# prints the device's reads in that window.
traced_reads() {
	local a b pid
	fio --name=t --filename=/dev/$1 --direct=1 --ioengine=psync \
		--rw=randread --bs=4k --size=4G --numjobs=$2 \
		--time_based --runtime=$((${3%.*} + 3)) --output=/dev/null &
	pid=$!
	sleep 1
	a=$(awk '{print $1}' /sys/block/$1/stat)
	echo 1 > /sys/kernel/tracing/tracing_on
	sleep $3
	echo 0 > /sys/kernel/tracing/tracing_on
	b=$(awk '{print $1}' /sys/block/$1/stat)
	wait $pid
	echo $((b - a))
}

# trace_reset KB: the tracer off, no tracer, no filters, KB per CPU.
trace_reset() {
	local t=/sys/kernel/tracing

	echo 0 > $t/tracing_on
	echo nop > $t/current_tracer
	echo $1 > $t/buffer_size_kb
	: > $t/set_ftrace_filter
	: > $t/set_graph_function
}
