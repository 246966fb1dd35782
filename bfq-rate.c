// SPDX-License-Identifier: GPL-2.0
/*
 * BFQ's estimators of the device: its peak rate, behind max_budget=0, and
 * whether seeks cost it time, behind idling for sequential queues.
 * Prefix: bfq_rate_ (bfq_rate_seek_ for the seek cost).
 *
 * Rules enforced, and why:
 *
 * 1. Autotune. With max_budget=0, max_budget is what the device transfers
 *    in timeout_sync at its estimated peak rate: sectors completed divided
 *    by the time the device held at least one request. Time the device
 *    sits empty (a process thinking between requests) is left out, and
 *    sectors are counted at completion, so a device that queues requests
 *    internally is measured by what it finishes, not by what it accepts.
 *    A window of samples closes once it has BFQ_RATE_WINDOW_BUSY_NS of busy
 *    time and BFQ_RATE_MIN_RQS requests, or after BFQ_RATE_WINDOW_MAX_NS of
 *    wall time, and counts only if it held BFQ_RATE_MIN_BUSY_NS of busy
 *    time, BFQ_RATE_MIN_RQS requests and was mostly sequential; short or
 *    seeky windows say little about the peak. Waiting for the requests
 *    matters on disks: 128 KiB reads at 31 MB/s make 25 in 100 ms, 1 MiB
 *    reads at 150 MB/s 15, and a window closed on busy time alone would
 *    be refused every time.
 *    A far request dispatched into an empty device and completed alone
 *    (rule 2's far sample, timed there: a turn's first request on a disk,
 *    after another queue's elsewhere) is left out of the peak, its sectors
 *    and its time: the peak is what the device transfers, not how far its
 *    arm moves between turns. Counted in, two sequential readers at a
 *    disk's two ends measured 20.5 MB/s on a disk that reads 35.4 MB/s at
 *    the start and 18.5 at the end, since a window of BFQ_RATE_MIN_RQS
 *    requests spans a turn switch; max_budget came out at 58% of what the
 *    outer zone reads in timeout_sync, every outer turn ended early and
 *    paid its seek for less (docs/results/2026-12-07-exp1-inject-base.md).
 *    Accepted samples move the estimate halfway up, or 1/8 of the way down.
 *    Seeky windows are kept apart as the rate the device empties at
 *    (bfq_rate_drain()), which the bound on writeback in the device needs
 *    (bfq-iosched.c, design note 8) where nothing is ever read in
 *    sequence: random readers beside random writers left it unmeasured,
 *    and the device filled with tens of MB of writeback.
 * 2. Seek cost. Idling for a sequential queue pays off only if serving
 *    another queue's request, somewhere else on the device, costs more
 *    than the next request of the same stream: a disk's arm moves and
 *    waits for the platter, flash does not care. queue/rotational says
 *    which a device is, but not always truly (a virtual disk, a RAID
 *    controller with a cache, a device model), so the device is watched:
 *    requests it serves alone (dispatched into an empty device, completed
 *    before another one goes out) are timed, split by size (log2 of the
 *    sectors) and by where they start: near the end of the previous
 *    request (BFQ_SEEK_NEAR_SECTORS) or far from it (BFQ_SEEK_FAR_SECTORS).
 *    Once a size class holds BFQ_SEEK_MIN_SAMPLES of both, it says seeks
 *    cost if its far requests take over 5/4 of its near ones' time, and
 *    that they are free below 9/8 (between the two, it keeps what it
 *    said). Seeks count as free only when every size class with a verdict
 *    says so; until then the device is taken at its word. A device that
 *    always holds several requests gives no samples and keeps the prior.
 *
 * Locking: callers hold bfq_data.lock.
 *
 * The entries every request passes through (dispatched, completed, their
 * seek counterparts) inline into the dispatch and completion paths of
 * bfq-build.c's one unit; a window's close, once a window, stays out of
 * line.
 */
#include <linux/kernel.h>
#include <linux/math64.h>

#include "bfq-iosched.h"

/* Bounds of the autotuned max_budget, in sectors (256 KiB .. 1 GiB). */
#define BFQ_AUTO_BUDGET_MIN_SECTORS	512
#define BFQ_AUTO_BUDGET_MAX_SECTORS	BFQ_MAX_BUDGET_LIMIT_SECTORS

#define BFQ_RATE_WINDOW_BUSY_NS		(100 * NSEC_PER_MSEC)
#define BFQ_RATE_WINDOW_MAX_NS		(1000 * NSEC_PER_MSEC)
#define BFQ_RATE_MIN_BUSY_NS		(20 * NSEC_PER_MSEC)
#define BFQ_RATE_MIN_RQS		32
/* A window is sequential if at least 3/4 of its requests were. */
#define BFQ_RATE_SEQ_NUM		3
#define BFQ_RATE_SEQ_DEN		4

