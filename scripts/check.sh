#!/bin/bash
# check.sh (make check, and CI through .ci/run): the correctness tier, every
# build, check and functional test. Benchmarks with timing bounds are the
# other tier, make bench (scripts/bench.sh).
#
# Steps (each one's output in build/check/<step>.log):
#   deps                 scripts/deps.sh
#   fetch/KVER           scripts/fetch-kernel.sh, side by side (network)
#   build/KVER           make KVER=KVER W=1 C=2 (objects removed first, so
#                        every file is compiled and checked again); FAIL on a
#                        failed build or any compiler, sparse or modpost
#                        warning; the build's layout check
#                        (scripts/layout-check.sh) must pass. The kernels of
#                        CHECK_BUILD_KVERS (default trixie: Debian 13's
#                        6.12) are fetched and built, nothing more
#   intree/KVER          block/bfq.ko built in a kernel tree, Debian's config
#   checkpatch/<file>    6.12's checkpatch.pl --strict, once
#   build/layout-mismatch/KVER  tests/build/layout-mismatch.sh: a build with
#                        an altered struct elevator_queue is refused
#   build/version-floor/KVER  tests/build/version-floor.sh: headers saying
#                        6.1.190 (6.13.0) stop at bfq-compat.h's #error
#   build/btf-cache      tests/build/btf-cache.sh: the layout check's BTF
#                        cache keeps each kernel's apart
#   lab/6.1/model-host   the lab's disk model checked on the host (its
#                        experiments are make bench's)
# The two after the builds, beside the lanes, which run side by side (the
# debug lane as soon as intree/6.1 is done, the others once the
# out-of-tree builds are):
#   debug   debug-kernel/6.1   KASAN, lockdep, ...; our bfq and our KUnit
#                              suites built in (tests/debug/debug.config)
#           vm-debug/6.1       the VM tests that apply with bfq built in; the
#                              boot runs our KUnit suites first
#           kunit-debug/6.1    those suites' results, from vm-debug's log
#           kasan-queue/6.1    KASAN reports a bfq_queue read after its free
#                              (scripts/kasan-queue.sh, a boot of its own)
#     and, once the debug kernel is built, beside those two:
#           stress/6.1         the stress matrix's debug boot,
#                              CHECK_STRESS_SECS (72) of stress over
#                              CHECK_STRESS_SCENARIOS (six of them)
#                              (CHECK_STRESS_BOOTS="debug debian" adds the
#                              boot of Debian's kernel with our module)
#   6.1     vm/6.1             the tests of the kernel's interfaces
#                              (CHECK_API_TESTS: loading, switching,
#                              unloading, tunables, tags, wbt, cgroup files
#                              and moves, devices; see below) but those
#                              vm-debug/6.1 runs (make debug-tests); one
#                              vCPU
#           vm/6.1-icount      the tests whose bound plain TCG's jitter moves
#                              (CHECK_ICOUNT_TESTS: cgroup-psync,
#                              merge-coop, cgroup-writeback, core-share,
#                              idle-shape, ranges), in a boot of their
#                              own under -icount, one vCPU
#   6.12    vm/6.12            every other functional test, the share and
#                              latency tests in their quick form
#                              (VMTEST_QUICK=1), two vCPUs; not
#                              core-classes and core-strict, which
#                              vm-debug/6.1 runs
#           vm/6.12-icount     as vm/6.1-icount
#   latest  vm/latest          CHECK_API_TESTS, two vCPUs
#           kunit/latest       kunit.py: its own small kernel, built when
#                              our sources changed, and booted
# What each series runs: the interfaces the module meets in the kernel
# differ between series, so every series runs the interface tests; the
# scheduling (shares, latency, merging, injection) is one source on all of
# them, so its quick checks run once, on 6.12 (6.1 keeps the -icount boot's
# one share check per mechanism). The KUnit suites, plain arithmetic and
# state machines, run on the oldest series (built into the debug kernel,
# under KASAN) and the newest (kunit.py); make KVER=6.12 kunit runs them on
# 6.12. make bench runs every share and latency test on every series.
# The debug kernel is the longest build and the debug lane the longest
# lane: it builds at normal priority. kunit/latest's build is off that path
# and runs at nice 10, taking what the guests leave idle. At most
# CHECK_VM_SLOTS guests (default 2, one per core) run at a time: a TCG
# guest of these tests keeps one host core busy. CHECK_LANES=1 runs every
# step in one lane, in the order above.
#
# Every step runs even if an earlier one failed. A step prints its
# PASS:/FAIL:/SKIP: lines (from build/KVER/results/) and its time; a step
# that fails without saying which case failed adds one FAIL line of its own.
# SKIP lines count neither. The last line of output is "N passed, N failed"
# over all PASS/FAIL lines; exit status 1 if any failed.
#
# Environment: CHECK_KVERS (default "6.1 6.12 latest"), CHECK_DEBUG_KVERS
# (default 6.1), CHECK_KUNIT_KVERS (kunit.py's series, default latest),
# CHECK_FULL_KVERS (the series that runs every functional test, 6.12),
# CHECK_BUILD_KVERS (trixie),
# CHECK_API_TESTS, CHECK_STRESS_SECS (72), CHECK_STRESS_SCENARIOS (a,b; empty: all),
# CHECK_STRESS_BOOTS (debug), CHECK_ICOUNT_TESTS ("cgroup-psync merge-coop
# cgroup-writeback core-share idle-shape"),
# CHECK_LANES (3; 1: one after another), CHECK_VM_SLOTS (2).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$BFQ_TOP"

