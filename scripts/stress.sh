#!/bin/bash
# stress.sh KVER [DURATION]: the stress matrix of issue 5 (tests/stress/).
#
# Two boots under QEMU/TCG:
#   debug   the debug kernel of KVER (scripts/debug-kernel.sh: our bfq built
#           in, KASAN, lockdep, kmemleak, ...), every scenario in turn, each
#           for DURATION / <number of scenarios> seconds (at least 10), then
#           a kmemleak scan;
#   debian  Debian's kernel with our build/KVER/bfq.ko as a module, a few
#           scenarios briefly, then module-unload (every device off bfq,
#           rmmod must succeed, no slab cache left with objects).
# Default DURATION: 300 s of stress in the debug boot.
#
# The guest logs are parsed: each scenario's STRESS-RESULT line and guest
# verdict, and the kernel's checker reports (VM_REPORT_RE of
# scripts/vm/common.sh) found while it ran. Writes
#   build/KVER/results/stress.txt   PASS:/FAIL: stress/KVER/<scenario>
#                                   (debian-<scenario> for the second boot),
#                                   stress/KVER/module-unload,
#                                   stress/KVER/boot-debug|boot-debian (the
#                                   guest ran to its end), stress/KVER/reports
#   build/KVER/stress-table.txt     scenario | iterations | I/Os verified |
#                                   errors | reports | result
#   build/KVER/stress-logs/         the guest logs
# and exits 1 on any FAIL (a report anywhere is one).
#
# Environment:
#   STRESS_SCENARIOS=a,b   only these scenarios in the debug boot
#   STRESS_DEBIAN_SCENARIOS=a,b  the debian boot's scenarios (default
#                          sched-switch,fork-storm,tunables)
#   STRESS_BOOTS="debug debian"  which boots (default both)
#   STRESS_DEBIAN_SECS=N   seconds per scenario in the debian boot
#                          (default DURATION/12, between 8 and 30)
#   STRESS_VERBOSE=1       echo the guest console while it runs
#   STRESS_REPARSE=STAMP   boot nothing: parse the logs of an earlier run
#                          (build/KVER/stress-logs/STAMP-*.log) again
#   VM_SMP=N               guest vCPUs (default 2)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$BFQ_TOP/scripts/vm/common.sh"

KVER=${1:?usage: stress.sh 6.1|6.12 [DURATION]}
DURATION=${2:-300}
[[ $DURATION =~ ^[0-9]+$ ]] || die "DURATION must be a number of seconds"
dir=$(kver_dir "$KVER")
[ -f "$dir/release" ] && [ -e "$dir/vmlinuz" ] ||
	die "kernel $KVER not fetched: run scripts/fetch-kernel.sh $KVER"
for c in qemu-system-x86_64 busybox fio cpio gcc; do
	command -v "$c" >/dev/null || die "$c missing: run scripts/deps.sh"
done

sdir=$BFQ_TOP/tests/stress
ALL=(sched-switch dev-remove cgroup fork-storm interleave tunables ionice hostile stacked merge)
DEBIAN=(sched-switch fork-storm tunables)
if [ -n "${STRESS_SCENARIOS:-}" ]; then
	IFS=, read -r -a ALL <<< "$STRESS_SCENARIOS"
fi
if [ -n "${STRESS_DEBIAN_SCENARIOS:-}" ]; then
	IFS=, read -r -a DEBIAN <<< "$STRESS_DEBIAN_SCENARIOS"
fi
for t in "${ALL[@]}" "${DEBIAN[@]}" kmemleak module-unload; do
	[ -f "$sdir/$t.sh" ] || die "no scenario $sdir/$t.sh"
done
boots=${STRESS_BOOTS:-debug debian}
ko=$BFQ_TOP/build/$KVER/bfq.ko
for b in $boots; do
	case $b in
	debug)  vm_debug_kernel "$KVER" >/dev/null || exit 1 ;;
	debian) [ -f "$ko" ] || die "$ko missing: run 'make KVER=$KVER' first" ;;
	*) die "STRESS_BOOTS: debug and/or debian" ;;
	esac
