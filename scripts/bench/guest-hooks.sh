# Benchmark "hooks": what each elevator hook costs per request. One psync
# 4k random reader (fio, low_latency 0) on a null_blk that completes at
# once (irqmode=0), ours and mq-deadline (BENCH_SCHEDS: any of ours, base,
# stock, mq-deadline, kyber), each hook traced by the function_graph tracer
# over one short window: calls per request and the mean duration of a
# call. Only the hooks are patched (set_ftrace_filter), plus the functions
# named by HOOKS_FUNCS=a,b on the kernel command line (run.sh passes
# BENCH_APPEND), whose lines show indented under their caller: each traced
# call adds the tracer's own cost (~730 instructions on 6.12) to itself
# and to its traced caller. Meant for run.sh with
# VM_ICOUNT=shift=0,sleep=off, where the guest's clock counts
# instructions: a duration in ns is then instructions, repeatable to a
# few per cent whatever the host's load; under plain TCG it is host time.
. /tests/lib.sh
. /tests/guest-lib.sh
SECS=${BENCH_SECS:-1}
SCHEDS=$(bench_scheds ours mq-deadline)
EXTRA=
# HOOKS_JOBS=N and HOOKS_LL=0|1 on the kernel command line: N readers
# (a hook's time then includes waiting for the lock the other vCPU holds)
# and low_latency for both bfqs (readers started together are a burst).
# HOOKS_CNSEC=N: the device completes each request N ns after it took it
# (irqmode=2, 32 deep, as the lowlat rig), so readers wait for it and
# their queues empty between requests as under that rig's 10r-rand; the
# completions then come in interrupts, traced too. An interrupt that lands
# inside a hook (at its unlock, say) counts in that hook's time as well:
# there the per-hook times and their sum are upper bounds, and the nested
# lines ("+") tell where completions landed.
JOBS=1
LL=0
CNSEC=
for w in $(cat /proc/cmdline); do
	case "$w" in
	HOOKS_FUNCS=?*) EXTRA=$(echo "${w#*=}" | tr , ' ') ;;
	HOOKS_JOBS=[0-9]*) JOBS=${w#*=} ;;
	HOOKS_LL=[01]) LL=${w#*=} ;;
	HOOKS_CNSEC=[0-9]*) CNSEC=${w#*=} ;;
	esac
done
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T ||
	die "no tracefs"
devopts="irqmode=0"
[ -n "$CNSEC" ] &&
	devopts="irqmode=2 completion_nsec=$CNSEC hw_queue_depth=32"
dev=$(mk_nullb hk0 size=4096 memory_backed=0 $devopts submit_queues=1) ||
	die "cannot create hk0"

for r in $(seq $BENCH_ROUNDS); do
	for s in $SCHEDS; do
		use_sched $dev $s || continue
		ll=/sys/block/$dev/queue/iosched/low_latency
		[ -f $ll ] && echo $LL > $ll
		trace_reset 65536
		for f in $(elv_hooks $s) $EXTRA; do
			echo $f >> $T/set_ftrace_filter 2>/dev/null
		done
		echo function_graph > $T/current_tracer
		if [ -n "$CNSEC" ]; then
			echo funcgraph-irqs > $T/trace_options
		else
			echo nofuncgraph-irqs > $T/trace_options
		fi
		echo funcgraph-tail > $T/trace_options
		: > $T/trace
		n=$(traced_reads $dev $JOBS $SECS)
		# "  1)   0.731 us    |  bfq_has_work();" (a leaf), or
		# "  1)   2.512 us    |  }  /* bfq_insert_requests */" (closing
		# a call that had traced callees); depth from the indent.
		sed 's/^ *[0-9]*) *//' $T/trace | awk -v s=$s -v r=$r -v n=$n '
			/us +\|/ {
				d = $1; if (d == "+" || d == "!" || d == "#") d = $2
				line = $0; sub(/.*\| /, "", line)
				ind = match(line, /[^ ]/) - 1
				f = line; sub(/^ *} *\/\* */, "", f); sub(/ *\*\/.*/, "", f)
				sub(/^ */, "", f); sub(/\(\);$/, "", f); sub(/;$/, "", f)
				sub(/ \[[a-z_0-9]*\]/, "", f)
				key = (ind > 1 ? "+" : "") f
				t[key] += d; c[key]++
			}
			END {
				for (k in t)
					printf "HOOK %s %d %s %d %.0f\n", s, r, k, c[k], t[k] * 1000 / c[k]
				printf "HOOKREQ %s %d %d\n", s, r, n
			}' | tee -a /tmp/hooks.out
		[ $r = 1 ] && sed -n '1,30p' $T/trace
		echo nop > $T/current_tracer
		: > $T/set_ftrace_filter
		echo "round $r $s: $n reads traced"
	done
done

echo BENCH-TABLE-BEGIN
echo "hooks: psync 4k randread, $JOBS job(s), null_blk ${devopts}, low_latency $LL, ${SECS}s window, function_graph; calls a request and ns a call (instructions under -icount shift=0), medians of $BENCH_ROUNDS"
printf '%-12s %-34s %9s %9s %10s\n' scheduler function calls/req ns/call ns/req
for s in $SCHEDS; do
	# Read counts per round for this scheduler.
	grep "^HOOKREQ $s " /tmp/hooks.out > /tmp/hooks-req 2>/dev/null
	grep "^HOOK $s " /tmp/hooks.out | awk '{ print $4 }' | sort -u > /tmp/hooks-keys
	total=0
	while read -r k; do
		# per round: calls, ns/call
		grep "^HOOK $s [0-9]* $k [0-9]* [0-9]*$" /tmp/hooks.out > /tmp/hooks-k
		cpr=$(awk 'NR == FNR { req[$3] = $4; next } req[$3] > 0 { print $(NF - 1) / req[$3] }' /tmp/hooks-req /tmp/hooks-k | median)
		npc=$(awk '{ print $NF }' /tmp/hooks-k | median)
		npr=$(awk -v a=$cpr -v b=$npc 'BEGIN { printf "%.0f", a * b }')
		case "$k" in +*) ;; *) total=$((total + npr)) ;; esac
		awk -v s=$s -v k="$k" -v a=$cpr -v b=$npc -v c=$npr 'BEGIN {
			printf "%-12s %-34s %9.2f %9.0f %10d\n", s, k, a, b, c }'
	done < /tmp/hooks-keys
	printf '%-12s %-34s %9s %9s %10d\n' $s "all hooks" - - $total
done
echo BENCH-TABLE-END
set_sched $dev none; rm_nullb hk0; unload_bfq
exit 0
