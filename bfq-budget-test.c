// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of budget feedback and turn charges (bfq-budget.c),
 * #included at its end.
 */
#include <kunit/test.h>

#include "bfq-test.h"

struct bfq_budget_case {
	const char *desc;
	enum bfq_expire_reason why;
	unsigned int budget, served;
	unsigned int next, charge;	/* expected, with max_budget 1024 */
};

static const struct bfq_budget_case bfq_budget_cases[] = {
	{ "exhausted doubles", BFQ_EXP_BUDGET, 256, 256, 512, 256 },
	{ "exhausted caps at max", BFQ_EXP_BUDGET, 768, 760, 1024, 760 },
	{ "empty keeps what was used", BFQ_EXP_EMPTY, 1024, 300, 300, 300 },
	{ "empty floors at min", BFQ_EXP_EMPTY, 1024, 8, 32, 8 },
	{ "idle timeout like empty", BFQ_EXP_IDLE_TIMEOUT, 512, 100, 100, 100 },
	{ "slow timeout charged max", BFQ_EXP_TIMEOUT, 1024, 100, 512, 1024 },
	{ "timeout past half charged max", BFQ_EXP_TIMEOUT, 1024, 600,
	  512, 1024 },
	{ "timeout beyond max charged served", BFQ_EXP_TIMEOUT, 2048, 1500,
	  1024, 1500 },
	{ "preempted keeps budget", BFQ_EXP_PREEMPTED, 512, 10, 512, 10 },
};

BFQ_KUNIT_TABLE(bfq_budget, bfq_budget_cases, bfq_budget_case);

static void bfq_budget_next_table(struct kunit *test)
{
	const struct bfq_budget_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, bfq_budget_next(1024, c->budget, c->served,
					      c->why), c->next);
	KUNIT_EXPECT_EQ(test, bfq_budget_charge(1024, c->served, c->why,
						false, 0), c->charge);
	/* With max_budget still a guess, a timeout charges what it moved. */
	KUNIT_EXPECT_EQ(test, bfq_budget_charge(0, c->served, c->why,
						false, 0), c->served);
	KUNIT_EXPECT_EQ(test, bfq_budget_charge(0, c->served, c->why,
						true, 100), c->served);
}

/*
 * Rule 2: a timed-out turn that streamed pays its sectors and the time the
 * device idled for it, at most max_budget; one that did not, max_budget.
 */
struct bfq_stream_charge_case {
	const char *desc;
	unsigned int served, busy_charge, idle_charge, charge;
};

static const struct bfq_stream_charge_case bfq_stream_charge_cases[] = {
	/* The inner zone of a disk: half the peak rate all turn long. */
	{ "slow zone pays its sectors", 512, 1024, 0, 512 },
	{ "and the idle slices' time", 512, 900, 124, 636 },
	{ "never more than max_budget", 900, 1024, 600, 1024 },
	/* A third of the peak rate still streams; below it, a full charge. */
	{ "a third of the peak rate", 342, 1024, 0, 342 },
	{ "slower: max_budget", 300, 1024, 0, 1024 },
	{ "mostly idle: max_budget", 100, 400, 624, 1024 },
	{ "no busy time, nothing moved", 0, 0, 1024, 1024 },
	{ "beyond max_budget: what it moved", 1500, 1024, 0, 1500 },
};

BFQ_KUNIT_TABLE(bfq_stream_charge, bfq_stream_charge_cases,
		bfq_stream_charge_case);

static void bfq_stream_charge_table(struct kunit *test)
{
	const struct bfq_stream_charge_case *c = test->param_value;
	bool streamed = bfq_budget_streamed(c->served, c->busy_charge);

	KUNIT_EXPECT_EQ(test, bfq_budget_charge(1024, c->served,
						BFQ_EXP_TIMEOUT, streamed,
						c->idle_charge), c->charge);
	/* Only timeouts: an emptied or exhausted turn pays its sectors. */
	KUNIT_EXPECT_EQ(test, bfq_budget_charge(1024, c->served,
						BFQ_EXP_EMPTY, streamed,
						c->idle_charge), c->served);
}

