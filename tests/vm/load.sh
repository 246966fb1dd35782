# Our module loads, "bfq" is offered on a null_blk disk and can be selected.
. /tests/lib.sh
trap 'rm_nullb nullb0 >/dev/null 2>&1' EXIT

load_bfq || die "insmod of the $VM_IMPL bfq.ko failed"
check "module bfq is listed in /proc/modules" bfq_loaded
dev=$(mk_nullb nullb0) || die "cannot create null_blk nullb0"
echo "scheduler list: $(cat /sys/block/$dev/queue/scheduler)"
check "bfq is offered on $dev" grep -qw bfq /sys/block/$dev/queue/scheduler
check "bfq can be selected" set_sched "$dev" bfq
check "bfq is the current scheduler" [ "$(cur_sched "$dev")" = bfq ]
check "iosched directory exists" [ -d /sys/block/$dev/queue/iosched ]
check "a read through bfq completes" dd if=/dev/$dev of=/dev/null bs=4k count=256 iflag=direct
check "a write through bfq completes" dd if=/dev/zero of=/dev/$dev bs=4k count=256 oflag=direct
check "switch back to none" set_sched "$dev" none
rm_nullb nullb0
check "bfq unloads" unload_bfq
finish
