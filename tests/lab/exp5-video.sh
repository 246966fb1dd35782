# Experiment 5: video streaming, after BFQ's 2007 results
# (bfq-v0-results-linux-2.6.21.txt: a new movie every 15 s until 1% of
# the packets are over 1 s late, 5 on/off readers beside; BFQ sustained
# 24 streams at 4096 sectors of max_budget, CFQ 14.35, C-LOOK 1.8, AS
# 1.1). Here a stream reads 64 KiB every 200 ms (0.33 MB/s, about the
# 2007 streams' rate: 24 of them moved 7.56 MB/s) from its own slice of
# the disk; a new one starts every LAB_VIDEO_ADD s (default 2; 15 s in
# 2007), up to LAB_VIDEO_MAX (32), with 5 readers alternating 2 s of
# sequential reading and 2 s of rest (tests/lab/labload.c, "video"). The
# result is the number of streams running when an interval first lost
# more than 1% of its reads. bfq with its defaults.
#
# On a real disk: LAB_DEV=sdX sh exp5-video.sh (labload beside it).
# vmtest-timeout: 600
. /tests/lib.sh
. /tests/guest-lib.sh
. /tests/lab-lib.sh
ADD=${LAB_VIDEO_ADD:-2}
MAX=${LAB_VIDEO_MAX:-32}
lab_start

lab_table exp5-video
echo "streams of 64 KiB / 200 ms, one more every ${ADD}s (at most $MAX), 5 on/off readers"
printf '%-12s %8s %9s %10s\n' sched streams 'lost_%' 'MB/s'
for s in $(lab_scheds); do
	lab_sched $s || continue
	/tests/labload video /dev/$DEV $MAX $ADD 64 200 > /tmp/video.out 2>/tmp/video.err
	set -- $(sed -n 's/^VIDEO //p' /tmp/video.out | tr '=' ' ')
	printf '%-12s %8s %9s %10s\n' $s $2 $4 $6
	lab_data exp5 "sched=$s streams=$2 lost_pct=$4 mbps=$6"
done
lab_done
