/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel API differences between the series we build for, the two LTS
 * series 6.1 and 6.12 and the newest of Debian's trixie-backports, 7.3,
 * and nothing else. Every other file is written against the helpers below
 * and contains no LINUX_VERSION_CODE test of its own.
 *
 * Stable series change within themselves, so the tests below are on the
 * sublevel where one did (LINUX_VERSION_CODE carries it; Debian's
 * release names, 6.1.0-N, do not). The floor of each series is the
 * oldest sublevel the module is correct on:
 *   6.1.191  IOPRIO_PRIO_LEVEL() (the ioprio hint bits) came in 6.1.191;
 *            and from 6.1.105 on blk-mq sets blk_mq_alloc_data.hctx
 *            before it calls limit_depth(), which bfq_limit_depth() reads:
 *            a shim for the first would let an older 6.1 build and then
 *            dereference NULL at the first request.
 *   6.12.0   shallow_depth's meaning changed in 6.12.43 (below).
 *   7.3.4    the oldest 7.3 built and tested (trixie-backports' kernel);
 *            its earlier sublevels are not known to be the same.
 * The series between 6.12 and 7.3 are refused, so a test below written
 * "7.3 on" names a change that came somewhere between 6.13 and 7.3: the
 * first version that has it is not claimed. Other series are refused:
 * their block layer is not the one this file knows.
 */
#ifndef _BFQ_COMPAT_H
#define _BFQ_COMPAT_H

#include <linux/version.h>
#include <linux/blk-mq.h>
#include <linux/hrtimer.h>
#include <linux/sbitmap.h>

#include "blk-mq.h"
#include "elevator.h"
#include "blk-wbt.h"

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 191)
#error "bfq needs 6.1.191 or later in the 6.1 series (IOPRIO_PRIO_LEVEL, hctx in limit_depth)"
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0) && LINUX_VERSION_CODE < KERNEL_VERSION(6, 12, 0)
#error "bfq builds for the 6.1 (6.1.191 on), 6.12 and 7.3 (7.3.4 on) series only"
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0) && LINUX_VERSION_CODE < KERNEL_VERSION(7, 3, 4)
#error "bfq builds for the 6.1 (6.1.191 on), 6.12 and 7.3 (7.3.4 on) series only"
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(7, 4, 0)
#error "bfq builds for the 6.1 (6.1.191 on), 6.12 and 7.3 (7.3.4 on) series only"
#endif

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
 * limit_depth(): on 6.1, and on 6.12 before 6.12.43,
 * blk_mq_alloc_data.shallow_depth limits each word of the tag sbitmap;
 * from 6.12.43 it applies to the whole map (lib/sbitmap.c scales it per
 * word itself). Taken the wrong way, every limit is a no-op (a per-word
 * value read as whole-map) or far too tight (the reverse). @tags is the
 * number of scheduler tags the caller wants to allow out of hctx's whole
 * map.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 43)
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