done

# What was tested, taken now: a commit during a long run must not rename it.
head="$(git -C "$BFQ_TOP" log -1 --format='%h %s' 2>/dev/null)$(git -C "$BFQ_TOP" diff --quiet HEAD -- 'bfq-*' 2>/dev/null || echo ' (+ uncommitted bfq-* edits)')"
share=$((DURATION / ${#ALL[@]}))
[ $share -lt 10 ] && share=10
dshare=$((DURATION / 12))
[ "$dshare" -lt 8 ] && dshare=8
[ "$dshare" -gt 30 ] && dshare=30
dshare=${STRESS_DEBIAN_SECS:-$dshare}
# A fio still running this long after its scenario's end is hung.
hang=60

out=$BFQ_TOP/build/$KVER
mkdir -p "$out/results" "$out/stress-logs"
results=$out/results/stress.txt
table=$out/stress-table.txt
stamp=${STRESS_REPARSE:-$(date +%Y%m%d-%H%M%S)}

start=$(date +%s)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "${STRESS_REPARSE:-}" ]; then
	base=$(vm_base_initramfs "$KVER")
	for t in cloneio mergeio; do
		build_static "$work/$t" "$sdir/$t.c"
	done
	kocopy=
	if [[ " $boots " == *" debian "* ]]; then
		cp "$ko" "$work/bfq.ko"
		kocopy=$work/bfq.ko
	fi
	vm_overlay "$KVER" "$work/overlay.cpio" "$kocopy" \
		"$BFQ_TOP/tests/vm/lib.sh" "$sdir"/*.sh "$work/cloneio" "$work/mergeio"
	cat "$base" "$work/overlay.cpio" > "$work/initrd.cpio"

	# boot LABEL SECS SCENARIO...: one boot running the scenarios, SECS each;
	# the log goes to $out/stress-logs/$stamp-LABEL.log.
	boot() {
		local label=$1 secs=$2 list tmo wd host_tmo logf qrc tailpid=
		shift 2
		list=$(IFS=,; echo "$*")
		# Per scenario: its time, the hang allowance, and setup/teardown
		# under KASAN and TCG (device creation, fio start, the verify phase).
		tmo=$((secs + hang + 180))
		# The whole boot: every scenario's time and a minute each for
		# setup, plus the kmemleak scans; one scenario may overrun to its
		# own limit, a hung kernel is stopped here.
		wd=$(($# * (secs + 60) + 300))
		[ $wd -lt $((tmo + 300)) ] && wd=$((tmo + 300))
		host_tmo=$((wd + 240))
		logf=$out/stress-logs/$stamp-$label.log
		log "stress $label boot: $* ($secs s each; log $logf; host load $(cut -d' ' -f1-3 /proc/loadavg))"
		if [ "${STRESS_VERBOSE:-0}" = 1 ]; then
			touch "$logf"; tail -n +1 -f "$logf" & tailpid=$!
		fi
		local t0=$(date +%s)
		set +e
		VM_DEBUG=$([ "$label" = debug ] && echo 1 || echo 0) \
		vm_boot "$KVER" "$work/initrd.cpio" "$logf" "$host_tmo" \
			"vmtests=$list vmtimeout=$tmo vmwd=$wd vmimpl=ours STRESS_SECS=$secs STRESS_HANG=$hang"
		qrc=$?
		set -e
		[ -n "$tailpid" ] && kill "$tailpid" 2>/dev/null
		log "stress $label boot: $(($(date +%s) - t0)) s wall, qemu status $qrc"
		echo "$qrc" > "$work/$label.qrc"
	}

	# boot_retry LABEL SECS SCENARIO...: boot, and once more when the
	# guest died of an emulator fault (vm_emu_fault, scripts/vm/common.sh),
	# a crash of QEMU's that says nothing of ours; the faulted log is kept
	# beside the other as LOG.emu-fault.
	boot_retry() {
		local label=$1 logf=$out/stress-logs/$stamp-$1.log
		boot "$@"
		tr -d '\r' < "$logf" > "$work/try.log"
		grep -q '^VMTEST-DONE' "$work/try.log" && return 0
		vm_emu_fault "$work/try.log" || return 0
		log "stress $label boot: emulator fault (stale int3 after kernel text patching under TCG), booting again:"
		grep -E -A3 "$VM_EMU_FAULT_RE" "$work/try.log" | head -8 | sed 's/^/   | /' || true
		mv "$logf" "$logf.emu-fault"
		boot "$@"
	}

	for b in $boots; do
		case $b in
		debug)  boot_retry debug "$share" "${ALL[@]}" kmemleak ;;
		debian) boot_retry debian "$dshare" "${DEBIAN[@]}" module-unload ;;
		esac
	done
else
	for b in $boots; do echo "?" > "$work/$b.qrc"; done
fi
end=$(date +%s)

# ---------------------------------------------------------------- parsing
# A kernel report is a line matching VM_REPORT_RE (plus the slab cache
# complaints of a module unload) that the kernel printed: it carries a
# printk timestamp, or at least is not a line of the guest scripts (those
# start with "[scenario] "; kmemleak.sh prints its records that way, and
# they are counted separately).
REPORT_RE="$VM_REPORT_RE|Kernel panic|[Ss]lab cache still has objects|Objects remaining"
# Boot-time lines of the debug kernel that match the pattern but are not
# reports: none so far (a clean boot of the 6.1 debug kernel prints no
# line matching it; see tests/stress/README.md).
EXEMPT_RE='^$'

: > "$results"
: > "$work/table"
fails=0 total_reports=0
emit() {
	echo "$1: stress/$KVER/$2" >> "$results"
	[ "$1" = PASS ] || fails=$((fails + 1))
}
row() { printf '%-24s | %10s | %13s | %6s | %7s | %s\n' "$@" >> "$work/table"; }
row scenario iterations "I/Os verified" errors reports result

# kreports FILE: the kernel report lines in FILE (one section of a log).
kreports() {
	grep -E "$REPORT_RE" "$1" |
		grep -E '\[ *[0-9]+\.[0-9]{6}\]|^[^[]' |
		grep -Ev "$EXEMPT_RE" || true
}

for b in $boots; do
	logf=$out/stress-logs/$stamp-$b.log
	clean=$work/$b.clean
	tr -d '\r' < "$logf" > "$clean"
	# The console part, before the closing dump of dmesg.
	sed '/VMTEST-DMESG-BEGIN/,$d' "$clean" > "$work/$b.console"
	sed -n '/VMTEST-DMESG-BEGIN/,/VMTEST-DMESG-END/p' "$clean" > "$work/$b.dmesg"
	if [ $b = debug ]; then list=("${ALL[@]}" kmemleak); pre=
	else list=("${DEBIAN[@]}" module-unload); pre=debian-; fi
	# Before the first scenario: boot.
	sed -n '1,/VMTEST-BEGIN/p' "$work/$b.console" > "$work/sec"
	n=$(kreports "$work/sec" | wc -l)
	total_reports=$((total_reports + n))
	row "$b: boot" - - - "$n" "$([ "$n" = 0 ] && echo ok || echo REPORTS)"
	kreports "$work/sec" | head -20 | sed "s/^/   $b boot: /" || true
	seen=$work/$b.seen
	kreports "$work/sec" | grep -oE '\[ *[0-9]+\.[0-9]{6}\].*' > "$seen" || true
	for t in "${list[@]}"; do
		sed -n "/VMTEST-BEGIN $t\$/,/VMTEST-RESULT $t /p" "$work/$b.console" > "$work/sec"
		# kmemleak.sh's own records are not counted as lines here.
		grep -v '^\[kmemleak\] ' "$work/sec" > "$work/sec2" || true
		reps=$(kreports "$work/sec2" | wc -l)
		kreports "$work/sec2" | grep -oE '\[ *[0-9]+\.[0-9]{6}\].*' >> "$seen" || true
		r=$(sed -n "s/.*VMTEST-RESULT $t \(PASS\|FAIL\) .*/\1/p" "$work/sec" | head -1)
		sr=$(grep -o "STRESS-RESULT $t .*" "$work/sec" | head -1 || true)
		val() { echo "$sr" | sed -n "s/.* $1=\([0-9]*\).*/\1/p"; }
		it=$(val iterations) ver=$(val ios_verified) er=$(val errors)
		if [ $t = kmemleak ]; then
			kl=$(grep -o 'KMEMLEAK-END.*' "$work/sec" | head -1 || true)
			ours=$(echo "$kl" | sed -n 's/.*ours=\([0-9]*\).*/\1/p')
			other=$(echo "$kl" | sed -n 's/.*other=\([0-9]*\).*/\1/p')
			if [ -n "$kl" ]; then
				reps=$((reps + ours))
				[ "$ours" = 0 ] || grep -A12 'KMEMLEAK-RECORD ours' "$work/sec" | head -40 | sed 's/^/   /' || true
				[ "$other" = 0 ] ||
					echo "   kmemleak: $other suspected leak(s) not mentioning bfq or blk (not counted; records in $logf)"
			fi
		fi
		total_reports=$((total_reports + reps))
		verdict=PASS why=
		[ "$r" = PASS ] || { verdict=FAIL why="guest: ${r:-never reported}"; }
		[ -n "$sr" ] || { verdict=FAIL why="${why:+$why, }no STRESS-RESULT"; }
		[ "${er:-0}" = 0 ] || { verdict=FAIL why="${why:+$why, }$er error(s)"; }
		[ "$reps" = 0 ] || { verdict=FAIL why="${why:+$why, }$reps report line(s)"; }
		if [ $t = kmemleak ]; then
			row "$b: kmemleak" "${it:--}" - "${er:--}" "$reps" \
				"$verdict${kl:+ (ours=$ours other=$other)}${why:+ ($why)}"
		elif [ $t = module-unload ]; then
			row "$b: $t" "${it:--}" "${ver:--}" "${er:--}" "$reps" "$verdict${why:+ ($why)}"
			emit $verdict module-unload
		else
			row "$b: $t" "${it:--}" "${ver:--}" "${er:--}" "$reps" "$verdict${why:+ ($why)}"
			emit $verdict "$pre$t"
		fi
		if [ $verdict = FAIL ]; then
			grep -E 'stress error|not ok|killed after|STRESS-RESULT' "$work/sec" | head -8 | sed 's/^/   /' || true
			kreports "$work/sec2" | head -20 | sed 's/^/   /' || true
		fi
	done
	# Reports the console dropped but the final dmesg dump has.
	n=0
	if [ -s "$work/$b.dmesg" ]; then
		n=$(kreports "$work/$b.dmesg" | grep -oE '\[ *[0-9]+\.[0-9]{6}\].*' |
			grep -vxFf "$seen" | wc -l || true)
	fi
	if [ "$n" != 0 ]; then
		total_reports=$((total_reports + n))
		row "$b: dmesg only" - - - "$n" REPORTS
	fi
	qrc=$(cat "$work/$b.qrc")
	if grep -q '^VMTEST-DONE' "$clean"; then
		emit PASS "boot-$b"
	else
		emit FAIL "boot-$b"
		echo "   the $b guest did not finish (qemu status $qrc$([ "$qrc" = 124 ] && echo ': host timeout')); its log ends:"
		tail -30 "$clean" | sed 's/^/   | /' || true
	fi
done
if [ $total_reports = 0 ]; then emit PASS reports; else emit FAIL reports; fi

{
	echo "# stress $KVER, DURATION=$DURATION ($share s per scenario on the debug kernel, $dshare s on Debian's), $(date -u +%F' '%T) UTC, $((end - start)) s wall"
	echo "# HEAD $head"
	cat "$work/table"
	echo "# kernel report lines in all: $total_reports"
} > "$table"
cat "$table"
cat "$results"
log "stress $KVER: $((end - start)) s wall, $fails failure(s); table $table; logs $out/stress-logs/$stamp-*.log"
[ $fails = 0 ]
