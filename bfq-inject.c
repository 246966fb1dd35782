// SPDX-License-Identifier: GPL-2.0
/*
 * BFQ low latency, continued: what the device does while it idles for the
 * queue in service. Idling gives that queue its next request at once (a
 * raised application's, bfq_wr_needs_idling()) and keeps sequential queues
 * sequential; but an idle device is lost throughput for everyone else.
 * Both are throughput mechanisms, so they act whatever the low_latency
 * tunable says (not with strict_guarantees, which keeps one request in
 * the device). Prefix: bfq_inject_ (bfq_inject_waker_ for the waker
 * detection).
 *
 * Rules enforced, and why:
 *
 * 1. Injection. While the device idles for the queue in service (it is
 *    empty and bfq_should_idle() said to wait), requests of another queue
 *    are dispatched, at most bfq_inject_limit() of them in the device at
 *    once: those of the queue the service order names next
 *    (bfq_sched_peek()). Preferring the queues the one in service woke
 *    and the async queue its process writes to was tried: beside a
 *    write+fsync process on ext4 it cost a sequential reader 13-15% of
 *    its throughput for 0-8% more fsyncs (docs/results/
 *    2026-12-01-merges-injection.md). Only where idling
 *    serves throughput (the busy queues are symmetric, their groups alike
 *    by bfq_cg_alike(), and the queue in service is sequential),
 *    not where it serves the weights or a raised queue: where weights
 *    differ, or groups do, the idle time is what keeps the heavier
 *    queue's or group's share; and an application starting (bfq-wr.c
 *    rule 5) needs the CPU as much as the device, which the injected
 *    requests' owners and completions take from it, so injecting while
 *    idling for a starting application lengthens its start-up.
 * 2. The limit is learned. The request the device idled for is a probe:
 *    the time from its dispatch to its completion is its wait; it counts
 *    only if the device held nothing but injected requests when it was
 *    dispatched (bfq_inject_probe_sent()). Waits with nothing injected
 *    ahead form the base (a moving average); a wait with injected
 *    requests ahead that exceeds the base by more than
 *    BFQ_INJECT_TOLERANCE_PCT lowers the limit by one, one within it
 *    raises the limit by one, up to BFQ_INJECT_MAX. So on a device that
 *    serves requests in parallel (an SSD, a RAID) the limit grows until it
 *    costs the idled-for queue; on one that serves them one by one it
 *    falls to 0.
 *    Nothing is injected while there is no base, or its last sample is
 *    older than BFQ_INJECT_BASE_STALE_MS: a probe with injected requests
 *    ahead cannot be judged without one. Where every request idled for
 *    found one ahead, the base was never measured and the limit never
 *    fell: two sequential readers at a disk's two ends had a request of
 *    the other injected into each idle slice, a full-stroke seek each way,
 *    and got 14% of the disk's peak where idling alone gives half of it
 *    (docs/results/2026-12-07-exp1-inject-base.md). Now the next request
 *    idled for goes alone and measures the base.
 *    A limit of 0 is tried again as 1 after BFQ_INJECT_REPROBE_MS:
 *    devices and loads change. Each retry that falls to 0 again doubles
 *    that wait, up to 8 s, until the limit rises once more: on a disk a
 *    retry costs the idled-for queue two seeks and cuts its turn short,
 *    once a second with a fixed wait.
 * 3. Injected service is paid. The sectors a queue receives by injection
 *    are its debt, counted into its service when its next turn starts
 *    (bfq_inject_take_debt()), so its share stays the service layer's.
 *    At most a budget is paid in one turn, and the turn still dispatches
 *    its first request (bfq_budget_left_for()): a turn that could not
 *    would expire at once and the queue be selected again, once per
 *    budget owed, in one dispatch call with interrupts off. The debt is
 *    capped at BFQ_INJECT_DEBT_BUDGETS of the queue's budgets: paying
 *    it back takes a few turns, and what injection gave beyond that was
 *    the device's idle time, which no other queue could use.
 * 4. Wakers. When a queue with nothing queued nor in the device asks for
 *    a request within BFQ_WAKER_WINDOW_US of another queue's completion,
 *    that queue woke it. One that does so BFQ_WAKER_HITS times in a row is
 *    its waker (a journal thread and the process whose fsync waits on it;
 *    a server and the client it answers). While the device idles for a
 *    queue that has nothing in the device, its waker's requests are served
 *    at once, whatever the limit: the idled-for request cannot come before
 *    them. BFQ_WAKER_MISSES wake-ups in a row after other queues end the
 *    relation. A wakee is idled for only while a third queue could take
 *    the device (bfq_waker_rivals() in bfq-iosched.c): with the pair
 *    alone, the turn given away goes to the waker anyway. Which
 *    completion woke it (bfq_inject_waker_candidate()):
 *    - One before the process asked: a process that then sleeps for a
 *      scheduler tag is woken again by the completion that frees one,
 *      which is not what it waited for (the ask's time is noted with the
 *      tag, bfq_limit_depth()). On a one-request null_blk under a
 *      sequential reader holding both tags, the writer of a write+fsync
 *      loop found its tag only after reads freed one, and named the
 *      reader its waker.
 *    - Of a queue that dispatched since the woken queue's own last
 *      completion (bfq_inject_waker_could_wake()): a process waits for I/O
 *      issued after it stopped, on its behalf (the commit after its
 *      fsync). I/O already in the device when the process's own read
 *      completed is a neighbour's: independent readers on a deep device
 *      complete in a steady rotation, each just ahead of the next one's
 *      new read. Without that test independent random readers on a deep
 *      device keep naming each other wakers (docs/results/
 *      2026-11-28-depth32-icount.md).
 *    - Of those, in the last BFQ_WAKER_RUNS runs of completions, the
 *      latest whose queue has since had nothing queued nor in the device:
 *      it did its work and stopped, as a journal thread after its commit
 *      does; else the latest. A reader completing every millisecond beside
 *      an fsync loop completes just before most of the writer's asks, but
 *      it always has its next read waiting.
 *    A reader kept from the CPU for longer than a neighbour's service
 *    still passes, so where the readers saturate the CPU some false wakers
 *    remain.
 * 5. Actuators. A disk with several independent access ranges (a
 *    multi-actuator disk: queue/independent_access_ranges) serves a
 *    request in one range while it serves another in another range. A
 *    queue's turn usually reads in one range, and the other actuators
 *    would stay idle while requests for them wait behind it. So whenever
 *    the device holds requests in some range and none in another, a
 *    queued request for the idle range is dispatched before the queue in
 *    service's next one, or while the device idles for it: one at a time
 *    per idle range, from the first queue found holding one (IDLE-class
 *    queues only beside an IDLE queue in service, a raised application's
 *    hold kept, bfq_wr_holds_back()); not into the range the queue in
 *    service reads in or idles for, where it would seek that actuator
 *    away. Paid like rule 3's, so the shares stay the service layer's. The
 *    ranges are those the disk reports when bfq is selected on it (up to
 *    BFQ_MAX_RANGES; none with strict_guarantees, which keeps one request
 *    in the device).
 * 6. Sweep. Random readers on a disk (a database's workers) each keep a
 *    few requests queued; served one queue at a time, every request is a
 *    seek across the disk, while a sorting elevator orders all of them by
 *    position and each seek is short. Where the order of service cannot
 *    change a share, it is the position that decides: when every queue
 *    with requests queued is a seeky sync queue of the class, weight and
 *    group (or groups alike, bfq_symmetric()) of the one in service, none
 *    is raised, the disk is rotational and seeks have shown to cost
 *    (bfq_rate_seek_costly()), the next request is the one the head
 *    reaches first moving on from the end of the last one dispatched
 *    (those behind it wait for the wrap, lowest first): the queue in
 *    service's own next one, or the first of another such queue's at or
 *    past the head. Another queue's is paid like rule 3's, so over its
 *    turns each queue still gets its share; a queue that already owes
 *    BFQ_INJECT_DEBT_BUDGETS of its budgets is passed over, so no queue
 *    gets more than that ahead of the others (allowed one budget, a
 *    queue of the 6.1 lab's DBMS model paid for its sweeps in a turn that
 *    then sat out every other queue's: its tail doubled). The queue in
 *    service's expired request (fifo_expire_sync) does not jump the
 *    order: with ten requests outstanding a reader, nearly every request
 *    outlives the deadline, and serving them by it is serving one queue
 *    at a time again. Not with strict_guarantees, which serves one queue
 *    at a time.
 *
 * Lifetime rule (bfq_data.lock): inj.waker, the wakees list, done[].bfqq
 * and probe_rq hold no reference. bfq_put_queue() calls
 * bfq_inject_queue_exit() before it frees a queue, which unlinks it from
 * its waker, clears the waker of each of its wakees and clears its runs of
 * completions;
 * bfq_finish_request() calls bfq_inject_forget_rq() before a request goes.
 * A candidate is read through done[].bfqq only under the lock, and its
 * waker track compares it by serial.
 */
