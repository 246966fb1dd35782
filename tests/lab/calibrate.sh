# Calibration of the disk model (tests/lab/diskmodel.c), in the guest with
# fio, scheduler none (the device alone is measured):
#   path   what the guest, nbd and the server cost by themselves under
#          TCG: 1 MiB reads from a model that takes no time (the SSD model,
#          0 latency, no bandwidth ceiling), and 4 KiB reads at depth 1
#          from one that takes a constant time, the disk's mean (the SSD
#          model, one channel): their completion time beyond it is the
#          path's (the guest's CPUs sleep and wake as with the disk)
#   disk   sequential 1 MiB direct reads at the outer edge (offset 0) and
#          the inner edge (the last 256 MiB), 4 KiB random reads over the
#          whole disk at depth 1, against the model's own figures
#          (diskmodel -E)
# then fio --verify on the model (written data read back, crc32c).
#
# Tolerances: the rates within 10% of the model's (when the path can carry
# twice the outer rate, see below); the random IOPS within
# 10% of 1 / (the model's mean service time + the path's time per request
# at depth 1), the raw ratio printed beside it. On a real disk
# (LAB_DEV=sdX) the table is printed and the model's columns are what a
# datasheet disk of the model's figures would do.
# vmtest-timeout: 300
. /tests/lib.sh
. /tests/guest-lib.sh
. /tests/lab-lib.sh
SECS=${LAB_CAL_SECS:-8}
SEQ_DEPTH=${LAB_CAL_DEPTH:-4}

$LAB_MODEL -E > /tmp/expect || die "diskmodel -E failed"
exp() { awk -v k=$1 '$1 == k { print $2 }' /tmp/expect; }
within() { awk -v m=$1 -v e=$2 -v tol=$3 'BEGIN { exit !(m >= e * (1 - tol) && m <= e * (1 + tol)) }'; }

# 1 MiB reads, SEQ_DEPTH in flight: the next request is in the drive
# when the previous ends, as with a kernel's readahead.
seq_mbps() {
	lab_fio --name=seq --filename=/dev/$DEV --direct=1 --ioengine=libaio \
		--iodepth=$SEQ_DEPTH --rw=read --bs=1M --offset=$1 --size=1G \
		--time_based --runtime=$SECS
	awk -v k=$(lab_t 7) 'BEGIN { printf "%.2f\n", k * 1024 / 1e6 }'
}
# rand4k: IOPS and mean completion ms of 4 KiB random reads at depth 1.
rand4k() {
	lab_fio --name=rand --filename=/dev/$DEV --direct=1 --ioengine=psync \
		--rw=randread --bs=4k --time_based --runtime=$1 --randseed=7
	echo "$(lab_t 8) $(awk -v u=$(lab_t 16) 'BEGIN { printf "%.2f\n", u / 1000 }')"
}

lab_start -m ssd --lat-us 0 --bw-mbps 1000000 -r 1
lab_sched none
path_mbps=$(seq_mbps 0)
lab_stop
lab_start -m ssd -c 1 --lat-us $(awk -v m=$(exp rand4k_ms) 'BEGIN { print m * 1000 }') \
	--bw-mbps 1000000 -r 1
lab_sched none
set -- $(rand4k $SECS)
path_ms=$(awk -v c=$2 -v m=$(exp rand4k_ms) 'BEGIN { printf "%.2f", c - m }')
lab_stop

lab_start
lab_sched none
outer=$(seq_mbps 0)
inner=$(seq_mbps $((DEV_BYTES - 256 * 1048576)))
set -- $(rand4k $((SECS * 2)))
iops=$1 clat_ms=$2
seen_iops=$(awk -v m=$(exp rand4k_ms) -v p=$path_ms 'BEGIN { printf "%.1f", 1000 / (m + p) }')

lab_table calibration
echo "path: 1 MiB reads at depth $SEQ_DEPTH from a model taking no time $path_mbps MB/s;"
echo "      4 KiB reads at depth 1 from a model taking $(exp rand4k_ms) ms: $path_ms ms more"
printf '%-26s %10s %10s %8s\n' measure model measured ratio
row() {
	printf '%-26s %10s %10s %8s\n' "$1" "$2" "$3" \
		"$(awk -v a=$3 -v b=$2 'BEGIN { printf "%.3f", a / b }')"
	lab_data calibration "measure=$1 model=$2 measured=$3"
}
row seq-1M-outer-MB/s $(exp seq_outer_MBps) $outer
row seq-1M-inner-MB/s $(exp seq_inner_MBps) $inner
row rand-4k-qd1-IOPS $(exp rand4k_iops) $iops
row rand-4k-qd1-IOPS+path $seen_iops $iops
row rand-4k-qd1-latency-ms $(exp rand4k_ms) $clat_ms
lab_data calibration "measure=path-seq-1M-MB/s model=- measured=$path_mbps"
lab_data calibration "measure=path-4k-qd1-extra-ms model=- measured=$path_ms"
lab_end

# The rates are only asserted when the path could carry twice the outer
# one: beside another VM on a 2-core host it can move a tenth of what it
# moves alone, and then it is the host, not the model, that the rates
# measure.
if awk -v p=$path_mbps -v o=$(exp seq_outer_MBps) 'BEGIN { exit !(p >= 2 * o) }'; then
	check "outer rate $outer MB/s within 10% of $(exp seq_outer_MBps)" \
		within $outer $(exp seq_outer_MBps) 0.10
	check "inner rate $inner MB/s within 10% of $(exp seq_inner_MBps)" \
		within $inner $(exp seq_inner_MBps) 0.10
else
	echo "rates not checked: the path moves only $path_mbps MB/s (a loaded host?)"
fi
check "random 4k $iops IOPS within 10% of $seen_iops (model + path)" \
	within $iops $seen_iops 0.10

# Verify: 16 MiB written sequentially in 64 KiB blocks and 4 MiB at
# random in 4-64 KiB blocks, 8 in flight, each read back and checked.
check "fio verify, sequential" fio --name=vseq --filename=/dev/$DEV \
	--direct=1 --ioengine=libaio --iodepth=8 --rw=write --bs=64k \
	--offset=1G --size=16M --verify=crc32c --verify_fatal=1 --output=/tmp/v1
fiosum /tmp/v1
check "fio verify, random" fio --name=vrand --filename=/dev/$DEV \
	--direct=1 --ioengine=libaio --iodepth=8 --rw=randwrite \
	--bsrange=4k-64k --offset=2G --size=4M --verify=crc32c \
	--verify_fatal=1 --output=/tmp/v2
fiosum /tmp/v2
lab_stop
finish
