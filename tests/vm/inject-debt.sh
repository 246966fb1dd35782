# Every turn dispatches: a queue that owes injected service (rule 3 of
# bfq-inject.c) pays at most a budget at the start of a turn and still
# sends its first request, and it never owes more than a few budgets.
#
# Were the debt paid before the first request with nothing left for it,
# the turn would expire as budget-exhausted at once and the same queue be
# selected again, once per budget owed, in one dispatch call with the
# lock held and interrupts off (with max_budget=1 and a large debt, for
# millions of rounds). The rig makes debts: max_budget=8 (one 4 KiB
# request a turn), two random readers at 4 requests each (libaio) on a
# rotational scsi_debug disk with 200 us of service time, low_latency 1.
# Every request is far, so the device never shows near ones to compare
# and seeks count as costly: bfq-inject.c's rule 6 serves the seeky
# queues by position, and a request of the queue not in service taken so
# is paid like an injected one. Two sequential readers at one request
# each, idled for and injected into (the rig until 2026-12-07), made no
# debt in about half the boots: a one-request turn expires when its next
# request comes, so that request never goes out as the idled-for probe,
# the injection base (rule 2) is never measured and nothing is injected.
#
# The trace of bfq_expire and bfq_dispatch shows a turn that dispatched
# nothing as a budget expiry right after another expiry. There must be
# none; the reader's I/O must go on (both readers progress). The trace
# runs on the counter clock: both readers' CPUs dispatch and expire, and
# the per-CPU clocks under TCG can print a dispatch after the expiry that
# followed it on the other CPU (a make check on a loaded host saw 6 such
# single "empty" turns among 2,444; docs/results/
# 2026-11-27-core-strict-trace-clock.md).
. /tests/lib.sh
T=/sys/kernel/tracing
[ -d $T/events ] || T=/sys/kernel/debug/tracing
cleanup() {
	echo 0 > $T/tracing_on 2>/dev/null
	echo 0 > $T/events/bfq/enable 2>/dev/null
	echo local > $T/trace_clock 2>/dev/null
	for q in /sys/block/sd*/queue/scheduler; do echo none > $q; done 2>/dev/null
	sdebug_unload 2>/dev/null
}
trap cleanup EXIT

load_bfq || die "loading the $VM_IMPL bfq failed"
[ -d $T/events/bfq/bfq_expire ] || skip "no bfq tracepoints in $T"
sdebug_load dev_size_mb=64 max_queue=8 delay=0 ndelay=200000 ||
	die "loading scsi_debug failed"
# Built in (the debug kernel), the boot's parameters hold: set the delay.
[ ! -w $SDEBUG_SYS/ndelay ] || echo 200000 > $SDEBUG_SYS/ndelay
dev=$(sdebug_disk) || die "no scsi_debug disk appeared"
Q=/sys/block/$dev/queue
echo 1 > $Q/rotational
set_sched $dev bfq || die "cannot select bfq on $dev"
echo 8 > $Q/iosched/max_budget || die "max_budget=8 refused"
echo 1 > $Q/iosched/low_latency
majmin=$(tr : , < /sys/block/$dev/dev)

echo 0 > $T/tracing_on
echo counter > $T/trace_clock || die "no counter trace clock"
: > $T/trace
echo 16384 > $T/buffer_size_kb
echo 1 > $T/events/bfq/bfq_expire/enable
echo 1 > $T/events/bfq/bfq_dispatch/enable
echo 1 > $T/tracing_on
fio --name=a --filename=/dev/$dev --direct=1 --ioengine=libaio --iodepth=4 --rw=randread \
    --bs=4k --size=24M --offset=0 --runtime=4 --time_based \
    --name=b --filename=/dev/$dev --direct=1 --ioengine=libaio --iodepth=4 --rw=randread \
    --bs=4k --size=24M --offset=32M --runtime=4 --time_based \
    --output-format=terse --terse-version=3 --output=/tmp/fio.terse
rc=$?
echo 0 > $T/tracing_on
grep " $majmin " $T/trace > /tmp/trace.txt

# Field 7 of terse v3: a job's read KiB.
ios=$(cut -d';' -f3,7 /tmp/fio.terse | tr '\n' ' ')
echo "fio exit $rc; jobs (name;KiB read): $ios"
check "fio exited 0 ($rc)" [ $rc = 0 ]
both_read() {
	[ "$(awk -F';' '$7 > 0' /tmp/fio.terse | wc -l)" = 2 ]
}
check "both readers read" both_read

nexp=$(grep -c ' bfq_expire: ' /tmp/trace.txt)
ndisp=$(grep -c ' bfq_dispatch: ' /tmp/trace.txt)
# An expiry for "budget" whose previous event was an expiry too: a turn
# that dispatched nothing. The longest run of them in a row is the spin.
set -- $(awk '
	/ bfq_expire: / {
		if ($0 ~ / budget_exhausted / && last == "expire") {
			empty++; run++; if (run > longest) longest = run
		} else run = 0
		last = "expire"; next
	}
	/ bfq_dispatch: / { last = "dispatch"; run = 0 }
	END { print empty + 0, longest + 0 }' /tmp/trace.txt)
empty=$1 longest=$2
echo "trace: $nexp expiries, $ndisp dispatches; budget expiries with no dispatch in their turn: $empty, at most $longest in a row"
grep ' bfq_expire: ' /tmp/trace.txt | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^(empty|idle_timeout|budget_exhausted|budget_timeout|preempted)$/) n[$i]++ }
	END { for (r in n) printf "%s=%d ", r, n[r]; print "" }' | sed 's/^/expiry reasons: /'
# An injected dispatch is traced against a budget of 0 (bfq_dispatch_beside()).
ninj=$(grep -c ' bfq_dispatch: .*/0$' /tmp/trace.txt)
echo "injected dispatches: $ninj"
check "the trace has turns ($nexp expiries, $ndisp dispatches)" [ "$nexp" -gt 100 ]
check "requests were injected, and owed ($ninj)" [ "$ninj" -gt 0 ]
check "every budget-exhausted turn dispatched a request ($empty did not)" [ "$empty" = 0 ]
finish
