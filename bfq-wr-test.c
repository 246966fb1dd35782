// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the low-latency arithmetic and state machines
 * (bfq-wr.c), #included at its end: raising duration from the peak rate,
 * soft real-time next start and detection on synthetic arrival patterns,
 * the raising decision, greedy turns and the burst state machine; and the
 * queue glue on a bfq_data without a device: raising, burst lists and the
 * lifetime rule.
 */
#include "bfq-test.h"

#define MS(x)	((u64)(x) * NSEC_PER_MSEC)

/* ---- raising duration ---------------------------------------------- */

struct bfq_wr_duration_case {
	const char *desc;
	u64 peak_sectors_per_sec;
	u64 ms;				/* expected */
};

static const struct bfq_wr_duration_case bfq_wr_duration_cases[] = {
	{ "rate unknown", 0, BFQ_WR_UNKNOWN_RATE_MS },
	/* 100 MB/s disk: 512 MiB / 195312 sectors/s = 5.37 s. */
	{ "disk 100 MB/s", 195312, 5368 },
	/* 500 MB/s SATA SSD: 1.07 s. */
	{ "ssd 500 MB/s", 976562, 1073 },
	{ "exactly the floor", 1048576, BFQ_WR_MIN_DURATION_MS },
	{ "nvme 3 GB/s floored", 5859375, BFQ_WR_MIN_DURATION_MS },
	{ "slow device capped", 8000, BFQ_WR_MAX_DURATION_MS },
	{ "1 sector/s capped", 1, BFQ_WR_MAX_DURATION_MS },
	{ "huge rate floored", U64_MAX, BFQ_WR_MIN_DURATION_MS },
};

BFQ_KUNIT_TABLE(bfq_wr_duration, bfq_wr_duration_cases, bfq_wr_duration_case);

static void bfq_wr_duration_ns_table(struct kunit *test)
{
	const struct bfq_wr_duration_case *c = test->param_value;
	u64 ns = bfq_wr_duration_ns(c->peak_sectors_per_sec);

	KUNIT_EXPECT_EQ(test, ns, MS(c->ms));
	KUNIT_EXPECT_GE(test, ns, MS(BFQ_WR_MIN_DURATION_MS));
	KUNIT_EXPECT_LE(test, ns, MS(BFQ_WR_MAX_DURATION_MS));
}

/* A faster device never gets a longer raising. */
static void bfq_wr_duration_ns_monotonic(struct kunit *test)
{
	u64 rate, prev = U64_MAX;

	for (rate = 1; rate < (1ULL << 36); rate = rate * 3 + 1) {
		u64 ns = bfq_wr_duration_ns(rate);

		KUNIT_EXPECT_LE_MSG(test, ns, prev, "rate %llu", rate);
		prev = ns;
	}
}

/* ---- soft real-time next start -------------------------------------- */

struct bfq_softrt_case {
	const char *desc;
	u64 busy_since_ms, busy_sectors, idle_at_ms, gap_ms;
	u64 next_ns;			/* expected */
};

static const struct bfq_softrt_case bfq_softrt_cases[] = {
	/* 16 MiB/s is 32768 sectors/s: 32768 sectors last one second. */
	{ "rate bound dominates", 1000, 32768, 1010, 8, MS(2000) },
	{ "gap dominates", 1000, 8, 1010, 8,
	  MS(1010 + BFQ_SOFTRT_MIN_GAP_MS) },
	{ "gap floored with slice_idle 0", 1000, 8, 1010, 0,
	  MS(1010 + BFQ_SOFTRT_MIN_GAP_MS) },
	{ "longer slice_idle is the gap", 1000, 8, 1010,
	  BFQ_SOFTRT_MIN_GAP_MS + 10, MS(1020 + BFQ_SOFTRT_MIN_GAP_MS) },
	/* 200 KiB frame: 400 sectors = 12.2 ms at the maximum rate. */
	{ "video frame: the gap", 0, 400, 2, 8, MS(2 + BFQ_SOFTRT_MIN_GAP_MS) },
	/* 600 KiB: 36.6 ms at the maximum rate, longer than the gap. */
	{ "large video frame: the rate", 0, 1200, 2, 8, 36621093 },
	{ "huge period capped", 0, U64_MAX, 0, 8,
	  (u64)U32_MAX * NSEC_PER_SEC / BFQ_SOFTRT_MAX_SECTORS_PER_SEC },
};

BFQ_KUNIT_TABLE(bfq_softrt, bfq_softrt_cases, bfq_softrt_case);

static void bfq_wr_softrt_next_start_ns_table(struct kunit *test)
{
	const struct bfq_softrt_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test,
			bfq_wr_softrt_next_start_ns(MS(c->busy_since_ms),
						    c->busy_sectors,
						    MS(c->idle_at_ms),
						    MS(c->gap_ms)),
			c->next_ns);
}

/*
 * A synthetic arrival pattern: a queue issues @nr batches of
 * @sectors each; the device serves a batch in @service_us; batch i
 * arrives at i * @period_us, or, for a back-to-back reader (period 0),
 * @think_us after the previous batch completed. Every @early_every-th
 * batch (if not 0) arrives @early_us before its time.
 */
struct bfq_softrt_pattern {
	const char *desc;
	unsigned int nr;
	u64 sectors, service_us, period_us, think_us;
	unsigned int early_every;
	u64 early_us;
	unsigned int softrt;		/* expected soft real-time arrivals */
};

static const struct bfq_softrt_pattern bfq_softrt_patterns[] = {
	/*
	 * 25 frames/s of 200 KiB, served in 3 ms: from the third on time
	 * after the first (a new queue, interactive) on.
	 */
	{ "video 25 fps 200 KiB", 50, 400, 3000, 40000, 0, 0, 0, 47 },
	/* 25 fps of 2 MiB is 50 MiB/s: too fast to be soft real time. */
	{ "25 fps 2 MiB frames", 50, 4096, 10000, 40000, 0, 0, 0, 0 },
	/* 10 Hz audio, 32 KiB every 100 ms. */
	{ "audio 10 Hz", 100, 64, 500, 100000, 0, 0, 0, 97 },
	/* Pauses shorter than the least gap: as a reader short of CPU. */
	{ "reads every 20 ms", 100, 32, 500, 20000, 0, 0, 0, 0 },
	{ "reader thinking 9 ms", 100, 8, 200, 0, 9000, 0, 0, 0 },
	/* A reader back to back, 1 ms of CPU between 128 KiB reads. */
	{ "bulk back to back", 100, 256, 1000, 0, 1000, 0, 0, 0 },
	/* Back to back with 4 KiB reads on a fast device. */
	{ "random reader fast", 100, 8, 100, 0, 50, 0, 0, 0 },
	/*
	 * Every 4th frame comes 38 ms early, right after the last one: the
	 * count starts again, and only the third on time after it is soft
	 * real time (frames 3, 7, ..., 47).
	 */
	{ "video, some frames early", 48, 400, 3000, 40000, 0, 4, 38000, 12 },
	/* Every other frame early: never three in a row. */
	{ "video, every other frame early", 48, 400, 3000, 40000, 0, 2, 38000,
	  0 },
	/* A reader that thinks 30 ms between 4 KiB reads: periodic too. */
	{ "slow thinker", 40, 8, 200, 0, 30000, 0, 0, 37 },
};

BFQ_KUNIT_TABLE(bfq_softrt_pattern, bfq_softrt_patterns, bfq_softrt_pattern);

/* Run a pattern through next start and bfq_wr_choose(), as bfq-wr.c does. */
static void bfq_wr_softrt_detection_patterns(struct kunit *test)
{
	const struct bfq_softrt_pattern *p = test->param_value;
	struct bfq_wr_arrival a = { .new_queue = true };
	u64 t = MS(1000), idle_at = 0, next_start = 0;
	unsigned int i, found = 0, batches = 0;

	for (i = 0; i < p->nr; i++) {
		u64 at = p->period_us ? MS(1000) + i * p->period_us * 1000 :
					t;

		if (i && p->early_every && !(i % p->early_every))
			at = max(at - p->early_us * 1000, idle_at + 1);
		a.now_ns = at;
		batches = bfq_wr_softrt_batches(batches, a.was_idle, at,
						next_start);
		a.softrt_batches = batches;
		switch (bfq_wr_choose(&a)) {
		case BFQ_WR_SOFT_RT:
			found++;
			break;
		case BFQ_WR_INTERACTIVE:
			KUNIT_EXPECT_EQ_MSG(test, i, 0U, "batch %u", i);
			break;
		default:
			break;
		}
		idle_at = at + p->service_us * 1000;
		a = (struct bfq_wr_arrival) {
			.was_idle = true,
			.idle_since_ns = idle_at,
		};
		next_start = bfq_wr_softrt_next_start_ns(at, p->sectors, idle_at,
							 MS(8));
		t = idle_at + p->think_us * 1000;
	}
	KUNIT_EXPECT_EQ(test, found, p->softrt);
}

