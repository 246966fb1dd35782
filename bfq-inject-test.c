// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of injection and wakers (bfq-inject.c), #included at its
 * end: the injection limit's feedback on synthetic probe waits, the retry
 * of a limit of 0, the waker state machine on synthetic wake-up sequences,
 * and the queue glue on a bfq_data without a device: a waker found from
 * completions and arrivals, and the lifetime rule; the sweep's order
 * (rule 6) among queues with requests queued.
 */
#include "bfq-test.h"

#define IMS(x)	((u64)(x) * NSEC_PER_MSEC)
#define IUS(x)	((u64)(x) * NSEC_PER_USEC)

/* ---- the injection limit ------------------------------------------- */

#define BFQ_INJECT_STEPS_MAX	12

/*
 * Probes 10 ms apart: each waited wait_us, with injected requests ahead
 * of it if injected; the limit expected after each.
 */
struct bfq_inject_case {
	const char *desc;
	unsigned int nr;
	unsigned int start_limit;
	u64 wait_us[BFQ_INJECT_STEPS_MAX];
	bool injected[BFQ_INJECT_STEPS_MAX];
	unsigned int limit[BFQ_INJECT_STEPS_MAX];
};

static const struct bfq_inject_case bfq_inject_cases[] = {
	/* A device that serves in parallel: waits do not grow, limit does. */
	{ "parallel device: limit grows", 6, 1,
	  { 200, 200, 210, 190, 205, 200 },
	  { false, true, true, true, true, true },
	  { 1, 2, 3, 4, 5, 6 } },
	/* One at a time: an injected request ahead doubles the wait. */
	{ "serial device: limit falls to 0", 4, 2,
	  { 200, 400, 200, 400 },
	  { false, true, false, true },
	  { 2, 1, 1, 0 } },
	/* 25% more is within the tolerance, 26% is not. */
	{ "tolerance edge", 3, 3,
	  { 1000, 1250, 1260 },
	  { false, true, true },
	  { 3, 4, 3 } },
	/* Without a base, an injected wait proves nothing. */
	{ "no base yet: no change", 2, 1,
	  { 5000, 200 },
	  { true, true },
	  { 1, 1 } },
	/* The base is an average: one fast sample does not tighten it. */
	{ "base averages", 4, 1,
	  { 800, 400, 400, 800 },
	  { false, false, false, true },
	  { 1, 1, 1, 2 } },
	/* The limit stops at its maximum. */
	{ "capped", 3, BFQ_INJECT_MAX,
	  { 100, 100, 100 },
	  { false, true, true },
	  { BFQ_INJECT_MAX, BFQ_INJECT_MAX, BFQ_INJECT_MAX } },
};

BFQ_KUNIT_TABLE(bfq_inject, bfq_inject_cases, bfq_inject_case);

static void bfq_inject_feedback_table(struct kunit *test)
{
	const struct bfq_inject_case *c = test->param_value;
	struct bfq_inject_learn l = { .limit = c->start_limit };
	unsigned int i;

	for (i = 0; i < c->nr; i++) {
		bfq_inject_feedback(&l, IUS(c->wait_us[i]), c->injected[i],
				    IMS(1000 + 10 * i));
		KUNIT_EXPECT_EQ_MSG(test, l.limit, c->limit[i], "probe %u", i);
		KUNIT_EXPECT_LE(test, l.limit, (unsigned int)BFQ_INJECT_MAX);
	}
}

/* A limit of 0 is tried again as 1 after BFQ_INJECT_REPROBE_MS, not before. */
static void bfq_inject_limit_reprobe(struct kunit *test)
{
	struct bfq_inject_learn l = { .limit = 1 };
	u64 t = IMS(5000);

	bfq_inject_feedback(&l, IUS(100), false, t);
	bfq_inject_feedback(&l, IUS(300), true, t);
	KUNIT_EXPECT_EQ(test, l.limit, 0U);
	t += IMS(BFQ_INJECT_REPROBE_MS);
	KUNIT_EXPECT_EQ(test, bfq_inject_limit(&l, t - 1), 0U);
	KUNIT_EXPECT_EQ(test, bfq_inject_limit(&l, t), 1U);
	t -= IMS(BFQ_INJECT_REPROBE_MS);
	/* A stale base is replaced, not averaged. */
	bfq_inject_feedback(&l, IUS(900), false,
			    t + IMS(BFQ_INJECT_BASE_STALE_MS));
	KUNIT_EXPECT_EQ(test, l.base_ns, IUS(900));
}

/*
 * Nothing is injected without a base to judge a probe by, nor with a stale
 * one: probes with injected requests ahead never make one.
 */
