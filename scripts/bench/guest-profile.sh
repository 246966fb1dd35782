# Benchmark "profile": where a request's instructions go inside the
# elevator's hooks, function by function. One psync 4k random reader
# (fio, low_latency PROFILE_LL, default 0) on a null_blk that completes
# at once (irqmode=0); the function_graph tracer follows every kernel
# function called under the hooks (set_graph_function) for one short
# window. For each function: calls a request and its self time a call
# (its duration less its traced callees' durations), then the tracer's
# own cost taken out: each traced call costs its caller about PROFILE_OVH
# ns (default 745, 6.12 under -icount) besides what shows in the
# callee's own duration, and a leaf's duration holds about PROFILE_LEAF
# (default 640) of the tracer's. Meant for run.sh with
# VM_ICOUNT=shift=0,sleep=off VM_SMP=1, where a duration in ns is
# instructions; the corrected figures are estimates (a few tens of
# instructions a call), the call counts exact.
# BENCH_SCHEDS: ours (default), base, stock, mq-deadline, kyber.
# PROFILE_JOBS=N readers (default 1); PROFILE_TIMER=NS null_blk completes
# each request NS ns after its dispatch, from a timer (irqmode=2; as
# cost's COST_TIMER: with several readers the turn changes at nearly
# every request), and the tracer then follows interrupts too, where
# the completions run.
. /tests/lib.sh
. /tests/guest-lib.sh
SECS=${BENCH_SECS:-0.3}
SCHEDS=$(bench_scheds ours)
LL=0
JOBS=1
NULLB=irqmode=0
OVH=1460
LEAF=725
for w in $(cat /proc/cmdline); do
	case "$w" in
	PROFILE_LL=[01]) LL=${w#*=} ;;
	PROFILE_OVH=[0-9]*) OVH=${w#*=} ;;
	PROFILE_LEAF=[0-9]*) LEAF=${w#*=} ;;
	PROFILE_SHOW=[0-9]*) PROFILE_SHOW=${w#*=} ;;
	PROFILE_JOBS=[0-9]*) JOBS=${w#*=} ;;
	PROFILE_TIMER=[0-9]*) NULLB="irqmode=2 completion_nsec=${w#*=}" ;;
	esac
done
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T ||
	die "no tracefs"
dev=$(mk_nullb pf0 size=4096 memory_backed=0 $NULLB submit_queues=1) ||
	die "cannot create pf0"

for s in $SCHEDS; do
	use_sched $dev $s || continue
	ll=/sys/block/$dev/queue/iosched/low_latency
	[ -f $ll ] && echo $LL > $ll
	trace_reset 131072
	for f in $(elv_hooks $s); do
		echo $f >> $T/set_graph_function
	done
	echo function_graph > $T/current_tracer
	if [ "$NULLB" = irqmode=0 ]; then
		echo nofuncgraph-irqs > $T/trace_options
	else
		echo funcgraph-irqs > $T/trace_options
	fi
	echo funcgraph-tail > $T/trace_options
	: > $T/trace
	n=$(traced_reads $dev $JOBS $SECS)
	echo "$s: $n reads in the window"
	# Lines: "  0)   0.731 us    |  f();" (a leaf), "  0)               |
	# f() {" (an entry), "  0)   2.512 us    |  } /* f */" (an exit).
	sed 's/^ *[0-9]*) *//; s/ \[[a-z_0-9]*\]//' $T/trace | awk -v n=$n -v ovh=$OVH -v leaf=$LEAF '
		function dur(   d) {
			d = $1; if (d == "+" || d == "!" || d == "#" || d == "*" || d == "@" || d == "$") d = $2
			return d * 1000
		}
		/\| *[a-z_A-Z0-9.]+\(\) \{$/ {
			f = $0; sub(/.*\| */, "", f); sub(/\(\) \{$/, "", f)
			sp++; name[sp] = f; kids[sp] = 0; nk[sp] = 0
			next
		}
		/us +\| *} / {
			if (sp < 1) next
			f = name[sp]; d = dur()
			self[f] += d - kids[sp] - nk[sp] * (ovh - leaf) - leaf
			calls[f]++; kidc[f] += nk[sp]
			sp--
			if (sp > 0) { kids[sp] += d; nk[sp]++ }
			next
		}
		/us +\| *[a-z_A-Z0-9.]+\(\);$/ {
			f = $0; sub(/.*\| */, "", f); sub(/\(\);$/, "", f)
			d = dur()
			self[f] += d - leaf; calls[f]++
			if (sp > 0) { kids[sp] += d; nk[sp]++ }
			next
		}
		END {
			for (f in calls)
				printf "PROF %s %.2f %.0f %.0f %.2f\n", f, calls[f] / n, self[f] / calls[f], self[f] / n, kidc[f] / calls[f]
		}' | sort -k5 -n -r > /tmp/prof-$s
	# One request's calls, for the log (PROFILE_SHOW=N: N lines).
	[ "${PROFILE_SHOW:-0}" -gt 0 ] &&
		sed 's/^ *[0-9]*) *//' $T/trace | grep -v 'irq\|rcu\|softirq' |
		sed -n "2000,$((2000 + PROFILE_SHOW))p"
	echo nop > $T/current_tracer
	: > $T/set_graph_function
done

echo BENCH-TABLE-BEGIN
echo "profile: psync 4k randread, $JOBS job(s), null_blk $NULLB, low_latency $LL, ${SECS}s window; self time under the hooks, tracer's cost taken out (~$OVH a traced call, ~$LEAF in a leaf); ns are instructions under -icount shift=0"
for s in $SCHEDS; do
	printf '%-12s %-40s %9s %9s %9s %9s\n' scheduler function calls/req self/call self/req kids/call
	awk -v s=$s '{ printf "%-12s %-40s %9s %9s %9s %9s\n", s, $2, $3, $4, $5, $6; t += $5 }
		END { printf "%-12s %-40s %9s %9s %9.0f\n", s, "all", "-", "-", t }' /tmp/prof-$s
done
echo BENCH-TABLE-END
set_sched $dev none; rm_nullb pf0; unload_bfq
exit 0
