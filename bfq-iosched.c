// SPDX-License-Identifier: GPL-2.0
/*
 * BFQ (Budget Fair Queueing) I/O scheduler: elevator glue and the request
 * life cycle. Prefix: bfq_ alone, the elevator hooks by their operation's
 * name; each mechanism's file has a longer one of its own (bfq_wr_, ...).
 *
 * Design notes
 *
 * 1. Queues. Each process gets one bfq_queue for its sync requests, found
 *    through its io context: blk-ioc gives every (io_context, device) pair
 *    an io_cq, which we embed in struct bfq_io_cq. Async requests go to a
 *    queue shared by all processes of the same ioprio class and level, kept
 *    in bfq_data. A request that cannot get a queue (allocation failure, an
 *    io context already exited) goes to bfq_data.fallback_bfqq, so the
 *    insert path never fails.
 *
 * 2. Requests inside a queue are kept twice: sorted by sector (rb-tree) to
 *    serve them in ascending order from the last position, and by arrival
 *    (FIFO) so that none waits past fifo_expire_{sync,async}.
 *
 * 3. Service. Backlogged queues are entities of the service layer
 *    (bfq-wf2q.c). The dispatch hook asks it which entity's turn it is
 *    (B-WF2Q+ over each class's tree, groups above queues), takes that
 *    queue's next request and charges its size to the entity's budget; a
 *    turn ends when the queue empties and idling would not pay, its budget
 *    is used, it times out or a queue of a higher class preempts it, and
 *    bfq-budget.c sizes the next budget from how it ended.
 *
 * 4. Requests inserted at the head (requeues, flush sequences) and requests
 *    blk-mq did not prepare through us bypass the queues in
 *    bfq_data.dispatch_head and are dispatched first. A request the driver
 *    gives back with its own setup kept (RQF_DONTPREP) never comes back
 *    to us: it stays counted in the device (bfq_requeue_request()).
 *
 * 5. Low latency (bfq-wr.c). The life cycle tells it when a sync queue is
 *    born, becomes backlogged, dispatches, is selected, expires and becomes
 *    idle; it answers with a weight (bfq_queue_weight()) and with whether
 *    the device must idle for a queue (bfq_should_idle()).
 *
 * 6. Queue merging (bfq-merge.c). At each sync request's binding it may
 *    move the process (with every process of its queue) to another queue
 *    whose last request ended where this one begins, or give it back a
 *    queue of its own; bfq_sync_queue() and bfq_merge_arrival() are the
 *    only places a process's sync queue changes.
 *
 * 7. Request merges stay in their queue. Queued requests are in blk-mq's
 *    merge hash, which finds a request ending where a bio or request
 *    begins; the elevator core calls us back for each merge. A bio joins
 *    a request only if the request made of it would have joined the same
 *    queue (bfq_allow_merge()), and a request joins one at insert only
 *    if every request the core would merge it with is of its queue
 *    (bfq_insert_merge()): a queue's turn serves its own sectors, charged
 *    to it, and a sync request never waits for an async queue's pace.
 *    Multi-range discards stay out of the hash: the core merges those
 *    without the callback (bfq_add_request()).
 *
 * 8. Writeback in the device is bounded in time. Requests dispatched
 *    wait in the device behind those dispatched before them, and nothing
 *    calls one back. An async queue's turn may send its whole budget at
 *    once (on a 128-deep device: fifty 1.25 MiB writes, half a second on
 *    a 125 MB/s bus), and the read of the next process served - an
 *    application starting, raised, given the device at once - then waits
 *    for all of it: an SSD's start-up under five readers and five writers
 *    took 2.6x its idle time, half a second of it in its first read. So
 *    async requests in the device hold at most BFQ_ASYNC_DEVICE_MS of
 *    transfer at the device's measured peak rate (one request always
 *    goes; bfq_async_held()), and the next waits for one to finish: a
 *    sync request arriving finds at most that much writeback ahead of it.
 *    The bound assumes the device serves those requests one after
 *    another at its peak rate. One that serves many at once and takes
 *    long for each however few it holds (a network disk, null_blk with
 *    1 s completions) does not: its rate comes from its depth, and a read
 *    arriving waits its own long time anyway. Held to the bound, such a
 *    device sent its writeback one request a second. So async requests
 *    sent while the bound holds that take over BFQ_ASYNC_SLOW_MS in the
 *    device, BFQ_ASYNC_SLOW_RUN of them in a row, turn the bound off for
 *    BFQ_ASYNC_RETRY_MS
 *    (bfq_async_done()); then it is tried again, since devices and
 *    their loads change. Under the bound, a request on a device that
 *    serves at its rate takes its own transfer, the bound's worth ahead
 *    of it and the sync requests sent meanwhile.
 *    Writeback loses nothing while one request is in the device, since
 *    the next leaves at that one's completion; it gets its share as
 *    before, over a longer turn. Nothing is held until the rate is
 *    measured. The rate is the peak, that of sequential transfers, so
 *    seeky writes on a disk are counted short: the bound is on transfer,
 *    not on positioning. Where nothing is ever read in sequence (random
 *    readers beside random writers) the peak stays unmeasured, and the
 *    lab's SSD then held 27 MB of writeback when an application started:
 *    the rate of windows of any kind stands in for it (bfq_rate_drain()).
 *
 * 9. Around the life cycle, in files of their own: the scheduler-tag
 *    policy, whose hooks (limit_depth, depth_updated, init_hctx) run before
 *    a request exists (bfq-tags.c); the tunables (bfq-sysfs.c); and the
 *    debugfs files (bfq-debugfs.c).
 *
 * References (all counted in bfq_queue.ref, under bfq_data.lock):
 *  - a bfq_io_cq owns one reference to its sync queue, dropped in exit_icq
 *    or when it moves to another queue (group change, merge, split); a
 *    queue's merge.stable owns one to an older queue (bfq-merge.c);
 *  - bfq_data owns one reference to each async queue, dropped at exit_sched;
 *  - each request bound to a queue (rq->elv.priv[0]) owns one reference,
 *    taken at insert and dropped in finish_request;
 *  - bfq_data.in_service_bfqq owns one reference while the queue is in
 *    service (it may idle there with no request, its process gone);
 *  - a queue waiting on the service layer holds queued requests and lives
 *    through them; the idle tree owns no reference: bfq_put_queue() takes
 *    a freed queue's entity off it;
 *  - the low-latency lists (raised queues, burst members) own none:
 *    bfq_put_queue() takes a freed queue off them (bfq_wr_queue_exit()).
 *  prepare_request takes a reference on the io context (ioc_find_get_icq);
 *  finish_request drops it, so an icq outlives the requests that name it.
 *
 * Lock order: q->queue_lock, then ioc->lock, then bfq_data.lock (exit_icq
 * runs under ioc->lock, and under q->queue_lock too when the queue or the
 * elevator goes; it takes bfq_data.lock itself, and nothing here takes
 * either of the others with bfq_data.lock held). bfq_data.lock is taken
 * irq-safe because finish_request may run in hard interrupt context.
 */
#include <linux/blkdev.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/blktrace_api.h>
#include <trace/events/block.h>

#include "blk.h"
#include "blk-mq.h"
#include "blk-mq-debugfs.h"
#include "blk-mq-sched.h"
#include "elevator.h"

#include "bfq-compat.h"
#include "bfq-iosched.h"
#include "bfq-cgroup.h"

#define CREATE_TRACE_POINTS
#include "bfq-trace.h"
/* The files after this one in bfq-build.c only use the tracepoints. */
#undef CREATE_TRACE_POINTS

/*
 * Default values of the tunables, as documented for the stock module so
 * that existing tuning keeps its meaning.
 */
static const u64 BFQ_DEFAULT_SLICE_IDLE_NS = 8 * NSEC_PER_MSEC;
static const u64 BFQ_DEFAULT_TIMEOUT_SYNC_MS = 125;
static const u64 BFQ_DEFAULT_BACK_SEEK_MAX_KIB = 16 * 1024;
static const u64 BFQ_DEFAULT_BACK_SEEK_PENALTY = 2;
static const u64 BFQ_DEFAULT_FIFO_EXPIRE_SYNC_MS = 125;
static const u64 BFQ_DEFAULT_FIFO_EXPIRE_ASYNC_MS = 250;

/*
 * Budget of a turn while max_budget is 0 (autotune) and no peak-rate
 * estimate exists yet: 8 MiB, a few tens of ms of sequential transfer on a
 * disk, long enough to amortize a seek.
 */
#define BFQ_DEFAULT_BUDGET_SECTORS	(16 * 1024)

/*
 * State of a request we prepared, kept in rq->elv.priv[1]: flags and small
 * fields, and above them the sectors it had when dispatched (blk-mq has
 * counted them down to zero by the time finish_request runs).
 */
#define BFQ_RQ_QUEUED		BIT(0)	/* in a queue's sort_list and fifo */
#define BFQ_RQ_IN_DRIVER	BIT(1)	/* dispatched, not yet finished */
#define BFQ_RQ_INJECTED		BIT(2)	/* dispatched by bfq-inject.c */
#define BFQ_RQ_ASKED		BIT(3)	/* fifo_time: when a tag was asked for */
/* Bits 4-7: the range (actuator) it went to (rule 5 of bfq-inject.c). */
#define BFQ_RQ_RANGE_SHIFT	4
#define BFQ_RQ_RANGE_MASK	(0xfUL << BFQ_RQ_RANGE_SHIFT)
/* Bits 8-9: the kind its tag is counted as (enum bfq_tag_kind). */
#define BFQ_RQ_TAG_SHIFT	8
#define BFQ_RQ_TAG_MASK		(0x3UL << BFQ_RQ_TAG_SHIFT)
#define BFQ_RQ_ASYNC_DEV	BIT(10)	/* counted in async_in_driver */
#define BFQ_RQ_ASYNC_HELD	BIT(11)	/* ... under the bound; fifo_time: sent */
#define BFQ_RQ_SECTORS_SHIFT	12

/* Farther than this from the previous request, a request is a seek. */
#define BFQ_SEEK_SECTORS	1024
/*
 * An IDLE-class turn granted while RT or BE queues wait (the service
 * layer's anti-starvation rule) lasts at most this: with the 200 ms grace
 * period that bounds IDLE to about 5% of the device time.
 */
#define BFQ_IDLE_CLASS_TURN_MS	10
/* Idle slices for seeky queues (bfq_idle_slice()). */
#define BFQ_IDLE_SEEKY_MIN_DIV	4
/* A queue idled out and back within this many slices keeps its place. */
#define BFQ_REJOIN_SLICES	4
/* The device queues internally if it has held this many requests. */
#define BFQ_HW_QUEUEING_DEPTH	4
/*
 * Design note 8: the most transfer time async requests hold in the device,
 * which a sync request arriving may find ahead of it. Two idle slices of
 * the default slice_idle: the time bfq otherwise lets the device sit idle
 * for one queue's next request, and a fraction of a starting
 * application's 1-4 ms reads per 10 ms of its start-up.
 */
#define BFQ_ASYNC_DEVICE_MS	16
/*
 * Design note 8: an async request sent under the bound that takes longer
 * than this in the device shows a device that does not serve at its rate
 * one request after another: the default timeout_sync, a whole turn, and
 * eight times the bound. The bound is then off for BFQ_ASYNC_RETRY_MS, a
 * few seconds of writeback, before it is tried again.
 */
#define BFQ_ASYNC_SLOW_MS	125
#define BFQ_ASYNC_RETRY_MS	5000
/*
 * ... once this many in a row were: one late completion (a guest's timer
 * fired late on a loaded host, a device's own hiccup) is not the device.
 */
#define BFQ_ASYNC_SLOW_RUN	4

/*
 * SLAB_TYPESAFE_BY_RCU: bfq_limit_depth() and bfq_bio_merge() read a
 * process's queue under rcu_read_lock() without bfq_data.lock; a queue
 * freed meanwhile stays a bfq_queue's memory until the grace period ends.
 *
 * CONFIG_BFQ_DEBUG_QUEUE_FREE (debug kernels): an ordinary cache instead,
 * so that KASAN reports a queue used after its free (6.1's KASAN does not
 * poison a SLAB_TYPESAFE_BY_RCU object, whose memory stays a valid object
 * of the cache, and 6.12's only with CONFIG_SLUB_RCU_DEBUG); those two
 * readers then take bfq_data.lock (bfq_lockless_lock()).
 */
#ifdef CONFIG_BFQ_DEBUG_QUEUE_FREE
#define BFQ_QUEUE_CACHE_FLAGS	0
#else
#define BFQ_QUEUE_CACHE_FLAGS	SLAB_TYPESAFE_BY_RCU
#endif
static struct kmem_cache *bfq_queue_cache;

static struct bfq_queue *rq_bfqq(struct request *rq)
{
	return rq->elv.priv[0];
}

static unsigned long rq_state(struct request *rq)
{
	return (unsigned long)rq->elv.priv[1];
}

static void rq_state_set(struct request *rq, unsigned long flag, bool on)
{
	unsigned long state = rq_state(rq);

	rq->elv.priv[1] = (void *)(on ? state | flag : state & ~flag);
}

static void rq_mark_dispatched(struct request *rq)
{
	unsigned long flags = rq_state(rq) & (BIT(BFQ_RQ_SECTORS_SHIFT) - 1);

	rq->elv.priv[1] = (void *)(flags | BFQ_RQ_IN_DRIVER |
		((unsigned long)blk_rq_sectors(rq) << BFQ_RQ_SECTORS_SHIFT));
}

static unsigned int rq_dispatched_sectors(struct request *rq)
{
	return rq_state(rq) >> BFQ_RQ_SECTORS_SHIFT;
}

/*
 * Rule 5 of bfq-inject.c: @rq, dispatched, is counted in the range of the
 * disk it goes to (@up), or leaves the device.
 */
static void __rq_count_range(struct bfq_data *bfqd, struct request *rq,
			     bool up)
{
	struct bfq_ranges *r = &bfqd->ranges;
	unsigned int i;

	if (up) {
		i = bfq_inject_range_of(r, blk_rq_pos(rq));
		rq->elv.priv[1] = (void *)((rq_state(rq) & ~BFQ_RQ_RANGE_MASK) |
					   ((unsigned long)i << BFQ_RQ_RANGE_SHIFT));
		r->in_driver[i]++;
	} else {
		i = (rq_state(rq) & BFQ_RQ_RANGE_MASK) >> BFQ_RQ_RANGE_SHIFT;
		if (!WARN_ON_ONCE(!r->in_driver[i]))
			r->in_driver[i]--;
	}
}

/* Inline: on a disk of one range it is a test on every request's path. */
static inline void rq_count_range(struct bfq_data *bfqd, struct request *rq,
				  bool up)
{
	if (bfqd->ranges.nr > 1)
		__rq_count_range(bfqd, rq, up);
}