static void bfq_inject_limit_needs_base(struct kunit *test)
{
	struct bfq_inject_learn l = { .limit = 1 };
	u64 t = IMS(5000), stale = IMS(BFQ_INJECT_BASE_STALE_MS);

	KUNIT_EXPECT_EQ(test, bfq_inject_limit(&l, t), 0U);
	bfq_inject_feedback(&l, IUS(300), true, t);
	KUNIT_EXPECT_EQ(test, bfq_inject_limit(&l, t), 0U);
	bfq_inject_feedback(&l, IUS(100), false, t);
	KUNIT_EXPECT_EQ(test, bfq_inject_limit(&l, t), 1U);
	KUNIT_EXPECT_EQ(test, bfq_inject_limit(&l, t + stale - 1), 1U);
	KUNIT_EXPECT_EQ(test, bfq_inject_limit(&l, t + stale), 0U);
	/* An injected probe does not refresh it; one alone does. */
	bfq_inject_feedback(&l, IUS(110), true, t + stale);
	KUNIT_EXPECT_EQ(test, bfq_inject_limit(&l, t + stale), 0U);
	bfq_inject_feedback(&l, IUS(120), false, t + stale);
	KUNIT_EXPECT_EQ(test, bfq_inject_limit(&l, t + stale), 2U);
}

/*
 * A retried limit that falls to 0 again is retried after twice as long, up
 * to 2^BFQ_INJECT_REPROBE_MAX_SHIFT times; a rise starts over.
 */
static void bfq_inject_limit_reprobe_backoff(struct kunit *test)
{
	struct bfq_inject_learn l = { .limit = 1 };
	u64 t = IMS(5000), wait = IMS(BFQ_INJECT_REPROBE_MS);
	unsigned int i;

	bfq_inject_feedback(&l, IUS(100), false, t);
	for (i = 0; i <= BFQ_INJECT_REPROBE_MAX_SHIFT + 1; i++) {
		u64 w = wait << min_t(unsigned int, i,
				      BFQ_INJECT_REPROBE_MAX_SHIFT);

		bfq_inject_feedback(&l, IUS(300), true, t);
		KUNIT_EXPECT_EQ_MSG(test, l.limit, 0U, "fall %u", i);
		/* The base kept fresh by probes with nothing injected. */
		bfq_inject_feedback(&l, IUS(100), false, t + w - 1);
		KUNIT_EXPECT_EQ_MSG(test, bfq_inject_limit(&l, t + w - 1), 0U,
				    "fall %u", i);
		KUNIT_EXPECT_EQ_MSG(test, bfq_inject_limit(&l, t + w), 1U,
				    "fall %u", i);
		t += w;
	}
	/* Within the tolerance: a rise, and the next fall waits 1 s again. */
	bfq_inject_feedback(&l, IUS(110), true, t);
	KUNIT_EXPECT_EQ(test, l.limit, 2U);
	bfq_inject_feedback(&l, IUS(300), true, t);
	bfq_inject_feedback(&l, IUS(300), true, t);
	KUNIT_EXPECT_EQ(test, l.limit, 0U);
	bfq_inject_feedback(&l, IUS(100), false, t + wait - 1);
	KUNIT_EXPECT_EQ(test, bfq_inject_limit(&l, t + wait), 1U);
}

/* ---- wakers -------------------------------------------------------- */

#define BFQ_WAKER_STEPS_MAX	12

/* Wake-ups after completions of the queues of the given serials. */
struct bfq_waker_case {
	const char *desc;
	unsigned int nr;
	u64 cand[BFQ_WAKER_STEPS_MAX];
	enum bfq_waker_step step[BFQ_WAKER_STEPS_MAX];
	u64 waker;			/* expected at the end */
};

#define WS_	BFQ_WAKER_SAME
#define WF_	BFQ_WAKER_FOUND
#define WL_	BFQ_WAKER_LOST

static const struct bfq_waker_case bfq_waker_cases[] = {
	{ "three in a row", 3, { 7, 7, 7 }, { WS_, WS_, WF_ }, 7 },
	{ "interrupted", 5, { 7, 7, 9, 7, 7 }, { WS_, WS_, WS_, WS_, WS_ }, 0 },
	{ "a wake-up with no completion before resets", 4, { 7, 7, 0, 7 },
	  { WS_, WS_, WS_, WS_ }, 0 },
	{ "round robin of three never is", 9, { 1, 2, 3, 1, 2, 3, 1, 2, 3 },
	  { WS_, WS_, WS_, WS_, WS_, WS_, WS_, WS_, WS_ }, 0 },
	{ "kept through two misses", 7, { 7, 7, 7, 9, 0, 7, 7 },
	  { WS_, WS_, WF_, WS_, WS_, WS_, WS_ }, 7 },
	{ "lost after three misses, then a new one", 9,
	  { 7, 7, 7, 9, 9, 9, 9, 9, 9 },
	  { WS_, WS_, WF_, WS_, WS_, WL_, WS_, WF_, WS_ }, 9 },
};

