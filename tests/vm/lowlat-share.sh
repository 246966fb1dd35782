# Fairness is back once raising ends (issue 6): the core's share case
# (tests/vm/core-share.sh: BE0 vs BE4 psync sequential readers, raw
# null_blk, 1 ms, one-request queue) with low_latency=1, counting only the
# 5 s after the first 10 s (our interactive raising lasts at most 10 s):
# median of 3 rounds > 1.3, the bound core-share asserts with low_latency=0.
# Quick form (VM_QUICK=1, make check): one round, the same bound (a round
# measures about 2, the ideal).
# vmtest-timeout: 150
. /tests/lib.sh
. /tests/ll-lib.sh
trap 'rm_nullb share0 >/dev/null 2>&1' EXIT
load_bfq || die "insmod of the $VM_IMPL bfq.ko failed"
dev=$(mk_nullb share0 size=2048 memory_backed=0 irqmode=2 \
	completion_nsec=1000000 hw_queue_depth=1 submit_queues=1) ||
	die "cannot create share0"
set_sched "$dev" bfq || die "cannot select bfq on $dev"
rounds=3
[ "${VM_QUICK:-0}" = 1 ] && rounds=1
for r in $(seq $rounds); do ll_rec sh "$(ll_share $dev 1 10 5 0 4)"; done
m=$(ll_med sh)
check "low_latency=1, after 10 s: BE0 gets > 1.3x BE4 (ratios $(ll_all sh), median $m, ideal 2)" \
	awk -v m=$m 'BEGIN { exit !(m > 1.3) }'
set_sched "$dev" none
rm_nullb share0
unload_bfq
finish
