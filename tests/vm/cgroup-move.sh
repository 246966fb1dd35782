# A process moved to another cgroup takes its queue along (rule 11 of
# bfq-cgroup.c), cgroup v2:
#   1. an application reading a little at a time (fio, psync, 20 random
#      reads/s), raised as interactive as it starts and soon as soft real
#      time too (coeff 90, 300 ms renewed at each read, the interactive
#      raising suspended under it: rule 3 of bfq-wr.c), is moved from
#      group p to q 0.7 s after its queue appears. Its raisings are read
#      from the kernel's trace (bfq_wr_start, bfq_wr_end, and the device's
#      completions; clock "mono"), so that no check depends on how soon
#      the guest reads debugfs (a soft real-time raising has less left
#      than the guest may take to read it twice). With E the end of the
#      interactive raising in effect at the move:
#      - no raising of its queue ends between the move and E (its queue
#        is not freed, its raising not ended, nor replaced by one without
#        the interactive raising it suspended);
#      - no interactive raising starts after the move that ends later
#        than E (a raising begun again, or a new queue's), unless the
#        application had done no I/O for 2 s before it (rule 1 of
#        bfq-wr.c: a guest stalled that long by its host pauses it too);
#      - its debugfs line read at its first read in q says it is raised
#        (checked whenever that is before E, or it still shows raised),
#        and an interactive raising there has E less the time of the
#        reading left (20 ms of rounding; the reading is bracketed by
#        trace markers), a soft real-time one at most 300 ms;
#      - its first read after the move completes within 1 s of it, at
#        least 10 of its reads (20 asked) complete in the second after
#        it, and those reads are counted in q's io.stat, none more in p;
#   2. a greedy reader in group a (weight 100) beside one in b (900) gets
#      about a ninth of what b gets; moved to c (900, b's sibling), its
#      first read in c completes within 2 s and it gets about what b gets
#      from then on (the
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
	[ -z "$T" ] || trace_off
	for d in $G/p $G/q $G/a $G/b $G/c; do cg_empty $d $CG2; done
	rm_groups
	rm_nullb cgmv0
}
trap 'cleanup >/dev/null 2>&1' EXIT
P1= P2= P3= T=

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
# Recorded by the kernel, so that nothing depends on how soon the guest
# gets to read debugfs: the raisings of the application's queue
# (bfq_wr_start: interactive or soft_rt, coeff, duration; bfq_wr_end:
# why, after how long), the device's completions (block_rq_complete) and
# markers the test writes around the move and around its reading of the
# queue's line, on the trace clock "mono", ktime_get_ns()'s, which
# debugfs' wr_left_ms is computed with too.
T=/sys/kernel/tracing
[ -d $T/events ] || T=/sys/kernel/debug/tracing
[ -d $T/events/bfq/bfq_wr_start ] || die "no bfq_wr_start tracepoint in $T"
clk0=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $T/trace_clock)
mark() { echo "cgmv $1" > $T/trace_marker; }
trace_off() {
	echo 0 > $T/tracing_on
	for e in bfq/bfq_wr_start bfq/bfq_wr_end block/block_rq_complete; do
		echo 0 > $T/events/$e/enable
	done
	echo ${clk0:-local} > $T/trace_clock
	echo 1 > $T/tracing_on
}
echo 0 > $T/tracing_on
echo mono > $T/trace_clock || die "no trace clock mono"
: > $T/trace
for e in bfq/bfq_wr_start bfq/bfq_wr_end block/block_rq_complete; do
	echo 1 > $T/events/$e/enable || die "cannot enable event $e"
done
echo 1 > $T/tracing_on

echo 1 > /sys/block/$dev/queue/iosched/low_latency
cg_run $G/p fio --name=app --filename=/dev/$dev --rw=randread --bs=4k \
	--direct=1 --ioengine=psync --rate_iops=20 --time_based --runtime=8 \
	--output=/dev/null