BFQ_KUNIT_TABLE(bfq_waker, bfq_waker_cases, bfq_waker_case);

static void bfq_inject_waker_observe_table(struct kunit *test)
{
	const struct bfq_waker_case *c = test->param_value;
	struct bfq_waker_track t = {};
	u64 waker = 0;
	unsigned int i;

	for (i = 0; i < c->nr; i++) {
		enum bfq_waker_step step = bfq_inject_waker_observe(&t, c->cand[i],
							     waker);

		KUNIT_EXPECT_EQ_MSG(test, step, c->step[i], "wake-up %u", i);
		if (step == BFQ_WAKER_FOUND)
			waker = c->cand[i];
		else if (step == BFQ_WAKER_LOST)
			waker = 0;
	}
	KUNIT_EXPECT_EQ(test, waker, c->waker);
}

/* A completion that may or may not have woken a queue (times in us). */
struct bfq_could_wake_case {
	const char *desc;
	u64 now, done, sent, own_done;
	bool woke;
};

static const struct bfq_could_wake_case bfq_could_wake_cases[] = {
	{ "sent after its own completion: a journal commit",
	  1300, 1250, 1050, 1000, true },
	{ "in the device before its own completion: a neighbour",
	  1060, 1030, 830, 1000, false },
	{ "sent at the same time as its own completion",
	  1300, 1250, 1000, 1000, false },
	{ "never completed a request of its own", 1300, 1250, 1050, 0, true },
	{ "just within the window", 1000 + BFQ_WAKER_WINDOW_US, 1000, 900,
	  800, true },
	{ "too long after the completion", 1001 + BFQ_WAKER_WINDOW_US, 1000,
	  900, 800, false },
	{ "a completion stamped after the arrival", 1000, 1001, 900, 800,
	  false },
};

BFQ_KUNIT_TABLE(bfq_could_wake, bfq_could_wake_cases, bfq_could_wake_case);

static void bfq_inject_waker_could_wake_table(struct kunit *test)
{
	const struct bfq_could_wake_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, bfq_inject_waker_could_wake(IUS(c->now), IUS(c->done),
							  IUS(c->sent),
							  IUS(c->own_done)),
			c->woke);
}

/* ---- queue glue ---------------------------------------------------- */

#define BFQ_INJECT_TEST_QUEUES	3

struct bfq_inject_test_dev {
	struct bfq_data *bfqd;
	struct bfq_queue *q[BFQ_INJECT_TEST_QUEUES];
	struct request *rq;
};

static void bfq_inject_test_dev_init(struct kunit *test,
				     struct bfq_inject_test_dev *d)
{
	int i;

	d->bfqd = bfq_test_bfqd(test);
	d->rq = kunit_kzalloc(test, sizeof(*d->rq), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d->rq);
	for (i = 0; i < BFQ_INJECT_TEST_QUEUES; i++)
		d->q[i] = bfq_test_queue(test, d->bfqd, 100 + i);
}

/*
 * q[0] completes, q[1] wakes 100 us later, three times: q[0] is q[1]'s
 * waker. A wake-up too long after the completion does not count. Freeing
 * the waker clears the relation and its runs of completions; freeing a
 * wakee unlinks it.
 */
