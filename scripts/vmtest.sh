#!/bin/bash
# vmtest.sh KVER [TEST ...]: boot the cached Debian kernel KVER (6.1|6.12|trixie|latest)
# under QEMU/TCG with our build/KVER/bfq.ko and run the guest tests
# tests/vm/TEST.sh (default: all of them) in one boot.
#
# Prints and writes to build/KVER/results/vmtest.txt one line per test,
#   PASS: vm/KVER/TEST   or   FAIL: vm/KVER/TEST
#   or   SKIP: vm/KVER/TEST (reason)   (counts neither)
# plus vm/KVER/dmesg-clean (no WARNING/BUG/Oops/... in the guest log); keeps
# the guest log in build/KVER/vm-logs/; exits 1 when any line is a FAIL.
#
# Environment:
#   VMTEST_IMPL=stock    run the tests against the stock bfq.ko instead of
#                        ours (to check the harness itself; ours not needed)
#   VMTEST_TIMEOUT=N     seconds per guest test (default 90); a test that
#                        needs more says so in a line "# vmtest-timeout: N"
#                        of its own (the larger of the two applies)
#   VMTEST_VERBOSE=1     echo the guest console while it runs
#   VMTEST_DEBUG=1       boot the debug kernel (make debug-kernel) with our
#                        bfq built in; results are named vm/KVER-debug/TEST,
#                        and any checker report fails dmesg-clean
#   VMTEST_SKIP="T ..."  leave these tests out of the default list
#   VMTEST_QUICK=0|1     the guest's VM_QUICK (default 1): the share and
#                        latency tests in their quick form, fewer rounds and
#                        loose bounds (make check); 0 runs them in full with
#                        the bounds of the benchmark tier (make bench)
#   VMTEST_APPEND="..."  more kernel command line for the first boot, e.g.
#                        kunit.enable=1 kunit.filter_glob=bfq* to run the
#                        debug kernel's built-in KUnit suites before the
#                        tests (make check; kunit-debug.sh reads them from
#                        the guest log); 300 s more for the host's limit
#   VMTEST_TIER=bench    the default list also takes the tests marked
#                        "# vmtest-tier: bench" (long matrices that only
#                        make bench runs, or a test named on the command line)
#   VMTEST_NAME=N        name the results vm/N/TEST and write them to
#                        build/KVER/results/vmtest-N.txt, so that a second
#                        boot of one kernel (make check's -icount boot) can
#                        run beside the first without mixing their results
#
# A crash that is QEMU's, not the test's (vm_emu_fault in scripts/vm/
# common.sh: a stale int3 of multi-threaded TCG) reruns the test it
# interrupted in a fresh boot, at most VMTEST_EMU_RETRIES times (default
# 2); the oops is printed, and dmesg-clean checks that boot's log up to the
# oops only. Any other crash, or an int3 really in memory, fails the test.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$BFQ_TOP/scripts/vm/common.sh"

KVER=${1:?usage: vmtest.sh 6.1|6.12|trixie|latest [test ...]}
shift
dir=$(kver_dir "$KVER")
[ -f "$dir/release" ] && [ -e "$dir/vmlinuz" ] ||
	die "kernel $KVER not fetched: run scripts/fetch-kernel.sh $KVER"
for c in qemu-system-x86_64 busybox fio cpio depmod modinfo xz; do
	command -v "$c" >/dev/null || die "$c missing: run scripts/deps.sh"
done

impl=${VMTEST_IMPL:-ours}
per_test=${VMTEST_TIMEOUT:-90}
out=$BFQ_TOP/build/$KVER
ko=$out/bfq.ko
name=$KVER
export VM_DEBUG=${VMTEST_DEBUG:-0}
if [ "$VM_DEBUG" = 1 ]; then
	# Ours is built into that kernel; KASAN and lockdep make it slower.
	vm_debug_kernel "$KVER" >/dev/null || exit 1
	impl=ours ko= name=$KVER-debug
	per_test=${VMTEST_TIMEOUT:-240}
	out=$BFQ_TOP/build/$name
else
	case "$impl" in
	ours)  [ -f "$ko" ] || die "$ko missing: run 'make KVER=$KVER' first" ;;
	stock) [ -f "$ko" ] || ko= ;;	# ours still goes in when built (swap)
	*) die "VMTEST_IMPL must be ours or stock" ;;
	esac
fi

