# rmmod right after a cgroup's removal never runs module code that is gone.
#
# A group removed while a queue of ours held it is freed later: RCU, then
# a work item that calls our pd_free (rule 12 of bfq-cgroup.c). rmmod
# must not unload the module until that call has returned: if pd_free
# counted itself out and the module's exit saw the count reach 0, the
# module was freed while pd_free still ran (its wake-up, its own code).
#
# The test build (make TEST_HOOKS=1, shipped as /tests/bfq-hooks.ko)
# sleeps 300 ms in pd_free, in the work, before it lets the module go,
# which turns that window into one rmmod cannot miss. Rounds: insmod
# that build; a null_blk on bfq; one direct read from a process in a
# new cgroup; the cgroup removed and the device switched to none at once
# (every queue freed: the removed group's blkg goes to its delayed free);
# rmmod tried every 20 ms until it succeeds (EBUSY is fine, a module in
# use), at most 5 s; then 1 s more. No oops, no kernel report, and the
# module is gone. On 6.1 the removed group's free is that delayed work
# (rmmod needs retries: it waits for it); on 6.12 the blkg stays on the
# device's list until its free work has run, so the switch to none
# frees its part at once and rmmod needs none: there the test guards
# the unload after a removal, the race being 6.1's.
# vmtest-timeout: 120
. /tests/lib.sh
HK=/tests/bfq-hooks.ko
G=$CG2/rmr
unloaded() { ! bfq_loaded; }
cleanup() {
	[ -d $G ] && rmdir $G
	rm_nullb rmr0
}
trap 'cleanup >/dev/null 2>&1' EXIT

[ "$VM_BUILTIN" = 1 ] && skip "bfq is built into this kernel"
[ "$VM_IMPL" = ours ] || skip "a test of our module's unloading"
[ -f $HK ] || skip "no test build of bfq.ko (make KVER=... TEST_HOOKS=1)"
unload_bfq || die "cannot unload the bfq loaded before"
cg2_io || die "no cgroup v2 io controller"

r=1
while [ $r -le 3 ]; do
	insmod $HK test_pd_free_delay_ms=300 || die "insmod $HK failed"
	dev=$(mk_nullb rmr0 size=64 irqmode=2 completion_nsec=100000 \
		hw_queue_depth=4 submit_queues=1) || die "cannot create rmr0"
	set_sched $dev bfq || die "cannot select bfq on $dev"
	mkdir $G || die "cannot create $G"
	sh -c "echo \$\$ > $G/cgroup.procs &&
	       exec dd if=/dev/$dev of=/dev/null bs=4k count=4 iflag=direct" \
		2>/dev/null
	rmdir $G || die "rmdir $G failed"
	set_sched $dev none
	n=0
	until rmmod bfq 2>/dev/null; do
		n=$((n + 1))
		[ $n -le 250 ] || break
		usleep 20000
	done
	sleep 1
	echo "round $r: rmmod took $n retries ($((n * 20)) ms)"
	check "round $r: bfq unloaded" unloaded
	rm_nullb rmr0
	r=$((r + 1))
done
reports=$(dmesg | grep -cE 'BUG:|Oops|unable to handle|general protection|Call Trace')
check "no kernel report ($reports)" [ "$reports" = 0 ]
finish