/* Design note 8: whether the bound on writeback in the device is on. */
bool bfq_async_bound_on(const struct bfq_data *bfqd, u64 now_ns)
{
	return bfq_rate_drain(&bfqd->rate) && now_ns >= bfqd->async_off_until_ns;
}

/*
 * Design note 8: @rq, dispatched, is counted in the async transfer the
 * device holds (@up), or leaves the device. One sent under the bound
 * notes when (fifo_time is free once a request is sent).
 */
static void __rq_count_async(struct bfq_data *bfqd, struct request *rq,
			     bool up)
{
	if (up) {
		u64 now_ns;

		bfqd->async_in_driver += rq_dispatched_sectors(rq);
		rq_state_set(rq, BFQ_RQ_ASYNC_DEV, true);
		now_ns = ktime_get_ns();
		bfq_wr_async_sent(bfqd, rq_dispatched_sectors(rq), now_ns);
		if (bfq_async_bound_on(bfqd, now_ns)) {
			rq->fifo_time = now_ns;
			rq_state_set(rq, BFQ_RQ_ASYNC_HELD, true);
		}
	} else {
		rq_state_set(rq, BFQ_RQ_ASYNC_DEV | BFQ_RQ_ASYNC_HELD, false);
		if (!WARN_ON_ONCE(bfqd->async_in_driver <
				  rq_dispatched_sectors(rq)))
			bfqd->async_in_driver -= rq_dispatched_sectors(rq);
		else
			bfqd->async_in_driver = 0;
	}
}

/* Inline: a sync request, the common case, is not counted. */
static inline void rq_count_async(struct bfq_data *bfqd, struct request *rq,
				  bool up)
{
	if (up ? !rq_bfqq(rq)->sync : rq_state(rq) & BFQ_RQ_ASYNC_DEV)
		__rq_count_async(bfqd, rq, up);
}

/*
 * Design note 8: @rq finished at @now_ns. Sent under the bound and slower
 * than BFQ_ASYNC_SLOW_MS, the BFQ_ASYNC_SLOW_RUN-th such in a row turns
 * the bound off for BFQ_ASYNC_RETRY_MS.
 */
static void bfq_async_done(struct bfq_data *bfqd, struct request *rq,
			   u64 now_ns)
{
	if (!(rq_state(rq) & BFQ_RQ_ASYNC_HELD) || now_ns < rq->fifo_time)
		return;
	if (now_ns - rq->fifo_time <= BFQ_ASYNC_SLOW_MS * NSEC_PER_MSEC) {
		bfqd->async_slow_run = 0;
		return;
	}
	if (++bfqd->async_slow_run < BFQ_ASYNC_SLOW_RUN)
		return;
	bfqd->async_slow_run = 0;
	bfqd->async_off_until_ns = now_ns + BFQ_ASYNC_RETRY_MS * NSEC_PER_MSEC;
	bfqd->async_bound_offs++;
}

/*
 * Design note 8: whether @rq of @bfqq, at @now_ns, waits for async
 * requests in the device to finish: it is async, some are there, the
 * bound is on, and with it they would hold more than BFQ_ASYNC_DEVICE_MS
 * of transfer at the measured peak rate.
 */
static bool bfq_async_held(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			   struct request *rq, u64 now_ns)
{
	u64 cap;

	if (bfqq->sync || !bfqd->async_in_driver ||
	    !bfq_async_bound_on(bfqd, now_ns))
		return false;
	cap = div_u64(bfq_rate_drain(&bfqd->rate) * BFQ_ASYNC_DEVICE_MS,
		      MSEC_PER_SEC);
	return bfqd->async_in_driver + blk_rq_sectors(rq) > cap;
}

/*
 * Design note 8 and rule 9 of bfq-wr.c: whether @rq of @bfqq waits at
 * @now_ns, held by the bound or paced while an application starts. Paced
 * with the device empty, no completion will run the queue again: kblockd
 * does once the pace allows.
 */
static bool bfq_async_waits(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			    struct request *rq, u64 now_ns)
{
	u64 left = bfq_wr_async_paced(bfqd, bfqq, now_ns);
	unsigned long ms;

	if (!left)
		return bfq_async_held(bfqd, bfqq, rq, now_ns);
	if (!bfqd->rq_in_driver) {
		ms = DIV_ROUND_UP_ULL(left, NSEC_PER_MSEC);
		blk_mq_delay_run_hw_queues(bfqd->queue, ms);
	}
	return true;
}

static const char *const bfq_expire_names[] = {
	[BFQ_EXP_EMPTY]		= "empty",
	[BFQ_EXP_IDLE_TIMEOUT]	= "idle_timeout",
	[BFQ_EXP_BUDGET]	= "budget_exhausted",
	[BFQ_EXP_TIMEOUT]	= "budget_timeout",
	[BFQ_EXP_PREEMPTED]	= "preempted",
};

static void bfq_trace_queue(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			    bool selected)
{
	const struct bfq_entity *e = &bfqq->entity;

	if (selected)
		trace_bfq_select(bfq_dev(bfqd), bfqq->pid, bfqq->sync,
				 e->class_idx, e->weight, e->budget_sectors);
	else
		trace_bfq_activate(bfq_dev(bfqd), bfqq->pid, bfqq->sync,
				   e->class_idx, e->weight, e->budget_sectors);
	bfq_log(bfqd, bfqq, "%s class=%u weight=%u budget=%u",
		selected ? "select" : "activate", e->class_idx, e->weight,
		e->budget_sectors);
}

/* ------------------------------------------------------------------ */
/* Queues: creation, references, ioprio                               */
/* ------------------------------------------------------------------ */

static enum bfq_class bfq_class_of(unsigned short ioprio)
{
	switch (IOPRIO_PRIO_CLASS(ioprio)) {
	case IOPRIO_CLASS_RT:
		return BFQ_CLASS_RT;
	case IOPRIO_CLASS_IDLE:
		return BFQ_CLASS_IDLE;
	default:
		return BFQ_CLASS_BE;
	}
}

/*
 * The ioprio a request is scheduled with: its own when the submitter set
 * one (ionice, io_uring), else the one derived from the task's nice value
 * at prepare time.
 */
/* The ioprio the current process's nice level gives (no ioprio set). */
static unsigned short bfq_nice_ioprio(void)
{
	return IOPRIO_PRIO_VALUE(task_nice_ioclass(current),
				 task_nice_ioprio(current));
}

static unsigned short bfq_rq_ioprio(struct request *rq, struct bfq_io_cq *bic)
{
	unsigned short ioprio = req_get_ioprio(rq);

	if (IOPRIO_PRIO_CLASS(ioprio) != IOPRIO_CLASS_NONE)
		return ioprio;
	if (bic)
		return READ_ONCE(bic->default_ioprio);
	return IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, IOPRIO_BE_NORM);
}

static void bfq_queue_set_ioprio(struct bfq_queue *bfqq, unsigned short ioprio)
{
	bfqq->ioprio_class = bfq_class_of(ioprio);
	bfqq->ioprio_level = IOPRIO_PRIO_LEVEL(ioprio);
	bfq_queue_apply_weight(bfqq);
}

static void bfq_queue_init(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			   bool sync, unsigned short ioprio)
{
	bfq_entity_init(&bfqq->entity, 0, BFQ_CLASS_BE);
	bfq_entity_place(&bfqq->entity, &bfqd->sched, NULL);
	bfqq->bfqd = bfqd;
	bfqq->ref = 1;
	bfqq->pid = current->pid;
	bfqq->sync = sync;
	bfqq->sort_list = RB_ROOT;
	INIT_LIST_HEAD(&bfqq->fifo);
	bfq_wr_queue_init(bfqq);
	bfq_inject_queue_init(bfqd, bfqq);
	bfq_merge_queue_init(bfqq);
	bfq_queue_set_ioprio(bfqq, ioprio);
}

/* A new queue of @bfqg with one reference for the caller, or NULL. */
static struct bfq_queue *bfq_queue_create(struct bfq_data *bfqd, bool sync,
					  unsigned short ioprio,
					  struct bfq_group *bfqg)
{
	struct bfq_queue *bfqq;

	lockdep_assert_held(&bfqd->lock);

	bfqq = kmem_cache_zalloc(bfq_queue_cache, GFP_NOWAIT | __GFP_NOWARN);
	if (!bfqq)
		return NULL;
	bfq_queue_init(bfqd, bfqq, sync, ioprio);
	bfq_cg_attach(bfqd, bfqq, bfqg);
	list_add_tail(&bfqq->all_node, &bfqd->all_bfqqs);
	bfqd->nr_bfqqs++;
	bfq_log(bfqd, bfqq, "new class=%u level=%u", bfqq->ioprio_class,
		bfqq->ioprio_level);
	return bfqq;
}

/* The cgroup @bfqq's blktrace messages are tagged with (bfq_log()). */
struct cgroup_subsys_state *bfq_queue_css(const struct bfq_queue *bfqq)
{
	return bfq_cg_css(bfqq->bfqg);
}

void bfq_get_queue(struct bfq_queue *bfqq)
{
	lockdep_assert_held(&bfqq->bfqd->lock);
	bfqq->ref++;
}

/* Also called by bfq-cgroup.c and bfq-merge.c. */
void bfq_put_queue(struct bfq_queue *bfqq)
{
	struct bfq_data *bfqd = bfqq->bfqd;

	lockdep_assert_held(&bfqd->lock);

	if (--bfqq->ref)
		return;
	if (WARN_ON_ONCE(bfqq == &bfqd->fallback_bfqq || bfqq->nr_queued))
		return;
	bfq_entity_forget(&bfqq->entity);
	bfq_wr_queue_exit(bfqd, bfqq);
	bfq_inject_queue_exit(bfqd, bfqq);
	bfq_merge_queue_exit(bfqd, bfqq);
	bfq_log(bfqd, bfqq, "freed");
	bfq_cg_detach(bfqq);
	list_del(&bfqq->all_node);
	bfqd->nr_bfqqs--;
	kmem_cache_free(bfq_queue_cache, bfqq);
}

/*
 * Where the shared async queue of @bfqg (NULL: the root group) for a
 * class and level is kept.
 */
static struct bfq_queue **bfq_async_slot(struct bfq_data *bfqd,
					 enum bfq_class class,
					 unsigned short level,
					 struct bfq_group *bfqg)
{
	struct bfq_queue **slot = bfqg ? bfq_cg_async_slots(bfqg) :
					 &bfqd->async_bfqq[0][0];

	return slot + class * IOPRIO_NR_LEVELS + level;
}

/* The one for @ioprio, created on demand. */
static struct bfq_queue *bfq_async_queue(struct bfq_data *bfqd,
					 unsigned short ioprio,
					 struct bfq_group *bfqg)
{
	struct bfq_queue **slot = bfq_async_slot(bfqd, bfq_class_of(ioprio),
						 IOPRIO_PRIO_LEVEL(ioprio),
						 bfqg);

	if (!*slot)
		*slot = bfq_queue_create(bfqd, false, ioprio, bfqg);
	return *slot ?: &bfqd->fallback_bfqq;
}

/* @bic's process stops using its sync queue (bfq-merge.c's rules). */
static void bfq_bic_drop_queue(struct bfq_data *bfqd, struct bfq_io_cq *bic)
{
	struct bfq_queue *bfqq = bic->sync_bfqq;

	bfq_merge_leave(bfqd, bic);
	WRITE_ONCE(bic->sync_bfqq, NULL);
	bfq_end_parked_turn(bfqd, bfqq);
	bfq_put_queue(bfqq);
}

static void bfq_expire(struct bfq_data *bfqd, enum bfq_expire_reason why,
		       u64 now_ns);
static void bfq_idle_stop(struct bfq_data *bfqd);

/*
 * @bic's process, alone in its sync queue @bfqq, does I/O in @bfqg, another
 * group (it moved to another cgroup): the queue goes with it, raising,
 * think time and seek history included, if it holds nothing of its old
 * group (rule 11 of bfq-cgroup.c). A turn it idles or is parked in, with
 * nothing queued or in the device, ends now as it would at the next
 * arrival. Returns false when requests of the old group, or other
 * processes, still hold the queue.
 */
static bool bfq_sync_queue_follow(struct bfq_data *bfqd,
				  struct bfq_queue *bfqq,
				  struct bfq_group *bfqg)
{
	bool in_service = bfqq == bfqd->in_service_bfqq;

	/* The bic's reference and the turn's: no request left to finish. */
	if (bfqq->merge.nr_members != 1 || bfqq->nr_queued ||
	    bfqq->nr_in_driver || bfqq->ref != 1 + in_service)
		return false;
	if (in_service) {
		bfqd->parked = false;
		bfq_expire(bfqd, BFQ_EXP_EMPTY, ktime_get_ns());
	}
	/* Its last turn was in another level: it does not rejoin there. */
	bfqq->idle_expired_ns = 0;
	bfq_cg_move(bfqd, bfqq, bfqg);
	bfq_log(bfqd, bfqq, "moved to another group");
	return true;
}

/*
 * The process's sync queue in @bfqg, created on demand; follows ionice
 * changes. A process that moved to another group takes its queue there
 * (bfq_sync_queue_follow()), or, if the queue is still held in the old
 * group, gets a new queue with its state while the old one keeps its
 * requests and goes with its last reference. One that must leave a
 * merged queue (bfq-merge.c) gets a new queue with the state it had
 * before it merged.
 */
static struct bfq_queue *bfq_sync_queue(struct bfq_data *bfqd,
					struct bfq_io_cq *bic,
					unsigned short ioprio,
					struct bfq_group *bfqg)
{
	struct bfq_queue *bfqq = bic->sync_bfqq;
	enum bfq_class class_idx = bfq_class_of(ioprio);
	/* A queue split from keeps other members, and so its references. */
	struct bfq_queue *merged = NULL;
	/* Its old queue stays in the old group: not a birth (bfq-wr.c). */
	bool moved = false;
	enum bfq_split_why why;
	u64 now_ns;

