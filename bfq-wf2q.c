// SPDX-License-Identifier: GPL-2.0
/*
 * BFQ's service layer: hierarchical B-WF2Q+ over entities. Prefixes by
 * the object acted on: bfq_entity_ (one entity: a queue's or a group's),
 * bfq_sched_ (one level's service trees), bfq_vtime_ (virtual time
 * arithmetic).
 *
 * Rule enforced: every backlogged entity receives service in proportion to
 * its weight among the backlogged entities of its level, measured in
 * sectors, within a bound of one maximum budget of its ideal share at any
 * time (the B-WF2Q+ guarantee of Valente and Checconi, built on Bennett and
 * Zhang's WF2Q+); a group's share is divided among its children the same
 * way, so a leaf's share is the product of the shares along its path.
 * Classes are served in strict priority RT > BE > IDLE within each level,
 * except that a backlogged IDLE class gets a turn once it has waited
 * BFQ_IDLE_CLASS_GRACE_MS, so it never starves.
 *
 * The scheme, per service tree (one per class and scheduling level):
 *
 * 1. Each entity has a virtual start S and finish F. On becoming backlogged
 *    S = max(V, F_prev) (F_prev only while the entity is on the idle tree,
 *    so emptying and refilling cannot gain service), F = S + budget / w.
 * 2. The tree's virtual time V grows by the service the tree delivers
 *    divided by the sum of the weights of its backlogged entities, and
 *    jumps to the least S when no entity is eligible (S <= V).
 * 3. The entity served next is, among the eligible ones, the one with the
 *    least F. The active tree is ordered by F and each node keeps the least
 *    S of its subtree (RB_DECLARE_CALLBACKS), so the choice is O(log N).
 * 4. An entity in service is off the tree. At expiry it is charged the
 *    service it received (or what its owner decides to charge):
 *    F = S + charge / w. If still backlogged it gets S = F and a new F;
 *    else it waits on the idle tree until V passes its F, then is dropped.
 * 5. Virtual times are u64 and compared wrap-safely: all timestamps of one
 *    tree stay within 2^63 of each other.
 *
 * The hierarchy (Bennett and Zhang's H-WF2Q+): a level is a struct
 * bfq_sched_data, the root one the owner's, the others each a group's
 * my_sd. A leaf (a queue) is what the owner serves; a group is an entity of
 * its parent's level whose service is that of its children.
 *
 * 6. A leaf becoming backlogged activates, going up, each ancestor that is
 *    neither active nor in service (rule 1 at that ancestor's level). A
 *    waiting leaf that stops being backlogged deactivates, going up, each
 *    waiting ancestor whose level it leaves empty.
 * 7. bfq_sched_select() chooses at the root by rules 2-3 and, while the
 *    choice is a group, chooses again in its my_sd, down to a leaf. Every
 *    entity on that path is in service at its level; while the path
 *    stands, select returns its leaf.
 * 8. Expiring the leaf applies rule 4 at each level of the path, bottom
 *    up, with the leaf's charge: each group received exactly that service.
 *    A group whose my_sd is still busy is requeued, else parked; the next
 *    select starts again from the root.
 * 9. A group's budget, for its F when it is enqueued, is the budget of the
 *    child its my_sd would serve next (by class, then rule 3). Its turn
 *    will be that child's turn, so its F predicts the turn's end the way a
 *    queue's does, and a group whose next child asks little is served
 *    soon, as that child would be alone. It needs no bound of its own:
 *    leaves' budgets are bounded by their owner, hence groups' by
 *    induction. Rule 4 charges the real service either way: the estimate
 *    orders turns, it does not decide shares.
 * 10. An entity its owner judges briefly absent rejoins (bfq_entity_rejoin())
 *    from its previous F even past V, at every level it activates, but
 *    never more than the owner's bound (one maximum budget) of service
 *    behind V. A short absence costs at most the turn of another entity;
 *    V can run further ahead only when others were charged more than the
 *    device's clock allows (a queueing device whose parallel seeky
 *    requests pay their time alone); unbounded, a reader's group came back
 *    some 80 of its turns behind V on a 32-deep device, and the group of
 *    64 writers beside it waited seconds.
 *
 * Invariants, kept by every function below (the KUnit suite checks them
 * after every step of a random sequence):
 *
 * a. A group is ACTIVE or IN_SERVICE iff its my_sd is busy (an entity is
 *    active or in service there).
 * b. An entity is IN_SERVICE iff it is its level's in_service; a group in
 *    service has an entity in service in its my_sd, and a level's entity
 *    in service has its parent in service: the in-service entities form
 *    one path from the root to a leaf, or none are.
 * c. A tree's wsum is the sum of the weights of its ACTIVE and IN_SERVICE
 *    entities, and nr_active the number of ACTIVE ones.
 * d. entity->sd is parent->my_sd (the root level for a top-level entity),
 *    and changes only while the entity is OUT (bfq_entity_place()).
 *
 * This file knows entities only through struct bfq_entity: no request,
 * queue, group or heuristic field is read here, so the KUnit suite runs it
 * without a request_queue. Locking: the caller holds the owning
 * bfq_data.lock.
 */
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/rbtree_augmented.h>

