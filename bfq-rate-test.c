// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the peak-rate estimator and the seek cost (bfq-rate.c),
 * #included at its end.
 */
#include <kunit/test.h>

#include "bfq-test.h"

static void bfq_test_feed(struct bfq_rate *r, u64 *now, int n,
			  unsigned int sectors, u64 ns, bool seq)
{
	int i;

	for (i = 0; i < n; i++) {
		bfq_rate_dispatched(r, *now, seq, 0);
		*now += ns;
		bfq_rate_completed(r, *now, sectors, 0);
		*now += ns;
	}
}

/*
 * Sequential 256 KiB reads, 1 ms each, 1 ms apart: 512 sectors per busy
 * ms. The idle gaps do not dilute the rate; 100 ms of busy time close the
 * window.
 */
static void bfq_rate_sequential_sample(struct kunit *test)
{
	struct bfq_rate r = {};
	u64 now = 1000;

	bfq_test_feed(&r, &now, 99, 512, NSEC_PER_MSEC, true);
	KUNIT_EXPECT_EQ(test, r.nr_samples, 0U);
	bfq_test_feed(&r, &now, 1, 512, NSEC_PER_MSEC, true);
	KUNIT_EXPECT_EQ(test, r.nr_samples, 1U);
	KUNIT_EXPECT_EQ(test, r.peak_sectors_per_sec, 512000ULL);
	/* 125 ms at that rate. */
	KUNIT_EXPECT_EQ(test, bfq_rate_auto_budget(&r, 125), 64000U);
}

/*
 * A request leaves and completes as bfq-iosched.c reports it: to both
 * estimators, the seek cost's far time first (bfq_rq_completed()).
 */
static void bfq_test_rq_sent(struct bfq_rate *r, struct bfq_seek_cost *sc,
			     u64 now, sector_t pos, unsigned int in_driver)
{
	bfq_rate_dispatched(r, now, true, in_driver);
	bfq_rate_seek_dispatched(sc, now, pos, 256, in_driver);
}

static void bfq_test_rq_done(struct bfq_rate *r, struct bfq_seek_cost *sc,
			     u64 now, unsigned int in_driver)
{
	u64 far_ns = bfq_rate_seek_completed(sc, now, in_driver);

	if (far_ns)
		bfq_rate_far_served(r, far_ns, 256);
	bfq_rate_completed(r, now, 256, in_driver);
}

/*
 * Two sequential readers at a disk's two ends, turns of 10 requests of 256
 * sectors: 1 ms each at one end, 2 ms at the other, and each turn's first
 * request a far one served alone in 20 ms. The far requests' time and
 * sectors are out of the peak; the window is the two zones' transfer.
 */
static void bfq_rate_far_alone_left_out(struct kunit *test)
{
	struct bfq_seek_cost sc = {};
	struct bfq_rate r = {};
	sector_t pos[2] = { 0, 1ULL << 30 };
	u64 now = 1000;
	int turn, i;

	for (turn = 0; turn < 6 && !r.nr_samples; turn++) {
		u64 ns = (turn & 1 ? 2 : 1) * NSEC_PER_MSEC;
		sector_t *p = &pos[!(turn & 1)];

		for (i = 0; i < 10; i++) {
			bfq_test_rq_sent(&r, &sc, now, *p, 0);
			now += i ? ns : 20 * NSEC_PER_MSEC;
			*p += 256;
			bfq_test_rq_done(&r, &sc, now, 0);
		}
	}
	/*
	 * The window closed at its 32nd request, the second of the fourth
	 * turn: 4 far requests, and 9 + 9 + 9 + 1 near ones in 9 + 18 + 9 +
	 * 2 ms.
	 */
	KUNIT_EXPECT_EQ(test, r.nr_samples, 1U);
	KUNIT_EXPECT_EQ(test, r.peak_sectors_per_sec,
			div64_u64(28ULL * 256 * NSEC_PER_SEC,
				  38 * NSEC_PER_MSEC));
	/* Counted in, the far requests' time was two thirds of it. */
	KUNIT_EXPECT_EQ(test, r.drain_sectors_per_sec,
			div64_u64(32ULL * 256 * NSEC_PER_SEC,
				  118 * NSEC_PER_MSEC));
	/* Another request beside it: not alone, its time counted in. */
	KUNIT_EXPECT_EQ(test, r.win_far_ns, 0ULL);
	bfq_test_rq_sent(&r, &sc, now, 0, 0);
	bfq_test_rq_sent(&r, &sc, now, 1ULL << 31, 1);
	now += 20 * NSEC_PER_MSEC;
	bfq_test_rq_done(&r, &sc, now, 1);
	bfq_test_rq_done(&r, &sc, now, 0);
	KUNIT_EXPECT_EQ(test, r.win_far_ns, 0ULL);
}

