// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the service layer (bfq-wf2q.c), #included at its end so
 * they reach its static functions. No request_queue is needed: entities are
 * plain structs and the tests play the dispatcher.
 */
#include <kunit/test.h>
#include <linux/prandom.h>

#define T_MAX_ENT	64

/* Check the active tree's order and augmented values (rule 3). */
static u64 bfq_test_check_subtree(struct kunit *test, struct rb_node *node,
				  int *count)
{
	struct bfq_entity *e = bfq_rb_entity(node);
	u64 min = e->start;

	(*count)++;
	if (node->rb_left) {
		struct bfq_entity *l = bfq_rb_entity(node->rb_left);
		u64 m = bfq_test_check_subtree(test, node->rb_left, count);

		KUNIT_EXPECT_FALSE(test, bfq_vt_before(e->finish, l->finish));
		if (bfq_vt_before(m, min))
			min = m;
	}
	if (node->rb_right) {
		struct bfq_entity *r = bfq_rb_entity(node->rb_right);
		u64 m = bfq_test_check_subtree(test, node->rb_right, count);

		KUNIT_EXPECT_FALSE(test, bfq_vt_before(r->finish, e->finish));
		if (bfq_vt_before(m, min))
			min = m;
	}
	KUNIT_EXPECT_EQ_MSG(test, e->min_start, min, "augmented min_start");
	return min;
}

static void bfq_test_check_tree(struct kunit *test,
				struct bfq_service_tree *st)
{
	int count = 0;

	if (st->active.rb_node)
		bfq_test_check_subtree(test, st->active.rb_node, &count);
	KUNIT_EXPECT_EQ(test, (unsigned int)count, st->nr_active);
}

/* O(N) reference for bfq_first_eligible(): in-order, first eligible. */
static struct bfq_entity *bfq_test_scan(struct bfq_service_tree *st)
{
	struct rb_node *node;

	for (node = rb_first(&st->active); node; node = rb_next(node)) {
		struct bfq_entity *e = bfq_rb_entity(node);

		if (!bfq_vt_before(st->vtime, e->start))
			return e;
	}
	return NULL;
}

/* @n top-level BE entities of level @sd, each of one @budget. */
static void bfq_test_entities(struct bfq_sched_data *sd, struct bfq_entity *e,
			      int n, const unsigned int *weights,
			      unsigned int budget)
{
	int i;

	for (i = 0; i < n; i++) {
		bfq_entity_init(&e[i], weights[i], BFQ_CLASS_BE);
		bfq_entity_place(&e[i], sd, NULL);
		e[i].budget_sectors = budget;
	}
}

static void bfq_ioprio_to_weight_levels(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, bfq_ioprio_to_weight(0), 80U);
	KUNIT_EXPECT_EQ(test, bfq_ioprio_to_weight(4), 40U);
	KUNIT_EXPECT_EQ(test, bfq_ioprio_to_weight(7), 10U);
	/* Out-of-range levels count as the lowest, never as weight 0. */
	KUNIT_EXPECT_EQ(test, bfq_ioprio_to_weight(100), 10U);
}

static void bfq_sched_select_empty(struct kunit *test)
{
	struct bfq_sched_data sd;

	bfq_sched_init(&sd);
	KUNIT_EXPECT_NULL(test, bfq_sched_select(&sd, jiffies));
	KUNIT_EXPECT_FALSE(test, bfq_sched_busy(&sd));
}

/*
 * Always-backlogged entities served whole budgets: at every step each one's
 * service stays within two budgets of its weighted share of the total.
 */