static void bfq_inject_waker_lifecycle(struct kunit *test)
{
	struct bfq_inject_test_dev d;
	u64 t = IMS(1000);
	int i;

	bfq_inject_test_dev_init(test, &d);
	spin_lock_irq(&d.bfqd->lock);
	for (i = 0; i < BFQ_WAKER_HITS; i++, t += IMS(20)) {
		KUNIT_EXPECT_NULL(test, d.q[1]->inj.waker);
		bfq_inject_completed(d.bfqd, d.q[0], d.rq, false, t);
		bfq_inject_woken(d.bfqd, d.q[1], d.rq, t + IUS(100));
	}
	KUNIT_EXPECT_PTR_EQ(test, d.q[1]->inj.waker, d.q[0]);
	KUNIT_EXPECT_TRUE(test, list_is_singular(&d.q[0]->inj.wakees));

	/* q[2] woken long after q[0]'s completions: no waker. */
	for (i = 0; i < BFQ_WAKER_HITS; i++, t += IMS(20)) {
		bfq_inject_completed(d.bfqd, d.q[0], d.rq, false, t);
		bfq_inject_woken(d.bfqd, d.q[2], d.rq,
				 t + IUS(BFQ_WAKER_WINDOW_US) + 1);
	}
	KUNIT_EXPECT_NULL(test, d.q[2]->inj.waker);

	bfq_inject_queue_exit(d.bfqd, d.q[0]);
	KUNIT_EXPECT_NULL(test, d.q[1]->inj.waker);
	KUNIT_EXPECT_TRUE(test, list_empty(&d.q[0]->inj.wakees));
	KUNIT_EXPECT_TRUE(test, list_empty(&d.q[1]->inj.waker_node));
	for (i = 0; i < BFQ_WAKER_RUNS; i++)
		KUNIT_EXPECT_PTR_NE(test, d.bfqd->inj.done[i].bfqq, d.q[0]);

	/* Now q[1] wakes q[2]; freeing the wakee empties q[1]'s list. */
	for (i = 0; i < BFQ_WAKER_HITS; i++, t += IMS(20)) {
		bfq_inject_completed(d.bfqd, d.q[1], d.rq, false, t);
		bfq_inject_woken(d.bfqd, d.q[2], d.rq, t + IUS(50));
	}
	KUNIT_EXPECT_PTR_EQ(test, d.q[2]->inj.waker, d.q[1]);
	bfq_inject_queue_exit(d.bfqd, d.q[2]);
	KUNIT_EXPECT_TRUE(test, list_empty(&d.q[1]->inj.wakees));
	bfq_inject_queue_exit(d.bfqd, d.q[1]);
	spin_unlock_irq(&d.bfqd->lock);
}

/*
 * A queue's own completions do not make it its own waker; low_latency=0
 * does not stop detection (wakers are a throughput mechanism).
 */
static void bfq_inject_waker_not_self_any_ll(struct kunit *test)
{
	struct bfq_inject_test_dev d;
	u64 t = IMS(1000);
	int i;

	bfq_inject_test_dev_init(test, &d);
	spin_lock_irq(&d.bfqd->lock);
	for (i = 0; i < 2 * BFQ_WAKER_HITS; i++, t += IMS(20)) {
		bfq_inject_completed(d.bfqd, d.q[0], d.rq, false, t);
		bfq_inject_woken(d.bfqd, d.q[0], d.rq, t + IUS(10));
	}
	KUNIT_EXPECT_NULL(test, d.q[0]->inj.waker);
	d.bfqd->tun.low_latency = 0;
	for (i = 0; i < 2 * BFQ_WAKER_HITS; i++, t += IMS(20)) {
		bfq_inject_completed(d.bfqd, d.q[0], d.rq, false, t);
		bfq_inject_woken(d.bfqd, d.q[1], d.rq, t + IUS(10));
	}
	KUNIT_EXPECT_PTR_EQ(test, d.q[1]->inj.waker, d.q[0]);
	for (i = 0; i < BFQ_INJECT_TEST_QUEUES; i++)
		bfq_inject_queue_exit(d.bfqd, d.q[i]);
	spin_unlock_irq(&d.bfqd->lock);
}

/*
 * Two readers on a deep device, each with one read in it: q[1]'s read
 * completes, q[0]'s (dispatched before that) completes 30 us later, q[1]
 * reads again 60 us after its own completion. However often, q[0] did not
 * wake q[1]. Once q[0] dispatches after q[1]'s completion (q[1] waits for
 * it, as for a journal commit), three such wake-ups make it the waker.
 */
static void bfq_inject_waker_not_neighbour(struct kunit *test)
{
	struct bfq_inject_test_dev d;
	u64 t = IMS(1000);
	int i;

	bfq_inject_test_dev_init(test, &d);
	spin_lock_irq(&d.bfqd->lock);
	for (i = 0; i < 3 * BFQ_WAKER_HITS; i++, t += IUS(230)) {
		d.q[1]->last_done_ns = t;
		bfq_inject_completed(d.bfqd, d.q[1], d.rq, false, t);
		d.q[0]->inj.sent_ns = t - IUS(170);
		bfq_inject_completed(d.bfqd, d.q[0], d.rq, false, t + IUS(30));
		bfq_inject_woken(d.bfqd, d.q[1], d.rq, t + IUS(60));
	}
	KUNIT_EXPECT_NULL(test, d.q[1]->inj.waker);
	for (i = 0; i < BFQ_WAKER_HITS; i++, t += IMS(5)) {
		d.q[1]->last_done_ns = t;
		bfq_inject_completed(d.bfqd, d.q[1], d.rq, false, t);
		d.q[0]->inj.sent_ns = t + IUS(20);
		bfq_inject_completed(d.bfqd, d.q[0], d.rq, false, t + IUS(220));
		bfq_inject_woken(d.bfqd, d.q[1], d.rq, t + IUS(260));
	}
	KUNIT_EXPECT_PTR_EQ(test, d.q[1]->inj.waker, d.q[0]);
	for (i = 0; i < BFQ_INJECT_TEST_QUEUES; i++)
		bfq_inject_queue_exit(d.bfqd, d.q[i]);
	spin_unlock_irq(&d.bfqd->lock);
}

