# Early queue merge (issue 8): 4 processes reading one region in
# interleaved 4 KiB strides (fio rw=read:12k, job i at offset i * 4 KiB:
# job i reads blocks i, i+4, i+8, ...), psync, on a null_blk that serves
# one request at a time in MERGE_CNSEC ns whatever its size (timer mode,
# hw_queue_depth 1: merged, larger requests are measurable), with
# queue/rotational 0 and then 1. Aggregate throughput of ours, ours with
# merging prevented (module parameter coop_merge=0), stock bfq,
# mq-deadline and none, each the median of MERGE_ROUNDS runs, interleaved.
# Control: 4 random 4 KiB readers of the same device.
#
# Asserted, on each rotational setting: ours merges the interleaved
# readers (the merges counter of sched/service_trees grows), never with
# coop_merge=0; the throughput bounds: ours >= MERGE_MIN_GAIN x
# ours with merging prevented, and >= stock; the random readers cause no
# merge, and ours keeps at least MERGE_CTRL_FLOOR of its throughput with
# merging prevented. MERGE_ASSERT_TPUT=0 only reports the throughput
# bounds ("bound met / not met yet (reported)"). The mean size of the
# requests the device saw (KiB/rq, from its stat) is in the table: the
# merged queue's gain is its larger requests (rules G and L of
# bfq-merge.c).
#
# Quick form (VM_QUICK=1, make check): rotational 0 only, one round, ours
# against ours with merging prevented: it merges, the gain is >= 1.5x
# (single runs measure 2.2-2.7x), the random readers lose <= 25%. The full
# form above is make bench's. make check runs the quick form under
# VM_ICOUNT: on plain TCG a loaded host delays the readers' next requests
# and the gain drops with it (1.48x once).
# vmtest-timeout: 600
. /tests/lib.sh
# Single runs' gain spreads by about +-10% (2.2-2.7x), so medians of 3;
# see docs/results/2026-11-25-merge-coop.md.
ROUNDS=${MERGE_ROUNDS:-3}
SECS=${MERGE_SECS:-4}
CNSEC=${MERGE_CNSEC:-2000000}
# The bounds: 2x with merging, at least stock's.
MIN_GAIN=${MERGE_MIN_GAIN:-2}
STOCK_FLOOR=${MERGE_STOCK_FLOOR:-1}
ROTS="0 1"
# Random readers on a device serving one request at a time run at its
# pace whatever the scheduler, but single 4 s runs of them spread by about
# +-6%: a loss beyond 15% would be ours, not noise.
CTRL_FLOOR=${MERGE_CTRL_FLOOR:-0.85}
SCHEDS="ours nomerge stock mq-deadline none"
if [ "${VM_QUICK:-0}" = 1 ]; then
	ROUNDS=${MERGE_ROUNDS:-1} MIN_GAIN=${MERGE_MIN_GAIN:-1.5}
	CTRL_FLOOR=${MERGE_CTRL_FLOOR:-0.75}
	SCHEDS="ours nomerge" ROTS=0
fi
PARAM=/sys/module/bfq/parameters/coop_merge

dev=$(mk_nullb mg0 size=1024 memory_backed=0 irqmode=2 \
	completion_nsec=$CNSEC hw_queue_depth=1 submit_queues=1) ||
	die "cannot create mg0"
NR_REQ=${MERGE_NR_REQUESTS:-128}

# bound DESC CMD...: an issue bound, only reported with MERGE_ASSERT_TPUT=0.
bound() {
	local d=$1; shift
	if [ "${MERGE_ASSERT_TPUT:-1}" = 1 ]; then check "$d" "$@"
	elif "$@"; then echo "bound met (reported): $d"
	else echo "bound not met yet (reported): $d"; fi
}

# use S: select scheduler S on the device (ours with coop_merge 1 or 0).
use() {
	case $1 in
	ours|nomerge)
		bfq_loaded && [ -e $PARAM ] || load_ours > /dev/null || return 1
		if [ $1 = ours ]; then echo 1 > $PARAM; else echo 0 > $PARAM; fi
		set_sched $dev bfq ;;
	stock) load_stock > /dev/null && set_sched $dev bfq ;;
	*) unload_bfq && set_sched $dev $1 ;;
	esac || return 1
	# An elevator's requests, beyond the device's 1 (none has no more).
	[ $1 = none ] || echo $NR_REQ > /sys/block/$dev/queue/nr_requests
}