#include <linux/blkdev.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/math64.h>

#include "bfq-compat.h"
#include "bfq-iosched.h"
#include "bfq-trace.h"

/*
 * Rule 2: a wait longer than the base by this much is a cost. Waits of one
 * request vary by a few percent on a real device; a request injected
 * ahead on a device that serves one at a time doubles the wait.
 */
#define BFQ_INJECT_TOLERANCE_PCT	25
/* Rule 2: the most injected requests in the device: a deep SSD queue. */
#define BFQ_INJECT_MAX			16
/* Rule 3: the most a queue owes, in its budgets (or its largest request). */
#define BFQ_INJECT_DEBT_BUDGETS		4
/*
 * Rule 2: a limit of 0 is tried again after this long, twice as long after
 * each retry that falls to 0 again, up to 2^BFQ_INJECT_REPROBE_MAX_SHIFT
 * times as long.
 */
#define BFQ_INJECT_REPROBE_MS		1000
#define BFQ_INJECT_REPROBE_MAX_SHIFT	3
/*
 * Rule 2: a base older than this is replaced by the next sample instead of
 * averaged with it: the device or its load has changed meanwhile.
 */
#define BFQ_INJECT_BASE_STALE_MS	2000
/*
 * Rule 4: a woken process issues its request within tens of microseconds
 * of the completion that woke it on an idle CPU; a loaded one takes up to
 * a scheduler tick or two.
 */
