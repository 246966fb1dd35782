# Experiment 4: the DBMS mix of BFQ's 2007 results
# (bfq-v0-results-linux-2.6.21.txt: 100 processes of 4 KiB direct random
# reads in a 5 GB file, 1 and 10 outstanding each; BFQ 0.92 s / 0.44 MB/s
# and 7.93 s / 0.49 MB/s, C-LOOK/AS 0.67 s / 0.62 MB/s and 5.52 s /
# 0.71 MB/s). Here LAB_DBMS_JOBS fio jobs (default 32, for TCG's CPU)
# read at random in one region of the disk a sixth of its size (the
# 2007 file was 5 GB of a 30 GB disk): psync (1 outstanding) and libaio
# at depth 10. Per scheduler: mean completion time of a request (fio's
# clat; its distribution for the report's plot) and the aggregate
# throughput.
#
# On a real disk: LAB_DEV=sdX sh exp4-dbms.sh, or the fio command below.
# vmtest-timeout: 400
. /tests/lib.sh
. /tests/guest-lib.sh
. /tests/lab-lib.sh
SECS=${LAB_SECS:-20}
JOBS=${LAB_DBMS_JOBS:-32}
lab_start
region=$((DEV_BYTES / 6 / 1048576))M

# dbms DEPTH: one run; leaves fio's terse line in /tmp/lab.t.
dbms() {
	local eng=psync
	[ $1 -gt 1 ] && eng=libaio
	lab_fio --name=dbms --filename=/dev/$DEV --direct=1 --ioengine=$eng \
		--iodepth=$1 --rw=randread --bs=4k --offset=0 --size=$region \
		--numjobs=$JOBS --randrepeat=0 --group_reporting \
		--time_based --runtime=$SECS
}

# clat_pcts: the completion time's 10th, 50th, 90th, 95th, 99th and 99.9th
# percentiles and maximum in ms, comma separated, from fio's terse line
# (fields 20, 24, 28-30 and 32 are "P%=usec" with fio's default list, 15
# the maximum), for the report's latency plot.
clat_pcts() {
	local f v out=
	for f in 20 24 28 29 30 32 15; do
		v=$(lab_t $f)
		v=${v#*=}
		out=$out${out:+,}$(awk -v u="$v" 'BEGIN { printf "%.1f", u / 1000 }')
	done
	echo "$out"
}

lab_table exp4-dbms
echo "$JOBS jobs of 4 KiB random direct reads in the first $region, ${SECS}s per cell"
printf '%-12s %6s %14s %10s %8s\n' sched depth 'completion_ms' 'MB/s' IOPS
for s in $(lab_scheds); do
	for d in 1 10; do
		lab_sched $s || continue
		dbms $d
		ms=$(awk -v u=$(lab_t 16) 'BEGIN { printf "%.1f", u / 1000 }')
		mbps=$(awk -v k=$(lab_t 7) 'BEGIN { printf "%.3f", k * 1024 / 1e6 }')
		printf '%-12s %6s %14s %10s %8s\n' $s $d $ms $mbps $(lab_t 8)
		lab_data exp4 "sched=$s depth=$d completion_ms=$ms mbps=$mbps iops=$(lab_t 8) clat_pct_ms=$(clat_pcts)"
	done
done
lab_done
