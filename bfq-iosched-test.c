// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of bfq-iosched.c's request-free logic: ioprio mapping, the
 * charge of a timed-out turn, and the references of sync queues through a
 * randomized sequence of queue merges, splits, ioprio changes and exits
 * (bfq-merge.c) with the real queue allocator.
 * #included at the end of bfq-iosched.c.
 */
#include <kunit/test.h>

#include "bfq-test.h"

static void bfq_class_of_classes(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, bfq_class_of(IOPRIO_PRIO_VALUE(IOPRIO_CLASS_RT, 0)),
			BFQ_CLASS_RT);
	KUNIT_EXPECT_EQ(test, bfq_class_of(IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 7)),
			BFQ_CLASS_BE);
	KUNIT_EXPECT_EQ(test,
			bfq_class_of(IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 0)),
			BFQ_CLASS_IDLE);
	KUNIT_EXPECT_EQ(test,
			bfq_class_of(IOPRIO_PRIO_VALUE(IOPRIO_CLASS_NONE, 0)),
			BFQ_CLASS_BE);
}

struct bfq_tocharge_case {
	const char *desc;
	bool low_latency;
	enum bfq_wr_kind kind;
	unsigned int age_ms;	/* since the raising started; it lasts 1 s */
	u64 max_budget_tun;	/* the tunable, 0: autotuned */
	unsigned int nr_samples;	/* peak rate samples */
	bool charged;		/* expected: max_budget (else 0) */
};

static const struct bfq_tocharge_case bfq_tocharge_cases[] = {
	{ "not raised, rate known", 1, BFQ_WR_NONE, 0, 0, 3, true },
	{ "not raised, budget set", 1, BFQ_WR_NONE, 0, 4096, 0, true },
	{ "not raised, rate a guess", 1, BFQ_WR_NONE, 0, 0, 0, false },
	{ "app starting", 1, BFQ_WR_INTERACTIVE, 200, 0, 3, false },
	{ "app starting, budget set", 1, BFQ_WR_INTERACTIVE, 200, 4096, 3,
	  false },
	{ "app raising over", 1, BFQ_WR_INTERACTIVE, 1000, 0, 3, true },
	{ "app, low_latency 0", 0, BFQ_WR_INTERACTIVE, 200, 0, 3, true },
	{ "soft real-time", 1, BFQ_WR_SOFT_RT, 200, 0, 3, true },
};

BFQ_KUNIT_TABLE(bfq_tocharge, bfq_tocharge_cases, bfq_tocharge_case);

/* A timed-out turn costs max_budget, but not an application starting's. */
static void bfq_timeout_charge_table(struct kunit *test)
{
	const struct bfq_tocharge_case *c = test->param_value;
	struct bfq_data *bfqd = bfq_test_bfqd(test);
	struct bfq_queue *bfqq = bfq_test_queue(test, bfqd, 1);
	u64 now_ns = 10 * NSEC_PER_SEC;

	bfqd->tun.low_latency = c->low_latency;
	bfqd->tun.max_budget_sectors = c->max_budget_tun;
	bfqd->rate.nr_samples = c->nr_samples;
	bfqq->wr.kind = c->kind;
	bfqq->wr.coeff = c->kind == BFQ_WR_NONE ? 1 : 30;
	bfqq->wr.start_ns = now_ns - (u64)c->age_ms * NSEC_PER_MSEC;
	bfqq->wr.dur_ns = NSEC_PER_SEC;
	KUNIT_EXPECT_EQ(test, bfq_timeout_charge(bfqd, bfqq, 8192, now_ns),
			c->charged ? 8192U : 0U);
}

/*
 * Rule 3 of bfq-budget.c: a seeky turn pays for its device time, but not a
 * raised one; a queue raised with an earlier start-up than the latest
 * pays (rule 10 of bfq-wr.c).
 */
struct bfq_seekycharge_case {
	const char *desc;
	enum bfq_wr_kind kind;
	unsigned int earlier_ms;	/* its raising began before the latest */
	bool charged;			/* expected: the device time */
};

static const struct bfq_seekycharge_case bfq_seekycharge_cases[] = {
	{ "not raised", BFQ_WR_NONE, 0, true },
	{ "the latest start-up", BFQ_WR_INTERACTIVE, 0, false },
	{ "started together with the latest", BFQ_WR_INTERACTIVE, 500,
	  false },
	{ "an earlier start-up", BFQ_WR_INTERACTIVE, 3000, true },
	{ "soft real-time", BFQ_WR_SOFT_RT, 3000, false },
};

BFQ_KUNIT_TABLE(bfq_seekycharge, bfq_seekycharge_cases,
		bfq_seekycharge_case);

