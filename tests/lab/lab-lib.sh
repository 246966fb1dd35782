# Guest-side helpers of the lab (busybox sh), sourced by tests/lab/*.sh
# after /tests/lib.sh and /tests/guest-lib.sh (the VM lab's and the
# benchmarks' helpers). Shipped as /tests/lab-lib.sh with the static
# /tests/diskmodel (tests/lab/diskmodel.c).
#
# The device: the disk model (or the SSD model) on /dev/nbd0, or, when
# LAB_DEV is set (a real disk, e.g. LAB_DEV=sdb), that disk as it is.
#   lab_start [diskmodel options]  attach the model (default: the 7200 rpm
#                          disk, 500 GB, rates x0.25), queue/rotational set
#                          to match; sets DEV (e.g. nbd0) and DEV_BYTES
#   lab_stop               detach it (once); prints its statistics
#   lab_sched S            S: ours, stock (our or the stock bfq.ko's bfq),
#                          bfq, mq-deadline, kyber, none
#   lab_scheds             the schedulers an experiment compares, one line
#   lab_table NAME         start a table (LAB-TABLE-BEGIN NAME); lab_end;
#                          lab_done ends it and the script
#   lab_data EXP K=V...    one machine-readable result (LAB-DATA lines),
#                          read by tests/lab/report.py
#   lab_cold               drop the page cache
#   lab_fio ARGS           fio with terse output to /tmp/lab.t; prints
#                          nothing; lab_kib FIELD / lab_t FIELD read it
#   ci95 / mean            of the numbers on stdin
LAB_SCHEDS=${LAB_SCHEDS:-"ours stock mq-deadline kyber none"}
LAB_MODEL=/tests/diskmodel
DEV= DEV_BYTES= LAB_ON=

lab_start() {
	if [ -n "${LAB_DEV:-}" ]; then
		DEV=$LAB_DEV
	else
		[ -e /sys/module/nbd ] || modprobe nbd nbds_max=2 max_part=0 ||
			die "no nbd module"
		DEV=nbd0
		$LAB_MODEL -S /tmp/lab-stats "$@" /dev/$DEV > /tmp/lab-pids ||
			die "diskmodel $* failed"
		LAB_ON=1
		case " $* " in
		*" -m ssd "*) echo 0 > /sys/block/$DEV/queue/rotational ;;
		*) echo 1 > /sys/block/$DEV/queue/rotational ;;
		esac
	fi
	DEV_BYTES=$(( $(cat /sys/block/$DEV/size) * 512 ))
}

lab_stop() {
	[ -n "$LAB_ON" ] || return 0
	LAB_ON=
	set_sched $DEV none 2>/dev/null
	rm -f /tmp/lab-stats
	$LAB_MODEL -x /dev/$DEV
	# The server writes its statistics when it sees the disconnect.
	for i in 1 2 3 4 5 6 7 8 9 10; do
		[ -s /tmp/lab-stats ] && break
		sleep 0.2
	done
	[ -s /tmp/lab-stats ] && echo "model: $(cat /tmp/lab-stats)"
	# The client clears the device's socket as it exits: done after the
	# next model attached, it cut that one off (6.1, exp6's second model:
	# "no filesystem on nbd0"). Wait for both processes to be gone.
	for i in $(seq 50); do
		alive=
		for p in $(cat /tmp/lab-pids 2>/dev/null); do
			kill -0 "$p" 2>/dev/null && alive=1
		done
		[ -n "$alive" ] || break
		sleep 0.1
	done
	return 0
}

lab_sched() {
	case "$1" in
	ours|stock) use_sched $DEV "$1" ;;
	*) [ "$1" = kyber ] && modprobe kyber-iosched 2>/dev/null
	   set_sched $DEV "$1" ||
		{ echo "BENCH-ERROR cannot select $1 on $DEV"; return 1; } ;;
	esac
}

