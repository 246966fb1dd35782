# Experiment 3: the web-server mix of BFQ's 2007 results
# (bfq-v0-results-linux-2.6.21.txt: 100 processes, BFQ 1.74 s per small
# file, 2.26 MB/s per large file, 17.13 MB/s in all; CFQ 3.86 / 2.97 /
# 18.20; C-LOOK 7.78 / 9.65 / 19.47; AS 7.69 / 16.61 / 20.60).
# LAB_WEB_PROCS processes (default 32: TCG's CPU, not the disk, would be
# the bottleneck with 100) read files one after the other for LAB_SECS:
# 90% 16 KiB files at random in the first half of the disk, 10% files of
# 1-30 MiB at random in the second half (128 KiB direct reads), a log
# appended every 10 files (tests/lab/labload.c, "web"). Per scheduler:
# small-file completion time (mean, 95th percentile; the distribution for
# the report's plot), large-file bandwidth, total throughput. bfq with its defaults (low_latency on).
#
# On a real disk: LAB_DEV=sdX sh exp3-webserver.sh (labload beside it);
# the log area is overwritten.
# vmtest-timeout: 400
. /tests/lib.sh
. /tests/guest-lib.sh
. /tests/lab-lib.sh
SECS=${LAB_SECS:-30}
PROCS=${LAB_WEB_PROCS:-32}
lab_start

lab_table exp3-webserver
echo "$PROCS processes, ${SECS}s per scheduler; small = 16 KiB files, large = 1-30 MiB"
printf '%-12s %7s %12s %12s %7s %12s %10s\n' sched small 'small_ms' 'small_p95' large 'large_MB/s' 'total_MB/s'
for s in $(lab_scheds); do
	lab_sched $s || continue
	/tests/labload web /dev/$DEV $SECS $PROCS > /tmp/web.out
	set -- $(sed -n 's/^WEB //p' /tmp/web.out | tr '=' ' ')
	# small N small_ms M small_p95_ms P large N large_mbps B total_mbps T
	printf '%-12s %7s %12s %12s %7s %12s %10s\n' $s $2 $4 $6 $8 ${10} ${12}
	lab_data exp3 "sched=$s small=$2 small_ms=$4 small_p95_ms=$6 large=$8 large_mbps=${10} total_mbps=${12} small_pct_ms=${14}"
done
lab_done