/*
 * Writeback throttling is off while bfq runs a disk: bfq's limits on
 * async writes and its weights do that job, and a second throttle in
 * front of them hides the weights between writers. Leaving the disk puts
 * the default back; a latency written to wbt_lat_usec by hand stays
 * either way. 6.12 also marks the elevator (ELEVATOR_FLAG_DISABLE_WBT),
 * 7.3 the queue (QUEUE_FLAG_DISABLE_WBT_DEF, which the scheduler sets and
 * clears itself), so that wbt stays off if the queue registers again
 * while bfq runs it.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 3, 0)
static inline void bfq_wbt_off(struct request_queue *q,
			       struct elevator_queue *eq)
{
	blk_queue_flag_set(QUEUE_FLAG_DISABLE_WBT_DEF, q);
	wbt_disable_default(q->disk);
}

static inline void bfq_wbt_restore(struct request_queue *q,
				   struct elevator_queue *eq)
{
	blk_queue_flag_clear(QUEUE_FLAG_DISABLE_WBT_DEF, q);
	wbt_enable_default(q->disk);
}
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
static inline void bfq_wbt_off(struct request_queue *q,
			       struct elevator_queue *eq)
{
	set_bit(ELEVATOR_FLAG_DISABLE_WBT, &eq->flags);
	wbt_disable_default(q->disk);
}

static inline void bfq_wbt_restore(struct request_queue *q,
				   struct elevator_queue *eq)
{
	clear_bit(ELEVATOR_FLAG_DISABLE_WBT, &eq->flags);
	wbt_enable_default(q->disk);
}
#else
static inline void bfq_wbt_off(struct request_queue *q,
			       struct elevator_queue *eq)
{
	wbt_disable_default(q);
}

static inline void bfq_wbt_restore(struct request_queue *q,
				   struct elevator_queue *eq)
{
	wbt_enable_default(q);
}
#endif

/*
 * init_sched(): up to 6.12 it is given the elevator_type, allocates the
 * elevator_queue itself (elevator_alloc()) and puts it again when it
 * fails. In 7.3 blk-mq allocates the elevator_queue (with the scheduler
 * tags, before the queue is frozen), passes it, and puts it when
 * init_sched fails. bfq_init_sched() takes a bfq_init_sched_arg_t, gets
 * its elevator_queue from bfq_elevator_get() and, failing, gives it to
 * bfq_elevator_put_failed().
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 3, 0)
#define bfq_init_sched_arg_t struct elevator_queue *

static inline struct elevator_queue *bfq_elevator_get(struct request_queue *q,
						      struct elevator_queue *eq)
{
	return eq;
}

static inline void bfq_elevator_put_failed(struct elevator_queue *eq)
{
}
#else
#define bfq_init_sched_arg_t struct elevator_type *

static inline struct elevator_queue *bfq_elevator_get(struct request_queue *q,
						      struct elevator_type *e)
{
	return elevator_alloc(q, e);
}

static inline void bfq_elevator_put_failed(struct elevator_queue *eq)
{
	kobject_put(&eq->kobj);
}
#endif

/* bfq-tags.c's depth_updated, for one hardware queue. */
void bfq_depth_updated(struct blk_mq_hw_ctx *hctx);

/*
 * depth_updated(): up to 6.12 called for each hardware queue, before
 * nr_requests is stored; in 7.3 once for the request_queue, after it is
 * (and when the queue's async_depth attribute is written, which bfq does
 * not read: its own limits are in bfq-tags.c).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 3, 0)
static inline void bfq_depth_updated_fn(struct request_queue *q)
{
	struct blk_mq_hw_ctx *hctx;
	unsigned long i;

	queue_for_each_hw_ctx(q, hctx, i)
		bfq_depth_updated(hctx);
}
#else
static inline void bfq_depth_updated_fn(struct blk_mq_hw_ctx *hctx)
{
	bfq_depth_updated(hctx);
}
#endif

/*
 * hrtimer_init() and a store to ->function up to 6.12; 7.3 has only
 * hrtimer_setup(), which takes the callback.
 */
static inline void bfq_hrtimer_setup(struct hrtimer *timer,
				     enum hrtimer_restart (*fn)(struct hrtimer *),
				     clockid_t clock, enum hrtimer_mode mode)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 3, 0)
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

/*
 * Whether @q's device is not rotational: blk_queue_nonrot() up to 6.12,
 * its negation blk_queue_rot() in 7.3.
 */
static inline bool bfq_queue_nonrot(struct request_queue *q)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 3, 0)
	return !blk_queue_rot(q);
#else
	return blk_queue_nonrot(q);
#endif
}

/*
 * KUnit: mark @q, zeroed and of no device, rotational: a flag set from
 * 6.10 on (BLK_FEAT_ROTATIONAL), the absence of QUEUE_FLAG_NONROT before.
 */
static inline void bfq_queue_mark_rot(struct request_queue *q)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
	q->limits.features |= BLK_FEAT_ROTATIONAL;
#else
	clear_bit(QUEUE_FLAG_NONROT, &q->queue_flags);
#endif
}

#ifdef CONFIG_BFQ_GROUP_IOSCHED
#include "blk-cgroup.h"

