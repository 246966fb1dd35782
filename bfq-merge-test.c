// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of early queue merge (bfq-merge.c), #included at its end:
 * detection on synthetic arrival streams (interleaved, strided, random,
 * sequential but far, stale, another class), merge chains of length 1 to 4 with
 * their members and references, a split giving a process back the state it had
 * before it merged, and the dispatch rules of merged queues: gathering the
 * members' pieces and laggards first. The randomized reference-count sequence
 * through the real queue allocator is in bfq-iosched-test.c.
 */
#include <linux/prandom.h>

#include "bfq-test.h"

#define BFQ_MT_QUEUES	4
#define BFQ_MT_STEPS	1000

/* One arrival: queue @q, @sectors at @pos, @ms after the start. */

/*
 * Calls into the module made as its own callers make them: under
 * bfq_data.lock, which their lockdep assertions check when the suites run
 * in the debug kernel (scripts/kunit-debug.sh). Nothing is allocated
 * under the lock, and no KUNIT_ASSERT leaves it held.
 */
#define BFQ_MT_LOCKED(bfqd, call) ({					\
	spinlock_t *__bfq_mt_lock = &(bfqd)->lock;			\
	typeof(call) __bfq_mt_ret;					\
									\
	spin_lock_irq(__bfq_mt_lock);					\
	__bfq_mt_ret = (call);						\
	spin_unlock_irq(__bfq_mt_lock);					\
	__bfq_mt_ret;							\
})
#define BFQ_MT_DO(bfqd, call) do {					\
	spinlock_t *__bfq_mt_lock = &(bfqd)->lock;			\
									\
	spin_lock_irq(__bfq_mt_lock);					\
	call;								\
	spin_unlock_irq(__bfq_mt_lock);					\
} while (0)
struct bfq_mt_arrival {
	unsigned int q;
	sector_t pos;
	unsigned int sectors;
	unsigned int ms;
};

/*
 * A stream of @nr arrivals made by @gen into @a; the index of the arrival
 * that must first propose a merge (-1: none must), and the classes.
 */
struct bfq_detect_case {
	const char *desc;
	unsigned int nr_queues;
	unsigned int (*gen)(struct bfq_mt_arrival *a);
	int first_merge;
	enum bfq_class class_of_q1;
	bool q1_large_burst;
};

/* 4 processes, each reading every 4th 4 KiB piece of one region. */
static unsigned int bfq_mt_interleaved(struct bfq_mt_arrival *a)
{
	unsigned int i;

	for (i = 0; i < 64; i++)
		a[i] = (struct bfq_mt_arrival){ i % 4, i * 8, 8, i / 4 };
	return 64;
}

/* 2 processes alternating 1 MiB pieces: each one alone is seeky. */
static unsigned int bfq_mt_strided(struct bfq_mt_arrival *a)
{
	unsigned int i;

	for (i = 0; i < 16; i++)
		a[i] = (struct bfq_mt_arrival){ i % 2, i * 2048, 2048, i };
	return 16;
}

/* 4 random 4 KiB readers of 1 GiB (a fixed linear congruential stream). */
static unsigned int bfq_mt_random(struct bfq_mt_arrival *a)
{
	u32 x = 12345;
	unsigned int i;

	for (i = 0; i < BFQ_MT_STEPS; i++) {
		x = x * 1664525 + 1013904223;
		a[i] = (struct bfq_mt_arrival){ i % 4,
			(sector_t)(x >> 11) * 8 % (SZ_1G >> SECTOR_SHIFT), 8,
			i / 4 };
	}
	return BFQ_MT_STEPS;
}

/* 2 sequential readers 1 GiB apart. */
static unsigned int bfq_mt_far(struct bfq_mt_arrival *a)
{
	unsigned int i;

	for (i = 0; i < 64; i++)
		a[i] = (struct bfq_mt_arrival){ i % 2,
			(i % 2) * (SZ_1G >> SECTOR_SHIFT) + (i / 2) * 256,
			256, i / 2 };
	return 64;
}

/*
 * Queue 0 reads once, then queue 1 keeps reading where it stopped, long
 * after: a stale position predicts nothing.
 */
static unsigned int bfq_mt_stale(struct bfq_mt_arrival *a)
{
	unsigned int i;

	a[0] = (struct bfq_mt_arrival){ 0, 0, 8, 0 };
	for (i = 1; i < 8; i++)
		a[i] = (struct bfq_mt_arrival){ 1, 8, 8, 200 + i };
	return 8;
}