static void bfq_seeky_charge_table(struct kunit *test)
{
	const struct bfq_seekycharge_case *c = test->param_value;
	struct bfq_data *bfqd = bfq_test_bfqd(test);
	struct bfq_queue *bfqq = bfq_test_queue(test, bfqd, 1);
	struct bfq_queue *app = bfq_test_queue(test, bfqd, 2);
	u64 now_ns = 20 * NSEC_PER_SEC;
	u64 then_ns = now_ns - (u64)c->earlier_ms * NSEC_PER_MSEC;

	bfqd->tun.timeout_sync_ms = 125;
	spin_lock_irq(&bfqd->lock);
	/* Both raised as rule 1 raises them, @bfqq first. */
	bfqq->wr.idle = true;
	app->wr.idle = true;
	bfq_wr_backlogged(bfqd, bfqq, then_ns, then_ns, true);
	bfq_wr_backlogged(bfqd, app, now_ns, now_ns, true);
	bfqq->wr.kind = c->kind;
	bfqq->wr.coeff = c->kind == BFQ_WR_NONE ? 1 :
			 c->kind == BFQ_WR_SOFT_RT ? 90 : 30;
	/* A far 4 KiB read: 6 ms, about 800 sectors at 16384 per 125 ms. */
	bfqq->turn_far_ns = 6 * NSEC_PER_MSEC;
	KUNIT_EXPECT_EQ(test, bfq_seeky_charge(bfqd, bfqq, 16384),
			c->charged ? 786U : 0U);
	spin_unlock_irq(&bfqd->lock);
}

/* Note 7: a bio joins only requests of the queue it would join. */
static void bfq_bio_joins_own_queue(struct kunit *test)
{
	struct bfq_data *bfqd = bfq_test_bfqd(test);
	struct bfq_queue *mine = bfq_test_queue(test, bfqd, 1);
	struct bfq_queue *other = bfq_test_queue(test, bfqd, 2);
	struct bfq_queue *async = bfq_test_queue(test, bfqd, 0);
	struct bfq_queue *async_rt = bfq_test_queue(test, bfqd, 0);
	unsigned short rt0 = IOPRIO_PRIO_VALUE(IOPRIO_CLASS_RT, 0);
	/* A bio without ioprio goes by its submitter's nice. */
	unsigned short nice = bfq_nice_ioprio();
	struct bio bio = {};

	async->sync = false;
	async_rt->sync = false;
	*bfq_async_slot(bfqd, bfq_class_of(nice), IOPRIO_PRIO_LEVEL(nice),
			NULL) = async;
	*bfq_async_slot(bfqd, BFQ_CLASS_RT, 0, NULL) = async_rt;

	bfqd->merge_bfqq = mine;
	bio.bi_opf = REQ_OP_WRITE | REQ_SYNC;
	KUNIT_EXPECT_TRUE(test, bfq_bio_joins(bfqd, mine, &bio));
	KUNIT_EXPECT_FALSE(test, bfq_bio_joins(bfqd, other, &bio));
	KUNIT_EXPECT_FALSE(test, bfq_bio_joins(bfqd, async, &bio));
	KUNIT_EXPECT_FALSE(test, bfq_bio_joins(bfqd, NULL, &bio));
	bio.bi_opf = REQ_OP_READ;
	KUNIT_EXPECT_TRUE(test, bfq_bio_joins(bfqd, mine, &bio));
	KUNIT_EXPECT_FALSE(test, bfq_bio_joins(bfqd, other, &bio));
	/* A process with no queue yet: any sync request, no async one. */
	bfqd->merge_bfqq = NULL;
	KUNIT_EXPECT_TRUE(test, bfq_bio_joins(bfqd, other, &bio));
	KUNIT_EXPECT_FALSE(test, bfq_bio_joins(bfqd, async, &bio));

	bio.bi_opf = REQ_OP_WRITE;
	KUNIT_EXPECT_TRUE(test, bfq_bio_joins(bfqd, async, &bio));
	KUNIT_EXPECT_FALSE(test, bfq_bio_joins(bfqd, async_rt, &bio));
	KUNIT_EXPECT_FALSE(test, bfq_bio_joins(bfqd, mine, &bio));
	bio.bi_ioprio = rt0;
	KUNIT_EXPECT_TRUE(test, bfq_bio_joins(bfqd, async_rt, &bio));
	KUNIT_EXPECT_FALSE(test, bfq_bio_joins(bfqd, async, &bio));
}

/* A 4 KiB read of @bfqq at @pos, queued by position and by arrival. */
static struct request *bfq_test_queued_rq(struct kunit *test,
					  struct bfq_queue *bfqq, sector_t pos,
					  blk_opf_t flags, u64 fifo_time)
{
	struct request *rq = kunit_kzalloc(test, sizeof(*rq), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rq);
	rq->cmd_flags = REQ_OP_READ | flags;
	rq->__sector = pos;
	rq->__data_len = 4096;
	rq->fifo_time = fifo_time;
	rq->elv.priv[0] = bfqq;
	elv_rb_add(&bfqq->sort_list, rq);
	list_add_tail(&rq->queuelist, &bfqq->fifo);
	bfqq->nr_queued++;
	bfqq->nr_meta += !!(flags & REQ_META);
	return rq;
}