/* bfq-cgroup.c's pd allocator, behind the pd_alloc_fn() adapters below. */
struct blkg_policy_data *bfq_cg_pd_alloc(struct request_queue *q, gfp_t gfp);

/*
 * blk-cgroup between 6.1 and 6.12: pd_alloc_fn() took (gfp, queue, blkcg)
 * and takes (gendisk, blkcg, gfp); blkcg_{de,}activate_policy() took the
 * request_queue and take the gendisk; blkg_conf_prep() parsed its input
 * and was undone by blkg_conf_finish() on success only, while now
 * blkg_conf_init() takes the input and blkg_conf_exit() undoes whatever
 * was done, failure included. In 7.3 blkg_conf_exit() is gone: the
 * caller opens the device first (blkg_conf_open_bdev(), which takes the
 * queue's rq_qos_mutex), and undoes blkg_conf_prep() with
 * blkg_conf_unprep() (the queue_lock) and the open with
 * blkg_conf_close_bdev(). bfq_blkg_conf_begin() returns 0 with
 * ctx->blkg's queue_lock held, to be released by bfq_blkg_conf_end(), or
 * -errno with nothing held; -EOPNOTSUPP means the policy is not active
 * on the device.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
static inline struct blkg_policy_data *bfq_cg_pd_alloc_fn(struct gendisk *disk,
							  struct blkcg *blkcg,
							  gfp_t gfp)
{
	return bfq_cg_pd_alloc(disk->queue, gfp);
}

static inline int bfq_blkcg_activate(struct request_queue *q,
				     const struct blkcg_policy *pol)
{
	return blkcg_activate_policy(q->disk, pol);
}

static inline void bfq_blkcg_deactivate(struct request_queue *q,
					const struct blkcg_policy *pol)
{
	blkcg_deactivate_policy(q->disk, pol);
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 3, 0)
static inline int bfq_blkg_conf_begin(struct blkcg *blkcg,
				      const struct blkcg_policy *pol,
				      char *input, struct blkg_conf_ctx *ctx)
{
	int ret;

	blkg_conf_init(ctx, input);
	ret = blkg_conf_open_bdev(ctx);
	if (ret)
		return ret;
	ret = blkg_conf_prep(blkcg, pol, ctx);
	if (ret)
		blkg_conf_close_bdev(ctx);
	return ret;
}

static inline void bfq_blkg_conf_end(struct blkg_conf_ctx *ctx)
{
	blkg_conf_unprep(ctx);
	blkg_conf_close_bdev(ctx);
}
#else
static inline int bfq_blkg_conf_begin(struct blkcg *blkcg,
				      const struct blkcg_policy *pol,
				      char *input, struct blkg_conf_ctx *ctx)
{
	int ret;

	blkg_conf_init(ctx, input);
	ret = blkg_conf_prep(blkcg, pol, ctx);
	if (ret)
		blkg_conf_exit(ctx);
	return ret;
}

static inline void bfq_blkg_conf_end(struct blkg_conf_ctx *ctx)
{
	blkg_conf_exit(ctx);
}
#endif
#else
static inline struct blkg_policy_data *bfq_cg_pd_alloc_fn(gfp_t gfp,
							  struct request_queue *q,
							  struct blkcg *blkcg)
{
	return bfq_cg_pd_alloc(q, gfp);
}

static inline int bfq_blkcg_activate(struct request_queue *q,
				     const struct blkcg_policy *pol)
{
	return blkcg_activate_policy(q, pol);
}

static inline void bfq_blkcg_deactivate(struct request_queue *q,
					const struct blkcg_policy *pol)
{
	blkcg_deactivate_policy(q, pol);
}

static inline int bfq_blkg_conf_begin(struct blkcg *blkcg,
				      const struct blkcg_policy *pol,
				      char *input, struct blkg_conf_ctx *ctx)
{
	return blkg_conf_prep(blkcg, pol, input, ctx);
}

static inline void bfq_blkg_conf_end(struct blkg_conf_ctx *ctx)
{
	blkg_conf_finish(ctx);
}
#endif
#endif /* CONFIG_BFQ_GROUP_IOSCHED */

#endif /* _BFQ_COMPAT_H */