static void bfq_sched_select_weighted_share(struct kunit *test)
{
	static const unsigned int w[] = { 10, 20, 40, 80, 10 };
	const int n = ARRAY_SIZE(w), budget = 64;
	u64 served[ARRAY_SIZE(w)] = { 0 }, total = 0;
	struct bfq_entity e[ARRAY_SIZE(w)];
	struct bfq_sched_data sd;
	unsigned int wsum = 0;
	int i, step;

	bfq_sched_init(&sd);
	bfq_test_entities(&sd, e, n, w, budget);
	for (i = 0; i < n; i++) {
		bfq_entity_activate(&e[i]);
		wsum += w[i];
	}
	for (step = 0; step < 2000; step++) {
		struct bfq_entity *s = bfq_sched_select(&sd, jiffies);

		KUNIT_ASSERT_NOT_NULL(test, s);
		served[s - e] += budget;
		total += budget;
		bfq_entity_expire(s, budget, true);
		for (i = 0; i < n; i++) {
			s64 ideal = div_u64(total * w[i], wsum);
			s64 lag = (s64)served[i] - ideal;

			KUNIT_ASSERT_TRUE_MSG(test, abs(lag) <= 2 * budget,
					      "step %d entity %d lag %lld",
					      step, i, lag);
		}
	}
}

/* Service is charged as received: a short turn costs less virtual time. */
static void bfq_entity_expire_charges_service(struct kunit *test)
{
	static const unsigned int w[] = { 10, 10 };
	struct bfq_entity e[2];
	struct bfq_sched_data sd;
	u64 served[2] = { 0 };
	int step;

	bfq_sched_init(&sd);
	bfq_test_entities(&sd, e, 2, w, 100);
	bfq_entity_activate(&e[0]);
	bfq_entity_activate(&e[1]);
	/* Entity 0 uses a quarter of each turn, entity 1 all of it. */
	for (step = 0; step < 400; step++) {
		struct bfq_entity *s = bfq_sched_select(&sd, jiffies);
		unsigned int got = s == &e[0] ? 25 : 100;

		served[s - e] += got;
		bfq_entity_expire(s, got, true);
	}
	/* Equal weights: equal service, within one budget. */
	KUNIT_EXPECT_LE(test, abs((s64)served[0] - (s64)served[1]), 100LL);
}

/*
 * Random activations, deactivations and turns of random length, with the
 * tree invariants and the O(N) reference checked after every step.
 */
static void bfq_sched_random_against_reference(struct kunit *test)
{
	struct bfq_entity *e;
	struct bfq_sched_data sd;
	struct rnd_state rnd;
	int i, step;

	e = kunit_kcalloc(test, T_MAX_ENT, sizeof(*e), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e);
	prandom_seed_state(&rnd, 42);
	bfq_sched_init(&sd);
	for (i = 0; i < T_MAX_ENT; i++) {
		bfq_entity_init(&e[i], 1 + prandom_u32_state(&rnd) % 100,
				BFQ_CLASS_BE);
		bfq_entity_place(&e[i], &sd, NULL);
		e[i].budget_sectors = 8 + prandom_u32_state(&rnd) % 1024;
	}
	for (step = 0; step < 3000; step++) {
		struct bfq_service_tree *st = &sd.st[BFQ_CLASS_BE];
		struct bfq_entity *x = &e[prandom_u32_state(&rnd) % T_MAX_ENT];
		struct bfq_entity *expect, *got;

		switch (prandom_u32_state(&rnd) % 3) {
		case 0:
			bfq_entity_activate(x);
			break;
		case 1:
			if (x->state == BFQ_E_ACTIVE)
				bfq_entity_deactivate(x);
			break;
		default:
			if (!st->nr_active)
				break;
			bfq_vtime_catch_up(st);
			expect = bfq_test_scan(st);
			got = bfq_sched_select(&sd, jiffies);
			KUNIT_ASSERT_PTR_EQ(test, got, expect);
			bfq_entity_expire(got,
					  prandom_u32_state(&rnd) %
					  (got->budget_sectors + 1),
					  prandom_u32_state(&rnd) % 2);
		}
		bfq_test_check_tree(test, st);
	}
}

/*
 * A pure B-WF2Q+ simulation against the fluid ideal: entities with random
 * weights and budgets, served whole or partial turns, going idle and
 * coming back at random. Over each busy period of an entity, the service
 * it receives stays within three maximum budgets of what a fluid scheduler
 * would give it by weight among the entities busy at each step.
 */