/* ---- the raising decision ------------------------------------------ */

struct bfq_wr_choose_case {
	const char *desc;
	struct bfq_wr_arrival a;
	enum bfq_wr_kind kind;		/* expected */
};

static const struct bfq_wr_choose_case bfq_wr_choose_cases[] = {
	{ "new queue", { .new_queue = true, .now_ns = MS(5) },
	  BFQ_WR_INTERACTIVE },
	{ "new queue in a large burst",
	  { .new_queue = true, .large_burst = true }, BFQ_WR_NONE },
	{ "idle long enough",
	  { .was_idle = true, .idle_since_ns = MS(100),
	    .now_ns = MS(100 + BFQ_WR_MIN_IDLE_MS) },
	  BFQ_WR_INTERACTIVE },
	{ "idle just too short",
	  { .was_idle = true, .idle_since_ns = MS(100),
	    .now_ns = MS(100 + BFQ_WR_MIN_IDLE_MS) - 1 }, BFQ_WR_NONE },
	{ "soft rt: enough batches",
	  { .was_idle = true, .idle_since_ns = MS(100), .now_ns = MS(140),
	    .softrt_batches = BFQ_SOFTRT_MIN_BATCHES }, BFQ_WR_SOFT_RT },
	{ "soft rt: one batch short",
	  { .was_idle = true, .idle_since_ns = MS(100), .now_ns = MS(140),
	    .softrt_batches = BFQ_SOFTRT_MIN_BATCHES - 1 }, BFQ_WR_NONE },
	{ "long idle beats soft rt",
	  { .was_idle = true, .idle_since_ns = MS(100), .now_ns = MS(5000),
	    .softrt_batches = BFQ_SOFTRT_MIN_BATCHES },
	  BFQ_WR_INTERACTIVE },
	{ "not idle: requests were in the device",
	  { .was_idle = false, .idle_since_ns = MS(100), .now_ns = MS(5000) },
	  BFQ_WR_NONE },
	{ "soft rt pattern while raised as interactive, short pauses",
	  { .was_idle = true, .idle_since_ns = MS(100), .now_ns = MS(140),
	    .interactive = true, .softrt_batches = BFQ_SOFTRT_MIN_BATCHES },
	  BFQ_WR_NONE },
	{ "soft rt pattern while raised as interactive, long pauses",
	  { .was_idle = true, .idle_since_ns = MS(100), .now_ns = MS(140),
	    .interactive = true, .pauses_long = true,
	    .softrt_batches = BFQ_SOFTRT_MIN_BATCHES }, BFQ_WR_SOFT_RT },
	{ "large burst, soft rt pattern",
	  { .large_burst = true, .was_idle = true, .idle_since_ns = MS(100),
	    .now_ns = MS(140), .softrt_batches = 10 }, BFQ_WR_NONE },
};

BFQ_KUNIT_TABLE(bfq_wr_choose, bfq_wr_choose_cases, bfq_wr_choose_case);

static void bfq_wr_choose_table(struct kunit *test)
{
	const struct bfq_wr_choose_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, bfq_wr_choose(&c->a), c->kind);
}

/* The count of batches that kept the pattern: on time, early, not idle. */
static void bfq_wr_softrt_batches_steps(struct kunit *test)
{
	unsigned int b = 0;

	b = bfq_wr_softrt_batches(b, true, MS(140), MS(140));
	KUNIT_EXPECT_EQ(test, b, 1U);
	b = bfq_wr_softrt_batches(b, false, MS(150), MS(200));
	KUNIT_EXPECT_EQ(test, b, 1U);
	b = bfq_wr_softrt_batches(b, true, MS(300), MS(200));
	KUNIT_EXPECT_EQ(test, b, 2U);
	b = bfq_wr_softrt_batches(b, true, MS(399), MS(400));
	KUNIT_EXPECT_EQ(test, b, 0U);
	KUNIT_EXPECT_EQ(test, bfq_wr_softrt_batches(UINT_MAX, true, 1, 0),
			UINT_MAX);
}

/*
 * Rule 7: a raised queue over one not raised, a soft real-time one over an
 * interactive one, in one class only.
 */
static void bfq_wr_preempts_cases(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, bfq_wr_coeff_preempts(BFQ_WR_COEFF, 1, true));
	KUNIT_EXPECT_TRUE(test, bfq_wr_coeff_preempts(BFQ_WR_SOFTRT_COEFF, 1,
						      true));
	KUNIT_EXPECT_FALSE(test, bfq_wr_coeff_preempts(BFQ_WR_COEFF, 1, false));
	KUNIT_EXPECT_FALSE(test, bfq_wr_coeff_preempts(1, 1, true));
	KUNIT_EXPECT_TRUE(test, bfq_wr_coeff_preempts(BFQ_WR_SOFTRT_COEFF,
						      BFQ_WR_COEFF, true));
	KUNIT_EXPECT_FALSE(test, bfq_wr_coeff_preempts(BFQ_WR_COEFF,
						       BFQ_WR_SOFTRT_COEFF, true));
	KUNIT_EXPECT_FALSE(test, bfq_wr_coeff_preempts(BFQ_WR_COEFF,
						       BFQ_WR_COEFF, true));
}

/*
 * Only turns that used the whole budget or the whole turn, moving at least
 * half of max_budget, are greedy.
 */
static void bfq_wr_greedy_turns_reasons(struct kunit *test)
{
	const unsigned int max = 4096;
	unsigned int turns = 0;

	turns = bfq_wr_greedy_turns(turns, BFQ_EXP_EMPTY, max, max);
	turns = bfq_wr_greedy_turns(turns, BFQ_EXP_IDLE_TIMEOUT, max, max);
	turns = bfq_wr_greedy_turns(turns, BFQ_EXP_PREEMPTED, max, max);
	KUNIT_EXPECT_EQ(test, turns, 0U);
	/* A start-up's turn: timed out or budget spent with little moved. */
	turns = bfq_wr_greedy_turns(turns, BFQ_EXP_TIMEOUT, 64, max);
	turns = bfq_wr_greedy_turns(turns, BFQ_EXP_BUDGET, max / 2 - 1, max);
	KUNIT_EXPECT_EQ(test, turns, 0U);
	turns = bfq_wr_greedy_turns(turns, BFQ_EXP_BUDGET, max / 2, max);
	turns = bfq_wr_greedy_turns(turns, BFQ_EXP_TIMEOUT, max, max);
	KUNIT_EXPECT_EQ(test, turns, 2U);
	KUNIT_EXPECT_LT(test, turns, bfq_wr_bulk_turns(NSEC_PER_SEC, 125));
	turns = bfq_wr_greedy_turns(turns, BFQ_EXP_BUDGET, max, max);
	KUNIT_EXPECT_LT(test, turns, bfq_wr_bulk_turns(NSEC_PER_SEC, 125));
	turns = bfq_wr_greedy_turns(turns, BFQ_EXP_BUDGET, max, max);
	KUNIT_EXPECT_GE(test, turns, bfq_wr_bulk_turns(NSEC_PER_SEC, 125));
}

/*
 * Greedy turns that end a raising: a quarter of it at the device's pace,
 * at least BFQ_WR_BULK_MIN_TURNS. The lab's model start-up (15 MiB of
 * libraries after its small files) on a 31 MB/s disk, whose autotuned
 * max_budget is 8322 sectors, fills at most 7 turns at the device's pace
 * in its 10 s raising: it keeps it (with 3 it lost it after 2.2 s).
 */
static void bfq_wr_bulk_turns_table(struct kunit *test)
{
	static const struct {
		u64 dur_ms;
		unsigned int timeout_ms, turns;
	} cases[] = {
		{ 10000, 125, 40 },	/* a measured 31 MB/s disk */
		{ 5368, 125, 21 },	/* a disk not measured yet */
		{ 3000, 125, 12 },	/* flash not measured yet */
		{ 1000, 125, 4 },	/* the shortest raising */
		{ 1000, 500, 3 },	/* long turns: the minimum */
		{ 10000, 0, 3 },	/* no timeout: the minimum */
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned int turns =
			bfq_wr_bulk_turns(cases[i].dur_ms * NSEC_PER_MSEC,
					  cases[i].timeout_ms);

		KUNIT_EXPECT_EQ_MSG(test, turns, cases[i].turns, "case %u", i);
	}
	KUNIT_EXPECT_GT(test, bfq_wr_bulk_turns(10000 * NSEC_PER_MSEC, 125),
			(15U << 11) / (8322 / 2));
}

/*
 * Rule 10: an interactive raising begun before the latest start-up steps
 * aside while that start-up reads; its weight is then unraised, and its
 * turn no longer keeps a raised arrival from preempting it.
 */
