// SPDX-License-Identifier: GPL-2.0
/*
 * BFQ's scheduler-tag policy: which process may take which of the
 * device's scheduler tags, and who is woken when one is freed. Prefix:
 * bfq_tags_; the elevator hooks keep their operation's name
 * (bfq_limit_depth(), bfq_depth_updated(), bfq_init_hctx()).
 *
 * A request exists only once its process holds a scheduler tag
 * (nr_requests of them: twice the hardware queue depth, so 2 on a
 * one-request device). A process that finds none sleeps in the block
 * layer before bfq sees its request: whatever bfq decides applies only to
 * the processes holding tags, and without limits whoever wins the tag
 * races decides the shares and the latencies.
 *
 * Rules
 *
 * 1. Writes and async I/O take at most BFQ_SYNC_WRITE_DEPTH_PCT and
 *    BFQ_ASYNC_DEPTH_PCT of the tags, so that a flood of them cannot
 *    leave sync reads waiting for a tag (bfq_limit_depth()). The block
 *    layer of 6.1 and 6.12 applies a limit as the first bits of each word
 *    of the tag map, not as a count. With many tags that is the share
 *    meant, and it keeps the last tags for reads: counted instead, writes
 *    below their share drift into the last tags, and a reader's group
 *    beside 64 libaio writers got 0.74 of the bytes for its 0.9 (tag-weight,
 *    6.12). With a few (BFQ_TAGS_FEW) the prefix names the tags: a write
 *    limited to 1 of 2 could take only the first, and waited while a
 *    sequential reader held it with the second free; an fsync loop on
 *    ext4 beside that reader on a one-request null_blk did 3 writes/s.
 *    There the limit applies once their kind holds its share
 *    (bfq_tags_write_limit()); below it they ask as sync reads do (rule
 *    2). docs/results/2026-12-02-fsync-tags-count.md.
 * 2. Sync reads of most processes leave a share of the tags free
 *    (BFQ_TAG_RESERVE_DIV, rounded up: one of the two of a one-request
 *    device), kept for the processes whose next request matters most
 *    (bfq_tags_reserved_for()): an RT queue; those bfq_wr_tag_reserve() names,
 *    raised or about to be; a process with no queue
 *    yet while no large burst goes on (bfq_wr_newcomer_raisable()); a
 *    process of a group that holds no tag while others hold some
 *    (bfq_tags_group_tagless(), bfq_cg_tags_held()); and the queue in
 *    service and its waker (bfq-inject.c rule 4: the journal thread whose
 *    commit the fsync-ing process in service waits for), while none of
 *    those waits. Kept from the waker, the commit's write slept for a tag
 *    while the device idled for the process that waited on it, until the
 *    idle slice ran out.
 * 3. Tags are kept only while someone they are for had I/O in the last
 *    BFQ_TAG_KEEP_MS, or waits (bfq_tags_kept()): a tag kept for nobody
 *    idles a short queue between the requests of bulk readers.
 * 4. The block layer wakes one sleeper per freed tag, and a sleeper that
 *    may not take the kept tag sleeps again with that wakeup. So while a
 *    process the tags are kept for waits, each freed tag wakes every
 *    sleeper (bfq_tags_wake_waiters()): the first that may take it does.
 * 5. The limits follow nr_requests: the block layer of 6.1 and 6.12
 *    calls depth_updated before it stores a new value (7.3 after), so
 *    they are computed again at the first tag allocation that sees
 *    nr_requests differ from the value they were computed from
 *    (bfq_limit_depth()).
 * 6. Everything here reads without bfq_data.lock (the allocation path
 *    cannot take it for every request): an answer may be one request
 *    late, which costs that process one wait for a tag. The counts
 *    written under the lock (bfq_tags_count_group()) are read with
 *    READ_ONCE().
 */
#include <linux/blkdev.h>
#include <linux/kernel.h>
#include <linux/sbitmap.h>

#include "blk.h"
#include "blk-mq.h"
#include "blk-mq-sched.h"
#include "elevator.h"

#include "bfq-compat.h"
#include "bfq-iosched.h"
#include "bfq-cgroup.h"

/*
 * Limits of the tag space for writes and async I/O, so reads are not
 * starved of tags: percent of the scheduler's tags.
 */
#define BFQ_ASYNC_DEPTH_PCT		50
#define BFQ_SYNC_WRITE_DEPTH_PCT	75
/*
 * Rule 2: the part of the scheduler tags (rounded up: one of
 * the two of a one-request device) that sync reads of processes whose next
 * request no user waits for leave free. An eighth: a deep queue keeps
 * nearly all of its tags for the bulk readers, whose throughput needs
 * them; a short one keeps one.
 */