/* Within a queue: an expired request, then metadata, then by position. */
static void bfq_choose_rq_meta_first(struct kunit *test)
{
	struct bfq_data *bfqd = bfq_test_bfqd(test);
	struct bfq_queue *bfqq = bfq_test_queue(test, bfqd, 1);
	u64 later = get_jiffies_64() + HZ;
	struct request *near, *meta, *meta2;

	bfqq->next_pos = 0;
	near = bfq_test_queued_rq(test, bfqq, 8, 0, later);
	KUNIT_EXPECT_PTR_EQ(test, bfq_choose_rq(bfqd, bfqq), near);
	meta = bfq_test_queued_rq(test, bfqq, 100000, REQ_META, later);
	meta2 = bfq_test_queued_rq(test, bfqq, 16, REQ_META, later);
	/* The oldest metadata request, not the nearest one. */
	KUNIT_EXPECT_PTR_EQ(test, bfq_choose_rq(bfqd, bfqq), meta);
	KUNIT_EXPECT_PTR_NE(test, bfq_choose_rq(bfqd, bfqq), meta2);
	near->fifo_time = get_jiffies_64() - 1;
	KUNIT_EXPECT_PTR_EQ(test, bfq_choose_rq(bfqd, bfqq), near);
}

/* A queued 4 KiB write of @bfqq at @pos, in @q's merge hash. */
static struct request *bfq_test_hashed_rq(struct kunit *test,
					  struct request_queue *q,
					  struct bfq_queue *bfqq, sector_t pos)
{
	struct request *rq = kunit_kzalloc(test, sizeof(*rq), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rq);
	rq->q = q;
	rq->cmd_flags = REQ_OP_WRITE;
	rq->__sector = pos;
	rq->__data_len = 4096;
	rq->elv.priv[0] = bfqq;
	bfqq->nr_queued++;
	hash_add(q->elevator->hash, &rq->hash, pos + 8);
	return rq;
}

/*
 * Note 7: a request is merged at insert only if each request the core
 * would chain it to is of its queue.
 */
static void bfq_insert_merge_chain_own(struct kunit *test)
{
	struct bfq_data *bfqd = bfq_test_bfqd(test);
	struct request_queue *q = bfqd->queue;
	struct bfq_queue *a = bfq_test_queue(test, bfqd, 1);
	struct bfq_queue *b = bfq_test_queue(test, bfqd, 2);

	q->elevator = kunit_kzalloc(test, sizeof(*q->elevator), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, q->elevator);
	hash_init(q->elevator->hash);
	/* a: [0, 8); b: [8, 16); b: [100, 108) */
	bfq_test_hashed_rq(test, q, a, 0);
	bfq_test_hashed_rq(test, q, b, 8);
	bfq_test_hashed_rq(test, q, b, 100);

	KUNIT_EXPECT_FALSE(test, bfq_merge_chain_own(q, b, 8));	/* into a */
	KUNIT_EXPECT_TRUE(test, bfq_merge_chain_own(q, a, 8));
	KUNIT_EXPECT_FALSE(test, bfq_merge_chain_own(q, a, 16));	/* b */
	/* b's own [8, 16), then a's [0, 8) that it would join next. */
	KUNIT_EXPECT_FALSE(test, bfq_merge_chain_own(q, b, 16));
	KUNIT_EXPECT_TRUE(test, bfq_merge_chain_own(q, b, 108));
	KUNIT_EXPECT_TRUE(test, bfq_merge_chain_own(q, a, 200));	/* none */
}

#define BFQ_RT_PROCS	6
#define BFQ_RT_STEPS	3000

/*
 * Every process's queue lists it as a member, and holds at least one
 * reference per member; the members of all queues are the processes that
 * have a queue.
 */
static bool bfq_rt_check(struct kunit *test, struct bfq_data *bfqd,
			 struct bfq_io_cq **bic, unsigned int step)
{
	unsigned int i, with_queue = 0, members = 0;
	struct bfq_queue *bfqq;
	bool ok = true;

	for (i = 0; i < BFQ_RT_PROCS; i++) {
		struct bfq_io_cq *b;
		bool found = false;

		bfqq = bic[i]->sync_bfqq;
		if (!bfqq)
			continue;
		with_queue++;
		list_for_each_entry(b, &bfqq->merge.members, member_node)
			found |= b == bic[i];
		ok &= found;
	}
	list_for_each_entry(bfqq, &bfqd->all_bfqqs, all_node) {
		ok &= bfqq->ref > 0 && bfqq->ref >= (int)bfqq->merge.nr_members;
		members += bfqq->merge.nr_members;
	}
	ok &= members == with_queue;
	KUNIT_EXPECT_TRUE_MSG(test, ok, "members and references at step %u",
			      step);
	return ok;
}

/*
 * Processes issue requests (interleaved, so that they merge, or seeky, so
 * that merged queues split), change ioprio, exit and come back, in a
 * random order from a fixed seed; after each step the references agree
 * with the members, and once every process has exited every queue is
 * freed: none leaked, none freed twice (a second free would drive
 * nr_bfqqs below the queues created, or trip the slab's checks).
 */