static void bfq_wr_aside_table(struct kunit *test)
{
	const u64 s = NSEC_PER_SEC, from = 10 * NSEC_PER_SEC;
	static const struct {
		enum bfq_wr_kind kind;
		unsigned int coeff;
		u64 start_s;
		bool reads, aside;
	} cases[] = {
		{ BFQ_WR_INTERACTIVE, BFQ_WR_COEFF, 6, true, true },
		{ BFQ_WR_INTERACTIVE, BFQ_WR_COEFF, 6, false, false },
		{ BFQ_WR_INTERACTIVE, BFQ_WR_COEFF, 10, true, false },
		{ BFQ_WR_INTERACTIVE, BFQ_WR_COEFF, 11, true, false },
		{ BFQ_WR_SOFT_RT, BFQ_WR_SOFTRT_COEFF, 6, true, false },
		{ BFQ_WR_NONE, 1, 6, true, false },
	};
	struct bfq_queue q = {};
	unsigned int i, base;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct bfq_wr_queue wr = {
			.kind = cases[i].kind,
			.coeff = cases[i].coeff,
			.start_ns = cases[i].start_s * s,
		};

		KUNIT_EXPECT_EQ_MSG(test,
				    bfq_wr_aside(&wr, from, cases[i].reads),
				    cases[i].aside, "case %u", i);
	}
	q.ioprio_level = 4;
	q.wr.coeff = BFQ_WR_COEFF;
	base = bfq_entity_ioprio_weight(4);
	KUNIT_EXPECT_EQ(test, bfq_queue_weight(&q), base * BFQ_WR_COEFF);
	q.wr.aside = true;
	KUNIT_EXPECT_EQ(test, bfq_queue_weight(&q), base);
	KUNIT_EXPECT_TRUE(test, bfq_wr_coeff_preempts(BFQ_WR_COEFF,
						      bfq_wr_coeff(&q), true));
	q.wr.aside = false;
	KUNIT_EXPECT_FALSE(test, bfq_wr_coeff_preempts(BFQ_WR_COEFF,
						       bfq_wr_coeff(&q), true));
}

/* ---- bursts -------------------------------------------------------- */

#define BFQ_BURST_STEPS_MAX	16

/* Births at the given gaps (ms after the previous one) and their steps. */
struct bfq_burst_case {
	const char *desc;
	unsigned int nr;
	u64 gap_ms[BFQ_BURST_STEPS_MAX];
	enum bfq_burst_step step[BFQ_BURST_STEPS_MAX];
};

#define S_	BFQ_BURST_STARTED
#define J_	BFQ_BURST_JOINED
#define L_	BFQ_BURST_TURNED_LARGE
#define IL_	BFQ_BURST_IN_LARGE

static const struct bfq_burst_case bfq_burst_cases[] = {
	{ "far apart: each starts a burst", 3, { 0, 500, 180 },
	  { S_, S_, S_ } },
	{ "close: joins", 3, { 0, 10, 179 }, { S_, J_, J_ } },
	{ "8th makes it large, 9th joins it", 9,
	  { 0, 1, 1, 1, 1, 1, 1, 1, 1 },
	  { S_, J_, J_, J_, J_, J_, J_, L_, IL_ } },
	{ "large burst resets after the window", 10,
	  { 0, 5, 5, 5, 5, 5, 5, 5, 100, 180 },
	  { S_, J_, J_, J_, J_, J_, J_, L_, IL_, S_ } },
	{ "a slow chain is one burst", 8,
	  { 0, 170, 170, 170, 170, 170, 170, 170 },
	  { S_, J_, J_, J_, J_, J_, J_, L_ } },
	{ "reset before large", 9,
	  { 0, 1, 1, 1, 1, 1, 1, 200, 1 },
	  { S_, J_, J_, J_, J_, J_, J_, S_, J_ } },
};

BFQ_KUNIT_TABLE(bfq_burst, bfq_burst_cases, bfq_burst_case);

static void bfq_wr_burst_birth_table(struct kunit *test)
{
	const struct bfq_burst_case *c = test->param_value;
	struct bfq_burst b = {};
	u64 now = MS(1000);
	unsigned int i;

	for (i = 0; i < c->nr; i++) {
		now += MS(c->gap_ms[i]);
		KUNIT_EXPECT_EQ_MSG(test, bfq_wr_burst_birth(&b, now), c->step[i],
				    "birth %u", i);
		KUNIT_EXPECT_EQ_MSG(test, b.large,
				    c->step[i] == L_ || c->step[i] == IL_,
				    "birth %u", i);
	}
}

#undef S_
#undef J_
#undef L_
#undef IL_

/* The members list never holds more than a burst that is not large. */
static void bfq_wr_burst_size_bound(struct kunit *test)
{
	struct bfq_burst b = {};
	unsigned int i, listed = 0;

	for (i = 0; i < 1000; i++) {
		switch (bfq_wr_burst_birth(&b, MS(1000) + MS(i))) {
		case BFQ_BURST_STARTED:
			listed = 1;
			break;
		case BFQ_BURST_JOINED:
			listed++;
			break;
		default:
			listed = 0;
			break;
		}
		KUNIT_EXPECT_LT(test, listed, (unsigned int)BFQ_BURST_LARGE_SIZE);
	}
	KUNIT_EXPECT_EQ(test, b.size, 1000U);
}

/* ---- queue glue: raising, bursts and the lists, without a device ---- */

#define BFQ_WR_TEST_QUEUES	(BFQ_BURST_LARGE_SIZE + 1)

struct bfq_wr_test_dev {
	struct bfq_data *bfqd;
	struct bfq_queue *q[BFQ_WR_TEST_QUEUES];
};

/* A bfq_data with low_latency on and sync BE4 queues, no request_queue. */
static void bfq_wr_test_dev_init(struct kunit *test, struct bfq_wr_test_dev *d)
{
	int i;

	d->bfqd = bfq_test_bfqd(test);
	for (i = 0; i < BFQ_WR_TEST_QUEUES; i++)
		d->q[i] = bfq_test_queue(test, d->bfqd, 100 + i);
}

/*
 * BFQ_BURST_LARGE_SIZE - 1 queues born 1 ms apart are raised at their
 * first backlog; the next makes the burst large: they lose raising and
 * weight, the one after is not raised, no list keeps any of them, and
 * exit leaves both lists empty.
 */
static void bfq_wr_queue_burst_lifecycle(struct kunit *test)
{
	struct bfq_wr_test_dev d;
	u64 now = MS(1000);
	int i;

	bfq_wr_test_dev_init(test, &d);
	spin_lock_irq(&d.bfqd->lock);
	for (i = 0; i < BFQ_WR_TEST_QUEUES; i++, now += MS(1)) {
		bfq_wr_queue_born(d.bfqd, d.q[i], now);
		bfq_wr_backlogged(d.bfqd, d.q[i], now, now, true);
		if (i == BFQ_BURST_LARGE_SIZE - 2) {
			KUNIT_EXPECT_EQ(test, d.bfqd->wr.nr_raised, i + 1U);
			KUNIT_EXPECT_EQ(test, d.q[i]->entity.weight,
					40U * BFQ_WR_COEFF);
		}
	}
	KUNIT_EXPECT_EQ(test, d.bfqd->wr.nr_raised, 0U);
	KUNIT_EXPECT_TRUE(test, list_empty(&d.bfqd->wr.raised));
	KUNIT_EXPECT_TRUE(test, list_empty(&d.bfqd->wr.burst_members));
	for (i = 0; i < BFQ_WR_TEST_QUEUES; i++) {
		KUNIT_EXPECT_EQ_MSG(test, d.q[i]->wr.burst, BFQ_BURST_LARGE,
				    "queue %d", i);
		KUNIT_EXPECT_EQ_MSG(test, d.q[i]->entity.weight, 40U,
				    "queue %d", i);
		KUNIT_EXPECT_TRUE(test, bfq_wr_in_large_burst(d.bfqd, d.q[i]));
		bfq_wr_queue_exit(d.bfqd, d.q[i]);
	}
	spin_unlock_irq(&d.bfqd->lock);
}

/*
 * Rule 8's newcomer: a process with no queue yet has the tags kept for it
 * unless the queue it is about to get would be born in a large burst, and
 * never with low_latency off.
 */