static const struct bfq_detect_case bfq_detect_cases[] = {
	/* q1 lands at q0's end at arrivals 1, 5, 9: merged at the third. */
	{ "interleaved 4 KiB x4", 4, bfq_mt_interleaved, 9, BFQ_CLASS_BE },
	{ "strided 1 MiB x2", 2, bfq_mt_strided, 5, BFQ_CLASS_BE },
	{ "random readers", 4, bfq_mt_random, -1, BFQ_CLASS_BE },
	{ "sequential but far", 2, bfq_mt_far, -1, BFQ_CLASS_BE },
	{ "close but stale", 2, bfq_mt_stale, -1, BFQ_CLASS_BE },
	/*
	 * q1 in another class: q1 and q2 land next to an ineligible queue,
	 * q3 next to q2 at arrivals 3, 7, 11.
	 */
	{ "interleaved, one idle-class", 4, bfq_mt_interleaved, 11,
	  BFQ_CLASS_IDLE },
	/*
	 * q1 born in a large burst stays out of the position tree: q2 lands
	 * next to q0 at arrivals 2, 6, 10 instead of next to q1.
	 */
	{ "interleaved, one in a large burst", 4, bfq_mt_interleaved, 10,
	  BFQ_CLASS_BE, true },
};

BFQ_KUNIT_TABLE(bfq_detect, bfq_detect_cases, bfq_detect_case);

static struct bfq_queue *bfq_mt_queue(struct kunit *test,
				      struct bfq_data *bfqd, pid_t pid)
{
	struct bfq_queue *bfqq = bfq_test_queue(test, bfqd, pid);

	bfqq->ref = 100;
	bfqq->merge.nr_members = 1;
	return bfqq;
}

/* Detection only: bfq_merge_observe() proposes, nothing is merged. */
static void bfq_merge_detect_table(struct kunit *test)
{
	const struct bfq_detect_case *c = test->param_value;
	struct bfq_data *bfqd = bfq_test_bfqd(test);
	struct bfq_queue *q[BFQ_MT_QUEUES];
	struct bfq_mt_arrival *a;
	unsigned long t0 = jiffies;
	unsigned int i, nr;
	int first = -1;

	a = kunit_kcalloc(test, BFQ_MT_STEPS, sizeof(*a), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	for (i = 0; i < c->nr_queues; i++)
		q[i] = bfq_mt_queue(test, bfqd, 100 + i);
	q[1]->ioprio_class = c->class_of_q1;
	if (c->q1_large_burst)
		q[1]->wr.burst = BFQ_BURST_LARGE;
	nr = c->gen(a);
	for (i = 0; i < nr && first < 0; i++) {
		struct bfq_queue *bfqq = q[a[i].q], *cand;

		cand = BFQ_MT_LOCKED(bfqd,
				     bfq_merge_observe(bfqd, bfqq, a[i].pos,
						       a[i].sectors,
						       t0 + msecs_to_jiffies(a[i].ms)));
		if (cand) {
			first = i;
			KUNIT_EXPECT_PTR_NE(test, cand, bfqq);
			KUNIT_EXPECT_EQ(test, cand->ioprio_class,
					bfqq->ioprio_class);
		}
	}
	KUNIT_EXPECT_EQ(test, first, c->first_merge);
	if (c->q1_large_burst)
		KUNIT_EXPECT_TRUE(test, RB_EMPTY_NODE(&q[1]->merge.pos_node));
	for (i = 0; i < c->nr_queues; i++)
		bfq_merge_pos_erase(bfqd, q[i]);
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_ROOT(&bfqd->merge.pos_tree));
}

/* A process: its io context's part for the device, member of @bfqq. */
static struct bfq_io_cq *bfq_mt_bic(struct kunit *test, struct bfq_data *bfqd,
				    struct bfq_queue *bfqq)
{
	struct bfq_io_cq *bic = kunit_kzalloc(test, sizeof(*bic), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, bic);
	BFQ_MT_DO(bfqd, bfq_get_queue(bfqq));
	bic->sync_bfqq = bfqq;
	list_add_tail(&bic->member_node, &bfqq->merge.members);
	bfqq->merge.nr_members++;
	return bic;
}

/*
 * Chains: q0 into q1, then q1 into q2, ... @len merges. Every process ends
 * on the last queue, every emptied queue keeps none of their references.
 */