	/* After exit_icq nobody would drop a new queue's reference. */
	if (bic->exited)
		return &bfqd->fallback_bfqq;
	if (bfqq && bfqq->bfqg != bfqg &&
	    !bfq_sync_queue_follow(bfqd, bfqq, bfqg)) {
		bfq_merge_keep(bic);
		bfq_bic_drop_queue(bfqd, bic);
		moved = true;
	} else if (bfqq && bfq_merge_must_split(bfqq, class_idx,
						IOPRIO_PRIO_LEVEL(ioprio),
						&why)) {
		merged = bfqq;
		bfq_bic_drop_queue(bfqd, bic);
	} else if (bfqq) {
		/* ionice changed: the new weight applies from its next turn. */
		if (bfqq->ioprio_class != class_idx ||
		    bfqq->ioprio_level != IOPRIO_PRIO_LEVEL(ioprio))
			bfq_queue_set_ioprio(bfqq, ioprio);
		return bfqq;
	}
	bfqq = bfq_queue_create(bfqd, true, ioprio, bfqg);
	if (!bfqq)
		return &bfqd->fallback_bfqq;
	now_ns = ktime_get_ns();
	WRITE_ONCE(bic->sync_bfqq, bfqq);
	if (!merged && !moved)
		bfq_wr_queue_born(bfqd, bfqq, now_ns);
	bfq_merge_join(bfqd, bic, bfqq, merged, now_ns);
	if (merged) {
		trace_bfq_split(bfq_dev(bfqd), merged->pid, bfqq->pid,
				merged->merge.nr_members, why);
		bfq_log(bfqd, bfqq, "split from bfq%d left=%u", merged->pid,
			merged->merge.nr_members);
	}
	return bfqq;
}

/* Bind @rq to the queue it belongs to; the request owns one reference. */
static struct bfq_queue *bfq_bind_rq(struct bfq_data *bfqd, struct request *rq)
{
	struct bfq_io_cq *bic = icq_to_bic(rq->elv.icq);
	unsigned short ioprio = bfq_rq_ioprio(rq, bic);
	struct bfq_group *bfqg;
	struct bfq_queue *bfqq;

	lockdep_assert_held(&bfqd->lock);

	bfqg = bfq_cg_rq_group(bfqd, rq);
	if (bic && op_is_sync(rq->cmd_flags)) {
		bfqq = bfq_sync_queue(bfqd, bic, ioprio, bfqg);
		bfqq = bfq_merge_arrival(bfqd, bic, bfqq, blk_rq_pos(rq),
					 blk_rq_sectors(rq));
	} else {
		bfqq = bfq_async_queue(bfqd, ioprio, bfqg);
	}
	bfq_get_queue(bfqq);
	rq->elv.priv[0] = bfqq;
	bfqq->nr_bound++;
	bfq_tags_count_group(bfqd, bfqq->bfqg, true);
	return bfqq;
}

/* ------------------------------------------------------------------ */
/* Requests inside a queue                                             */
/* ------------------------------------------------------------------ */

static u64 bfq_fifo_expire_ms(struct bfq_data *bfqd, struct request *rq)
{
	return op_is_sync(rq->cmd_flags) ?
		READ_ONCE(bfqd->tun.fifo_expire_sync_ms) :
		READ_ONCE(bfqd->tun.fifo_expire_async_ms);
}

/* max_budget, or with max_budget=0 the autotuned value (bfq-rate.c). */
unsigned int bfq_max_budget(struct bfq_data *bfqd)
{
	u64 max_budget = READ_ONCE(bfqd->tun.max_budget_sectors);

	if (max_budget)
		return max_budget;
	return bfq_rate_auto_budget(&bfqd->rate,
				    READ_ONCE(bfqd->tun.timeout_sync_ms)) ?:
	       BFQ_DEFAULT_BUDGET_SECTORS;
}

/*
 * Record whether @rq lies far from the queue's previous arrival. A queue's
 * first arrival has no previous one: it is judged near.
 */
static void bfq_update_seek_history(struct bfq_queue *bfqq,
				    struct request *rq)
{
	sector_t pos = blk_rq_pos(rq);
	sector_t dist = pos > bfqq->arrival_end ? pos - bfqq->arrival_end :
						  bfqq->arrival_end - pos;
	bool far = bfqq->nr_judged && dist > BFQ_SEEK_SECTORS;

	bfqq->seek_history = (bfqq->seek_history << 1) | far;
	if (bfqq->nr_judged < 32)
		bfqq->nr_judged++;
	bfqq->arrival_end = pos + blk_rq_sectors(rq);
}

/*
 * Rule 1 of bfq-budget.c: @bfqq's latest arrival lies far from the one
 * before, and @bfqq is not raised: a raised queue keeps max_budget after
 * its first turn, its turns held for it by idling (rule 5 of bfq-wr.c),
 * not ended by a budget of one request after each read (an application
 * starting on the lab's SSD under 5 readers and 5 writers took 10-15%
 * longer so).
 */
static bool bfq_next_far(const struct bfq_queue *bfqq)
{
	return (bfqq->seek_history & 1) && bfqq->wr.coeff == 1;
}

/*
 * @bfqq, with nothing queued nor in the device, issues a request at
 * @now_ns: the gap since its last completion is its think time, averaged
 * over the last several (1/8 weight to the new sample).
 */
static void bfq_update_think(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			     u64 now_ns)
{
	u64 cap = READ_ONCE(bfqd->tun.slice_idle_ns) * BFQ_THINK_SAMPLE_SLICES;
	u64 sample;

	if (!bfqq->last_done_ns)
		return;
	sample = min(now_ns - bfqq->last_done_ns, cap);
	bfqq->think_ns = bfqq->think_ns ?
			 div_u64(bfqq->think_ns * 7 + sample, 8) : sample;
}

/* Whether @bfqq's next request usually comes later than an idle slice. */
static bool bfq_thinks_long(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	return bfqq->think_ns > READ_ONCE(bfqd->tun.slice_idle_ns);
}

/* @bfqq's group gains (@up) or loses a busy sync queue. */
static void bfq_group_busy(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			   bool up)
{
	bool changed;

	if (bfqq->bfqg)
		changed = bfq_cg_busy_change(bfqd, bfqq->bfqg, up);
	else if (up)
		changed = !bfqd->root_busy_sync++;
	else
		changed = !--bfqd->root_busy_sync;
	if (changed && up)
		bfqd->busy_groups++;
	else if (changed)
		bfqd->busy_groups--;
}

/*
 * Busy sync queues by (class, level) and by group, for bfq_symmetric(): a
 * queue counts from its first queued request until it has nothing queued,
 * is not in service and has nothing in the device. The requests in the
 * device count because a process that does one request at a time has
 * nothing queued while its request is served: on a deep device four such
 * readers in one group and one in another would look like one busy queue
 * each, the groups alike (bfq_cg_alike()), and the device would
 * not idle for the lone reader's share.
 */
static void bfq_busy_set(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	unsigned int *n;

	if (bfqq->busy || !bfqq->sync)
		return;
	bfqq->busy = true;
	bfqq->busy_class = bfqq->ioprio_class;
	bfqq->busy_level = bfqq->ioprio_level;
	n = &bfqd->busy_sync[bfqq->busy_class][bfqq->busy_level];
	if (!(*n)++)
		bfqd->busy_kinds++;
	bfqd->busy_sync_nr++;
	bfq_group_busy(bfqd, bfqq, true);
}

static void bfq_busy_clear(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	unsigned int *n;

	if (!bfqq->busy)
		return;
	bfqq->busy = false;
	n = &bfqd->busy_sync[bfqq->busy_class][bfqq->busy_level];
	if (!--(*n))
		bfqd->busy_kinds--;
	bfqd->busy_sync_nr--;
	bfq_group_busy(bfqd, bfqq, false);
}

/*
 * @bfqq's group goes offline (its cgroup removed): the queue goes to @to,
 * the nearest group still online above it (NULL: the root group), with
 * its requests (rule 11 of bfq-cgroup.c). What its requests count in the
 * old group goes with them: the scheduler tags they hold, the queue's
 * busy count, the queued requests' statistic. A turn it holds ends first,
 * charged what it moved; with requests queued it waits in the new level
 * from that level's virtual time. The caller holds a reference to @bfqq.
 * Returns whether a turn ended (the device must be run again). Under
 * bfq_data.lock.
 */
bool bfq_queue_reparent(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			struct bfq_group *to)
{
	struct bfq_group *from = bfqq->bfqg;
	bool ended = bfqq == bfqd->in_service_bfqq;
	unsigned int *held;
	struct request *rq;
	bool busy;

	lockdep_assert_held(&bfqd->lock);

	if (ended)
		bfq_expire(bfqd, bfqq->nr_queued ? BFQ_EXP_PREEMPTED :
						   BFQ_EXP_EMPTY, 0);
	if (bfqq->entity.state == BFQ_E_ACTIVE)
		bfq_entity_deactivate(&bfqq->entity);
	busy = bfqq->busy;
	if (busy)
		bfq_group_busy(bfqd, bfqq, false);
	list_for_each_entry(rq, &bfqq->fifo, queuelist) {
		bfq_cg_stat_queued(from, rq, -1);
		bfq_cg_stat_queued(to, rq, 1);
	}
	/* Read by bfq_tags_group_tagless() without the lock. */
	held = bfq_cg_tags_held(from, &bfqd->tags.root_held);
	WRITE_ONCE(*held, *held - bfqq->nr_bound);
	held = bfq_cg_tags_held(to, &bfqd->tags.root_held);
	WRITE_ONCE(*held, *held + bfqq->nr_bound);
	/* Its last turn was in another level: it does not rejoin there. */
	bfqq->idle_expired_ns = 0;
	bfq_cg_move(bfqd, bfqq, to);
	if (busy)
		bfq_group_busy(bfqd, bfqq, true);
	if (bfqq->nr_queued)
		bfq_entity_activate(&bfqq->entity);
	bfq_log(bfqd, bfqq, "moved to the parent group");
	return ended;
}

/*
 * Whether a queue that lost the device to an idle timeout is back soon
 * enough, within BFQ_REJOIN_SLICES idle slices of it, that it was only
 * thinking longer than the device idled (scheduling jitter, a page fault):
 * then it keeps its place in the service order (bfq_entity_rejoin()) and
 * its share survives the jitter.
 */
static bool bfq_absence_was_short(struct bfq_data *bfqd,
				  struct bfq_queue *bfqq, u64 now_ns)
{
	u64 window = READ_ONCE(bfqd->tun.slice_idle_ns) * BFQ_REJOIN_SLICES;

	return bfqq->idle_expired_ns &&
	       now_ns - bfqq->idle_expired_ns <= window;
}

/* The class order: a lower index preempts a higher one. */
static bool bfq_class_preempts(struct bfq_queue *a, struct bfq_queue *b)
{
	return a->ioprio_class < b->ioprio_class;
}

/*
 * The queue in service emptied while no other request waited, and was not
 * worth idling for: instead of expiring it then, only to select it again
 * at its next request, it stays in service, parked, until the next arrival.
 * Its turn is then ended exactly as it would have been at once (reason
 * empty), unless the arrival is its own within the turn's time, which
 * continues the turn. Nothing waited meanwhile, so no other queue could
 * have been served: only the per-request cost of expiring, selecting and
 * activating the queue and every group above it goes. With no timer, the
 * parked queue holds its reference until the next arrival, exit_sched, or
 * until it loses a user (bfq_end_parked_turn()).
 */
static void bfq_park(struct bfq_data *bfqd, u64 now_ns)
{
	bfqd->parked = true;
	bfqd->parked_ns = now_ns;
	/* To the low-latency rules, parked is idle (bfq_wr_maybe_idle()). */
	bfq_wr_maybe_idle(bfqd, bfqd->in_service_bfqq, now_ns);
	bfq_log(bfqd, bfqd->in_service_bfqq, "park");
}

/*
 * A request of @bfqq arrives: end a parked turn, or continue it (true),
 * the arrival then being to the low-latency rules what it is to a queue
 * that was not in service.
 */
static bool bfq_unpark(struct bfq_data *bfqd, struct bfq_queue *bfqq,
		       u64 now_ns)
{
	if (!bfqd->parked)
		return false;
	bfqd->parked = false;
	if (bfqq == bfqd->in_service_bfqq &&
	    !time_after(jiffies, bfqd->turn_deadline)) {
		/* Nobody wanted the device meanwhile: not the turn's time. */
		if (now_ns > bfqd->parked_ns)
			bfqd->turn_start_ns += now_ns - bfqd->parked_ns;
		return true;
	}
	bfq_expire(bfqd, BFQ_EXP_EMPTY, now_ns);
	return false;
}

/*
 * @bfqq loses a user: its process exits or leaves it, or its group goes
 * offline and drops its async queues. If it is parked in service, its turn
 * ends now, as it would at the next arrival: a parked queue whose process
 * is gone would otherwise keep itself, and its group in service, until
 * the device's next I/O, and a removed cgroup dying until then.
 */
void bfq_end_parked_turn(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	lockdep_assert_held(&bfqd->lock);

	if (!bfqd->parked || bfqq != bfqd->in_service_bfqq)
		return;
	bfqd->parked = false;
	bfq_expire(bfqd, BFQ_EXP_EMPTY, ktime_get_ns());
}

/* @bfqq, empty, got @rq: a busy period begins (bfq-wr.c). */
static void bfq_queue_backlogged(struct bfq_data *bfqd, struct bfq_queue *bfqq,
				 struct request *rq, u64 now_ns, u64 asked_ns)
{
	bfq_wr_backlogged(bfqd, bfqq, now_ns, asked_ns,
			  rq_data_dir(rq) == READ);
	bfq_wr_raised_io(bfqd, bfqq, now_ns);
}

/*
 * Queue @rq in @bfqq. A discard on a device that takes several ranges in
 * one request (NVMe) stays out of the merge hash: the block layer merges
 * two such requests without calling requests_merged (attempt_merge()), and
 * elv_attempt_insert_merge()'s second pass would hand it one we hold,
 * found in the hash, to free while it is still in our lists. q->last_merge
 * is safe: only the request being inserted is merged into it. It is then
 * the discard's only way to grow, so the newest discard takes it from a
 * read or write (which the hash still finds): left to whichever request
 * came first, a stream of discards from processes sharing the async
 * queue found a discard there seldom, and from none to four in five of
 * them were merged, from one run to the next.
 */