static void bfq_wr_newcomer_in_bursts(struct kunit *test)
{
	struct bfq_wr_test_dev d;
	u64 now = MS(1000), last, end;
	int i;

	bfq_wr_test_dev_init(test, &d);
	KUNIT_EXPECT_TRUE(test, bfq_wr_newcomer_raisable(d.bfqd, now));
	spin_lock_irq(&d.bfqd->lock);
	for (i = 0; i < BFQ_BURST_LARGE_SIZE; i++, now += MS(1)) {
		KUNIT_EXPECT_TRUE_MSG(test,
				      bfq_wr_newcomer_raisable(d.bfqd, now),
				      "before birth %d", i);
		bfq_wr_queue_born(d.bfqd, d.q[i], now);
	}
	spin_unlock_irq(&d.bfqd->lock);
	KUNIT_EXPECT_TRUE(test, d.bfqd->wr.burst.large);
	last = now - MS(1);
	KUNIT_EXPECT_FALSE(test, bfq_wr_newcomer_raisable(d.bfqd, now));
	end = last + MS(BFQ_BURST_WINDOW_MS);
	KUNIT_EXPECT_FALSE(test, bfq_wr_newcomer_raisable(d.bfqd, end - 1));
	/* A time before the last birth (another CPU's clock): still in it. */
	KUNIT_EXPECT_FALSE(test, bfq_wr_newcomer_raisable(d.bfqd, now - MS(5)));
	KUNIT_EXPECT_TRUE(test, bfq_wr_newcomer_raisable(d.bfqd, end));
	d.bfqd->tun.low_latency = 0;
	KUNIT_EXPECT_FALSE(test, bfq_wr_newcomer_raisable(d.bfqd, MS(100000)));
	spin_lock_irq(&d.bfqd->lock);
	for (i = 0; i < BFQ_BURST_LARGE_SIZE; i++)
		bfq_wr_queue_exit(d.bfqd, d.q[i]);
	spin_unlock_irq(&d.bfqd->lock);
}

/*
 * A queue freed while raised and in a burst leaves neither list; a burst
 * that restarts after the window forgets its old members.
 */
static void bfq_wr_queue_exit_unlinks(struct kunit *test)
{
	struct bfq_wr_test_dev d;

	bfq_wr_test_dev_init(test, &d);
	spin_lock_irq(&d.bfqd->lock);
	bfq_wr_queue_born(d.bfqd, d.q[0], MS(1000));
	bfq_wr_backlogged(d.bfqd, d.q[0], MS(1000), MS(1000), true);
	bfq_wr_queue_born(d.bfqd, d.q[1], MS(1001));
	bfq_wr_backlogged(d.bfqd, d.q[1], MS(1001), MS(1001), true);
	KUNIT_EXPECT_EQ(test, d.bfqd->wr.nr_raised, 2U);
	bfq_wr_queue_exit(d.bfqd, d.q[0]);
	KUNIT_EXPECT_EQ(test, d.bfqd->wr.nr_raised, 1U);
	KUNIT_EXPECT_TRUE(test, list_is_singular(&d.bfqd->wr.raised));
	KUNIT_EXPECT_TRUE(test, list_is_singular(&d.bfqd->wr.burst_members));
	bfq_wr_queue_born(d.bfqd, d.q[2], MS(1001 + BFQ_BURST_WINDOW_MS));
	KUNIT_EXPECT_EQ(test, d.q[1]->wr.burst, BFQ_BURST_NONE);
	KUNIT_EXPECT_EQ(test, d.q[2]->wr.burst, BFQ_BURST_MEMBER);
	KUNIT_EXPECT_TRUE(test, list_is_singular(&d.bfqd->wr.burst_members));
	bfq_wr_queue_exit(d.bfqd, d.q[1]);
	bfq_wr_queue_exit(d.bfqd, d.q[2]);
	KUNIT_EXPECT_TRUE(test, list_empty(&d.bfqd->wr.raised));
	KUNIT_EXPECT_TRUE(test, list_empty(&d.bfqd->wr.burst_members));
	spin_unlock_irq(&d.bfqd->lock);
}

/*
 * low_latency=0 ends every raising at once and raises nothing more; a
 * raising lapses at its end; a queue idle long enough is raised again.
 */
static void bfq_wr_queue_off_and_lapse(struct kunit *test)
{
	struct bfq_wr_test_dev d;
	struct bfq_queue *bfqq;
	u64 dur;

	bfq_wr_test_dev_init(test, &d);
	bfqq = d.q[0];
	spin_lock_irq(&d.bfqd->lock);
	bfq_wr_backlogged(d.bfqd, bfqq, MS(1000), MS(1000), true);
	bfq_wr_backlogged(d.bfqd, d.q[1], MS(1000), MS(1000), true);
	KUNIT_EXPECT_EQ(test, d.bfqd->wr.nr_raised, 2U);
	d.bfqd->tun.low_latency = 0;
	bfq_wr_end_all(d.bfqd);
	KUNIT_EXPECT_EQ(test, d.bfqd->wr.nr_raised, 0U);
	KUNIT_EXPECT_EQ(test, bfqq->entity.weight, 40U);
	bfqq->wr.idle = true;
	bfqq->wr.idle_since_ns = MS(1000);
	bfq_wr_backlogged(d.bfqd, bfqq, MS(9000), MS(9000), true);
	KUNIT_EXPECT_EQ(test, bfqq->wr.coeff, 1U);

	d.bfqd->tun.low_latency = 1;
	bfqq->wr.idle = true;
	bfqq->wr.idle_since_ns = MS(9000);
	bfq_wr_backlogged(d.bfqd, bfqq, MS(20000), MS(20000), true);
	KUNIT_EXPECT_EQ(test, bfqq->wr.kind, BFQ_WR_INTERACTIVE);
	/* No rate measured: a 100 MB/s disk's or an SSD's, by the queue. */
	dur = bfqq->wr.dur_ns;
	KUNIT_EXPECT_EQ(test, dur, bfq_queue_nonrot(d.bfqd->queue) ?
			bfq_wr_duration_ns(0) : MS(5368));
	bfq_wr_selected(d.bfqd, bfqq, MS(20000) + dur - 1);
	KUNIT_EXPECT_EQ(test, bfqq->wr.coeff, (unsigned int)BFQ_WR_COEFF);
	bfq_wr_selected(d.bfqd, bfqq, MS(20000) + dur);
	KUNIT_EXPECT_EQ(test, bfqq->wr.coeff, 1U);
	KUNIT_EXPECT_TRUE(test, list_empty(&d.bfqd->wr.raised));
	spin_unlock_irq(&d.bfqd->lock);
}

/*
 * Turns at the device's pace worth a quarter of the raising end an
 * interactive raising (rule 2); other turns do not.
 */
/*
 * Rule 2's setup: the first queue of @d raised as interactive at 1 s with
 * timeout_sync 125 ms, bfq_data.lock taken; returns its bulk turn count.
 */
static unsigned int bfq_wr_test_raise_first(struct kunit *test,
					    struct bfq_wr_test_dev *d)
	__acquires(&d->bfqd->lock)
{
	unsigned int n;

	bfq_wr_test_dev_init(test, d);
	d->bfqd->tun.timeout_sync_ms = 125;
	spin_lock_irq(&d->bfqd->lock);
	bfq_wr_backlogged(d->bfqd, d->q[0], MS(1000), MS(1000), true);
	n = bfq_wr_bulk_turns(d->q[0]->wr.dur_ns, 125);
	KUNIT_EXPECT_GT(test, n, 3U);
	return n;
}

static void bfq_wr_queue_bulk_ends(struct kunit *test)
{
	struct bfq_wr_test_dev d;
	unsigned int n = bfq_wr_test_raise_first(test, &d);
	struct bfq_queue *bfqq = d.q[0];
	unsigned int i;
	u64 t = MS(1001);

	bfq_wr_expired(d.bfqd, bfqq, BFQ_EXP_IDLE_TIMEOUT, 4096, 4096, t++);
	bfq_wr_expired(d.bfqd, bfqq, BFQ_EXP_TIMEOUT, 8, 4096, t++);
	for (i = 0; i + 1 < n; i++)
		bfq_wr_expired(d.bfqd, bfqq, i % 2 ? BFQ_EXP_BUDGET :
			       BFQ_EXP_TIMEOUT, 4096, 4096, t++);
	KUNIT_EXPECT_EQ(test, bfqq->wr.coeff, (unsigned int)BFQ_WR_COEFF);
	bfq_wr_expired(d.bfqd, bfqq, BFQ_EXP_BUDGET, 2048, 4096, t++);
	KUNIT_EXPECT_EQ(test, bfqq->wr.coeff, 1U);
	KUNIT_EXPECT_EQ(test, d.bfqd->wr.nr_raised, 0U);
	spin_unlock_irq(&d.bfqd->lock);
}

/*
 * Rule 2: a raised queue reading at random with BFQ_WR_ASYNC_READS
 * requests outstanding at the end of a turn loses its raising there; one
 * fewer, or as many in sequence (its read-ahead), keeps it.
 */