static void bfq_merge_chains(struct kunit *test)
{
	unsigned int len, i;

	for (len = 1; len <= 4; len++) {
		struct bfq_data *bfqd = bfq_test_bfqd(test);
		struct bfq_queue *q[5];
		struct bfq_io_cq *bic[5];

		for (i = 0; i <= len; i++) {
			q[i] = bfq_test_queue(test, bfqd, 200 + i);
			q[i]->ref = 10;
			bic[i] = bfq_mt_bic(test, bfqd, q[i]);
		}
		for (i = 0; i < len; i++)
			BFQ_MT_DO(bfqd, bfq_merge_queues(bfqd, q[i], q[i + 1],
							 BFQ_MERGE_CLOSE));
		for (i = 0; i <= len; i++) {
			KUNIT_EXPECT_PTR_EQ(test, bic[i]->sync_bfqq, q[len]);
			KUNIT_EXPECT_TRUE(test, bic[i]->saved.valid);
		}
		for (i = 0; i < len; i++) {
			KUNIT_EXPECT_EQ(test, q[i]->merge.nr_members, 0U);
			KUNIT_EXPECT_TRUE(test, list_empty(&q[i]->merge.members));
			KUNIT_EXPECT_EQ(test, q[i]->ref, 10);
		}
		KUNIT_EXPECT_EQ(test, q[len]->merge.nr_members, len + 1);
		KUNIT_EXPECT_EQ(test, q[len]->ref, 10 + (int)len + 1);
		KUNIT_EXPECT_EQ(test, bfqd->merge.nr_merges, (u64)len);
		/* Every process exits: the merged queue's count falls to 0. */
		for (i = 0; i <= len; i++) {
			BFQ_MT_DO(bfqd, bfq_merge_leave(bfqd, bic[i]));
			bic[i]->sync_bfqq = NULL;
			q[len]->ref--;
		}
		KUNIT_EXPECT_EQ(test, q[len]->merge.nr_members, 0U);
		KUNIT_EXPECT_EQ(test, q[len]->ref, 10);
	}
}

/*
 * A raised process merges, the merged queue turns seeky, the process
 * splits off: its new queue has its think time, seek history and raising
 * back; one whose raising lapsed meanwhile does not get it back.
 */
static void bfq_merge_split_restores(struct kunit *test)
{
	struct bfq_data *bfqd = bfq_test_bfqd(test);
	struct bfq_queue *a = bfq_test_queue(test, bfqd, 301);
	struct bfq_queue *b = bfq_test_queue(test, bfqd, 302);
	struct bfq_queue *c = bfq_test_queue(test, bfqd, 303);
	struct bfq_queue *d = bfq_test_queue(test, bfqd, 304);
	struct bfq_io_cq *ba, *bb;
	struct bfq_queue *cand;
	enum bfq_split_why why;
	u64 now = ktime_get_ns();

	a->ref = 10;
	b->ref = 10;
	c->ref = 10;
	d->ref = 10;
	ba = bfq_mt_bic(test, bfqd, a);
	bb = bfq_mt_bic(test, bfqd, b);
	struct bfq_merge_saved raised = {
		.wr_kind = BFQ_WR_INTERACTIVE, .wr_coeff = 30,
		.wr_start_ns = now, .wr_dur_ns = NSEC_PER_SEC,
	};

	a->think_ns = 5 * NSEC_PER_MSEC;
	a->seek_history = 0x3;
	BFQ_MT_DO(bfqd, bfq_wr_restore(bfqd, a, &raised, now));
	KUNIT_ASSERT_EQ(test, a->wr.coeff, 30U);
	b->seek_history = 0xff;

	BFQ_MT_DO(bfqd, bfq_merge_queues(bfqd, a, b, BFQ_MERGE_CLOSE));
	/* b took the stronger raising; its history starts afresh. */
	KUNIT_EXPECT_EQ(test, b->wr.coeff, 30U);
	KUNIT_EXPECT_EQ(test, b->seek_history, 0U);
	KUNIT_EXPECT_FALSE(test, bfq_merge_must_split(b, BFQ_CLASS_BE, 4, &why));
	KUNIT_EXPECT_TRUE(test, bfq_merge_must_split(b, BFQ_CLASS_BE, 3, &why));
	KUNIT_EXPECT_EQ(test, why, BFQ_SPLIT_IOPRIO);

	/* Seeky: marked at the next arrival, each member then leaves. */
	b->seek_history = ~0U;
	cand = BFQ_MT_LOCKED(bfqd, bfq_merge_observe(bfqd, b, 0, 8, jiffies));
	KUNIT_EXPECT_NULL(test, cand);
	KUNIT_EXPECT_TRUE(test, b->merge.split_pending);
	KUNIT_EXPECT_TRUE(test, bfq_merge_must_split(b, BFQ_CLASS_BE, 4, &why));
	KUNIT_EXPECT_EQ(test, why, BFQ_SPLIT_SEEKY);

	BFQ_MT_DO(bfqd, bfq_merge_leave(bfqd, ba));
	ba->sync_bfqq = c;
	b->ref--;
	c->ref++;
	BFQ_MT_DO(bfqd, bfq_merge_join(bfqd, ba, c, true,
				       now + NSEC_PER_MSEC));
	KUNIT_EXPECT_EQ(test, c->think_ns, 5 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, c->seek_history, 0x3U);
	KUNIT_EXPECT_EQ(test, c->wr.coeff, 30U);
	KUNIT_EXPECT_TRUE(test, c->wr.seen_busy);
	KUNIT_EXPECT_FALSE(test, ba->saved.valid);
	/* b has one member left: its own again, nothing pending. */
	KUNIT_EXPECT_EQ(test, b->merge.nr_members, 1U);
	KUNIT_EXPECT_FALSE(test, b->merge.split_pending);
	KUNIT_EXPECT_FALSE(test, bb->saved.valid);

	/* Merge again, split after the raising lapsed: not raised. */
	BFQ_MT_DO(bfqd, bfq_merge_queues(bfqd, c, b, BFQ_MERGE_CLOSE));
	KUNIT_EXPECT_TRUE(test, ba->saved.valid);
	b->merge.split_pending = true;
	BFQ_MT_DO(bfqd, bfq_merge_leave(bfqd, ba));
	ba->sync_bfqq = d;
	b->ref--;
	d->ref++;
	BFQ_MT_DO(bfqd, bfq_merge_join(bfqd, ba, d, true,
				       now + 2 * NSEC_PER_SEC));
	KUNIT_EXPECT_EQ(test, d->wr.coeff, 1U);
	KUNIT_EXPECT_EQ(test, d->think_ns, 5 * NSEC_PER_MSEC);

	BFQ_MT_DO(bfqd, bfq_wr_queue_exit(bfqd, a));
	BFQ_MT_DO(bfqd, bfq_wr_queue_exit(bfqd, b));
	BFQ_MT_DO(bfqd, bfq_wr_queue_exit(bfqd, c));
	BFQ_MT_DO(bfqd, bfq_wr_queue_exit(bfqd, d));
	KUNIT_EXPECT_EQ(test, bfqd->wr.nr_raised, 0U);
}