/*
 * Too few requests in the window's second of wall time, too little busy
 * time, or seeky: not a sample of the peak (a seeky one is of the rate the
 * device empties at).
 */
static void bfq_rate_rejects_weak_samples(struct kunit *test)
{
	struct bfq_rate r = {};
	u64 now = 0;
	int i;

	for (i = 0; i < 7; i++) {
		bfq_rate_dispatched(&r, now, true, 0);
		now += 15 * NSEC_PER_MSEC;
		bfq_rate_completed(&r, now, 512, 0);
		now += 150 * NSEC_PER_MSEC;
	}
	KUNIT_EXPECT_FALSE(test, r.win_open);
	KUNIT_EXPECT_EQ(test, r.nr_samples, 0U);
	for (i = 0; i < 40; i++) {
		bfq_rate_dispatched(&r, now, true, 0);
		bfq_rate_completed(&r, now + 100 * NSEC_PER_USEC, 8, 0);
		now += 26 * NSEC_PER_MSEC;
	}
	KUNIT_EXPECT_FALSE(test, r.win_open);
	KUNIT_EXPECT_EQ(test, r.nr_samples, 0U);
	KUNIT_EXPECT_EQ(test, r.nr_drain, 0U);
	KUNIT_EXPECT_EQ(test, bfq_rate_drain(&r), 0ULL);
	/* Seeky: no peak, but the rate the device empties at. */
	bfq_test_feed(&r, &now, 128, 512, NSEC_PER_MSEC, false);
	KUNIT_EXPECT_EQ(test, r.nr_samples, 0U);
	KUNIT_EXPECT_EQ(test, bfq_rate_auto_budget(&r, 125), 0U);
	KUNIT_EXPECT_EQ(test, r.nr_drain, 1U);
	KUNIT_EXPECT_EQ(test, bfq_rate_drain(&r), 512000ULL);
	/* Once measured, the peak rate is the one the device empties at. */
	bfq_test_feed(&r, &now, 200, 1024, NSEC_PER_MSEC, true);
	KUNIT_EXPECT_EQ(test, r.nr_samples, 1U);
	KUNIT_EXPECT_EQ(test, bfq_rate_drain(&r), 1024000ULL);
	KUNIT_EXPECT_EQ(test, r.nr_drain, 3U);
}

/*
 * A disk streaming 128 KiB reads at ~31 MB/s: 4 ms each, so 100 ms of busy
 * time hold 25 requests. The window waits for its 32nd rather than closing
 * short and being refused, which left such disks unmeasured.
 */
static void bfq_rate_waits_for_requests(struct kunit *test)
{
	struct bfq_rate r = {};
	u64 now = 0;

	bfq_test_feed(&r, &now, 25, 256, 4 * NSEC_PER_MSEC, true);
	KUNIT_EXPECT_TRUE(test, r.win_open);
	bfq_test_feed(&r, &now, 6, 256, 4 * NSEC_PER_MSEC, true);
	KUNIT_EXPECT_EQ(test, r.nr_samples, 0U);
	bfq_test_feed(&r, &now, 1, 256, 4 * NSEC_PER_MSEC, true);
	KUNIT_EXPECT_EQ(test, r.nr_samples, 1U);
	KUNIT_EXPECT_EQ(test, r.peak_sectors_per_sec, 64000ULL);
}

/*
 * A device that queues: rounds of 32 requests dispatched at once, one
 * completing per ms. The rate is what completed per busy time, not what
 * the device accepted.
 */