# The device's completed reads and sectors read so far.
devstat() { awk '{ print $1, $3 }' /sys/block/$dev/stat; }

merges() {
	sed -n 's/^merges=\([0-9]*\).*/\1/p' \
		/sys/kernel/debug/block/$dev/sched/service_trees 2>/dev/null
}

# run interleaved|random: aggregate KiB/s of the 4 readers.
run() {
	local pat="--rw=read:12k" i jobs=
	[ $1 = random ] && pat="--rw=randread --randrepeat=0"
	for i in 0 1 2 3; do
		if [ $1 = random ]; then jobs="$jobs --name=r$i"
		else jobs="$jobs --name=r$i --offset=$((i * 4))k"; fi
	done
	fio --filename=/dev/$dev --direct=1 --ioengine=psync --bs=4k $pat \
		--size=512M --time_based --runtime=$SECS --ramp_time=1 \
		--group_reporting --output-format=terse --output=/tmp/mg.t \
		$jobs > /dev/null 2>&1
	cut -d';' -f7 /tmp/mg.t
}

for rot in $ROTS; do
	echo $rot > /sys/block/$dev/queue/rotational
	rm -f /tmp/mg-*
	for r in $(seq $ROUNDS); do
		for s in $SCHEDS; do
			use $s || die "cannot select $s"
			for w in interleaved random; do
				m0=$(merges)
				set -- $(devstat)
				v=$(run $w)
				m1=$(merges)
				set -- $(devstat) $1 $2
				kib=$(awk -v n=$(($1 - $3)) -v s=$(($2 - $4)) 'BEGIN { printf "%.1f", n ? s / n / 2 : 0 }')
				echo "$kib" >> /tmp/mg-$s-$w-kib
				echo "$v" >> /tmp/mg-$s-$w
				case $s in ours|nomerge)
					echo $((m1 - m0)) >> /tmp/mg-$s-$w-merges ;;
				esac
				echo "rot $rot round $r $s $w KiB/s $v merges $m0..$m1 KiB/request $kib"
			done
		done
	done
	echo "rotational=$rot, ${CNSEC} ns a request, depth 1, 4 psync readers, median of $ROUNDS x ${SECS}s (KiB/s)"
	printf '%-12s %12s %9s %12s %8s\n' scheduler interleaved KiB/rq random merges
	for s in $SCHEDS; do
		mm=-
		[ -f /tmp/mg-$s-interleaved-merges ] &&
			mm=$(median < /tmp/mg-$s-interleaved-merges)
		printf '%-12s %12s %9s %12s %8s\n' $s \
			$(median < /tmp/mg-$s-interleaved) \
			$(median < /tmp/mg-$s-interleaved-kib) \
			$(median < /tmp/mg-$s-random) $mm
	done
	ours=$(median < /tmp/mg-ours-interleaved)
	nom=$(median < /tmp/mg-nomerge-interleaved)
	stock=
	[ -f /tmp/mg-stock-interleaved ] && stock=$(median < /tmp/mg-stock-interleaved)
	check "rot $rot: ours merged the interleaved readers" \
		[ "$(median < /tmp/mg-ours-interleaved-merges)" -gt 0 ]
	check "rot $rot: no merge with coop_merge=0" \
		[ "$(cat /tmp/mg-nomerge-interleaved-merges /tmp/mg-nomerge-random-merges | sort -n | tail -1)" = 0 ]
	bound "rot $rot: ours $ours >= $MIN_GAIN x ours without merging $nom" \
		awk -v a=$ours -v b=$nom -v k=$MIN_GAIN 'BEGIN { exit !(a >= k * b) }'
	[ -z "$stock" ] ||
	bound "rot $rot: ours $ours >= $STOCK_FLOOR x stock $stock" \
		awk -v a=$ours -v b=$stock -v k=$STOCK_FLOOR 'BEGIN { exit !(a >= k * b) }'
	check "rot $rot: random readers never merged" \
		[ "$(sort -n /tmp/mg-ours-random-merges | tail -1)" = 0 ]
	ro=$(median < /tmp/mg-ours-random)
	rn=$(median < /tmp/mg-nomerge-random)
	check "rot $rot: random readers $ro >= $CTRL_FLOOR x $rn without merging" \
		awk -v a=$ro -v b=$rn -v k=$CTRL_FLOOR 'BEGIN { exit !(a >= k * b) }'
done
[ -e $PARAM ] && echo 1 > $PARAM
set_sched $dev none
rm_nullb mg0
unload_bfq
finish