#define BFQ_WAKER_WINDOW_US		4000
/*
 * Rule 4: wake-ups in a row after one queue that make it the waker. With
 * ten queues completing in turn, a stranger is the last one before three
 * wake-ups in a row once in a hundred; rule 4's misses then drop it.
 */
#define BFQ_WAKER_HITS			3
#define BFQ_WAKER_MISSES		3

/* ------------------------------------------------------------------ */
/* Plain arithmetic and state machines (KUnit: bfq-inject-test.c)      */
/* ------------------------------------------------------------------ */

/*
 * Rule 2: a probe waited @wait_ns, with injected requests ahead of it if
 * @injected; adjust @l at @now_ns.
 */
static void bfq_inject_feedback(struct bfq_inject_learn *l, u64 wait_ns,
				bool injected, u64 now_ns)
{
	if (!injected) {
		if (!l->base_ns || now_ns - l->base_at_ns >=
		    (u64)BFQ_INJECT_BASE_STALE_MS * NSEC_PER_MSEC)
			l->base_ns = wait_ns;
		else
			l->base_ns = div_u64(l->base_ns * 7 + wait_ns, 8);
		l->base_at_ns = now_ns;
		return;
	}
	if (!l->base_ns)
		return;
	if (div_u64(wait_ns * 100, 100 + BFQ_INJECT_TOLERANCE_PCT) >
	    l->base_ns) {
		if (l->limit && !--l->limit) {
			l->zero_since_ns = now_ns;
			l->zero_falls++;
		}
	} else if (l->limit < BFQ_INJECT_MAX) {
		l->limit++;
		l->zero_falls = 0;
	}
}

/*
 * Rule 2: the limit in effect at @now_ns; a limit of 0 is retried. None
 * without a base to judge by, or with a stale one.
 */