/*
 * Rule 2. Near: the head passes over a 32 KiB gap within a fraction of a
 * revolution of any disk. Far: 1 MiB is beyond the few tracks a disk's
 * read-ahead covers, so the arm has to move.
 */
#define BFQ_SEEK_NEAR_SECTORS		64
#define BFQ_SEEK_FAR_SECTORS		2048
#define BFQ_SEEK_MIN_SAMPLES		16
/* A request alone in the device longer than 1 s was retried: no sample. */
#define BFQ_SEEK_MAX_SAMPLE_NS		NSEC_PER_SEC

/* Accepted samples move an estimate halfway up, or 1/8 of the way down. */
static void bfq_rate_move(u64 *est, unsigned int *n, u64 sample)
{
	if (!(*n)++)
		*est = sample;
	else if (sample > *est)
		*est += (sample - *est) / 2;
	else
		*est -= (*est - sample) / 8;
}

/*
 * Once a window: out of line, so that bfq_rate_completed(), run on every
 * request, inlines into its caller.
 */
static noinline void bfq_rate_close(struct bfq_rate *r)
{
	u64 sample, busy;

	r->win_open = false;
	if (r->win_busy_ns < BFQ_RATE_MIN_BUSY_NS ||
	    r->win_rqs < BFQ_RATE_MIN_RQS)
		return;
	sample = div64_u64(r->win_sectors * NSEC_PER_SEC, r->win_busy_ns);
	bfq_rate_move(&r->drain_sectors_per_sec, &r->nr_drain, sample);
	if (r->win_seq_rqs * BFQ_RATE_SEQ_DEN < r->win_rqs * BFQ_RATE_SEQ_NUM)
		return;
	/* The peak: transfer, without the far requests served alone. */
	busy = r->win_busy_ns - min(r->win_far_ns, r->win_busy_ns);
	if (busy < BFQ_RATE_MIN_BUSY_NS)
		return;
	sample = div64_u64((r->win_sectors -
			    min(r->win_far_sectors, r->win_sectors)) *
			   NSEC_PER_SEC, busy);
	bfq_rate_move(&r->peak_sectors_per_sec, &r->nr_samples, sample);
}

/*
 * A request left for the device at @now_ns, which held @in_driver requests
 * before it; @seq: it continues its queue's last position.
 */
void bfq_rate_dispatched(struct bfq_rate *r, u64 now_ns, bool seq,
			 unsigned int in_driver)
{
	if (!r->win_open) {
		r->win_open = true;
		r->win_start_ns = now_ns;
		r->win_busy_ns = 0;
		r->win_sectors = 0;
		r->win_rqs = 0;
		r->win_seq_rqs = 0;
		r->win_far_ns = 0;
		r->win_far_sectors = 0;
		r->busy_since_ns = now_ns;
	} else if (!in_driver) {
		r->busy_since_ns = now_ns;
	}
	r->win_rqs++;
	if (seq)
		r->win_seq_rqs++;
}

/*
 * Rule 1: a far request of @sectors was served alone in @ns (rule 2's far
 * sample, bfq_rate_seek_completed()), its completion about to be counted:
 * positioning as much as transfer, left out of the peak.
 */
void bfq_rate_far_served(struct bfq_rate *r, u64 ns, unsigned int sectors)
{
	if (!r->win_open)
		return;
	r->win_far_ns += ns;
	r->win_far_sectors += sectors;
}

/* A request of @sectors finished at @now_ns; @in_driver are still there. */
void bfq_rate_completed(struct bfq_rate *r, u64 now_ns, unsigned int sectors,
			unsigned int in_driver)
{
	u64 busy;

	if (!r->win_open)
		return;
	r->win_sectors += sectors;
	busy = r->win_busy_ns + now_ns - r->busy_since_ns;
	if (!in_driver) {
		r->win_busy_ns = busy;
		r->busy_since_ns = now_ns;
	}
	if ((busy >= BFQ_RATE_WINDOW_BUSY_NS &&
	     r->win_rqs >= BFQ_RATE_MIN_RQS) ||
	    now_ns - r->win_start_ns >= BFQ_RATE_WINDOW_MAX_NS) {
		r->win_busy_ns = busy;
		bfq_rate_close(r);
	}
}

/*
 * The driver gave a request back at @now_ns; @in_driver are still there. It
 * was counted when it left, and it served nothing: end the busy period if
 * the device is now empty, so that the time until it goes out again is not
 * taken for service time. Its return trip is bfq_rate_redispatched().
 */
void bfq_rate_requeued(struct bfq_rate *r, u64 now_ns, unsigned int in_driver)
{
	bfq_rate_completed(r, now_ns, 0, in_driver);
}

/*
 * A requeued request left again at @now_ns, the device holding @in_driver
 * before it: a new busy period if it was empty, but not a new request of
 * the window (it was counted the first time).
 */