static void bfq_merge_refs_random(struct kunit *test)
{
	struct bfq_data *bfqd = bfq_test_bfqd(test);
	struct bfq_io_cq *bic[BFQ_RT_PROCS];
	unsigned short prio[BFQ_RT_PROCS];
	sector_t pos = 0;
	u32 x = 2024;
	unsigned int i, step;

	if (!bfq_queue_cache)
		kunit_skip(test, "bfq's queue cache is not set up");
	INIT_LIST_HEAD(&bfqd->all_bfqqs);
	bfq_sched_init(&bfqd->sched);
	for (i = 0; i < BFQ_RT_PROCS; i++) {
		bic[i] = kunit_kzalloc(test, sizeof(*bic[i]), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, bic[i]);
		prio[i] = IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 4);
	}
	spin_lock_irq(&bfqd->lock);
	for (step = 0; step < BFQ_RT_STEPS; step++) {
		struct bfq_queue *bfqq;
		unsigned int op;

		x = x * 1664525 + 1013904223;
		i = (x >> 8) % BFQ_RT_PROCS;
		op = (x >> 16) % 100;
		if (op < 2 && bic[i]->sync_bfqq) {
			/* Exit; the process comes back as a new one. */
			bfq_bic_drop_queue(bfqd, bic[i]);
			memset(bic[i], 0, sizeof(*bic[i]));
		} else if (op < 5) {
			prio[i] = IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, (x >> 24) % 2 + 3);
		} else {
			bool seeky = op < 15;

			bfqq = bfq_sync_queue(bfqd, bic[i], prio[i], NULL);
			if (seeky)
				pos = (x >> 4) % (SZ_1G >> SECTOR_SHIFT);
			bfqq = bfq_merge_arrival(bfqd, bic[i], bfqq, pos, 8);
			bfqq->seek_history = (bfqq->seek_history << 1) | seeky;
			pos += 8;
		}
		/* No assertion under the lock: the test goes on to clean up. */
		if (!bfq_rt_check(test, bfqd, bic, step))
			break;
	}
	KUNIT_EXPECT_GT(test, bfqd->merge.nr_merges, 0ULL);
	KUNIT_EXPECT_GT(test, bfqd->merge.nr_splits, 0ULL);
	for (i = 0; i < BFQ_RT_PROCS; i++)
		if (bic[i]->sync_bfqq)
			bfq_bic_drop_queue(bfqd, bic[i]);
	KUNIT_EXPECT_EQ(test, bfqd->nr_bfqqs, 0U);
	KUNIT_EXPECT_TRUE(test, list_empty(&bfqd->all_bfqqs));
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_ROOT(&bfqd->merge.pos_tree));
	KUNIT_EXPECT_NULL(test, bfqd->merge.stable_head);
	spin_unlock_irq(&bfqd->lock);
}

/*
 * A turn that starts owing at least its budget in injected service (rule
 * 3 of bfq-inject.c) still dispatches its first request, and only that
 * one: were the request refused, the turn would expire as budget-exhausted
 * and the same queue be selected again, once per budget of debt, in one
 * dispatch call with interrupts off.
 */
static void bfq_turn_with_debt_dispatches(struct kunit *test)
{
	struct bfq_data *bfqd = bfq_test_bfqd(test);
	struct bfq_queue *bfqq = bfq_test_queue(test, bfqd, 100);
	struct request *rq = kunit_kzalloc(test, sizeof(*rq), GFP_KERNEL);
	struct bfq_entity *entity = &bfqq->entity;

	KUNIT_ASSERT_NOT_NULL(test, rq);
	rq->__data_len = 8 << SECTOR_SHIFT;
	entity->budget_sectors = 8;
	bfqq->inj.debt_sectors = 32;
	/* What bfq_in_service() does at the start of a turn. */
	entity->service_sectors = bfq_inject_take_debt(bfqq,
						       entity->budget_sectors);
	KUNIT_EXPECT_EQ(test, entity->service_sectors, 8U);
	KUNIT_EXPECT_TRUE(test, bfq_budget_left_for(bfqq, rq));
	entity->service_sectors += blk_rq_sectors(rq);
	KUNIT_EXPECT_FALSE(test, bfq_budget_left_for(bfqq, rq));

	/* Without debt, the budget alone decides, as before. */
	bfqq->inj.debt_sectors = 0;
	entity->budget_sectors = 16;
	entity->service_sectors = bfq_inject_take_debt(bfqq,
						       entity->budget_sectors);
	KUNIT_EXPECT_TRUE(test, bfq_budget_left_for(bfqq, rq));
	entity->service_sectors += blk_rq_sectors(rq);
	KUNIT_EXPECT_TRUE(test, bfq_budget_left_for(bfqq, rq));
	entity->service_sectors += blk_rq_sectors(rq);
	KUNIT_EXPECT_FALSE(test, bfq_budget_left_for(bfqq, rq));
}

/*
 * Rule 3 of bfq-budget.c: a seeky turn ends once its far requests, each
 * as long as alone, would pass timeout_sync, however many the device
 * holds at once; not a raised application's turn.
 */