static void bfq_add_request(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			    struct request *rq)
{
	struct request_queue *q = bfqd->queue;
	/* The clock is read once, and only for a queue that was empty. */
	u64 now_ns = bfqq->nr_queued ? 0 : ktime_get_ns();
	/*
	 * When the process asked for the request: earlier than now if it
	 * waited for a scheduler tag (bfq_tags_asker()). Its think time
	 * and the low-latency rules measure its pause, which ended then.
	 */
	u64 asked_ns = now_ns;
	bool resumed;

	lockdep_assert_held(&bfqd->lock);

	resumed = bfq_unpark(bfqd, bfqq, now_ns);
	if (rq_state(rq) & BFQ_RQ_ASKED) {
		if (rq->fifo_time < now_ns &&
		    rq->fifo_time >= bfqq->last_done_ns)
			asked_ns = rq->fifo_time;
		rq_state_set(rq, BFQ_RQ_ASKED, false);
	}

	if (!bfqq->nr_queued && !bfqq->nr_in_driver) {
		bfq_update_think(bfqd, bfqq, asked_ns);
		bfq_inject_woken(bfqd, bfqq, rq, asked_ns);
	}
	elv_rb_add(&bfqq->sort_list, rq);
	rq->fifo_time = jiffies +
		msecs_to_jiffies(bfq_fifo_expire_ms(bfqd, rq));
	list_add_tail(&rq->queuelist, &bfqq->fifo);
	if (rq_mergeable(rq)) {
		if (!blk_discard_mergable(rq))
			elv_rqhash_add(q, rq);
		if (!q->last_merge || blk_discard_mergable(rq))
			q->last_merge = rq;
	}
	rq_state_set(rq, BFQ_RQ_QUEUED, true);
	bfq_cg_stat_queued(bfqq->bfqg, rq, 1);
	bfqq->nr_queued++;
	bfqq->nr_meta += !!(rq->cmd_flags & REQ_META);
	bfqd->nr_queued++;
	bfq_merge_count_bios(bfqq, rq, 1);
	bfq_update_seek_history(bfqq, rq);

	if (bfqq == bfqd->in_service_bfqq) {
		/* What we idled for has come. */
		bfq_idle_stop(bfqd);
		if (resumed)
			bfq_queue_backlogged(bfqd, bfqq, rq, now_ns, asked_ns);
		return;
	}
	/* This request took the last tag: what we idle for cannot come. */
	if (bfqd->idling && bfq_tags_exhausted(bfqd, bfqd->in_service_bfqq) &&
	    !READ_ONCE(bfqd->tun.strict_guarantees)) {
		bfq_idle_stop(bfqd);
		bfq_expire(bfqd, BFQ_EXP_EMPTY, now_ns);
	}
	if (bfqq->nr_queued > 1)
		return;
	/* Rule 1 of bfq-budget.c: a new sync queue's first turn. */
	bfqq->entity.budget_sectors =
		bfq_budget_on_busy(bfq_max_budget(bfqd),
				   bfqq->entity.budget_sectors, bfqq->sync,
				   bfqq->last_done_ns, blk_rq_sectors(rq),
				   bfqq->first_used && bfq_next_far(bfqq),
				   &bfqq->first_budget);
	bfqq->first_used = false;
	bfq_queue_backlogged(bfqd, bfqq, rq, now_ns, asked_ns);
	if (bfq_absence_was_short(bfqd, bfqq, now_ns))
		bfq_entity_rejoin(&bfqq->entity, bfq_max_budget(bfqd));
	else
		bfq_entity_activate(&bfqq->entity);
	bfqq->idle_expired_ns = 0;
	bfq_busy_set(bfqd, bfqq);
	bfq_trace_queue(bfqd, bfqq, false);
	if (bfqd->in_service_bfqq &&
	    (bfq_class_preempts(bfqq, bfqd->in_service_bfqq) ||
	     bfq_wr_preempts_queue(bfqd, bfqq, bfqd->in_service_bfqq)))
		bfq_expire(bfqd, BFQ_EXP_PREEMPTED, now_ns);
}

/*
 * Take @rq out of its queue. An emptied queue that waits for service leaves
 * the service layer; the one in service is expired by the dispatch path.
 * A request leaving for the device (@to_driver) keeps its queue's busy
 * period going until it completes: its queue is not idle yet, though its
 * nr_in_driver is counted only once the request is handed over. Marking
 * it idle here would let the request's whole service time pass for a
 * pause of the process (bfq_wr_maybe_idle()), and readers served by
 * injection looked soft real time.
 */
static void bfq_remove_request(struct bfq_data *bfqd, struct request *rq,
			       bool to_driver)
{
	struct bfq_queue *bfqq = rq_bfqq(rq);
	struct request_queue *q = bfqd->queue;

	lockdep_assert_held(&bfqd->lock);

	list_del_init(&rq->queuelist);
	elv_rb_del(&bfqq->sort_list, rq);
	elv_rqhash_del(q, rq);
	if (q->last_merge == rq)
		q->last_merge = NULL;
	rq_state_set(rq, BFQ_RQ_QUEUED, false);
	bfq_cg_stat_queued(bfqq->bfqg, rq, -1);
	bfqq->nr_queued--;
	bfqq->nr_meta -= !!(rq->cmd_flags & REQ_META);
	bfqd->nr_queued--;
	bfq_merge_count_bios(bfqq, rq, -1);

	if (!bfqq->nr_queued && bfqq != bfqd->in_service_bfqq) {
		bfq_entity_deactivate(&bfqq->entity);
		if (!to_driver && !bfqq->nr_in_driver)
			bfq_busy_clear(bfqd, bfqq);
		if (!to_driver)
			bfq_wr_maybe_idle(bfqd, bfqq, ktime_get_ns());
	}
}

/*
 * bfq-merge.c: @from's queued requests go to @to, each with its reference
 * and its deadline (the FIFO stays in deadline order); @from, left empty,
 * ends its turn if it holds the device (bfq_merge_queues() never moves
 * the queue in service away: a guard for other callers). The caller holds
 * a reference to @from.
 */
void bfq_move_queued(struct bfq_data *bfqd, struct bfq_queue *from,
		     struct bfq_queue *to)
{
	struct request *rq, *next, *prev;

	lockdep_assert_held(&bfqd->lock);

	list_for_each_entry_safe(rq, next, &from->fifo, queuelist) {
		u64 deadline = rq->fifo_time;

		bfq_remove_request(bfqd, rq, false);
		bfq_get_queue(to);
		rq->elv.priv[0] = to;
		from->nr_bound--;
		to->nr_bound++;
		bfq_put_queue(from);
		bfq_add_request(bfqd, to, rq);
		rq->fifo_time = deadline;
		while (rq->queuelist.prev != &to->fifo) {
			prev = list_prev_entry(rq, queuelist);
			if (!time_before64(deadline, prev->fifo_time))
				break;
			list_move(&prev->queuelist, &rq->queuelist);
		}
	}
	if (from == bfqd->in_service_bfqq)
		bfq_expire(bfqd, BFQ_EXP_EMPTY, 0);
}

/* ------------------------------------------------------------------ */
/* Insert and merge                                                    */
/* ------------------------------------------------------------------ */

/* Note 7: the request the core's hash lookup finds ending at @end. */
static struct request *bfq_hash_first(struct request_queue *q, sector_t end)
{
	struct request *rq;

	hash_for_each_possible(q->elevator->hash, rq, hash, end)
		if (rq_mergeable(rq) &&
		    blk_rq_pos(rq) + blk_rq_sectors(rq) == end)
			return rq;
	return NULL;
}

/*
 * Note 7: merge @rq of @bfqq into a queued request at insert, if every
 * request the core would merge it with is @bfqq's. The core tries
 * q->last_merge, then the request ending where @rq begins, then the one
 * ending where that one begins, and so on (elv_attempt_insert_merge());
 * there is no callback to refuse one of them. A chain through another
 * queue is not merged at all: rare (two queues' requests that touch) and
 * mostly the cooperating processes bfq-merge.c joins into one queue.
 */
static bool bfq_merge_chain_own(struct request_queue *q,
				struct bfq_queue *bfqq, sector_t pos)
{
	struct request *prev;
	/* Each link is a request of @bfqq: no chain is longer. */
	unsigned int links = bfqq->nr_queued;

	while ((prev = bfq_hash_first(q, pos))) {
		if (rq_bfqq(prev) != bfqq || !links--)
			return false;
		pos = blk_rq_pos(prev);
	}
	return true;
}

static bool bfq_insert_merge(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			     struct request *rq, struct list_head *free)
{
	struct request_queue *q = bfqd->queue;
	struct request *last = q->last_merge;
	bool merged;

	lockdep_assert_held(&bfqd->lock);

	if (!bfq_merge_chain_own(q, bfqq, blk_rq_pos(rq)))
		return false;
	/*
	 * Hide another queue's last_merge from the core for this merge
	 * only: it stays the hint for that queue's next bio (a discard,
	 * which is not in the hash, finds its merges there alone). The
	 * merge touches only @bfqq's requests, so it is still queued.
	 */
	if (last && rq_bfqq(last) != bfqq)
		q->last_merge = NULL;
	else
		last = NULL;
	merged = blk_mq_sched_try_insert_merge(q, rq, free);
	if (last && !q->last_merge)
		q->last_merge = last;
	return merged;
}

/*
 * Note 7: the queue @rq would join if bound now, without binding it (a
 * request merged at insert is never bound: no queue creation, no
 * bfq-merge.c arrival for a request that goes away). NULL: a queue that
 * does not exist yet, which has nothing queued to merge with.
 */
static struct bfq_queue *bfq_rq_queue_peek(struct bfq_data *bfqd,
					   struct request *rq)
{
	struct bfq_io_cq *bic = icq_to_bic(rq->elv.icq);
	unsigned short ioprio;

	if (rq_bfqq(rq))
		return rq_bfqq(rq);
	if (bic && op_is_sync(rq->cmd_flags))
		return bic->exited ? NULL : bic->sync_bfqq;
	ioprio = bfq_rq_ioprio(rq, bic);
	return *bfq_async_slot(bfqd, bfq_class_of(ioprio),
			       IOPRIO_PRIO_LEVEL(ioprio),
			       bfq_cg_rq_group(bfqd, rq));
}

static void bfq_insert_request(struct bfq_data *bfqd, struct request *rq,
			       bool at_head, struct list_head *free)
{
	struct bfq_queue *bfqq;

	lockdep_assert_held(&bfqd->lock);

	if (!bfq_rq_prepared(rq) || at_head) {
		/* Not ours to schedule, or blk-mq wants it served first. */
		if (bfq_rq_prepared(rq) && !rq_bfqq(rq))
			bfq_bind_rq(bfqd, rq);
		if (at_head)
			list_add(&rq->queuelist, &bfqd->dispatch_head);
		else
			list_add_tail(&rq->queuelist, &bfqd->dispatch_head);
		bfqd->nr_queued++;
		return;
	}
	/* Nothing queued: no request to merge with, no lookup. */
	bfqq = bfqd->nr_queued ? bfq_rq_queue_peek(bfqd, rq) : NULL;
	if (bfqq && bfq_insert_merge(bfqd, bfqq, rq, free))
		return;
	bfqq = rq_bfqq(rq) ?: bfq_bind_rq(bfqd, rq);
	trace_block_rq_insert(rq);
	bfq_add_request(bfqd, bfqq, rq);
}

static void bfq_insert_requests(struct blk_mq_hw_ctx *hctx,
				struct list_head *list,
				bfq_insert_flags_t flags)
{
	struct bfq_data *bfqd = hctx->queue->elevator->elevator_data;
	bool at_head = bfq_insert_at_head(flags);
	LIST_HEAD(free);

	spin_lock_irq(&bfqd->lock);
	while (!list_empty(list)) {
		struct request *rq = list_first_entry(list, struct request,
						      queuelist);

		list_del_init(&rq->queuelist);
		bfq_insert_request(bfqd, rq, at_head, &free);
	}
	spin_unlock_irq(&bfqd->lock);

	blk_mq_free_requests(&free);
}

/*
 * Called from the submission path, in the submitter's context: the icq is
 * found here, where current is the process that issued the I/O.
 */
static void bfq_prepare_request(struct request *rq)
{
	struct bfq_data *bfqd = rq->q->elevator->elevator_data;
	struct io_cq *icq = ioc_find_get_icq(rq->q);
	enum bfq_tag_kind kind = bfq_tag_kind_of(rq->cmd_flags);

	bfq_tags_taken(bfqd, kind);
	rq->elv.icq = icq;
	rq->elv.priv[0] = NULL;
	rq->elv.priv[1] = (void *)((unsigned long)kind << BFQ_RQ_TAG_SHIFT);
	if (!icq)
		return;
	bfq_tags_waited(bfqd, icq_to_bic(icq));
	WRITE_ONCE(icq_to_bic(icq)->default_ioprio, bfq_nice_ioprio());
	/* Until bfq_add_request() sets the deadline: see bfq_tags_asker(). */
	if (op_is_sync(rq->cmd_flags)) {
		rq->fifo_time = READ_ONCE(icq_to_bic(icq)->tag_ask_ns);
		if (rq->fifo_time)
			rq_state_set(rq, BFQ_RQ_ASKED, true);
	}
}

/*
 * Note 7: whether @bio may join @rq, that is whether the request made of
 * it would join @rq's queue. The core has checked that both have the same
 * cgroup and ioprio. A sync bio's queue is its process's, which
 * bfq_bio_merge() looked up; an async bio's is the shared async queue of
 * its group, class and level (bfq_bind_rq()'s choice, with the
 * submitter's nice for a bio without ioprio). A sync bio of a process
 * with no queue here yet (its first I/O on the device, the lookup found
 * none) may join any sync request: it has none of its own, and processes
 * that start reading one region together, whose first pieces land next
 * to each other's, are those bfq-merge.c joins into one queue; refused,
 * a pool of four such readers ended up in two queues instead of one, at
 * 0.6 times the throughput.
 */
static bool bfq_bio_joins(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			  struct bio *bio)
{
	unsigned short ioprio = bio->bi_ioprio;

	if (!bfqq)
		return false;
	if (op_is_sync(bio->bi_opf))
		return bfqq == bfqd->merge_bfqq ||
		       (!bfqd->merge_bfqq && bfqq->sync);
	if (bfqq->sync)
		return false;
	if (IOPRIO_PRIO_CLASS(ioprio) == IOPRIO_CLASS_NONE)
		ioprio = bfq_nice_ioprio();
	return bfqq == *bfq_async_slot(bfqd, bfq_class_of(ioprio),
				       IOPRIO_PRIO_LEVEL(ioprio),
				       bfq_cg_queue_group(bfqd, bio));
}

static bool bfq_allow_merge(struct request_queue *q, struct request *rq,
			    struct bio *bio)
{
	struct bfq_data *bfqd = q->elevator->elevator_data;

	lockdep_assert_held(&bfqd->lock);
	return bfq_bio_joins(bfqd, rq_bfqq(rq), bio);
}

/*
 * Front merge lookup: a queued request of the bio's queue starting at its
 * end. Back merges are found by the elevator core's hash.
 */
static int bfq_request_merge(struct request_queue *q, struct request **target,
			     struct bio *bio)
{
	struct bfq_data *bfqd = q->elevator->elevator_data;
	struct bfq_queue *bfqq = bfqd->merge_bfqq;
	struct request *front = NULL;

	lockdep_assert_held(&bfqd->lock);

