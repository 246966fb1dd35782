/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BFQ groups: what the cgroup interface files accept, how a tree of group
 * weights divides a device, and the blkcg policy that keeps a group per
 * (cgroup, device). Defined in bfq-cgroup.c, which is built only with
 * CONFIG_BFQ_GROUP_IOSCHED; without it the policy calls below are empty
 * static inlines. Locking and references: see the design record at the
 * top of bfq-cgroup.c.
 */
#ifndef _BFQ_CGROUP_H
#define _BFQ_CGROUP_H

#include <linux/types.h>

#include "bfq-iosched.h"

/*
 * A group's weight, as io.bfq.weight and blkio.bfq.weight document it for
 * the stock module: 1..1000, 100 for a group nobody configured. Existing
 * tooling (systemd's IOWeight= mapping, container runtimes) writes values
 * in this range, so it is part of the contract, not a tuning choice.
 */
#define BFQ_CG_WEIGHT_MIN	1
#define BFQ_CG_WEIGHT_MAX	1000
#define BFQ_CG_WEIGHT_DEFAULT	100

/* Shares are in parts per million of the device. */
#define BFQ_CG_SHARE_PPM	1000000U

/* What one write to a weight file asks for. */
enum bfq_cg_weight_op {
	BFQ_CG_SET_DEFAULT,	/* the group's weight on every device */
	BFQ_CG_SET_DEVICE,	/* the group's weight on device major:minor */
	BFQ_CG_RESET_DEVICE,	/* major:minor back to the group's weight */
};

struct bfq_cg_weight_req {
	enum bfq_cg_weight_op op;
	unsigned int major, minor;	/* not for BFQ_CG_SET_DEFAULT */
	unsigned int weight;		/* not for BFQ_CG_RESET_DEVICE */
};

int bfq_cg_parse_weight_v2(const char *buf, struct bfq_cg_weight_req *req);
int bfq_cg_parse_weight_v1(const char *buf, struct bfq_cg_weight_req *req);
int bfq_cg_parse_weight_device_v1(const char *buf,
				  struct bfq_cg_weight_req *req);

/*
 * One node of a group tree for bfq_cg_shares_ppm(): a group, or a queue
 * inside one. Node 0 is the root (parent -1); every other node's parent
 * has a smaller index.
 */
struct bfq_cg_share_node {
	unsigned int weight;	/* ignored for the root */
	int parent;
	bool active;		/* backlogged here or below */
};

int bfq_cg_shares_ppm(const struct bfq_cg_share_node *nodes, unsigned int n,
		      u32 *share_ppm);

/* A group's weight on a device: its override there, else its default. */
static inline unsigned int bfq_cg_effective_weight(unsigned int dfl_weight,
						   unsigned int dev_weight)
{
	return dev_weight ?: dfl_weight;
}

struct bio;
struct request;

struct seq_file;

#ifdef CONFIG_BFQ_GROUP_IOSCHED

#include "blk-cgroup-rwstat.h"

/* Per cgroup, whatever the device (the blkcg policy's cpd). */
struct bfq_cgroup_data {
	struct blkcg_policy_data cpd;
	unsigned int weight;		/* default; written under blkcg->lock */
};

/*
 * The blkio.bfq.* counters of a group, by direction and sync. The first
 * two are bumped at dispatch; with CONFIG_BFQ_CGROUP_DEBUG the others at
 * insert, merge, dispatch and completion too (the bfq_cg_stat_*() calls).
 */
struct bfq_group_stats {
	struct blkg_rwstat bytes;	/* io_service_bytes */
	struct blkg_rwstat ios;		/* io_serviced */
#ifdef CONFIG_BFQ_CGROUP_DEBUG
	struct blkg_rwstat merged;	/* io_merged: bios and requests */
	struct blkg_rwstat queued;	/* io_queued: requests waiting now */
	struct blkg_rwstat wait_ns;	/* io_wait_time: arrival to dispatch */
	struct blkg_rwstat service_ns;	/* io_service_time: dispatch to end */
#endif
};

/*
 * A cgroup on one device (the blkcg policy's pd). Lifetime and locks: see
 * bfq-cgroup.c's design record, rules 2-4.
 */
struct bfq_group {
	struct blkg_policy_data pd;	/* first: blk-cgroup frees through it */

	/* Written under q->queue_lock and blkcg->lock: either reads it. */
	unsigned int dev_weight;	/* override on this device; 0: none */
	/*
	 * The effective weight last given to entity. Written under
	 * blkcg->lock and, while online, bfq_data.lock: either reads it.
	 */
	unsigned int weight;

	/*
	 * The device's; NULL once offline. Set before blk-cgroup publishes
	 * the group, cleared under q->queue_lock, blkcg->lock and
	 * bfq_data.lock: any of them reads it.
	 */
	struct bfq_data *bfqd;

	/* bfq_data.lock */
	struct bfq_entity entity;	/* the group in its parent's tree */
	struct bfq_sched_data sched;	/* its children's trees */

	struct bfq_group_stats stats;	/* per-cpu counters, no lock */

