# rmmod is refused while a device uses bfq and works once it switched away;
# load/unload cycles, with I/O in between.
. /tests/lib.sh
trap 'rm_nullb nullb0 >/dev/null 2>&1; rm_nullb nullb1 >/dev/null 2>&1' EXIT

load_bfq || die "insmod of the $VM_IMPL bfq.ko failed"
d0=$(mk_nullb nullb0 size=64) || die "cannot create nullb0"
d1=$(mk_nullb nullb1 size=64) || die "cannot create nullb1"
set_sched "$d0" bfq || die "cannot select bfq on $d0"
set_sched "$d1" bfq || die "cannot select bfq on $d1"
echo "refcount: $(cat /sys/module/bfq/refcnt)"
check "rmmod refused while two devices use bfq" sh -c '! rmmod bfq 2>/dev/null'
check "module still loaded" bfq_loaded
set_sched "$d0" mq-deadline
check "rmmod refused while one device uses bfq" sh -c '! rmmod bfq 2>/dev/null'
check "bfq still works on $d1 after the refused rmmod" \
	dd if=/dev/zero of=/dev/$d1 bs=64k count=64 oflag=direct
set_sched "$d1" none
check "rmmod succeeds once no device uses bfq" rmmod bfq
check "module gone" sh -c '! grep -q "^bfq " /proc/modules'
check "bfq no longer offered" sh -c "! grep -qw bfq /sys/block/$d0/queue/scheduler"

i=1
while [ $i -le 5 ]; do
	if load_bfq >/dev/null && set_sched "$d0" bfq && set_sched "$d1" bfq &&
	   dd if=/dev/zero of=/dev/$d0 bs=4k count=512 oflag=direct 2>/dev/null &&
	   dd if=/dev/$d1 of=/dev/null bs=4k count=512 iflag=direct 2>/dev/null &&
	   set_sched "$d0" none && set_sched "$d1" mq-deadline && rmmod bfq; then
		ok "load/use/unload cycle $i"
	else
		fail "load/use/unload cycle $i"
		unload_bfq
	fi
	i=$((i + 1))
done
# A device removed while it still uses bfq must release the module too.
load_bfq >/dev/null
set_sched "$d0" bfq
rm_nullb nullb0
set_sched "$d1" none
check "rmmod after a bfq device was deleted" rmmod bfq
rm_nullb nullb1
finish
