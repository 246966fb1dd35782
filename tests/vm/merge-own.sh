# Request merges stay in their queue: a bio joins a queued request only if
# the request made of it would have joined the same bfq queue, so the
# service of every sector is charged to the queue that asked for it and a
# sync write is never served at the pace of the async queue.
#
# The devices: null_blk, one request at a time, no data kept, 128
# scheduler requests, so that requests wait in bfq.
#   1. Sync writes beside queued async writes, 250 ms a request. A
#      buffered writer dirties the even 4 KiB blocks of the first 512 KiB
#      and starts their writeback (sync_file_range: async writes, queued
#      at once, served in ascending order). Once 32 of them wait, dd
#      writes the odd blocks of the last 128 KiB one by one, from the end,
#      direct (sync): each of its requests begins where a queued async
#      request ends (the elevator core merges a request only into one
#      that ends where it begins) and ends where one begins. No
#      process writes two adjacent blocks, so every merge would join two
#      queues: the device's write merges must stay 0. A sync write that
#      joined an async request would wait for the async queue's pace (all
#      64 of them, 16 s): each must complete within 2.5 s (ten requests'
#      device time) of its bio. The block tracepoints give the waits, and
#      show that async writes were still waiting when the last sync one
#      came.
#   2. Merges within a queue still happen and are counted, 2 ms a request:
#      one direct writer, sequential 4 KiB writes, 16 in flight submitted
#      one by one; each joins the one before it while that one waits: at
#      least a quarter of the writes merge.
. /tests/lib.sh
cleanup() {
	exec 3>&-
	rm_nullb mown0 >/dev/null 2>&1
	rm_nullb mown1 >/dev/null 2>&1
}
trap cleanup EXIT

D=/sys/kernel/debug/block
load_bfq || die "loading the $VM_IMPL bfq failed"

# mkdev NAME COMPLETION_NS: the device, under bfq; prints its name.
mkdev() {
	local dev q
	dev=$(mk_nullb $1 size=64 memory_backed=0 irqmode=2 \
		completion_nsec=$2 hw_queue_depth=1 submit_queues=1) || return 1
	set_sched $dev bfq || return 1
	q=/sys/block/$dev/queue
	echo 128 > $q/nr_requests || return 1
	[ ! -w $q/wbt_lat_usec ] || echo 0 > $q/wbt_lat_usec
	echo $dev
}
# wmerges DEV: the device's write merges so far (stat field 6).
wmerges() { awk '{ print $6 }' /sys/block/$1/stat; }
# wios DEV: the writes it completed (stat field 5).
wios() { awk '{ print $5 }' /sys/block/$1/stat; }

# 1. Even blocks buffered and queued, then odd blocks direct.
T=/sys/kernel/tracing
[ -e $T/trace ] || T=/sys/kernel/debug/tracing
[ -e $T/events/block/block_rq_complete/enable ] ||
	skip "no block tracepoints in $T"
dev=$(mkdev mown0 250000000) || die "cannot create mown0"
echo > $T/trace
echo 1 > $T/tracing_on
echo 1 > $T/events/block/block_bio_queue/enable
echo 1 > $T/events/block/block_rq_complete/enable
# The device stays open: its last close would sync the rest, as sync writes.
exec 3> /dev/$dev
ionice -c2 -n4 fio --filename=/dev/$dev --bs=4k --name=async --rw=write:4k --size=512k \
	--ioengine=psync --direct=0 --sync_file_range=write:64 \
	> /tmp/mown-1.txt 2>&1 &
apid=$!
i=0
while [ "$(sed -n 's/^busy=//p' $D/$dev/hctx0/sched_tags)" -lt 32 ] &&
	[ $i -lt 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
ionice -c2 -n4 sh -c "for i in \$(seq 127 -2 97); do
	dd if=/dev/zero of=/dev/$dev bs=4k count=1 seek=\$i oflag=direct \
		conv=notrunc 2>/dev/null || exit 1
done" || fail "dd failed"
wait $apid || fail "the buffered writer failed"
exec 3>&-
sync
echo 0 > $T/events/block/block_bio_queue/enable
echo 0 > $T/events/block/block_rq_complete/enable
cross=$(wmerges $dev)
# Async writes (rwbs W) completed after the last sync one (WS) was queued.
late=$(awk '/block_bio_queue: .* WS / { t = $4 + 0 }
	/block_rq_complete: .* W / { c[n++] = $4 + 0 }
	END { for (i = 0; i < n; i++) if (c[i] > t) m++; print m + 0 }' $T/trace)
# The longest time from a sync write's bio to the completion of the
# request that carried it, in ms.
wait_ms=$(awk '$5 == "block_bio_queue:" && $7 == "WS" { q[$8] = $4 + 0 }
	$5 == "block_rq_complete:" {
		for (s in q)
			if (s + 0 >= $9 && s + 0 < $9 + $11) {
				w = $4 - q[s]
				if (w > m) m = w
				delete q[s]
			}
	}
	END { for (s in q) m = 999; printf "%d", m * 1000 }' $T/trace)
echo "16 direct writes among 64 buffered ones: $(wios $dev) writes done, $cross merged; the longest sync wait $wait_ms ms; $late async ones completed after the last sync one came"
check "async writes were queued when the sync ones came ($late of 64)" \
	[ "$late" -ge 8 ]
check "no write joined another queue's request ($cross merges)" \
	[ "$cross" -eq 0 ]
check "each sync write completed within 2500 ms ($wait_ms)" \
	[ "$wait_ms" -le 2500 ]

# 2. One sequential direct writer.
dev=$(mkdev mown1 2000000) || die "cannot create mown1"
fio --name=seq --filename=/dev/$dev --rw=write --bs=4k --size=8m \
	--ioengine=libaio --iodepth=16 --iodepth_batch_submit=1 \
	--direct=1 > /tmp/mown-q.txt 2>&1 || fail "the sequential writer failed"
own=$(wmerges $dev)
echo "sequential direct writer: 2048 writes, $own merged ($(wios $dev) requests)"
fiosum /tmp/mown-q.txt
check "writes of one queue still merge (at least 512 of 2048: $own)" \
	[ "$own" -ge 512 ]
finish
