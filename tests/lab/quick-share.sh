# Quick share case (make lab QUICK=1, in make check): two sequential
# readers of 128 KiB direct reads, ioprio BE0 (bfq weight 80) in the
# inner zone's last 128 MiB and BE4 (weight 40) at the outer edge, on the
# disk model, low_latency=0; ours asserted, stock printed beside it.
# bfq's budgets count sectors, so the BE0 reader should read twice the
# bytes although its zone is half as fast; a time-sliced or a FIFO
# scheduler would give it about the same time or the same requests.
#
# Bounds, loose for TCG (see docs/results/ for measured values):
# BE0:BE4 bytes between 1.5 and 2.6 (ideal 2), and both readers together
# at least half the inner zone's modelled rate (idling keeps each reader
# sequential; alternating requests between the two ends would cost a
# full-stroke seek and a rotation per 128 KiB, a third of that rate).
# vmtest-timeout: 150
. /tests/lib.sh
. /tests/guest-lib.sh
. /tests/lab-lib.sh
SECS=${LAB_SECS:-10}
inner_mbps=$($LAB_MODEL -E | awk '$1 == "seq_inner_MBps" { print $2 }')
lab_start

# share S: one run; prints "BE0_KiB BE4_KiB".
share() {
	lab_sched "$1" || return 1
	echo 0 > /sys/block/$DEV/queue/iosched/low_latency
	ionice -c2 -n0 fio --name=hi --filename=/dev/$DEV --direct=1 \
		--ioengine=psync --rw=read --bs=128k \
		--offset=$((DEV_BYTES - 128 * 1048576)) --size=128M \
		--time_based --runtime=$SECS --output-format=terse \
		--output=/tmp/hi.t &
	ionice -c2 -n4 fio --name=lo --filename=/dev/$DEV --direct=1 \
		--ioengine=psync --rw=read --bs=128k --offset=0 --size=128M \
		--time_based --runtime=$SECS --output-format=terse \
		--output=/tmp/lo.t &
	wait
	echo "$(cut -d';' -f6 /tmp/hi.t) $(cut -d';' -f6 /tmp/lo.t)"
}

lab_table quick-share
printf '%-6s %10s %10s %7s %9s\n' sched BE0_KiB BE4_KiB ratio 'MB/s'
for s in ours stock; do
	set -- $(share $s)
	ratio=$(awk -v a=$1 -v b=$2 'BEGIN { printf "%.2f", (b > 0) ? a / b : 99 }')
	mbps=$(awk -v a=$1 -v b=$2 -v t=$SECS 'BEGIN { printf "%.2f", (a + b) * 1024 / t / 1e6 }')
	printf '%-6s %10s %10s %7s %9s\n' $s $1 $2 $ratio $mbps
	lab_data quick-share "sched=$s be0_kib=$1 be4_kib=$2 ratio=$ratio mbps=$mbps"
	[ $s = ours ] && r_ours=$ratio m_ours=$mbps
done
lab_end
unload_bfq
check "ours: BE0:BE4 bytes $r_ours within [1.5, 2.6]" \
	awk -v r=$r_ours 'BEGIN { exit !(r >= 1.5 && r <= 2.6) }'
check "ours: $m_ours MB/s >= half the inner rate $inner_mbps" \
	awk -v m=$m_ours -v i=$inner_mbps 'BEGIN { exit !(m >= i / 2) }'
lab_stop
finish
