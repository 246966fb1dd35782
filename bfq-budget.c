// SPDX-License-Identifier: GPL-2.0
/*
 * BFQ budgets: how much service a queue may receive in its next turn, and
 * what a turn is charged. The estimators behind max_budget=0 and idling
 * (the peak rate, the seek cost) are bfq-rate.c's. Prefix: bfq_budget_.
 *
 * Rules enforced, and why:
 *
 * 1. Feedback. A queue that used its whole budget asks for more: its next
 *    budget doubles, up to max_budget, so sequential readers get long turns
 *    and the device streams. A queue that emptied early gets what it used
 *    (at least the minimum), so it does not hold a large share it cannot
 *    use. A queue whose turn timed out keeps half its budget; one preempted
 *    by a higher class keeps its budget.
 *    First turns: a new sync queue's first budget is its first request
 *    (bfq-iosched.c, bfq_add_request()), and a queue that used it gets
 *    max_budget next, as a queue new to the device got before. B-WF2Q+
 *    orders equal weights by finish time, budget over weight: given
 *    max_budget, a new process that sends one request and waits for it (a
 *    player's first frame, an application's first read) waited a whole
 *    turn of every queue that became busy with it; on the lab's disk a
 *    player started with five readers waited 670 ms for its first read,
 *    and its first 2 s of frames were 80-90% more than 40 ms late. Its
 *    first request now has the earliest finish time among them, and a
 *    new sequential reader pays one more turn switch.
 *    Only a stream earns max_budget so: if the next request after a first
 *    turn used up lies far from the first (another file, a random
 *    block), the next turn is a first turn anew, its budget that request
 *    (bfq_budget_on_busy(); bfq_budget_after_first() for one queued
 *    before the turn ended: the first turn's size). Given max_budget, a
 *    process that reads one small file after another (a web server's
 *    worker) waited for its second file until its finish time came
 *    round, a full turn of every busy queue: 4-13 s under 32 such workers
 *    on the lab's disk (exp3), the small files' worst completion times.
 *    Not for a raised queue: idling keeps its turn for its next read
 *    (rule 5 of bfq-wr.c), which a one-request budget would end.
 * 2. Charge. A turn is charged the service received, except that a turn
 *    that timed out is charged for the device time it held: a queue too
 *    slow for its budget (seeky, or thinking between requests) pays for
 *    the time, not for the few sectors it moved, so it cannot lower
 *    everybody's throughput. A turn that streamed (not seeky, and while
 *    the device was busy with it, it moved at least 1/BFQ_STREAM_RATE_DIV
 *    of what the peak rate gives, bfq_budget_streamed()) pays its sectors
 *    and the time the device idled for it (at max_budget per
 *    timeout_sync, bfq_budget_time_charge()), at most max_budget: it was
 *    slow because its sectors lie where the device is slow, a disk's
 *    inner zone, and its weight is a share of sectors. Charged a full
 *    max_budget, two equal readers at a disk's two ends got 12.3 and
 *    9.2 MB/s, and a reader of weight 1 beside one of 10 at the outer
 *    edge 1.9 MB/s for its 2.9 (docs/results/2026-12-07-exp2-geometry.md).
 *    Any other timed-out turn is charged at least a full max_budget.
 *    Not an application starting (bfq_wr_needs_idling()): the device
 *    waited for it on purpose.
 * 3. Seeky turns pay for time. A seeky queue's turn usually ends when it
 *    empties, after a request or two, long before any timeout; charged
 *    only its sectors, it pays 8 for a 4 KiB read that holds a disk's arm
 *    for a seek and a rotation, and a raised application or a sequential
 *    reader of equal weight gets a turn for every few of its. So on a
 *    device where seeks cost (bfq_rate_seek_costly()) a seeky queue's turn
 *    is charged at least the device time its requests took, as the seek
 *    estimator knows a far request of each size to take alone
 *    (bfq_rate_seek_far_ns()), at the rate rule 2 charges: max_budget for
 *    timeout_sync (bfq_budget_time_charge()), so that a turn holding the
 *    device that long costs a full budget either way. The same clock ends
 *    the turn: once its requests' time alone would pass timeout_sync, the
 *    turn times out (bfq_turn_time_spent()). A queue that keeps many
 *    requests in a queueing device (NCQ, a controller's queue) would
 *    otherwise send many timeouts' worth in one turn: charged at most
 *    max_budget, a turn of 20 parallel seeky writes cost no more than a
 *    reader's timed-out turn of 13 reads, and a deep writer got 1.5x the
 *    share of a reader of equal weight; charged in full, its group then
 *    sat out seconds. The charge itself is not capped at max_budget (the
 *    last request may pass it), only at BFQ_MAX_BUDGET_LIMIT_SECTORS.
 *    Unlike rule 2, also while max_budget is a guess: the time is
 *    measured, and the guess only sets the exchange rate, the same for
 *    every queue. Not a raised queue (an application starting, a soft
 *    real-time stream): its weight is there to give it the device; but a
 *    queue raised with an earlier start-up than the latest does pay
 *    (bfq-wr.c rule 10). Equal seeky queues keep their shares; against
 *    queues that stream they get shares of device time instead of
 *    sectors, the time-domain fairness the budget timeout gives to
 *    queues slow within one turn.
 * 4. A queue with a waker, and a waker, pay for their turns' time. While the
 *    device idles for it, its waker's requests are served at once
 *    (bfq-inject.c rule 4): the turn holds the device for its own small
 *    writes, its waker's journal writes and the pauses between them, and its
 *    sectors say nothing of that. So its turn is charged at least the turn's
 *    duration at rule 2's rate (max_budget for timeout_sync), once max_budget
 *    is measured or set (bfq_waker_time_charge()), on a device of at most
 *    BFQ_TAGS_FEW scheduler tags, where the turn holds it alone (on a deeper
 *    one other queues' requests share that time: tag-weight's reader group got
 *    0.76 for 0.9 at depth 32), and a timed-out turn pays max_budget even when
 *    raised: the device was busy for it, not waiting by choice. Charged its
 *    sectors, a write + fsync loop beside a sequential reader on a one-request
 *    device paid 8 sectors a write and 300-400 a turn of 100 ms, where the
 *    reader paid 13,000 for as long a turn, and took two thirds of the device
 *    at equal weights (docs/results/2026-12-03-fsync-waker-time.md). A waker's
 *    own turns pay their time the same way: its journal writes are as small,
 *    and charged their sectors (8 for a millisecond of a one-request device)
 *    the journal thread's queue had the earliest finish time whenever it
 *    asked.
 *
 * Locking: callers hold bfq_data.lock.
 */