static void bfq_sched_simulation_bound(struct kunit *test)
{
	const int n = 8, bmax = 512;
	struct bfq_entity e[8];
	s64 lag[8] = { 0 };
	struct bfq_sched_data sd;
	struct rnd_state rnd;
	int i, step;

	prandom_seed_state(&rnd, 7);
	bfq_sched_init(&sd);
	for (i = 0; i < n; i++) {
		bfq_entity_init(&e[i], 1 + prandom_u32_state(&rnd) % 100,
				BFQ_CLASS_BE);
		bfq_entity_place(&e[i], &sd, NULL);
		e[i].budget_sectors = 8 + prandom_u32_state(&rnd) % (bmax - 7);
		bfq_entity_activate(&e[i]);
	}
	for (step = 0; step < 5000; step++) {
		struct bfq_entity *s = bfq_sched_select(&sd, jiffies);
		unsigned int got, wsum = 0;
		bool stays;

		if (!s) {
			for (i = 0; i < n; i++)
				bfq_entity_activate(&e[i]);
			continue;
		}
		got = 1 + prandom_u32_state(&rnd) % s->budget_sectors;
		/* Fluid reference: @got shared by weight among the busy. */
		for (i = 0; i < n; i++)
			if (e[i].state == BFQ_E_ACTIVE ||
			    e[i].state == BFQ_E_IN_SERVICE)
				wsum += e[i].weight;
		for (i = 0; i < n; i++)
			if (e[i].state == BFQ_E_ACTIVE ||
			    e[i].state == BFQ_E_IN_SERVICE)
				lag[i] -= div_u64((u64)got * e[i].weight, wsum);
		lag[s - e] += got;
		stays = prandom_u32_state(&rnd) % 8;
		bfq_entity_expire(s, got, stays);
		if (!stays)
			lag[s - e] = 0;	/* its busy period ends */
		/* Now and then an idle entity comes back. */
		i = prandom_u32_state(&rnd) % n;
		if (e[i].state != BFQ_E_ACTIVE &&
		    e[i].state != BFQ_E_IN_SERVICE &&
		    !(prandom_u32_state(&rnd) % 4)) {
			lag[i] = 0;
			bfq_entity_activate(&e[i]);
		}
		for (i = 0; i < n; i++)
			KUNIT_ASSERT_TRUE_MSG(test, abs(lag[i]) <= 3 * bmax,
					      "step %d entity %d weight %u lag %lld",
					      step, i, e[i].weight, lag[i]);
	}
}

/* Virtual times that wrap past U64_MAX order and select correctly. */
static void bfq_sched_vtime_wraps(struct kunit *test)
{
	static const unsigned int w[] = { 10, 30 };
	struct bfq_entity e[2];
	struct bfq_sched_data sd;
	u64 served[2] = { 0 };
	int step;

	bfq_sched_init(&sd);
	sd.st[BFQ_CLASS_BE].vtime = U64_MAX - (1ULL << 30);
	bfq_test_entities(&sd, e, 2, w, 128);
	bfq_entity_activate(&e[0]);
	bfq_entity_activate(&e[1]);
	for (step = 0; step < 400; step++) {
		struct bfq_entity *s = bfq_sched_select(&sd, jiffies);

		served[s - e] += 128;
		bfq_entity_expire(s, 128, true);
		bfq_test_check_tree(test, &sd.st[BFQ_CLASS_BE]);
	}
	/* It wrapped, and the 1:3 share held across the wrap. */
	KUNIT_EXPECT_LT(test, sd.st[BFQ_CLASS_BE].vtime, 1ULL << 40);
	KUNIT_EXPECT_LE(test, abs((s64)served[1] - 3 * (s64)served[0]),
			8LL * 128);
}