static void bfq_rate_queueing_device(struct kunit *test)
{
	struct bfq_rate r = {};
	u64 now = 0;
	int round, i;

	for (round = 0; round < 4; round++) {
		for (i = 0; i < 32; i++)
			bfq_rate_dispatched(&r, now, true, i);
		for (i = 0; i < 32; i++) {
			now += NSEC_PER_MSEC;
			bfq_rate_completed(&r, now, 256, 31 - i);
		}
		now += 5 * NSEC_PER_MSEC;
	}
	KUNIT_EXPECT_EQ(test, r.nr_samples, 1U);
	KUNIT_EXPECT_EQ(test, r.peak_sectors_per_sec, 256000ULL);
}

/*
 * The driver gives each request back after 1 ms (busy), sends it again 9 ms
 * later and completes it 1 ms after that: 2 ms of service per 256 sectors.
 * The 9 ms it sat requeued are not service time, and a request is counted
 * once however often it goes out.
 */
static void bfq_rate_requeue(struct kunit *test)
{
	struct bfq_rate r = {};
	u64 now = 0;
	int i;

	for (i = 0; i < 50; i++) {
		bfq_rate_dispatched(&r, now, true, 0);
		now += NSEC_PER_MSEC;
		bfq_rate_requeued(&r, now, 0);
		now += 9 * NSEC_PER_MSEC;
		bfq_rate_redispatched(&r, now, 0);
		now += NSEC_PER_MSEC;
		if (i == 9)
			KUNIT_EXPECT_EQ(test, r.win_rqs, 10U);
		bfq_rate_completed(&r, now, 256, 0);
		now += NSEC_PER_MSEC;
	}
	KUNIT_EXPECT_EQ(test, r.nr_samples, 1U);
	KUNIT_EXPECT_EQ(test, r.peak_sectors_per_sec, 128000ULL);
}

/* The estimate rises halfway to a faster sample, falls 1/8 to a slower. */
static void bfq_rate_filter(struct kunit *test)
{
	struct bfq_rate r = {};
	u64 now = 0;

	bfq_test_feed(&r, &now, 100, 512, NSEC_PER_MSEC, true);
	KUNIT_ASSERT_EQ(test, r.peak_sectors_per_sec, 512000ULL);
	bfq_test_feed(&r, &now, 100, 1024, NSEC_PER_MSEC, true);
	KUNIT_EXPECT_EQ(test, r.peak_sectors_per_sec, 768000ULL);
	bfq_test_feed(&r, &now, 100, 256, NSEC_PER_MSEC, true);
	KUNIT_EXPECT_EQ(test, r.peak_sectors_per_sec, 768000ULL - 64000ULL);
}

/* The autotuned budget stays inside its bounds. */
static void bfq_rate_auto_budget_bounds(struct kunit *test)
{
	struct bfq_rate r = { .nr_samples = 1 };

	r.peak_sectors_per_sec = 100;
	KUNIT_EXPECT_EQ(test, bfq_rate_auto_budget(&r, 125),
			(unsigned int)BFQ_AUTO_BUDGET_MIN_SECTORS);
	r.peak_sectors_per_sec = 1ULL << 40;
	KUNIT_EXPECT_EQ(test, bfq_rate_auto_budget(&r, 10000),
			(unsigned int)BFQ_AUTO_BUDGET_MAX_SECTORS);
}

/*
 * Rule 4, the seek cost. A device pattern: requests of @sectors served
 * alone, alternating between near ones taking @near_us and far ones
 * taking @far_us, @rounds times each.
 */
struct bfq_seek_case {
	const char *desc;
	unsigned int sectors, near_us, far_us, rounds;
	bool overlap;		/* a second request joins each one */
	bool costly;		/* expected bfq_rate_seek_costly() */
};

