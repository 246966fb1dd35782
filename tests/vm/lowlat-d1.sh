# Issue 6's low-latency bounds for ours on ext4 over a null_blk with
# hw_queue_depth 1 (200 us timer completions, memory backed), rotational 0
# and 1 (issue 40's restatement for a CPU-bound rig): start-up <= 1.3x the
# larger of idle and its warm-cache control, and <= stock's; soft real-time
# <= 1% late frames; bursts <= 5% slower with low_latency=1; at rotational
# 1, the read backgrounds' throughput >= 0.95x the best of mq-deadline and
# kyber. The body is tests/lowlat/ll-fs.sh; measured values in
# docs/results/.
# Asserted: none of the bounds yet; each is measured and reported as
# "bound met" or "bound not met yet" (LL_ASSERTED in ll-fs.sh). Since rule 8
# (the scheduler tags) start-up and soft real-time meet their bounds in every
# cell on 6.1 and 6.12, but too close to them for make check: start-up
# medians of 5 come within ~0.05 of 1.3x and move by up to ~0.1 between
# runs, and a frame or two of 200 may be late (bound 1%). Bursts at depth 1
# compare with a low_latency=0 that is no longer slow, and are reported
# until the slower later pairs of a run with low_latency=1 are understood
# (see docs/results/2026-11-23-lowlat-first-runs.md). Asserted instead, as
# regression guards of rule 8: start-up less its wait for a CPU <= 4x
# idle's (without rule 8 the start-up was ~10x idle, its requests waiting
# for a scheduler tag) and <= 35% frames late (nearly half or more without
# it). The guard takes out the wait for a CPU, which no I/O scheduler hands
# out: in the CPU-bound 5r5w-seq cell the whole start-up's ratio follows
# the host's load (ll_own in ll-fs.sh). Alone on the host the guarded
# values stay near 1.3x and a few percent; on a host kept 99% busy by
# other guests they reached 2.53x and 16% late (make check, 2026-11-29),
# and over 32 make check runs on 6.1 the frames late were 0-8% in 28,
# then 13, 14, 23%, and 28% with a third guest on the two cores
# (docs/results/2026-11-29-psync-quick-icount.md): the guards sit between
# that and what a lost rule 8 gives.
# vmtest-timeout: 1500
LL_ASSERTED=${LL_ASSERTED:-none}
LL_GUARD_STARTUP=4
LL_GUARD_LATE_PCT=35
# Bursts are only reported here, so 15 pairs (a shorter run), not
# lowlat-d32's 21.
LL_BURST_ROUNDS=${LL_BURST_ROUNDS:-15}
LL_DEPTH=1
LL_TPUT_ROT=1
. /tests/ll-fs.sh