static void bfq_seeky_turn_times_out(struct kunit *test)
{
	struct bfq_data *bfqd = bfq_test_bfqd(test);
	struct bfq_queue *bfqq = bfq_test_queue(test, bfqd, 100);
	struct request *rq = kunit_kzalloc(test, sizeof(*rq), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, rq);
	rq->__data_len = 8 << SECTOR_SHIFT;
	bfqd->tun.timeout_sync_ms = 125;
	/* A far 4 KiB request takes 10 ms alone. */
	bfqd->seek.far_n[3] = 16;
	bfqd->seek.far_ns[3] = 10 * NSEC_PER_MSEC;
	bfqq->seek_history = ~0U;
	spin_lock_irq(&bfqd->lock);
	/* The first request of a turn always goes. */
	KUNIT_EXPECT_FALSE(test, bfq_turn_time_spent(bfqd, bfqq, rq));
	for (i = 0; i < 12; i++) {
		KUNIT_EXPECT_FALSE(test, bfq_turn_time_spent(bfqd, bfqq, rq));
		bfqq->turn_far_ns += 10 * NSEC_PER_MSEC;
	}
	/* 120 ms sent: a 13th would pass 125 ms. */
	KUNIT_EXPECT_TRUE(test, bfq_turn_time_spent(bfqd, bfqq, rq));
	/* Charged what the 12 cost alone: 12 x 10 ms at 16384 per 125 ms. */
	KUNIT_EXPECT_EQ(test, bfq_seeky_charge(bfqd, bfqq, 16384), 15728U);
	KUNIT_EXPECT_EQ(test, bfqq->turn_far_ns, 0ULL);

	/* A queue that is not seeky streams on. */
	bfqq->turn_far_ns = 120 * NSEC_PER_MSEC;
	bfqq->seek_history = 0;
	KUNIT_EXPECT_FALSE(test, bfq_turn_time_spent(bfqd, bfqq, rq));
	/* Nor does a raised soft real-time stream pay for time. */
	bfqq->seek_history = ~0U;
	bfqq->wr.coeff = 30;
	bfqq->wr.kind = BFQ_WR_SOFT_RT;
	KUNIT_EXPECT_FALSE(test, bfq_turn_time_spent(bfqd, bfqq, rq));
	spin_unlock_irq(&bfqd->lock);
}

/*
 * Rule 4 of bfq-budget.c: on a device of a few tags a wakee and its waker
 * pay for their turns' time, a queue in neither relation does not; on a
 * deep device none does.
 */
static void bfq_waker_pair_pays_time(struct kunit *test)
{
	struct bfq_data *bfqd = bfq_test_bfqd(test);
	struct bfq_queue *waker = bfq_test_queue(test, bfqd, 100);
	struct bfq_queue *wakee = bfq_test_queue(test, bfqd, 101);
	struct bfq_queue *other = bfq_test_queue(test, bfqd, 102);

	spin_lock_irq(&bfqd->lock);
	bfqd->tags.nr = 2;
	KUNIT_EXPECT_FALSE(test, bfq_waker_pays_time(bfqd, waker));
	KUNIT_EXPECT_FALSE(test, bfq_waker_pays_time(bfqd, wakee));
	wakee->inj.waker = waker;
	list_add_tail(&wakee->inj.waker_node, &waker->inj.wakees);
	KUNIT_EXPECT_TRUE(test, bfq_waker_pays_time(bfqd, waker));
	KUNIT_EXPECT_TRUE(test, bfq_waker_pays_time(bfqd, wakee));
	KUNIT_EXPECT_FALSE(test, bfq_waker_pays_time(bfqd, other));
	bfqd->tags.nr = 64;
	KUNIT_EXPECT_FALSE(test, bfq_waker_pays_time(bfqd, waker));
	KUNIT_EXPECT_FALSE(test, bfq_waker_pays_time(bfqd, wakee));
	/* The relation ends with the waker: neither pays any more. */
	bfqd->tags.nr = 2;
	bfq_inject_queue_exit(bfqd, waker);
	KUNIT_EXPECT_FALSE(test, bfq_waker_pays_time(bfqd, waker));
	KUNIT_EXPECT_FALSE(test, bfq_waker_pays_time(bfqd, wakee));
	spin_unlock_irq(&bfqd->lock);
}

/*
 * bfq_should_idle(): the device idles for an emptied seeky queue with a
 * waker only while a third queue could take the device; with the pair
 * alone (two psync readers of a fast device on two CPUs take each other
 * for wakers) the turn goes on without a wait.
 */