	/* bfq_data.lock; queues of this group (bfq_cg_attach()). */
	bool placed;			/* entity given its parent's level */
	/* For bfq_cg_alike() and bfq_symmetric(). */
	unsigned int busy_sync;		/* busy sync queues directly here */
	unsigned int busy_weight;	/* weight counted while busy_sync */
	unsigned int busy_children;	/* child groups with busy_sync */
	/*
	 * For bfq_tags_group_tagless(): requests of its queues that hold a
	 * scheduler tag. Written under bfq_data.lock, read without it.
	 */
	unsigned int tags_held;
	struct bfq_queue *async_bfqq[BFQ_NR_CLASSES][IOPRIO_NR_LEVELS];
};

extern struct blkcg_policy bfq_blkcg_policy;

static inline struct bfq_group *pd_to_bfqg(struct blkg_policy_data *pd)
{
	return pd ? container_of(pd, struct bfq_group, pd) : NULL;
}

/* @blkg's group, or NULL if our policy has no data on it (yet). */
static inline struct bfq_group *blkg_to_bfqg(struct blkcg_gq *blkg)
{
	return pd_to_bfqg(blkg_to_pd(blkg, &bfq_blkcg_policy));
}

static inline struct blkcg_gq *bfqg_to_blkg(struct bfq_group *bfqg)
{
	return pd_to_blkg(&bfqg->pd);
}

/* The cgroup of @bfqg (NULL: the root group), for blktrace messages. */
static inline struct cgroup_subsys_state *bfq_cg_css(struct bfq_group *bfqg)
{
	return bfqg ? &bfqg_to_blkg(bfqg)->blkcg->css : NULL;
}

/* The device's root group: the root cgroup's, never offline. */
static inline struct bfq_group *bfq_root_group(struct bfq_data *bfqd)
{
	return blkg_to_bfqg(bfqd->queue->root_blkg);
}

/*
 * bfq-tags.c: the count of tags held by @bfqg's requests
 * (NULL: the root group, whose count is @root, in bfq_data).
 */
static inline unsigned int *bfq_cg_tags_held(struct bfq_group *bfqg,
					     unsigned int *root)
{
	return bfqg ? &bfqg->tags_held : root;
}

/*
 * Count a request the device is given, in its group's io_service_bytes
 * and io_serviced. Called at dispatch, under bfq_data.lock; four per-cpu
 * additions, no atomics.
 */
static inline void bfq_cg_stat_count(struct bfq_group *bfqg,
				     struct request *rq)
{
	blkg_rwstat_add(&bfqg->stats.bytes, rq->cmd_flags, blk_rq_bytes(rq));
	blkg_rwstat_add(&bfqg->stats.ios, rq->cmd_flags, 1);
}

#ifdef CONFIG_BFQ_CGROUP_DEBUG
/*
 * Statistics (bfq_cg_stat_*()). A dispatched request's fifo_time, its deadline
 * while queued, becomes its dispatch time in ns.
 */
static inline void bfq_cg_stat_dispatched(struct bfq_group *bfqg,
					  struct request *rq, u64 now_ns)
{
	bfq_cg_stat_count(bfqg, rq);
	if (rq->start_time_ns && rq->start_time_ns < now_ns)
		blkg_rwstat_add(&bfqg->stats.wait_ns, rq->cmd_flags,
				now_ns - rq->start_time_ns);
	rq->fifo_time = now_ns;
}
#else
static inline void bfq_cg_stat_dispatched(struct bfq_group *bfqg,
					  struct request *rq, u64 now_ns)
{
	bfq_cg_stat_count(bfqg, rq);
}
#endif /* CONFIG_BFQ_CGROUP_DEBUG */

struct bfq_group *bfq_cg_bio_group(struct bfq_data *bfqd, struct bio *bio);

/*
 * Rule 11 of bfq-cgroup.c: the group whose queues @bio's I/O joins on
 * @bfqd, NULL for the root group (or a bio of no cgroup). Under
 * bfq_data.lock. A bio of the root cgroup, most of them, is answered
 * without the walk up the blkgs: the root group is never offline, and
 * were it not found the walk would end there too.
 */
static inline struct bfq_group *bfq_cg_queue_group(struct bfq_data *bfqd,
						   struct bio *bio)
{
	struct bfq_group *bfqg;

	if (!bio || !bio->bi_blkg || bio->bi_blkg == bfqd->queue->root_blkg)
		return NULL;
	bfqg = bfq_cg_bio_group(bfqd, bio);
	return bfqg == bfq_root_group(bfqd) ? NULL : bfqg;
}

/* The same for @rq, by its first bio (NULL: none, the root group). */
static inline struct bfq_group *bfq_cg_rq_group(struct bfq_data *bfqd,
						struct request *rq)
{
	return bfq_cg_queue_group(bfqd, rq->bio);
}

void bfq_cg_attach(struct bfq_data *bfqd, struct bfq_queue *bfqq,
		   struct bfq_group *bfqg);
void bfq_cg_detach(struct bfq_queue *bfqq);
void bfq_cg_move(struct bfq_data *bfqd, struct bfq_queue *bfqq,
		 struct bfq_group *bfqg);
