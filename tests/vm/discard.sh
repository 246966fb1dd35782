# bfq on an NVMe device (QEMU's controller, which scripts/vm/common.sh gives
# every guest: two hardware queues), with concurrent discards. NVMe takes
# several discard ranges in one request, and the block layer merges such
# discards, adjacent or not, without calling the elevator's
# requests_merged hook: bfq keeps them out of its merge hash for that
# reason (bfq_add_request()), and merges them only into q->last_merge.
#
# The kernel serializes BLKDISCARD per block device (and ext4 issues its
# discards one at a time), so the discards come through 8 dm-linear views
# of the same 64 KiB: one fio process per view discards its 4 KiB blocks
# at random, 8 discards at once on the NVMe queue. strict_guarantees
# keeps one request in the device, so the others wait in bfq and the
# arrivals merge into them: a discard is async, so all eight processes'
# share one queue, and the newest queued discard is the merge hint
# (q->last_merge). Before it was, a loaded host saw runs with no merge. A sync reader on the raw device adds a queue
# bfq idles for, and a writer elsewhere verifies its data.
# Asserted: discards reached the device and were merged (the path was
# taken), the writer's data verifies, no kernel report, the views go, bfq
# leaves the device and unloads.
# vmtest-timeout: 240
. /tests/lib.sh
dev=nvme0n1
NVIEWS=8
cleanup() {
	local i=0
	while [ $i -lt $NVIEWS ]; do
		dmsetup --noudevsync remove --retry bfqdisc$i 2>/dev/null
		i=$((i + 1))
	done
	echo none > /sys/block/$dev/queue/scheduler 2>/dev/null
}
trap cleanup EXIT

command -v dmsetup >/dev/null || die "no dmsetup in the guest"
modprobe nvme 2>/dev/null
modprobe dm-mod 2>/dev/null
i=0
while [ $i -lt 100 ] && [ ! -e /sys/block/$dev ]; do usleep 100000; i=$((i + 1)); done
[ -e /sys/block/$dev ] || die "no NVMe namespace appeared ($(ls /sys/block | tr '\n' ' '))"
[ -e /dev/$dev ] || mknod /dev/$dev b $(tr : ' ' < /sys/block/$dev/dev)
segs=$(cat /sys/block/$dev/queue/max_discard_segments)
echo "$dev: max_discard_segments $segs, discard_max_bytes $(cat /sys/block/$dev/queue/discard_max_bytes), hw queues $(ls /sys/block/$dev/mq | wc -l)"
check "the device takes several discard ranges a request ($segs)" [ "$segs" -gt 1 ]

views=
i=0
while [ $i -lt $NVIEWS ]; do
	dmsetup --noudevsync create bfqdisc$i --table "0 128 linear /dev/$dev 0" ||
		die "dmsetup create bfqdisc$i"
	[ -e /dev/mapper/bfqdisc$i ] || dmsetup --noudevsync mknodes bfqdisc$i
	views="$views --name=trim$i --filename=/dev/mapper/bfqdisc$i --rw=randtrim --bs=4k"
	i=$((i + 1))
done

load_bfq || die "insmod of the $VM_IMPL bfq.ko failed"
set_sched $dev bfq || die "cannot select bfq on $dev"
echo 1 > /sys/block/$dev/queue/iosched/strict_guarantees
k0=$(dmesg | wc -l)
set -- $(cat /sys/block/$dev/stat)
n0=${12} m0=${13}

fio --output=/tmp/d.out --time_based --runtime=${DISCARD_SECS:-15} \
    --ioengine=psync $views \
    --name=read --filename=/dev/$dev --rw=randread --bs=4k --direct=1 \
	--offset=16m --size=16m --thinktime=2000 \
    --name=write --filename=/dev/$dev --rw=randwrite --bs=4k --direct=1 \
	--offset=32m --size=8m --verify=crc32c --verify_backlog=64 \
	--verify_fatal=1 --do_verify=1
rc=$?
set -- $(cat /sys/block/$dev/stat)
n1=${12} m1=${13}
echo "discard requests $((n1 - n0)), discard merges $((m1 - m0)), fio rc=$rc"
check "fio exited 0 (rc=$rc)" [ $rc = 0 ]
check "fio reports err=0" sh -c '! grep -q "err= *[1-9]" /tmp/d.out'
check "discards reached the device ($((n1 - n0)))" [ $((n1 - n0)) -gt 0 ]
check "discards were merged ($((m1 - m0)))" [ $((m1 - m0)) -gt 0 ]
r=$(dmesg_reports "$k0")
[ -z "$r" ] || echo "$r" | head -20
check "no kernel report during the run" [ -z "$r" ]
i=0
while [ $i -lt $NVIEWS ]; do
	check "view bfqdisc$i goes" dmsetup --noudevsync remove --retry bfqdisc$i
	i=$((i + 1))
done
check "bfq leaves $dev" set_sched $dev none
check "bfq unloads" unload_bfq
finish
