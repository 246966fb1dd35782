/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the KUnit suites of the per-queue glue share: a bfq_data with
 * low_latency on and no device behind it, and sync BE4 queues on it.
 * Allocations are the test's (kunit_kzalloc), freed when it ends.
 */
#ifndef _BFQ_TEST_H
#define _BFQ_TEST_H

#include <kunit/test.h>

#include "bfq-iosched.h"

/*
 * BFQ_KUNIT_TABLE(name, cases, type): name##_gen_params over @cases, an
 * array of struct @type whose rows name themselves in a .desc string
 * (6.6's KUNIT_ARRAY_PARAM_DESC, which 6.1 lacks).
 */
#define BFQ_KUNIT_TABLE(name, cases, type)				\
	static void name##_desc(const struct type *c, char *desc)	\
	{								\
		strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);		\
	}								\
	KUNIT_ARRAY_PARAM(name, cases, name##_desc)

static inline struct bfq_data *bfq_test_bfqd(struct kunit *test)
{
	struct bfq_data *bfqd = kunit_kzalloc(test, sizeof(*bfqd), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, bfqd);
	bfqd->queue = kunit_kzalloc(test, sizeof(*bfqd->queue), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bfqd->queue);
	spin_lock_init(&bfqd->lock);
	INIT_LIST_HEAD(&bfqd->all_bfqqs);
	bfq_wr_init(bfqd);
	bfq_inject_init(bfqd);
	bfq_merge_init(bfqd);
	bfqd->tun.low_latency = 1;
	bfqd->tun.slice_idle_ns = 8 * NSEC_PER_MSEC;
	return bfqd;
}

static inline struct bfq_queue *bfq_test_queue(struct kunit *test,
					       struct bfq_data *bfqd,
					       pid_t pid)
{
	struct bfq_queue *bfqq = kunit_kzalloc(test, sizeof(*bfqq), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, bfqq);
	bfqq->bfqd = bfqd;
	bfqq->pid = pid;
	bfqq->sync = true;
	bfqq->ioprio_class = BFQ_CLASS_BE;
	bfqq->ioprio_level = 4;
	bfq_entity_init(&bfqq->entity, bfq_entity_ioprio_weight(4), BFQ_CLASS_BE);
	bfq_entity_place(&bfqq->entity, &bfqd->sched, NULL);
	INIT_LIST_HEAD(&bfqq->fifo);
	bfq_wr_queue_init(bfqq);
	bfq_inject_queue_init(bfqd, bfqq);
	bfq_merge_queue_init(bfqq);
	return bfqq;
}

#endif /* _BFQ_TEST_H */