/* Emptying and refilling at once does not move an entity ahead. */
static void bfq_entity_activate_keeps_finish(struct kunit *test)
{
	static const unsigned int w[] = { 10, 10 };
	struct bfq_entity e[2];
	struct bfq_sched_data sd;
	struct bfq_entity *s;
	u64 finish;

	bfq_sched_init(&sd);
	bfq_test_entities(&sd, e, 2, w, 100);
	bfq_entity_activate(&e[0]);
	bfq_entity_activate(&e[1]);
	s = bfq_sched_select(&sd, jiffies);
	KUNIT_ASSERT_PTR_EQ(test, s, &e[0]);
	bfq_entity_expire(s, 100, false);
	KUNIT_EXPECT_EQ(test, e[0].state, BFQ_E_IDLE);
	finish = e[0].finish;
	KUNIT_EXPECT_TRUE(test, bfq_vt_before(sd.st[BFQ_CLASS_BE].vtime,
					      finish));
	bfq_entity_activate(&e[0]);
	KUNIT_EXPECT_EQ(test, e[0].start, finish);
	/* Entity 1 has not been served yet: its turn comes first. */
	KUNIT_EXPECT_PTR_EQ(test, bfq_sched_select(&sd, jiffies), &e[1]);
}

/* The idle tree lets go of an entity once virtual time passes it. */
static void bfq_entity_idle_purged(struct kunit *test)
{
	static const unsigned int w[] = { 10, 10 };
	struct bfq_entity e[2];
	struct bfq_sched_data sd;
	int step;

	bfq_sched_init(&sd);
	bfq_test_entities(&sd, e, 2, w, 100);
	bfq_entity_activate(&e[0]);
	bfq_entity_activate(&e[1]);
	bfq_entity_expire(bfq_sched_select(&sd, jiffies), 100, false);
	KUNIT_EXPECT_EQ(test, e[0].state, BFQ_E_IDLE);
	for (step = 0; step < 3; step++)
		bfq_entity_expire(bfq_sched_select(&sd, jiffies), 100,
				  true);
	KUNIT_EXPECT_EQ(test, e[0].state, BFQ_E_OUT);
	bfq_entity_forget(&e[0]);
}

/*
 * An entity that rejoins keeps its place even after the virtual time
 * passed its finish; a plain activation would start it at the virtual time.
 */
static void bfq_entity_rejoin_keeps_place(struct kunit *test)
{
	static const unsigned int w[] = { 10, 10 };
	struct bfq_entity e[2];
	struct bfq_sched_data sd;
	u64 finish;
	int step;

	bfq_sched_init(&sd);
	bfq_test_entities(&sd, e, 2, w, 100);
	bfq_entity_activate(&e[0]);
	bfq_entity_activate(&e[1]);
	bfq_entity_expire(bfq_sched_select(&sd, jiffies), 100, false);
	finish = e[0].finish;
	for (step = 0; step < 3; step++)
		bfq_entity_expire(bfq_sched_select(&sd, jiffies), 100,
				  true);
	KUNIT_ASSERT_TRUE(test, bfq_vt_before(finish,
					      sd.st[BFQ_CLASS_BE].vtime));
	bfq_entity_rejoin(&e[0]);
	KUNIT_EXPECT_EQ(test, e[0].start, finish);
	/* Owed service: it is served before entity 1 again. */
	KUNIT_EXPECT_PTR_EQ(test, bfq_sched_select(&sd, jiffies), &e[0]);
	bfq_entity_expire(&e[0], 100, false);
	bfq_entity_activate(&e[0]);
	KUNIT_EXPECT_EQ(test, e[0].start, sd.st[BFQ_CLASS_BE].vtime);
}

static void bfq_sched_select_class_priority(struct kunit *test)
{
	struct bfq_entity rt, be;
	struct bfq_sched_data sd;

	bfq_sched_init(&sd);
	bfq_entity_init(&be, 80, BFQ_CLASS_BE);
	bfq_entity_init(&rt, 10, BFQ_CLASS_RT);
	bfq_entity_place(&be, &sd, NULL);
	bfq_entity_place(&rt, &sd, NULL);
	be.budget_sectors = 8;
	rt.budget_sectors = 8;
	bfq_entity_activate(&be);
	bfq_entity_activate(&rt);
	KUNIT_EXPECT_PTR_EQ(test, bfq_sched_select(&sd, jiffies), &rt);
	bfq_entity_expire(&rt, 8, true);
	KUNIT_EXPECT_PTR_EQ(test, bfq_sched_select(&sd, jiffies), &rt);
}