static void bfq_wakee_idled_for_rivals(struct kunit *test)
{
	struct bfq_data *bfqd = bfq_test_bfqd(test);
	struct bfq_queue *waker = bfq_test_queue(test, bfqd, 100);
	struct bfq_queue *wakee = bfq_test_queue(test, bfqd, 101);
	struct bfq_queue *other = bfq_test_queue(test, bfqd, 102);
	u64 now = ktime_get_ns();

	bfqd->queue->nr_requests = 64;
	bfqd->tun.low_latency = 0;
	wakee->seek_history = ~0U;
	spin_lock_irq(&bfqd->lock);
	bfq_busy_set(bfqd, waker);
	bfq_busy_set(bfqd, wakee);
	KUNIT_EXPECT_EQ(test, bfqd->busy_sync_nr, 2U);
	/* No waker: seeky, symmetric, not idled for. */
	KUNIT_EXPECT_FALSE(test, bfq_should_idle(bfqd, wakee, now));
	wakee->inj.waker = waker;
	list_add_tail(&wakee->inj.waker_node, &waker->inj.wakees);
	/* The pair alone. */
	KUNIT_EXPECT_FALSE(test, bfq_should_idle(bfqd, wakee, now));
	/* The waker with requests queued is still the pair. */
	waker->nr_queued = 2;
	bfqd->nr_queued = 2;
	KUNIT_EXPECT_FALSE(test, bfq_should_idle(bfqd, wakee, now));
	/* A third busy sync queue. */
	bfq_busy_set(bfqd, other);
	KUNIT_EXPECT_TRUE(test, bfq_should_idle(bfqd, wakee, now));
	bfq_busy_clear(bfqd, other);
	KUNIT_EXPECT_EQ(test, bfqd->busy_sync_nr, 2U);
	KUNIT_EXPECT_FALSE(test, bfq_should_idle(bfqd, wakee, now));
	/* Another queue's requests queued (an async queue's writes). */
	bfqd->nr_queued = 3;
	KUNIT_EXPECT_TRUE(test, bfq_should_idle(bfqd, wakee, now));
	bfqd->nr_queued = 0;
	waker->nr_queued = 0;
	/* The pair's completions are no rival's. */
	bfq_inject_completed(bfqd, waker, NULL, false, now - 1000);
	bfq_inject_completed(bfqd, wakee, NULL, false, now - 500);
	KUNIT_EXPECT_FALSE(test, bfq_should_idle(bfqd, wakee, now));
	/* A third queue completed a request less than a slice ago. */
	bfq_inject_completed(bfqd, other, NULL, false, now - 7 * NSEC_PER_MSEC);
	bfq_inject_completed(bfqd, waker, NULL, false, now - 100);
	KUNIT_EXPECT_TRUE(test, bfq_should_idle(bfqd, wakee, now));
	/* More than a slice ago: it is not coming back soon. */
	KUNIT_EXPECT_FALSE(test, bfq_should_idle(bfqd, wakee,
						 now + 2 * NSEC_PER_MSEC));
	bfq_inject_queue_exit(bfqd, other);
	bfq_inject_queue_exit(bfqd, waker);
	bfq_busy_clear(bfqd, wakee);
	bfq_busy_clear(bfqd, waker);
	KUNIT_EXPECT_EQ(test, bfqd->busy_sync_nr, 0U);
	spin_unlock_irq(&bfqd->lock);
}

/*
 * Design note 8: async requests in the device hold at most
 * BFQ_ASYNC_DEVICE_MS of transfer at the peak rate; one always goes, sync
 * requests are never held, nothing is held before the rate is known. What
 * a request took is given back when it leaves the device. One sent under
 * the bound that takes over BFQ_ASYNC_SLOW_MS turns it off for
 * BFQ_ASYNC_RETRY_MS.
 */
