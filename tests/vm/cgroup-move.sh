# A process moved to another cgroup takes its queue along (rule 11 of
# bfq-cgroup.c), cgroup v2:
#   1. an application reading a little at a time (fio, psync, 20 random
#      reads/s), raised as it starts, is moved from group p to q 0.7 s
#      after its queue appears: at its
#      next reads its queue is still raised, and the raising goes on from
#      where it was (wr_left_ms in debugfs' queues went down by the time
#      that passed between the two readings, each bracketed by two clock
#      readings, 20 ms of rounding allowed), not from a new start; its
#      reads are counted in the new group;
#   2. a greedy reader in group a (weight 100) beside one in b (900) gets
#      about a ninth of what b gets; moved to c (900, b's sibling), it gets
#      about what b gets from its first read completed there on (the
#      ratio of c's bytes to b's over the next second between 0.3 and
#      2.5, and at least twice a's to b's over 2 s before the move, which
#      is under 0.4). The read it issued before the move was a's and
#      waits for a's turn, which at 100:900 comes about once a second
#      (turns of b's reader time out after ~125 ms): a queue moves with
#      its process at the process's next request, and a process that
#      reads one block at a time issues none while its read waits. A new
#      queue in c would start raised as a new application: 60 times b's.
#      (c is a group with no past: one served recently, alone, may have
#      to wait up to a budget's worth of virtual time, B-WF2Q+'s lag
#      bound, before its siblings catch up with it.)
# and no kernel report meanwhile. Part 2 is a share over one second under
# plain TCG: it runs in the full form only (VM_QUICK=0, make bench).
# Device: memory-backed null_blk, 1 ms timer completions, one-request
# hardware queue.
# vmtest-timeout: 150
. /tests/lib.sh
G=$CG2/cgmv
cleanup() {
	kill $P1 $P2 $P3 2>/dev/null
	wait
	for d in $G/p $G/q $G/a $G/b $G/c; do cg_empty $d $CG2; done
	rm_groups
	rm_nullb cgmv0
}
trap 'cleanup >/dev/null 2>&1' EXIT
P1= P2= P3=

load_bfq || die "insmod of the $VM_IMPL bfq.ko failed"
cg2_io || die "no cgroup v2 io controller"
dev=$(mk_nullb cgmv0 size=256 irqmode=2 completion_nsec=1000000 \
	hw_queue_depth=1 submit_queues=1) || die "cannot create cgmv0"
set_sched $dev bfq || die "cannot select bfq on $dev"
MM=$(cat /sys/block/$dev/dev)
grep -q " /sys/kernel/debug " /proc/mounts ||
	mount -t debugfs none /sys/kernel/debug
Q=/sys/kernel/debug/block/$dev/sched/queues
[ -r $Q ] || die "no $Q"
mkdir $G && echo +io > $G/cgroup.subtree_control || die "cannot make $G"
mkgroups p:100 q:100 a:100 b:900 c:900 || die "cannot make the groups"
k0=$(dmesg | wc -l)

# qline PID: the debugfs line of PID's sync queue (empty: none).
qline() { grep "^bfq$1S " $Q; }
# field LINE NAME: the NAME=value field of a queue's LINE.
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
# the pid of GROUP's process that has a sync queue (fio's job, not fio).
queue_pid() {
	local p
	for p in $(cat $G/$1/cgroup.procs); do
		[ -n "$(qline $p)" ] && { echo $p; return 0; }
	done
	return 1
}
# wait_queue GROUP: until a process of GROUP has a sync queue (<= 20 s)
wait_queue() {
	local i=0
	while [ $i -lt 100 ]; do
		queue_pid $1 && return 0
		usleep 200000
		i=$((i + 1))
	done
	return 1
}
# in_range X LO HI: X is a number in LO..HI
in_range() { [ -n "$1" ] && [ "$2" -le "$1" ] && [ "$1" -le "$3" ]; }
now_ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }
move_all() {
	for p in $(cat $G/$1/cgroup.procs); do
		echo $p > $G/$2/cgroup.procs || echo "cannot move $p to $2"
	done
}

# --- 1. raising goes on ---------------------------------------------------
echo 1 > /sys/block/$dev/queue/iosched/low_latency
cg_run $G/p fio --name=app --filename=/dev/$dev --rw=randread --bs=4k \
	--direct=1 --ioengine=psync --rate_iops=20 --time_based --runtime=8 \
	--output=/dev/null
