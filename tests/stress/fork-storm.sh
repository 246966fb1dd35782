# Stress 4: queue churn by a fork storm. Three shell loops spawn short-lived
# readers (busybox dd of 1-16 blocks at a random offset, direct or through
# the page cache) under `ionice -c <1..3> -n <0..7>`, as fast as they can,
# beside a verifying psync writer on another region. Each reader is a new
# process, so a new bfq queue that lives a few requests.
# Iterations: reader processes run (thousands in a long run).
. /tests/slib.sh
trap 'rm_nullb fs0 >/dev/null 2>&1' EXIT

load_bfq || die "cannot load bfq"
dev=$(s_nullb fs0 size=128 hw_queue_depth=4) || die "no null_blk"

fio_bg fs-w --filename=/dev/$dev $FIO_V --runtime=$(s_left) \
    --name=w --ioengine=psync --rw=randwrite --offset=96M --size=32M \
    --verify_backlog=32
wpid=$FIO_PID

# spawner K: readers until the time is up; its count in /tmp/fs.K, its
# failures in /tmp/fs.K.bad.
spawner() {
	local i=0 bad=0 fl
	while s_running; do
		fl=
		[ $((RANDOM % 2)) = 0 ] && fl=iflag=direct
		ionice -c $((1 + RANDOM % 3)) -n $((RANDOM % 8)) \
			dd if=/dev/$dev of=/dev/null bs=4k count=$((1 + RANDOM % 16)) \
			skip=$((RANDOM % 24000)) $fl 2>/dev/null || bad=$((bad + 1))
		i=$((i + 1))
	done
	echo $i > /tmp/fs.$1
	echo $bad > /tmp/fs.$1.bad
}
sp=
for k in 1 2 3; do spawner $k & sp="$sp $!"; done
wait $sp
for k in 1 2 3; do
	ITER=$((ITER + $(cat /tmp/fs.$k 2>/dev/null || echo 0)))
	b=$(cat /tmp/fs.$k.bad 2>/dev/null || echo "no count from")
	[ "$b" = 0 ] || s_err "spawner $k: $b reader(s) failed"
done
fio_collect fs-w $wpid verify
echo "$ITER readers spawned"
set_sched "$dev" none
rm_nullb fs0
s_finish
