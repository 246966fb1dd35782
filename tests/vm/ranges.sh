# Multi-actuator disks (rule 5 of bfq-inject.c): an actuator the device
# holds nothing for gets a waiting request of another queue, while the
# queue in service reads in another range or is idled for there.
#
# No emulated disk reports independent access ranges, so the test build
# (make TEST_HOOKS=1, /tests/bfq-hooks.ko) gives a null_blk two, through
# debugfs sched/test_ranges, and bfq reads them when selected again.
# null_blk serves requests in parallel whatever their sectors, as two
# actuators serve their ranges. Two psync readers, low_latency 0: A reads
# sequentially in the first half at ioprio BE0, B at random in the second
# half at BE7. Their weights differ, so the device idles for A when it
# empties and B gets its weight's share of turns. Asserted, rounds of 4 s
# with the ranges and without, alternated, medians:
#   - with the ranges B reads at least twice as much as without;
#   - A keeps at least 80% of what it reads without;
#   - sched/rate shows the ranges and the requests dispatched for them.
# Device: null_blk, 1 ms timer completions, 4 requests at a time.
# make check runs it under -icount: on plain TCG the guest's CPU, shared by
# both readers' requests and a busy host, took A under 80%.
# vmtest-timeout: 150
. /tests/lib.sh
HK=/tests/bfq-hooks.ko
cleanup() {
	kill $P1 $P2 2>/dev/null
	wait
	rm_nullb rng0
}
trap 'cleanup >/dev/null 2>&1' EXIT
P1= P2=

[ "$VM_BUILTIN" = 1 ] && skip "bfq is built into this kernel (no test build)"
[ "$VM_IMPL" = ours ] || skip "a test of our test build's hook"
[ -f $HK ] || skip "no test build of bfq.ko (make KVER=... TEST_HOOKS=1)"
unload_bfq || die "cannot unload the bfq loaded before"
insmod $HK || die "insmod $HK failed"
dev=$(mk_nullb rng0 size=2048 memory_backed=0 irqmode=2 \
	completion_nsec=1000000 hw_queue_depth=4 submit_queues=1) ||
	die "cannot create rng0"
grep -q " /sys/kernel/debug " /proc/mounts ||
	mount -t debugfs none /sys/kernel/debug
D=/sys/kernel/debug/block/$dev/sched
k0=$(dmesg | wc -l)

# ranges N: give the disk N ranges (0: none) and select bfq again.
ranges() {
	set_sched $dev bfq || return 1
	echo $1 > $D/test_ranges || return 1
	set_sched $dev none && set_sched $dev bfq || return 1
	echo 0 > /sys/block/$dev/queue/iosched/low_latency
	[ "$(cat $D/test_ranges)" = "$1" ]
}
# round: A's and B's KiB over 4 s, "A B".
round() {
	ionice -c2 -n0 fio --name=a --filename=/dev/$dev --direct=1 \
		--ioengine=psync --rw=read --bs=4k --size=1g --time_based \
		--runtime=4 --output-format=terse --output=/tmp/a.t &
	P1=$!
	ionice -c2 -n7 fio --name=b --filename=/dev/$dev --direct=1 \
		--ioengine=psync --rw=randread --bs=4k --offset=1g --size=1g \
		--time_based --runtime=4 --output-format=terse \
		--output=/tmp/b.t &
	P2=$!
	wait $P1 $P2
	P1= P2=
	echo "$(cut -d';' -f6 /tmp/a.t) $(cut -d';' -f6 /tmp/b.t)"
}

with_a= with_b= without_a= without_b= inj=0
for r in 1 2 3; do
	ranges 0 || die "cannot clear the ranges"
	set -- $(round)
	without_a="$without_a $1" without_b="$without_b $2"
	echo "round $r without ranges: A $1 KiB, B $2 KiB"
	ranges 2 || die "cannot give $dev two ranges"
	grep -q "^ranges nr=2 " $D/rate || die "sched/rate does not show 2 ranges"
	set -- $(round)
	with_a="$with_a $1" with_b="$with_b $2"
	n=$(sed -n 's/^ranges nr=2 injected=\([0-9]*\).*/\1/p' $D/rate)
	inj=$((inj + ${n:-0}))
	echo "round $r with 2 ranges: A $1 KiB, B $2 KiB ($n dispatched for an idle range)"
done
ma=$(echo $without_a | median) mb=$(echo $without_b | median)
wa=$(echo $with_a | median) wb=$(echo $with_b | median)
echo "medians: without A $ma B $mb KiB; with A $wa B $wb KiB"
check "requests were dispatched for an idle range ($inj)" [ "$inj" -gt 0 ]
check "B reads >= 2x with the ranges ($wb vs $mb KiB)" \
	[ "$wb" -ge $((2 * mb)) ]
check "A keeps >= 80% with the ranges ($wa vs $ma KiB)" \
	[ $((wa * 10)) -ge $((ma * 8)) ]
ranges 0
set_sched $dev none
dmesg_reports $k0 && fail "kernel reports in dmesg"
finish