unsigned int bfq_inject_limit(struct bfq_inject_learn *l, u64 now_ns)
{
	if (!l->limit) {
		/* A limit of 0 has fallen at least once: zero_falls >= 1. */
		unsigned int shift = min_t(unsigned int,
					   max(l->zero_falls, 1U) - 1,
					   BFQ_INJECT_REPROBE_MAX_SHIFT);

		if (now_ns - l->zero_since_ns >=
		    (u64)BFQ_INJECT_REPROBE_MS * NSEC_PER_MSEC << shift)
			l->limit = 1;
	}
	if (!l->base_ns || now_ns - l->base_at_ns >=
	    (u64)BFQ_INJECT_BASE_STALE_MS * NSEC_PER_MSEC)
		return 0;
	return l->limit;
}

/*
 * Rule 4: a queue woke up just after a completion of the queue of serial
 * @cand_serial (0: no completion close enough, or its own). @waker_serial
 * is its current waker's (0: none).
 */
static enum bfq_waker_step
bfq_inject_waker_observe(struct bfq_waker_track *t, u64 cand_serial,
			 u64 waker_serial)
{
	if (waker_serial) {
		if (cand_serial == waker_serial) {
			t->misses = 0;
			return BFQ_WAKER_SAME;
		}
		if (++t->misses < BFQ_WAKER_MISSES)
			return BFQ_WAKER_SAME;
		t->misses = 0;
		t->cand_serial = cand_serial;
		t->hits = cand_serial ? 1 : 0;
		return BFQ_WAKER_LOST;
	}
	if (!cand_serial) {
		t->cand_serial = 0;
		t->hits = 0;
		return BFQ_WAKER_SAME;
	}
	if (cand_serial != t->cand_serial) {
		t->cand_serial = cand_serial;
		t->hits = 1;
	} else {
		t->hits++;
	}
	if (t->hits < BFQ_WAKER_HITS)
		return BFQ_WAKER_SAME;
	t->hits = 0;
	t->misses = 0;
	return BFQ_WAKER_FOUND;
}

/*
 * Rule 4: whether a completion at @done_ns, of a queue whose last dispatch
 * then was at @sent_ns, may have woken a queue that issues at @now_ns and
 * last completed a request of its own at @own_done_ns (0: never). The
 * caller has checked that the completion is not the woken queue's own.
 */
bool bfq_inject_waker_could_wake(u64 now_ns, u64 done_ns, u64 sent_ns,
				 u64 own_done_ns)
{
	if (now_ns < done_ns ||
	    now_ns - done_ns > (u64)BFQ_WAKER_WINDOW_US * NSEC_PER_USEC)
		return false;
	return !own_done_ns || sent_ns > own_done_ns;
}

/* ------------------------------------------------------------------ */
/* Queues                                                              */
/* ------------------------------------------------------------------ */

void bfq_inject_init(struct bfq_data *bfqd)
{
	bfqd->inj.learn.limit = 1;
}

void bfq_inject_queue_init(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	bfqq->inj.serial = ++bfqd->inj.next_serial;
	INIT_LIST_HEAD(&bfqq->inj.waker_node);
	INIT_LIST_HEAD(&bfqq->inj.wakees);
}

static void bfq_inject_waker_set(struct bfq_data *bfqd, struct bfq_queue *bfqq,
				 struct bfq_queue *waker)
{
	struct bfq_queue *old = bfqq->inj.waker;

	if (old == waker)
		return;
	list_del_init(&bfqq->inj.waker_node);
	bfqq->inj.waker = waker;
	if (waker)
		list_add_tail(&bfqq->inj.waker_node, &waker->inj.wakees);
	bfq_tags_served_changed(bfqd);
	trace_bfq_waker(bfq_dev(bfqd), bfqq->pid, waker ? waker->pid : 0,
			old ? old->pid : 0);
	bfq_log(bfqd, bfqq, "waker %d (was %d)", waker ? waker->pid : 0,
		old ? old->pid : 0);
}

/* The lifetime rule: called by bfq_put_queue() before it frees @bfqq. */
void bfq_inject_queue_exit(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	struct bfq_queue *wakee, *next;
	int i;

	lockdep_assert_held(&bfqd->lock);

	list_del_init(&bfqq->inj.waker_node);
	bfqq->inj.waker = NULL;
	list_for_each_entry_safe(wakee, next, &bfqq->inj.wakees,
				 inj.waker_node) {
		list_del_init(&wakee->inj.waker_node);
		wakee->inj.waker = NULL;
	}
	for (i = 0; i < BFQ_WAKER_RUNS; i++)
		if (bfqd->inj.done[i].bfqq == bfqq)
			bfqd->inj.done[i].bfqq = NULL;
	bfq_tags_served_changed(bfqd);
}