static void bfq_wr_queue_async_reader_ends(struct kunit *test)
{
	struct bfq_wr_test_dev d;
	struct bfq_queue *bfqq;
	u64 t = MS(1001);

	bfq_wr_test_raise_first(test, &d);
	bfqq = d.q[0];
	bfqq->nr_queued = BFQ_WR_ASYNC_READS;
	bfq_wr_expired(d.bfqd, bfqq, BFQ_EXP_TIMEOUT, 64, 4096, t++);
	KUNIT_EXPECT_EQ(test, bfqq->wr.coeff, (unsigned int)BFQ_WR_COEFF);
	bfqq->seek_history = ~0U;
	bfqq->nr_queued = BFQ_WR_ASYNC_READS / 2;
	bfqq->nr_in_driver = BFQ_WR_ASYNC_READS / 2 - 1;
	bfq_wr_expired(d.bfqd, bfqq, BFQ_EXP_TIMEOUT, 64, 4096, t++);
	KUNIT_EXPECT_EQ(test, bfqq->wr.coeff, (unsigned int)BFQ_WR_COEFF);
	bfqq->nr_in_driver++;
	bfq_wr_expired(d.bfqd, bfqq, BFQ_EXP_TIMEOUT, 64, 4096, t++);
	KUNIT_EXPECT_EQ(test, bfqq->wr.coeff, 1U);
	KUNIT_EXPECT_EQ(test, d.bfqd->wr.nr_raised, 0U);
	bfqq->nr_queued = 0;
	bfqq->nr_in_driver = 0;
	spin_unlock_irq(&d.bfqd->lock);
}

/*
 * Rule 2 for a queue with a waker: its turns count by their time, each
 * half of timeout_sync one greedy turn, however few sectors they moved
 * (an fsync loop's 8 a write); remainders add up across turns.
 */
static void bfq_wr_queue_paced_ends(struct kunit *test)
{
	struct bfq_wr_test_dev d;
	unsigned int n = bfq_wr_test_raise_first(test, &d);
	struct bfq_queue *bfqq = d.q[0];
	unsigned int i;
	u64 t = MS(1001);

	/* 100 ms turns of 8 sectors: 1.6 greedy turns each. */
	for (i = 0; (i + 1) * 8 < n * 5; i++) {
		bfq_wr_paced(d.bfqd, bfqq, MS(100));
		bfq_wr_expired(d.bfqd, bfqq, BFQ_EXP_EMPTY, 8, 4096, t++);
	}
	KUNIT_EXPECT_EQ(test, bfqq->wr.coeff, (unsigned int)BFQ_WR_COEFF);
	KUNIT_EXPECT_LT(test, bfqq->wr.greedy_turns, n);
	bfq_wr_paced(d.bfqd, bfqq, MS(100));
	bfq_wr_expired(d.bfqd, bfqq, BFQ_EXP_EMPTY, 8, 4096, t++);
	KUNIT_EXPECT_EQ(test, bfqq->wr.coeff, 1U);
	/* Not raised: nothing counts. */
	i = bfqq->wr.greedy_turns;
	bfq_wr_paced(d.bfqd, bfqq, MS(100));
	KUNIT_EXPECT_EQ(test, bfqq->wr.greedy_turns, i);
	spin_unlock_irq(&d.bfqd->lock);
}

/*
 * Rule 10: a reader raised 2 s before an application starts steps aside,
 * its weight unraised, while the application reads; a journal's sync
 * write raised meanwhile starts no new start-up; once the application
 * stops reading, the reader's next turn end gives its weight back.
 */
static void bfq_wr_queue_aside(struct kunit *test)
{
	struct bfq_wr_test_dev d;
	struct bfq_queue *reader, *app, *journal;
	unsigned int base;

	bfq_wr_test_dev_init(test, &d);
	reader = d.q[0];
	app = d.q[1];
	journal = d.q[2];
	d.bfqd->tun.timeout_sync_ms = 125;
	spin_lock_irq(&d.bfqd->lock);
	base = bfq_entity_ioprio_weight(reader->ioprio_level);
	bfq_wr_backlogged(d.bfqd, reader, MS(1000), MS(1000), true);
	KUNIT_EXPECT_EQ(test, bfq_queue_weight(reader), base * BFQ_WR_COEFF);
	/* The reader waits for a turn, stamped with its raised weight. */
	reader->entity.budget_sectors = 256;
	bfq_entity_activate(&reader->entity);
	bfq_wr_backlogged(d.bfqd, app, MS(3000), MS(3000), true);
	app->nr_queued = 1;
	KUNIT_EXPECT_TRUE(test, reader->wr.aside);
	KUNIT_EXPECT_FALSE(test, app->wr.aside);
	KUNIT_EXPECT_EQ(test, bfq_queue_weight(reader), base);
	/* Its waiting turn is stamped again with that weight, at once. */
	KUNIT_EXPECT_EQ(test, reader->entity.weight, base);
	KUNIT_EXPECT_EQ(test, d.bfqd->sched.st[BFQ_CLASS_BE].wsum, (u64)base);
	KUNIT_EXPECT_TRUE(test, bfq_wr_preempts_queue(d.bfqd, app, reader));
	bfq_wr_expired(d.bfqd, reader, BFQ_EXP_TIMEOUT, 64, 4096, MS(3300));
	KUNIT_EXPECT_TRUE(test, reader->wr.aside);
	app->nr_queued = 0;
	bfq_wr_expired(d.bfqd, reader, BFQ_EXP_TIMEOUT, 64, 4096, MS(3400));
	KUNIT_EXPECT_FALSE(test, reader->wr.aside);
	KUNIT_EXPECT_EQ(test, bfq_queue_weight(reader), base * BFQ_WR_COEFF);
	app->nr_queued = 1;
	bfq_wr_backlogged(d.bfqd, journal, MS(4500), MS(4500), false);
	KUNIT_EXPECT_TRUE(test, bfq_wr_of_latest_startup(d.bfqd, app));
	KUNIT_EXPECT_FALSE(test, app->wr.aside);
	app->nr_queued = 0;
	bfq_entity_deactivate(&reader->entity);
	bfq_wr_queue_exit(d.bfqd, reader);
	bfq_wr_queue_exit(d.bfqd, app);
	bfq_wr_queue_exit(d.bfqd, journal);
	spin_unlock_irq(&d.bfqd->lock);
}

/*
 * Rule 3 over rule 1: a new process that reads 64 KiB every 200 ms (a
 * video player) is raised as interactive, then as soft real time after
 * BFQ_SOFTRT_MIN_BATCHES batches on time, its pauses longer than its
 * idle slice would be (an application that thinks a slice between its
 * reads is not switched); it then preempts an
 * interactively raised queue, not the other way round. When the soft
 * raising lapses, the interactive one goes on to its own end: in its own
 * queue, in the new queue that takes the process back after a split or a
 * move to another group (bfq_wr_save(), bfq_wr_restore()), and in a queue
 * it merges into (bfq_wr_merge()).
 */