/*
 * An fsync loop beside a sequential reader: q[0] (the journal) completes
 * its commit, q[1] (the writer) asks for its next write. The reader q[2]
 * completes in between, its next read waiting: the journal, idle since,
 * is the waker. Then the writer asks before the reader's completion and
 * finds its tag only after two of them: the ask's time names the journal.
 * Without the journal's commits, the reader it is.
 */
static void bfq_inject_waker_idle_before_ask(struct kunit *test)
{
	struct bfq_inject_test_dev d;
	u64 t = IMS(1000);
	int i;

	bfq_inject_test_dev_init(test, &d);
	spin_lock_irq(&d.bfqd->lock);
	d.q[2]->nr_queued = 1;
	for (i = 0; i < BFQ_WAKER_HITS; i++, t += IMS(20)) {
		d.q[1]->last_done_ns = t - IMS(3);
		d.q[0]->inj.sent_ns = t - IMS(1);
		bfq_inject_completed(d.bfqd, d.q[0], d.rq, false, t);
		d.q[2]->inj.sent_ns = t - IUS(700);
		bfq_inject_completed(d.bfqd, d.q[2], d.rq, false, t + IUS(300));
		bfq_inject_woken(d.bfqd, d.q[1], d.rq, t + IUS(400));
	}
	KUNIT_EXPECT_PTR_EQ(test, d.q[1]->inj.waker, d.q[0]);

	bfq_inject_queue_exit(d.bfqd, d.q[1]);
	d.q[2]->nr_queued = 0;
	for (i = 0; i < BFQ_WAKER_HITS; i++, t += IMS(20)) {
		d.q[1]->last_done_ns = t - IMS(3);
		d.q[0]->inj.sent_ns = t - IMS(1);
		bfq_inject_completed(d.bfqd, d.q[0], d.rq, false, t);
		d.q[2]->inj.sent_ns = t;
		bfq_inject_completed(d.bfqd, d.q[2], d.rq, false, t + IMS(1));
		bfq_inject_completed(d.bfqd, d.q[2], d.rq, false, t + IMS(2));
		bfq_inject_woken(d.bfqd, d.q[1], d.rq, t + IUS(100));
	}
	KUNIT_EXPECT_PTR_EQ(test, d.q[1]->inj.waker, d.q[0]);

	bfq_inject_queue_exit(d.bfqd, d.q[1]);
	for (i = 0; i < BFQ_WAKER_HITS; i++, t += IMS(20)) {
		d.q[1]->last_done_ns = t - IMS(3);
		d.q[2]->inj.sent_ns = t - IUS(700);
		bfq_inject_completed(d.bfqd, d.q[2], d.rq, false, t + IUS(300));
		bfq_inject_woken(d.bfqd, d.q[1], d.rq, t + IUS(400));
	}
	KUNIT_EXPECT_PTR_EQ(test, d.q[1]->inj.waker, d.q[2]);
	for (i = 0; i < BFQ_INJECT_TEST_QUEUES; i++)
		bfq_inject_queue_exit(d.bfqd, d.q[i]);
	spin_unlock_irq(&d.bfqd->lock);
}

/*
 * The probe: the in-service queue's idled-for request, timed from its
 * dispatch to its completion, feeds the limit; a freed probe is
 * forgotten; injected sectors become a debt paid once.
 */