void bfq_rate_redispatched(struct bfq_rate *r, u64 now_ns,
			   unsigned int in_driver)
{
	if (r->win_open && !in_driver)
		r->busy_since_ns = now_ns;
}

/* Rule 1: max_budget for max_budget=0, or 0 while the rate is unknown. */
unsigned int bfq_rate_auto_budget(const struct bfq_rate *r, u64 timeout_ms)
{
	u64 sectors;

	if (!r->nr_samples)
		return 0;
	sectors = div64_u64(r->peak_sectors_per_sec * timeout_ms, MSEC_PER_SEC);
	return clamp_t(u64, sectors, BFQ_AUTO_BUDGET_MIN_SECTORS,
		       BFQ_AUTO_BUDGET_MAX_SECTORS);
}

/*
 * Rule 2: a request of @sectors at @pos leaves for a device holding
 * @in_driver others at @now_ns. Timed if it is alone; any other request
 * joining it spoils the sample.
 */
inline void bfq_rate_seek_dispatched(struct bfq_seek_cost *sc, u64 now_ns,
				     sector_t pos, unsigned int sectors,
				     unsigned int in_driver)
{
	sector_t dist = pos > sc->last_end ? pos - sc->last_end :
					     sc->last_end - pos;

	sc->last_end = pos + sectors;
	sc->solo = !in_driver && sectors &&
		   (dist <= BFQ_SEEK_NEAR_SECTORS || dist > BFQ_SEEK_FAR_SECTORS);
	if (!sc->solo)
		return;
	sc->solo_far = dist > BFQ_SEEK_FAR_SECTORS;
	sc->solo_size = min_t(unsigned int, ilog2(sectors),
			      BFQ_SEEK_NR_SIZES - 1);
	sc->solo_start_ns = now_ns;
}

/* 1/8 weight to the new sample; the first one is taken as it is. */
static void bfq_rate_seek_average(u32 *avg, u16 *n, u32 sample)
{
	*avg = *n ? (u32)div_u64((u64)*avg * 7 + sample, 8) : sample;
	if (*n < BFQ_SEEK_MIN_SAMPLES)
		(*n)++;
}

static void bfq_rate_seek_judge(struct bfq_seek_cost *sc, unsigned int i)
{
	u64 near = sc->near_ns[i], far = sc->far_ns[i];

	if (sc->near_n[i] < BFQ_SEEK_MIN_SAMPLES ||
	    sc->far_n[i] < BFQ_SEEK_MIN_SAMPLES)
		return;
	if (far * 4 > near * 5) {
		sc->costly |= BIT(i);
	} else if (far * 8 < near * 9) {
		sc->costly &= ~BIT(i);
	} else if (!(sc->known & BIT(i))) {
		/* Undecided at first sight: keep the device's word. */
		sc->costly |= BIT(i);
	}
	sc->known |= BIT(i);
}

/*
 * Rule 2: a request completed at @now_ns, @in_driver left in the device.
 * Returns how long it took if it was a far request served alone, else 0
 * (rule 1 leaves that time out of the peak).
 */
inline u64 bfq_rate_seek_completed(struct bfq_seek_cost *sc, u64 now_ns,
				   unsigned int in_driver)
{
	unsigned int i = sc->solo_size;
	u64 ns;

	if (!sc->solo || in_driver)
		return 0;
	sc->solo = false;
	ns = now_ns - sc->solo_start_ns;
	if (ns <= BFQ_SEEK_MAX_SAMPLE_NS) {
		if (sc->solo_far)
			bfq_rate_seek_average(&sc->far_ns[i], &sc->far_n[i],
					      ns);
		else
			bfq_rate_seek_average(&sc->near_ns[i], &sc->near_n[i],
					      ns);
		bfq_rate_seek_judge(sc, i);
	}
	return sc->solo_far ? ns : 0;
}

/* The timed request came back from the driver: its time says nothing. */
void bfq_rate_seek_cancel(struct bfq_seek_cost *sc)
{
	sc->solo = false;
}

/* Rule 2: whether seeks cost; true until the device has shown otherwise. */
bool bfq_rate_seek_costly(const struct bfq_seek_cost *sc)
{
	return !sc->known || sc->costly;
}

/*
 * The time a far request of @sectors takes the device alone, from the
 * samples of its size class; 0 until the class holds BFQ_SEEK_MIN_SAMPLES
 * of them (bfq-budget.c, rule 3, charges seeky turns by it).
 */
u64 bfq_rate_seek_far_ns(const struct bfq_seek_cost *sc, unsigned int sectors)
{
	unsigned int i;

	if (!sectors)
		return 0;
	i = min_t(unsigned int, ilog2(sectors), BFQ_SEEK_NR_SIZES - 1);
	return sc->far_n[i] < BFQ_SEEK_MIN_SAMPLES ? 0 : sc->far_ns[i];
}

#ifdef CONFIG_BFQ_KUNIT_TEST
#include "bfq-rate-test.c"
#endif
