// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the service layer (bfq-wf2q.c), #included at its end so
 * they can reach its static functions. No request_queue is needed.
 */
#include <kunit/test.h>

static void bfq_ioprio_to_weight_levels(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, bfq_ioprio_to_weight(0), 80U);
	KUNIT_EXPECT_EQ(test, bfq_ioprio_to_weight(4), 40U);
	KUNIT_EXPECT_EQ(test, bfq_ioprio_to_weight(7), 10U);
	/* Out-of-range levels count as the lowest, never as weight 0. */
	KUNIT_EXPECT_EQ(test, bfq_ioprio_to_weight(100), 10U);
}

static void bfq_sched_next_empty(struct kunit *test)
{
	struct bfq_sched_data sd;

	bfq_sched_init(&sd);
	KUNIT_EXPECT_NULL(test, bfq_sched_next(&sd));
	KUNIT_EXPECT_EQ(test, sd.nr_active, 0U);
}

/*
 * Three backlogged entities with a budget of 8 sectors, each served 4
 * sectors at a time: each must get two services per turn, and turns must
 * rotate A, B, C, A, ... whatever the order of activation.
 */
static void bfq_sched_next_round_robin(struct kunit *test)
{
	struct bfq_entity e[3];
	struct bfq_sched_data sd;
	int served[3] = { 0 };
	int i, step;

	bfq_sched_init(&sd);
	for (i = 0; i < 3; i++) {
		bfq_entity_init(&e[i], 10);
		e[i].budget_sectors = 8;
		bfq_entity_activate(&sd, &e[i]);
	}
	for (step = 0; step < 12; step++) {
		struct bfq_entity *next = bfq_sched_next(&sd);

		KUNIT_ASSERT_NOT_NULL(test, next);
		KUNIT_EXPECT_PTR_EQ(test, next, &e[(step / 2) % 3]);
		served[next - e]++;
		if (bfq_entity_charge(next, 4))
			bfq_entity_requeue(&sd, next);
	}
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ_MSG(test, served[i], 4, "entity %d", i);
}

/* An entity that empties leaves the rotation and rejoins at the tail. */
static void bfq_entity_deactivate_rejoins_at_tail(struct kunit *test)
{
	struct bfq_entity a, b;
	struct bfq_sched_data sd;

	bfq_sched_init(&sd);
	bfq_entity_init(&a, 10);
	bfq_entity_init(&b, 10);
	a.budget_sectors = b.budget_sectors = 100;
	bfq_entity_activate(&sd, &a);
	bfq_entity_activate(&sd, &b);

	KUNIT_EXPECT_FALSE(test, bfq_entity_charge(&a, 10));
	bfq_entity_deactivate(&sd, &a);
	KUNIT_EXPECT_FALSE(test, a.on_sched);
	KUNIT_EXPECT_EQ(test, sd.nr_active, 1U);
	KUNIT_EXPECT_PTR_EQ(test, bfq_sched_next(&sd), &b);

	bfq_entity_activate(&sd, &a);
	KUNIT_EXPECT_EQ(test, a.service_sectors, 0U);
	KUNIT_EXPECT_PTR_EQ(test, bfq_sched_next(&sd), &b);
	bfq_entity_deactivate(&sd, &b);
	KUNIT_EXPECT_PTR_EQ(test, bfq_sched_next(&sd), &a);
}

/* A request larger than the remaining budget still ends the turn. */
static void bfq_entity_charge_overshoot(struct kunit *test)
{
	struct bfq_entity a;

	bfq_entity_init(&a, 10);
	a.budget_sectors = 8;
	KUNIT_EXPECT_FALSE(test, bfq_entity_charge(&a, 7));
	KUNIT_EXPECT_TRUE(test, bfq_entity_charge(&a, 256));
	KUNIT_EXPECT_EQ(test, a.service_sectors, 263U);
}

static struct kunit_case bfq_wf2q_cases[] = {
	KUNIT_CASE(bfq_ioprio_to_weight_levels),
	KUNIT_CASE(bfq_sched_next_empty),
	KUNIT_CASE(bfq_sched_next_round_robin),
	KUNIT_CASE(bfq_entity_deactivate_rejoins_at_tail),
	KUNIT_CASE(bfq_entity_charge_overshoot),
	{}
};

static struct kunit_suite bfq_wf2q_suite = {
	.name = "bfq_wf2q",
	.test_cases = bfq_wf2q_cases,
};
kunit_test_suite(bfq_wf2q_suite);
