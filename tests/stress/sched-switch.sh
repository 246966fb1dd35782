# Stress 1: switch the scheduler in a loop (bfq, mq-deadline, none, kyber
# when offered) under a mixed load: a libaio and a psync writer verifying
# with crc32c and a plain random reader, each on its own region.
# Iterations: scheduler switches.
. /tests/slib.sh
trap 'rm_nullb ss0 >/dev/null 2>&1' EXIT

load_bfq || die "cannot load bfq"
modprobe kyber-iosched 2>/dev/null
dev=$(s_nullb ss0 size=192 hw_queue_depth=16) || die "no null_blk"
S=/sys/block/$dev/queue/scheduler
scheds="bfq mq-deadline bfq none"
grep -qw kyber $S && scheds="$scheds bfq kyber"
echo "device $dev, schedulers: $(cat $S)"

run=0
while s_running; do
	run=$((run + 1))
	t=$(s_left)
	fio_bg ss-w$run --filename=/dev/$dev $FIO_V --runtime=$t \
	    --name=aio --ioengine=libaio --iodepth=16 --rw=randwrite \
	    --offset=0 --size=64M --verify_backlog=512 \
	    --name=sync --ioengine=psync --rw=write --offset=64M --size=32M \
	    --verify_backlog=64
	wpid=$FIO_PID
	fio_bg ss-r$run --filename=/dev/$dev --direct=1 --bs=4k --runtime=$t \
	    --name=rd --ioengine=libaio --iodepth=4 \
	    --rw=randread --offset=128M --size=64M
	rpid=$FIO_PID
	while { kill -0 $wpid || kill -0 $rpid; } 2>/dev/null && s_running; do
		for s in $scheds; do
			if echo $s > $S; then ITER=$((ITER + 1))
			else s_err "switch to $s refused"; fi
			usleep $((50000 + $(rnd 150000)))
		done
	done
	fio_collect ss-w$run $wpid verify
	fio_collect ss-r$run $rpid load
done
echo "$run fio round(s), now $(cat $S)"
set_sched "$dev" none
rm_nullb ss0
s_finish