#define BFQ_TAG_RESERVE_DIV		8
/*
 * Tags are kept while a raised queue had I/O this recently: longer than an
 * application's pauses between its reads (a few ms of computing, more on a
 * busy CPU), shorter than a video's 40 ms frame period, whose next frame
 * waits at most one completion when it finds no tag (the waiter rule).
 */
#define BFQ_TAG_KEEP_MS			20

/*
 * Rule 2: a request of @bfqg takes (@up) or gives back
 * its scheduler tag, counted from the request's binding to its queue
 * (whose group never changes) to its free; a binding after another
 * group's notes that several groups have I/O now.
 */
void bfq_tags_count_group(struct bfq_data *bfqd, struct bfq_group *bfqg,
			  bool up)
{
	unsigned int *held = bfq_cg_tags_held(bfqg, &bfqd->tags.root_held);

	lockdep_assert_held(&bfqd->lock);
	if (WARN_ON_ONCE(!up && !*held))
		return;
	/* Read by bfq_tags_group_tagless() without the lock. */
	WRITE_ONCE(*held, up ? *held + 1 : *held - 1);
	if (up && bfqg != bfqd->tags.last_group) {
		bfqd->tags.last_group = bfqg;
		/* Read by bfq_tags_kept() without the lock. */
		WRITE_ONCE(bfqd->tags.groups_io_ns, ktime_get_ns());
	}
}

/*
 * Whether a process the tags of rule 8 (bfq-wr.c) are kept for sleeps for
 * one: a bic bfq_tags_note_waiter() marked, or a newcomer that asked less
 * than BFQ_TAG_KEEP_MS ago (bfq_tags_note_newcomer(): it has no queue to
 * mark, and once it has its tag it does not ask again, so its mark ends
 * with time). @now_ns 0: the clock is read only if a newcomer asked.
 */
static bool bfq_tags_someone_waits(struct bfq_data *bfqd, u64 now_ns)
{
	u64 asked = READ_ONCE(bfqd->tags.newcomer_ask_ns);

	if (atomic_read(&bfqd->tags.waiters))
		return true;
	if (!asked)
		return false;
	if (!now_ns)
		now_ns = ktime_get_ns();
	/* Signed: another CPU may have stored a time later than ours. */
	if ((s64)(now_ns - asked) < BFQ_TAG_KEEP_MS * NSEC_PER_MSEC)
		return true;
	/* Unless a newer ask came meanwhile: the clock is not read again. */
	cmpxchg(&bfqd->tags.newcomer_ask_ns, asked, 0);
	return false;
}

/*
 * Called by bfq_finish_request() just before the block layer frees the
 * request's tag; a sleeper takes a few us to run, by which time the tag is
 * free. sbitmap_queue_wake_all() would wake one sleeper per wait queue.
 */
static void bfq_tags_wake_all(struct blk_mq_hw_ctx *hctx)
{
	struct sbitmap_queue *bt = &hctx->sched_tags->bitmap_tags;
	int i;

	/* Pairs with set_current_state() in sbitmap_prepare_to_wait(). */
	smp_mb();
	for (i = 0; i < SBQ_WAIT_QUEUES; i++) {
		/* The smp_mb() above orders it against the sleeper's check. */
		if (waitqueue_active(&bt->ws[i].wait))
			wake_up_all(&bt->ws[i].wait);
	}
}

/*
 * Rule 4, when bfq_tags_wake_waiters() found a bic marked or a newcomer's
 * ask: wake every sleeper while a process the kept tags are for waits.
 */
void bfq_tags_wake_marked(struct bfq_data *bfqd, struct blk_mq_hw_ctx *hctx)
{
	if (bfq_tags_someone_waits(bfqd, 0))
		bfq_tags_wake_all(hctx);
}

/*
 * Rule 2: @bfqq's group holds no scheduler tag while
 * others do. Lock-free: @bfqq is the asking process's queue, read under
 * bfq_lockless_lock() and rcu_read_lock(); the group it names, even if the
 * queue was freed and reused meanwhile, was referenced by a queue after
 * the RCU read section began, and blk-cgroup frees a group only after a
 * grace period from its last reference (rule 10).
 */