static const struct bfq_seek_case bfq_seek_cases[] = {
	{ "disk: far 8 ms, near 1 ms", 256, 1000, 8000, 40, false, true },
	{ "flat device: 200 vs 210 us", 256, 200, 210, 40, false, false },
	{ "flash: 4k random like sequential", 8, 90, 95, 40, false, false },
	{ "too few samples: the device's word", 256, 200, 200, 15, false,
	  true },
	{ "just enough samples", 256, 200, 200, 16, false, false },
	{ "between thresholds at first: word", 256, 1000, 1200, 40, false,
	  true },
	{ "overlapping requests: no samples", 256, 200, 200, 40, true, true },
	{ "far exactly 5/4 at first: the word", 256, 1000, 1250, 40, false,
	  true },
	{ "far just over 5/4: costly", 256, 1000, 1260, 40, false, true },
};

BFQ_KUNIT_TABLE(bfq_seek, bfq_seek_cases, bfq_seek_case);

/* One request at @pos alone in the device for @us, or joined by another. */
static void bfq_seek_feed(struct bfq_seek_cost *sc, u64 *now, sector_t pos,
			  unsigned int sectors, unsigned int us, bool overlap)
{
	bfq_rate_seek_dispatched(sc, *now, pos, sectors, 0);
	if (overlap)
		bfq_rate_seek_dispatched(sc, *now, pos + sectors, sectors, 1);
	*now += us * NSEC_PER_USEC;
	if (overlap)
		bfq_rate_seek_completed(sc, *now, 1);
	bfq_rate_seek_completed(sc, *now, 0);
	*now += 100 * NSEC_PER_USEC;
}

static void bfq_rate_seek_table(struct kunit *test)
{
	const struct bfq_seek_case *c = test->param_value;
	struct bfq_seek_cost sc = {};
	sector_t far = 0;
	u64 now = 0;
	unsigned int i;

	for (i = 0; i < c->rounds; i++) {
		/* 1 GiB further each time: far from the last request. */
		far += 1 << 21;
		bfq_seek_feed(&sc, &now, far, c->sectors, c->far_us,
			      c->overlap);
		bfq_seek_feed(&sc, &now, sc.last_end, c->sectors, c->near_us,
			      c->overlap);
	}
	KUNIT_EXPECT_EQ(test, bfq_rate_seek_costly(&sc), c->costly);
}

/*
 * Between the thresholds a verdict stays; a device that changes (a cache
 * in front of a disk warming up) moves it once the averages cross one.
 */
static void bfq_rate_seek_hysteresis(struct kunit *test)
{
	struct bfq_seek_cost sc = {};
	sector_t far = 0;
	u32 near, far_ns;
	u64 now = 0;
	int i;

	for (i = 0; i < 32; i++) {
		far += 1 << 21;
		bfq_seek_feed(&sc, &now, far, 256, 200, false);
		bfq_seek_feed(&sc, &now, sc.last_end, 256, 200, false);
	}
	KUNIT_ASSERT_FALSE(test, bfq_rate_seek_costly(&sc));
	/* 1.2x: between 9/8 and 5/4, still free. */
	for (i = 0; i < 64; i++) {
		far += 1 << 21;
		bfq_seek_feed(&sc, &now, far, 256, 240, false);
		bfq_seek_feed(&sc, &now, sc.last_end, 256, 200, false);
	}
	KUNIT_EXPECT_FALSE(test, bfq_rate_seek_costly(&sc));
	for (i = 0; i < 64; i++) {
		far += 1 << 21;
		bfq_seek_feed(&sc, &now, far, 256, 2000, false);
		bfq_seek_feed(&sc, &now, sc.last_end, 256, 200, false);
	}
	KUNIT_EXPECT_TRUE(test, bfq_rate_seek_costly(&sc));
	/* Mid-distance requests, a requeue, a 2 s retry: not samples. */
	near = sc.near_ns[8];
	far_ns = sc.far_ns[8];
	bfq_rate_seek_dispatched(&sc, now, sc.last_end + 1000, 256, 0);
	KUNIT_EXPECT_FALSE(test, sc.solo);
	bfq_rate_seek_dispatched(&sc, now, far, 256, 0);
	bfq_rate_seek_cancel(&sc);
	bfq_rate_seek_completed(&sc, now + 5000, 0);
	bfq_rate_seek_dispatched(&sc, now, sc.last_end, 256, 0);
	bfq_rate_seek_completed(&sc, now + 2 * NSEC_PER_SEC, 0);
	KUNIT_EXPECT_EQ(test, sc.near_ns[8], near);
	KUNIT_EXPECT_EQ(test, sc.far_ns[8], far_ns);
}