# The tests: every tests/vm/*.sh but the helpers, or those named.
tdir=$BFQ_TOP/tests/vm
if [ $# -gt 0 ]; then
	tests=("$@")
else
	tests=()
	for f in "$tdir"/*.sh; do
		n=$(basename "$f" .sh)
		case "$n" in lib|demo*) continue ;; esac
		case " ${VMTEST_SKIP:-} " in *" $n "*) continue ;; esac
		if [ "${VMTEST_TIER:-check}" != bench ] &&
		   grep -q '^# vmtest-tier: *bench' "$tdir/$n.sh"; then
			continue
		fi
		tests+=("$n")
	done
fi
# Each test once: results are matched by name.
mapfile -t tests < <(printf '%s\n' "${tests[@]}" | awk '!seen[$0]++')
for t in "${tests[@]}"; do
	[ -f "$tdir/$t.sh" ] || die "no such test: $tdir/$t.sh"
done

mkdir -p "$out/results" "$out/vm-logs"
stamp=$(date +%Y%m%d-%H%M%S)
logf=$out/vm-logs/$stamp.log
results=$out/results/vmtest.txt
if [ -n "${VMTEST_NAME:-}" ]; then
	name=$VMTEST_NAME
	results=$out/results/vmtest-$name.txt
fi

start=$(date +%s)
append=${VMTEST_APPEND:-}
base=$(vm_base_initramfs "$KVER")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The low-latency tests' static tool and helpers (tests/lowlat/).
build_static "$work/lowlat" "$BFQ_TOP/tests/lowlat/lowlat.c"
# The test build of ours (make TEST_HOOKS=1), for the tests that widen a
# race window with its hooks: /tests/bfq-hooks.ko.
hooks=()
if [ -n "$ko" ] && [ -f "$out-hooks/bfq.ko" ]; then
	cp "$out-hooks/bfq.ko" "$work/bfq-hooks.ko"
	hooks=("$work/bfq-hooks.ko")
fi
vm_overlay "$KVER" "$work/overlay.cpio" "$ko" "$tdir"/*.sh \
	"$BFQ_TOP"/tests/lowlat/*.sh "$work/lowlat" "${hooks[@]}"
cat "$base" "$work/overlay.cpio" > "$work/initrd.cpio"

# Time limits: each test in the guest, the guest as a whole (watchdog),
# and the host's, a little later still, in case the guest kernel hangs.
# boot_once LOG TEST...: one guest for these tests; qemu's status in qrc.
# test_tmo TEST: its time limit in seconds.
test_tmo() {
	local n
	n=$(sed -n 's/^# vmtest-timeout: *\([0-9][0-9]*\).*/\1/p' "$tdir/$1.sh" | head -1)
	[ -n "$n" ] && [ "$n" -gt "$per_test" ] && echo "$n" || echo "$per_test"
}
boot_once() {
	local blog=$1 list= wd=60 host_tmo t n; shift
	for t in "$@"; do
		n=$(test_tmo "$t")
		wd=$((wd + n))
		[ "$n" = "$per_test" ] && list+=,$t || list+=,$t:$n
	done
	list=${list#,}
	host_tmo=$((wd + 60))
	# Under -icount the guest's limits are in its own seconds, which the
	# host takes up to ~4x as long to run (one vCPU thread): room for it.
	[ -z "${VM_ICOUNT:-}" ] || host_tmo=$((host_tmo * 6))
	# What runs before /init (KUnit at boot) is outside the guest's watchdog.
	[ -z "$append" ] || host_tmo=$((host_tmo + 300))
	log "booting $KVER ($impl bfq.ko) for: $* (log: $blog)"
	if [ "${VMTEST_VERBOSE:-0}" = 1 ]; then
		touch "$blog"
		tail -n +1 -f "$blog" & tailpid=$!
	fi
	set +e
	vm_boot "$KVER" "$work/initrd.cpio" "$blog" "$host_tmo" \
		"vmtests=$list vmtimeout=$per_test vmwd=$wd vmimpl=$impl vmquick=${VMTEST_QUICK:-1}${append:+ $append}"
	qrc=$?
	set -e
	append=
	[ -n "${tailpid:-}" ] && kill "$tailpid" 2>/dev/null
	tailpid=
}

: > "$results"
fails=0
skips=0
emit() {
	echo "$1: vm/$name/$2" | tee -a "$results"
	case "$1" in
	PASS) ;;
	SKIP) skips=$((skips + 1)) ;;
	*) fails=$((fails + 1)) ;;
	esac
}
# crash_excerpt LOG: the first kernel report of a crashed boot, or its tail.
crash_excerpt() {
	local n
	n=$(grep -m1 -nE "$VM_REPORT_RE|Kernel panic" "$1" | cut -d: -f1)
	if [ -n "$n" ]; then
		sed -n "$((n > 3 ? n - 3 : 1)),$((n + 30))p" "$1"
	else
		tail -n 15 "$1"
	fi | sed 's/^/   | /'
}