static bool bfq_tags_group_tagless(struct bfq_data *bfqd,
				   const struct bfq_queue *bfqq)
{
	/* Racy: a request late at most, like bfq_wr_tag_reserve(). */
	struct bfq_group *bfqg = data_race(bfqq->bfqg);

	return !READ_ONCE(*bfq_cg_tags_held(bfqg, &bfqd->tags.root_held)) &&
	       atomic_read(&bfqd->tags.nr_tagged) > 0;
}

/*
 * Whether the process of @bfqq may take the scheduler tags kept by rule 8 of
 * bfq-wr.c: an RT queue, those bfq_wr_tag_reserve() names, and those of a
 * group holding no tag (bfq_tags_group_tagless()), for whom they are kept;
 * and the queue in service (the device may be idling for its next request)
 * and its waker (what it waits for), while none of those waits for a tag.
 * The waker is compared as a pointer only (bfq_tags_served_changed()).
 */
static bool bfq_tags_reserved_for(struct bfq_data *bfqd, struct bfq_queue *bfqq,
				  u64 now_ns, bool *kept_for)
{
	/*
	 * Racy, like every read here: see bfq_wr_tag_reserve(). The call
	 * last, and only if it can name a queue.
	 */
	*kept_for = data_race(bfqq->ioprio_class) == BFQ_CLASS_RT ||
		    bfq_tags_group_tagless(bfqd, bfqq) ||
		    (bfq_wr_enabled(bfqd) &&
		     bfq_wr_tag_reserve(bfqd, bfqq, now_ns));
	return *kept_for || ((bfqq == READ_ONCE(bfqd->in_service_bfqq) ||
			      bfqq == READ_ONCE(bfqd->tags.served_waker)) &&
			     !bfq_tags_someone_waits(bfqd, now_ns));
}

/* A share of the tags is reserved and at most one tag is free: a wait. */
static bool bfq_tags_nearly_out(struct bfq_data *bfqd,
				struct blk_mq_hw_ctx *hctx)
{
	unsigned int nr = hctx->queue->nr_requests;

	return READ_ONCE(bfqd->tags.shared_depth) < nr &&
	       sbitmap_weight(&hctx->sched_tags->bitmap_tags.sb) + 1 >= nr;
}

/*
 * The block layer wakes one sleeper per freed tag (sbitmap's waits are
 * exclusive), and a process limited to the shared tags that wakes for a
 * kept one sleeps again and takes that wakeup with it, so the process the
 * tag was kept for sleeps on: up to tens of ms under ten readers. So from
 * the moment a process that may take the kept tags asks for one with at
 * most one left until it has it (bfq_prepare_request()), each
 * bfq_finish_request() wakes every sleeper (bfq_tags_wake_all()): the tag
 * it frees goes to the first that may take it.
 */
static void bfq_tags_note_waiter(struct bfq_data *bfqd, struct bfq_io_cq *bic,
				 struct blk_mq_hw_ctx *hctx)
{
	if (bfq_tags_nearly_out(bfqd, hctx) &&
	    !test_and_set_bit(BFQ_BIC_TAG_WAITING, &bic->flags))
		atomic_inc(&bfqd->tags.waiters);
}

/* The same for a process with no queue yet, which rule 1 will raise. */
static void bfq_tags_note_newcomer(struct bfq_data *bfqd,
				   struct blk_mq_hw_ctx *hctx, u64 now_ns)
{
	if (bfq_tags_nearly_out(bfqd, hctx) &&
	    bfq_wr_newcomer_raisable(bfqd, now_ns) &&
	    IOPRIO_PRIO_CLASS(get_current_ioprio()) != IOPRIO_CLASS_IDLE)
		WRITE_ONCE(bfqd->tags.newcomer_ask_ns, now_ns);
}

/* Whether @then_ns (0: never) is less than BFQ_TAG_KEEP_MS before @now_ns. */
static bool bfq_tags_recent(u64 then_ns, u64 now_ns)
{
	/* Signed: another CPU may have stored a time later than ours. */
	return then_ns &&
	       (s64)(now_ns - then_ns) < BFQ_TAG_KEEP_MS * NSEC_PER_MSEC;
}

/*
 * Whether tags are kept at all: while a raised queue had I/O in the last
 * BFQ_TAG_KEEP_MS, or several groups had (bfq_tags_count_group()), or a
 * process they are kept for waits for one. Otherwise nobody would use
 * them, and on a short queue (2 tags) keeping one idles the device between
 * the requests of bulk readers: half the tags sit unused while they wait
 * (docs/results/2026-11-23-lowlat-first-runs.md, a raised journal thread
 * keeping a tag under a burst of readers).
 */