#include <linux/kernel.h>
#include <linux/math64.h>

#include "bfq-iosched.h"

/*
 * Rule 2: a queue that moved at least this fraction (1/N) of what the
 * peak rate gives in the time the device was busy with it was limited by
 * the device, not by its own pattern: a disk's inner zone reads at 40-60%
 * of its outer one (the peak estimator's), and requests of other queues
 * left in the device at the turn's start take some of the time too.
 */
#define BFQ_STREAM_RATE_DIV		3

/* The least budget a queue gets: small enough for seeky queues. */
#define BFQ_MIN_BUDGET_DIVISOR		32
static unsigned int bfq_budget_min(unsigned int max_budget)
{
	return max(1U, max_budget / BFQ_MIN_BUDGET_DIVISOR);
}

/*
 * Rule 1, first turns: the budget of a queue becoming busy with a request
 * of @rq_sectors, @budget its budget so far (0: none yet), @served whether
 * anything of it has completed, @far_after_first whether its last turn was
 * a first turn used up and the request lies far from it; *@first is set
 * for a first turn's budget.
 */
unsigned int bfq_budget_on_busy(unsigned int max_budget, unsigned int budget,
				bool sync, bool served, unsigned int rq_sectors,
				bool far_after_first, bool *first)
{
	if (sync && ((!budget && !served) || far_after_first)) {
		*first = true;
		return max(rq_sectors, 1U);
	}
	return !budget || !sync ? max_budget : budget;
}

/*
 * Rule 1, first turns: the budget after a first turn of @served sectors
 * used up, the queue's next request already queued, @far from the first.
 */
unsigned int bfq_budget_after_first(unsigned int max_budget,
				    unsigned int served, bool far)
{
	return far ? max(served, 1U) : max_budget;
}

/* Rule 1: the budget of the queue's next turn. */
unsigned int bfq_budget_next(unsigned int max_budget, unsigned int budget,
			     unsigned int served, enum bfq_expire_reason why)
{
	unsigned int min_budget = bfq_budget_min(max_budget);

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
unsigned int bfq_budget_charge(unsigned int timeout_charge, unsigned int served,
			       enum bfq_expire_reason why, bool streamed,
			       unsigned int idle_charge)
{
	if (why != BFQ_EXP_TIMEOUT || served >= timeout_charge)
		return served;
	if (streamed)
		return min(served + idle_charge, timeout_charge);
	return timeout_charge;
}

/*
 * Rule 2: whether a timed-out turn that moved @served sectors streamed:
 * the device, busy with it for a time worth @busy_charge sectors at the
 * peak rate, moved at least 1/BFQ_STREAM_RATE_DIV of that.
 */
bool bfq_budget_streamed(unsigned int served, unsigned int busy_charge)
{
	return (u64)served * BFQ_STREAM_RATE_DIV >= busy_charge;
}

/*
 * Rule 3: the charge for @ns of device time, at max_budget per
 * @timeout_ms; at most BFQ_MAX_BUDGET_LIMIT_SECTORS.
 */
unsigned int bfq_budget_time_charge(u64 ns, unsigned int max_budget,
				    unsigned int timeout_ms)
{
	u64 sectors;

	if (!timeout_ms)
		return max_budget;
	sectors = mul_u64_u64_div_u64(ns, max_budget,
				      (u64)timeout_ms * NSEC_PER_MSEC);
	return min_t(u64, sectors, BFQ_MAX_BUDGET_LIMIT_SECTORS);
}

#ifdef CONFIG_BFQ_KUNIT_TEST
#include "bfq-budget-test.c"
#endif