/*
 * A raised process moves to another cgroup while its queue still holds
 * requests there: its new queue (bfq_merge_keep(), then a join that is
 * not a split) has its think time, seek history and raising, with the
 * raising's start kept; no split is counted.
 */
static void bfq_merge_move_keeps(struct kunit *test)
{
	struct bfq_data *bfqd = bfq_test_bfqd(test);
	struct bfq_queue *a = bfq_test_queue(test, bfqd, 311);
	struct bfq_queue *c = bfq_test_queue(test, bfqd, 313);
	struct bfq_io_cq *ba;
	u64 now = ktime_get_ns();
	struct bfq_merge_saved raised = {
		.wr_kind = BFQ_WR_INTERACTIVE, .wr_coeff = 30,
		.wr_start_ns = now, .wr_dur_ns = NSEC_PER_SEC,
	};

	a->ref = 10;
	c->ref = 10;
	ba = bfq_mt_bic(test, bfqd, a);
	a->think_ns = 7 * NSEC_PER_MSEC;
	a->seek_history = 0x5;
	BFQ_MT_DO(bfqd, bfq_wr_restore(bfqd, a, &raised, now));
	KUNIT_ASSERT_EQ(test, a->wr.coeff, 30U);

	BFQ_MT_DO(bfqd, bfq_merge_keep(ba));
	KUNIT_EXPECT_TRUE(test, ba->saved.valid);
	BFQ_MT_DO(bfqd, bfq_merge_leave(bfqd, ba));
	ba->sync_bfqq = c;
	a->ref--;
	c->ref++;
	BFQ_MT_DO(bfqd, bfq_merge_join(bfqd, ba, c, false,
				       now + 100 * NSEC_PER_MSEC));
	KUNIT_EXPECT_EQ(test, c->think_ns, 7 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, c->seek_history, 0x5U);
	KUNIT_EXPECT_EQ(test, c->wr.coeff, 30U);
	KUNIT_EXPECT_EQ(test, c->wr.start_ns, now);
	KUNIT_EXPECT_FALSE(test, ba->saved.valid);
	KUNIT_EXPECT_EQ(test, bfqd->merge.nr_splits, 0ULL);

	BFQ_MT_DO(bfqd, bfq_wr_queue_exit(bfqd, a));
	BFQ_MT_DO(bfqd, bfq_wr_queue_exit(bfqd, c));
	KUNIT_EXPECT_EQ(test, bfqd->wr.nr_raised, 0U);
}