/*
 * Rule 4: the queue whose completion woke @bfqq, whose process asked at
 * @asked_ns for its first request since it had nothing queued nor in the
 * device; NULL: none.
 */
static struct bfq_queue *bfq_inject_waker_candidate(struct bfq_data *bfqd,
						    struct bfq_queue *bfqq,
						    u64 asked_ns)
{
	struct bfq_inject_data *inj = &bfqd->inj;
	struct bfq_queue *latest = NULL;
	unsigned int i, k;

	for (k = 0, i = inj->done_last; k < BFQ_WAKER_RUNS;
	     k++, i = (i + BFQ_WAKER_RUNS - 1) % BFQ_WAKER_RUNS) {
		struct bfq_inject_done *d = &inj->done[i];
		u64 done_ns;

		if (d->first_ns > asked_ns)
			continue;
		/* Its own: what came before is older than its own wait. */
		if (d->bfqq == bfqq || !d->first_ns)
			break;
		/*
		 * A run going on when it asked had a completion at most a
		 * window before (bfq_inject_completed()): taken as then.
		 */
		done_ns = min(d->last_ns, asked_ns);
		if (asked_ns - done_ns > (u64)BFQ_WAKER_WINDOW_US * NSEC_PER_USEC)
			break;
		if (!d->bfqq ||
		    !bfq_inject_waker_could_wake(asked_ns, done_ns, d->sent_ns,
						 bfqq->last_done_ns))
			continue;
		if (!d->bfqq->nr_queued && !d->bfqq->nr_in_driver)
			return d->bfqq;
		if (!latest)
			latest = d->bfqq;
	}
	return latest;
}

/*
 * Rules 2 and 4: @rq, asked for at @asked_ns, arrived for @bfqq, which had
 * nothing queued nor in the device. Called before the request is queued.
 */
void bfq_inject_woken(struct bfq_data *bfqd, struct bfq_queue *bfqq,
		      struct request *rq, u64 asked_ns)
{
	struct bfq_inject_data *inj = &bfqd->inj;
	struct bfq_queue *waker = bfqq->inj.waker;
	struct bfq_queue *cand;

	lockdep_assert_held(&bfqd->lock);

	/*
	 * A probe still queued (its turn ended before it could go) waits
	 * for the scheduler, not behind injected requests: this one, just
	 * idled for, takes its place.
	 */
	if (bfqq == bfqd->in_service_bfqq &&
	    (!inj->probe_rq || !inj->probe_sent_ns)) {
		inj->probe_rq = rq;
		inj->probe_sent_ns = 0;
	}
	if (!bfqq->sync)
		return;
	cand = bfq_inject_waker_candidate(bfqd, bfqq, asked_ns);
	switch (bfq_inject_waker_observe(&bfqq->inj.track, cand ? cand->inj.serial : 0,
					 waker ? waker->inj.serial : 0)) {
	case BFQ_WAKER_FOUND:
		bfq_inject_waker_set(bfqd, bfqq, cand);
		break;
	case BFQ_WAKER_LOST:
		bfq_inject_waker_set(bfqd, bfqq, NULL);
		break;
	case BFQ_WAKER_SAME:
		break;
	}
}

/*
 * Rules 1 and 4: the queue to dispatch from while the device idles for
 * @cur, or NULL to leave the device idle; @now_ns is the dispatch's clock
 * reading, @symmetric whether the busy queues and groups are alike
 * (bfq_symmetric(): where they are not, the idle time keeps the shares).
 */
struct bfq_queue *bfq_inject_pick(struct bfq_data *bfqd,
				  struct bfq_queue *cur, u64 now_ns,
				  bool symmetric)
{
	struct bfq_queue *waker = cur->inj.waker;
	struct bfq_entity *next;

	lockdep_assert_held(&bfqd->lock);

	if (READ_ONCE(bfqd->tun.strict_guarantees))
		return NULL;
	if (waker && waker->nr_queued && !cur->nr_in_driver)
		return waker;
	if (bfq_wr_needs_idling(bfqd, cur, now_ns) || !symmetric)
		return NULL;
	if (bfqd->inj.in_driver >= bfq_inject_limit(&bfqd->inj.learn, now_ns))
		return NULL;
	next = bfq_sched_peek(&bfqd->sched, BFQ_CLASS_BE);
	return next ? container_of(next, struct bfq_queue, entity) : NULL;
}