	if (bfqq)
		front = elv_rb_find(&bfqq->sort_list, bio_end_sector(bio));
	if (!front || !elv_bio_merge_ok(front, bio))
		return ELEVATOR_NO_MERGE;
	*target = front;
	if (blk_discard_mergable(front))
		return ELEVATOR_DISCARD_MERGE;
	return ELEVATOR_FRONT_MERGE;
}

/*
 * The submitting process's icq on @q as its io context's lookup hint names
 * it, or NULL. Lock-free: blk-ioc frees icqs after an RCU grace period and
 * the caller holds rcu_read_lock(); the icq's fields that matter to us are
 * read under bfq_data.lock. A miss (the hint names another device) only
 * costs a front-merge opportunity, where ioc_lookup_icq() would cost
 * q->queue_lock on every bio.
 */
struct io_cq *bfq_current_icq_hint(struct request_queue *q)
{
	struct io_context *ioc = current->io_context;
	struct io_cq *icq;

	if (!ioc)
		return NULL;
	icq = rcu_dereference(ioc->icq_hint);
	if (!icq || icq->q != q || (icq->flags & ICQ_DESTROYED))
		return NULL;
	return icq;
}

/*
 * Whether @bic's process has nothing queued: a lock-free peek, like
 * bfq_tags_sync()'s, at a queue that may no longer be its own.
 */
static bool bfq_bic_queue_empty(struct bfq_data *bfqd, struct bfq_io_cq *bic)
{
	struct bfq_queue *bfqq;
	unsigned long flags = 0;
	bool empty;

	bfq_lockless_lock(bfqd, &flags);
	bfqq = READ_ONCE(bic->sync_bfqq);
	/* Racy: a stale count costs one merge or one lock, see above. */
	empty = bfqq && !data_race(bfqq->nr_queued);
	bfq_lockless_unlock(bfqd, flags);
	return empty;
}

/*
 * A bio may grow a request we hold. With none held the lock is not
 * taken; nor for a sync bio whose process has none queued (a process
 * reading synchronously, one request at a time, finds none of its own):
 * a request that bio would have grown is another queue's, which it may
 * not join (note 7). With two such readers that was one lock round trip
 * in four, the other vCPU waiting on it.
 */
static bool bfq_bio_merge(struct request_queue *q, struct bio *bio,
			  unsigned int nr_segs)
{
	struct bfq_data *bfqd = q->elevator->elevator_data;
	struct bfq_io_cq *bic = NULL;
	struct request *free = NULL, *into;
	struct bfq_queue *cur;
	bool merged, kick;

	if (!READ_ONCE(bfqd->nr_queued))
		return false;
	rcu_read_lock();
	if (op_is_sync(bio->bi_opf))
		bic = icq_to_bic(bfq_current_icq_hint(q));
	if (bic && bfq_bic_queue_empty(bfqd, bic)) {
		rcu_read_unlock();
		return false;
	}

	spin_lock_irq(&bfqd->lock);
	/* For bfq_request_merge(), called back under this same lock. */
	bfqd->merge_bfqq = bic && !bic->exited ? bic->sync_bfqq : NULL;
	bfqd->bio_counted = false;
	bfqd->bio_merged_into = NULL;
	merged = blk_mq_sched_try_merge(q, bio, nr_segs, &free);
	bfqd->merge_bfqq = NULL;
	/*
	 * A bio that filled the gap between two requests joined them:
	 * bfq_requests_merged() ran instead of bfq_request_merged().
	 */
	if (merged && bic && !bic->exited)
		bfq_merge_member_active(bic);
	into = bfqd->bio_merged_into;
	if (merged && !bfqd->bio_counted && into &&
	    (rq_state(into) & BFQ_RQ_QUEUED))
		bfq_merge_bio_queued(rq_bfqq(into));
	/* The piece bfq_merge_gather() waited for: serve it now. */
	cur = bfqd->in_service_bfqq;
	kick = merged && bfq_merge_gathering(bfqd) && cur &&
	       !cur->nr_in_driver && bfq_merge_gathered(cur);
	spin_unlock_irq(&bfqd->lock);
	rcu_read_unlock();

	if (free)
		blk_mq_free_request(free);
	if (kick)
		blk_mq_run_hw_queues(q, true);
	return merged;
}

/* A bio was merged into @rq: a front merge moved its start sector. */
static void bfq_request_merged(struct request_queue *q, struct request *rq,
			       enum elv_merge type)
{
	struct bfq_data *bfqd = q->elevator->elevator_data;
	struct bfq_queue *bfqq = rq_bfqq(rq);

	bfqd->bio_counted = true;
	if (!(rq_state(rq) & BFQ_RQ_QUEUED))
		return;
	bfq_cg_stat_merged(bfqq->bfqg, rq);
	bfq_merge_bio_queued(bfqq);
	if (type != ELEVATOR_FRONT_MERGE)
		return;
	elv_rb_del(&bfqq->sort_list, rq);
	elv_rb_add(&bfqq->sort_list, rq);
}

/* @next was merged into @rq and is about to be freed. */
static void bfq_requests_merged(struct request_queue *q, struct request *rq,
				struct request *next)
{
	struct bfq_data *bfqd = q->elevator->elevator_data;

	lockdep_assert_held(&bfqd->lock);

	/* @next's bios are @rq's now, @next queued or just inserted. */
	if (rq_state(rq) & BFQ_RQ_QUEUED)
		bfq_merge_count_bios(rq_bfqq(rq), next, 1);
	bfqd->bio_merged_into = rq;
	if (!(rq_state(next) & BFQ_RQ_QUEUED))
		return;
	bfq_cg_stat_merged(rq_bfqq(next)->bfqg, next);
	/* Within one queue, @rq inherits the earlier deadline and position. */
	if ((rq_state(rq) & BFQ_RQ_QUEUED) && rq_bfqq(rq) == rq_bfqq(next) &&
	    time_before64(next->fifo_time, rq->fifo_time)) {
		list_move(&rq->queuelist, &next->queuelist);
		rq->fifo_time = next->fifo_time;
	}
	bfq_remove_request(bfqd, next, false);
}

/* ------------------------------------------------------------------ */
/* Dispatch                                                            */
/* ------------------------------------------------------------------ */

/*
 * @bfqq's queued request lowest at or past @pos (NULL: none), and in
 * *@behind the highest before @pos (NULL: none). Also for bfq-inject.c.
 */
struct request *bfq_queued_from(struct bfq_queue *bfqq, sector_t pos,
				struct request **behind)
{
	struct rb_node *node = bfqq->sort_list.rb_node;
	struct request *ahead = NULL;

	*behind = NULL;
	while (node) {
		struct request *rq = rb_entry_rq(node);

		if (blk_rq_pos(rq) >= pos) {
			ahead = rq;
			node = node->rb_left;
		} else {
			*behind = rq;
			node = node->rb_right;
		}
	}
	return ahead;
}

/*
 * Of the queued requests around @pos, the one to serve next: the closest
 * one ahead, unless the closest one behind is within back_seek_max and,
 * with its distance multiplied by back_seek_penalty, still closer.
 */
static struct request *bfq_closest_rq(struct bfq_data *bfqd,
				      struct bfq_queue *bfqq, sector_t pos)
{
	u64 penalty = READ_ONCE(bfqd->tun.back_seek_penalty);
	u64 max_back = READ_ONCE(bfqd->tun.back_seek_max_kib) * 2;
	struct request *behind;
	struct request *ahead = bfq_queued_from(bfqq, pos, &behind);

	if (!behind)
		return ahead;
	if (pos - blk_rq_pos(behind) > max_back)
		return ahead ?: rb_entry_rq(rb_first(&bfqq->sort_list));
	if (!ahead ||
	    (pos - blk_rq_pos(behind)) * penalty < blk_rq_pos(ahead) - pos)
		return behind;
	return ahead;
}

/*
 * The request @bfqq serves next: an expired one first; then its oldest
 * metadata request (REQ_META: an inode, directory or journal block, which
 * its process waits on before it can send the data requests that follow
 * it); else by position. The FIFO is walked only while a metadata request
 * is queued.
 */
static struct request *bfq_choose_rq(struct bfq_data *bfqd,
				     struct bfq_queue *bfqq)
{
	struct request *oldest = list_first_entry(&bfqq->fifo, struct request,
						  queuelist);
	struct request *rq;

	/* Alone in its queue (a reader at depth 1): nothing to choose. */
	if (bfqq->nr_queued == 1 ||
	    time_after_eq64(get_jiffies_64(), oldest->fifo_time))
		return oldest;
	if (bfqq->nr_meta)
		list_for_each_entry(rq, &bfqq->fifo, queuelist)
			if (rq->cmd_flags & REQ_META)
				return rq;
	rq = bfq_merge_laggard(bfqq);
	return rq ?: bfq_closest_rq(bfqd, bfqq, bfqq->next_pos);
}

/*
 * Whether the active sync queues all have the same class and weight, and
 * are in one group or in groups alike (bfq_cg_alike(); @bfqq, the
 * queue in service, or NULL, tells which group to compare the others
 * with). Then serving them in any order gives each its share, and idling
 * is needed only where it helps throughput.
 */
bool bfq_symmetric(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	return bfqd->busy_kinds <= 1 &&
	       (bfqd->busy_groups <= 1 ||
		(bfqq && bfqq->busy &&
		 bfq_cg_alike(bfqd, bfqq->bfqg, bfqd->busy_groups)));
}

/*
 * Whether the device serves several requests at once: it was seen holding
 * BFQ_HW_QUEUEING_DEPTH of them, or its driver takes more than one. The
 * second is the prior, so that the first is ever seen: a device idled for
 * whenever a queue empties never holds more than one process's request,
 * and processes that issue one request at a time (blktests block/017,
 * psync readers) would keep it serving one request at a time for good.
 */
static bool bfq_queues_inside(struct bfq_data *bfqd)
{
	return bfqd->hw_queueing || READ_ONCE(bfqd->driver_depth) > 1;
}

/*
 * Whether a queue other than @bfqq, emptied, and its waker could take the
 * device within an idle slice if @bfqq's turn ended at @now_ns: another
 * busy sync queue, another queue's requests queued, or another queue
 * that had a request completed less than a slice ago (a reader between
 * two reads). Without one, a turn given away goes to the waker, whose
 * work is what @bfqq waits for, and @bfqq's next request finds nobody
 * ahead of it: idling for it gains nothing. And two independent processes
 * that each issue a request, get it served and issue the next (psync
 * readers of a fast device on two CPUs) each complete just before the
 * other asks, again and again, and rule 4 of bfq-inject.c takes them for
 * each other's wakers: idled for, one request in four started an idle
 * slice (a timer set and cancelled), and the pair lost a quarter to a
 * half of its IOPS (docs/results/2026-12-08-two-cpus.md).
 */
static bool bfq_waker_rivals(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			     u64 now_ns)
{
	struct bfq_queue *waker = bfqq->inj.waker;
	unsigned int pair = bfqq->busy + waker->busy;

	return bfqd->busy_sync_nr > pair ||
	       bfqd->nr_queued > bfqq->nr_queued + waker->nr_queued ||
	       bfq_inject_other_done(bfqd, bfqq, waker, now_ns,
				     READ_ONCE(bfqd->tun.slice_idle_ns));
}

/*
 * Whether to keep the device for the emptied queue in service, awaiting
 * its next request: never for an async queue; always with
 * strict_guarantees; for an interactive
 * weight-raised queue (bfq_wr_needs_idling(): a user waits for its next
 * request), however long it thinks, unless another application starting
 * is next and the device serves both together (bfq_wr_yields()); never
 * for any other queue whose next request usually comes after more than an
 * idle slice (bfq_thinks_long(): the slice would pass in vain), unless it
 * has a waker, whose requests it is waiting for; for a queue with a waker,
 * whatever the other queues are, if there is one beside the two
 * (bfq_waker_rivals(); its waker's requests are served meanwhile,
 * bfq-inject.c rule 4); when
 * queues of different weights or classes, or of several groups, compete,
 * because serving another queue now would give it (or its group) more
 * than its share; and for a sequential queue (neither seeky nor jumping:
 * bfq_jumping()) on a device that does not queue internally
 * (bfq_queues_inside()) or seeks (rotational), where the next request of
 * the same queue is the cheapest one to serve, unless the
 * device has shown that requests far apart cost it no more than near
 * ones (bfq_rate_seek_costly()). A queue born in a large burst (bfq-wr.c,
 * rule 4: the batch needs throughput) is idled for only for that last
 * reason: sequential readers started together on a disk lose throughput
 * to the seeks between them when the device does not idle for them
 * (docs/results/2026-11-25-lab-exp6-rule9.md).
 */
static bool bfq_should_idle(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			    u64 now_ns)
{
	bool batch;

	if (!READ_ONCE(bfqd->tun.slice_idle_ns) || !bfqq->sync)
		return false;
	if (READ_ONCE(bfqd->tun.strict_guarantees))
		return true;
	if (bfq_tags_exhausted(bfqd, bfqq))
		return false;
	batch = bfq_wr_in_large_burst(bfqd, bfqq);
	if (!batch && bfq_wr_needs_idling(bfqd, bfqq, now_ns) &&
	    !bfq_wr_yields(bfqd, bfqq, now_ns))
		return true;
	/*
	 * A queue whose waker is known thinks while its waker works for it
	 * (the commit its fsync waits for), and the waker's requests are
	 * served at once while the device idles for it (bfq-inject.c,
	 * rule 4): its think time does not say its next request comes late.
	 */
	if (bfq_thinks_long(bfqd, bfqq) && !bfqq->inj.waker)
		return false;
	/*
	 * Alike or not, the queues: what the queue waits for is its waker's
	 * work, which idling serves at once; given away now, the turn makes
	 * the waker's request and then the queue's own wait for a whole turn
	 * of each other busy queue (an fsync, two reader turns). With no
	 * other queue, nothing is gained (bfq_waker_rivals()).
	 */
	if (!batch && bfqq->inj.waker && bfq_waker_rivals(bfqd, bfqq, now_ns))
		return true;
	if (!batch && !bfq_symmetric(bfqd, bfqq))
		return true;
	return !bfq_seeky(bfqq) && !bfq_jumping(bfqq) &&
	       bfq_rate_seek_costly(&bfqd->seek) &&
	       (!bfq_queue_nonrot(bfqd->queue) || !bfq_queues_inside(bfqd));
}

