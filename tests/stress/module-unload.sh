# The end of a Debian-kernel run (our bfq.ko as a module): bfq on two
# null_blk disks and a scsi_debug disk with verified I/O, then every device
# switched off bfq and `rmmod bfq`, which must succeed; the kernel log of the
# whole boot must show no slab cache left with objects (kmem_cache_destroy
# complaints) and no other leak message. Iterations: unloads.
. /tests/slib.sh
trap 'rm_nullb mu0 >/dev/null 2>&1; rm_nullb mu1 >/dev/null 2>&1' EXIT

load_bfq || die "cannot load bfq"
d0=$(s_nullb mu0 size=64) || die "no null_blk"
d1=$(s_nullb mu1 size=64 irqmode=2 completion_nsec=100000) || die "no null_blk"
devs="$d0 $d1"
sdebug_load dev_size_mb=64 max_queue=8 && sleep 1
for b in /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/*; do
	[ -e "$b" ] || continue
	set_sched $(basename $b) bfq && devs="$devs $(basename $b)"
done
echo "bfq on: $devs"
args=
for d in $devs; do
	args="$args --name=$d --filename=/dev/$d --ioengine=libaio --iodepth=8 --rw=randwrite --size=16M --verify_backlog=64"
done
fio_bg mu $FIO_V --runtime=$(s_left) $args
fio_collect mu $FIO_PID verify
grep -q '^bfq ' /proc/modules || s_err "bfq is not a loaded module here"
# Refused while in use.
rmmod bfq 2>/dev/null && s_err "rmmod bfq succeeded while $devs use it"
if unload_bfq; then ITER=$((ITER + 1)); else s_err "rmmod bfq failed"; fi
grep -q '^bfq ' /proc/modules && s_err "bfq still loaded"
for d in $devs; do
	s=$(cur_sched $d); [ "$s" = bfq ] && s_err "$d still on bfq"
done
sdebug_unload 2>/dev/null
rm_nullb mu0; rm_nullb mu1
if dmesg | grep -E 'kmem_cache_destroy|[Ss]lab cache still has objects|Objects remaining|leak'; then
	s_err "leak messages in the kernel log"
fi
echo "MODULE-UNLOAD $([ $ERRORS = 0 ] && echo ok || echo failed)"
s_finish