/* A process born with its own queue @bfqq, which it holds. */
static void bfq_mt_join(struct bfq_data *bfqd, struct bfq_io_cq *bic,
			struct bfq_queue *bfqq)
{
	BFQ_MT_DO(bfqd, bfq_get_queue(bfqq));
	bic->sync_bfqq = bfqq;
	BFQ_MT_DO(bfqd, bfq_merge_join(bfqd, bic, bfqq, false, 0));
}

/* Queues born together form a stable pair, judged after the delay. */
static void bfq_merge_stable_pair(struct kunit *test)
{
	struct bfq_data *bfqd = bfq_test_bfqd(test);
	struct bfq_queue *a = bfq_test_queue(test, bfqd, 401);
	struct bfq_queue *b = bfq_test_queue(test, bfqd, 402);
	struct bfq_queue *c = bfq_test_queue(test, bfqd, 403);
	struct bfq_io_cq *ba, *bb, *bc;
	struct bfq_queue *cand;
	unsigned long t0 = jiffies;

	a->ref = 10;
	b->ref = 10;
	c->ref = 10;
	ba = kunit_kzalloc(test, sizeof(*ba), GFP_KERNEL);
	bb = kunit_kzalloc(test, sizeof(*bb), GFP_KERNEL);
	bc = kunit_kzalloc(test, sizeof(*bc), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, ba && bb && bc);
	bfq_mt_join(bfqd, ba, a);
	bfq_mt_join(bfqd, bb, b);
	KUNIT_EXPECT_PTR_EQ(test, b->merge.stable, a);
	KUNIT_EXPECT_EQ(test, a->ref, 12);	/* its process, b's pair */

	/* 2 MiB apart, never close: not merged before the delay... */
	a->merge.born = t0;
	b->merge.born = t0;
	cand = BFQ_MT_LOCKED(bfqd, bfq_merge_observe(bfqd, a, 0, 8, t0));
	KUNIT_EXPECT_NULL(test, cand);
	cand = BFQ_MT_LOCKED(bfqd, bfq_merge_observe(bfqd, b, 4096, 8, t0));
	KUNIT_EXPECT_NULL(test, cand);
	/* ...and proposed after it, both still reading one region. */
	t0 += msecs_to_jiffies(BFQ_STABLE_DELAY_MS);
	cand = BFQ_MT_LOCKED(bfqd, bfq_merge_observe(bfqd, a, 8, 8, t0));
	KUNIT_EXPECT_NULL(test, cand);
	cand = BFQ_MT_LOCKED(bfqd, bfq_merge_observe(bfqd, b, 4104, 8, t0));
	KUNIT_EXPECT_PTR_EQ(test, cand, a);
	BFQ_MT_DO(bfqd, bfq_merge_queues(bfqd, b, a, BFQ_MERGE_STABLE));
	KUNIT_EXPECT_NULL(test, b->merge.stable);
	KUNIT_EXPECT_EQ(test, a->ref, 12);	/* two processes */
	KUNIT_EXPECT_EQ(test, b->ref, 10);

	/* A third one born long after is nobody's pair: a new head. */
	bfqd->merge.stable_last = t0 - msecs_to_jiffies(1000);
	bfq_mt_join(bfqd, bc, c);
	KUNIT_EXPECT_NULL(test, c->merge.stable);
	KUNIT_EXPECT_PTR_EQ(test, bfqd->merge.stable_head, c);
	BFQ_MT_DO(bfqd, bfq_merge_leave(bfqd, bc));
	BFQ_MT_DO(bfqd, bfq_merge_leave(bfqd, ba));
	BFQ_MT_DO(bfqd, bfq_merge_leave(bfqd, bb));
	KUNIT_EXPECT_EQ(test, a->merge.nr_members, 0U);
	KUNIT_EXPECT_EQ(test, c->merge.nr_members, 0U);
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_ROOT(&bfqd->merge.pos_tree));
}

/*
 * Gathering: a merged queue's next dispatch waits for one piece from each
 * member that did I/O in the last BFQ_MERGE_RECENT_MS, at most twice its
 * think time after its last completion, within [BFQ_GATHER_MIN_US,
 * slice_idle / BFQ_GATHER_SLICE_DIV].
 */
struct bfq_gather_case {
	const char *desc;
	unsigned int members;
	unsigned int active;	/* of them, with I/O just now */
	unsigned int in_driver;
	int bios;
	u64 think_us;
	u64 slice_us;
	u64 done_ago_us;	/* U64_MAX: never completed */
	bool hold;
};

