#!/bin/bash
# run.sh KVER NAME...: boot Debian's kernel KVER (6.1|6.12) once per NAME
# under QEMU/TCG and run the benchmark scripts/bench/guest-NAME.sh in it
# (NAME: cost, scaling, share, latency, groups, cgshare, hooks, bursts,
# tput). Not pass/fail: each prints a table, which is shown here and saved to
# build/bench/NAME-KVER.txt; the guest log is kept in
# build/bench/NAME-KVER-<time>.log.
#
# Our build/KVER/bfq.ko is used as it is (run 'make KVER=...' first); the
# stock bfq.ko, mq-deadline and none come from the cached Debian kernel.
#
# Environment:
#   BENCH_ROUNDS=N   interleaved rounds per configuration (default 3; the
#                    table shows medians)
#   BENCH_SECS=N     seconds per fio run (default: the benchmark's own;
#                    latency: the soft real-time and throughput runs, 8)
#   BENCH_CNSEC=a,b  share only: null_blk completion_nsec values, comma
#                    separated (default 100000,1000000)
#   BENCH_PIN=1      latency only: the measured application on vCPU 0, the
#                    background on vCPU 1 (LL_APP_CPUS, LL_BG_CPUS of
#                    tests/lowlat/ll-lib.sh, which says what it changed)
#   BENCH_SCHEDS=a,b cost, scaling, latency, groups, tput: only these
#                    schedulers (of ours, stock, mq-deadline, kyber, none,
#                    base), comma separated
#   BENCH_BASE_KO=path  another build of our bfq.ko (the commit before a
#                    change, say), selectable as the scheduler "base" so a
#                    change is measured against it in the same boot, rounds
#                    interleaved: BENCH_SCHEDS=ours,base,mq-deadline
#   VM_SMP=N         guest vCPUs (default: 1 for scaling, else 2)
#   VM_ICOUNT=shift=0,sleep=off  QEMU's -icount (scripts/vm/common.sh):
#                    the guest's clock counts instructions (1 ns each), so
#                    cost's IOPS and hooks' durations measure instructions
#                    per request, repeatable to ~0.1% (cost: 98675 and
#                    98789 IOPS in two rounds) while the host is loaded;
#                    one host thread runs every vCPU, so two readers no
#                    longer contend for bfq_data.lock as they do on two
#                    host cores
#   BENCH_APPEND=..  more kernel command line, e.g. tsc=reliable: Debian's
#                    6.1 marks the TSC unstable under TCG ("TSCs
#                    unsynchronized") and falls back to the HPET, whose
#                    every read traps to QEMU; 6.12 keeps the TSC
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
. "$BFQ_TOP/scripts/vm/common.sh"

