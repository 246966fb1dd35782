// SPDX-License-Identifier: GPL-2.0
/*
 * BFQ budgets: how much service a queue may receive in its next turn, what
 * a turn is charged, and the device peak rate behind max_budget=0.
 *
 * Rules enforced, and why:
 *
 * 1. Feedback. A queue that used its whole budget asks for more: its next
 *    budget doubles, up to max_budget, so sequential readers get long turns
 *    and the device streams. A queue that emptied early gets what it used
 *    (at least the minimum), so it does not hold a large share it cannot
 *    use. A queue whose turn timed out keeps half its budget; one preempted
 *    by a higher class keeps its budget.
 * 2. Charge. A turn is charged the service received, except that a turn
 *    that timed out is charged at least a full max_budget: a queue too slow
 *    for its budget (seeky, or thinking between requests) pays for the
 *    device time it held, not for the few sectors it moved, so it cannot
 *    lower everybody's throughput, and every timed-out turn costs the
 *    same, whatever the sectors happened to be.
 * 3. Autotune. With max_budget=0, max_budget is what the device transfers
 *    in timeout_sync at its estimated peak rate: sectors completed divided
 *    by the time the device held at least one request. Time the device
 *    sits empty (a process thinking between requests) is left out, and
 *    sectors are counted at completion, so a device that queues requests
 *    internally is measured by what it finishes, not by what it accepts.
 *    A window of samples closes after BFQ_RATE_WINDOW_BUSY_NS of busy time
 *    or BFQ_RATE_WINDOW_MAX_NS of wall time, and counts only if it held
 *    BFQ_RATE_MIN_BUSY_NS of busy time, BFQ_RATE_MIN_RQS requests and was
 *    mostly sequential; short or seeky windows say little about the peak.
 *    Accepted samples move the estimate halfway up, or 1/8 of the way down.
 *
 * Locking: callers hold bfq_data.lock.
 */
#include <linux/kernel.h>
#include <linux/math64.h>

#include "bfq-iosched.h"

/* The least budget a queue gets: small enough for seeky queues. */
#define BFQ_MIN_BUDGET_DIVISOR		32
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

static unsigned int bfq_min_budget(unsigned int max_budget)
{
	return max(1U, max_budget / BFQ_MIN_BUDGET_DIVISOR);
}

/* Rule 1: the budget of the queue's next turn. */
unsigned int bfq_next_budget(unsigned int max_budget, unsigned int budget,
			     unsigned int served, enum bfq_expire_reason why)
{
	unsigned int min_budget = bfq_min_budget(max_budget);

	switch (why) {
	case BFQ_EXP_BUDGET:
		budget = budget > max_budget / 2 ? max_budget : budget * 2;
		break;
	case BFQ_EXP_TIMEOUT:
		budget /= 2;
		break;
	case BFQ_EXP_PREEMPTED:
		break;
	default:
		budget = served;
		break;
	}
	return clamp(budget, min_budget, max_budget);
}

/*
 * Rule 2: the service a finished turn is charged. @timeout_charge is
 * max_budget, or 0 while max_budget is only a guess (autotuning without a
 * rate sample yet): a guess must not turn into a charge.
 */
unsigned int bfq_turn_charge(unsigned int timeout_charge, unsigned int served,
			     enum bfq_expire_reason why)
{
	if (why == BFQ_EXP_TIMEOUT)
		return max(served, timeout_charge);
	return served;
}

static void bfq_rate_close(struct bfq_rate *r)
{
	u64 sample;

	r->win_open = false;
	if (r->win_busy_ns < BFQ_RATE_MIN_BUSY_NS ||
	    r->win_rqs < BFQ_RATE_MIN_RQS ||
	    r->win_seq_rqs * BFQ_RATE_SEQ_DEN < r->win_rqs * BFQ_RATE_SEQ_NUM)
		return;
	sample = div64_u64(r->win_sectors * NSEC_PER_SEC, r->win_busy_ns);
	if (!r->nr_samples++)
		r->peak_sectors_per_sec = sample;
	else if (sample > r->peak_sectors_per_sec)
		r->peak_sectors_per_sec += (sample - r->peak_sectors_per_sec) / 2;
	else
		r->peak_sectors_per_sec -= (r->peak_sectors_per_sec - sample) / 8;
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
		r->busy_since_ns = now_ns;
	} else if (!in_driver) {
		r->busy_since_ns = now_ns;
	}
	r->win_rqs++;
	if (seq)
		r->win_seq_rqs++;
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
	if (busy >= BFQ_RATE_WINDOW_BUSY_NS ||
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

/* Rule 3: max_budget for max_budget=0, or 0 while the rate is unknown. */
unsigned int bfq_rate_auto_budget(const struct bfq_rate *r, u64 timeout_ms)
{
	u64 sectors;

	if (!r->nr_samples)
		return 0;
	sectors = div64_u64(r->peak_sectors_per_sec * timeout_ms, MSEC_PER_SEC);
	return clamp_t(u64, sectors, BFQ_AUTO_BUDGET_MIN_SECTORS,
		       BFQ_AUTO_BUDGET_MAX_SECTORS);
}

#ifdef CONFIG_BFQ_KUNIT_TEST
#include "bfq-budget-test.c"
#endif
