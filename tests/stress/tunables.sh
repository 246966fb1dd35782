# Stress 6: tunables toggled under load. While verifying fio writers and a
# reader run on a bfq null_blk, one tunable at a time is set to one of its
# values — 0 where it is allowed, 1, the default, and the ends of its valid
# range (bfq-sysfs.c, bfq_tunable_descs) — every 20-200 ms; each write
# must be accepted and read back. The defaults are put back at the end.
# Iterations: tunable writes.
. /tests/slib.sh
trap 'rm_nullb tu0 >/dev/null 2>&1' EXIT

load_bfq || die "cannot load bfq"
dev=$(s_nullb tu0 size=128 hw_queue_depth=8) || die "no null_blk"
D=/sys/block/$dev/queue/iosched
echo "iosched: $(ls $D | tr '\n' ' ')"

# name: values (the default is added from the file itself)
VALS="slice_idle:0,1,1000
slice_idle_us:0,1,999,1000000
low_latency:0,1
strict_guarantees:0,1
max_budget:0,1,256,BIG
timeout_sync:1,2,10000
back_seek_max:0,1,2147483647
back_seek_penalty:1,1000
fifo_expire_sync:1,600000
fifo_expire_async:1,600000"
# max_budget's upper end: the largest value the file accepts (found by
# halving from 2^32 once, so the extreme follows the module).
big=4294967296
while [ $big -gt 1 ] && ! echo $big > $D/max_budget 2>/dev/null; do big=$((big / 2)); done
echo "max_budget accepts up to about $big"
echo 0 > $D/max_budget

defaults=
for f in $(echo "$VALS" | cut -d: -f1); do
	[ -e $D/$f ] && defaults="$defaults $f:$(cat $D/$f)"
done
echo "defaults:$defaults"
all=$(echo "$VALS" | while IFS=: read f v; do
	for x in $(echo $v | tr , ' '); do echo "$f:$x"; done; done)
all="$(echo "$all" | sed "s/BIG/$big/") $defaults"
set -- $all
ncase=$#

run=0
while s_running; do
	run=$((run + 1))
	fio_bg tu-$run --filename=/dev/$dev $FIO_V --runtime=$(s_left) \
	    --name=aio --ioengine=libaio --iodepth=8 --rw=randwrite \
	    --offset=0 --size=32M --verify_backlog=128 \
	    --name=sync1 --ioengine=psync --rw=randwrite --offset=32M \
	    --size=32M --verify_backlog=32 \
	    --name=sync2 --ioengine=psync --rw=write --offset=64M --size=32M \
	    --verify_backlog=32
	wpid=$FIO_PID
	fio_bg tur-$run --filename=/dev/$dev --direct=1 --bs=4k \
	    --runtime=$(s_left) --name=rd --ioengine=psync --rw=randread \
	    --offset=96M --size=32M
	rpid=$FIO_PID
	while kill -0 $wpid 2>/dev/null && s_running; do
		set -- $all
		shift $(rnd $ncase)
		f=${1%%:*} v=${1#*:}
		[ -e $D/$f ] || continue
		if echo $v > $D/$f; then
			got=$(cat $D/$f)
			[ "$got" = "$v" ] || s_err "$f: wrote $v, reads $got"
			ITER=$((ITER + 1))
		else
			s_err "$f: valid value $v refused"
		fi
		usleep $((20000 + $(rnd 180000)))
	done
	# Back to the defaults before the end of the round, so that the
	# verify phase does not crawl under slice_idle=1000.
	for d in $defaults; do echo ${d#*:} > $D/${d%%:*}; done
	fio_collect tu-$run $wpid verify
	fio_collect tur-$run $rpid load
done
for d in $defaults; do echo ${d#*:} > $D/${d%%:*}; done
echo "$run fio round(s), $ncase values"
set_sched "$dev" none
rm_nullb tu0
s_finish