static const struct bfq_gather_case bfq_gather_cases[] = {
	{ "own queue", 1, 1, 0, 0, 300, 8000, 100, false },
	{ "pieces missing", 4, 4, 0, 1, 300, 8000, 100, true },
	{ "all pieces in", 4, 4, 0, 4, 300, 8000, 100, false },
	{ "more bios than members", 2, 2, 0, 5, 300, 8000, 100, false },
	{ "a piece in the device", 4, 4, 1, 1, 300, 8000, 100, false },
	{ "2 x think time over", 4, 4, 0, 3, 300, 8000, 601, false },
	{ "just within 2 x think", 4, 4, 0, 3, 300, 8000, 599, true },
	{ "short thinker: 50 us floor", 4, 4, 0, 0, 5, 8000, 49, true },
	{ "short thinker: floor over", 4, 4, 0, 0, 5, 8000, 51, false },
	{ "slow thinker: slice_idle / 4", 4, 4, 0, 1, 5000, 8000, 1999, true },
	{ "slow thinker: cap over", 4, 4, 0, 1, 5000, 8000, 2001, false },
	{ "cap below the floor", 4, 4, 0, 1, 5, 100, 24, true },
	{ "cap below the floor, over", 4, 4, 0, 1, 5, 100, 26, false },
	{ "slice_idle 0: off", 4, 4, 0, 1, 300, 0, 1, false },
	{ "no completion yet", 4, 4, 0, 1, 300, 8000, U64_MAX, false },
	{ "2 of 4 active: both in", 4, 2, 0, 2, 300, 8000, 100, false },
	{ "2 of 4 active: 1 in", 4, 2, 0, 1, 300, 8000, 100, true },
	{ "none active: nothing to wait for", 4, 0, 0, 1, 300, 8000, 100,
	  false },
};

BFQ_KUNIT_TABLE(bfq_gather, bfq_gather_cases, bfq_gather_case);

static void bfq_merge_gather_table(struct kunit *test)
{
	const struct bfq_gather_case *c = test->param_value;
	struct bfq_data *bfqd = bfq_test_bfqd(test);
	struct bfq_queue *bfqq = bfq_test_queue(test, bfqd, 300);
	u64 now_ns = 10ULL * NSEC_PER_SEC;
	unsigned int i;
	u64 until;

	bfqd->tun.slice_idle_ns = c->slice_us * NSEC_PER_USEC;
	for (i = 0; i < c->members; i++) {
		struct bfq_io_cq *bic = bfq_mt_bic(test, bfqd, bfqq);

		bic->arrival = jiffies - (i < c->active ? 0 :
			msecs_to_jiffies(BFQ_MERGE_RECENT_MS + 1000));
	}
	bfqq->nr_in_driver = c->in_driver;
	bfqq->merge.bios_queued = c->bios;
	bfqq->think_ns = c->think_us * NSEC_PER_USEC;
	bfqq->last_done_ns = c->done_ago_us == U64_MAX ? 0 :
			     now_ns - c->done_ago_us * NSEC_PER_USEC;
	until = bfq_merge_gather_until(bfqd, bfqq, now_ns);
	KUNIT_EXPECT_EQ(test, until != 0, c->hold);
	if (until) {
		KUNIT_EXPECT_GT(test, until, now_ns);
		KUNIT_EXPECT_FALSE(test, bfq_merge_gathered(bfqq));
		/* The last piece in: the kick's test says so. */
		bfqq->merge.bios_queued = bfqq->merge.gather_target;
		KUNIT_EXPECT_TRUE(test, bfq_merge_gathered(bfqq));
	}
}

