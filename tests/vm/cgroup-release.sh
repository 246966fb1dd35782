# A removed cgroup goes at once when the device is idle, even if its last
# queue was the one in service.
#
# When the queue in service empties, nothing else waits and idling is not
# worth it (slice_idle 0 here), it stays in service, parked, until the
# next arrival: that saves an expiry and a selection per request. But a
# parked queue whose process exited keeps its group in service, and a
# removed cgroup could not be released until the device's next I/O: it
# stayed dying (cgroup.stat's nr_dying_descendants) with its memory.
#
# Rounds: a process in cgroup cgr/a reads one 4 KiB block with O_DIRECT
# (on its own; nothing else runs on the device) and exits; cgr/a is
# removed; within a second cgr's nr_dying_descendants must be 0 again,
# with the device left idle. Then a process in cgr/b writes through the
# page cache and syncs (async queues of the group), and cgr/b likewise.
# Only io is enabled below cgr: no page charged to a memory group keeps a
# removed group dying.
. /tests/lib.sh
P=$CG2/cgr
cleanup() {
	for d in $P/a $P/b; do
		[ -d $d ] || continue
		for p in $(cat $d/cgroup.procs); do echo $p > $CG2/cgroup.procs; done
		rmdir $d
	done
	rmdir $P
	rm_nullb cgr0
}
trap 'cleanup >/dev/null 2>&1' EXIT

load_bfq || die "loading the $VM_IMPL bfq failed"
cg2_io || die "no cgroup v2 io controller"
dev=$(mk_nullb cgr0 size=64 irqmode=2 completion_nsec=200000 \
	hw_queue_depth=1 submit_queues=1) || die "cannot create cgr0"
set_sched $dev bfq || die "cannot select bfq on $dev"
echo 0 > /sys/block/$dev/queue/iosched/slice_idle
mkdir $P || die "cannot create $P"
echo +io > $P/cgroup.subtree_control || die "cannot enable io in $P"

dying() { sed -n 's/^nr_dying_descendants //p' $P/cgroup.stat; }
in_time() { [ "$t" -ge 0 ] && [ "$t" -le 10 ]; }

# gone NAME CMD: run CMD in $P/NAME, remove the group, then wait up to a
# second for it to be released; prints the tenths of a second it took
# (11: not released).
gone() {
	local g=$P/$1 n=0
	shift
	mkdir $g || { echo -1; return; }
	sh -c "echo \$\$ > $g/cgroup.procs && exec $*" > /dev/null 2>&1
	rmdir $g || { echo -1; return; }
	while [ "$(dying)" != 0 ] && [ $n -le 10 ]; do
		usleep 100000
		n=$((n + 1))
	done
	echo $n
}

r=1
while [ $r -le 3 ]; do
	t=$(gone a dd if=/dev/$dev of=/dev/null bs=4k count=1 skip=$r iflag=direct)
	echo "round $r, a sync reader: released after ${t}00 ms (dying now: $(dying))"
	check "round $r: a removed group of a sync reader is released within 1 s" \
		in_time
	# Whatever stayed dying is released by the next I/O: start clean.
	dd if=/dev/$dev of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null
	r=$((r + 1))
done
t=$(gone b "dd if=/dev/zero of=/dev/$dev bs=4k count=16 conv=fsync")
echo "a buffered writer: released after ${t}00 ms (dying now: $(dying))"
check "a removed group of a buffered writer is released within 1 s" \
	in_time
finish