static bool bfq_tags_kept(struct bfq_data *bfqd, u64 now_ns)
{
	return bfq_tags_recent(READ_ONCE(bfqd->wr.raised_io_ns), now_ns) ||
	       bfq_tags_recent(READ_ONCE(bfqd->tags.groups_io_ns), now_ns) ||
	       bfq_tags_someone_waits(bfqd, now_ns);
}

/*
 * The bic of the process asking for a sync request's tag, or NULL (no
 * io_context, or none for this device yet); notes when it asked
 * (bfq_io_cq.tag_ask_ns): a process that waits for a tag is not thinking,
 * and bfq_add_request() counts its request as arriving then. Lock-free,
 * like bfq_current_icq_hint(), but for the lookup of a process whose hint
 * is another device's. Under rcu_read_lock().
 */
static struct bfq_io_cq *bfq_tags_asker(struct blk_mq_alloc_data *data,
					u64 now_ns)
{
	struct io_cq *icq = bfq_current_icq_hint(data->q);
	struct bfq_io_cq *bic;

	if (!icq && current->io_context) {
		/* The hint is another device's: a process using several. */
		spin_lock_irq(&data->q->queue_lock);
		icq = ioc_lookup_icq(data->q);
		spin_unlock_irq(&data->q->queue_lock);
	}
	bic = icq ? icq_to_bic(icq) : NULL;
	if (bic)
		WRITE_ONCE(bic->tag_ask_ns, now_ns);
	return bic;
}

/*
 * Rule 1: the tags a write or async request of @opf may use; 0 (it asks
 * like a sync read) for a sync read, and on a device of at most
 * BFQ_TAGS_FEW tags while its kind holds less than its share. Lock-free:
 * the counts may be a request late, and a burst of asks may pass the
 * share by the number of tasks asking at once.
 */
static unsigned int bfq_tags_write_limit(struct bfq_data *bfqd, blk_opf_t opf)
{
	enum bfq_tag_kind kind = bfq_tag_kind_of(opf);
	atomic_t *held = bfq_tags_held(bfqd, kind);
	unsigned int limit;

	if (!held)
		return 0;
	limit = kind == BFQ_TAG_SYNC_WRITE ?
		READ_ONCE(bfqd->tags.sync_write_depth) :
		READ_ONCE(bfqd->tags.async_depth);
	if (READ_ONCE(bfqd->tags.nr) > BFQ_TAGS_FEW)
		return limit;
	/* Signed: a count read while another CPU gives one back. */
	return atomic_read(held) >= (int)limit ? limit : 0;
}

/*
 * A sync request asks for a scheduler tag: the number of tags it may use
 * (0: all of them). A write while writes hold their share (@write_limit,
 * 0: not so) gets rule 1's limit; any other is a read to rule 2. A process
 * bfq has no queue for yet (new, or new to this device) may take every
 * tag.
 */
static unsigned int bfq_tags_sync(struct bfq_data *bfqd,
				  struct blk_mq_alloc_data *data,
				  unsigned int write_limit)
{
	struct bfq_io_cq *bic;
	struct bfq_queue *bfqq;
	unsigned int tags = 0;
	bool kept_for = false;
	u64 now_ns = ktime_get_ns();
	unsigned long flags = 0;

	rcu_read_lock();
	bic = bfq_tags_asker(data, now_ns);
	if (write_limit) {
		rcu_read_unlock();
		return write_limit;
	}
	bfq_lockless_lock(bfqd, &flags);
	bfqq = bic ? READ_ONCE(bic->sync_bfqq) : NULL;
	if (!bfqq) {
		/*
		 * A process with no queue yet may take any tag, and is
		 * waited for unless a large burst goes on: in one (make -j)
		 * every completion would wake every sleeper.
		 */
		bfq_tags_note_newcomer(bfqd, data->hctx, now_ns);
	} else if (!bfq_tags_reserved_for(bfqd, bfqq, now_ns, &kept_for)) {
		if (bfq_tags_kept(bfqd, now_ns))
			tags = READ_ONCE(bfqd->tags.shared_depth);
	} else if (kept_for && !(data->flags & BLK_MQ_REQ_NOWAIT)) {
		/*
		 * Not a NOWAIT ask (RWF_NOWAIT, io_uring's first try): it
		 * fails rather than sleeps, and a failed ask never reaches
		 * bfq_prepare_request(), which would end the mark.
		 */
		bfq_tags_note_waiter(bfqd, bic, data->hctx);
	}
	bfq_lockless_unlock(bfqd, flags);
	rcu_read_unlock();
	return tags;
}