static void bfq_wr_queue_softrt_over_interactive(struct kunit *test)
{
	struct bfq_wr_test_dev d;
	struct bfq_queue *player, *app, *split, *merged, *qs[3];
	struct bfq_merge_saved saved = {};
	u64 t = MS(1000), int_end;
	int i;

	bfq_wr_test_dev_init(test, &d);
	player = d.q[0];
	app = d.q[1];
	split = d.q[2];
	merged = d.q[3];
	qs[0] = player;
	qs[1] = split;
	qs[2] = merged;
	spin_lock_irq(&d.bfqd->lock);
	bfq_wr_backlogged(d.bfqd, player, t, t, true);
	KUNIT_EXPECT_EQ(test, player->wr.kind, BFQ_WR_INTERACTIVE);
	int_end = t + player->wr.dur_ns;
	bfq_wr_backlogged(d.bfqd, app, t, t, true);
	/*
	 * The player pauses 185 ms a frame: its think time is its samples'
	 * cap, 2 slices. The application's batches come as far apart, but
	 * it usually thinks one slice (its reads come back to back, then it
	 * computes): the device's idling covers that, it stays interactive.
	 */
	player->think_ns = 2 * d.bfqd->tun.slice_idle_ns;
	app->think_ns = d.bfqd->tun.slice_idle_ns;
	for (i = 0; i < BFQ_SOFTRT_MIN_BATCHES; i++) {
		bfq_wr_dispatched(player, 128);
		bfq_wr_maybe_idle(d.bfqd, player, t + MS(15));
		bfq_wr_dispatched(app, 128);
		bfq_wr_maybe_idle(d.bfqd, app, t + MS(15));
		KUNIT_EXPECT_EQ_MSG(test, player->wr.kind, BFQ_WR_INTERACTIVE,
				    "batch %d", i);
		t += MS(200);
		bfq_wr_backlogged(d.bfqd, player, t, t, true);
		bfq_wr_backlogged(d.bfqd, app, t, t, true);
	}
	KUNIT_EXPECT_EQ(test, player->wr.kind, BFQ_WR_SOFT_RT);
	KUNIT_EXPECT_EQ(test, app->wr.kind, BFQ_WR_INTERACTIVE);
	KUNIT_EXPECT_EQ(test, player->wr.coeff,
			(unsigned int)BFQ_WR_SOFTRT_COEFF);
	KUNIT_EXPECT_TRUE(test, bfq_wr_preempts_queue(d.bfqd, player, app));
	KUNIT_EXPECT_FALSE(test, bfq_wr_preempts_queue(d.bfqd, app, player));
	/*
	 * The player's process leaves its queue (a split, a move to another
	 * group) and another queue takes it in (a merge): each new queue
	 * carries the suspended interactive raising too.
	 */
	bfq_wr_save(player, &saved);
	bfq_wr_restore(d.bfqd, split, &saved, t);
	bfq_wr_merge(d.bfqd, merged, player, t);
	/* No batch for longer than the soft raising: interactive again. */
	t += MS(BFQ_WR_SOFTRT_DURATION_MS);
	for (i = 0; i < ARRAY_SIZE(qs); i++) {
		bfq_wr_selected(d.bfqd, qs[i], t);
		KUNIT_EXPECT_EQ_MSG(test, qs[i]->wr.kind, BFQ_WR_INTERACTIVE,
				    "queue %d", i);
		KUNIT_EXPECT_EQ_MSG(test, qs[i]->wr.coeff,
				    (unsigned int)BFQ_WR_COEFF, "queue %d", i);
		KUNIT_EXPECT_EQ_MSG(test, qs[i]->wr.start_ns +
				    qs[i]->wr.dur_ns, int_end, "queue %d", i);
		bfq_wr_selected(d.bfqd, qs[i], int_end);
		KUNIT_EXPECT_EQ_MSG(test, qs[i]->wr.coeff, 1U, "queue %d", i);
		bfq_wr_queue_exit(d.bfqd, qs[i]);
	}
	bfq_wr_queue_exit(d.bfqd, app);
	KUNIT_EXPECT_TRUE(test, list_empty(&d.bfqd->wr.raised));
	spin_unlock_irq(&d.bfqd->lock);
}

/*
 * Rule 8: which processes may take the kept scheduler tags. The queue's
 * state is set as bfq-wr.c would leave it; idle times count back from the
 * time the process asks.
 */
struct bfq_tag_reserve_case {
	const char *desc;
	bool idle;
	u64 idle_ms;			/* before the ask, when idle */
	enum bfq_wr_kind kind;
	enum bfq_burst_member burst;
	enum bfq_class class;
	bool low_latency;
	bool kept;			/* expected */
};

static const struct bfq_tag_reserve_case bfq_tag_reserve_cases[] = {
	{ "idle long enough to be raised", true, BFQ_WR_MIN_IDLE_MS + 100,
	  BFQ_WR_NONE, BFQ_BURST_NONE, BFQ_CLASS_BE, true, true },
	{ "idle too short", true, 0,
	  BFQ_WR_NONE, BFQ_BURST_NONE, BFQ_CLASS_BE, true, false },
	{ "raised as interactive", false, 0,
	  BFQ_WR_INTERACTIVE, BFQ_BURST_NONE, BFQ_CLASS_BE, true, true },
	{ "raised as soft real time: a frame is due", false, 0,
	  BFQ_WR_SOFT_RT, BFQ_BURST_NONE, BFQ_CLASS_BE, true, true },
	{ "in a large burst", false, 0,
	  BFQ_WR_INTERACTIVE, BFQ_BURST_LARGE, BFQ_CLASS_BE, true, false },
	{ "IDLE class", false, 0,
	  BFQ_WR_INTERACTIVE, BFQ_BURST_NONE, BFQ_CLASS_IDLE, true, false },
	{ "low_latency=0", false, 0,
	  BFQ_WR_INTERACTIVE, BFQ_BURST_NONE, BFQ_CLASS_BE, false, false },
};

BFQ_KUNIT_TABLE(bfq_tag_reserve, bfq_tag_reserve_cases, bfq_tag_reserve_case);

static void bfq_wr_tag_reserve_table(struct kunit *test)
{
	const struct bfq_tag_reserve_case *c = test->param_value;
	struct bfq_wr_test_dev d;
	struct bfq_queue *bfqq;
	u64 now = MS(100000);

	bfq_wr_test_dev_init(test, &d);
	bfqq = d.q[0];
	bfqq->wr.idle = c->idle;
	bfqq->wr.idle_since_ns = now - MS(c->idle_ms);
	bfqq->wr.kind = c->kind;
	bfqq->wr.burst = c->burst;
	bfqq->ioprio_class = c->class;
	d.bfqd->tun.low_latency = c->low_latency;
	KUNIT_EXPECT_EQ(test, bfq_wr_tag_reserve(d.bfqd, bfqq, now), c->kept);
}

/* Rule 9: when a request waits for the device to empty. */
struct bfq_holds_back_case {
	const char *desc;
	bool app_io;			/* an interactive raised queue's I/O */
	u64 app_age_ms;			/* that long ago */
	unsigned int in_driver;
	enum bfq_wr_kind kind;		/* of the queue dispatching */
	bool low_latency;
	bool held;			/* expected */
	u64 earlier_ms;			/* its raising began that long before */
};

static const struct bfq_holds_back_case bfq_holds_back_cases[] = {
	{ "application reading, device busy", true, 1, 1,
	  BFQ_WR_NONE, true, true },
	{ "application reading, device empty", true, 1, 0,
	  BFQ_WR_NONE, true, false },
	{ "the application's own request", true, 1, 3,
	  BFQ_WR_INTERACTIVE, true, false },
	{ "a player's frame does not wait", true, 1, 1,
	  BFQ_WR_SOFT_RT, true, false },
	{ "an application started seconds before waits (rule 10)", true, 1,
	  1, BFQ_WR_INTERACTIVE, true, true, 2 * BFQ_WR_TOGETHER_MS },
	{ "an application started together does not", true, 1, 1,
	  BFQ_WR_INTERACTIVE, true, false, BFQ_WR_TOGETHER_MS / 2 },
	{ "application quiet past the gap", true, BFQ_WR_APP_GAP_MS, 4,
	  BFQ_WR_NONE, true, false },
	{ "no application ever", false, 0, 4,
	  BFQ_WR_NONE, true, false },
	{ "low_latency=0", true, 1, 4,
	  BFQ_WR_NONE, false, false },
};

BFQ_KUNIT_TABLE(bfq_holds_back, bfq_holds_back_cases, bfq_holds_back_case);

static void bfq_wr_holds_back_table(struct kunit *test)
{
	const struct bfq_holds_back_case *c = test->param_value;
	struct bfq_wr_test_dev d;
	struct bfq_queue *app, *bfqq;
	u64 now = MS(100000);

	bfq_wr_test_dev_init(test, &d);
	app = d.q[0];
	bfqq = d.q[1];
	d.bfqd->tun.low_latency = c->low_latency;
	d.bfqd->rq_in_driver = c->in_driver;
	spin_lock_irq(&d.bfqd->lock);
	/* Raised as rule 1 raises them, @bfqq first if both are. */
	bfqq->wr.idle = true;
	bfqq->wr.idle_since_ns = now - MS(60000);
	if (c->kind == BFQ_WR_INTERACTIVE)
		bfq_wr_backlogged(d.bfqd, bfqq, now - MS(c->earlier_ms + 100),
				  now - MS(c->earlier_ms + 100), true);
	bfqq->wr.kind = c->kind;
	bfqq->wr.coeff = c->kind == BFQ_WR_NONE ? 1 : BFQ_WR_COEFF;
	app->wr.idle = true;
	app->wr.idle_since_ns = now - MS(60000);
	bfq_wr_backlogged(d.bfqd, app, now - MS(100), now - MS(100), true);
	if (c->low_latency)
		KUNIT_ASSERT_EQ(test, app->wr.kind, BFQ_WR_INTERACTIVE);
	if (c->app_io)
		bfq_wr_raised_io(d.bfqd, app, now - MS(c->app_age_ms));
	/* A queue not raised as interactive leaves the time alone. */
	bfq_wr_raised_io(d.bfqd, d.q[2], now);
	KUNIT_EXPECT_EQ(test, bfq_wr_holds_back(d.bfqd, bfqq, now), c->held);
	spin_unlock_irq(&d.bfqd->lock);
}

/*
 * Rule 9, frames first: while a player had I/O within its raising's length,
 * every other request waits for the device to empty, a starting
 * application's too, where seeks cost; the player's own does not.
 */
