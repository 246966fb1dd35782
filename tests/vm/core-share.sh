# Weighted shares: two psync sequential 4k readers at BE0 vs BE4 (weights
# 80:40, ideal 2.0) and BE0 vs BE7 (80:10, ideal 8.0), low_latency=0.
#
# null_blk with a 1 ms timer completion and a one-request hardware queue:
# under TCG a 4k request costs the guest ~1-2 ms of CPU, so with a shorter
# service time the disk sits idle and no scheduler has a choice to make.
# Only the direction and a loose lower bound are asserted, on the median of
# three rounds: TCG jitter (a loaded host) shortens the readers' think
# time unevenly and bfq's idling windows then expire. Measured medians on a
# quiet host and the bounds' margin are in docs/results/.
. /tests/lib.sh
trap 'rm_nullb share0 >/dev/null 2>&1' EXIT
# Quick form (VM_QUICK=1, make check): 3 s runs, the same bounds.
SECS=${SHARE_SECS:-5}
[ "${VM_QUICK:-0}" = 1 ] && SECS=${SHARE_SECS:-3}
ROUNDS=${SHARE_ROUNDS:-3}

load_bfq || die "insmod of the $VM_IMPL bfq.ko failed"
dev=$(mk_nullb share0 size=2048 memory_backed=0 irqmode=2 \
	completion_nsec=1000000 hw_queue_depth=1 submit_queues=1) ||
	die "cannot create share0"
set_sched "$dev" bfq || die "cannot select bfq on $dev"
echo 0 > /sys/block/$dev/queue/iosched/low_latency

# pair A B: prints the ratio of BE A's bytes to BE B's over SECS seconds.
pair() {
	local r
	for r in $1 $2; do
		ionice -c2 -n$r fio --name=p$r --filename=/dev/$dev --direct=1 \
			--ioengine=psync --rw=read --bs=4k --size=256M \
			--offset=$((r * 256))M --time_based --runtime=$SECS \
			--output-format=terse --output=/tmp/p$r.t &
	done
	wait
	a=$(cut -d';' -f6 /tmp/p$1.t); b=$(cut -d';' -f6 /tmp/p$2.t)
	echo "  be$1:be$2 $a:$b KiB" >&2
	awk "BEGIN { printf \"%.2f\n\", ($b > 0) ? $a / $b : 999 }"
}
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

r4= r7=
for i in $(seq $ROUNDS); do
	r4="$r4 $(pair 0 4)"
	r7="$r7 $(pair 0 7)"
done
m4=$(echo $r4 | median); m7=$(echo $r7 | median)
echo "BE0:BE4 ratios:$r4 median $m4 (ideal 2.0)"
echo "BE0:BE7 ratios:$r7 median $m7 (ideal 8.0)"
check "BE0 gets > 1.3x BE4 (median $m4)" awk "BEGIN { exit !($m4 > 1.3) }"
check "BE0 gets > 2x BE7 (median $m7)" awk "BEGIN { exit !($m7 > 2.0) }"
check "BE7 gets less than BE4 (medians $m7 > $m4)" awk "BEGIN { exit !($m7 > $m4) }"
set_sched "$dev" none
rm_nullb share0
unload_bfq
finish