static void bfq_inject_probe_and_debt(struct kunit *test)
{
	struct bfq_inject_test_dev d;
	struct bfq_data *bfqd;
	struct request *rq2;
	u64 t = IMS(1000);

	bfq_inject_test_dev_init(test, &d);
	bfqd = d.bfqd;
	rq2 = kunit_kzalloc(test, sizeof(*rq2), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rq2);
	spin_lock_irq(&bfqd->lock);
	bfqd->in_service_bfqq = d.q[0];
	bfq_inject_woken(bfqd, d.q[0], d.rq, t);
	KUNIT_EXPECT_PTR_EQ(test, bfqd->inj.probe_rq, d.rq);
	/* Timed from its dispatch, not its arrival. */
	bfq_inject_probe_sent(bfqd, d.rq, t + IUS(50));
	bfq_inject_completed(bfqd, d.q[0], d.rq, false, t + IUS(250));
	KUNIT_EXPECT_NULL(test, bfqd->inj.probe_rq);
	KUNIT_EXPECT_EQ(test, bfqd->inj.learn.base_ns, IUS(200));

	/* One injected request ahead, the probe waits as long: limit up. */
	bfq_inject_dispatched(bfqd, d.q[1], d.q[0], 8);
	bfq_inject_woken(bfqd, d.q[0], d.rq, t + IMS(10));
	bfq_inject_probe_sent(bfqd, d.rq, t + IMS(10));
	KUNIT_EXPECT_TRUE(test, bfqd->inj.probe_injected);
	bfq_inject_completed(bfqd, d.q[1], NULL, true, t + IMS(10) + 50);
	bfq_inject_completed(bfqd, d.q[0], d.rq, false,
			     t + IMS(10) + IUS(210));
	KUNIT_EXPECT_EQ(test, bfqd->inj.learn.limit, 2U);
	KUNIT_EXPECT_EQ(test, bfqd->inj.in_driver, 0U);

	/*
	 * A request of another queue in the device, not injected (the last
	 * turn's), when the probe is dispatched: what the probe waits for it
	 * says nothing of injection, so it is no probe and the base stays.
	 */
	bfqd->rq_in_driver = 1;
	bfq_inject_woken(bfqd, d.q[0], d.rq, t + IMS(15));
	bfq_inject_probe_sent(bfqd, d.rq, t + IMS(15));
	KUNIT_EXPECT_NULL(test, bfqd->inj.probe_rq);
	bfq_inject_completed(bfqd, d.q[0], d.rq, false, t + IMS(45));
	KUNIT_EXPECT_EQ(test, bfqd->inj.learn.base_ns, IUS(200));
	bfqd->rq_in_driver = 0;

	/*
	 * A probe still queued (its turn ended first) gives way to the next
	 * request idled for; it is timed no more.
	 */
	bfq_inject_woken(bfqd, d.q[0], d.rq, t + IMS(50));
	bfq_inject_woken(bfqd, d.q[0], rq2, t + IMS(60));
	KUNIT_EXPECT_PTR_EQ(test, bfqd->inj.probe_rq, rq2);
	bfq_inject_probe_sent(bfqd, d.rq, t + IMS(70));
	bfq_inject_completed(bfqd, d.q[0], d.rq, false, t + IMS(90));
	KUNIT_EXPECT_EQ(test, bfqd->inj.learn.base_ns, IUS(200));
	/* One in the device stays the probe. */
	bfq_inject_probe_sent(bfqd, rq2, t + IMS(60));
	bfq_inject_woken(bfqd, d.q[0], d.rq, t + IMS(61));
	KUNIT_EXPECT_PTR_EQ(test, bfqd->inj.probe_rq, rq2);
	bfq_inject_forget_rq(bfqd, rq2);

	/* A probe freed without completing is forgotten. */
	bfq_inject_woken(bfqd, d.q[0], d.rq, t + IMS(20));
	bfq_inject_forget_rq(bfqd, d.rq);
	KUNIT_EXPECT_NULL(test, bfqd->inj.probe_rq);

	KUNIT_EXPECT_EQ(test, bfq_inject_take_debt(d.q[1], 4096), 8U);
	KUNIT_EXPECT_EQ(test, bfq_inject_take_debt(d.q[1], 4096), 0U);
	/* A debt larger than the turn's budget is paid over several turns. */
	bfq_inject_dispatched(bfqd, d.q[1], d.q[0], 24);
	KUNIT_EXPECT_EQ(test, bfq_inject_take_debt(d.q[1], 16), 16U);
	KUNIT_EXPECT_EQ(test, bfq_inject_take_debt(d.q[1], 16), 8U);
	KUNIT_EXPECT_EQ(test, bfq_inject_take_debt(d.q[1], 16), 0U);
	bfq_inject_completed(bfqd, d.q[1], NULL, true, t + IMS(30));
	bfqd->in_service_bfqq = NULL;
	spin_unlock_irq(&bfqd->lock);
}

/*
 * Rule 3's cap: however long a queue is injected, its debt stays within
 * BFQ_INJECT_DEBT_BUDGETS of its budgets (of its largest request when
 * that is larger), so paying it back takes a few turns, not thousands.
 */
static void bfq_inject_debt_capped(struct kunit *test)
{
	struct bfq_inject_test_dev d;
	struct bfq_data *bfqd;
	unsigned int small, large;
	int i;

	bfq_inject_test_dev_init(test, &d);
	bfqd = d.bfqd;
	/* Expectations after the unlock: a failed one allocates. */
	spin_lock_irq(&bfqd->lock);
	d.q[1]->entity.budget_sectors = 8;
	for (i = 0; i < 1000; i++)
		bfq_inject_dispatched(bfqd, d.q[1], d.q[0], 8);
	small = d.q[1]->inj.debt_sectors;
	/* Requests larger than the budget: the cap is theirs. */
	for (i = 0; i < 10; i++)
		bfq_inject_dispatched(bfqd, d.q[1], d.q[0], 256);
	large = d.q[1]->inj.debt_sectors;
	bfqd->inj.in_driver = 0;
	spin_unlock_irq(&bfqd->lock);
	KUNIT_EXPECT_EQ(test, small, BFQ_INJECT_DEBT_BUDGETS * 8U);
	KUNIT_EXPECT_EQ(test, large, BFQ_INJECT_DEBT_BUDGETS * 256U);
}

