#!/bin/bash
# lab.sh KVER [EXPERIMENT ...]: the lab of issue 9. Boots Debian's kernel
# KVER (6.1|6.12|latest) once under QEMU/TCG with the disk model
# (tests/lab/diskmodel.c, built here with gcc -static) and runs the guest
# scripts tests/lab/EXPERIMENT.sh in that one boot: each compares our
# build/KVER/bfq.ko with the stock bfq, mq-deadline, kyber and none on the
# model. Default: every experiment; LAB_QUICK=1 (make lab QUICK=1): the
# calibration and one share case, a few minutes, for make check.
#
# Writes build/KVER/results/lab.txt (PASS:/FAIL: lab/KVER/model-host,
# the model's host-side checks (tests/lab/test-diskmodel.py), then
# lab/KVER/<script> and lab/KVER/dmesg-clean, as scripts/vmtest.sh does), the tables and data to
# build/lab/KVER/, the guest log to build/lab/KVER/lab-<time>.log, then the
# report build/lab/report.md with its plots (tests/lab/report.py, over
# every kernel's results present). Exits 1 when a line is a FAIL.
#
# LAB_MODEL_ONLY=1: the model's host-side checks only (lab/KVER/model-host,
# written to build/KVER/results/lab-model.txt), no boot: what make check
# runs; the guest experiments, quick or full, are make bench's and make
# lab's.
#
# LAB_GUEST_ENV="LAB_ROUNDS=1 LAB_SECS=5" passes variables to the guest
# scripts (through the kernel command line: init's environment); each
# script's header names those it reads.
#
# A VM must not share the machine's two cores with another one that is
# timing something: run it under flock /tmp/bfq-vm.lock when others do.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$BFQ_TOP/scripts/vm/common.sh"

KVER=${1:?usage: lab.sh 6.1|6.12|latest [experiment ...]}
shift
ldir=$BFQ_TOP/tests/lab
quick=(calibrate quick-share quick-startup)
full=(calibrate exp1-maxbudget exp2-shares exp6-startup exp3-webserver
      exp4-dbms exp5-video exp7-readers)
if [ $# -gt 0 ]; then
	exps=("$@")
elif [ "${LAB_QUICK:-0}" = 1 ]; then
	exps=("${quick[@]}")
else
	exps=()
	for e in "${full[@]}"; do
		[ -f "$ldir/$e.sh" ] && exps+=("$e")
	done
fi
for e in "${exps[@]}"; do
	[ -f "$ldir/$e.sh" ] || die "no experiment $ldir/$e.sh"
done
ko=$BFQ_TOP/build/$KVER/bfq.ko
[ -f "$ko" ] || die "$ko missing: run 'make KVER=$KVER' first"
out=$BFQ_TOP/build/lab/$KVER
res=$BFQ_TOP/build/$KVER/results
mkdir -p "$out" "$res"

results=$res/lab.txt
[ "${LAB_MODEL_ONLY:-0}" = 1 ] && results=$res/lab-model.txt
: > "$results"
fails=0
emit() {
	echo "$1: lab/$KVER/$2" | tee -a "$results"
	[ "$1" = PASS ] || fails=$((fails + 1))
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for t in diskmodel labload; do
	build_static "$work/$t" "$ldir/$t.c" -Wextra -lm
done
build_static "$work/lowlat" "$BFQ_TOP/tests/lowlat/lowlat.c"
# The model's own checks, on the host, before any boot.
if /usr/bin/python3 "$ldir/test-diskmodel.py" "$work/diskmodel" \
	> "$out/model-host.txt" 2>&1; then
	emit PASS model-host
else
	emit FAIL model-host
	grep 'not ok' "$out/model-host.txt" | sed 's/^/   /'
fi
[ "${LAB_MODEL_ONLY:-0}" = 1 ] && exit $((fails > 0))
base=$(vm_base_initramfs "$KVER")
vm_overlay "$KVER" "$work/overlay.cpio" "$ko" "$BFQ_TOP/tests/vm/lib.sh" \
	"$BFQ_TOP/scripts/bench/guest-lib.sh" "$BFQ_TOP"/tests/lowlat/*.sh \
	"$work/lowlat" "$ldir"/*.sh "$work/diskmodel" "$work/labload"
cat "$base" "$work/overlay.cpio" > "$work/initrd.cpio"

# Each script's time limit: its "# vmtest-timeout: N" line, else 300 s.
list= wd=120
for e in "${exps[@]}"; do
	n=$(sed -n 's/^# vmtest-timeout: *\([0-9][0-9]*\).*/\1/p' "$ldir/$e.sh" | head -1)
	n=${n:-300}
	list+=,$e:$n
	wd=$((wd + n))
done
logf=$out/lab-$(date +%Y%m%d-%H%M%S).log
log "booting $KVER for the lab: ${exps[*]} (at most ${wd}s; log: $logf)"
t0=$(date +%s)
set +e
host_tmo=$((wd + 60))
# Under -icount (VM_ICOUNT) the guest's limits are in its own seconds,
# which a CPU-bound stretch takes the host many times as long to run.
[ -z "${VM_ICOUNT:-}" ] || host_tmo=$((host_tmo * 6))
vm_boot "$KVER" "$work/initrd.cpio" "$logf" $host_tmo \
	"vmtests=${list#,} vmtimeout=300 vmwd=$wd ${LAB_GUEST_ENV:-}"
set -e
t1=$(date +%s)
clean=$(tr -d '\r' < "$logf")

for e in "${exps[@]}"; do
	r=$(sed -n "s/.*VMTEST-RESULT $e \(PASS\|FAIL\) .*/\1/p" <<< "$clean" | head -1)
	emit "${r:-FAIL}" "$e"
	[ "$r" = PASS ] || grep -F "[$e] " <<< "$clean" |
		grep -E 'not ok|killed after|BENCH-ERROR' | head -10 | sed 's/^/   /' || true
	[ -n "$r" ] || echo "   ($e never reported: guest crashed or hung)"
	# Its tables and data, without the script's prefix and trace lines.
	sed -n "s/^\[$e\] //p" <<< "$clean" | grep -Ev '^LAB-(RAW|VIDEO) ' |
		sed -n '/^LAB-TABLE-BEGIN/,/^LAB-TABLE-END/{p;b};/^LAB-DATA /p' > "$out/$e.txt"
	sed -n '/^LAB-TABLE-BEGIN/,/^LAB-TABLE-END/p' "$out/$e.txt" |
		grep -Ev '^LAB-(TABLE-END|DATA)' | sed 's/^LAB-TABLE-BEGIN /== /'
done
if grep -Eq "$VM_REPORT_RE" <<< "$clean"; then
	emit FAIL dmesg-clean
	grep -m10 -E "$VM_REPORT_RE" <<< "$clean" | sed 's/^/   /'
else
	emit PASS dmesg-clean
fi
{
	echo "kernel $KVER ($(cat "$(kver_dir "$KVER")/release")), $(date -u +%F' '%T) UTC"
	echo "ours: $(git -C "$BFQ_TOP" log -1 --format='%h %s' 2>/dev/null || echo '?')"
	echo "experiments: ${exps[*]}"
	echo "wall: $((t1 - t0)) s, host load $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$out/run.txt"
log "lab $KVER: $((t1 - t0)) s wall, $fails failure(s); guest log: $logf"
/usr/bin/python3 "$ldir/report.py" "$BFQ_TOP/build/lab" ||
	log "warning: the report could not be written"
[ $fails = 0 ]