/* A backlogged IDLE class waits at most the grace period for a turn. */
static void bfq_sched_select_idle_class_not_starved(struct kunit *test)
{
	unsigned long now = jiffies;
	struct bfq_entity be, idle;
	struct bfq_sched_data sd;

	bfq_sched_init(&sd);
	bfq_entity_init(&be, 80, BFQ_CLASS_BE);
	bfq_entity_init(&idle, 10, BFQ_CLASS_IDLE);
	bfq_entity_place(&be, &sd, NULL);
	bfq_entity_place(&idle, &sd, NULL);
	be.budget_sectors = 8;
	idle.budget_sectors = 8;
	bfq_entity_activate(&be);
	bfq_entity_activate(&idle);
	sd.idle_class_since = now;
	KUNIT_EXPECT_PTR_EQ(test, bfq_sched_select(&sd, now), &be);
	bfq_entity_expire(&be, 8, true);
	now += msecs_to_jiffies(BFQ_IDLE_CLASS_GRACE_MS);
	KUNIT_EXPECT_PTR_EQ(test, bfq_sched_select(&sd, now), &idle);
	bfq_entity_expire(&idle, 8, true);
	KUNIT_EXPECT_PTR_EQ(test, bfq_sched_select(&sd, now), &be);
}

/* A class change waits for the end of the turn, then moves trees. */
static void bfq_entity_set_prio_next_turn(struct kunit *test)
{
	struct bfq_entity a;
	struct bfq_sched_data sd;

	bfq_sched_init(&sd);
	bfq_entity_init(&a, 40, BFQ_CLASS_BE);
	bfq_entity_place(&a, &sd, NULL);
	a.budget_sectors = 8;
	bfq_entity_activate(&a);
	KUNIT_ASSERT_PTR_EQ(test, bfq_sched_select(&sd, jiffies), &a);
	bfq_entity_set_prio(&a, 80, BFQ_CLASS_RT);
	KUNIT_EXPECT_EQ(test, a.class_idx, BFQ_CLASS_BE);
	bfq_entity_expire(&a, 8, true);
	KUNIT_EXPECT_EQ(test, a.class_idx, BFQ_CLASS_RT);
	KUNIT_EXPECT_EQ(test, a.weight, 80U);
	KUNIT_EXPECT_EQ(test, sd.st[BFQ_CLASS_RT].nr_active, 1U);
	KUNIT_EXPECT_EQ(test, sd.st[BFQ_CLASS_BE].nr_active, 0U);
	KUNIT_EXPECT_EQ(test, sd.st[BFQ_CLASS_BE].wsum, 0ULL);
}

static struct kunit_case bfq_wf2q_cases[] = {
	KUNIT_CASE(bfq_ioprio_to_weight_levels),
	KUNIT_CASE(bfq_sched_select_empty),
	KUNIT_CASE(bfq_sched_select_weighted_share),
	KUNIT_CASE(bfq_entity_expire_charges_service),
	KUNIT_CASE(bfq_sched_random_against_reference),
	KUNIT_CASE(bfq_sched_simulation_bound),
	KUNIT_CASE(bfq_sched_vtime_wraps),
	KUNIT_CASE(bfq_entity_activate_keeps_finish),
	KUNIT_CASE(bfq_entity_idle_purged),
	KUNIT_CASE(bfq_entity_rejoin_keeps_place),
	KUNIT_CASE(bfq_sched_select_class_priority),
	KUNIT_CASE(bfq_sched_select_idle_class_not_starved),
	KUNIT_CASE(bfq_entity_set_prio_next_turn),
	{}
};

static struct kunit_suite bfq_wf2q_suite = {
	.name = "bfq_wf2q",
	.test_cases = bfq_wf2q_cases,
};

kunit_test_suite(bfq_wf2q_suite);
