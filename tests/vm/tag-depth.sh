# Writing queue/nr_requests resizes the limits bfq puts on async writes:
# they may hold at most half of the scheduler tags (BFQ_ASYNC_DEPTH_PCT),
# computed from the new value, not the one before.
#
# The block layer calls the elevator's depth_updated for each hardware
# queue before it stores the new nr_requests (and, with tags shared
# between hardware queues, before the shared map is resized), so a limit
# computed there from q->nr_requests lags one write behind: raising 64 to
# 1024 left async writes capped at 32 tags, lowering 256 to 16 left them
# at 128, no cap at all.
#
# The devices: null_blk, one 512-request hardware queue, 4 KiB requests
# (max_sectors_kb), no data kept; completions after 1 s where the cap is
# to be large (requests pile up whatever the guest's speed), after 10 ms
# where it is to be small (the flood drains quickly). The flood: 4 MiB of
# buffered writes to the block device, written back by the flusher
# (async: no REQ_SYNC) from the first dirty 256 KiB while the device
# stays open (its last close would sync the rest, as sync writes); writeback
# throttling off, since it would cap the writes below bfq's limit. The
# busy scheduler tags (debugfs hctx0/sched_tags) are sampled while it
# runs; their maximum is what async writes could hold.
#   nr_requests 64 -> 1024: the cap is 512; the maximum must pass 256
#   nr_requests 256 -> 16:  the cap is 8; the maximum must stay <= 12
. /tests/lib.sh
D=/sys/kernel/debug/block
bg0=$(cat /proc/sys/vm/dirty_background_bytes)
r0=$(cat /proc/sys/vm/dirty_background_ratio)
cleanup() {
	exec 3>&-
	if [ "$bg0" != 0 ]; then echo "$bg0" > /proc/sys/vm/dirty_background_bytes
	else echo "$r0" > /proc/sys/vm/dirty_background_ratio; fi
	rm_nullb tagd0 >/dev/null 2>&1
	rm_nullb tagd1 >/dev/null 2>&1
}
trap cleanup EXIT

load_bfq || die "loading the $VM_IMPL bfq failed"
echo 262144 > /proc/sys/vm/dirty_background_bytes

# mkdev NAME COMPLETION_NS: the device, under bfq; prints its name.
mkdev() {
	local dev q
	dev=$(mk_nullb $1 size=1024 memory_backed=0 irqmode=2 \
		completion_nsec=$2 hw_queue_depth=512 submit_queues=1) || return 1
	set_sched $dev bfq || return 1
	q=/sys/block/$dev/queue
	echo 4 > $q/max_sectors_kb
	[ ! -w $q/wbt_lat_usec ] || echo 0 > $q/wbt_lat_usec
	echo $dev
}

# flood DEV FROM TO SAMPLES: nr_requests FROM then TO, then the writes,
# with sched_tags sampled SAMPLES times, 20 ms apart; prints the largest
# busy count seen (-1: a resize was refused).
flood() {
	local dev=$1 q=/sys/block/$1/queue max=0 b i=0
	local st=$D/$1/hctx0/sched_tags
	echo $2 > $q/nr_requests && echo $3 > $q/nr_requests ||
		{ echo -1; return; }
	# The device stays open meanwhile: its last close syncs what is
	# left, and those writes are sync (the write limit, not the async one).
	exec 3> /dev/$dev
	dd if=/dev/zero bs=1M count=4 >&3 2>/dev/null
	while [ $i -lt $4 ]; do
		b=$(sed -n 's/^busy=//p' $st)
		[ "${b:-0}" -le $max ] || max=$b
		sleep 0.02
		i=$((i + 1))
	done
	exec 3>&-
	echo $max
}

up_dev=$(mkdev tagd0 1000000000) || die "cannot create tagd0"
[ -r $D/$up_dev/hctx0/sched_tags ] || skip "no debugfs sched_tags for $up_dev"
up=$(flood $up_dev 64 1024 100)
echo "nr_requests 64 -> $(cat /sys/block/$up_dev/queue/nr_requests): busy scheduler tags at most $up under async writes"
check "raised to 1024: async writes reach more than 256 tags (cap 512), not the old 32 ($up)" \
	[ "$up" -gt 256 ]

down_dev=$(mkdev tagd1 10000000) || die "cannot create tagd1"
down=$(flood $down_dev 256 16 60)
echo "nr_requests 256 -> $(cat /sys/block/$down_dev/queue/nr_requests): busy scheduler tags at most $down under async writes"
down_ok() { [ "$down" -ge 1 ] && [ "$down" -le 12 ]; }
check "lowered to 16: async writes hold at most 12 tags (cap 8), not all 16 ($down)" down_ok
finish