/*
 * Rule 2: @rq goes to the device at @now_ns. If it is the probe, its wait
 * starts now, and counts only if the device holds nothing but injected
 * requests: a request left from the last turn ahead of it is no cost of
 * injection, and the time it waited in the scheduler (its turn ended
 * before it could go) is none either. Timed so, the base of sequential
 * readers on a disk is their requests' own service, and a far request
 * injected between two of theirs, two seeks, shows as the cost it is.
 */
void bfq_inject_probe_sent(struct bfq_data *bfqd, struct request *rq,
			   u64 now_ns)
{
	struct bfq_inject_data *inj = &bfqd->inj;

	lockdep_assert_held(&bfqd->lock);

	if (rq != inj->probe_rq)
		return;
	if (bfqd->rq_in_driver > inj->in_driver) {
		inj->probe_rq = NULL;
		return;
	}
	inj->probe_sent_ns = now_ns;
	inj->probe_injected = inj->in_driver > 0;
}

/* Rule 3: @bfqq owes @sectors more, up to its cap. */
static void bfq_inject_owe(struct bfq_queue *bfqq, unsigned int sectors)
{
	bfqq->inj.debt_sectors = min3((u64)bfqq->inj.debt_sectors + sectors,
				      (u64)BFQ_INJECT_DEBT_BUDGETS *
				      max(bfqq->entity.budget_sectors, sectors),
				      (u64)BFQ_MAX_BUDGET_LIMIT_SECTORS);
}

/* Rules 1 and 3: @sectors of @bfqq went to the device while idling for @cur. */
void bfq_inject_dispatched(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			   struct bfq_queue *cur, unsigned int sectors)
{
	lockdep_assert_held(&bfqd->lock);

	bfqd->inj.in_driver++;
	if (bfqq == cur->inj.waker)
		bfqd->inj.nr_for_wakers++;
	else
		bfqd->inj.nr_injected++;
	bfq_inject_owe(bfqq, sectors);
}

/*
 * Rules 2 and 4: @rq of @bfqq completed at @now_ns; @injected if it was
 * dispatched by injection.
 */
void bfq_inject_completed(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			  struct request *rq, bool injected, u64 now_ns)
{
	struct bfq_inject_data *inj = &bfqd->inj;
	struct bfq_inject_done *d;

	lockdep_assert_held(&bfqd->lock);

	if (injected && !WARN_ON_ONCE(!inj->in_driver))
		inj->in_driver--;
	/*
	 * Rule 4: a run's completions are at most a window apart, so one
	 * going on when a process asked completed within it before.
	 */
	d = &inj->done[inj->done_last];
	if (d->bfqq != bfqq || !d->first_ns ||
	    now_ns - d->last_ns > (u64)BFQ_WAKER_WINDOW_US * NSEC_PER_USEC) {
		inj->done_last = (inj->done_last + 1) % BFQ_WAKER_RUNS;
		d = &inj->done[inj->done_last];
		d->bfqq = bfqq;
		d->first_ns = now_ns;
	}
	d->last_ns = now_ns;
	d->sent_ns = bfqq->inj.sent_ns;
	if (rq == inj->probe_rq && inj->probe_sent_ns) {
		unsigned int old = inj->learn.limit;
		u64 wait_ns = now_ns - inj->probe_sent_ns;

		inj->probe_rq = NULL;
		bfq_inject_feedback(&inj->learn, wait_ns, inj->probe_injected,
				    now_ns);
		if (inj->learn.limit != old)
			trace_bfq_inject_limit(bfq_dev(bfqd), inj->learn.limit,
					       inj->learn.base_ns, wait_ns);
	}
}

/*
 * Rule 4: whether a queue other than @a and @b, still allocated, had a
 * request completed within @horizon_ns before @now_ns, in the latest runs
 * of completions (bfq_waker_rivals() in bfq-iosched.c: a reader between
 * two reads is not busy, but comes back within a slice).
 */