/* Every size class with a verdict must find seeks free. */
static void bfq_rate_seek_size_classes(struct kunit *test)
{
	struct bfq_seek_cost sc = {};
	sector_t far = 0;
	u64 now = 0;
	int i;

	for (i = 0; i < 20; i++) {
		far += 1 << 21;
		bfq_seek_feed(&sc, &now, far, 8, 100, false);
		bfq_seek_feed(&sc, &now, sc.last_end, 8, 100, false);
	}
	KUNIT_ASSERT_FALSE(test, bfq_rate_seek_costly(&sc));
	for (i = 0; i < 20; i++) {
		far += 1 << 21;
		bfq_seek_feed(&sc, &now, far, 1024, 9000, false);
		bfq_seek_feed(&sc, &now, sc.last_end, 1024, 2000, false);
	}
	KUNIT_EXPECT_TRUE(test, bfq_rate_seek_costly(&sc));
	KUNIT_EXPECT_EQ(test, sc.known, (u16)(BIT(3) | BIT(10)));
	/* Sizes past the last class share it. */
	bfq_rate_seek_dispatched(&sc, now, far + (1 << 21), 1 << 20, 0);
	KUNIT_EXPECT_TRUE(test, sc.solo);
	KUNIT_EXPECT_EQ(test, sc.solo_size, (u8)(BFQ_SEEK_NR_SIZES - 1));
}

/*
 * bfq-budget.c rule 3 charges a seeky turn by the far time of its requests'
 * size class: nothing until the class holds BFQ_SEEK_MIN_SAMPLES far
 * samples, then their average; near samples and other classes do not
 * count.
 */
static void bfq_rate_seek_far_time(struct kunit *test)
{
	struct bfq_seek_cost sc = {};
	sector_t far = 0;
	u64 now = 0;
	int i;

	for (i = 0; i < BFQ_SEEK_MIN_SAMPLES - 1; i++) {
		far += 1 << 21;
		bfq_seek_feed(&sc, &now, far, 8, 6000, false);
		bfq_seek_feed(&sc, &now, sc.last_end, 8, 300, false);
	}
	KUNIT_EXPECT_EQ(test, bfq_rate_seek_far_ns(&sc, 8), 0ULL);
	far += 1 << 21;
	bfq_seek_feed(&sc, &now, far, 8, 6000, false);
	KUNIT_EXPECT_EQ(test, bfq_rate_seek_far_ns(&sc, 8),
			6000ULL * NSEC_PER_USEC);
	/* 15 sectors are in the class of 8; 16 and 0 are not. */
	KUNIT_EXPECT_EQ(test, bfq_rate_seek_far_ns(&sc, 15),
			6000ULL * NSEC_PER_USEC);
	KUNIT_EXPECT_EQ(test, bfq_rate_seek_far_ns(&sc, 16), 0ULL);
	KUNIT_EXPECT_EQ(test, bfq_rate_seek_far_ns(&sc, 0), 0ULL);
}

static struct kunit_case bfq_rate_test_cases[] = {
	KUNIT_CASE(bfq_rate_sequential_sample),
	KUNIT_CASE(bfq_rate_far_alone_left_out),
	KUNIT_CASE(bfq_rate_rejects_weak_samples),
	KUNIT_CASE(bfq_rate_waits_for_requests),
	KUNIT_CASE(bfq_rate_queueing_device),
	KUNIT_CASE(bfq_rate_requeue),
	KUNIT_CASE(bfq_rate_filter),
	KUNIT_CASE(bfq_rate_auto_budget_bounds),
	KUNIT_CASE_PARAM(bfq_rate_seek_table, bfq_seek_gen_params),
	KUNIT_CASE(bfq_rate_seek_hysteresis),
	KUNIT_CASE(bfq_rate_seek_size_classes),
	KUNIT_CASE(bfq_rate_seek_far_time),
	{}
};

static struct kunit_suite bfq_rate_suite = {
	.name = "bfq_rate",
	.test_cases = bfq_rate_test_cases,
};

kunit_test_suite(bfq_rate_suite);