KVERS=${CHECK_KVERS:-6.1 6.12 latest}
# The stress scenarios of make check: the lifetimes (elevator switch, device
# removal, cgroup removal, shared io contexts, queue merging) and tunables
# written under I/O. make stress runs every scenario.
check_stress=sched-switch,dev-remove,cgroup,interleave,tunables,merge
DEBUG_KVERS=${CHECK_DEBUG_KVERS-6.1}
KUNIT_KVERS=${CHECK_KUNIT_KVERS-latest}
# The kernels only built (W=1 C=2 and the layout check against their BTF):
# Debian 13's 6.12, whose block layer differs from bookworm-backports'.
BUILD_KVERS=${CHECK_BUILD_KVERS-trixie}
# The series whose boot runs every functional test.
FULL_KVERS=${CHECK_FULL_KVERS-6.12}
# The tests of the interfaces the module meets in the kernel, which the
# compat layer (bfq-compat.h) adapts to each series: the elevator's life
# cycle, its tunables and depths, wbt, the blk-cgroup files and moves,
# real device drivers, data integrity.
api_tests=${CHECK_API_TESTS-load rmmod rmmod-race sched-switch tunables tag-depth wbt swap cgroup-iface cgroup-v1 cgroup-migrate cgroup-release fio-verify scsi-debug discard core-observe}
# The scheduling tests the debug boot of 6.1 runs under the checkers,
# which the full series' boot leaves out (one source on every series).
sched_debug_tests="core-classes core-strict"
# The tests make check runs under -icount instead of in the plain boot.
icount_tests=${CHECK_ICOUNT_TESTS-cgroup-psync merge-coop cgroup-writeback core-share idle-shape ranges}
logdir=$BFQ_TOP/build/check
mkdir -p "$logdir"
all=$logdir/results.txt
times=$logdir/times.txt
: > "$all"
: > "$times"