/* Gathering's count: the bios of the queued requests, 0 once empty. */
static void bfq_merge_bio_count(struct kunit *test)
{
	struct bfq_data *bfqd = bfq_test_bfqd(test);
	struct bfq_queue *bfqq = bfq_test_queue(test, bfqd, 301);
	struct request *rq = kunit_kzalloc(test, sizeof(*rq), GFP_KERNEL);
	struct bio *bio = kunit_kcalloc(test, 3, sizeof(*bio), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rq);
	KUNIT_ASSERT_NOT_NULL(test, bio);
	bio[0].bi_next = &bio[1];
	bio[1].bi_next = &bio[2];
	rq->bio = &bio[0];
	rq->biotail = &bio[2];
	bfqq->merge.nr_members = 2;
	bfqq->nr_queued = 1;
	bfq_merge_count_bios(bfqq, rq, 1);
	KUNIT_EXPECT_EQ(test, bfqq->merge.bios_queued, 3);
	bfqq->nr_queued = 2;
	bfq_merge_count_bios(bfqq, rq, 1);
	KUNIT_EXPECT_EQ(test, bfqq->merge.bios_queued, 6);
	bfqq->nr_queued = 1;
	bfq_merge_count_bios(bfqq, rq, -1);
	KUNIT_EXPECT_EQ(test, bfqq->merge.bios_queued, 3);
	/* Uncounted bios never drive it below 0... */
	bfqq->merge.bios_queued = 1;
	bfq_merge_count_bios(bfqq, rq, -1);
	KUNIT_EXPECT_EQ(test, bfqq->merge.bios_queued, 0);
	/* ...and an empty queue counts none. */
	bfqq->merge.bios_queued = 7;
	bfqq->nr_queued = 0;
	bfq_merge_count_bios(bfqq, rq, -1);
	KUNIT_EXPECT_EQ(test, bfqq->merge.bios_queued, 0);
	/* A process's own queue counts nothing. */
	bfqq->merge.nr_members = 1;
	bfqq->nr_queued = 1;
	bfq_merge_count_bios(bfqq, rq, 1);
	KUNIT_EXPECT_EQ(test, bfqq->merge.bios_queued, 0);
}

/* Laggards first: the lowest piece behind the head, within the region. */
struct bfq_laggard_case {
	const char *desc;
	unsigned int members;
	sector_t next_pos;
	sector_t pos[3];	/* queued requests; 0 ends the list */
	int want;		/* index in pos[], -1: none */
};

static const struct bfq_laggard_case bfq_laggard_cases[] = {
	{ "own queue", 1, 1000, { 900, 1008 }, -1 },
	{ "laggard behind", 4, 1000, { 968, 1008, 1016 }, 0 },
	{ "lowest of two behind", 4, 1000, { 1008, 960, 992 }, 1 },
	{ "all ahead", 4, 1000, { 1008, 1040 }, -1 },
	{ "at the head is not behind", 4, 1000, { 1000, 1040 }, -1 },
	{ "too far behind", 4, 100000, { 100000 - 8193, 100008 }, -1 },
	{ "one too far, one within", 4, 100000,
	  { 100000 - 9000, 100000 - 100, 100008 }, 1 },
	{ "just within the region", 4, 100000, { 100000 - 8192, 100008 }, 0 },
};

BFQ_KUNIT_TABLE(bfq_laggard, bfq_laggard_cases, bfq_laggard_case);

static void bfq_merge_laggard_table(struct kunit *test)
{
	const struct bfq_laggard_case *c = test->param_value;
	struct bfq_data *bfqd = bfq_test_bfqd(test);
	struct bfq_queue *bfqq = bfq_test_queue(test, bfqd, 302);
	struct request *rq[3] = { };
	unsigned int i;

	bfqq->merge.nr_members = c->members;
	bfqq->next_pos = c->next_pos;
	bfqq->sort_list = RB_ROOT;
	for (i = 0; i < ARRAY_SIZE(c->pos) && c->pos[i]; i++) {
		rq[i] = kunit_kzalloc(test, sizeof(*rq[i]), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, rq[i]);
		rq[i]->__sector = c->pos[i];
		rq[i]->__data_len = 8 << SECTOR_SHIFT;
		elv_rb_add(&bfqq->sort_list, rq[i]);
	}
	KUNIT_EXPECT_PTR_EQ(test, bfq_merge_laggard(bfqq),
			    c->want < 0 ? NULL : rq[c->want]);
}

/*
 * A lone reader's arrivals (bfq_merge_observe_alone()): its key follows
 * its requests in place and nothing is proposed. A second reader landing
 * where it ended then counts its hits as ever, and is proposed the first
 * at its BFQ_MERGE_HITS-th arrival.
 */
static void bfq_merge_observe_lone(struct kunit *test)
{
	struct bfq_data *bfqd = bfq_test_bfqd(test);
	struct bfq_queue *a = bfq_mt_queue(test, bfqd, 500);
	struct bfq_queue *b = bfq_mt_queue(test, bfqd, 501);
	unsigned long now = jiffies;
	struct bfq_queue *cand;
	sector_t pos = 0;
	unsigned int i;

	for (i = 0; i < 8; i++, pos += 8) {
		a->merge.close_hits = 1;
		cand = BFQ_MT_LOCKED(bfqd, bfq_merge_observe(bfqd, a, pos, 8,
							     now));
		KUNIT_EXPECT_NULL(test, cand);
		KUNIT_EXPECT_EQ(test, a->merge.pos, pos + 8);
		KUNIT_EXPECT_EQ(test, a->merge.close_hits, 0U);
		KUNIT_EXPECT_EQ(test, a->merge.last_arrival, now);
		KUNIT_EXPECT_PTR_EQ(test, bfqd->merge.pos_tree.rb_node,
				    &a->merge.pos_node);
	}
	for (i = 1; i <= BFQ_MERGE_HITS; i++, pos += 8) {
		cand = BFQ_MT_LOCKED(bfqd, bfq_merge_observe(bfqd, b, pos, 8,
							     now));
		KUNIT_EXPECT_PTR_EQ(test, cand, i < BFQ_MERGE_HITS ? NULL : a);
		KUNIT_EXPECT_EQ(test, b->merge.close_hits, i);
	}
	bfq_merge_pos_erase(bfqd, a);
	bfq_merge_pos_erase(bfqd, b);
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_ROOT(&bfqd->merge.pos_tree));
}