struct bfq_time_charge_case {
	const char *desc;
	u64 ns;
	unsigned int max_budget, timeout_ms, charge;
};

static const struct bfq_time_charge_case bfq_time_charge_cases[] = {
	{ "no time, no charge", 0, 16384, 125, 0 },
	{ "a 6 ms seek", 6 * NSEC_PER_MSEC, 16384, 125, 786 },
	{ "timeout_sync is a full budget", 125 * NSEC_PER_MSEC, 16384, 125,
	  16384 },
	{ "longer is charged in full", 2 * NSEC_PER_SEC, 16384, 125,
	  262144 },
	{ "capped at the budget limit", 3600ULL * NSEC_PER_SEC, 1U << 21, 125,
	  BFQ_MAX_BUDGET_LIMIT_SECTORS },
	{ "a larger budget, dearer time", 6 * NSEC_PER_MSEC, 65536, 125, 3145 },
	{ "a longer timeout, cheaper time", 6 * NSEC_PER_MSEC, 16384, 250, 393 },
	{ "timeout 0 charges max_budget", NSEC_PER_MSEC, 4096, 0, 4096 },
};

BFQ_KUNIT_TABLE(bfq_time_charge, bfq_time_charge_cases,
		bfq_time_charge_case);

/* Rule 3: device time at the rate of max_budget per timeout_sync. */
static void bfq_budget_time_charge_table(struct kunit *test)
{
	const struct bfq_time_charge_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, bfq_budget_time_charge(c->ns, c->max_budget,
						     c->timeout_ms), c->charge);
}

/*
 * Rule 1, first turns: a sync queue nothing of which has completed gets
 * its first request as budget, and is told so; a queue served before, or
 * with a budget, keeps it; an async queue, or a budget never set on a
 * queue served before, gets max_budget.
 */
static void bfq_budget_first_turn(struct kunit *test)
{
	bool first = false;

	KUNIT_EXPECT_EQ(test, bfq_budget_on_busy(1024, 0, true, false, 128,
						 false, &first), 128U);
	KUNIT_EXPECT_TRUE(test, first);
	first = false;
	KUNIT_EXPECT_EQ(test, bfq_budget_on_busy(1024, 0, true, false, 0,
						 false, &first), 1U);
	first = false;
	KUNIT_EXPECT_EQ(test, bfq_budget_on_busy(1024, 0, true, true, 128,
						 false, &first), 1024U);
	KUNIT_EXPECT_EQ(test, bfq_budget_on_busy(1024, 0, false, false, 128,
						 false, &first), 1024U);
	KUNIT_EXPECT_EQ(test, bfq_budget_on_busy(1024, 300, true, false, 128,
						 false, &first), 300U);
	KUNIT_EXPECT_FALSE(test, first);
	/* The same for a next request queued before the first turn ended. */
	KUNIT_EXPECT_EQ(test, bfq_budget_after_first(1024, 32, true), 32U);
	KUNIT_EXPECT_EQ(test, bfq_budget_after_first(1024, 32, false), 1024U);
	KUNIT_EXPECT_EQ(test, bfq_budget_after_first(1024, 0, true), 1U);
}

static struct kunit_case bfq_budget_test_cases[] = {
	KUNIT_CASE_PARAM(bfq_budget_next_table, bfq_budget_gen_params),
	KUNIT_CASE_PARAM(bfq_stream_charge_table,
			 bfq_stream_charge_gen_params),
	KUNIT_CASE(bfq_budget_first_turn),
	KUNIT_CASE_PARAM(bfq_budget_time_charge_table,
			 bfq_time_charge_gen_params),
	{}
};

static struct kunit_suite bfq_budget_suite = {
	.name = "bfq_budget",
	.test_cases = bfq_budget_test_cases,
};

kunit_test_suite(bfq_budget_suite);