/*
 * The tag limits for @nr scheduler tags. Racing callers compute the same
 * values; tags.nr is published last, so that a reader that sees it equal
 * to nr_requests also sees the limits computed from it.
 */
static void bfq_tags_set_depths(struct bfq_data *bfqd, unsigned int nr)
{
	WRITE_ONCE(bfqd->tags.async_depth,
		   max(1U, nr * BFQ_ASYNC_DEPTH_PCT / 100));
	WRITE_ONCE(bfqd->tags.sync_write_depth,
		   max(1U, nr * BFQ_SYNC_WRITE_DEPTH_PCT / 100));
	WRITE_ONCE(bfqd->tags.shared_depth,
		   max(1U, nr - DIV_ROUND_UP(nr, BFQ_TAG_RESERVE_DIV)));
	/* Pairs with the smp_load_acquire() of bfq_limit_depth(). */
	smp_store_release(&bfqd->tags.nr, nr);
}

/*
 * Writes and async I/O may use only part of the scheduler tags, so that a
 * flood of them cannot leave sync reads waiting for a tag; sync reads of
 * most processes leave the tags rule 2 keeps.
 */
void bfq_limit_depth(blk_opf_t opf, struct blk_mq_alloc_data *data)
{
	struct bfq_data *bfqd = data->q->elevator->elevator_data;
	unsigned int nr = READ_ONCE(data->q->nr_requests);
	unsigned int tags;

	/* nr_requests was written: see bfq_depth_updated(). */
	if (unlikely(nr != smp_load_acquire(&bfqd->tags.nr)))
		bfq_tags_set_depths(bfqd, nr);
	tags = bfq_tags_write_limit(bfqd, opf);
	if (op_is_sync(opf))
		tags = bfq_tags_sync(bfqd, data, tags);
	else if (!tags && bfq_tags_kept(bfqd, ktime_get_ns()))
		tags = READ_ONCE(bfqd->tags.shared_depth);
	if (tags)
		data->shallow_depth = bfq_shallow_depth(data->hctx, tags);
}

/*
 * Requests the driver takes at once: its tags, per hardware queue unless
 * shared between them, polled queues left out (no bio of ours goes
 * there). A tag set shared with other devices (a SCSI host) gives us
 * fewer, and a driver with a dispatch budget (SCSI's per-device queue
 * depth) refuses earlier: both leave requests with us by themselves, the
 * limit here is only an upper bound.
 */
static unsigned int bfq_tags_driver_depth(struct request_queue *q)
{
	struct blk_mq_tag_set *set = q->tag_set;
	struct blk_mq_hw_ctx *hctx;
	unsigned int depth = 0;
	unsigned long i;

	if (!set)
		return 0;
	if (set->flags & BLK_MQ_F_TAG_HCTX_SHARED)
		return set->queue_depth;
	queue_for_each_hw_ctx(q, hctx, i)
		if (hctx->type != HCTX_TYPE_POLL)
			depth += set->queue_depth;
	return depth;
}

/*
 * Called for each hardware queue at hctx init and when nr_requests is
 * written (through bfq_depth_updated_fn(), bfq-compat.h), but, in the
 * latter case and up to 6.12, before the block layer stores the new value
 * in q->nr_requests (and, with tags shared between hardware queues, before
 * it resizes the shared map): neither says the new depth here. So the
 * limits are computed from q->nr_requests when it differs from tags.nr,
 * at the next tag allocation (bfq_limit_depth()), which cannot come
 * before the store: the queue is frozen around both.
 */
void bfq_depth_updated(struct blk_mq_hw_ctx *hctx)
{
	struct bfq_data *bfqd = hctx->queue->elevator->elevator_data;

	bfq_tags_set_depths(bfqd, hctx->queue->nr_requests);
	sbitmap_queue_min_shallow_depth(&hctx->sched_tags->bitmap_tags, 1);
	WRITE_ONCE(bfqd->driver_depth, bfq_tags_driver_depth(hctx->queue));
}

int bfq_init_hctx(struct blk_mq_hw_ctx *hctx, unsigned int hctx_idx)
{
	bfq_depth_updated(hctx);
	return 0;
}

#ifdef CONFIG_BFQ_KUNIT_TEST
#include "bfq-tags-test.c"
#endif