P1=$!
pid=$(wait_queue p) || die "the application's queue did not appear"
# Far enough into its raising that a new one would show (a new queue
# would have ~0.7 s more left than the old one).
sleep 0.7
# Each reading of its queue's line between two clock readings: the time
# between the two readings of wr_left_ms is known to within those brackets.
b1=$(now_ms) q1=$(qline $pid) a1=$(now_ms)
move_all p q
sleep 0.3
b2=$(now_ms) q2=$(qline $pid) a2=$(now_ms)
echo "1: before the move: $q1"
echo "1: after the move:  $q2"
l1=$(field "$q1" wr_left_ms) c1=$(field "$q1" wr_coeff)
l2=$(field "$q2" wr_left_ms) c2=$(field "$q2" wr_coeff)
lo=$((l1 - (a2 - b1) - 20)) hi=$((l1 - (b2 - a1) + 20))
check "1: the application was raised before the move (coeff $c1, $l1 ms left)" \
	[ "${c1:-1}" -gt 1 ]
if [ $((l1 - (a2 - b1))) -gt 50 ]; then
	check "1: and after it (coeff ${c2:-none})" [ "${c2:-1}" -gt 1 ]
	check "1: its raising went on: $l1 ms left, then ${l2:-none} ms ($lo..$hi)" \
		in_range "$l2" $lo $hi
else
	echo "1: the guest took $((a2 - b1)) ms to read the queue twice, longer than the $l1 ms of raising left: raising after the move not measured"
fi
qrb=$(grp_rbytes q)
check "1: its reads are counted in the new group (${qrb:-0} bytes)" \
	[ "${qrb:-0}" -gt 0 ]
grep . /sys/kernel/debug/block/$dev/sched/groups | cut -c1-160
check "1: debugfs sched/groups lists both groups with their state" \
	sh -c "grep -q '^group path=/cgmv/p weight=[0-9]* state=' /sys/kernel/debug/block/$dev/sched/groups &&
	       grep -q '^group path=/cgmv/q weight=[0-9]* state=' /sys/kernel/debug/block/$dev/sched/groups"
kill $P1 2>/dev/null
wait $P1 2>/dev/null
cg_empty $G/q $CG2

# --- 2. the new group's share -------------------------------------------
if [ "${VM_QUICK:-0}" = 1 ]; then
	echo "2: the new group's share: in the full form (make bench)"
else
	cg_run $G/a fio --name=ra --filename=/dev/$dev --rw=randread --bs=4k \
		--direct=1 --ioengine=psync --time_based --runtime=30 \
		--offset=0 --size=64m --output=/dev/null
	P2=$!
	cg_run $G/b fio --name=rb --filename=/dev/$dev --rw=randread --bs=4k \
		--direct=1 --ioengine=psync --time_based --runtime=30 \
		--offset=64m --size=64m --output=/dev/null
	P3=$!
	wait_queue a >/dev/null && wait_queue b >/dev/null ||
		die "the readers' queues did not appear"
	sleep 3
	a0=$(grp_rbytes a) b0=$(grp_rbytes b)
	sleep 2
	a1=$(grp_rbytes a) b1=$(grp_rbytes b)
	move_all a c
	# Its read issued before the move waits for a's turn (once in about
	# a second at 100:900), then its next one goes to c.
	n=0
	while [ -z "$(grp_rbytes c)" ] && [ $n -lt 40 ]; do
		usleep 50000
		n=$((n + 1))
	done
	echo "2: first read completed in c $((n * 50)) ms after the move (<= 2000)"
	a2=$(grp_rbytes a) b2=$(grp_rbytes b) c2=$(grp_rbytes c)
	sleep 1
	a3=$(grp_rbytes a) b3=$(grp_rbytes b) c3=$(grp_rbytes c)
	before=$(awk -v a=$((a1 - a0)) -v b=$((b1 - b0)) 'BEGIN { printf "%.3f", b ? a / b : 99 }')
	after=$(awk -v c=$((${c3:-0} - ${c2:-0})) -v b=$((b3 - b2)) 'BEGIN { printf "%.3f", b ? c / b : 99 }')
	echo "2: KiB in 2 s: a $(((a1 - a0) / 1024)) b $(((b1 - b0) / 1024)); in the next 1 s: c $(((${c3:-0} - ${c2:-0}) / 1024)) b $(((b3 - b2) / 1024)) a $(((a3 - a2) / 1024))"
	if awk "BEGIN { exit !($after < 0.3) }"; then
		echo "2: little I/O in c: a holds $(cat $G/a/cgroup.procs | tr '\n' ' '), c $(cat $G/c/cgroup.procs | tr '\n' ' ')"
		cat $Q /sys/kernel/debug/block/$dev/sched/service_trees
	fi
	check "2: before the move a gets about a ninth of b's (a/b $before < 0.4)" \
		awk "BEGIN { exit !($before < 0.4) }"
	check "2: moved to c, from its first read there it gets about b's (c/b $after over 1 s in 0.3..2.5, at least twice a/b)" \
		awk "BEGIN { exit !($after >= 0.3 && $after <= 2.5 && $after >= 2 * $before) }"
	kill $P2 $P3 2>/dev/null
	wait
fi

r=$(dmesg_reports "$k0")
[ -z "$r" ] || echo "$r" | head -20
check "no kernel report during the run" [ -z "$r" ]
finish