# Commas too: LAB_GUEST_ENV reaches the guest on the kernel command line,
# where a value cannot hold a space.
lab_scheds() { echo "$LAB_SCHEDS" | tr ',' ' '; }

lab_table() { echo "LAB-TABLE-BEGIN $1"; }
lab_end() { echo "LAB-TABLE-END"; }
# lab_done: end the table, unload bfq, detach the model, report the checks.
lab_done() { lab_end; unload_bfq; lab_stop; finish; }
lab_data() { local e=$1; shift; echo "LAB-DATA $e $*"; }

lab_cold() { sync; echo 3 > /proc/sys/vm/drop_caches; }

# lab_fs MNT: ext4 on the whole device, few inodes and a small journal
# (all zeroed now: no lazy-init I/O later), mounted on MNT, with a
# background's files MNT/bg/r0-r9 and w0-w4, 32 MiB each, written one
# after another (experiments 6 and 7).
lab_fs() {
	local i
	modprobe ext4 || return 1
	/usr/sbin/mke2fs -q -F -t ext4 -N 65536 -J size=32 \
		-E lazy_itable_init=0,lazy_journal_init=0 /dev/$DEV >/dev/null || return 1
	mkdir -p $1 && mount -t ext4 /dev/$DEV $1 || return 1
	mkdir -p $1/bg
	for i in 0 1 2 3 4 5 6 7 8 9; do /tests/lowlat fill $1/bg/r$i 32 || return 1; done
	for i in 0 1 2 3 4; do /tests/lowlat fill $1/bg/w$i 32 || return 1; done
}

# lab_bg_stop: interrupt the background fio started as $BGPID, if any.
lab_bg_stop() {
	[ -n "$BGPID" ] || return 0
	kill -INT $BGPID 2>/dev/null; wait $BGPID 2>/dev/null
	BGPID=
}

# fio terse v3: 6 read KiB, 7 read KiB/s, 8 read IOPS, 16 read clat mean
# (us), 47 write KiB, 48 write KiB/s.
lab_fio() { fio --output-format=terse --terse-version=3 --output=/tmp/lab.t "$@"; }
lab_t() { cut -d';' -f"$1" /tmp/lab.t | head -1; }

# Busybox awk has no math library: sqrt by Newton's method, for the
# awk programs that compute confidence intervals ($LAB_AWK_SQRT first).
LAB_AWK_SQRT='function sqrt_(x,  r, i) { if (x <= 0) return 0; r = x < 1 ? 1 : x
	for (i = 0; i < 100; i++) r = (r + x / r) / 2; return r }'

mean() { awk '{ s += $1; n++ } END { if (n) printf "%.2f\n", s / n; else print "nan" }'; }
# ci95: the half-width of the 95% confidence interval of the mean
# (Student's t for n-1 degrees of freedom, n <= 10; 1.96 beyond).
ci95() {
	awk "$LAB_AWK_SQRT"'{ v[++n] = $1; s += $1 }
	END {
		if (n < 2) { print "nan"; exit }
		split("12.71 4.30 3.18 2.78 2.57 2.45 2.36 2.31 2.26", t, " ")
		m = s / n
		for (i = 1; i <= n; i++) q += (v[i] - m) * (v[i] - m)
		printf "%.2f\n", ((n - 1 <= 9) ? t[n - 1] : 1.96) * sqrt_(q / (n - 1) / n)
	}'
}