# step NAME RESULTS_FILE CMD...: run CMD, logging to build/check/NAME.log,
# then report the PASS/FAIL/SKIP lines CMD wrote to RESULTS_FILE ("-": CMD's
# exit status makes the one line "NAME"). The report is printed as one block,
# so that the two lanes' reports do not mix.
step() {
	local name=$1 results=$2 start rc lines
	shift 2
	local logf=$logdir/${name//\//_}.log rep
	rep=$(mktemp)
	[ "$results" != - ] && rm -f "$results"
	echo "== $name: $*"
	start=$SECONDS
	"$@" > "$logf" 2>&1 && rc=0 || rc=$?
	local took=$((SECONDS - start))
	if [ "$results" = - ]; then
		if [ $rc = 0 ]; then lines="PASS: $name"; else lines="FAIL: $name"; fi
	else
		lines=$(grep -E '^(PASS|FAIL|SKIP): ' "$results" 2>/dev/null || true)
		if [ $rc != 0 ] && ! grep -q '^FAIL: ' <<< "$lines"; then
			lines+=${lines:+$'\n'}"FAIL: $name (exit status $rc, see ${logf#"$BFQ_TOP"/})"
		elif ! grep -qE '^(PASS|FAIL): ' <<< "$lines"; then
			lines+=${lines:+$'\n'}"FAIL: $name (no results, see ${logf#"$BFQ_TOP"/})"
		fi
	fi
	{
		echo "$lines"
		if grep -q '^FAIL: ' <<< "$lines"; then
			echo "-- last lines of ${logf#"$BFQ_TOP"/}:"
			tail -n 25 "$logf" | sed 's/^/   | /'
		fi
		echo "-- $name took ${took}s"
	} > "$rep"
	(
		flock 8
		echo "$lines" >> "$all"
		cat "$rep"
		printf '%-18s %5ss\n' "$name" "$took" >> "$times"
	) 8> "$logdir/print.lock"
	rm -f "$rep"
}

# vm CMD...: CMD in one of the CHECK_VM_SLOTS guest slots, once one is free.
vm() {
	local i rc
	while :; do
		for i in $(seq "${CHECK_VM_SLOTS:-2}"); do
			# 200: the slot is taken (flock -E); else CMD's status.
			flock -n -E 200 "$logdir/vm-slot$i.lock" "$@" && rc=0 || rc=$?
			[ $rc = 200 ] || return $rc
		done
		sleep 2
	done
}
# build CMD...: CMD at a lower priority than the guests.
build() { nice -n 10 "$@"; }

# The out-of-tree build with W=1 and sparse; any warning fails it.
build_kver() {
	local k=$1 out=$BFQ_TOP/build/$1 res=$BFQ_TOP/build/$1/results
	mkdir -p "$res"
	rm -f "$out"/*.o "$out"/bfq.ko
	if ! make KVER="$k" W=1 C=2 2>&1 | tee "$res/build.log"; then
		echo "FAIL: build/$k" > "$res/build.txt"
	elif grep -iE 'warning:|error:' "$res/build.log" > "$res/build.warnings"; then
		echo "== $(wc -l < "$res/build.warnings") warnings:"
		cat "$res/build.warnings"
		echo "FAIL: build/$k" > "$res/build.txt"
	elif ! grep -q '^layout: .* match the BTF of ' "$res/build.log"; then
		echo "== the layout check did not run (LAYOUT_CHECK=0 set?)"
		echo "FAIL: build/$k" > "$res/build.txt"
	else
		echo "PASS: build/$k" > "$res/build.txt"
	fi
}

# lane_debug KVER: its debug kernel, then the steps that boot it.
lane_debug() {
	local k=$1
	step "debug-kernel/$k" "build/$k/results/debug-kernel.txt" \
		make KVER="$k" debug-kernel
	# Debian's kernel with our module is what vm/KVER tests (switching,
	# tunables, unloading): the stress matrix's second boot would repeat it.
	step "stress/$k" "build/$k/results/stress.txt" \
		vm env STRESS_BOOTS="${CHECK_STRESS_BOOTS:-debug}" \
		STRESS_SCENARIOS="${CHECK_STRESS_SCENARIOS-$check_stress}" \
		make KVER="$k" stress DURATION="${CHECK_STRESS_SECS:-72}" &
	# The KUnit suites run in vm-debug's boot, before its tests.
	step "vm-debug/$k" "build/$k-debug/results/vmtest.txt" \
		vm env VMTEST_APPEND="kunit.enable=1 kunit.filter_glob=bfq*" \
		make KVER="$k" vmtest-debug
	step "kunit-debug/$k" "build/$k/results/kunit-debug.txt" \
		kunit_from_vm_debug "$k"
	# A boot of its own: the KASAN report it provokes turns lockdep off.
	step "kasan-queue/$k" "build/$k/results/kasan-queue.txt" \
		vm scripts/kasan-queue.sh "$k"
	wait
}

# kunit_from_vm_debug KVER: the KUnit results of vm-debug's last boot.
kunit_from_vm_debug() {
	local glog
	glog=$(ls -t "$BFQ_TOP/build/$1-debug/vm-logs/"*.log 2>/dev/null | head -n 1)
	KUNIT_DEBUG_LOG=${glog:-none} scripts/kunit-debug.sh "$1"
}

# vm_icount KVER: the tests whose bound is a timing that plain TCG's
# jitter moves (a psync reader that re-issues late under host load loses
# its group's turn; interleaved readers whose next requests come late are
# not seen as cooperating; buffered writers kept from the CPU leave the
# device idle and the groups' shares unmeasured; a reader whose guest CPU
# also serves another range's requests reads less), in a boot of their own
# under -icount: the guest's clock counts its instructions, so a busy
# host no longer delays its timers. The tests wait on a slow null_blk,
# time that -icount's sleep=off skips: the boot takes about 60 s. One vCPU (6.1 hangs
# bringing up a second one under -icount).
vm_icount() {
	local k=$1
	step "vm/$k-icount" "build/$k/results/vmtest-$k-icount.txt" vm env \
		VM_ICOUNT=shift=0,sleep=off VM_SMP=1 VMTEST_NAME="$k-icount" \
		scripts/vmtest.sh "$k" $icount_tests
}

# lane_kver KVER: its functional VM tests, and KUnit through kunit.py for
# the series of CHECK_KUNIT_KVERS.
lane_kver() {
	local k=$1 skip
	if in_list "$k" "$DEBUG_KVERS"; then
		# The debug lane boots this series with two vCPUs and runs the
		# tests of vmtest-debug there, under the checkers: this boot
		# runs the other interface tests, on one vCPU.
		skip=" $(make -s --no-print-directory debug-tests) "
		step "vm/$k" "build/$k/results/vmtest.txt" vm env VM_SMP=1 \
			make KVER="$k" vmtest TESTS="$(without "$api_tests" "$skip")"
		vm_icount "$k"
	elif in_list "$k" "$FULL_KVERS"; then
		step "vm/$k" "build/$k/results/vmtest.txt" vm env \
			VMTEST_SKIP="$icount_tests $sched_debug_tests" \
			make KVER="$k" vmtest
		vm_icount "$k"
	else
		step "vm/$k" "build/$k/results/vmtest.txt" vm \
			make KVER="$k" vmtest TESTS="$api_tests"
	fi
	if in_list "$k" "$KUNIT_KVERS"; then
		step "kunit/$k" "build/$k/results/kunit.txt" build \
			make KVER="$k" kunit
	fi
}

# in_list WORD "A B ...": WORD is one of the list's.
in_list() { case " $2 " in *" $1 "*) return 0 ;; esac; return 1; }

# without "A B ..." " X Y ": the words of the first list not in the second.
without() {
	local t out=
	for t in $1; do
		case "$2" in *" $t "*) ;; *) out+=${out:+ }$t ;; esac
	done
	echo "$out"
}

total_start=$SECONDS
# cpu_ticks: "busy total" of the host's CPUs so far, from /proc/stat.
cpu_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8 }' /proc/stat; }
cpu0=$(cpu_ticks)
step deps - scripts/deps.sh
for k in $KVERS $BUILD_KVERS; do
	# Its own step only to time it: the cold download and unpack.
	step "fetch/$k" - make KVER="$k" fetch &
done
wait
lanes=${CHECK_LANES:-3}
for k in $KVERS $BUILD_KVERS; do
	step "build/$k" "build/$k/results/build.txt" build_kver "$k"
done
# The guests start now; the in-tree builds, checkpatch, the layout check's
# refusals and the model check (no guest) beside.
if [ "$lanes" != 1 ]; then
	for k in $KVERS; do lane_kver "$k" & done
fi
for k in $KVERS; do
	step "intree/$k" "build/$k/results/intree.txt" make KVER="$k" intree
	# The debug kernel's build is the longest step from cold: it starts as
	# soon as its tree is free (intree.sh's lock) and our module is built.
	case " $DEBUG_KVERS " in
	*" $k "*) [ "$lanes" = 1 ] || { lane_debug "$k" & } ;;
	esac
done
step checkpatch build/6.12/results/checkpatch.txt make KVER=6.12 checkpatch
for k in $KVERS; do
	step "build/layout-mismatch/$k" "build/$k/results/layout-mismatch.txt" \
		build tests/build/layout-mismatch.sh "$k"
	step "build/version-floor/$k" "build/$k/results/version-floor.txt" \
		build tests/build/version-floor.sh "$k"
done
# The layout check's BTF cache keeps each kernel's apart (the lanes build
# several at once).
step build/btf-cache build/check-btf-cache.txt \
	build tests/build/btf-cache.sh $KVERS $BUILD_KVERS
lk=${KVERS%% *}
step "lab-model/$lk" "build/$lk/results/lab-model.txt" \
	env LAB_MODEL_ONLY=1 scripts/lab.sh "$lk"

if [ "$lanes" = 1 ]; then
	for k in $DEBUG_KVERS; do lane_debug "$k"; done
	for k in $KVERS; do lane_kver "$k"; done
fi
wait

echo "== times"
sed 's/^/   /' "$times"
printf '   %-18s %5ss\n' total $((SECONDS - total_start))
# How busy the host was: below 100% the guests waited on something else.
echo "$cpu0 $(cpu_ticks)" | awk -v n="$(nproc)" '{ t = $4 - $2
	if (t > 0) printf "   host CPU busy %.0f%% of %d cores over the run\n", 100 * ($3 - $1) / t, n }'
passed=$(grep -c '^PASS: ' "$all")
failed=$(grep -c '^FAIL: ' "$all")
skipped=$(grep -c '^SKIP: ' "$all")
[ "$skipped" = 0 ] || echo "($skipped skipped, listed above with their reasons)"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