struct bfq_queue **bfq_cg_async_slots(struct bfq_group *bfqg);
bool bfq_cg_busy_change(struct bfq_data *bfqd, struct bfq_group *bfqg,
			bool up);
bool bfq_cg_alike(struct bfq_data *bfqd, struct bfq_group *bfqg,
		  unsigned int n);
int bfq_cg_register(void);
void bfq_cg_unregister(void);
int bfq_cg_activate(struct bfq_data *bfqd);
void bfq_cg_deactivate(struct bfq_data *bfqd);
void bfq_cg_debugfs_show(struct bfq_data *bfqd, struct seq_file *m);

#else /* !CONFIG_BFQ_GROUP_IOSCHED */

struct bfq_group;

static inline void bfq_cg_debugfs_show(struct bfq_data *bfqd,
				       struct seq_file *m)
{
}

static inline struct bfq_group *bfq_root_group(struct bfq_data *bfqd)
{
	return NULL;
}

static inline struct cgroup_subsys_state *bfq_cg_css(struct bfq_group *bfqg)
{
	return NULL;
}

static inline void bfq_cg_stat_dispatched(struct bfq_group *bfqg,
					  struct request *rq, u64 now_ns)
{
}

/* Without groups, every request is the root group's. */
static inline unsigned int *bfq_cg_tags_held(struct bfq_group *bfqg,
					     unsigned int *root)
{
	return root;
}

static inline struct bfq_group *bfq_cg_bio_group(struct bfq_data *bfqd,
						 struct bio *bio)
{
	return NULL;
}

/* Without groups every queue is in the root group (NULL). */
static inline struct bfq_group *bfq_cg_queue_group(struct bfq_data *bfqd,
						   struct bio *bio)
{
	return NULL;
}

static inline struct bfq_group *bfq_cg_rq_group(struct bfq_data *bfqd,
						struct request *rq)
{
	return NULL;
}

static inline void bfq_cg_attach(struct bfq_data *bfqd,
				 struct bfq_queue *bfqq,
				 struct bfq_group *bfqg)
{
}

static inline void bfq_cg_detach(struct bfq_queue *bfqq)
{
}

static inline void bfq_cg_move(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			       struct bfq_group *bfqg)
{
}

static inline struct bfq_queue **bfq_cg_async_slots(struct bfq_group *bfqg)
{
	return NULL;
}

static inline bool bfq_cg_busy_change(struct bfq_data *bfqd,
				      struct bfq_group *bfqg, bool up)
{
	return false;
}

static inline bool bfq_cg_alike(struct bfq_data *bfqd,
				struct bfq_group *bfqg, unsigned int n)
{
	return false;
}

static inline int bfq_cg_register(void)
{
	return 0;
}

static inline void bfq_cg_unregister(void)
{
}

static inline int bfq_cg_activate(struct bfq_data *bfqd)
{
	return 0;
}

static inline void bfq_cg_deactivate(struct bfq_data *bfqd)
{
}

#endif /* CONFIG_BFQ_GROUP_IOSCHED */

/* The statistics only debug kernels keep. */
#if defined(CONFIG_BFQ_GROUP_IOSCHED) && defined(CONFIG_BFQ_CGROUP_DEBUG)
/*
 * On 6.1 fifo_time shares its memory with the csd that sends a completion
 * to another CPU, which leaves a pointer or 0 there: a dispatch time is
 * one between the request's start and now.
 */
static inline void bfq_cg_stat_completed(struct bfq_group *bfqg,
					 struct request *rq, u64 now_ns)
{
	if (bfqg && rq->fifo_time >= rq->start_time_ns &&
	    rq->fifo_time < now_ns)
		blkg_rwstat_add(&bfqg->stats.service_ns, rq->cmd_flags,
				now_ns - rq->fifo_time);
}

/*
 * @rq, given back by the driver, goes to it again from the head of the
 * dispatch list: its service time starts anew.
 */
static inline void bfq_cg_stat_redispatched(struct request *rq)
{
	rq->fifo_time = ktime_get_ns();
}

/* @rq of @bfqg joins (@delta 1) or leaves (-1) its queue. */
static inline void bfq_cg_stat_queued(struct bfq_group *bfqg,
				      struct request *rq, int delta)
{
	if (bfqg)
		blkg_rwstat_add(&bfqg->stats.queued, rq->cmd_flags, delta);
}

/* A bio or request was merged into @rq of @bfqg. */
static inline void bfq_cg_stat_merged(struct bfq_group *bfqg,
				      struct request *rq)
{
	if (bfqg)
		blkg_rwstat_add(&bfqg->stats.merged, rq->cmd_flags, 1);
}
#else
static inline void bfq_cg_stat_completed(struct bfq_group *bfqg,
					 struct request *rq, u64 now_ns)
{
}

static inline void bfq_cg_stat_redispatched(struct request *rq)
{
}

static inline void bfq_cg_stat_queued(struct bfq_group *bfqg,
				      struct request *rq, int delta)
{
}

static inline void bfq_cg_stat_merged(struct bfq_group *bfqg,
				      struct request *rq)
{
}
#endif

#endif /* _BFQ_CGROUP_H */