#include "bfq-iosched.h"

/* ioprio level 0..7 to weight: (8 - level) * 10, the stock module's scale. */
unsigned int bfq_entity_ioprio_weight(unsigned int level)
{
	return (IOPRIO_NR_LEVELS - min_t(unsigned int, level,
					 IOPRIO_NR_LEVELS - 1)) * 10;
}

static bool bfq_vtime_before(u64 a, u64 b)
{
	return (s64)(a - b) < 0;
}

static u64 bfq_vtime_delta(u64 sectors, u64 weight)
{
	return div64_u64(sectors << BFQ_VT_SHIFT, max_t(u64, weight, 1));
}

static struct bfq_entity *bfq_entity_of_node(struct rb_node *node)
{
	return node ? rb_entry(node, struct bfq_entity, rb_node) : NULL;
}

static struct bfq_service_tree *bfq_entity_tree(struct bfq_entity *entity)
{
	return &entity->sd->st[entity->class_idx];
}

/* ------------------------------------------------------------------ */
/* The active tree: by finish, augmented with the subtree's least start */
/* ------------------------------------------------------------------ */

static bool bfq_sched_min_start(struct bfq_entity *entity, bool exit)
{
	struct bfq_entity *child;
	u64 min = entity->start;

	child = bfq_entity_of_node(entity->rb_node.rb_left);
	if (child && bfq_vtime_before(child->min_start, min))
		min = child->min_start;
	child = bfq_entity_of_node(entity->rb_node.rb_right);
	if (child && bfq_vtime_before(child->min_start, min))
		min = child->min_start;
	if (exit && entity->min_start == min)
		return true;
	entity->min_start = min;
	return false;
}

RB_DECLARE_CALLBACKS(static, bfq_min_start_cb, struct bfq_entity, rb_node,
		     min_start, bfq_sched_min_start);

/* Insert by finish; equal finishes keep arrival order. */
static void bfq_sched_active_insert(struct bfq_service_tree *st,
				    struct bfq_entity *entity)
{
	struct rb_node **link = &st->active.rb_node, *parent = NULL;

	while (*link) {
		struct bfq_entity *p = bfq_entity_of_node(*link);

		parent = *link;
		if (bfq_vtime_before(entity->start, p->min_start))
			p->min_start = entity->start;
		if (bfq_vtime_before(entity->finish, p->finish))
			link = &parent->rb_left;
		else
			link = &parent->rb_right;
	}
	entity->min_start = entity->start;
	rb_link_node(&entity->rb_node, parent, link);
	rb_insert_augmented(&entity->rb_node, &st->active, &bfq_min_start_cb);
	st->nr_active++;
}

static void bfq_sched_active_erase(struct bfq_service_tree *st,
				   struct bfq_entity *entity)
{
	rb_erase_augmented(&entity->rb_node, &st->active, &bfq_min_start_cb);
	RB_CLEAR_NODE(&entity->rb_node);
	st->nr_active--;
}

/*
 * The eligible entity (start <= vtime) with the least finish, or NULL.
 * A left subtree holding an eligible entity holds the answer, since all its
 * finishes precede the node's; else the node itself, else the right side.
 */
static struct bfq_entity *
bfq_first_eligible_at(const struct bfq_service_tree *st, u64 vtime)
{
	struct rb_node *node = st->active.rb_node;

	while (node) {
		struct bfq_entity *left = bfq_entity_of_node(node->rb_left);
		struct bfq_entity *entity = bfq_entity_of_node(node);

		if (left && !bfq_vtime_before(vtime, left->min_start)) {
			node = node->rb_left;
			continue;
		}
		if (!bfq_vtime_before(vtime, entity->start))
			return entity;
		node = node->rb_right;
	}
	return NULL;
}

