# Stress 7: ioprio changes of running processes. Verifying psync and libaio
# writers and psync readers run on a bfq null_blk; every 20-200 ms each of
# their processes gets `ionice -c <1..3> -n <0..7> -p PID`, and
# `ionice -p PID` must then report that class (and level, for RT and BE).
# Iterations: ioprio changes.
. /tests/slib.sh
trap 'rm_nullb io0 >/dev/null 2>&1' EXIT

load_bfq || die "cannot load bfq"
dev=$(s_nullb io0 size=128 hw_queue_depth=8) || die "no null_blk"

run=0
while s_running; do
	run=$((run + 1))
	fio_bg io-$run --filename=/dev/$dev $FIO_V --runtime=$(s_left) \
	    --name=sync --ioengine=psync --rw=randwrite --offset=0 --size=16M \
	    --numjobs=3 --offset_increment=16M --verify_backlog=32 \
	    --name=aio --ioengine=libaio --iodepth=8 --rw=randwrite \
	    --offset=48M --size=16M --verify_backlog=128
	wpid=$FIO_PID
	fio_bg ior-$run --filename=/dev/$dev --direct=1 --bs=4k \
	    --runtime=$(s_left) --name=rd --ioengine=psync --rw=randread \
	    --offset=64M --size=64M --numjobs=2
	rpid=$FIO_PID
	while { kill -0 $wpid || kill -0 $rpid; } 2>/dev/null && s_running; do
		for p in $(pidof fio); do
			c=$((1 + $(rnd 3))) n=$(rnd 8)
			if ! ionice -c $c -n $n -p $p 2>/dev/null; then
				kill -0 $p 2>/dev/null && s_err "ionice -c $c -n $n -p $p failed"
				continue
			fi
			got=$(ionice -p $p 2>/dev/null) || continue
			case $c in
			1) want="realtime: prio $n" ;;
			2) want="best-effort: prio $n" ;;
			3) want="idle" ;;
			esac
			[ "$got" = "$want" ] || s_err "pid $p: set $c/$n, reads '$got'"
			ITER=$((ITER + 1))
		done
		usleep $((20000 + $(rnd 180000)))
	done
	fio_collect io-$run $wpid verify
	fio_collect ior-$run $rpid load
done
echo "$run fio round(s)"
set_sched "$dev" none
rm_nullb io0
s_finish
