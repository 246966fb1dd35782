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
	KUNIT_EXPECT_EQ(test, bfq_budget_charge(1024, c->served, c->why),
			c->charge);
	/* With max_budget still a guess, a timeout charges what it moved. */
	KUNIT_EXPECT_EQ(test, bfq_budget_charge(0, c->served, c->why),
			c->served);
}

/*
 * Feed @n requests of @sectors, one at a time: each keeps the device busy
 * @ns, then the device sits empty for as long (a process thinking).
 */
static struct kunit_case bfq_budget_test_cases[] = {
	KUNIT_CASE_PARAM(bfq_budget_next_table, bfq_budget_gen_params),
	{}
};

static struct kunit_suite bfq_budget_suite = {
	.name = "bfq_budget",
	.test_cases = bfq_budget_test_cases,
};

kunit_test_suite(bfq_budget_suite);