/*
 * How long to idle for @bfqq, in service and emptied: slice_idle, shaped
 * by what the queue is (with strict_guarantees, slice_idle as written).
 *  - An interactively raised queue (a user waits for its next request)
 *    is waited for as long as its mean think time and a quarter of it
 *    again, if that is at most BFQ_IDLE_WR_SLICES slices: an
 *    application's work between two reads (page faults, parsing,
 *    linking) often outlasts one slice, and a turn lost there makes each
 *    next read wait for the other queues' requests in the device. A
 *    queue that thinks longer than that (a journal thread, raised by its
 *    first commit, whose next one comes seconds later) gets the plain
 *    slice: a longer wait would only idle the device longer. Raising
 *    ends after a few seconds, and with it the longer wait.
 *  - A seeky queue's next request costs the device a seek wherever it
 *    lands, so waiting for it pays only while it is about to come: twice
 *    its mean think time, at least BFQ_IDLE_SEEKY_MIN_DIV-th of the
 *    slice (the wake-up of its process), at most the slice. When such a
 *    process pauses or ends, the device is given away a few ms earlier.
 */
static u64 bfq_idle_slice(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			  u64 now_ns)
{
	u64 slice_ns = READ_ONCE(bfqd->tun.slice_idle_ns);

	if (READ_ONCE(bfqd->tun.strict_guarantees))
		return slice_ns;
	if (bfq_wr_needs_idling(bfqd, bfqq, now_ns) &&
	    !bfq_wr_yields(bfqd, bfqq, now_ns)) {
		u64 wait_ns = bfqq->think_ns + bfqq->think_ns / 4;

		if (wait_ns > slice_ns &&
		    !bfq_wr_pauses_long(bfqq->think_ns, slice_ns))
			return wait_ns;
		return slice_ns;
	}
	if (bfq_seeky(bfqq))
		return clamp_t(u64, 2 * bfqq->think_ns,
			       slice_ns / BFQ_IDLE_SEEKY_MIN_DIV, slice_ns);
	return slice_ns;
}

static void bfq_idle_start(struct bfq_data *bfqd, u64 now_ns)
{
	u64 slice_ns = bfq_idle_slice(bfqd, bfqd->in_service_bfqq, now_ns);

	lockdep_assert_held(&bfqd->lock);

	bfqd->idling = true;
	bfqd->idle_start_ns = now_ns;
	hrtimer_start(&bfqd->idle_timer, ns_to_ktime(slice_ns),
		      HRTIMER_MODE_REL);
	trace_bfq_idle_start(bfq_dev(bfqd), bfqd->in_service_bfqq->pid,
			     slice_ns);
	bfq_log(bfqd, bfqd->in_service_bfqq, "idle start %lluns", slice_ns);
}

/*
 * Stop idling; a callback already running finds idling false. The slice's
 * time counts into the turn's (rule 2 of bfq-budget.c).
 */
static void bfq_idle_stop(struct bfq_data *bfqd)
{
	u64 now_ns;

	lockdep_assert_held(&bfqd->lock);

	if (!bfqd->idling)
		return;
	bfqd->idling = false;
	now_ns = ktime_get_ns();
	if (now_ns > bfqd->idle_start_ns)
		bfqd->turn_idle_ns += now_ns - bfqd->idle_start_ns;
	hrtimer_try_to_cancel(&bfqd->idle_timer);
	trace_bfq_idle_stop(bfq_dev(bfqd), bfqd->in_service_bfqq->pid, 0);
	bfq_log(bfqd, bfqd->in_service_bfqq, "idle stop");
}

/* slice_idle passed without a new request: give the device away. */
static enum hrtimer_restart bfq_idle_timer_fn(struct hrtimer *timer)
{
	struct bfq_data *bfqd = container_of(timer, struct bfq_data,
					     idle_timer);
	unsigned long flags;

	spin_lock_irqsave(&bfqd->lock, flags);
	/*
	 * Idling stopped and restarted while this callback waited for the
	 * lock: the timer is queued again for the new slice, let that one
	 * decide.
	 */
	if (bfqd->idling && !hrtimer_is_queued(timer) &&
	    bfqd->in_service_bfqq && !bfqd->in_service_bfqq->nr_queued)
		bfq_expire(bfqd, BFQ_EXP_IDLE_TIMEOUT, 0);
	spin_unlock_irqrestore(&bfqd->lock, flags);
	blk_mq_run_hw_queues(bfqd->queue, true);
	return HRTIMER_NORESTART;
}

/*
 * What a timed-out turn of @bfqq costs at @now_ns: max_budget, unless that
 * is still a guess, or the queue is an application starting, which the
 * device waited for by choice (bfq_wr_needs_idling() says why). A waker
 * or a queue with one, on a device of a few tags, pays its time anyway
 * (bfq_waker_time_charge()).
 */
static unsigned int bfq_timeout_charge(struct bfq_data *bfqd,
				       struct bfq_queue *bfqq,
				       unsigned int max_budget, u64 now_ns)
{
	if (bfq_wr_needs_idling(bfqd, bfqq, now_ns))
		return 0;
	if (READ_ONCE(bfqd->tun.max_budget_sectors) || bfqd->rate.nr_samples)
		return max_budget;
	return 0;
}

/*
 * Whether @bfqq's seeky turns pay for their device time (bfq-budget.c,
 * rule 3): where seeks cost; not a raised queue, but one raised with an
 * earlier start-up than the latest (bfq-wr.c rule 10).
 */
static bool bfq_pays_time(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	if (!bfq_rate_seek_costly(&bfqd->seek))
		return false;
	return bfqq->wr.coeff == 1 ||
	       (bfqq->wr.kind == BFQ_WR_INTERACTIVE &&
		!bfq_wr_of_latest_startup(bfqd, bfqq));
}

/*
 * Whether the turns of @bfqq pay for their time (bfq-budget.c rule 4): it
 * has a waker, or is one, and the device has at most BFQ_TAGS_FEW
 * scheduler tags (one or two requests at a time), where a turn holds the
 * device alone: on a deeper one, other queues' requests share the turn's
 * time (a reader's group beside 64 libaio writers on a 32-deep device got
 * 0.76 of the bytes for its 0.9, tag-weight on 6.12).
 */
static bool bfq_waker_pays_time(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	return (bfqq->inj.waker || !list_empty(&bfqq->inj.wakees)) &&
	       READ_ONCE(bfqd->tags.nr) <= BFQ_TAGS_FEW;
}

/*
 * The least charge of a turn of @turn_ns of a queue that pays for its
 * time (0: it does not): the turn's time at rule 2's rate, once
 * max_budget is known. The caller leaves out time parked: nobody else
 * wanted the device then.
 */
static unsigned int bfq_waker_time_charge(struct bfq_data *bfqd,
					  unsigned int max_budget, u64 turn_ns)
{
	if (!turn_ns || (!READ_ONCE(bfqd->tun.max_budget_sectors) &&
			 !bfqd->rate.nr_samples))
		return 0;
	return bfq_budget_time_charge(turn_ns, max_budget,
				      READ_ONCE(bfqd->tun.timeout_sync_ms));
}

/* The least charge of the turn of seeky @bfqq ending now (rule 3). */
static unsigned int bfq_seeky_charge(struct bfq_data *bfqd,
				     struct bfq_queue *bfqq,
				     unsigned int max_budget)
{
	u64 ns = bfqq->turn_far_ns;

	bfqq->turn_far_ns = 0;
	if (!ns || !bfq_pays_time(bfqd, bfqq))
		return 0;
	return bfq_budget_time_charge(ns, max_budget,
				      READ_ONCE(bfqd->tun.timeout_sync_ms));
}

/*
 * Whether seeky @bfqq, in service, has no time left for @rq: its far
 * requests of this turn, each as long as it takes the device alone, would
 * pass timeout_sync (bfq-budget.c, rule 3). On a device that queues, the
 * clock alone lets a turn send many times that; its charge would then
 * stall its group for as many turns of the others.
 */
static bool bfq_turn_time_spent(struct bfq_data *bfqd, struct bfq_queue *bfqq,
				struct request *rq)
{
	u64 ns = bfqq->turn_far_ns;

	if (!ns || !bfq_seeky(bfqq) || !bfq_pays_time(bfqd, bfqq))
		return false;
	ns += bfq_rate_seek_far_ns(&bfqd->seek, blk_rq_sectors(rq));
	return ns > (u64)READ_ONCE(bfqd->tun.timeout_sync_ms) * NSEC_PER_MSEC;
}

/*
 * End the turn of the queue in service (budget rules: bfq-budget.c) at
 * @now_ns, the caller's clock reading (0: none at hand, read it here).
 */
static void bfq_expire(struct bfq_data *bfqd, enum bfq_expire_reason why,
		       u64 now_ns)
{
	struct bfq_queue *bfqq = bfqd->in_service_bfqq;
	struct bfq_entity *entity = &bfqq->entity;
	unsigned int max_budget = bfq_max_budget(bfqd);
	unsigned int served = entity->service_sectors;
	unsigned int charge, idle_charge = 0;
	bool streamed = false, first_used, far;
	u64 end_ns, turn_ns;

	lockdep_assert_held(&bfqd->lock);

	if (!now_ns)
		now_ns = ktime_get_ns();

	bfq_idle_stop(bfqd);
	/* A parked turn ended when it was parked (bfq_park()). */
	end_ns = bfqd->parked ? min(bfqd->parked_ns, now_ns) : now_ns;
	turn_ns = bfq_waker_pays_time(bfqd, bfqq) && end_ns > bfqd->turn_start_ns ?
		  end_ns - bfqd->turn_start_ns : 0;
	bfqd->parked = false;
	WRITE_ONCE(bfqd->in_service_bfqq, NULL);
	bfq_tags_served_changed(bfqd);
	/* Only a timed-out turn costs more than it moved: most turns empty. */
	charge = 0;
	if (why == BFQ_EXP_TIMEOUT) {
		unsigned int ms = READ_ONCE(bfqd->tun.timeout_sync_ms);
		u64 busy_ns = end_ns > bfqd->turn_start_ns + bfqd->turn_idle_ns ?
			      end_ns - bfqd->turn_start_ns - bfqd->turn_idle_ns : 0;
		unsigned int busy = bfq_budget_time_charge(busy_ns, max_budget,
							   ms);

		charge = bfq_timeout_charge(bfqd, bfqq, max_budget, now_ns);
		streamed = !bfq_seeky(bfqq) && bfq_budget_streamed(served, busy);
		idle_charge = bfq_budget_time_charge(bfqd->turn_idle_ns,
						     max_budget, ms);
	}
	charge = max3(bfq_budget_charge(charge, served, why, streamed,
					idle_charge),
		      bfq_seeky_charge(bfqd, bfqq, max_budget),
		      bfq_waker_time_charge(bfqd, max_budget, turn_ns));
	if (why == BFQ_EXP_IDLE_TIMEOUT)
		bfqq->idle_expired_ns = now_ns;
	/*
	 * Rule 1 of bfq-budget.c: a first turn used up, max_budget next,
	 * unless the queue's next request lies far: known now if it is
	 * queued, else when it comes (bfq_add_request()).
	 */
	first_used = bfqq->sync && bfqq->first_budget && why == BFQ_EXP_BUDGET;
	far = bfq_next_far(bfqq);
	if (bfqq->sync && !first_used)
		entity->budget_sectors = bfq_budget_next(max_budget,
							 entity->budget_sectors,
							 served, why);
	else if (first_used && bfqq->nr_queued)
		entity->budget_sectors = bfq_budget_after_first(max_budget,
								served, far);
	else
		entity->budget_sectors = max_budget;
	bfqq->first_budget = first_used && bfqq->nr_queued && far;
	bfqq->first_used = first_used && !bfqq->nr_queued;
	trace_bfq_expire(bfq_dev(bfqd), bfqq->pid, why, served, charge,
			 entity->budget_sectors);
	bfq_log(bfqd, bfqq, "expire %s served=%u charge=%u next_budget=%u",
		bfq_expire_names[why], served, charge, entity->budget_sectors);
	if (!bfqq->nr_queued && !bfqq->nr_in_driver)
		bfq_busy_clear(bfqd, bfqq);
	/* Rule 2 of bfq-wr.c: a wakee's turn counts by its time. */
	if (turn_ns && bfqq->inj.waker && why != BFQ_EXP_PREEMPTED)
		bfq_wr_paced(bfqd, bfqq, turn_ns);
	bfq_wr_expired(bfqd, bfqq, why, served, max_budget, now_ns);
	bfq_wr_maybe_idle(bfqd, bfqq, now_ns);
	bfq_entity_expire(entity, charge, bfqq->nr_queued > 0);
	bfq_put_queue(bfqq);
}

/*
 * How long the turn of the queue just selected may last: timeout_sync, or
 * BFQ_IDLE_CLASS_TURN_MS for an IDLE queue served ahead of busier classes.
 */
static unsigned int bfq_turn_ms(struct bfq_data *bfqd)
{
	unsigned int ms = READ_ONCE(bfqd->tun.timeout_sync_ms);

	if (bfq_sched_higher_class_waits(&bfqd->sched))
		ms = min(ms, BFQ_IDLE_CLASS_TURN_MS);
	return ms;
}

/* The queue in service, selecting one at @now_ns if none is. */
static struct bfq_queue *bfq_in_service(struct bfq_data *bfqd, u64 now_ns)
{
	struct bfq_entity *entity;
	struct bfq_queue *bfqq;

	if (bfqd->in_service_bfqq)
		return bfqd->in_service_bfqq;
	entity = bfq_sched_select(&bfqd->sched, jiffies);
	if (!entity)
		return NULL;
	bfqq = container_of(entity, struct bfq_queue, entity);
	WRITE_ONCE(bfqd->in_service_bfqq, bfqq);
	bfq_tags_served_changed(bfqd);
	bfq_get_queue(bfqq);
	bfqq->turn_far_ns = 0;
	bfqd->turn_idle_ns = 0;
	/* Service received by injection counts into this turn. */
	entity->service_sectors = bfq_inject_take_debt(bfqq,
						       entity->budget_sectors);
	bfq_wr_selected(bfqd, bfqd->in_service_bfqq, now_ns);
	bfqd->turn_deadline = jiffies + msecs_to_jiffies(bfq_turn_ms(bfqd));
	bfqd->turn_start_ns = now_ns;
	bfq_trace_queue(bfqd, bfqd->in_service_bfqq, true);
	return bfqd->in_service_bfqq;
}

/*
 * The device holds all the requests it takes: one with strict_guarantees;
 * else its driver's tags, and one more that waits in blk-mq's own dispatch
 * list, ready the moment the device frees a tag (a scheduling decision
 * fewer between two requests on a device that serves one at a time). But
 * for a merged queue in service that one stays here: in blk-mq's list no
 * bio merges into it any more, here its members' next pieces grow it
 * (bfq_merge_gather()). bfq_finish_request() runs the queue again when a
 * request leaves.
 */
