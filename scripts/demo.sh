#!/bin/bash
# demo.sh: the README's main job, on a fresh Debian 12 machine.
#
# Installs the host packages, fetches Debian's 6.1 kernel and builds our
# bfq.ko for it, then boots that kernel once under QEMU: two readers, at
# best-effort I/O priority 0 and 7, share a null_blk disk whose one-request
# queue makes them contend, under our bfq, the stock bfq and mq-deadline.
# Prints the bandwidth table and writes build/demo/{results.txt,
# results.json,bandwidth.png} and the guest log build/demo/demo-<time>.log.
#
# Environment: DEMO_SECS (seconds per run, default 10), CNSEC (null_blk
# completion time in ns, default 2000000), KVER (default 6.1),
# DEMO_SKIP_BUILD=1 (use the bfq.ko already in build/KVER/).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$BFQ_TOP/scripts/vm/common.sh"

KVER=${KVER:-6.1}
secs=${DEMO_SECS:-10}
# 2 ms: under TCG each request costs the guest ~2 ms of CPU besides the
# device time, so a 100-500 us service time leaves the disk mostly idle and
# no scheduler has a choice to make (psync readers on a quiet host: stock
# bfq 1.1:1 at 250 us, 1.4:1 at 500 us, 7.2:1 at 2 ms). The readers use
# libaio with 4 requests in flight and the disk 64 scheduler tags, so both
# stay backlogged in the scheduler even when a loaded host slows the guest
# (stock bfq 6.7:1 at host load 5 on 2 cores; with synchronous readers it
# fell to 1.3:1 there, bfq's 8 ms idling window being too short for TCG).
cnsec=${CNSEC:-2000000}

"$BFQ_TOP/scripts/deps.sh"
if [ "${DEMO_SKIP_BUILD:-0}" = 1 ]; then
	"$BFQ_TOP/scripts/fetch-kernel.sh" "$KVER"
else
	make -C "$BFQ_TOP" KVER="$KVER"
fi
ko=$BFQ_TOP/build/$KVER/bfq.ko
[ -f "$ko" ] || die "$ko was not built"

out=$BFQ_TOP/build/demo
mkdir -p "$out"
logf=$out/demo-$(date +%Y%m%d-%H%M%S).log
base=$(vm_base_initramfs "$KVER")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
vm_overlay "$KVER" "$work/overlay.cpio" "$ko" \
	"$BFQ_TOP/tests/vm/lib.sh" "$BFQ_TOP/scripts/vm/demo-guest.sh"
cat "$base" "$work/overlay.cpio" > "$work/initrd.cpio"

# Three runs of $secs seconds, the boot and the module loads.
tmo=$((3 * secs + 120))
DEMO_HOST_LOAD=$(cut -d' ' -f1 /proc/loadavg)
export DEMO_HOST_LOAD
log "booting $KVER: ours, stock bfq and mq-deadline, ${secs}s each (log: $logf)"
set +e
vm_boot "$KVER" "$work/initrd.cpio" "$logf" $((tmo + 60)) \
	"vmtests=demo-guest vmtimeout=$tmo vmwd=$((tmo + 30)) DEMO_SECS=$secs CNSEC=$cnsec"
set -e
if ! grep -q 'VMDEMO-FINISHED' "$logf"; then
	echo "demo: the guest did not finish; log: $logf" >&2
	grep -E 'VMDEMO-ERROR|not ok|Oops|BUG:' "$logf" >&2 || true
	exit 1
fi
grep -E 'VMDEMO-ERROR' "$logf" >&2 || true
/usr/bin/python3 "$BFQ_TOP/scripts/vm/demo-report.py" "$logf" "$out"
echo "guest log: $logf"