bool bfq_inject_other_done(struct bfq_data *bfqd, struct bfq_queue *a,
			   struct bfq_queue *b, u64 now_ns, u64 horizon_ns)
{
	unsigned int i;

	lockdep_assert_held(&bfqd->lock);

	for (i = 0; i < BFQ_WAKER_RUNS; i++) {
		const struct bfq_inject_done *d = &bfqd->inj.done[i];

		if (d->bfqq && d->first_ns && d->bfqq != a && d->bfqq != b &&
		    now_ns - min(d->last_ns, now_ns) <= horizon_ns)
			return true;
	}
	return false;
}

/* The lifetime rule: @rq is about to be freed. */
void bfq_inject_forget_rq(struct bfq_data *bfqd, struct request *rq)
{
	lockdep_assert_held(&bfqd->lock);

	if (bfqd->inj.probe_rq == rq)
		bfqd->inj.probe_rq = NULL;
}

/*
 * Rule 3: the debt @bfqq pays in the turn it starts now, at most @budget
 * sectors; what exceeds the turn's budget is paid in the next turns.
 */
unsigned int bfq_inject_take_debt(struct bfq_queue *bfqq, unsigned int budget)
{
	unsigned int paid = min(bfqq->inj.debt_sectors, budget);

	bfqq->inj.debt_sectors -= paid;
	bfqq->inj.paid_sectors = paid;
	return paid;
}

/* ------------------------------------------------------------------ */
/* Actuators (rule 5)                                                  */
/* ------------------------------------------------------------------ */

/*
 * Rule 5: the disk's ranges, as it reports them now. Called at
 * init_sched, where the elevator core keeps the disk's ranges from
 * changing (their writer takes the queue's sysfs_lock too).
 */
void bfq_inject_ranges_init(struct bfq_ranges *r, struct gendisk *disk)
{
	struct blk_independent_access_ranges *iars = disk->ia_ranges;
	unsigned int i;

	r->nr = 0;
	if (!iars || iars->nr_ia_ranges < 2 ||
	    iars->nr_ia_ranges > BFQ_MAX_RANGES)
		return;
	/* blk-ia-ranges.c keeps them sorted, contiguous, from sector 0. */
	for (i = 0; i < iars->nr_ia_ranges; i++)
		r->end[i] = iars->ia_range[i].sector +
			    iars->ia_range[i].nr_sectors;
	r->nr = iars->nr_ia_ranges;
}

/* Rule 5: the range @pos lies in (0 when the disk reports none). */
unsigned int bfq_inject_range_of(const struct bfq_ranges *r, sector_t pos)
{
	unsigned int i;

	for (i = 0; i + 1 < r->nr; i++)
		if (pos < r->end[i])
			return i;
	return r->nr ? r->nr - 1 : 0;
}

/*
 * Rule 5: a queued request of a queue other than @cur for a range the
 * device holds nothing of, other than @busy_range (the one @cur reads in
 * or idles for), and its queue in *@bfqqp; NULL if none.
 */
struct request *bfq_inject_range_pick(struct bfq_data *bfqd,
				      struct bfq_queue *cur,
				      unsigned int busy_range, u64 now_ns,
				      struct bfq_queue **bfqqp)
{
	struct bfq_ranges *r = &bfqd->ranges;
	struct bfq_queue *bfqq;
	unsigned int i;

	lockdep_assert_held(&bfqd->lock);

	if (r->nr < 2 || READ_ONCE(bfqd->tun.strict_guarantees))
		return NULL;
	for (i = 0; i < r->nr; i++) {
		sector_t start = i ? r->end[i - 1] : 0;

		if (i == busy_range || r->in_driver[i])
			continue;
		list_for_each_entry(bfqq, &bfqd->all_bfqqs, all_node) {
			struct request *rq, *behind;

			if (bfqq == cur || !bfqq->nr_queued ||
			    (bfqq->ioprio_class == BFQ_CLASS_IDLE &&
			     cur->ioprio_class != BFQ_CLASS_IDLE) ||
			    bfq_wr_holds_back(bfqd, bfqq, now_ns))
				continue;
			rq = bfq_queued_from(bfqq, start, &behind);
			if (rq && blk_rq_pos(rq) < r->end[i]) {
				*bfqqp = bfqq;
				return rq;
			}
		}
	}
	return NULL;
}

