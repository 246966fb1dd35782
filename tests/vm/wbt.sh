# Writeback throttling while bfq runs a disk: selecting bfq turns the
# block layer's default throttling off (bfq's async limits and weights do
# that job, and a second throttle would hide the weights between
# writers); switching to another scheduler puts the default back; a
# latency written to wbt_lat_usec by hand is the user's and stays whatever
# the scheduler. The state is wbt's debugfs "enabled" (1 on by default,
# 2 on by hand, 3 off by default); 6.12 also shows an off throttle as
# wbt_lat_usec 0, where 6.1 goes on showing the latency.
. /tests/lib.sh
trap 'rm_nullb wb0 >/dev/null 2>&1' EXIT

load_bfq || die "insmod of the $VM_IMPL bfq.ko failed"
dev=$(mk_nullb wb0 size=256) || die "cannot create wb0"
lat=/sys/block/$dev/queue/wbt_lat_usec
state=/sys/kernel/debug/block/$dev/rqos/wbt/enabled
[ -e "$lat" ] || skip "no queue/wbt_lat_usec (CONFIG_BLK_WBT off)"
[ -e "$state" ] || skip "no $state (CONFIG_BLK_DEBUG_FS off)"
shows_off=0
case $(uname -r) in 6.1.*) ;; *) shows_off=1 ;; esac
set_sched "$dev" mq-deadline || die "cannot select mq-deadline on $dev"
dfl=$(cat $lat)
echo "under mq-deadline: wbt_lat_usec $dfl, state $(cat $state)"
check "the default throttling is on to begin with ($dfl us)" \
	test "$dfl" -gt 0 -a "$(cat $state)" = 1
set_sched "$dev" bfq || die "cannot select bfq on $dev"
echo "under bfq: wbt_lat_usec $(cat $lat), state $(cat $state)"
check "bfq turns it off" test "$(cat $state)" = 3
[ $shows_off = 0 ] ||
	check "wbt_lat_usec reads 0 under bfq" test "$(cat $lat)" = 0
check "buffered writes complete under bfq" \
	dd if=/dev/zero of=/dev/$dev bs=64k count=256 conv=fsync
set_sched "$dev" none
echo "under none: wbt_lat_usec $(cat $lat), state $(cat $state)"
check "switching to none puts the default back" \
	test "$(cat $state)" = 1 -a "$(cat $lat)" = "$dfl"
set_sched "$dev" bfq
set_sched "$dev" mq-deadline
check "and so does switching to mq-deadline" \
	test "$(cat $state)" = 1 -a "$(cat $lat)" = "$dfl"
# A latency set by hand is kept by bfq and after it.
set_sched "$dev" bfq
echo 1500 > $lat
check "a latency written under bfq is kept (1500, on)" \
	test "$(cat $lat)" = 1500 -a "$(cat $state)" = 2
set_sched "$dev" none
check "and stays after bfq leaves" test "$(cat $lat)" = 1500
set_sched "$dev" bfq
check "a latency set by hand stays on when bfq is selected" \
	test "$(cat $lat)" = 1500 -a "$(cat $state)" = 2
set_sched "$dev" none
finish