static void bfq_async_device_time_bounded(struct kunit *test)
{
	struct bfq_data *bfqd = bfq_test_bfqd(test);
	struct bfq_queue *async = bfq_test_queue(test, bfqd, 100);
	struct bfq_queue *sync = bfq_test_queue(test, bfqd, 101);
	struct request *w1 = kunit_kzalloc(test, sizeof(*w1), GFP_KERNEL);
	struct request *w2 = kunit_kzalloc(test, sizeof(*w2), GFP_KERNEL);
	struct request *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	u64 now = ktime_get_ns();
	int i;

	KUNIT_ASSERT_NOT_NULL(test, w1);
	KUNIT_ASSERT_NOT_NULL(test, w2);
	KUNIT_ASSERT_NOT_NULL(test, r);
	async->sync = false;
	sync->sync = true;
	/* 1.25 MiB writes, 128 KiB reads. */
	w1->__data_len = 2560 << SECTOR_SHIFT;
	w2->__data_len = 2560 << SECTOR_SHIFT;
	r->__data_len = 256 << SECTOR_SHIFT;
	w1->elv.priv[0] = async;
	w2->elv.priv[0] = async;
	r->elv.priv[0] = sync;
	spin_lock_irq(&bfqd->lock);
	/* Rate unknown: nothing held, nothing noted. */
	rq_mark_dispatched(w1);
	rq_count_async(bfqd, w1, true);
	KUNIT_EXPECT_EQ(test, bfqd->async_in_driver, 2560U);
	KUNIT_EXPECT_FALSE(test, bfq_async_held(bfqd, async, w2, now));
	KUNIT_EXPECT_FALSE(test, rq_state(w1) & BFQ_RQ_ASYNC_HELD);
	/* 125 MB/s: 16 ms is 3906 sectors, one such write at a time. */
	bfqd->rate.nr_samples = 1;
	bfqd->rate.peak_sectors_per_sec = 244140;
	KUNIT_EXPECT_TRUE(test, bfq_async_held(bfqd, async, w2, now));
	KUNIT_EXPECT_FALSE(test, bfq_async_held(bfqd, sync, r, now));
	/* The sync read is not counted. */
	rq_mark_dispatched(r);
	rq_count_async(bfqd, r, true);
	KUNIT_EXPECT_EQ(test, bfqd->async_in_driver, 2560U);
	rq_count_async(bfqd, r, false);
	KUNIT_EXPECT_EQ(test, bfqd->async_in_driver, 2560U);
	/* Its completion lets the next one go, counted by its dispatch size. */
	w1->__data_len = 0;
	rq_count_async(bfqd, w1, false);
	KUNIT_EXPECT_EQ(test, bfqd->async_in_driver, 0U);
	KUNIT_EXPECT_FALSE(test, bfq_async_held(bfqd, async, w2, now));
	/* Counted once: a second leave changes nothing. */
	rq_count_async(bfqd, w1, false);
	KUNIT_EXPECT_EQ(test, bfqd->async_in_driver, 0U);
	/* Sent under the bound, w2 notes when. */
	rq_mark_dispatched(w2);
	rq_count_async(bfqd, w2, true);
	KUNIT_EXPECT_TRUE(test, rq_state(w2) & BFQ_RQ_ASYNC_HELD);
	w1->__data_len = 2560 << SECTOR_SHIFT;
	KUNIT_EXPECT_TRUE(test, bfq_async_held(bfqd, async, w1, now));
	/* A fast device takes many. */
	bfqd->rate.peak_sectors_per_sec = 6000000;
	KUNIT_EXPECT_FALSE(test, bfq_async_held(bfqd, async, w1, now));
	bfqd->rate.peak_sectors_per_sec = 244140;
	/* Done in 20 ms: the bound stays. */
	bfq_async_done(bfqd, w2, w2->fifo_time + 20 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, bfqd->async_bound_offs, 0UL);
	KUNIT_EXPECT_TRUE(test, bfq_async_held(bfqd, async, w1,
					       w2->fifo_time));
	/*
	 * Done in 1 s, BFQ_ASYNC_SLOW_RUN times in a row: off for
	 * BFQ_ASYNC_RETRY_MS, then on again. A quick one between restarts
	 * the count.
	 */
	now = w2->fifo_time + NSEC_PER_SEC;
	for (i = 1; i < BFQ_ASYNC_SLOW_RUN; i++)
		bfq_async_done(bfqd, w2, now);
	bfq_async_done(bfqd, w2, w2->fifo_time + 20 * NSEC_PER_MSEC);
	bfq_async_done(bfqd, w2, now);
	KUNIT_EXPECT_EQ(test, bfqd->async_bound_offs, 0UL);
	KUNIT_EXPECT_TRUE(test, bfq_async_held(bfqd, async, w1, now));
	for (i = 1; i < BFQ_ASYNC_SLOW_RUN; i++)
		bfq_async_done(bfqd, w2, now);
	KUNIT_EXPECT_EQ(test, bfqd->async_bound_offs, 1UL);
	KUNIT_EXPECT_FALSE(test, bfq_async_held(bfqd, async, w1, now));
	now += BFQ_ASYNC_RETRY_MS * NSEC_PER_MSEC;
	KUNIT_EXPECT_TRUE(test, bfq_async_held(bfqd, async, w1, now));
	/* One sent while off is no sample. */
	rq_count_async(bfqd, w2, false);
	bfqd->async_off_until_ns = U64_MAX;
	rq_mark_dispatched(w2);
	rq_count_async(bfqd, w2, true);
	KUNIT_EXPECT_FALSE(test, rq_state(w2) & BFQ_RQ_ASYNC_HELD);
	spin_unlock_irq(&bfqd->lock);
}

/* Arrivals of 8 sectors at @pos[0..n), judged by bfq_update_seek_history(). */
static void bfq_test_arrivals(struct kunit *test, struct bfq_queue *bfqq,
			      const sector_t *pos, int n)
{
	struct request *rq = kunit_kzalloc(test, sizeof(*rq), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, rq);
	rq->__data_len = 8 << SECTOR_SHIFT;
	for (i = 0; i < n; i++) {
		rq->__sector = pos[i];
		bfq_update_seek_history(bfqq, rq);
	}
}

/*
 * A sequential reader that starts its next file (one far arrival) is not
 * jumping, its next request near; one that reads small files after a
 * stream is, from its second far arrival, long before it is seeky; and a
 * near arrival ends it.
 */
static void bfq_jumping_after_stream(struct kunit *test)
{
	struct bfq_data *bfqd = bfq_test_bfqd(test);
	struct bfq_queue *q = bfq_test_queue(test, bfqd, 1);
	sector_t one[1];
	int i;

	for (i = 0; i < 32; i++) {
		one[0] = 1000000 + i * 256;
		bfq_test_arrivals(test, q, one, 1);
	}
	KUNIT_EXPECT_FALSE(test, bfq_jumping(q));
	one[0] = 9000000;
	bfq_test_arrivals(test, q, one, 1);
	KUNIT_EXPECT_FALSE(test, bfq_jumping(q));
	one[0] = 300000;
	bfq_test_arrivals(test, q, one, 1);
	KUNIT_EXPECT_TRUE(test, bfq_jumping(q));
	KUNIT_EXPECT_FALSE(test, bfq_seeky(q));
	one[0] = q->arrival_end;
	bfq_test_arrivals(test, q, one, 1);
	KUNIT_EXPECT_FALSE(test, bfq_jumping(q));
}