KVER=${1:?usage: run.sh 6.1|6.12 cost|scaling|share|latency|groups|cgshare|hooks|bursts|tput ...}
shift
[ $# -gt 0 ] || die "usage: run.sh KVER cost|scaling|share|latency|groups|cgshare|hooks|bursts|tput ..."
bdir=$BFQ_TOP/scripts/bench
for n in "$@"; do
	[ -f "$bdir/guest-$n.sh" ] || die "no benchmark $n ($bdir/guest-$n.sh)"
done
ko=$BFQ_TOP/build/$KVER/bfq.ko
[ -f "$ko" ] || die "$ko missing: run 'make KVER=$KVER' first"
out=$BFQ_TOP/build/bench
mkdir -p "$out"
rounds=${BENCH_ROUNDS:-3}
pin=
[ "${BENCH_PIN:-0}" = 1 ] && pin="LL_APP_CPUS=0 LL_BG_CPUS=1"

base=$(vm_base_initramfs "$KVER")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Our module goes in as a copy: the module author rebuilds often.
cp "$ko" "$work/bfq.ko"
base_ko=()
if [ -n "${BENCH_BASE_KO:-}" ]; then
	[ -f "$BENCH_BASE_KO" ] || die "BENCH_BASE_KO: no $BENCH_BASE_KO"
	cp "$BENCH_BASE_KO" "$work/base-bfq.ko"
	base_ko=("$work/base-bfq.ko")
fi
ours="$(git -C "$BFQ_TOP" log -1 --format='%h %s' 2>/dev/null) (bfq.ko $(stat -c %y "$ko" | cut -d. -f1))"
build_static "$work/lowlat" "$BFQ_TOP/tests/lowlat/lowlat.c"
vm_overlay "$KVER" "$work/overlay.cpio" "$work/bfq.ko" \
	"$BFQ_TOP/tests/vm/lib.sh" "$BFQ_TOP/tests/vm/cgroup-share.sh" \
	"$bdir"/guest-*.sh \
	"$BFQ_TOP"/tests/lowlat/*.sh "$work/lowlat" "${base_ko[@]}"
cat "$base" "$work/overlay.cpio" > "$work/initrd.cpio"

rc=0
for n in "$@"; do
	logf=$out/$n-$KVER-$(date +%Y%m%d-%H%M%S).log
	smp=${VM_SMP:-}
	[ -n "$smp" ] || { [ "$n" = scaling ] && smp=1 || smp=2; }
	# Generous: the guest's own watchdog ends a run gone wrong.
	tmo=$((rounds * 900 + 300))
	[ "$n" = latency ] && tmo=$((rounds * 3600 + 600))
	log "booting $KVER (-smp $smp) for bench $n, $rounds round(s), host load $(cut -d' ' -f1-3 /proc/loadavg) (log: $logf)"
	t0=$(date +%s)
	set +e
	VM_SMP=$smp vm_boot "$KVER" "$work/initrd.cpio" "$logf" $((tmo + 60)) \
		"vmtests=guest-$n vmtimeout=$tmo vmwd=$((tmo + 30)) BENCH_ROUNDS=$rounds BENCH_SECS=${BENCH_SECS:-} BENCH_CNSEC=${BENCH_CNSEC:-} BENCH_SCHEDS=${BENCH_SCHEDS:-} $pin ${BENCH_APPEND:-}"
	set -e
	t1=$(date +%s)
	txt=$out/$n-$KVER.txt
	# Read once: with pipefail, `tr | grep -q` fails when grep stops
	# reading early and tr gets SIGPIPE.
	clean=$(tr -d '\r' < "$logf")
	if grep -q "BENCH-TABLE-END" <<< "$clean"; then
		{
			echo "# bench $n on $KVER, -smp $smp, $rounds round(s), $(date -u +%F' '%T) UTC, $((t1 - t0)) s wall, host load $(cut -d' ' -f1-3 /proc/loadavg)"
			echo "# ours: HEAD $ours"
			[ -n "${BENCH_BASE_KO:-}" ] &&
				echo "# base: $BENCH_BASE_KO ($(stat -c %y "$BENCH_BASE_KO" | cut -d. -f1))"
			# The guest kernel's own console lines fall in between.
			sed -n 's/^\[guest-[a-z]*\] //; /BENCH-TABLE-BEGIN/,/BENCH-TABLE-END/p' <<< "$clean" |
				grep -v 'BENCH-TABLE-' | grep -vE '^\[ *[0-9]+\.[0-9]+\] '
		} > "$txt"
		cat "$txt"
		echo "saved: $txt"
	else
		echo "bench $n: no table (guest failed?); log: $logf" >&2
		grep -E 'BENCH-ERROR|not ok|Oops|BUG:|WARNING:' <<< "$clean" | head >&2 || true
		rc=1
	fi
	if grep -Eq 'WARNING:|BUG:|Oops|Call Trace' <<< "$clean"; then
		echo "bench $n: kernel warnings in the guest log:" >&2
		grep -E -A3 'WARNING:|BUG:|Oops' <<< "$clean" | head -20 >&2 || true
	fi
done
exit $rc
