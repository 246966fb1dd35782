# vmtest-tier: bench
# vmtest-timeout: 600
# Group shares for processes that issue one request at a time (fio psync,
# O_DIRECT 4 KiB reads): equal-weight groups, 4 readers against 1, and one
# reader each at 100 : 300, on a null_blk with 100 us timer completions,
# at hardware depth 1 and 32, with the device's default nr_requests (2
# scheduler tags at depth 1), low_latency 0.
#
# A psync reader's queue empties at every completion: only idling (and a
# tag for the reader the device idles for) keeps its group's turn while its
# next request is on the way. Ratios: the second group's bytes over the
# first's, ROUNDS windows of WIN s, median; want 1 and 3, within TOL.
# Environment (for investigations): CGP_DEPTHS ("1 32"), CGP_CASES
# ("b a"), CGP_RW (read or randread), CGP_LL (0).
. /tests/lib.sh
G=$CG2/cgp
PIDS=
cleanup() { stop_readers; rm_groups; rm_nullb cgp0; }
trap 'cleanup >/dev/null 2>&1' EXIT
if [ "${VM_QUICK:-0}" = 1 ]; then
	WIN=2 ROUNDS=3 TOL=0.15
else
	WIN=3 ROUNDS=5 TOL=0.05
fi
LEAD=2
RW=${CGP_RW:-read}

load_bfq || die "insmod of the $VM_IMPL bfq.ko failed"
cg2_io || die "no cgroup v2 io controller"

reader() {
	local g=$1 off=$2; shift 2
	cg_run "$G/$g" fio --name="$g" --filename=/dev/$dev --direct=1 \
		--ioengine=psync --rw=$RW --bs=4k --size=256M \
		--offset="${off}M" --time_based --runtime=120 \
		--output=/dev/null "$@"
	PIDS="$PIDS $!"
}
rbytes() { sed -n "s/^$MM rbytes=\([0-9]*\) .*/\1/p" "$G/$1/io.stat"; }
# ratio G1 G2: the median over the windows of G2's bytes / G1's.
ratio() {
	local i a0 b0 a1 b1 r=
	sleep $LEAD
	a0=$(rbytes $1); b0=$(rbytes $2)
	for i in $(seq $ROUNDS); do
		sleep $WIN
		a1=$(rbytes $1); b1=$(rbytes $2)
		r="$r $(awk -v a=$((a1 - a0)) -v b=$((b1 - b0)) 'BEGIN { printf "%.3f", (a > 0) ? b / a : 999 }')"
		echo "  window $i: KiB $(( (a1 - a0) / 1024 )) $(( (b1 - b0) / 1024 ))" >&2
		a0=$a1; b0=$b1
	done
	echo "$r" >&2
	echo $r | median
}
within() { awk "BEGIN { d = $1 / $2 - 1; exit !(d <= $TOL && d >= -$TOL) }"; }

for depth in ${CGP_DEPTHS:-1 32}; do
	dev=$(mk_nullb cgp0 size=4096 memory_backed=0 irqmode=2 \
		completion_nsec=100000 hw_queue_depth=$depth submit_queues=1) ||
		die "cannot create cgp0"
	MM=$(cat /sys/block/$dev/dev)
	set_sched "$dev" bfq || die "cannot select bfq on $dev"
	echo ${CGP_LL:-0} > /sys/block/$dev/queue/iosched/low_latency
	echo "depth $depth: nr_requests $(cat /sys/block/$dev/queue/nr_requests)"
	mkdir $G && echo +io > $G/cgroup.subtree_control || die "cannot make $G"
	for c in ${CGP_CASES:-b a}; do
		case $c in
		b)	mkdir $G/b1 $G/b2
			reader b1 0 --numjobs=4 --offset_increment=256M
			reader b2 1024
			m=$(ratio b2 b1); want=1
			desc="4 readers : 1, equal weights" ;;
		a)	mkdir $G/a1 $G/a2
			echo 300 > $G/a2/io.bfq.weight
			reader a1 0; reader a2 256
			m=$(ratio a1 a2); want=3
			desc="100 : 300, one reader each" ;;
		esac
		echo "depth $depth, $desc: median $m (want $want)"
		check "depth $depth, $desc: median $m within $(awk -v t=$TOL 'BEGIN { print t * 100 }')% of $want" \
			within "$m" "$want"
		stop_readers
		rm_groups
		mkdir $G && echo +io > $G/cgroup.subtree_control
	done
	rm_groups
	rm_nullb cgp0
done
finish
