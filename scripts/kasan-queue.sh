#!/bin/bash
# kasan-queue.sh KVER: check that the debug kernel of KVER sees a bfq_queue
# used after its free.
#
# Our queues come from a SLAB_TYPESAFE_BY_RCU cache (bfq-iosched.c says
# why). KASAN on 6.1 does not poison the objects of such a cache: a queue
# read after its free reads valid memory and nothing is reported. So the
# 6.1 debug kernel takes CONFIG_BFQ_DEBUG_QUEUE_FREE (an ordinary cache)
# and the 6.12 one CONFIG_SLUB_RCU_DEBUG (tests/debug/debug-KVER.config).
# This boot runs the one KUnit case kasan_bfq_queue.kasan_sees_bfq_queue_uaf
# (bfq-iosched-test.c), which frees a queue and reads it; KASAN must report
# the read, naming the bfq_queue cache. A report disables lockdep for the
# rest of a boot, so the case has a boot of its own.
#
# Prints and writes build/KVER/results/kasan-queue.txt:
#   PASS: debug-kasan/KVER/queue-use-after-free   (or FAIL: with the reason)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$BFQ_TOP/scripts/vm/common.sh"

KVER=${1:?usage: kasan-queue.sh 6.1|6.12}
dir=$(kver_dir "$KVER")
res=$BFQ_TOP/build/$KVER/results
mkdir -p "$res"
out=$res/kasan-queue.txt
name=debug-kasan/$KVER/queue-use-after-free
verdict() { echo "$1: $name${2:+ ($2)}" | tee "$out"; [ "$1" = PASS ]; }

vm_debug_kernel "$KVER" >/dev/null || { verdict FAIL "no debug kernel"; exit 1; }
grep -qE '^CONFIG_(BFQ_DEBUG_QUEUE_FREE|SLUB_RCU_DEBUG)=y' "$dir/debug/config" ||
	{ verdict FAIL "neither CONFIG_BFQ_DEBUG_QUEUE_FREE nor CONFIG_SLUB_RCU_DEBUG in the debug kernel"; exit 1; }

logf=$res/kasan-queue.log
base=$(vm_base_initramfs "$KVER")
start=$SECONDS
VM_DEBUG=1 vm_boot "$KVER" "$base" "$logf.raw" "${KASAN_QUEUE_TIMEOUT:-600}" \
	"kunit.enable=1 kunit.filter_glob=kasan_bfq_queue kasan_multi_shot vmtests= vmwd=60" &&
	rc=0 || rc=$?
tr -d '\r' < "$logf.raw" > "$logf"
rm -f "$logf.raw"
log "boot took $((SECONDS - start)) s, qemu status $rc (log: ${logf#"$BFQ_TOP"/})"

grep -q 'kasan_sees_bfq_queue_uaf' "$logf" ||
	{ verdict FAIL "the case did not run: see ${logf#"$BFQ_TOP"/}"; exit 1; }
# 6.1 says "use-after-free", 6.12 "slab-use-after-free".
report=$(grep -m1 -E 'BUG: KASAN: [a-z-]*use-after-free in' "$logf" || true)
[ -n "$report" ] ||
	{ verdict FAIL "no KASAN report of the freed queue's read"; exit 1; }
grep -qE 'belongs to the cache bfq_queue' "$logf" ||
	{ verdict FAIL "a KASAN report, but not of a bfq_queue object"; exit 1; }
echo "   ${report#*] }"
verdict PASS "reported: the bfq_queue cache"