/* Rule 5: @sectors of @bfqq went to an idle actuator: paid as rule 3's. */
void bfq_inject_range_dispatched(struct bfq_data *bfqd,
				 struct bfq_queue *bfqq, unsigned int sectors)
{
	lockdep_assert_held(&bfqd->lock);

	bfqd->ranges.nr_injected++;
	bfq_inject_owe(bfqq, sectors);
}

/* ------------------------------------------------------------------ */
/* Sweep (rule 6)                                                      */
/* ------------------------------------------------------------------ */

/*
 * Rule 6: the order a head at @head reaches @pos in, lower first: ahead of
 * it by distance, then, after the wrap, by position.
 */
u64 bfq_inject_sweep_key(sector_t head, sector_t pos)
{
	return pos >= head ? pos - head : BIT_ULL(63) + pos;
}

/* Rule 6: whether the queues' order may follow the head, @cur in service. */
static bool bfq_inject_may_sweep(struct bfq_data *bfqd, struct bfq_queue *cur)
{
	return !READ_ONCE(bfqd->tun.strict_guarantees) && cur->sync &&
	       bfq_seeky(cur) && !bfqd->wr.nr_raised &&
	       !bfq_queue_nonrot(bfqd->queue) &&
	       bfq_rate_seek_costly(&bfqd->seek) && bfq_symmetric(bfqd, cur);
}

/* Rule 6: whether @bfqq, with requests queued, is swept beside @cur. */
static bool bfq_inject_sweeps_with(const struct bfq_queue *bfqq,
				   const struct bfq_queue *cur)
{
	return bfqq->sync && bfq_seeky(bfqq) &&
	       bfqq->ioprio_class == cur->ioprio_class &&
	       bfqq->entity.weight == cur->entity.weight;
}

/*
 * Rule 6: the request to dispatch, @rq being the next one of @cur, in
 * service: @rq, or another queue's the head reaches first (its queue in
 * *@bfqqp, else @cur).
 */
struct request *bfq_inject_sweep_pick(struct bfq_data *bfqd,
				      struct bfq_queue *cur,
				      struct request *rq, u64 now_ns,
				      struct bfq_queue **bfqqp)
{
	sector_t head = bfqd->seek.last_end;
	struct request *best = rq;
	struct bfq_queue *bfqq, *owner = cur;
	u64 best_key;

	lockdep_assert_held(&bfqd->lock);

	*bfqqp = cur;
	if (!bfq_inject_may_sweep(bfqd, cur))
		return rq;
	best_key = bfq_inject_sweep_key(head, blk_rq_pos(rq));
	list_for_each_entry(bfqq, &bfqd->all_bfqqs, all_node) {
		struct request *first, *behind;
		u64 key;

		if (bfqq == cur || !bfqq->nr_queued)
			continue;
		/* A queue unlike @cur: the service order keeps the shares. */
		if (!bfq_inject_sweeps_with(bfqq, cur))
			return rq;
		if (bfqq->inj.debt_sectors >=
		    BFQ_INJECT_DEBT_BUDGETS * bfqq->entity.budget_sectors ||
		    bfq_wr_holds_back(bfqd, bfqq, now_ns))
			continue;
		first = bfq_queued_from(bfqq, head, &behind);
		if (!first)
			first = rb_entry_rq(rb_first(&bfqq->sort_list));
		key = bfq_inject_sweep_key(head, blk_rq_pos(first));
		if (key < best_key) {
			best = first;
			best_key = key;
			owner = bfqq;
		}
	}
	*bfqqp = owner;
	return best;
}

/* Rule 6: @sectors of @bfqq went to the device in @cur's turn: as rule 3's. */
void bfq_inject_swept(struct bfq_data *bfqd, struct bfq_queue *bfqq,
		      unsigned int sectors)
{
	lockdep_assert_held(&bfqd->lock);

	bfqd->inj.nr_swept++;
	bfq_inject_owe(bfqq, sectors);
}

#ifdef CONFIG_BFQ_KUNIT_TEST
#include "bfq-inject-test.c"
#endif