P1=$!
pid=$(wait_queue p) || die "the application's queue did not appear"
# Into its raising, so that a new one would end later than this one.
sleep 0.7
q1=$(qline $pid)
# The application's process first, between the markers, then the others
# (fio's parent): each write to cgroup.procs can take a while here.
mark move
echo $pid > $G/q/cgroup.procs || echo "cannot move $pid to q"
mark moved
prb=$(grp_rbytes p)
move_all p q
mark others
# Its next read goes to q: wait for it (<= 2 s), then read the queue's
# line between two markers.
n=0
while [ -z "$(grp_rbytes q)" ] && [ $n -lt 40 ]; do
	usleep 50000
	n=$((n + 1))
done
mark read0
q2=$(qline $pid)
mark read1
# One second of its I/O after the move, and a little more.
sleep 1.3
echo 0 > $T/tracing_on
cp $T/trace /tmp/cgmv.trace
trace_off
qrb=$(grp_rbytes q) prb2=$(grp_rbytes p)
echo "1: before the move: $q1"
echo "1: first read in q: $q2"
# The trace as lines "T_MS what...": mark NAME; start KIND COEFF DUR_MS
# and end WHY AFTER_MS of the application's queue; done (a completion
# on the device, where only the application reads).
awk -v q="bfq$pid" -v mm="$(echo $MM | tr : ,)" '
{
	for (i = 1; i < NF; i++)
		if ($i ~ /^[0-9]+\.[0-9]+:$/)
			break
	if (i >= NF)
		next
	t = $i; sub(/:$/, "", t); t = sprintf("%.3f", t * 1000)
	e = $(i + 1)
	if (e == "tracing_mark_write:" && $(i + 2) == "cgmv")
		print t, "mark", $(i + 3)
	else if ($(i + 2) != mm)
		next
	else if (e == "block_rq_complete:")
		print t, "done"
	else if (e == "bfq_wr_start:" && $(i + 3) == q) {
		c = $(i + 5); sub(/coeff=/, "", c)
		d = $(i + 6); sub(/duration=/, "", d); sub(/ms$/, "", d)
		print t, "start", $(i + 4), c, d
	} else if (e == "bfq_wr_end:" && $(i + 3) == q) {
		a = $(i + 5); sub(/after=/, "", a); sub(/ms$/, "", a)
		print t, "end", $(i + 4), a
	}
}' /tmp/cgmv.trace > /tmp/cgmv.ev
echo "1: the application's raisings, the markers and the first completions after the move (ms):"
# (soft real-time renewals in a row as one line, with their count)
awk '
function flush() { if (rn) print rl (rn > 1 ? " (x" rn ", the last at " rt ")" : ""); rn = 0 }
$2 == "start" && $3 == "soft_rt" { if (!rn) rl = $0; rn++; rt = $1; next }
$2 == "done" && !(m && k++ < 3) { next }
{ flush(); print }
$2 == "mark" && $3 == "moved" { m = 1 }
END { flush() }' /tmp/cgmv.ev
# ev_t WHAT [ARG]: the time of the first such line ("" if none).
ev_t() { awk -v w="$1" -v a="$2" '$2 == w && (a == "" || $3 == a) { print $1; exit }' /tmp/cgmv.ev; }
tm=$(ev_t mark move) tmd=$(ev_t mark moved)
tr0=$(ev_t mark read0) tr1=$(ev_t mark read1)
[ -n "$tm" ] && [ -n "$tmd" ] && [ -n "$tr0" ] && [ -n "$tr1" ] ||
	die "1: a marker is missing from the trace"
# E: the end of the interactive raising in effect at the move, that of
# the last interactive start before it (the queue's birth, or a pause of
# 2 s: a guest the host stalls that long pauses its processes too).
E=$(awk -v m=$tm '$2 == "start" && $3 == "interactive" && $1 < m { e = $1 + $5 } END { printf "%.3f", e }' /tmp/cgmv.ev)
# fcmp A OP B: a comparison of decimals; ms EXPR: its integer value.
fcmp() { awk "BEGIN { exit !($1 $2 $3) }"; }
ms() { awk "BEGIN { printf \"%d\", $1 }"; }
echo "1: moved at $tm..$tmd ($(ms "$tmd - $tm") ms), its interactive raising ends at $E ($(ms "$E - $tm") ms after the move); its line read at $tr0..$tr1"
check "1: the application was raised as it started (an interactive raising in the trace before the move)" \
	fcmp "$E" ">" 0
