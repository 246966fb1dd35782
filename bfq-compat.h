/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel API differences between the two LTS series we build for, 6.1
 * and 6.12, and nothing else. Every other file is written against the
 * helpers below and contains no LINUX_VERSION_CODE test of its own.
 */
#ifndef _BFQ_COMPAT_H
#define _BFQ_COMPAT_H

#include <linux/version.h>
#include <linux/blk-mq.h>
#include <linux/sbitmap.h>

/*
 * insert_requests(): 6.1 passes "bool at_head", 6.5 and later pass
 * blk_insert_t flags.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
#define bfq_insert_flags_t blk_insert_t

static inline bool bfq_insert_at_head(blk_insert_t flags)
{
	return flags & BLK_MQ_INSERT_AT_HEAD;
}
#else
#define bfq_insert_flags_t bool

static inline bool bfq_insert_at_head(bool at_head)
{
	return at_head;
}
#endif

/*
 * Whether blk-mq called our prepare_request() for @rq, and so will call
 * finish_request(): RQF_ELVPRIV on 6.1, RQF_USE_SCHED from 6.5 on.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
static inline bool bfq_rq_prepared(const struct request *rq)
{
	return rq->rq_flags & RQF_USE_SCHED;
}
#else
static inline bool bfq_rq_prepared(const struct request *rq)
{
	return rq->rq_flags & RQF_ELVPRIV;
}
#endif

/*
 * limit_depth(): on 6.1 blk_mq_alloc_data.shallow_depth limits each word of
 * the tag sbitmap; the Debian 6.12 LTS kernels apply it to the whole map
 * (lib/sbitmap.c scales it per word itself). @tags is the number of
 * scheduler tags the caller wants to allow out of hctx's whole map.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
static inline unsigned int bfq_shallow_depth(struct blk_mq_hw_ctx *hctx,
					     unsigned int tags)
{
	return tags;
}
#else
static inline unsigned int bfq_shallow_depth(struct blk_mq_hw_ctx *hctx,
					     unsigned int tags)
{
	const struct sbitmap_queue *bt = &hctx->sched_tags->bitmap_tags;
	unsigned int depth = hctx->queue->nr_requests;
	unsigned int word = min(1U << bt->sb.shift, depth);

	return max(1U, (tags * word + depth - 1) / depth);
}
#endif

#endif /* _BFQ_COMPAT_H */