/*
 * The position tree against a linear scan: queues rekeyed at random,
 * small keys so that many are equal, some moves small enough to keep
 * their place (bfq_merge_pos_update()'s in-place path), the rest anywhere.
 * After each, the tree is in key order and holds every queue, and the
 * nearest queue to a random position is at the distance the scan finds.
 */
static void bfq_merge_pos_tree_vs_scan(struct kunit *test)
{
	struct bfq_data *bfqd = bfq_test_bfqd(test);
	struct bfq_queue *q[8];
	struct rnd_state rnd;
	unsigned int i, step;

	prandom_seed_state(&rnd, 7);
	for (i = 0; i < ARRAY_SIZE(q); i++) {
		q[i] = bfq_mt_queue(test, bfqd, 400 + i);
		bfq_merge_pos_update(bfqd, q[i], prandom_u32_state(&rnd) % 64);
	}
	for (step = 0; step < BFQ_MT_STEPS; step++) {
		struct bfq_queue *self = q[prandom_u32_state(&rnd) %
					   ARRAY_SIZE(q)];
		u32 r = prandom_u32_state(&rnd);
		sector_t pos = r % 64, at = (r >> 8) % 64;
		sector_t best = ~(sector_t)0, last = 0;
		struct bfq_queue *near;
		struct rb_node *node;
		unsigned int n = 0;

		if (r & BIT(20))
			pos = self->merge.pos + ((r >> 21) % 3) - 1;
		bfq_merge_pos_update(bfqd, self, pos);
		KUNIT_EXPECT_EQ(test, self->merge.pos, pos);
		for (node = rb_first(&bfqd->merge.pos_tree); node;
		     node = rb_next(node), n++) {
			sector_t key = rb_entry(node, struct bfq_queue,
						merge.pos_node)->merge.pos;

			KUNIT_EXPECT_LE_MSG(test, last, key, "step %u", step);
			last = key;
		}
		KUNIT_EXPECT_EQ(test, n, (unsigned int)ARRAY_SIZE(q));
		for (i = 0; i < ARRAY_SIZE(q); i++)
			if (q[i] != self)
				best = min(best, bfq_merge_pos_dist(at,
								    q[i]->merge.pos));
		near = bfq_merge_pos_nearest(bfqd, self, at);
		KUNIT_ASSERT_NOT_NULL(test, near);
		KUNIT_EXPECT_PTR_NE(test, near, self);
		KUNIT_EXPECT_EQ_MSG(test, bfq_merge_pos_dist(at, near->merge.pos),
				    best, "step %u", step);
	}
	for (i = 0; i < ARRAY_SIZE(q); i++)
		bfq_merge_pos_erase(bfqd, q[i]);
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_ROOT(&bfqd->merge.pos_tree));
}

static struct kunit_case bfq_merge_cases[] = {
	KUNIT_CASE(bfq_merge_pos_tree_vs_scan),
	KUNIT_CASE(bfq_merge_observe_lone),
	KUNIT_CASE_PARAM(bfq_merge_gather_table, bfq_gather_gen_params),
	KUNIT_CASE(bfq_merge_bio_count),
	KUNIT_CASE_PARAM(bfq_merge_laggard_table, bfq_laggard_gen_params),
	KUNIT_CASE_PARAM(bfq_merge_detect_table, bfq_detect_gen_params),
	KUNIT_CASE(bfq_merge_chains),
	KUNIT_CASE(bfq_merge_split_restores),
	KUNIT_CASE(bfq_merge_move_keeps),
	KUNIT_CASE(bfq_merge_stable_pair),
	{}
};

static struct kunit_suite bfq_merge_suite = {
	.name = "bfq_merge",
	.test_cases = bfq_merge_cases,
};

kunit_test_suite(bfq_merge_suite);
