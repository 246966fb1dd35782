#!/bin/bash
# kunit-debug.sh KVER: run our KUnit suites in the debug kernel of KVER
# (scripts/debug-kernel.sh builds them in, CONFIG_BFQ_KUNIT_TEST=y), under
# KASAN, lockdep and the other checkers of tests/debug/debug.config.
#
# The same suites as scripts/kunit.sh, without a kernel build of their own:
# make check builds the debug kernel anyway, so one build serves both. The
# kernel runs KUnit only when asked (CONFIG_KUNIT_DEFAULT_ENABLED=n; the
# other debug boots do not run the suites): this boot passes kunit.enable=1
# and kunit.filter_glob, runs no VM test, and powers off. Its console goes
# through kunit.py's parser (the linux-source tree's tools/testing/kunit).
#
# Writes build/KVER/results/kunit-debug.txt:
#   PASS: kunit-debug/KVER/<suite>.<case>   (FAIL:, SKIP: counts neither)
#   PASS: kunit-debug/KVER/dmesg-clean      no checker report in the boot
# Environment: KUNIT_FILTER (default 'bfq*'), KUNIT_TIMEOUT (seconds for
# the boot, default 900), KUNIT_DEBUG_LOG (a guest log of the debug kernel
# booted with kunit.enable=1 kunit.filter_glob=..., e.g. vm-debug's with
# VMTEST_APPEND: its suites are read from there and nothing is booted;
# make check does this to save a boot).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$BFQ_TOP/scripts/vm/common.sh"

KVER=${1:?usage: kunit-debug.sh 6.1|6.12}
dir=$(kver_dir "$KVER")
res=$BFQ_TOP/build/$KVER/results
mkdir -p "$res"
out=$res/kunit-debug.txt
: > "$out"
vm_debug_kernel "$KVER" >/dev/null || {
	echo "FAIL: kunit-debug/$KVER/boot (no debug kernel)" | tee "$out"
	exit 1
}
grep -q '^CONFIG_BFQ_KUNIT_TEST=y' "$dir/debug/config" || {
	echo "FAIL: kunit-debug/$KVER/config (CONFIG_BFQ_KUNIT_TEST not in the debug kernel)" | tee "$out"
	exit 1
}

logf=$res/kunit-debug.log
if [ -n "${KUNIT_DEBUG_LOG:-}" ]; then
	[ -f "$KUNIT_DEBUG_LOG" ] || {
		echo "FAIL: kunit-debug/$KVER/boot (no guest log $KUNIT_DEBUG_LOG)" | tee "$out"
		exit 1
	}
	grep -q 'kunit.enable=1' "$KUNIT_DEBUG_LOG" || {
		echo "FAIL: kunit-debug/$KVER/boot (${KUNIT_DEBUG_LOG#"$BFQ_TOP"/} is not of a boot with kunit.enable=1)" | tee "$out"
		exit 1
	}
	log "the suites of ${KUNIT_DEBUG_LOG#"$BFQ_TOP"/}"
	# Up to the kernel log the guest dumps at its end, which holds the
	# suites' output a second time unless the ring buffer has dropped it
	# (kunit.py would count each suite twice).
	tr -d '\r' < "$KUNIT_DEBUG_LOG" | sed '/^VMTEST-DMESG-BEGIN/,$d' > "$logf"
	rc=0
else
	base=$(vm_base_initramfs "$KVER")
	tmo=${KUNIT_TIMEOUT:-900}
	log "booting the $KVER debug kernel for KUnit ${KUNIT_FILTER:-bfq*} (log: ${logf#"$BFQ_TOP"/})"
	start=$SECONDS
	VM_DEBUG=1 vm_boot "$KVER" "$base" "$logf.raw" "$tmo" \
		"kunit.enable=1 kunit.filter_glob=${KUNIT_FILTER:-bfq*} vmtests= vmwd=60" &&
		rc=0 || rc=$?
	tr -d '\r' < "$logf.raw" > "$logf"
	rm -f "$logf.raw"
	log "boot took $((SECONDS - start)) s, qemu status $rc"
fi

rm -f "$res/kunit-debug.json"
(cd "$dir/linux" && python3 tools/testing/kunit/kunit.py parse \
	--json="$res/kunit-debug.json" "$logf") > "$res/kunit-debug.parse" 2>&1 ||
	{ [ "$rc" != 0 ] || rc=1; }
grep -E 'Testing complete|passed|failed|crashed|error' "$res/kunit-debug.parse" |
	tail -n 5 || true
if [ -s "$res/kunit-debug.json" ]; then
	python3 "$BFQ_TOP/scripts/kunit-results.py" "$res/kunit-debug.json" \
		"$KVER" "$rc" | sed 's|kunit/|kunit-debug/|' >> "$out"
else
	echo "FAIL: kunit-debug/$KVER/parse (no results in the console; see ${logf#"$BFQ_TOP"/})" >> "$out"
fi
if grep -Eq "$VM_REPORT_RE" "$logf"; then
	echo "FAIL: kunit-debug/$KVER/dmesg-clean" >> "$out"
	grep -m20 -En "$VM_REPORT_RE" "$logf" | sed 's/^/   /'
else
	echo "PASS: kunit-debug/$KVER/dmesg-clean" >> "$out"
fi
grep -c '^PASS:' "$out" | sed 's/$/ cases passed/'
grep '^\(FAIL\|SKIP\):' "$out" || true
! grep -q '^FAIL:' "$out"