check "1: and when it moved (its debugfs line before: coeff $(field "$q1" wr_coeff), $(field "$q1" wr_left_ms) ms left)" \
	[ "$(field "$q1" wr_coeff)" -gt 1 ]
# Not lost: no raising of its queue ended after the move before E (its
# queue freed, as one that holds nothing of the old group must not be;
# the raising ended, or replaced without the interactive one it
# suspended): a soft real-time raising that lapses before E gives the
# interactive one back, which shows as a start of the time left.
lost=$(awk -v m=$tm -v e=$E '$2 == "end" && $1 > m && $1 < e - 10' /tmp/cgmv.ev)
check "1: no raising of its queue ended after the move before E${lost:+: $lost}" \
	[ -z "$lost" ]
# Not restarted: no interactive raising started after the move ends
# later than E (one resumed after a soft one names the time left; a soft
# real-time one, renewed per batch, lasts 300 ms), unless the
# application had done no I/O for 2 s before it (rule 1 of bfq-wr.c, a
# new task). A new queue, or the old one raised again from scratch,
# starts one of the full duration at its first read after the move.
fresh=$(awk -v m=$tm -v e=$E '
	$2 == "done" { last = $1 }
	$2 == "start" && $1 > m && $3 == "interactive" && $1 + $5 > e + 10 &&
	    $1 - last < 2000' /tmp/cgmv.ev)
check "1: its raising was not started again after the move${fresh:+: $fresh}" \
	[ -z "$fresh" ]
# Still raised at its first read in q, seen in debugfs; an interactive
# raising shows E less the time of the reading. Guaranteed while the
# interactive raising runs; after E, a soft real-time one may have lapsed.
c2=$(field "$q2" wr_coeff) l2=$(field "$q2" wr_left_ms) s2=$(field "$q2" soft_rt)
if fcmp "$tr1" "<" "$E - 20" || [ "${c2:-1}" -gt 1 ]; then
	check "1: raised at its first read in q (coeff ${c2:-none}, soft_rt ${s2:-none}, ${l2:-none} ms left)" \
		[ "${c2:-1}" -gt 1 ]
	if [ "$s2" = 0 ]; then
		lo=$(ms "$E - $tr1 - 20") hi=$(ms "$E - $tr0 + 20")
		check "1: the interactive raising it shows ends at E ($l2 ms left, in $lo..$hi)" \
			in_range "$l2" $lo $hi
	else
		check "1: a soft real-time raising shows at most its 300 ms" \
			in_range "${l2:-none}" 0 300
	fi
else
	echo "1: its first read in q was read $(ms "$tr1 - $E") ms after its interactive raising's end, unraised: not measured (the trace's checks above hold)"
fi
# Its I/O goes on: the first read completed after the move, and the
# reads of the second after the move (20 a second asked), all in q.
first=$(awk -v m=$tmd '$2 == "done" && $1 > m { print $1; exit }' /tmp/cgmv.ev)
n1=$(awk -v m=$tmd '$2 == "done" && $1 > m && $1 <= m + 1000' /tmp/cgmv.ev | wc -l)
nall=$(awk -v m=$tmd '$2 == "done" && $1 > m' /tmp/cgmv.ev | wc -l)
check "1: its first read after the move completed within 1 s ($(ms "${first:-1e9} - $tmd") ms)" \
	fcmp "${first:-1e9}" "<=" "$tmd + 1000"
check "1: and its I/O went on: $n1 reads completed in the second after the move (>= 10)" \
	[ "$n1" -ge 10 ]
check "1: its reads after the move are counted in q ($nall completed after it; q $((${qrb:-0} / 4096)); p $((${prb:-0} / 4096)) when it moved, $((${prb2:-0} / 4096)) at the end)" \
	sh -c "[ $((${qrb:-0} / 4096)) -ge $((nall - 1)) ] && [ $((${prb2:-0} - ${prb:-0})) -le 4096 ]"
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
	check "2: its first read in c completed $((n * 50)) ms after the move (<= 2000: the read it issued before waits for a's turn, about once a second)" \
		[ -n "$(grp_rbytes c)" ]
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