/* Rule 5: which range a sector lies in; none reported, all in range 0. */
static void bfq_inject_range_of_ends(struct kunit *test)
{
	struct bfq_ranges r = { .nr = 3, .end = { 100, 250, 1000 } };
	struct bfq_ranges none = { .nr = 0 };

	KUNIT_EXPECT_EQ(test, bfq_inject_range_of(&r, 0), 0U);
	KUNIT_EXPECT_EQ(test, bfq_inject_range_of(&r, 99), 0U);
	KUNIT_EXPECT_EQ(test, bfq_inject_range_of(&r, 100), 1U);
	KUNIT_EXPECT_EQ(test, bfq_inject_range_of(&r, 249), 1U);
	KUNIT_EXPECT_EQ(test, bfq_inject_range_of(&r, 250), 2U);
	KUNIT_EXPECT_EQ(test, bfq_inject_range_of(&r, 999), 2U);
	/* Past the end (a disk grown since): the last range. */
	KUNIT_EXPECT_EQ(test, bfq_inject_range_of(&r, 5000), 2U);
	KUNIT_EXPECT_EQ(test, bfq_inject_range_of(&none, 5000), 0U);
}

/* ---- the sweep (rule 6) --------------------------------------------- */

/* Rule 6: ahead of the head by distance, then the wrap, lowest first. */
static void bfq_inject_sweep_order(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, bfq_inject_sweep_key(1000, 1000), 0ULL);
	KUNIT_EXPECT_LT(test, bfq_inject_sweep_key(1000, 1008),
			bfq_inject_sweep_key(1000, 900000));
	/* The farthest ahead still comes before the nearest behind. */
	KUNIT_EXPECT_LT(test, bfq_inject_sweep_key(1000, (sector_t)1 << 40),
			bfq_inject_sweep_key(1000, 999));
	KUNIT_EXPECT_LT(test, bfq_inject_sweep_key(1000, 0),
			bfq_inject_sweep_key(1000, 999));
}

/* A 4 KiB read of @bfqq at @pos, queued by position. */
static struct request *bfq_inject_test_rq(struct kunit *test,
					  struct bfq_queue *bfqq, sector_t pos)
{
	struct request *rq = kunit_kzalloc(test, sizeof(*rq), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rq);
	rq->cmd_flags = REQ_OP_READ;
	rq->__sector = pos;
	rq->__data_len = 4096;
	rq->elv.priv[0] = bfqq;
	elv_rb_add(&bfqq->sort_list, rq);
	bfqq->nr_queued++;
	return rq;
}

/*
 * Rule 6: random readers alike on a disk are served in the order the head
 * reaches their requests; a queue that owes four budgets is passed over;
 * a queue unlike the others, a raised one, strict_guarantees or a device
 * where seeks cost nothing leave the order to the service layer.
 */