static void bfq_wr_holds_back_frames(struct kunit *test)
{
	struct bfq_wr_test_dev d;
	struct bfq_queue *player, *app, *reader;
	u64 now = MS(100000);
	u64 later = now + MS(BFQ_WR_SOFTRT_DURATION_MS - 100);

	bfq_wr_test_dev_init(test, &d);
	player = d.q[0];
	app = d.q[1];
	reader = d.q[2];
	spin_lock_irq(&d.bfqd->lock);
	app->wr.idle = true;
	app->wr.idle_since_ns = now - MS(60000);
	bfq_wr_backlogged(d.bfqd, app, now - MS(100), now - MS(100), true);
	KUNIT_ASSERT_EQ(test, app->wr.kind, BFQ_WR_INTERACTIVE);
	bfq_wr_raised_io(d.bfqd, app, now - MS(1));
	d.bfqd->rq_in_driver = 1;
	/* No player: the application's request goes, the reader's waits. */
	KUNIT_EXPECT_FALSE(test, bfq_wr_holds_back(d.bfqd, app, now));
	KUNIT_EXPECT_TRUE(test, bfq_wr_holds_back(d.bfqd, reader, now));
	player->wr.kind = BFQ_WR_SOFT_RT;
	player->wr.coeff = BFQ_WR_SOFTRT_COEFF;
	bfq_wr_raised_io(d.bfqd, player, now - MS(100));
	KUNIT_EXPECT_FALSE(test, bfq_wr_holds_back(d.bfqd, player, now));
	KUNIT_EXPECT_TRUE(test, bfq_wr_holds_back(d.bfqd, app, now));
	KUNIT_EXPECT_TRUE(test, bfq_wr_holds_back(d.bfqd, reader,
						  now + MS(150)));
	/* Past its raising's length without I/O, or the application's gap. */
	KUNIT_EXPECT_FALSE(test, bfq_wr_holds_back(d.bfqd, reader, later));
	/* Nothing in the device: nothing to wait behind. */
	d.bfqd->rq_in_driver = 0;
	KUNIT_EXPECT_FALSE(test, bfq_wr_holds_back(d.bfqd, app, now));
	/* A device where seeks cost nothing: the application goes again. */
	d.bfqd->rq_in_driver = 1;
	d.bfqd->seek.known = BIT(0);
	d.bfqd->seek.costly = 0;
	KUNIT_EXPECT_FALSE(test, bfq_wr_holds_back(d.bfqd, app, now));
	KUNIT_EXPECT_TRUE(test, bfq_wr_holds_back(d.bfqd, reader, now));
	spin_unlock_irq(&d.bfqd->lock);
}

/*
 * Rule 9, a player's next frame: its period learnt from its arrivals, a
 * reader's request that would still hold the empty device when the frame
 * is due (its measured cost and a quarter) waits until a quarter of that
 * cost past the due time; one that leaves the device before, the player's
 * own, one past that time, one of a size never timed, one of a queue
 * never served or whose process pauses long, and any once the frame came
 * or the player paused longer than its raising, go.
 */
static void bfq_wr_frame_wait_times(struct kunit *test)
{
	struct bfq_wr_test_dev d;
	struct bfq_queue *player, *reader;
	u64 t = MS(100000), cost = MS(20), due;
	int i;

	bfq_wr_test_dev_init(test, &d);
	player = d.q[0];
	reader = d.q[2];
	/* A far 128 KiB request takes 20 ms alone (16 samples: known). */
	d.bfqd->seek.far_n[8] = 16;
	d.bfqd->seek.far_ns[8] = cost;
	spin_lock_irq(&d.bfqd->lock);
	player->wr.idle = true;
	player->wr.idle_since_ns = t - MS(60000);
	for (i = 0; i < 10; i++, t += MS(200)) {
		bfq_wr_backlogged(d.bfqd, player, t, t, true);
		bfq_wr_maybe_idle(d.bfqd, player, t + MS(15));
	}
	t -= MS(200);
	KUNIT_EXPECT_EQ(test, player->wr.period_ns, MS(200));
	bfq_wr_start(d.bfqd, player, BFQ_WR_SOFT_RT, true, t);
	bfq_wr_raised_io(d.bfqd, player, t + MS(15));
	due = t + MS(200);
	/* The reader has been served and reads back to back. */
	reader->last_done_ns = t;
	reader->think_ns = (100 * NSEC_PER_USEC);
	KUNIT_EXPECT_EQ(test, bfq_wr_frame_wait(d.bfqd, reader, 256,
						due - MS(26)), 0ULL);
	KUNIT_EXPECT_EQ(test, bfq_wr_frame_wait(d.bfqd, reader, 256,
						due - MS(24)), MS(29));
	KUNIT_EXPECT_EQ(test, bfq_wr_frame_wait(d.bfqd, reader, 256,
						due - MS(10)), MS(15));
	KUNIT_EXPECT_EQ(test, bfq_wr_frame_wait(d.bfqd, reader, 256,
						due + MS(4)), MS(1));
	KUNIT_EXPECT_EQ(test, bfq_wr_frame_wait(d.bfqd, reader, 256,
						due + MS(5)), 0ULL);
	KUNIT_EXPECT_EQ(test, bfq_wr_frame_wait(d.bfqd, player, 256,
						due - MS(10)), 0ULL);
	KUNIT_EXPECT_EQ(test, bfq_wr_frame_wait(d.bfqd, reader, 8,
						due - MS(10)), 0ULL);
	/* Nothing of its own served yet, or a process that pauses long. */
	reader->last_done_ns = 0;
	KUNIT_EXPECT_EQ(test, bfq_wr_frame_wait(d.bfqd, reader, 256,
						due - MS(10)), 0ULL);
	reader->last_done_ns = t;
	reader->think_ns = MS(20);
	KUNIT_EXPECT_EQ(test, bfq_wr_frame_wait(d.bfqd, reader, 256,
						due - MS(10)), 0ULL);
	reader->think_ns = (100 * NSEC_PER_USEC);
	/* The frame came: nothing to wait for until the next one. */
	bfq_wr_backlogged(d.bfqd, player, due - MS(1), due - MS(1), true);
	KUNIT_EXPECT_EQ(test, bfq_wr_frame_wait(d.bfqd, reader, 256, due),
			0ULL);
	/* A pause longer than a soft real-time raising: no period. */
	bfq_wr_maybe_idle(d.bfqd, player, due + MS(14));
	t = due - MS(1) + MS(BFQ_WR_SOFTRT_DURATION_MS + 1);
	bfq_wr_backlogged(d.bfqd, player, t, t, true);
	KUNIT_EXPECT_EQ(test, player->wr.period_ns, 0ULL);
	spin_unlock_irq(&d.bfqd->lock);
}

/*
 * Rule 9, writeback: while an application starts, an async request waits
 * BFQ_WR_COEFF times the transfer of the one sent before it at the peak
 * rate (BFQ_WR_APP_GAP_MS before the rate is known); sync requests, and
 * everything once the application is quiet or low_latency is 0, are not
 * paced.
 */
static void bfq_wr_async_paced_times(struct kunit *test)
{
	struct bfq_wr_test_dev d;
	struct bfq_queue *app, *async, *sync;
	u64 now = MS(100000), wait;

	bfq_wr_test_dev_init(test, &d);
	app = d.q[0];
	sync = d.q[1];
	async = d.q[2];
	async->sync = false;
	spin_lock_irq(&d.bfqd->lock);
	app->wr.idle = true;
	app->wr.idle_since_ns = now - MS(60000);
	bfq_wr_backlogged(d.bfqd, app, now - MS(100), now - MS(100), true);
	KUNIT_ASSERT_EQ(test, app->wr.kind, BFQ_WR_INTERACTIVE);
	/* Nothing sent yet: nothing paced. */
	bfq_wr_raised_io(d.bfqd, app, now);
	KUNIT_EXPECT_EQ(test, bfq_wr_async_paced(d.bfqd, async, now), 0ULL);
	/* Rate unknown: one per BFQ_WR_APP_GAP_MS. */
	bfq_wr_async_sent(d.bfqd, 2560, now);
	KUNIT_EXPECT_EQ(test, bfq_wr_async_paced(d.bfqd, async, now + MS(1)),
			MS(BFQ_WR_APP_GAP_MS - 1));
	/* 125 MB/s: 1.25 MiB takes 10.5 ms, the next waits 30 times that. */
	d.bfqd->rate.nr_samples = 1;
	d.bfqd->rate.peak_sectors_per_sec = 244140;
	bfq_wr_async_sent(d.bfqd, 2560, now);
	wait = div64_u64(2560ULL * BFQ_WR_COEFF * NSEC_PER_SEC, 244140);
	KUNIT_EXPECT_EQ(test, bfq_wr_async_paced(d.bfqd, async, now), wait);
	KUNIT_EXPECT_EQ(test, bfq_wr_async_paced(d.bfqd, sync, now), 0ULL);
	/* The application reading again later still holds it back... */
	bfq_wr_raised_io(d.bfqd, app, now + MS(100));
	KUNIT_EXPECT_EQ(test, bfq_wr_async_paced(d.bfqd, async, now + MS(100)),
			wait - MS(100));
	/* ... until the wait is over. */
	KUNIT_EXPECT_EQ(test, bfq_wr_async_paced(d.bfqd, async, now + wait),
			0ULL);
	/* Quiet past the gap, or low_latency=0: not paced. */
	now += MS(100 + BFQ_WR_APP_GAP_MS);
	KUNIT_EXPECT_EQ(test, bfq_wr_async_paced(d.bfqd, async, now), 0ULL);
	bfq_wr_raised_io(d.bfqd, app, now);
	bfq_wr_async_sent(d.bfqd, 2560, now);
	KUNIT_EXPECT_EQ(test, bfq_wr_async_paced(d.bfqd, async, now), wait);
	d.bfqd->tun.low_latency = 0;
	KUNIT_EXPECT_EQ(test, bfq_wr_async_paced(d.bfqd, async, now), 0ULL);
	spin_unlock_irq(&d.bfqd->lock);
}

