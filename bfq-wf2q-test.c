// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the service layer (bfq-wf2q.c), #included at its end so
 * they reach its static functions. No request_queue is needed: entities are
 * plain structs and the tests play the dispatcher.
 */
#include <kunit/test.h>
#include <linux/prandom.h>

#include "bfq-cgroup.h"
#include "bfq-test.h"

#define T_MAX_ENT	64

/* Check the active tree's order and augmented values (rule 3). */
static u64 bfq_test_check_subtree(struct kunit *test, struct rb_node *node,
				  int *count)
{
	struct bfq_entity *e = bfq_entity_of_node(node);
	u64 min = e->start;

	(*count)++;
	if (node->rb_left) {
		struct bfq_entity *l = bfq_entity_of_node(node->rb_left);
		u64 m = bfq_test_check_subtree(test, node->rb_left, count);

		KUNIT_EXPECT_FALSE(test, bfq_vtime_before(e->finish, l->finish));
		if (bfq_vtime_before(m, min))
			min = m;
	}
	if (node->rb_right) {
		struct bfq_entity *r = bfq_entity_of_node(node->rb_right);
		u64 m = bfq_test_check_subtree(test, node->rb_right, count);

		KUNIT_EXPECT_FALSE(test, bfq_vtime_before(r->finish, e->finish));
		if (bfq_vtime_before(m, min))
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

/* O(N) reference for bfq_sched_first_eligible(): in-order, first eligible. */
static struct bfq_entity *bfq_test_scan(struct bfq_service_tree *st)
{
	struct rb_node *node;

	for (node = rb_first(&st->active); node; node = rb_next(node)) {
		struct bfq_entity *e = bfq_entity_of_node(node);

		if (!bfq_vtime_before(st->vtime, e->start))
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

static void bfq_entity_ioprio_weight_levels(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, bfq_entity_ioprio_weight(0), 80U);
	KUNIT_EXPECT_EQ(test, bfq_entity_ioprio_weight(4), 40U);
	KUNIT_EXPECT_EQ(test, bfq_entity_ioprio_weight(7), 10U);
	/* Out-of-range levels count as the lowest, never as weight 0. */
	KUNIT_EXPECT_EQ(test, bfq_entity_ioprio_weight(100), 10U);
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
	KUNIT_EXPECT_TRUE(test, bfq_vtime_before(sd.st[BFQ_CLASS_BE].vtime,
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
 * Two entities of weight 10 on @sd; entity 0 is served once (100 sectors)
 * and leaves, then entity 1 is served @turns turns of @charge sectors.
 * Returns entity 0's finish.
 */
static u64 bfq_test_one_away(struct bfq_sched_data *sd, struct bfq_entity *e,
			     int turns, unsigned int charge)
{
	static const unsigned int w[] = { 10, 10 };
	int step;

	bfq_sched_init(sd);
	bfq_test_entities(sd, e, 2, w, 100);
	bfq_entity_activate(&e[0]);
	bfq_entity_activate(&e[1]);
	bfq_entity_expire(bfq_sched_select(sd, jiffies), 100, false);
	for (step = 0; step < turns; step++)
		bfq_entity_expire(bfq_sched_select(sd, jiffies), charge, true);
	return e[0].finish;
}

/*
 * An entity that rejoins keeps its place even after the virtual time
 * passed its finish; a plain activation would start it at the virtual time.
 */
static void bfq_entity_rejoin_keeps_place(struct kunit *test)
{
	struct bfq_entity e[2];
	struct bfq_sched_data sd;
	u64 finish = bfq_test_one_away(&sd, e, 3, 100);

	KUNIT_ASSERT_TRUE(test, bfq_vtime_before(finish,
						 sd.st[BFQ_CLASS_BE].vtime));
	bfq_entity_rejoin(&e[0], 1U << 20);
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

/*
 * bfq_entity_reweight(): a waiting entity whose weight drops is stamped
 * again at once, so an entity stamped later at its old weight is served
 * first; one in service keeps the change for its next turn.
 */
static void bfq_entity_reweight_waiting(struct kunit *test)
{
	static const unsigned int w[] = { 3000, 3000, 100 };
	struct bfq_entity e[3];
	struct bfq_sched_data sd;
	struct bfq_service_tree *st = &sd.st[BFQ_CLASS_BE];

	bfq_sched_init(&sd);
	bfq_test_entities(&sd, e, 3, w, 256);
	bfq_entity_activate(&e[0]);
	bfq_entity_activate(&e[1]);
	KUNIT_ASSERT_PTR_EQ(test, bfq_sched_select(&sd, jiffies), &e[0]);
	/* e[1] waits, stamped at 3000; lowered to 100 it goes behind e[2]. */
	bfq_entity_set_prio(&e[1], 100, BFQ_CLASS_BE);
	bfq_entity_reweight(&e[1]);
	KUNIT_EXPECT_EQ(test, e[1].weight, 100U);
	KUNIT_EXPECT_EQ(test, e[1].finish,
			e[1].start + bfq_vtime_delta(256, 100));
	KUNIT_EXPECT_EQ(test, st->wsum, 3100ULL);
	bfq_test_check_tree(test, st);
	/* In service: the change waits for the next turn. */
	bfq_entity_set_prio(&e[0], 100, BFQ_CLASS_BE);
	bfq_entity_reweight(&e[0]);
	KUNIT_EXPECT_EQ(test, e[0].weight, 3000U);
	bfq_entity_expire(&e[0], 256, false);
	KUNIT_EXPECT_EQ(test, st->wsum, 100ULL);
	bfq_entity_activate(&e[2]);
	bfq_entity_set_prio(&e[2], 3000, BFQ_CLASS_BE);
	bfq_entity_reweight(&e[2]);
	KUNIT_EXPECT_EQ(test, st->wsum, 3100ULL);
	KUNIT_EXPECT_PTR_EQ(test, bfq_sched_select(&sd, jiffies), &e[2]);
	bfq_test_check_tree(test, st);
}

/* ------------------------------------------------------------------ */
/* Hierarchies: groups of entities (rules 6-9, invariants a-d)          */
/* ------------------------------------------------------------------ */

#define T_TREE_MAX	24

/* A node of a test tree: node 0 is the root level (parent -1). */
struct bfq_test_node {
	int parent;
	unsigned int weight;
	unsigned int budget;	/* leaves only */
};

/*
 * The entities of a tree of bfq_test_nodes, all BE: node i > 0 is e[i],
 * scheduled in sd[parent]; a node that is some node's parent is a group
 * whose children are in sd[i]. sd[0] is the root level.
 */
struct bfq_test_tree {
	int n;
	int parent[T_TREE_MAX];
	struct bfq_entity e[T_TREE_MAX];
	struct bfq_sched_data sd[T_TREE_MAX];
};

static bool bfq_test_node_is_group(const struct bfq_test_node *nodes, int n,
				   int i)
{
	int j;

	for (j = i + 1; j < n; j++)
		if (nodes[j].parent == i)
			return true;
	return false;
}

static struct bfq_test_tree *bfq_test_tree(struct kunit *test,
					   const struct bfq_test_node *nodes,
					   int n)
{
	struct bfq_test_tree *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_LE(test, n, T_TREE_MAX);
	t->n = n;
	bfq_sched_init(&t->sd[0]);
	for (i = 1; i < n; i++) {
		int p = nodes[i].parent;

		KUNIT_ASSERT_TRUE(test, p >= 0 && p < i);
		t->parent[i] = p;
		if (bfq_test_node_is_group(nodes, n, i)) {
			bfq_entity_init_group(&t->e[i], nodes[i].weight,
					      BFQ_CLASS_BE, &t->sd[i]);
		} else {
			bfq_entity_init(&t->e[i], nodes[i].weight,
					BFQ_CLASS_BE);
			t->e[i].budget_sectors = nodes[i].budget;
		}
		bfq_entity_place(&t->e[i], &t->sd[p], p ? &t->e[p] : NULL);
	}
	return t;
}

static bool bfq_test_busy(const struct bfq_entity *e)
{
	return e->state == BFQ_E_ACTIVE || e->state == BFQ_E_IN_SERVICE;
}

/* The model: whether a leaf at or below node @i is backlogged. */
static bool bfq_test_model_busy(const struct bfq_test_tree *t, int i)
{
	int j, k;

	for (j = 1; j < t->n; j++) {
		if (t->e[j].my_sd || !bfq_test_busy(&t->e[j]))
			continue;
		for (k = j; k > 0 && k != i; k = t->parent[k])
			;
		if (k == i)
			return true;
	}
	return false;
}

/* Invariant c on every tree of level @l (node @l's children). */
static void bfq_test_check_level(struct kunit *test, struct bfq_test_tree *t,
				 int l)
{
	int c, i;

	for (c = 0; c < BFQ_NR_CLASSES; c++) {
		struct bfq_service_tree *st = &t->sd[l].st[c];
		u64 wsum = 0;

		for (i = 1; i < t->n; i++)
			if (t->parent[i] == l && t->e[i].class_idx == c &&
			    bfq_test_busy(&t->e[i]))
				wsum += t->e[i].weight;
		KUNIT_ASSERT_EQ_MSG(test, st->wsum, wsum, "level %d class %d",
				    l, c);
		bfq_test_check_tree(test, st);
	}
}

/* Invariants a-d against the model, after @step. */
static void bfq_test_check_invariants(struct kunit *test,
				      struct bfq_test_tree *t, int step)
{
	int i, leaves_in_service = 0;

	for (i = 1; i < t->n; i++) {
		struct bfq_entity *e = &t->e[i];
		int p = t->parent[i];
		bool serving = e->state == BFQ_E_IN_SERVICE;

		KUNIT_ASSERT_PTR_EQ_MSG(test, e->sd, &t->sd[p], "d: node %d", i);
		KUNIT_ASSERT_TRUE_MSG(test, serving == (e->sd->in_service == e),
				      "b: step %d node %d", step, i);
		KUNIT_ASSERT_TRUE_MSG(test, !serving || !p ||
				      t->e[p].state == BFQ_E_IN_SERVICE,
				      "b: step %d node %d", step, i);
		if (!e->my_sd) {
			leaves_in_service += serving;
			continue;
		}
		bfq_test_check_level(test, t, i);
		KUNIT_ASSERT_TRUE_MSG(test, bfq_test_busy(e) ==
				      bfq_test_model_busy(t, i),
				      "a: step %d group %d state %d", step, i,
				      e->state);
		KUNIT_ASSERT_TRUE_MSG(test, bfq_test_busy(e) ==
				      bfq_sched_busy(e->my_sd),
				      "a: step %d group %d", step, i);
		KUNIT_ASSERT_TRUE_MSG(test, !serving || e->my_sd->in_service,
				      "b: step %d group %d", step, i);
	}
	bfq_test_check_level(test, t, 0);
	KUNIT_ASSERT_EQ_MSG(test, leaves_in_service,
			    t->sd[0].in_service ? 1 : 0, "b: step %d", step);
	KUNIT_ASSERT_TRUE_MSG(test, bfq_sched_busy(&t->sd[0]) ==
			      bfq_test_model_busy(t, 0), "step %d", step);
}

/* The states of nodes 1.. as letters: Out, Active, in Service, Idle. */
static void bfq_test_states(const struct bfq_test_tree *t, char *buf)
{
	static const char letter[] = {
		[BFQ_E_OUT] = 'O', [BFQ_E_ACTIVE] = 'A',
		[BFQ_E_IN_SERVICE] = 'S', [BFQ_E_IDLE] = 'I',
	};
	int i;

	for (i = 1; i < t->n; i++)
		buf[i - 1] = letter[t->e[i].state];
	buf[t->n - 1] = '\0';
}

/*
 * Depth 3: groups 1 > 2 > 3, leaves 4 and 5 in group 3, leaf 6 in group
 * 1, leaf 7 at the root. Equal weights and budgets: ties go to the
 * entity queued first.
 */
static const struct bfq_test_node bfq_test_depth3[] = {
	{ -1 }, { 0, 100 }, { 1, 100 }, { 2, 100 },
	{ 3, 100, 64 }, { 3, 100, 64 }, { 1, 100, 64 }, { 0, 100, 64 },
};

/*
 * One step on bfq_test_depth3: 'a' activates, 'r' rejoins, 'd'
 * deactivates @node; 's' selects, expecting leaf @node; 'e' ('E') expires
 * leaf @node, in service, for 64 sectors not backlogged (backlogged).
 * @states: nodes 1..7 afterwards, as bfq_test_states() writes them.
 */
struct bfq_test_step {
	char op;
	int node;
	const char *states;
};

struct bfq_test_path_case {
	const char *desc;
	struct bfq_test_step steps[8];
};

static const struct bfq_test_path_case bfq_test_path_cases[] = {
	{ "leaf activation reaches the root, deactivation undoes it", {
		{ 'a', 4, "AAAAOOO" }, { 'a', 5, "AAAAAOO" },
		{ 'd', 4, "AAAOAOO" }, { 'd', 5, "OOOOOOO" } } },
	{ "a sibling keeps its ancestors active", {
		{ 'a', 4, "AAAAOOO" }, { 'a', 6, "AAAAOAO" },
		{ 'd', 4, "AOOOOAO" }, { 'd', 6, "OOOOOOO" } } },
	{ "select puts the path in service, expiry parks it", {
		{ 'a', 4, "AAAAOOO" }, { 'a', 7, "AAAAOOA" },
		{ 's', 4, "SSSSOOA" }, { 'e', 4, "IOOOOOA" },
		{ 's', 7, "IOOOOOS" }, { 'e', 7, "OOOOOOO" } } },
	{ "expiry requeues a path still backlogged", {
		{ 'a', 4, "AAAAOOO" }, { 'a', 5, "AAAAAOO" },
		{ 's', 4, "SSSSAOO" }, { 'E', 4, "AAAAAOO" },
		{ 's', 5, "SSSASOO" } } },
	{ "a leaf arriving under the path waits, the path stays", {
		{ 'a', 4, "AAAAOOO" }, { 's', 4, "SSSSOOO" },
		{ 'a', 6, "SSSSOAO" }, { 'r', 5, "SSSSAAO" },
		{ 'd', 6, "SSSSAOO" }, { 'E', 4, "AAAAAOO" } } },
	{ "a level emptied under the path parks only its group", {
		{ 'a', 4, "AAAAOOO" }, { 's', 4, "SSSSOOO" },
		{ 'a', 6, "SSSSOAO" }, { 'e', 4, "AIOOOAO" },
		{ 's', 6, "SIOOOSO" }, { 'e', 6, "OOOOOOO" } } },
};

BFQ_KUNIT_TABLE(bfq_test_path, bfq_test_path_cases, bfq_test_path_case);

static void bfq_test_path_step(struct kunit *test, struct bfq_test_tree *t,
			       const struct bfq_test_step *s)
{
	struct bfq_entity *e = &t->e[s->node];

	switch (s->op) {
	case 'a':
		bfq_entity_activate(e);
		break;
	case 'r':
		bfq_entity_rejoin(e, 1U << 20);
		break;
	case 'd':
		bfq_entity_deactivate(e);
		break;
	case 's':
		KUNIT_ASSERT_PTR_EQ(test, bfq_sched_select(&t->sd[0], jiffies),
				    e);
		break;
	default:
		KUNIT_ASSERT_PTR_EQ(test, t->sd[0].in_service ?
				    bfq_sched_select(&t->sd[0], jiffies) : NULL,
				    e);
		bfq_entity_expire(e, 64, s->op == 'E');
	}
}

/* Rules 6-8 step by step: the state of every entity after each step. */
static void bfq_sched_path_states(struct kunit *test)
{
	const struct bfq_test_path_case *c = test->param_value;
	struct bfq_test_tree *t;
	char states[T_TREE_MAX];
	int i;

	t = bfq_test_tree(test, bfq_test_depth3, ARRAY_SIZE(bfq_test_depth3));
	for (i = 0; i < ARRAY_SIZE(c->steps) && c->steps[i].op; i++) {
		bfq_test_path_step(test, t, &c->steps[i]);
		bfq_test_states(t, states);
		KUNIT_EXPECT_STREQ_MSG(test, states, c->steps[i].states,
				       "after step %d (%c%d)", i,
				       c->steps[i].op, c->steps[i].node);
		bfq_test_check_invariants(test, t, i);
	}
}

/*
 * Select returns the leaf with every level's in_service on its path; the
 * expiry charges each entity of the path the leaf's service at its own
 * weight, advances each level's virtual time by it over that level's
 * weights, restamps a requeued group by its next child's budget (rule 9),
 * and the next select starts from the root.
 */
static void bfq_entity_expire_charges_path(struct kunit *test)
{
	static const struct bfq_test_node nodes[] = {
		{ -1 }, { 0, 100 }, { 1, 300 }, { 2, 100, 64 },
		{ 0, 100, 128 }, { 1, 100, 48 },
	};
	/* For the path 3 < 2 < 1: the weight sum of each one's level. */
	static const unsigned int wsum[] = { 0, 200, 400, 100 };
	struct bfq_test_tree *t = bfq_test_tree(test, nodes, ARRAY_SIZE(nodes));
	u64 start[4], vtime[4];
	int i;

	for (i = 3; i <= 5; i++)
		bfq_entity_activate(&t->e[i]);
	/* Group 1 asks its next child's turn: group 2's, i.e. leaf 3's. */
	KUNIT_EXPECT_EQ(test, t->e[1].budget_sectors, 64U);
	KUNIT_ASSERT_PTR_EQ(test, bfq_sched_select(&t->sd[0], jiffies),
			    &t->e[3]);
	for (i = 1; i <= 3; i++) {
		KUNIT_EXPECT_PTR_EQ(test, t->sd[t->parent[i]].in_service,
				    &t->e[i]);
		KUNIT_EXPECT_EQ(test, t->e[i].state, BFQ_E_IN_SERVICE);
		start[i] = t->e[i].start;
		vtime[i] = t->e[i].sd->st[BFQ_CLASS_BE].vtime;
	}
	bfq_entity_expire(&t->e[3], 40, true);
	for (i = 1; i <= 3; i++) {
		KUNIT_EXPECT_EQ(test, t->e[i].state, BFQ_E_ACTIVE);
		KUNIT_EXPECT_EQ(test, t->e[i].start,
				start[i] + bfq_vtime_delta(40, t->e[i].weight));
		KUNIT_EXPECT_EQ(test, t->e[i].sd->st[BFQ_CLASS_BE].vtime,
				vtime[i] + bfq_vtime_delta(40, wsum[i]));
		KUNIT_EXPECT_NULL(test, t->e[i].sd->in_service);
	}
	/* Group 2 is no longer eligible in group 1: leaf 5 is next there. */
	KUNIT_EXPECT_EQ(test, t->e[1].budget_sectors, 48U);
	/* Leaf 4 was eligible at the root all along, group 1 is not now. */
	KUNIT_EXPECT_PTR_EQ(test, bfq_sched_select(&t->sd[0], jiffies),
			    &t->e[4]);
	bfq_test_check_invariants(test, t, 0);
}

/*
 * Peek names the leaf waiting at the highest level outside the path in
 * service, descending through waiting groups; changes nothing.
 */
static void bfq_sched_peek_descends(struct kunit *test)
{
	static const struct bfq_test_node nodes[] = {
		{ -1 }, { 0, 100 }, { 1, 100, 64 }, { 1, 100, 64 },
		{ 0, 100, 64 }, { 0, 100 }, { 5, 100, 64 },
	};
	struct bfq_test_tree *t = bfq_test_tree(test, nodes, ARRAY_SIZE(nodes));
	int i;

	KUNIT_EXPECT_NULL(test, bfq_sched_peek(&t->sd[0], BFQ_CLASS_BE));
	for (i = 2; i <= 4; i++)
		bfq_entity_activate(&t->e[i]);
	KUNIT_EXPECT_PTR_EQ(test, bfq_sched_peek(&t->sd[0], BFQ_CLASS_BE),
			    &t->e[2]);
	KUNIT_ASSERT_PTR_EQ(test, bfq_sched_select(&t->sd[0], jiffies),
			    &t->e[2]);
	KUNIT_EXPECT_PTR_EQ(test, bfq_sched_peek(&t->sd[0], BFQ_CLASS_BE),
			    &t->e[4]);
	bfq_entity_deactivate(&t->e[4]);
	/* Nothing else waits at the root: the next leaf in group 1. */
	KUNIT_EXPECT_PTR_EQ(test, bfq_sched_peek(&t->sd[0], BFQ_CLASS_BE),
			    &t->e[3]);
	/* A waiting group at the root comes first, through its level. */
	bfq_entity_activate(&t->e[6]);
	KUNIT_EXPECT_PTR_EQ(test, bfq_sched_peek(&t->sd[0], BFQ_CLASS_BE),
			    &t->e[6]);
	KUNIT_EXPECT_NULL(test, bfq_sched_peek(&t->sd[0], BFQ_CLASS_RT));
	bfq_entity_deactivate(&t->e[6]);
	bfq_entity_deactivate(&t->e[3]);
	KUNIT_EXPECT_NULL(test, bfq_sched_peek(&t->sd[0], BFQ_CLASS_BE));
	bfq_test_check_invariants(test, t, 0);
}

/* An IDLE leaf's granted turn inside a group shows from the root. */
static void bfq_sched_higher_class_waits_on_path(struct kunit *test)
{
	static const struct bfq_test_node nodes[] = {
		{ -1 }, { 0, 100 }, { 1, 100, 8 }, { 1, 100, 8 },
	};
	struct bfq_test_tree *t = bfq_test_tree(test, nodes, ARRAY_SIZE(nodes));
	unsigned long now = jiffies;

	bfq_entity_set_prio(&t->e[3], 100, BFQ_CLASS_IDLE);
	bfq_entity_activate(&t->e[2]);
	bfq_entity_activate(&t->e[3]);
	t->sd[1].idle_class_since = now;
	KUNIT_ASSERT_PTR_EQ(test, bfq_sched_select(&t->sd[0], now), &t->e[2]);
	KUNIT_EXPECT_FALSE(test, bfq_sched_higher_class_waits(&t->sd[0]));
	bfq_entity_expire(&t->e[2], 8, true);
	now += msecs_to_jiffies(BFQ_IDLE_CLASS_GRACE_MS);
	KUNIT_ASSERT_PTR_EQ(test, bfq_sched_select(&t->sd[0], now), &t->e[3]);
	KUNIT_EXPECT_TRUE(test, bfq_sched_higher_class_waits(&t->sd[0]));
	bfq_entity_expire(&t->e[3], 8, true);
	KUNIT_EXPECT_PTR_EQ(test, bfq_sched_select(&t->sd[0], now), &t->e[2]);
	KUNIT_EXPECT_FALSE(test, bfq_sched_higher_class_waits(&t->sd[0]));
}

/*
 * Rule 10: a rejoining entity is owed at most its owner's bound of
 * service: past it, it starts that far behind the virtual time.
 */
static void bfq_entity_rejoin_lag_bounded(struct kunit *test)
{
	struct bfq_entity e[2];
	struct bfq_sched_data sd;
	struct bfq_service_tree *st = &sd.st[BFQ_CLASS_BE];
	/* Entity 1 is charged 30 x 1000 sectors while entity 0 is away. */
	u64 finish = bfq_test_one_away(&sd, e, 30, 1000);

	bfq_entity_rejoin(&e[0], 100);
	KUNIT_EXPECT_TRUE(test, bfq_vtime_before(finish, e[0].start));
	KUNIT_EXPECT_EQ(test, e[0].start,
			st->vtime - bfq_vtime_delta(100, 10));
	/* Owed one budget: served once, then entity 1 again. */
	KUNIT_EXPECT_PTR_EQ(test, bfq_sched_select(&sd, jiffies), &e[0]);
	bfq_entity_expire(&e[0], 200, true);
	KUNIT_EXPECT_PTR_EQ(test, bfq_sched_select(&sd, jiffies), &e[1]);
}

/*
 * A rejoining leaf's group keeps its place at the root too, even after the
 * root's virtual time passed its finish; a plain activation restarts it
 * at the virtual time.
 */
static void bfq_entity_rejoin_path_keeps_place(struct kunit *test)
{
	static const struct bfq_test_node nodes[] = {
		{ -1 }, { 0, 100 }, { 1, 100, 100 }, { 0, 100, 100 },
	};
	struct bfq_test_tree *t = bfq_test_tree(test, nodes, ARRAY_SIZE(nodes));
	struct bfq_service_tree *st = &t->sd[0].st[BFQ_CLASS_BE];
	u64 finish;
	int step;

	bfq_entity_activate(&t->e[2]);
	bfq_entity_activate(&t->e[3]);
	KUNIT_ASSERT_PTR_EQ(test, bfq_sched_select(&t->sd[0], jiffies),
			    &t->e[2]);
	bfq_entity_expire(&t->e[2], 100, false);
	finish = t->e[1].finish;
	for (step = 0; step < 3; step++)
		bfq_entity_expire(bfq_sched_select(&t->sd[0], jiffies), 100,
				  true);
	KUNIT_ASSERT_TRUE(test, bfq_vtime_before(finish, st->vtime));
	bfq_entity_rejoin(&t->e[2], 1U << 20);
	KUNIT_EXPECT_EQ(test, t->e[1].start, finish);
	KUNIT_EXPECT_PTR_EQ(test, bfq_sched_select(&t->sd[0], jiffies),
			    &t->e[2]);
	bfq_entity_expire(&t->e[2], 100, false);
	bfq_entity_activate(&t->e[2]);
	KUNIT_EXPECT_EQ(test, t->e[1].start, st->vtime);
	bfq_test_check_invariants(test, t, 0);
}

/*
 * Always-backlogged leaves of fixed budgets in a tree of weighted groups.
 * The ideal is bfq_cg_shares_ppm()'s. Bound: B-WF2Q+ keeps each entity
 * within about two maximum budgets (2 * bmax, as the flat weighted-share
 * case measures) of its share of its level's service; a leaf's error is
 * its own level's plus its share (<= 1) of its parent's, so a leaf d
 * levels below the root stays within 2 * d * bmax at every step.
 */
struct bfq_test_share_case {
	const char *desc;
	int n;
	struct bfq_test_node nodes[T_TREE_MAX];
};

static const struct bfq_test_share_case bfq_test_share_cases[] = {
	{ "two groups 100:300 with a leaf each: 1:3", 5, {
		{ -1 }, { 0, 100 }, { 0, 300 }, { 1, 100, 64 },
		{ 2, 100, 64 } } },
	{ "4 leaves against 1 in equal groups: 1:1 between groups", 8, {
		{ -1 }, { 0, 100 }, { 0, 100 }, { 1, 100, 64 },
		{ 1, 100, 64 }, { 1, 100, 64 }, { 1, 100, 64 },
		{ 2, 100, 64 } } },
	{ "a leaf beside two groups at the root", 6, {
		{ -1 }, { 0, 100 }, { 0, 200 }, { 0, 100, 64 },
		{ 1, 100, 64 }, { 2, 100, 64 } } },
	{ "depth 3, mixed weights and budgets", 14, {
		{ -1 }, { 0, 200 }, { 0, 100 }, { 0, 50, 96 },
		{ 1, 300 }, { 1, 100 }, { 1, 100, 32 },
		{ 4, 100 }, { 4, 200, 128 },
		{ 7, 100, 64 }, { 7, 400, 16 },
		{ 5, 100, 256 }, { 5, 1000, 8 }, { 2, 10, 200 } } },
};

BFQ_KUNIT_TABLE(bfq_test_share, bfq_test_share_cases, bfq_test_share_case);

static int bfq_test_depth(const struct bfq_test_tree *t, int i)
{
	int d = 0;

	for (; i > 0; i = t->parent[i])
		d++;
	return d;
}

/* The ideal share of every node, all active. */
static void bfq_test_ideal(struct kunit *test,
			   const struct bfq_test_share_case *c, u32 *ppm)
{
	struct bfq_cg_share_node cg[T_TREE_MAX];
	int i;

	for (i = 0; i < c->n; i++) {
		cg[i].weight = c->nodes[i].weight;
		cg[i].parent = c->nodes[i].parent;
		cg[i].active = true;
	}
	KUNIT_ASSERT_EQ(test, bfq_cg_shares_ppm(cg, c->n, ppm), 0);
}

static void bfq_sched_hierarchy_shares(struct kunit *test)
{
	const struct bfq_test_share_case *c = test->param_value;
	u64 served[T_TREE_MAX] = { 0 }, total = 0;
	unsigned int bmax = 0;
	s64 worst = 0;
	u32 ppm[T_TREE_MAX];
	struct bfq_test_tree *t;
	int i, step;

	if (!IS_ENABLED(CONFIG_BFQ_GROUP_IOSCHED))
		kunit_skip(test, "bfq_cg_shares_ppm() needs BFQ_GROUP_IOSCHED");
	bfq_test_ideal(test, c, ppm);
	t = bfq_test_tree(test, c->nodes, c->n);
	for (i = 1; i < c->n; i++) {
		if (t->e[i].my_sd)
			continue;
		bmax = max(bmax, t->e[i].budget_sectors);
		bfq_entity_activate(&t->e[i]);
	}
	for (step = 0; step < 4000; step++) {
		struct bfq_entity *s = bfq_sched_select(&t->sd[0], jiffies);
		unsigned int got;

		KUNIT_ASSERT_NOT_NULL(test, s);
		got = s->budget_sectors;
		served[s - t->e] += got;
		total += got;
		bfq_entity_expire(s, got, true);
		for (i = 1; i < c->n; i++) {
			s64 lag;

			if (t->e[i].my_sd)
				continue;
			lag = (s64)served[i] -
			      (s64)div_u64(total * ppm[i], BFQ_CG_SHARE_PPM);
			worst = max(worst, abs(lag));
			KUNIT_ASSERT_TRUE_MSG(test, abs(lag) <=
					      2 * bfq_test_depth(t, i) * bmax,
					      "step %d leaf %d lag %lld",
					      step, i, lag);
		}
	}
	kunit_info(test, "worst lag %lld sectors, bmax %u", worst, bmax);
}

/*
 * A random tree under random activations, rejoins, deactivations, weight
 * changes, selects and expiries of random charge: invariants a-d against
 * the model after every step, select against an O(N) scan of each level,
 * and peek against the model.
 */
static struct bfq_test_tree *bfq_test_random_tree(struct kunit *test,
						  struct rnd_state *rnd)
{
	struct bfq_test_node nodes[20];
	int i;

	nodes[0].parent = -1;
	for (i = 1; i < ARRAY_SIZE(nodes); i++) {
		nodes[i].parent = prandom_u32_state(rnd) % i;
		nodes[i].weight = 1 + prandom_u32_state(rnd) % 1000;
		nodes[i].budget = 8 + prandom_u32_state(rnd) % 1024;
	}
	return bfq_test_tree(test, nodes, ARRAY_SIZE(nodes));
}

/* The leaf select would take: rules 2-3 level by level, by O(N) scans. */
static struct bfq_entity *bfq_test_select_ref(struct bfq_sched_data *sd)
{
	struct bfq_service_tree *st;
	struct bfq_entity *e = NULL;

	while (sd && (st = bfq_sched_select_tree(sd, jiffies))) {
		bfq_vtime_catch_up(st);
		e = bfq_test_scan(st);
		sd = e->my_sd;
	}
	return e;
}

static void bfq_test_random_op(struct kunit *test, struct bfq_test_tree *t,
			       struct rnd_state *rnd, bool *served)
{
	int i = 1 + prandom_u32_state(rnd) % (t->n - 1);
	struct bfq_entity *x = &t->e[i], *cur = t->sd[0].in_service ?
		bfq_sched_select(&t->sd[0], jiffies) : NULL;

	switch (prandom_u32_state(rnd) % 6) {
	case 0:
		if (x->my_sd)
			break;
		if (served[i] && prandom_u32_state(rnd) % 2)
			bfq_entity_rejoin(x, prandom_u32_state(rnd) % 2 ?
						  1U << 20 : 50);
		else
			bfq_entity_activate(x);
		break;
	case 1:
		if (!x->my_sd && x->state == BFQ_E_ACTIVE)
			bfq_entity_deactivate(x);
		break;
	case 2:
		bfq_entity_set_prio(x, 1 + prandom_u32_state(rnd) % 1000,
				    BFQ_CLASS_BE);
		break;
	case 3:
		if (cur || !bfq_sched_busy(&t->sd[0]))
			break;
		cur = bfq_test_select_ref(&t->sd[0]);
		KUNIT_ASSERT_PTR_EQ(test, bfq_sched_select(&t->sd[0], jiffies),
				    cur);
		KUNIT_ASSERT_NULL(test, cur->my_sd);
		served[cur - t->e] = true;
		break;
	case 4:
		if (cur)
			bfq_entity_expire(cur, prandom_u32_state(rnd) %
					  (cur->budget_sectors + 1),
					  prandom_u32_state(rnd) % 2);
		break;
	default:
		x = bfq_sched_peek(&t->sd[0], BFQ_CLASS_BE);
		for (i = 1; i < t->n; i++)
			if (!t->e[i].my_sd && t->e[i].state == BFQ_E_ACTIVE)
				break;
		KUNIT_ASSERT_EQ(test, !!x, i < t->n);
		KUNIT_ASSERT_TRUE(test, !x || (!x->my_sd &&
					       x->state == BFQ_E_ACTIVE));
	}
}

static void bfq_sched_random_hierarchy_invariants(struct kunit *test)
{
	bool served[T_TREE_MAX] = { false };
	struct bfq_test_tree *t;
	struct bfq_entity *cur;
	struct rnd_state rnd;
	int i, step;

	prandom_seed_state(&rnd, 2010);
	t = bfq_test_random_tree(test, &rnd);
	for (step = 0; step < 6000; step++) {
		bfq_test_random_op(test, t, &rnd, served);
		bfq_test_check_invariants(test, t, step);
	}
	/* Drain: everything can be forgotten and the root is idle. */
	cur = t->sd[0].in_service ? bfq_sched_select(&t->sd[0], jiffies) : NULL;
	if (cur)
		bfq_entity_expire(cur, 0, false);
	for (i = 1; i < t->n; i++)
		if (!t->e[i].my_sd && t->e[i].state == BFQ_E_ACTIVE)
			bfq_entity_deactivate(&t->e[i]);
	bfq_test_check_invariants(test, t, step);
	for (i = 1; i < t->n; i++) {
		bfq_entity_forget(&t->e[i]);
		KUNIT_EXPECT_EQ(test, t->e[i].state, BFQ_E_OUT);
	}
	KUNIT_EXPECT_FALSE(test, bfq_sched_busy(&t->sd[0]));
}

static struct kunit_case bfq_wf2q_cases[] = {
	KUNIT_CASE(bfq_entity_ioprio_weight_levels),
	KUNIT_CASE(bfq_sched_select_empty),
	KUNIT_CASE(bfq_sched_select_weighted_share),
	KUNIT_CASE(bfq_entity_expire_charges_service),
	KUNIT_CASE(bfq_sched_random_against_reference),
	KUNIT_CASE(bfq_sched_simulation_bound),
	KUNIT_CASE(bfq_sched_vtime_wraps),
	KUNIT_CASE(bfq_entity_activate_keeps_finish),
	KUNIT_CASE(bfq_entity_idle_purged),
	KUNIT_CASE(bfq_entity_rejoin_keeps_place),
	KUNIT_CASE(bfq_entity_rejoin_lag_bounded),
	KUNIT_CASE(bfq_sched_select_class_priority),
	KUNIT_CASE(bfq_sched_select_idle_class_not_starved),
	KUNIT_CASE(bfq_entity_set_prio_next_turn),
	KUNIT_CASE(bfq_entity_reweight_waiting),
	KUNIT_CASE_PARAM(bfq_sched_path_states, bfq_test_path_gen_params),
	KUNIT_CASE(bfq_entity_expire_charges_path),
	KUNIT_CASE(bfq_sched_peek_descends),
	KUNIT_CASE(bfq_sched_higher_class_waits_on_path),
	KUNIT_CASE(bfq_entity_rejoin_path_keeps_place),
	KUNIT_CASE_PARAM(bfq_sched_hierarchy_shares,
			 bfq_test_share_gen_params),
	KUNIT_CASE(bfq_sched_random_hierarchy_invariants),
	{}
};

static struct kunit_suite bfq_wf2q_suite = {
	.name = "bfq_wf2q",
	.test_cases = bfq_wf2q_cases,
};

kunit_test_suite(bfq_wf2q_suite);
