// SPDX-License-Identifier: GPL-2.0
/*
 * BFQ's service layer: which backlogged entity is served next, and how much
 * it may receive before another one gets its turn.
 *
 * Rule enforced (skeleton): backlogged entities take turns in round robin;
 * a turn ends when the entity has received budget_sectors of service or
 * stops being backlogged. This file knows entities only through struct
 * bfq_entity (weight, budget, service): no request, queue or heuristic field
 * is read here, so it is testable without a request_queue and groups can
 * become entities later without touching it. The B-WF2Q+ service tree of
 * the "BFQ core" issue replaces the list behind this same interface.
 *
 * Locking: every function runs under the owning bfq_data.lock; the caller
 * holds it (the service layer has no lock of its own).
 */
#include <linux/kernel.h>
#include <linux/list.h>

#include "bfq-iosched.h"

/* ioprio level 0..7 to weight: (8 - level) * 10, the stock module's scale. */
unsigned int bfq_ioprio_to_weight(unsigned int level)
{
	return (IOPRIO_NR_LEVELS - min_t(unsigned int, level,
					 IOPRIO_NR_LEVELS - 1)) * 10;
}

void bfq_sched_init(struct bfq_sched_data *sd)
{
	INIT_LIST_HEAD(&sd->active);
	sd->nr_active = 0;
}

void bfq_entity_init(struct bfq_entity *entity, unsigned int weight)
{
	INIT_LIST_HEAD(&entity->sched_node);
	entity->on_sched = false;
	entity->weight = weight;
	entity->service_sectors = 0;
}

/* The entity became backlogged: it waits for its turn at the tail. */
void bfq_entity_activate(struct bfq_sched_data *sd, struct bfq_entity *entity)
{
	if (WARN_ON_ONCE(entity->on_sched))
		return;
	entity->service_sectors = 0;
	list_add_tail(&entity->sched_node, &sd->active);
	entity->on_sched = true;
	sd->nr_active++;
}

/* The entity has nothing left to be served: it leaves the rotation. */
void bfq_entity_deactivate(struct bfq_sched_data *sd,
			   struct bfq_entity *entity)
{
	if (WARN_ON_ONCE(!entity->on_sched))
		return;
	list_del_init(&entity->sched_node);
	entity->on_sched = false;
	sd->nr_active--;
}

/* The entity's turn ended while still backlogged: next turn at the tail. */
void bfq_entity_requeue(struct bfq_sched_data *sd, struct bfq_entity *entity)
{
	if (WARN_ON_ONCE(!entity->on_sched))
		return;
	entity->service_sectors = 0;
	list_move_tail(&entity->sched_node, &sd->active);
}

/*
 * Record @sectors of service received by @entity. Returns true when the
 * entity has used up its budget for this turn.
 */
bool bfq_entity_charge(struct bfq_entity *entity, unsigned int sectors)
{
	entity->service_sectors += sectors;
	return entity->service_sectors >= entity->budget_sectors;
}

/* The entity whose turn it is, or NULL when nothing is backlogged. */
struct bfq_entity *bfq_sched_next(struct bfq_sched_data *sd)
{
	return list_first_entry_or_null(&sd->active, struct bfq_entity,
					sched_node);
}

#ifdef CONFIG_BFQ_KUNIT_TEST
#include "bfq-wf2q-test.c"
#endif