/*
 * Rule 5's yield: the device stops idling for an application starting in
 * service only for another application starting next in line, and only
 * where the device takes several requests at once.
 */
struct bfq_yield_case {
	const char *desc;
	unsigned int driver_depth;
	bool other_busy;
	enum bfq_wr_kind other_kind;
	bool yields;
	s64 other_earlier_ms;	/* its raising began that long before */
};

static const struct bfq_yield_case bfq_yield_cases[] = {
	{ "deep device, another application starting next", 32, true,
	  BFQ_WR_INTERACTIVE, true },
	{ "deep device, a queue not raised next", 32, true,
	  BFQ_WR_NONE, false },
	{ "deep device, a soft real-time queue next", 32, true,
	  BFQ_WR_SOFT_RT, false },
	{ "deep device, nobody waiting", 32, false,
	  BFQ_WR_INTERACTIVE, false },
	{ "one-request device", 1, true, BFQ_WR_INTERACTIVE, false },
	{ "depth not known yet", 0, true, BFQ_WR_INTERACTIVE, false },
	{ "next started seconds before (rule 10)", 32, true,
	  BFQ_WR_INTERACTIVE, false, 2 * BFQ_WR_TOGETHER_MS },
	{ "next started together", 32, true, BFQ_WR_INTERACTIVE, true,
	  BFQ_WR_TOGETHER_MS / 2 },
	{ "next started later", 32, true, BFQ_WR_INTERACTIVE, true,
	  -2 * BFQ_WR_TOGETHER_MS },
};

BFQ_KUNIT_TABLE(bfq_yield, bfq_yield_cases, bfq_yield_case);

static void bfq_wr_yields_table(struct kunit *test)
{
	const struct bfq_yield_case *c = test->param_value;
	struct bfq_data *bfqd = bfq_test_bfqd(test);
	struct bfq_queue *q[2], *cur, *other;
	struct bfq_entity *sel;
	u64 now = MS(100000);
	bool yields;
	int i;

	bfq_sched_init(&bfqd->sched);
	for (i = 0; i < 2; i++) {
		q[i] = bfq_test_queue(test, bfqd, 100 + i);
		q[i]->entity.budget_sectors = 256;
	}
	bfqd->driver_depth = c->driver_depth;
	spin_lock_irq(&bfqd->lock);
	bfq_entity_activate(&q[0]->entity);
	if (c->other_busy)
		bfq_entity_activate(&q[1]->entity);
	sel = bfq_sched_select(&bfqd->sched, jiffies);
	cur = sel == &q[1]->entity ? q[1] : q[0];
	other = cur == q[0] ? q[1] : q[0];
	cur->wr.kind = BFQ_WR_INTERACTIVE;
	cur->wr.coeff = BFQ_WR_COEFF;
	cur->wr.start_ns = now - MS(3000);
	cur->wr.dur_ns = MS(5000);
	other->wr.kind = c->other_kind;
	other->wr.coeff = c->other_kind == BFQ_WR_NONE ? 1 : BFQ_WR_COEFF;
	other->wr.start_ns = cur->wr.start_ns - MS(c->other_earlier_ms);
	other->wr.dur_ns = MS(10000);
	yields = bfq_wr_yields(bfqd, cur, now);
	spin_unlock_irq(&bfqd->lock);
	KUNIT_EXPECT_PTR_EQ(test, sel, &cur->entity);
	KUNIT_EXPECT_EQ(test, yields, c->yields);
}

/*
 * A process that asked for its request before its queue went idle (it
 * waited for a scheduler tag meanwhile) did not pause: no raising, and
 * its soft real-time count starts again. One that asked after a long
 * idle is raised, however late the request arrives.
 */
static void bfq_wr_queue_asked_time(struct kunit *test)
{
	struct bfq_wr_test_dev d;
	struct bfq_queue *bfqq;

	bfq_wr_test_dev_init(test, &d);
	bfqq = d.q[0];
	spin_lock_irq(&d.bfqd->lock);
	bfqq->wr.seen_busy = true;
	bfqq->wr.idle = true;
	bfqq->wr.idle_since_ns = MS(1000);
	bfqq->wr.softrt_batches = BFQ_SOFTRT_MIN_BATCHES;
	bfq_wr_backlogged(d.bfqd, bfqq, MS(1000 + BFQ_WR_MIN_IDLE_MS + 10),
			  MS(999), true);
	KUNIT_EXPECT_EQ(test, bfqq->wr.coeff, 1U);
	KUNIT_EXPECT_EQ(test, bfqq->wr.softrt_batches, 0U);

	bfqq->wr.idle = true;
	bfqq->wr.idle_since_ns = MS(5000);
	bfq_wr_backlogged(d.bfqd, bfqq, MS(5000 + BFQ_WR_MIN_IDLE_MS + 10),
			  MS(5000 + BFQ_WR_MIN_IDLE_MS), true);
	KUNIT_EXPECT_EQ(test, bfqq->wr.kind, BFQ_WR_INTERACTIVE);
	spin_unlock_irq(&d.bfqd->lock);
}

static struct kunit_case bfq_wr_cases[] = {
	KUNIT_CASE_PARAM(bfq_wr_duration_ns_table, bfq_wr_duration_gen_params),
	KUNIT_CASE(bfq_wr_duration_ns_monotonic),
	KUNIT_CASE_PARAM(bfq_wr_softrt_next_start_ns_table,
			 bfq_softrt_gen_params),
	KUNIT_CASE_PARAM(bfq_wr_softrt_detection_patterns,
			 bfq_softrt_pattern_gen_params),
	KUNIT_CASE_PARAM(bfq_wr_choose_table, bfq_wr_choose_gen_params),
	KUNIT_CASE(bfq_wr_softrt_batches_steps),
	KUNIT_CASE(bfq_wr_preempts_cases),
	KUNIT_CASE(bfq_wr_greedy_turns_reasons),
	KUNIT_CASE(bfq_wr_queue_paced_ends),
	KUNIT_CASE(bfq_wr_bulk_turns_table),
	KUNIT_CASE(bfq_wr_aside_table),
	KUNIT_CASE_PARAM(bfq_wr_burst_birth_table, bfq_burst_gen_params),
	KUNIT_CASE(bfq_wr_burst_size_bound),
	KUNIT_CASE(bfq_wr_queue_burst_lifecycle),
	KUNIT_CASE(bfq_wr_newcomer_in_bursts),
	KUNIT_CASE(bfq_wr_queue_exit_unlinks),
	KUNIT_CASE(bfq_wr_queue_off_and_lapse),
	KUNIT_CASE(bfq_wr_queue_bulk_ends),
	KUNIT_CASE(bfq_wr_queue_async_reader_ends),
	KUNIT_CASE(bfq_wr_queue_aside),
	KUNIT_CASE(bfq_wr_queue_softrt_over_interactive),
	KUNIT_CASE(bfq_wr_holds_back_frames),
	KUNIT_CASE(bfq_wr_frame_wait_times),
	KUNIT_CASE_PARAM(bfq_wr_tag_reserve_table, bfq_tag_reserve_gen_params),
	KUNIT_CASE(bfq_wr_queue_asked_time),
	KUNIT_CASE_PARAM(bfq_wr_holds_back_table, bfq_holds_back_gen_params),
	KUNIT_CASE(bfq_wr_async_paced_times),
	KUNIT_CASE_PARAM(bfq_wr_yields_table, bfq_yield_gen_params),
	{}
};

static struct kunit_suite bfq_wr_suite = {
	.name = "bfq_wr",
	.test_cases = bfq_wr_cases,
};

kunit_test_suite(bfq_wr_suite);