# lab_readers SECS BS SPEC...: one sequential reader per SPEC, each
# reading BS-sized O_DIRECT requests one at a time (psync: a synchronous
# reader, the case bfq's idling is for) over the 128 MiB from byte OFF.
# SPEC is OFF, OFF@W (the reader in cgroup v2 group labN with
# io.bfq.weight W) or OFF%P (ionice best-effort level P). Prints the KiB
# each reader read, in order, on one line, all counted over one window of
# SECS seconds that opens once every reader runs: under TCG the fio
# processes start up to a second apart, and a reader that runs alone
# before the others start (or after they stop) at the device's full speed
# skews a 5 s share by up to ~15%. Counted in each job process's
# /proc/PID/io read_bytes (submitted bytes, so a window's edge is off by
# one request at most).
lab_readers() {
	local secs=$1 bs=$2 i=0 off spec cg n pids= jobs a b t=0; shift 2
	for spec in "$@"; do
		off=${spec%[@%]*}
		set -- fio --name=r$i --filename=/dev/$DEV --direct=1 \
			--ioengine=psync --rw=read --bs=$bs --offset=$off \
			--size=128M --time_based --runtime=$((secs + 120)) \
			--output=/dev/null
		case "$spec" in
		*@*)	cg2_io || return 1
			cg=$CG2/lab$i
			mkdir -p $cg
			echo ${spec#*@} > $cg/io.bfq.weight ||
				echo "BENCH-ERROR io.bfq.weight ${spec#*@} refused" >&2
			cg_run $cg "$@" ;;
		*%*)	ionice -c2 -n${spec#*%} "$@" & ;;
		*)	"$@" & ;;
		esac
		pids="$pids $!"
		i=$((i + 1))
	done
	n=$i
	# Each fio forks one job process, which does the I/O: wait for all
	# (at most 60 s), then 1 s more for the newest to get going.
	while :; do
		jobs=$(lab_children $pids)
		[ $(echo $jobs | wc -w) -ge $n ] && break
		t=$((t + 1))
		[ $t -lt 600 ] || { echo "BENCH-ERROR fio jobs did not start" >&2; break; }
		sleep 0.1
	done
	sleep 1
	a=$(lab_read_bytes $jobs)
	sleep $secs
	b=$(lab_read_bytes $jobs)
	kill -INT $pids 2>/dev/null
	wait
	echo "$a" "$b" | awk -v n=$n '{
		for (i = 1; i <= n; i++) printf "%d ", ($(i + n) - $i) / 1024
		print "" }'
	i=0
	while [ $i -lt $n ]; do
		rmdir $CG2/lab$i 2>/dev/null
		i=$((i + 1))
	done
}
# lab_children PID...: the first child of each PID (fio's job process),
# in order (CONFIG_PROC_CHILDREN); a PID without one yet is left out.
lab_children() {
	local p c
	for p in "$@"; do
		# No newline ends the list, so not read (it fails at EOF).
		set -- $(cat /proc/$p/task/$p/children 2>/dev/null)
		[ $# -gt 0 ] && printf '%s ' $1
	done
}
# lab_read_bytes PID...: each one's read_bytes, on one line (0 if gone).
lab_read_bytes() {
	local p v
	for p in "$@"; do
		v=$(awk '$1 == "read_bytes:" { print $2 }' /proc/$p/io 2>/dev/null)
		printf '%s ' ${v:-0}
	done
}

# lab_bfq_set KEY VALUE: an iosched tunable, when the scheduler has it.
lab_bfq_set() {
	[ -e /sys/block/$DEV/queue/iosched/$1 ] &&
		echo "$2" > /sys/block/$DEV/queue/iosched/$1
	return 0
}

# lab_trace_on / lab_trace_off COMM: with LAB_TRACE=1, trace the block
# layer between the two and print one line on COMM's reads: how many, their
# mean wait in the scheduler (insert to issue) and in the device (issue to
# completion), in ms, and the mean number of requests of any process in
# the device when one of them was issued; the requests issued while one of
# them waited in the scheduler, by type and the process that inserted them
# (the flusher's kworker for writeback); then ours's raising starts and
# ends (bfq_wr_* tracepoints, the first 40). Says where an application's time
# under a background goes: waiting for the scheduler, or behind the
# background's requests in the device.
LAB_TR=/sys/kernel/tracing
lab_trace_on() {
	[ "${LAB_TRACE:-0}" = 1 ] || return 0
	[ -d $LAB_TR/events ] || mount -t tracefs none $LAB_TR 2>/dev/null
	echo 0 > $LAB_TR/tracing_on
	echo 16384 > $LAB_TR/buffer_size_kb
	: > $LAB_TR/trace
	for e in block_rq_insert block_rq_issue block_rq_complete; do
		echo 1 > $LAB_TR/events/block/$e/enable
	done
	# Ours: when each queue's raising starts and ends, and why turns end.
	for e in bfq_wr_start bfq_wr_end bfq_expire bfq_inject_limit; do
		[ -e $LAB_TR/events/bfq/$e/enable ] &&
			echo 1 > $LAB_TR/events/bfq/$e/enable
	done
	# LAB_TRACE_RAW=1: every dispatch and turn too, and the raw trace of
	# the first LAB_TRACE_LINES (2000) lines from the application's
	# first request on, to the log.
	if [ "${LAB_TRACE_RAW:-0}" = 1 ]; then
		for e in bfq_dispatch bfq_select bfq_idle_start bfq_idle_stop; do
			[ -e $LAB_TR/events/bfq/$e/enable ] &&
				echo 1 > $LAB_TR/events/bfq/$e/enable
		done
	fi
	echo 1 > $LAB_TR/tracing_on
}
lab_trace_off() {
	[ "${LAB_TRACE:-0}" = 1 ] || return 0
	echo 0 > $LAB_TR/tracing_on
	[ "${LAB_TRACE_RAW:-0}" = 1 ] &&
		awk -v comm="$1" '$NF == "[" comm "]" { on = 1 } on' $LAB_TR/trace |
		head -n "${LAB_TRACE_LINES:-2000}" | sed 's/^ */LAB-RAW /'
	awk -v comm="$1" '
	{
		for (i = 1; i <= NF; i++) if ($i ~ /^block_rq_/) break
		if (i > NF) next
		ev = $i; t = $(i - 1); sub(/:$/, "", t)
		for (k = i; k <= NF; k++) if ($k == "+") break
		if (k > NF) next
		key = $(i + 1) " " $(k - 1)
		if (ev == "block_rq_insert:") {
			who[key] = $(i + 2) " " $NF
			if ($NF == "[" comm "]") {
				pend[key] = t
				ins[key] = t; mine[key] = 1
				# Its think time: from its last completion, when
				# none of its reads was in flight.
				if (last && !mine_busy) {
					g = t - last; ng++; gs += g
					if (g > 0.008) glong++
				}
			}
		} else if (ev == "block_rq_issue:") {
			if (key in busy) next
			busy[key] = 1; inflight++
			# Its kind (R/W, sync or not) and bytes, for what the
			# reads of COMM find ahead of them in the device.
			kind[key] = $(i + 2); bytes[key] = $(i + 3)
			# Another request went first while a read of COMM
			# waited (one merged away is forgotten after 1 s).
			if (!(key in mine))
				for (p in pend) {
					if (t - pend[p] > 1) { delete pend[p]; continue }
					ahead[key in who ? who[key] : $(i + 2) " [?]"]++
					break
				}
			if (key in mine) {
				delete pend[key]
				n++; qw += t - ins[key]; infl += inflight - 1; iss[key] = t
				for (b in busy)
					if (b != key && !(b in mine)) {
						ak[kind[b]]++; ab[kind[b]] += bytes[b]
					}
				mine_busy++
				if (inflight > 1) behind++
			}
		} else if (ev == "block_rq_complete:") {
			if (!(key in busy)) next
			delete busy[key]; inflight--; delete kind[key]; delete bytes[key]
			if (key in iss) {
				dw += t - iss[key]; nd++; delete iss[key]; delete mine[key]
				mine_busy--; last = t
			}
		}
	}
	END {
		if (!n) { print "LAB-TRACE " comm ": no requests"; exit }
		printf "LAB-TRACE %s: %d reads, sched wait %.2f ms, device %.2f ms, %.1f in device at issue (%d issued behind others)\n",
		    comm, n, qw / n * 1000, nd ? dw / nd * 1000 : 0, infl / n, behind
		if (ng)
			printf "LAB-TRACE %s: %d pauses between reads, mean %.2f ms, %d over 8 ms\n",
			    comm, ng, gs / ng * 1000, glong
		for (w in ahead)
			printf "LAB-TRACE %s: issued while it waited: %d %s\n",
			    comm, ahead[w], w
		for (w in ak)
			printf "LAB-TRACE %s: in the device at its issue, a read: %.2f %s, %.0f KiB\n",
			    comm, ak[w] / n, w, ab[w] / n / 1024
	}' $LAB_TR/trace
	grep -E 'bfq_wr_(start|end):' $LAB_TR/trace | head -40 |
		sed 's/^ */LAB-TRACE /'
	# How the turns of the interactively raised queues ended, and how many
	# turns each queue had, from the application's first read on.
	awk -v comm="$1" '
	     /block_rq_insert:/ && $NF == "[" comm "]" { on = 1 }
	     /bfq_wr_start:.* interactive / { for (i = 1; i <= NF; i++)
			if ($i ~ /^bfq[0-9]+$/) app[$i] = 1 }
	     /bfq_expire:/ && on { for (i = 1; i <= NF; i++) if ($i ~ /^bfq[0-9]+$/) break
			turns[$i]++
			if ($i in app) n[$i " " $(i + 1)]++ }
	     # Before it: the background alone, how its turns ended and what
	     # they moved (sectors served per turn).
	     /bfq_expire:/ && !on { for (i = 1; i <= NF; i++) if ($i ~ /^bfq[0-9]+$/) break
			lt[$(i + 1)]++; sv = $(i + 2); sub(/served=/, "", sv)
			ls[$(i + 1)] += sv }
	     END { for (r in n) printf "LAB-TRACE raised turns of %s: %d\n", r, n[r]
		   for (q in turns) printf "LAB-TRACE turns of %s: %d\n", q, turns[q]
		   for (r in lt) printf "LAB-TRACE lead turns %s: %d, %.0f sectors each\n",
			r, lt[r], ls[r] / lt[r] }' \
		$LAB_TR/trace | sort
	# Ours: the injection limit's changes (bfq-inject.c rule 2), the
	# probe waits that made them.
	awk '/bfq_inject_limit:/ { for (i = 1; i <= NF; i++) {
			if ($i ~ /^limit=/) { l = substr($i, 7) }
			if ($i ~ /^wait=/) { w = substr($i, 6) + 0 }
			if ($i ~ /^base=/) { b = substr($i, 6) + 0 } }
		k = (l + 0 > prev) ? "up" : "down"; prev = l + 0
		n[k]++; ws[k] += w; bs[k] += b }
	     END { for (k in n) printf "LAB-TRACE inject limit %s: %d, mean wait %.2f ms, base %.2f ms\n",
			k, n[k], ws[k] / n[k] / 1e6, bs[k] / n[k] / 1e6 }' $LAB_TR/trace
	# Ours: what it knows of the device (peak rate, seek costs).
	local rate=/sys/kernel/debug/block/${DEV:-none}/sched/rate e
	[ -r "$rate" ] && sed 's/^/LAB-TRACE rate: /' "$rate"
	[ -r "${rate%/rate}/service_trees" ] &&
		sed -n 's/^\(busy\|wr_\|merges\|inject\)/LAB-TRACE trees: \1/p' \
			"${rate%/rate}/service_trees"
	for e in bfq_wr_start bfq_wr_end bfq_expire bfq_inject_limit \
	    bfq_dispatch bfq_select bfq_idle_start bfq_idle_stop; do
		[ -e $LAB_TR/events/bfq/$e/enable ] &&
			echo 0 > $LAB_TR/events/bfq/$e/enable
	done
	: > $LAB_TR/trace
}