/*
 * A random reader is seeky from its fourth arrival, not its tenth; a
 * sequential reader that starts far from sector 0, or jumps once from its
 * metadata to its data, is not; and after 32 arrivals the rule is the
 * last 32's.
 */
static void bfq_seeky_young_queue(struct kunit *test)
{
	static const sector_t rnd[] = { 900000, 5000, 7000000, 300000,
					80000000 };
	static const sector_t seq[] = { 900000, 900008, 900016, 900024,
					900032 };
	static const sector_t jump[] = { 2048, 900000, 900008, 900016 };
	struct bfq_data *bfqd = bfq_test_bfqd(test);
	struct bfq_queue *r = bfq_test_queue(test, bfqd, 1);
	struct bfq_queue *s = bfq_test_queue(test, bfqd, 2);
	struct bfq_queue *j = bfq_test_queue(test, bfqd, 3);
	sector_t one[1];
	int i;

	bfq_test_arrivals(test, r, rnd, 3);
	KUNIT_EXPECT_FALSE(test, bfq_seeky(r));
	bfq_test_arrivals(test, r, rnd + 3, 1);
	KUNIT_EXPECT_TRUE(test, bfq_seeky(r));

	bfq_test_arrivals(test, s, seq, ARRAY_SIZE(seq));
	KUNIT_EXPECT_FALSE(test, bfq_seeky(s));
	bfq_test_arrivals(test, j, jump, ARRAY_SIZE(jump));
	KUNIT_EXPECT_FALSE(test, bfq_seeky(j));

	/* 40 arrivals, every fourth far: 8 of the last 32, not seeky. */
	for (i = 0; i < 40; i++) {
		one[0] = (i % 4 == 3) ? r->arrival_end + 1000000 :
					r->arrival_end;
		bfq_test_arrivals(test, r, one, 1);
	}
	KUNIT_EXPECT_EQ(test, r->nr_judged, 32);
	KUNIT_EXPECT_FALSE(test, bfq_seeky(r));
	/* One more far: 9 of 32. */
	one[0] = r->arrival_end + 1000000;
	bfq_test_arrivals(test, r, one, 1);
	KUNIT_EXPECT_TRUE(test, bfq_seeky(r));
}

static struct kunit_case bfq_iosched_cases[] = {
	KUNIT_CASE(bfq_class_of_classes),
	KUNIT_CASE_PARAM(bfq_timeout_charge_table, bfq_tocharge_gen_params),
	KUNIT_CASE_PARAM(bfq_seeky_charge_table, bfq_seekycharge_gen_params),
	KUNIT_CASE(bfq_bio_joins_own_queue),
	KUNIT_CASE(bfq_insert_merge_chain_own),
	KUNIT_CASE(bfq_choose_rq_meta_first),
	KUNIT_CASE(bfq_merge_refs_random),
	KUNIT_CASE(bfq_turn_with_debt_dispatches),
	KUNIT_CASE(bfq_seeky_turn_times_out),
	KUNIT_CASE(bfq_waker_pair_pays_time),
	KUNIT_CASE(bfq_wakee_idled_for_rivals),
	KUNIT_CASE(bfq_async_device_time_bounded),
	KUNIT_CASE(bfq_seeky_young_queue),
	KUNIT_CASE(bfq_jumping_after_stream),
	{}
};

static struct kunit_suite bfq_iosched_suite = {
	.name = "bfq_iosched",
	.test_cases = bfq_iosched_cases,
};

kunit_test_suite(bfq_iosched_suite);

#ifdef CONFIG_KASAN
/*
 * Not a bfq* suite, and meant to fail: a queue read after its free must
 * make KASAN report it (a report fails the KUnit case it happens in).
 * scripts/kasan-queue.sh boots the debug kernel for this suite alone and
 * checks the report; a case that passed would mean the checkers cannot
 * see a queue used after its free, as on 6.1 without
 * CONFIG_BFQ_DEBUG_QUEUE_FREE. The grace period is waited for: with
 * CONFIG_SLUB_RCU_DEBUG the object is poisoned only once it has passed.
 */
static void kasan_sees_bfq_queue_uaf(struct kunit *test)
{
	struct bfq_queue *bfqq;

	if (!bfq_queue_cache)
		kunit_skip(test, "bfq's queue cache is not set up");
	bfqq = kmem_cache_zalloc(bfq_queue_cache, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bfqq);
	kmem_cache_free(bfq_queue_cache, bfqq);
	synchronize_rcu();
	rcu_barrier();
	/* The use after free, on purpose; its value does not matter. */
	(void)READ_ONCE(bfqq->ref);
}

static struct kunit_case kasan_bfq_queue_cases[] = {
	KUNIT_CASE(kasan_sees_bfq_queue_uaf),
	{}
};

static struct kunit_suite kasan_bfq_queue_suite = {
	.name = "kasan_bfq_queue",
	.test_cases = kasan_bfq_queue_cases,
};

kunit_test_suite(kasan_bfq_queue_suite);
#endif