# A guest that crashes or hangs in one test fails that test; the tests after
# it get a fresh boot (at most VMTEST_REBOOTS of them, default 3), so one
# crash does not hide what the others would show. All boots' logs go into
# LOG, one after the other, for the report checks below.
: > "$logf"
todo=("${tests[@]}")
boots=0
emu_faults=0
while [ ${#todo[@]} -gt 0 ]; do
	blog=$logf.boot$boots
	boot_once "$blog" "${todo[@]}"
	# The serial log may carry \r.
	tr -d '\r' < "$blog" > "$blog.clean"
	clean=$(cat "$blog.clean")
	emu=
	if ! grep -q '^VMTEST-DONE' "$blog.clean" && vm_emu_fault "$blog.clean" &&
	   [ $emu_faults -lt "${VMTEST_EMU_RETRIES:-2}" ]; then
		emu_faults=$((emu_faults + 1))
		emu=1
		echo "   emulator fault in boot $boots (stale int3 after kernel text patching under TCG):"
		crash_excerpt "$blog.clean"
		# Only what the guest printed before the oops is checked.
		sed -E "/$VM_EMU_FAULT_RE/,\$d" "$blog.clean" >> "$logf"
		{
			echo "VMTEST-EMULATOR-FAULT: the rest of boot $boots is not checked:"
			sed -nE "/$VM_EMU_FAULT_RE/,\$p" "$blog.clean" |
				sed 's/^/  (emu) /' | tr -d '[]'
		} >> "$logf.emu"
	else
		cat "$blog.clean" >> "$logf"
	fi
	rm -f "$blog" "$blog.clean"
	rest=()
	crashed=
	for t in "${todo[@]}"; do
		# Anywhere in a line: a kernel message may have been printed
		# just before it on the same console line.
		r=$(echo "$clean" | sed -n "s/.*VMTEST-RESULT $t \(PASS\|FAIL\|SKIP\) .*/\1/p" | head -1)
		case "$r" in
		PASS) emit PASS "$t" ;;
		SKIP) why=$(echo "$clean" | sed -n "s/^\[$t\] skip: //p" | head -1)
		      emit SKIP "$t (${why:-no reason given})" ;;
		FAIL) emit FAIL "$t"
		      echo "$clean" | grep -F "[$t] " | grep -E 'not ok|killed after' |
			      head -10 | sed 's/^/   /' ;;
		*)    if [ -z "$crashed" ] && [ -n "$emu" ]; then
				crashed=$t
				echo "   ($t interrupted by the emulator fault: run again in a fresh boot)"
				rest+=("$t")
			elif [ -z "$crashed" ]; then
				crashed=$t
				emit FAIL "$t"
				echo "   ($t never reported: guest crashed or hung, qemu status $qrc; first report or log tail:)"
				printf '%s\n' "$clean" > "$work/crashed.log"
				crash_excerpt "$work/crashed.log"
			else
				rest+=("$t")
			fi ;;
		esac
	done
	boots=$((boots + 1))
	if [ ${#rest[@]} -gt 0 ] && [ $((boots - emu_faults)) -gt "${VMTEST_REBOOTS:-3}" ]; then
		for t in "${rest[@]}"; do
			emit FAIL "$t"; echo "   ($t not run: too many guest crashes)"
		done
		rest=()
	fi
	todo=("${rest[@]}")
done
end=$(date +%s)

# On the file, not through a pipe: with pipefail, `echo | grep -q` fails
# when grep stops at an early match and echo gets SIGPIPE, which read as
# "clean" whenever a big log had its report near the top.
pat=$VM_REPORT_RE
if grep -Eq "$pat" "$logf"; then
	emit FAIL dmesg-clean
	grep -m20 -En "$pat" "$logf" | sed 's/^/   /'
else
	emit PASS dmesg-clean
fi
[ -f "$logf.emu" ] && cat "$logf.emu" >> "$logf" && rm -f "$logf.emu"
[ $boots -gt 1 ] && echo "   $boots boots: the guest crashed or hung $((boots - 1)) time(s), $emu_faults of them emulator faults"
total=$(wc -l < "$results")
echo "vmtest: $((total - fails - skips)) passed, $fails failed, $skips skipped"
log "vm/$name: $((end - start)) s wall, $fails failure(s); guest log: $logf"
if [ $fails -gt 0 ]; then
	echo "guest log: $logf" >&2
	exit 1
fi