static struct bfq_entity *bfq_sched_first_eligible(struct bfq_service_tree *st)
{
	return bfq_first_eligible_at(st, st->vtime);
}

/*
 * The entity of level @sd that bfq_sched_level_select() would take next, among
 * the classes up to @max_class and ignoring the IDLE class's grace, or
 * NULL; changes nothing.
 */
static struct bfq_entity *bfq_sched_level_next(const struct bfq_sched_data *sd,
					       enum bfq_class max_class)
{
	int i;

	for (i = 0; i <= max_class && i < BFQ_NR_CLASSES; i++) {
		const struct bfq_service_tree *st = &sd->st[i];
		struct bfq_entity *root = bfq_entity_of_node(st->active.rb_node);
		u64 vtime = st->vtime;

		if (!root)
			continue;
		/* Where rule 2's catch-up would take the virtual time. */
		if (bfq_vtime_before(vtime, root->min_start))
			vtime = root->min_start;
		return bfq_first_eligible_at(st, vtime);
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* The idle tree: by finish, so the expired ones are leftmost          */
/* ------------------------------------------------------------------ */

static void bfq_sched_idle_insert(struct bfq_service_tree *st,
				  struct bfq_entity *entity)
{
	struct rb_node **link = &st->idle.rb_node, *parent = NULL;

	while (*link) {
		parent = *link;
		if (bfq_vtime_before(entity->finish, bfq_entity_of_node(parent)->finish))
			link = &parent->rb_left;
		else
			link = &parent->rb_right;
	}
	rb_link_node(&entity->rb_node, parent, link);
	rb_insert_color(&entity->rb_node, &st->idle);
	entity->state = BFQ_E_IDLE;
}

static void bfq_sched_idle_erase(struct bfq_service_tree *st,
				 struct bfq_entity *entity)
{
	rb_erase(&entity->rb_node, &st->idle);
	RB_CLEAR_NODE(&entity->rb_node);
	entity->state = BFQ_E_OUT;
}

/* Drop idle entities whose finish the virtual time has passed. */
static void bfq_sched_idle_purge(struct bfq_service_tree *st)
{
	struct bfq_entity *entity;

	while ((entity = bfq_entity_of_node(rb_first(&st->idle))) &&
	       !bfq_vtime_before(st->vtime, entity->finish))
		bfq_sched_idle_erase(st, entity);
}

/* ------------------------------------------------------------------ */
/* Virtual time                                                         */
/* ------------------------------------------------------------------ */

/* WF2Q+: V jumps to the least start when nobody is eligible. */
static void bfq_vtime_catch_up(struct bfq_service_tree *st)
{
	struct bfq_entity *root = bfq_entity_of_node(st->active.rb_node);

	if (root && bfq_vtime_before(st->vtime, root->min_start)) {
		st->vtime = root->min_start;
		bfq_sched_idle_purge(st);
	}
}

/* The tree delivered @sectors of service: V += sectors / wsum. */
static void bfq_vtime_advance(struct bfq_service_tree *st, u64 sectors)
{
	st->vtime += bfq_vtime_delta(sectors, st->wsum);
	bfq_sched_idle_purge(st);
}

/* Apply a pending weight or class change; only while off every tree. */
static void bfq_entity_update_prio(struct bfq_entity *entity)
{
	entity->weight = entity->new_weight;
	entity->class_idx = entity->new_class;
}

/* Rule 9: a group's turn is the turn of the child it would serve next. */
static unsigned int bfq_entity_group_budget(const struct bfq_sched_data *my_sd)
{
	const struct bfq_entity *next = bfq_sched_level_next(my_sd, BFQ_CLASS_IDLE);

	return next ? next->budget_sectors : 0;
}

/* Stamp a new turn from @start and queue the entity as backlogged. */
static void bfq_entity_enqueue(struct bfq_entity *entity, u64 start)
{
	struct bfq_service_tree *st = bfq_entity_tree(entity);

	if (entity->my_sd)
		entity->budget_sectors = bfq_entity_group_budget(entity->my_sd);
	entity->start = start;
	entity->finish = start + bfq_vtime_delta(entity->budget_sectors,
					       entity->weight);
	entity->service_sectors = 0;
	bfq_sched_active_insert(st, entity);
	entity->state = BFQ_E_ACTIVE;
	st->wsum += entity->weight;
}

/* ------------------------------------------------------------------ */
/* Interface                                                            */
/* ------------------------------------------------------------------ */

void bfq_sched_init(struct bfq_sched_data *sd)
{
	int i;

	memset(sd, 0, sizeof(*sd));
	for (i = 0; i < BFQ_NR_CLASSES; i++) {
		sd->st[i].active = RB_ROOT;
		sd->st[i].idle = RB_ROOT;
	}
	sd->idle_class_since = jiffies;
}

/* A leaf, on no level until bfq_entity_place(). */
void bfq_entity_init(struct bfq_entity *entity, unsigned int weight,
		     enum bfq_class class_idx)
{
	memset(entity, 0, sizeof(*entity));
	RB_CLEAR_NODE(&entity->rb_node);
	entity->weight = weight;
	entity->new_weight = weight;
	entity->class_idx = class_idx;
	entity->new_class = class_idx;
}

/* A group whose children are scheduled in @my_sd, initialized here. */
void bfq_entity_init_group(struct bfq_entity *entity, unsigned int weight,
			   enum bfq_class class_idx,
			   struct bfq_sched_data *my_sd)
{
	bfq_entity_init(entity, weight, class_idx);
	bfq_sched_init(my_sd);
	entity->my_sd = my_sd;
}

/*
 * Schedule @entity in level @sd, under the group @parent whose my_sd @sd
 * is (NULL for the root level). Only while the entity is on no tree
 * (BFQ_E_OUT; an idle one is first dropped by bfq_entity_forget()): its
 * timestamps and its node belong to its old level. A group moves with its
 * children. The moved entity's finish is of its old level's virtual time:
 * its owner activates it there, never rejoins.
 */
void bfq_entity_place(struct bfq_entity *entity, struct bfq_sched_data *sd,
		      struct bfq_entity *parent)
{
	if (WARN_ON_ONCE(entity->state != BFQ_E_OUT ||
			 (parent && parent->my_sd != sd)))
		return;
	entity->sd = sd;
	entity->parent = parent;
}

/* New weight and class, effective from the entity's next turn. */
void bfq_entity_set_prio(struct bfq_entity *entity, unsigned int weight,
			 enum bfq_class class_idx)
{
	entity->new_weight = weight;
	entity->new_class = class_idx;
	if (entity->state == BFQ_E_OUT)
		bfq_entity_update_prio(entity);
}

/*
 * Apply the weight bfq_entity_set_prio() left pending now rather than at
 * the entity's next turn, when it waits on its level's active tree with
 * its class unchanged: the owner lowered a queue's weight because what it
 * was raised for is over, and stamped with the old weight its turn would
 * come as soon as if it still had it. The turn keeps its start; its
 * finish is stamped again as rule 1 would with the new weight, so rule
 * 1's bound holds. In service or on no tree, the change waits for the next
 * turn as before.
 */
void bfq_entity_reweight(struct bfq_entity *entity)
{
	struct bfq_service_tree *st;

	if (entity->state != BFQ_E_ACTIVE ||
	    entity->class_idx != entity->new_class ||
	    entity->weight == entity->new_weight)
		return;
	st = bfq_entity_tree(entity);
	bfq_sched_active_erase(st, entity);
	st->wsum -= entity->weight;
	entity->weight = entity->new_weight;
	entity->finish = entity->start +
			 bfq_vtime_delta(entity->budget_sectors, entity->weight);
	bfq_sched_active_insert(st, entity);
	st->wsum += entity->weight;
}

/*
 * Rule 1 at the entity's own level; it is neither active nor in service.
 * @max_lag: 0 for an activation, else the most service (sectors) a
 * rejoining entity may be owed (rule 10).
 */
static void bfq_entity_activate_one(struct bfq_entity *entity, u64 max_lag)
{
	struct bfq_sched_data *sd = entity->sd;
	struct bfq_service_tree *st = bfq_entity_tree(entity);
	u64 start = st->vtime;

	if (max_lag) {
		u64 floor = start - bfq_vtime_delta(max_lag,
						    entity->new_weight);

		start = bfq_vtime_before(entity->finish, floor) ?
			floor : entity->finish;
	} else if (entity->state == BFQ_E_IDLE &&
		   bfq_vtime_before(start, entity->finish)) {
		start = entity->finish;
	}
	if (entity->state == BFQ_E_IDLE)
		bfq_sched_idle_erase(st, entity);
	if (entity->class_idx != entity->new_class) {
		bfq_entity_update_prio(entity);
		st = bfq_entity_tree(entity);
		start = st->vtime;
	}
	bfq_entity_update_prio(entity);
	if (entity->class_idx == BFQ_CLASS_IDLE && !st->nr_active &&
	    sd->in_service != entity)
		sd->idle_class_since = jiffies;
	bfq_entity_enqueue(entity, start);
}

/*
 * Rule 6 up from @entity. An ancestor activated for a rejoining leaf
 * rejoins too: its last turn ended no earlier than the leaf's, so what the
 * owner judged of the leaf's absence holds for it.
 */
static void bfq_entity_activate_path(struct bfq_entity *entity, u64 max_lag)
{
	for (; entity; entity = entity->parent) {
		if (entity->state == BFQ_E_ACTIVE ||
		    entity->state == BFQ_E_IN_SERVICE)
			return;
		bfq_entity_activate_one(entity,
					entity->class_idx == entity->new_class ?
					max_lag : 0);
	}
}

/*
 * The leaf became backlogged (rules 1 and 6). No-op if in service or
 * active.
 */
void bfq_entity_activate(struct bfq_entity *entity)
{
	bfq_entity_activate_path(entity, 0);
}

/*
 * Like bfq_entity_activate(), for an entity whose owner judges its last
 * absence accidental (a process that thought a little longer than the
 * device idled for it): it starts from its previous finish even if the
 * virtual time has passed it, so it keeps its place instead of losing the
 * service it was owed, up to @max_lag sectors of it (rule 10). The entity
 * must have been served before, at its current place.
 */
void bfq_entity_rejoin(struct bfq_entity *entity, unsigned int max_lag)
{
	bfq_entity_activate_path(entity, max(max_lag, 1U));
}

static void bfq_entity_deactivate_one(struct bfq_entity *entity)
{
	struct bfq_service_tree *st = bfq_entity_tree(entity);

	bfq_sched_active_erase(st, entity);
	st->wsum -= entity->weight;
	/* Unserved: its start stands, its finish shrinks to it. */
	entity->finish = entity->start;
	if (bfq_vtime_before(st->vtime, entity->finish))
		bfq_sched_idle_insert(st, entity);
	else
		entity->state = BFQ_E_OUT;
}

/*
 * A waiting leaf stopped being backlogged without being served; so do the
 * waiting ancestors it leaves with nothing below (rule 6).
 */
void bfq_entity_deactivate(struct bfq_entity *entity)
{
	if (WARN_ON_ONCE(entity->state != BFQ_E_ACTIVE))
		return;
	do {
		bfq_entity_deactivate_one(entity);
		entity = entity->parent;
	} while (entity && entity->state == BFQ_E_ACTIVE &&
		 !bfq_sched_busy(entity->my_sd));
}

/* Which class's tree serves next: strict priority, IDLE never starved. */
static struct bfq_service_tree *bfq_sched_select_tree(struct bfq_sched_data *sd,
						      unsigned long now)
{
	struct bfq_service_tree *idle = &sd->st[BFQ_CLASS_IDLE];
	int i;

	if (idle->nr_active &&
	    time_after_eq(now, sd->idle_class_since +
			  msecs_to_jiffies(BFQ_IDLE_CLASS_GRACE_MS)))
		return idle;
	for (i = 0; i < BFQ_NR_CLASSES; i++)
		if (sd->st[i].nr_active)
			return &sd->st[i];
	return NULL;
}

/*
 * Take the entity level @sd serves next off its tree and put it in service
 * there (rule 3), or NULL if none is backlogged. None is in service.
 */
static struct bfq_entity *bfq_sched_level_select(struct bfq_sched_data *sd,
						 unsigned long now)
{
	struct bfq_service_tree *st;
	struct bfq_entity *entity;

	st = bfq_sched_select_tree(sd, now);
	if (!st)
		return NULL;
	bfq_vtime_catch_up(st);
	entity = bfq_sched_first_eligible(st);
	if (WARN_ON_ONCE(!entity))
		return NULL;
	bfq_sched_active_erase(st, entity);
	entity->state = BFQ_E_IN_SERVICE;
	entity->service_sectors = 0;
	sd->in_service = entity;
	if (entity->class_idx == BFQ_CLASS_IDLE)
		sd->idle_class_since = now;
	return entity;
}

/*
 * The leaf to serve (rule 7): the one in service if a path stands, else a
 * new path chosen from @root down. NULL if no entity is backlogged. @now
 * is jiffies.
 */
struct bfq_entity *bfq_sched_select(struct bfq_sched_data *root,
				    unsigned long now)
{
	struct bfq_sched_data *sd = root;
	struct bfq_entity *entity;

	for (;;) {
		entity = sd->in_service ?: bfq_sched_level_select(sd, now);
		if (!entity || !entity->my_sd)
			break;
		sd = entity->my_sd;
	}
	/* Invariant a: a group chosen has something below it. */
	WARN_ON_ONCE(!entity && sd != root);
	return entity;
}

/*
 * The leaf bfq_sched_select() would take next if the one in service left
 * now, or NULL; changes nothing. Only classes up to @max_class are looked
 * at, at every level. For owners that use the device while the leaf in
 * service does not (bfq-inject.c): they serve whom the service order names
 * next. The answer waits at the highest level that has an entity waiting
 * outside the in-service path, then down through that entity's levels.
 */
struct bfq_entity *bfq_sched_peek(const struct bfq_sched_data *root,
				  enum bfq_class max_class)
{
	const struct bfq_sched_data *sd = root;
	struct bfq_entity *entity = NULL;

	while (sd && !entity) {
		entity = bfq_sched_level_next(sd, max_class);
		sd = sd->in_service ? sd->in_service->my_sd : NULL;
	}
	while (entity && entity->my_sd)
		entity = bfq_sched_level_next(entity->my_sd, max_class);
	return entity;
}

/* Rule 4 at the entity's own level; it is that level's in_service. */
static void bfq_entity_expire_one(struct bfq_entity *entity,
				  unsigned int charge_sectors, bool backlogged)
{
	struct bfq_service_tree *st = bfq_entity_tree(entity);

	entity->sd->in_service = NULL;
	entity->finish = entity->start +
			 bfq_vtime_delta(charge_sectors, entity->weight);
	bfq_vtime_advance(st, charge_sectors);
	st->wsum -= entity->weight;
	entity->state = BFQ_E_OUT;

	if (backlogged) {
		u64 start = entity->finish;

		if (entity->class_idx != entity->new_class) {
			bfq_entity_update_prio(entity);
			st = bfq_entity_tree(entity);
			start = st->vtime;
		}
		bfq_entity_update_prio(entity);
		bfq_entity_enqueue(entity, start);
	} else if (bfq_vtime_before(st->vtime, entity->finish)) {
		bfq_sched_idle_insert(st, entity);
	}
}

/*
 * End the turn of the leaf in service (rules 4 and 8): charge it
 * @charge_sectors, and each group above it the same at its own level.
 * The leaf is requeued with a new turn of budget_sectors if @backlogged,
 * else parked on the idle tree; a group is requeued while its my_sd is
 * busy.
 */
void bfq_entity_expire(struct bfq_entity *entity, unsigned int charge_sectors,
		       bool backlogged)
{
	if (WARN_ON_ONCE(entity->my_sd))
		return;
	for (;;) {
		if (WARN_ON_ONCE(entity->sd->in_service != entity))
			return;
		bfq_entity_expire_one(entity, charge_sectors, backlogged);
		entity = entity->parent;
		if (!entity)
			return;
		backlogged = bfq_sched_busy(entity->my_sd);
	}
}

/*
 * The entity's owner is about to free or move it: drop it from the idle
 * tree. It must be neither active nor in service.
 */
void bfq_entity_forget(struct bfq_entity *entity)
{
	if (entity->state == BFQ_E_IDLE)
		bfq_sched_idle_erase(bfq_entity_tree(entity), entity);
	WARN_ON_ONCE(entity->state != BFQ_E_OUT);
}

/*
 * Whether entities of a class above the one in service wait, at some level
 * of the in-service path: true only while an IDLE class holds a turn
 * granted by its anti-starvation rule.
 */
bool bfq_sched_higher_class_waits(const struct bfq_sched_data *root)
{
	const struct bfq_sched_data *sd;
	int i;

	for (sd = root; sd && sd->in_service; sd = sd->in_service->my_sd)
		for (i = 0; i < sd->in_service->class_idx; i++)
			if (sd->st[i].nr_active)
				return true;
	return false;
}

/* Whether any entity of level @sd is backlogged or in service. */
bool bfq_sched_busy(const struct bfq_sched_data *sd)
{
	int i;

	if (sd->in_service)
		return true;
	for (i = 0; i < BFQ_NR_CLASSES; i++)
		if (sd->st[i].nr_active)
			return true;
	return false;
}

#ifdef CONFIG_BFQ_KUNIT_TEST
#include "bfq-wf2q-test.c"
#endif
