# Writeback in the device is bounded in time (design note 8 of
# bfq-iosched.c): a read that arrives while a buffered writer's writeback
# flows waits behind at most BFQ_ASYNC_DEVICE_MS (16 ms) of writes
# already in the device, not behind every write the device would take.
#
# Device: null_blk with 64 hardware tags and a bandwidth limit (mbps=10,
# which delivers about 5 MB/s): requests wait in the device in order, as
# on a disk's or an SSD's bus, and a 127.5 KiB write takes 13-25 ms of
# it. A buffered writer (fio, 1 MiB writes through the page cache,
# writeback from 8 MiB dirty) runs alone for 3 s, then a reader does
# 4 KiB direct random reads 5 ms apart for 2 s. Asserted:
#   - the reader's mean latency <= 32 ms (twice the bound). Before the
#     bound: 45 and 62 ms (6.12, 2026-12-03); with it 4-10 ms;
#   - the device wrote at least 3 MB/s meanwhile: the writeback still
#     keeps it busy (5 MB/s with the bound and without).
# vmtest-timeout: 120
. /tests/lib.sh
P1= P2=
db0=$(cat /proc/sys/vm/dirty_bytes)
dr0=$(cat /proc/sys/vm/dirty_ratio)
bb0=$(cat /proc/sys/vm/dirty_background_bytes)
br0=$(cat /proc/sys/vm/dirty_background_ratio)
cleanup() {
	kill $P1 $P2 2>/dev/null
	wait
	rm_nullb wbb0
	if [ "$db0" != 0 ]; then echo $db0 > /proc/sys/vm/dirty_bytes
	else echo $dr0 > /proc/sys/vm/dirty_ratio; fi
	if [ "$bb0" != 0 ]; then echo $bb0 > /proc/sys/vm/dirty_background_bytes
	else echo $br0 > /proc/sys/vm/dirty_background_ratio; fi
}
trap 'cleanup >/dev/null 2>&1' EXIT

load_bfq || die "insmod of the $VM_IMPL bfq.ko failed"
dev=$(mk_nullb wbb0 size=2048 memory_backed=0 irqmode=2 \
	completion_nsec=100000 hw_queue_depth=64 submit_queues=1 mbps=10) ||
	die "cannot create wbb0"
set_sched $dev bfq || die "cannot select bfq on $dev"
k0=$(dmesg | wc -l)
echo $((8 << 20)) > /proc/sys/vm/dirty_background_bytes
echo $((64 << 20)) > /proc/sys/vm/dirty_bytes

# sectors written by the device so far (stat field 7)
written() { awk '{ print $7 }' /sys/block/$dev/stat; }

fio --name=w --filename=/dev/$dev --rw=write --bs=1m --size=1g \
	--ioengine=psync --time_based --runtime=8 \
	--output-format=terse --output=/tmp/w.t &
P1=$!
sleep 3
w0=$(written) t0=$(cut -d' ' -f1 /proc/uptime)
# --invalidate=0: fio would flush the whole device's page cache first,
# waiting for the writer's dirty pages.
fio --name=r --filename=/dev/$dev --direct=1 --ioengine=psync --invalidate=0 \
	--rw=randread --bs=4k --offset=1g --size=512m --thinktime=5000 \
	--time_based --runtime=2 --output-format=terse --output=/tmp/r.t &
P2=$!
wait $P2; P2=
w1=$(written) t1=$(cut -d' ' -f1 /proc/uptime)
kill $P1 2>/dev/null
wait $P1; P1=
# terse: field 6 read KiB, 40 mean latency in us
reads=$(($(cut -d';' -f6 /tmp/r.t) / 4))
lat=$(cut -d';' -f40 /tmp/r.t | cut -d. -f1)
# MB/s while the reader ran, from 512-byte sectors
mbs=$(awk -v s=$((w1 - w0)) -v a=$t0 -v b=$t1 'BEGIN { printf "%d", s / 2048 / (b - a) }')
echo "reader: $reads reads, mean latency ${lat} us; device wrote $mbs MB/s meanwhile"
grep -s "^async_in_driver" /sys/kernel/debug/block/$dev/sched/rate
check "the reader read (${reads:-0} reads)" [ "${reads:-0}" -gt 10 ]
check "its mean latency ${lat:-?} us <= 32 ms behind the writeback" \
	[ "${lat:-999999}" -le 32000 ]
check "the device wrote $mbs >= 3 MB/s meanwhile" [ "$mbs" -ge 3 ]
set_sched $dev none
dmesg_reports $k0 && fail "kernel reports in dmesg"
finish