static bool bfq_device_full(struct bfq_data *bfqd)
{
	struct bfq_queue *cur = bfqd->in_service_bfqq;
	unsigned int room;

	if (READ_ONCE(bfqd->tun.strict_guarantees))
		return bfqd->rq_in_driver;
	room = READ_ONCE(bfqd->driver_depth);
	if (!room)
		return false;
	if (!cur || cur->merge.nr_members < 2)
		room++;
	return bfqd->rq_in_driver >= room;
}

/*
 * Whether @rq fits in the rest of @bfqq's budget. The first request of a
 * turn always does, even when the debt paid at its start (rule 3 of
 * bfq-inject.c) took the whole budget.
 */
static bool bfq_budget_left_for(struct bfq_queue *bfqq, struct request *rq)
{
	struct bfq_entity *entity = &bfqq->entity;

	return entity->service_sectors <= bfqq->inj.paid_sectors ||
	       entity->service_sectors + blk_rq_sectors(rq) <=
	       entity->budget_sectors;
}

/*
 * Rule 9 of bfq-wr.c: whether @rq of @bfqq, at @now_ns, waits for a
 * player's frame due before it would leave the empty device (a request in
 * the device already holds the others back: bfq_wr_holds_back()). A queue
 * is held so for its fifo_expire time at most since its first wait (reset
 * at its next dispatch): players whose frames leave no gap long enough
 * delay its requests by that much. Its age does not count: a reader that
 * waited its turn behind others must not go just as a frame is due. No
 * completion will run the queue again: kblockd does when the wait ends, or
 * the frame's insertion sooner.
 */
static bool bfq_frame_waits(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			    struct request *rq, u64 now_ns)
{
	u64 left, *held = &bfqq->wr.frame_held_ns;

	if (!bfqd->wr.softrt_io_ns || bfqd->rq_in_driver)
		return false;
	left = bfq_wr_frame_wait(bfqd, bfqq, blk_rq_sectors(rq), now_ns);
	if (!left)
		return false;
	if (!*held || now_ns < *held)
		*held = now_ns;
	else if (now_ns - *held >= bfq_fifo_expire_ms(bfqd, rq) * NSEC_PER_MSEC)
		return false;
	bfq_log(bfqd, bfqq, "waits %llu us for a frame",
		div_u64(left, NSEC_PER_USEC));
	blk_mq_delay_run_hw_queues(bfqd->queue,
				   DIV_ROUND_UP_ULL(left, NSEC_PER_MSEC));
	return true;
}

/* Take @rq out of @bfqq for the device, at @now_ns. */
static void bfq_dispatch_rq(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			    struct request *rq, u64 now_ns)
{
	bfq_remove_request(bfqd, rq, true);
	bfq_rate_dispatched(&bfqd->rate, now_ns,
			    blk_rq_pos(rq) == bfqq->next_pos,
			    bfqd->rq_in_driver);
	bfq_rate_seek_dispatched(&bfqd->seek, now_ns, blk_rq_pos(rq),
				 blk_rq_sectors(rq), bfqd->rq_in_driver);
	bfqq->next_pos = blk_rq_pos(rq) + blk_rq_sectors(rq);
	/* Rule 3 of bfq-budget.c: injected requests are paid as debt. */
	if (bfq_seeky(bfqq) && bfqq == bfqd->in_service_bfqq)
		bfqq->turn_far_ns += bfq_rate_seek_far_ns(&bfqd->seek,
							  blk_rq_sectors(rq));
	bfq_inject_note_sent(bfqq, now_ns);
	bfq_inject_probe_sent(bfqd, rq, now_ns);
	bfq_wr_dispatched(bfqq, blk_rq_sectors(rq));
	if (bfqq->bfqg)
		bfq_cg_stat_dispatched(bfqq->bfqg, rq, now_ns);
}

/*
 * Rule 5 of bfq-inject.c: @rq of @bfqq, not the queue in service, goes to
 * an actuator the device holds nothing for.
 */
static struct request *bfq_dispatch_range(struct bfq_data *bfqd,
					  struct bfq_queue *bfqq,
					  struct request *rq, u64 now_ns)
{
	bfq_dispatch_rq(bfqd, bfqq, rq, now_ns);
	bfq_inject_range_dispatched(bfqd, bfqq, blk_rq_sectors(rq));
	bfq_log(bfqd, bfqq, "injected %u sectors for an idle actuator",
		blk_rq_sectors(rq));
	trace_bfq_dispatch(bfq_dev(bfqd), bfqq->pid, blk_rq_pos(rq),
			   blk_rq_sectors(rq), bfqq->inj.debt_sectors, 0);
	return rq;
}

/*
 * Rule 6 of bfq-inject.c: @rq of @bfqq, not the queue in service, is the
 * one the disk's head reaches first among the seeky queues' requests.
 */
static struct request *bfq_dispatch_swept(struct bfq_data *bfqd,
					  struct bfq_queue *bfqq,
					  struct request *rq, u64 now_ns)
{
	bfq_dispatch_rq(bfqd, bfqq, rq, now_ns);
	bfq_inject_swept(bfqd, bfqq, blk_rq_sectors(rq));
	trace_bfq_dispatch(bfq_dev(bfqd), bfqq->pid, blk_rq_pos(rq),
			   blk_rq_sectors(rq), bfqq->inj.debt_sectors, 0);
	return rq;
}

/*
 * @rq of @bfqq goes to the device while @cur is in service: as injected,
 * its sectors paid at @bfqq's next turn (bfq-inject.c).
 */
static void bfq_dispatch_beside(struct bfq_data *bfqd, struct bfq_queue *bfqq,
				struct bfq_queue *cur, struct request *rq,
				u64 now_ns)
{
	bfq_dispatch_rq(bfqd, bfqq, rq, now_ns);
	bfq_inject_dispatched(bfqd, bfqq, cur, blk_rq_sectors(rq));
	rq_state_set(rq, BFQ_RQ_INJECTED, true);
	trace_bfq_dispatch(bfq_dev(bfqd), bfqq->pid, blk_rq_pos(rq),
			   blk_rq_sectors(rq), bfqq->inj.debt_sectors, 0);
}

/*
 * While the device idles for @cur: a request of another queue, if
 * bfq-inject.c finds one worth dispatching, else NULL.
 */
static struct request *bfq_dispatch_injected(struct bfq_data *bfqd,
					     struct bfq_queue *cur, u64 now_ns)
{
	struct bfq_queue *bfqq = bfq_inject_pick(bfqd, cur, now_ns,
						 bfq_symmetric(bfqd, cur));
	struct request *rq;

	if (!bfqq) {
		/* Rule 5: not into the range its next request comes to. */
		rq = bfq_inject_range_pick(bfqd, cur,
					   bfq_inject_range_of(&bfqd->ranges,
							       cur->next_pos),
					   now_ns, &bfqq);
		return rq ? bfq_dispatch_range(bfqd, bfqq, rq, now_ns) : NULL;
	}
	if (WARN_ON_ONCE(!bfqq->nr_queued))
		return NULL;
	if (bfq_wr_holds_back(bfqd, bfqq, now_ns)) {
		bfqd->kick_on_finish = true;
		return NULL;
	}
	rq = bfq_choose_rq(bfqd, bfqq);
	/*
	 * Design note 8: writeback in the device is bounded in time; rule 9
	 * of bfq-wr.c: a player's frame due soon finds the device empty.
	 */
	if (bfq_async_waits(bfqd, bfqq, rq, now_ns) ||
	    bfq_frame_waits(bfqd, bfqq, rq, now_ns)) {
		bfqd->kick_on_finish = true;
		return NULL;
	}
	bfq_dispatch_beside(bfqd, bfqq, cur, rq, now_ns);
	bfq_log(bfqd, bfqq, "injected %u sectors while idling for bfq%d",
		blk_rq_sectors(rq), cur->pid);
	return rq;
}

/*
 * Rule 9 of bfq-wr.c: while @cur, in service, is held for a player's
 * frame, the first request of a sync queue the rule does not hold (its
 * process pauses long or has had nothing served yet), dispatched as
 * injected (paid at the queue's next turn), or NULL. Every allocated
 * queue is looked at, only while a player plays on a disk and the turn
 * in service waits.
 */
static struct request *bfq_dispatch_unheld(struct bfq_data *bfqd,
					   struct bfq_queue *cur, u64 now_ns)
{
	struct bfq_queue *bfqq;
	struct request *rq;

	list_for_each_entry(bfqq, &bfqd->all_bfqqs, all_node) {
		if (bfqq == cur || !bfqq->nr_queued || !bfqq->sync ||
		    (bfqq->ioprio_class == BFQ_CLASS_IDLE &&
		     cur->ioprio_class != BFQ_CLASS_IDLE) ||
		    !bfq_wr_frame_exempt(bfqd, bfqq))
			continue;
		rq = bfq_choose_rq(bfqd, bfqq);
		bfq_dispatch_beside(bfqd, bfqq, cur, rq, now_ns);
		bfq_log(bfqd, bfqq, "%u sectors while bfq%d waits for a frame",
			blk_rq_sectors(rq), cur->pid);
		return rq;
	}
	return NULL;
}

/*
 * The next request of the queue in service, or NULL. A queue keeps the
 * device until its next request does not fit in the rest of its budget,
 * its turn lasts longer than timeout_sync, or it is empty and not worth
 * idling for (bfq_should_idle()). While a queue is idled for, or its
 * requests still in the device may bring the next one, nothing else is
 * dispatched. One clock reading serves every decision of the call: the
 * clock is slow to read on some machines (HPET), and this runs with
 * interrupts off.
 */
static struct request *bfq_dispatch_from_queues(struct bfq_data *bfqd)
{
	u64 now_ns = ktime_get_ns();
	struct bfq_queue *bfqq, *other;
	struct request *rq, *orq;

	lockdep_assert_held(&bfqd->lock);

	while ((bfqq = bfq_in_service(bfqd, now_ns))) {
		if (!bfqq->nr_queued) {
			if (!bfq_should_idle(bfqd, bfqq, now_ns)) {
				bfq_expire(bfqd, BFQ_EXP_EMPTY, now_ns);
				continue;
			}
			if (!bfqq->nr_in_driver && !bfqd->idling)
				bfq_idle_start(bfqd, now_ns);
			return bfq_dispatch_injected(bfqd, bfqq, now_ns);
		}
		if (time_after(jiffies, bfqd->turn_deadline)) {
			bfq_expire(bfqd, BFQ_EXP_TIMEOUT, now_ns);
			continue;
		}
		rq = bfq_choose_rq(bfqd, bfqq);
		if (bfq_turn_time_spent(bfqd, bfqq, rq)) {
			bfq_expire(bfqd, BFQ_EXP_TIMEOUT, now_ns);
			continue;
		}
		if (!bfq_budget_left_for(bfqq, rq)) {
			bfq_expire(bfqd, BFQ_EXP_BUDGET, now_ns);
			continue;
		}
		if (bfqq->merge.nr_members > 1 &&
		    bfq_merge_gather(bfqd, bfqq, now_ns))
			return NULL;
		/*
		 * bfq_wr_holds_back(): an application starts, one at a time;
		 * design note 8: writeback in the device is bounded in time.
		 */
		if (bfq_wr_holds_back(bfqd, bfqq, now_ns) ||
		    bfq_async_waits(bfqd, bfqq, rq, now_ns)) {
			bfqd->kick_on_finish = true;
			return NULL;
		}
		/*
		 * Rule 9 of bfq-wr.c: a player's frame due soon finds the
		 * device empty; meanwhile a process that sends one request
		 * and waits for it (a new player's first frames) may go.
		 */
		if (bfq_frame_waits(bfqd, bfqq, rq, now_ns))
			return bfq_dispatch_unheld(bfqd, bfqq, now_ns);
		/*
		 * Rule 6 of bfq-inject.c: seeky queues' requests by position,
		 * if another queue has some.
		 */
		if (bfqd->nr_queued > bfqq->nr_queued) {
			orq = bfq_inject_sweep_pick(bfqd, bfqq, rq, now_ns,
						    &other);
			if (other != bfqq)
				return bfq_dispatch_swept(bfqd, other, orq,
							  now_ns);
		}
		/* Rule 5 of bfq-inject.c: an idle actuator's request first. */
		if (bfqd->ranges.nr > 1) {
			unsigned int i = bfq_inject_range_of(&bfqd->ranges,
							     blk_rq_pos(rq));

			orq = bfqd->ranges.in_driver[i] ?
			      bfq_inject_range_pick(bfqd, bfqq, i, now_ns,
						    &other) : NULL;
			if (orq)
				return bfq_dispatch_range(bfqd, other, orq,
							  now_ns);
		}
		bfq_dispatch_rq(bfqd, bfqq, rq, now_ns);
		bfqq->entity.service_sectors += blk_rq_sectors(rq);
		trace_bfq_dispatch(bfq_dev(bfqd), bfqq->pid, blk_rq_pos(rq),
				   blk_rq_sectors(rq),
				   bfqq->entity.service_sectors,
				   bfqq->entity.budget_sectors);
		return rq;
	}
	return NULL;
}

/* Called from blk-mq for each hardware queue with room for a request. */
static struct request *bfq_dispatch_request(struct blk_mq_hw_ctx *hctx)
{
	struct bfq_data *bfqd = hctx->queue->elevator->elevator_data;
	struct request *rq;

	spin_lock_irq(&bfqd->lock);
	/* A requeued request waits its turn too: it goes back at the head. */
	if (bfq_device_full(bfqd)) {
		bfqd->kick_on_finish = true;
		rq = NULL;
		goto out;
	}
	rq = list_first_entry_or_null(&bfqd->dispatch_head, struct request,
				      queuelist);
	if (rq) {
		list_del_init(&rq->queuelist);
		bfqd->nr_queued--;
		/* Beside a timed request: that one is no longer alone. */
		bfq_rate_seek_cancel(&bfqd->seek);
		if (bfq_rq_prepared(rq) && rq_bfqq(rq)) {
			bfq_rate_redispatched(&bfqd->rate, ktime_get_ns(),
					      bfqd->rq_in_driver);
			bfq_cg_stat_redispatched(rq);
		}
	} else {
		rq = bfq_dispatch_from_queues(bfqd);
	}
	if (rq) {
		rq->rq_flags |= RQF_STARTED;
		if (bfq_rq_prepared(rq) && rq_bfqq(rq)) {
			rq_bfqq(rq)->nr_in_driver++;
			rq_mark_dispatched(rq);
			rq_count_range(bfqd, rq, true);
			rq_count_async(bfqd, rq, true);
			if (++bfqd->rq_in_driver >= BFQ_HW_QUEUEING_DEPTH)
				bfqd->hw_queueing = true;
		}
	}
out:
	/* Requests wait and none goes: see bfq_rq_completed(). */
	bfqd->dispatch_refused = !rq && bfqd->nr_queued;
	spin_unlock_irq(&bfqd->lock);
	return rq;
}