static void bfq_inject_sweep_by_position(struct kunit *test)
{
	struct bfq_inject_test_dev d;
	struct bfq_data *bfqd;
	struct request *cur_rq, *q1_behind, *q1_ahead, *q2_ahead, *pick;
	struct bfq_queue *owner;
	int i;

	bfq_inject_test_dev_init(test, &d);
	bfqd = d.bfqd;
	bfq_queue_mark_rot(bfqd->queue);
	for (i = 0; i < 3; i++) {
		d.q[i]->seek_history = ~0U;
		d.q[i]->entity.budget_sectors = 64;
		list_add_tail(&d.q[i]->all_node, &bfqd->all_bfqqs);
	}
	cur_rq = bfq_inject_test_rq(test, d.q[0], 5000);
	q1_behind = bfq_inject_test_rq(test, d.q[1], 900);
	q1_ahead = bfq_inject_test_rq(test, d.q[1], 3000);
	q2_ahead = bfq_inject_test_rq(test, d.q[2], 2000);

	spin_lock_irq(&bfqd->lock);
	bfqd->seek.last_end = 1000;
	pick = bfq_inject_sweep_pick(bfqd, d.q[0], cur_rq, 0, &owner);
	KUNIT_EXPECT_PTR_EQ(test, pick, q2_ahead);
	KUNIT_EXPECT_PTR_EQ(test, owner, d.q[2]);

	/* Past every request: the lowest one after the wrap. */
	bfqd->seek.last_end = 6000;
	pick = bfq_inject_sweep_pick(bfqd, d.q[0], cur_rq, 0, &owner);
	KUNIT_EXPECT_PTR_EQ(test, pick, q1_behind);

	/* The head just behind the queue in service's own request. */
	bfqd->seek.last_end = 4000;
	pick = bfq_inject_sweep_pick(bfqd, d.q[0], cur_rq, 0, &owner);
	KUNIT_EXPECT_PTR_EQ(test, pick, cur_rq);
	KUNIT_EXPECT_PTR_EQ(test, owner, d.q[0]);

	/* Paid: a swept request is owed; four budgets owed, passed over. */
	bfqd->seek.last_end = 1000;
	bfq_inject_swept(bfqd, d.q[2], 8);
	KUNIT_EXPECT_EQ(test, d.q[2]->inj.debt_sectors, 8U);
	d.q[2]->inj.debt_sectors = BFQ_INJECT_DEBT_BUDGETS * 64;
	pick = bfq_inject_sweep_pick(bfqd, d.q[0], cur_rq, 0, &owner);
	KUNIT_EXPECT_PTR_EQ(test, pick, q1_ahead);
	d.q[2]->inj.debt_sectors = 0;

	/* Unlike the others: a sequential queue with requests queued. */
	d.q[1]->seek_history = 0;
	pick = bfq_inject_sweep_pick(bfqd, d.q[0], cur_rq, 0, &owner);
	KUNIT_EXPECT_PTR_EQ(test, owner, d.q[0]);
	d.q[1]->seek_history = ~0U;
	/* Or heavier. */
	d.q[2]->entity.weight *= 2;
	pick = bfq_inject_sweep_pick(bfqd, d.q[0], cur_rq, 0, &owner);
	KUNIT_EXPECT_PTR_EQ(test, owner, d.q[0]);
	d.q[2]->entity.weight /= 2;

	bfqd->wr.nr_raised = 1;
	pick = bfq_inject_sweep_pick(bfqd, d.q[0], cur_rq, 0, &owner);
	KUNIT_EXPECT_PTR_EQ(test, owner, d.q[0]);
	bfqd->wr.nr_raised = 0;

	WRITE_ONCE(bfqd->tun.strict_guarantees, 1);
	pick = bfq_inject_sweep_pick(bfqd, d.q[0], cur_rq, 0, &owner);
	KUNIT_EXPECT_PTR_EQ(test, owner, d.q[0]);
	WRITE_ONCE(bfqd->tun.strict_guarantees, 0);

	/* Seeks shown to cost nothing: no reason to reorder. */
	bfqd->seek.known = 1;
	bfqd->seek.costly = 0;
	pick = bfq_inject_sweep_pick(bfqd, d.q[0], cur_rq, 0, &owner);
	KUNIT_EXPECT_PTR_EQ(test, owner, d.q[0]);
	bfqd->seek.costly = 1;
	pick = bfq_inject_sweep_pick(bfqd, d.q[0], cur_rq, 0, &owner);
	KUNIT_EXPECT_PTR_EQ(test, owner, d.q[2]);
	spin_unlock_irq(&bfqd->lock);
}

static struct kunit_case bfq_inject_test_cases[] = {
	KUNIT_CASE_PARAM(bfq_inject_feedback_table, bfq_inject_gen_params),
	KUNIT_CASE(bfq_inject_limit_reprobe),
	KUNIT_CASE(bfq_inject_limit_needs_base),
	KUNIT_CASE(bfq_inject_limit_reprobe_backoff),
	KUNIT_CASE_PARAM(bfq_inject_waker_observe_table, bfq_waker_gen_params),
	KUNIT_CASE(bfq_inject_waker_lifecycle),
	KUNIT_CASE(bfq_inject_waker_not_self_any_ll),
	KUNIT_CASE_PARAM(bfq_inject_waker_could_wake_table, bfq_could_wake_gen_params),
	KUNIT_CASE(bfq_inject_waker_not_neighbour),
	KUNIT_CASE(bfq_inject_waker_idle_before_ask),
	KUNIT_CASE(bfq_inject_probe_and_debt),
	KUNIT_CASE(bfq_inject_debt_capped),
	KUNIT_CASE(bfq_inject_range_of_ends),
	KUNIT_CASE(bfq_inject_sweep_order),
	KUNIT_CASE(bfq_inject_sweep_by_position),
	{}
};

static struct kunit_suite bfq_inject_suite = {
	.name = "bfq_inject",
	.test_cases = bfq_inject_test_cases,
};

kunit_test_suite(bfq_inject_suite);