static bool bfq_has_work(struct blk_mq_hw_ctx *hctx)
{
	struct bfq_data *bfqd = hctx->queue->elevator->elevator_data;

	return READ_ONCE(bfqd->nr_queued) > 0;
}

/* ------------------------------------------------------------------ */
/* Completion                                                          */
/* ------------------------------------------------------------------ */

/*
 * A dispatched request finished: account it, and if it was the last one
 * the queue in service waited for, start idling for its next request.
 */
static void bfq_rq_completed(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			     struct request *rq)
{
	u64 now_ns = ktime_get_ns();
	u64 far_ns;

	lockdep_assert_held(&bfqd->lock);

	bfqq->nr_in_driver--;
	bfqd->rq_in_driver--;
	rq_count_range(bfqd, rq, false);
	bfq_async_done(bfqd, rq, now_ns);
	rq_count_async(bfqd, rq, false);
	if (!bfqq->nr_in_driver && !bfqq->nr_queued &&
	    bfqq != bfqd->in_service_bfqq)
		bfq_busy_clear(bfqd, bfqq);
	bfq_cg_stat_completed(bfqq->bfqg, rq, now_ns);
	bfqq->last_done_ns = now_ns;
	bfq_wr_raised_io(bfqd, bfqq, now_ns);
	/* Rule 1 of bfq-rate.c: a far request served alone is out of the peak. */
	far_ns = bfq_rate_seek_completed(&bfqd->seek, now_ns,
					 bfqd->rq_in_driver);
	if (far_ns)
		bfq_rate_far_served(&bfqd->rate, far_ns,
				    rq_dispatched_sectors(rq));
	bfq_rate_completed(&bfqd->rate, now_ns, rq_dispatched_sectors(rq),
			   bfqd->rq_in_driver);
	bfq_inject_completed(bfqd, bfqq, rq, rq_state(rq) & BFQ_RQ_INJECTED,
			     now_ns);
	bfq_wr_maybe_idle(bfqd, bfqq, now_ns);
	if (bfqq == bfqd->in_service_bfqq && !bfqq->nr_queued &&
	    !bfqq->nr_in_driver && !bfqd->idling) {
		if (bfq_should_idle(bfqd, bfqq, now_ns)) {
			bfq_idle_start(bfqd, now_ns);
		} else if (!bfqd->nr_queued) {
			bfq_park(bfqd, now_ns);
		} else {
			/*
			 * Not left in service until the next dispatch. If one
			 * was refused for this queue's sake, nobody asks
			 * again: kick. Else the waiting requests' inserters
			 * are still to ask, and a kick would cost a kblockd
			 * run for nothing (with two readers and low_latency
			 * 0, one every ~20 requests, and blk-mq queued about
			 * as many more when its worker preempted a dispatch).
			 */
			bfq_expire(bfqd, BFQ_EXP_EMPTY, now_ns);
			if (bfqd->dispatch_refused)
				bfqd->kick_on_finish = true;
		}
	}
}

/* Called when a request we prepared is freed, possibly in hard irq. */
static void bfq_finish_request(struct request *rq)
{
	struct bfq_data *bfqd = rq->q->elevator->elevator_data;
	struct bfq_queue *bfqq = rq_bfqq(rq);

	/* Before bfq_rq_completed() decides whether to idle. */
	bfq_tags_given_back(bfqd, (enum bfq_tag_kind)
			    ((rq_state(rq) & BFQ_RQ_TAG_MASK) >> BFQ_RQ_TAG_SHIFT));
	if (bfqq) {
		unsigned long flags;
		bool kick;

		spin_lock_irqsave(&bfqd->lock, flags);
		if (rq_state(rq) & BFQ_RQ_IN_DRIVER)
			bfq_rq_completed(bfqd, bfqq, rq);
		bfq_inject_forget_rq(bfqd, rq);
		bfqq->nr_bound--;
		bfq_tags_count_group(bfqd, bfqq->bfqg, false);
		WARN_ON_ONCE(rq_state(rq) & BFQ_RQ_QUEUED);
		rq->elv.priv[0] = NULL;
		rq->elv.priv[1] = NULL;
		bfq_put_queue(bfqq);
		kick = bfqd->kick_on_finish && !bfq_device_full(bfqd);
		if (kick)
			bfqd->kick_on_finish = false;
		spin_unlock_irqrestore(&bfqd->lock, flags);
		if (kick)
			blk_mq_run_hw_queues(bfqd->queue, true);
	}
	bfq_tags_wake_waiters(bfqd, rq->mq_hctx);
	if (rq->elv.icq) {
		put_io_context(rq->elv.icq->ioc);
		rq->elv.icq = NULL;
	}
}

/*
 * The driver gave @rq back; it will come again through insert, unless the
 * driver keeps its setup of it (RQF_DONTPREP: a SCSI command retried).
 * blk-mq hands such a request straight back to the driver
 * (blk_mq_requeue_work()), never to us: it stays counted in the device,
 * and its completion is accounted like any other. Only its service time
 * no longer measures the device.
 */
static void bfq_requeue_request(struct request *rq)
{
	struct bfq_queue *bfqq = rq_bfqq(rq);
	unsigned long flags;

	if (!bfqq)
		return;
	spin_lock_irqsave(&bfqq->bfqd->lock, flags);
	if (rq_state(rq) & BFQ_RQ_IN_DRIVER)
		bfq_rate_seek_cancel(&bfqq->bfqd->seek);
	if ((rq_state(rq) & BFQ_RQ_IN_DRIVER) &&
	    !(rq->rq_flags & RQF_DONTPREP)) {
		bfqq->nr_in_driver--;
		bfqq->bfqd->rq_in_driver--;
		rq_count_range(bfqq->bfqd, rq, false);
		rq_count_async(bfqq->bfqd, rq, false);
		rq_state_set(rq, BFQ_RQ_IN_DRIVER, false);
		bfq_rate_requeued(&bfqq->bfqd->rate, ktime_get_ns(),
				  bfqq->bfqd->rq_in_driver);
		if (rq_state(rq) & BFQ_RQ_INJECTED) {
			rq_state_set(rq, BFQ_RQ_INJECTED, false);
			bfq_inject_requeued(bfqq->bfqd);
		}
	}
	spin_unlock_irqrestore(&bfqq->bfqd->lock, flags);
}

/*
 * The io context's link to this device goes away (process exit, or the
 * scheduler is switched): drop the process's reference to its queue.
 * Called with the ioc's lock held: at process exit (ioc_exit_icqs) only
 * that one, when the elevator or the queue goes q->queue_lock too.
 */
static void bfq_exit_icq(struct io_cq *icq)
{
	struct bfq_io_cq *bic = icq_to_bic(icq);
	struct bfq_data *bfqd = icq->q->elevator->elevator_data;
	unsigned long flags;

	bfq_tags_waited(bfqd, bic);
	spin_lock_irqsave(&bfqd->lock, flags);
	bic->exited = true;
	if (bic->sync_bfqq)
		bfq_bic_drop_queue(bfqd, bic);
	spin_unlock_irqrestore(&bfqd->lock, flags);
}

/* ------------------------------------------------------------------ */
/* Scheduler init and exit                                             */
/* ------------------------------------------------------------------ */

static void bfq_tunables_init(struct bfq_tunables *tun)
{
	tun->slice_idle_ns = BFQ_DEFAULT_SLICE_IDLE_NS;
	tun->max_budget_sectors = 0;
	tun->timeout_sync_ms = BFQ_DEFAULT_TIMEOUT_SYNC_MS;
	tun->low_latency = 1;
	tun->strict_guarantees = 0;
	tun->back_seek_max_kib = BFQ_DEFAULT_BACK_SEEK_MAX_KIB;
	tun->back_seek_penalty = BFQ_DEFAULT_BACK_SEEK_PENALTY;
	tun->fifo_expire_sync_ms = BFQ_DEFAULT_FIFO_EXPIRE_SYNC_MS;
	tun->fifo_expire_async_ms = BFQ_DEFAULT_FIFO_EXPIRE_ASYNC_MS;
}

static void bfq_data_init(struct bfq_data *bfqd, struct request_queue *q)
{
	bfqd->queue = q;
	spin_lock_init(&bfqd->lock);
	bfq_hrtimer_setup(&bfqd->idle_timer, bfq_idle_timer_fn, CLOCK_MONOTONIC,
			  HRTIMER_MODE_REL);
	bfq_sched_init(&bfqd->sched);
	bfq_wr_init(bfqd);
	bfq_inject_init(bfqd);
	bfq_merge_init(bfqd);
	INIT_LIST_HEAD(&bfqd->dispatch_head);
	INIT_LIST_HEAD(&bfqd->all_bfqqs);
	bfq_tunables_init(&bfqd->tun);
	bfq_queue_init(bfqd, &bfqd->fallback_bfqq, false,
		       IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, IOPRIO_BE_NORM));
}

/*
 * Called when bfq is selected for @q, with the queue frozen. The groups
 * come last: their init finds the bfq_data through q->elevator.
 */
static int bfq_init_sched(struct request_queue *q, bfq_init_sched_arg_t e)
{
	struct bfq_data *bfqd = kzalloc_node(sizeof(*bfqd), GFP_KERNEL,
					     q->node);
	struct elevator_queue *eq;
	int ret;

	if (!bfqd)
		return -ENOMEM;
	eq = bfq_elevator_get(q, e);
	if (!eq) {
		kfree(bfqd);
		return -ENOMEM;
	}
	bfq_data_init(bfqd, q);
	if (q->disk)
		bfq_inject_ranges_init(&bfqd->ranges, q->disk);
	eq->elevator_data = bfqd;
	q->elevator = eq;
	ret = bfq_cg_activate(bfqd);
	if (ret) {
		q->elevator = NULL;
		eq->elevator_data = NULL;
		bfq_elevator_put_failed(eq);
		kfree(bfqd);
		return ret;
	}
	/* One lock serves all hardware queues: dispatch device-wide. */
	blk_queue_flag_set(QUEUE_FLAG_SQ_SCHED, q);
	bfq_wbt_off(q, eq);
	return 0;
}

/*
 * Called after every request is freed and every icq exited. The groups go
 * after the root's queues and before the bfq_data: offlining a group drops
 * its async queues under bfqd->lock (bfq_cg_attach()).
 */
static void bfq_exit_sched(struct elevator_queue *e)
{
	struct bfq_data *bfqd = e->elevator_data;
	int class, level;

	hrtimer_cancel(&bfqd->idle_timer);
	bfq_merge_exit(bfqd);
	spin_lock_irq(&bfqd->lock);
	if (bfqd->in_service_bfqq)
		bfq_expire(bfqd, BFQ_EXP_EMPTY, 0);
	for (class = 0; class < BFQ_NR_CLASSES; class++) {
		for (level = 0; level < IOPRIO_NR_LEVELS; level++) {
			struct bfq_queue **slot = &bfqd->async_bfqq[class][level];

			if (*slot)
				bfq_put_queue(*slot);
			*slot = NULL;
		}
	}
	spin_unlock_irq(&bfqd->lock);
	/* Offlining each group drops its async queues: the last ones. */
	bfq_cg_deactivate(bfqd);
	spin_lock_irq(&bfqd->lock);
	bfq_entity_forget(&bfqd->fallback_bfqq.entity);
	WARN(bfqd->nr_bfqqs || bfqd->nr_queued || bfqd->fallback_bfqq.ref != 1,
	     "bfq: %u queues, %u requests left at exit\n",
	     bfqd->nr_bfqqs, bfqd->nr_queued);
	spin_unlock_irq(&bfqd->lock);
	bfq_wbt_restore(bfqd->queue, e);
	kfree(bfqd);
}

/* ------------------------------------------------------------------ */
/* Registration                                                        */
/* ------------------------------------------------------------------ */

static struct elevator_type iosched_bfq = {
	.elevator_name		= "bfq",
	.elevator_owner		= THIS_MODULE,
	.elevator_attrs		= bfq_attrs,
#ifdef CONFIG_BLK_DEBUG_FS
	.queue_debugfs_attrs	= bfq_queue_debugfs_attrs,
#endif
	/* Our per process and device state lives in blk-ioc's io_cq. */
	.icq_size		= sizeof(struct bfq_io_cq),
	.icq_align		= __alignof__(struct bfq_io_cq),
	/* In the order of a request's life. */
	.ops = {
		.init_sched		= bfq_init_sched,
		.init_hctx		= bfq_init_hctx,
		.depth_updated		= bfq_depth_updated_fn,
		.limit_depth		= bfq_limit_depth,
		.prepare_request	= bfq_prepare_request,
		.bio_merge		= bfq_bio_merge,
		.allow_merge		= bfq_allow_merge,
		.request_merge		= bfq_request_merge,
		.request_merged		= bfq_request_merged,
		.requests_merged	= bfq_requests_merged,
		.former_request		= elv_rb_former_request,
		.next_request		= elv_rb_latter_request,
		.insert_requests	= bfq_insert_requests,
		.has_work		= bfq_has_work,
		.dispatch_request	= bfq_dispatch_request,
		.requeue_request	= bfq_requeue_request,
		.finish_request		= bfq_finish_request,
		.exit_icq		= bfq_exit_icq,
		.exit_sched		= bfq_exit_sched,
	},
};
MODULE_ALIAS("bfq-iosched");

/*
 * The blkcg policy before the elevator: a device can pick bfq as soon as
 * elv_register() returns, and init_sched activates the policy.
 */
static int __init bfq_init(void)
{
	int ret;

	bfq_queue_cache = KMEM_CACHE(bfq_queue, BFQ_QUEUE_CACHE_FLAGS);
	if (!bfq_queue_cache)
		return -ENOMEM;
	ret = bfq_cg_register();
	if (ret)
		goto destroy_cache;
	ret = elv_register(&iosched_bfq);
	if (ret)
		goto unregister_cg;
	return 0;

unregister_cg:
	bfq_cg_unregister();
destroy_cache:
	kmem_cache_destroy(bfq_queue_cache);
	return ret;
}

static void __exit bfq_exit(void)
{
	elv_unregister(&iosched_bfq);
	bfq_cg_unregister();
	kmem_cache_destroy(bfq_queue_cache);
}

module_init(bfq_init);
module_exit(bfq_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("BFQ I/O scheduler: budget fair queueing over B-WF2Q+");
/*
 * dkms.conf's PACKAGE_VERSION. dkms install compares the versions of the
 * module it built and of the kernel's own bfq.ko: with none on either side
 * it takes the two for the same module and installs nothing, leaving
 * modprobe to load the kernel's.
 */
MODULE_VERSION("0.1");

#ifdef CONFIG_BFQ_KUNIT_TEST
#include "bfq-iosched-test.c"
#endif
