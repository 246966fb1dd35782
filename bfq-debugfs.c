// SPDX-License-Identifier: GPL-2.0
/*
 * BFQ's debugfs files, /sys/kernel/debug/block/<dev>/sched/: what the
 * scheduler decided, for a user or a test to read. Prefix: bfq_debugfs_.
 * Built only with CONFIG_BLK_DEBUG_FS.
 *
 * Rules
 *
 * 1. Read-only (0400), and each file is one snapshot: it is written under
 *    bfq_data.lock, so that the figures of one read agree with each other
 *    (a queue's service never exceeds its budget in one line, the busy
 *    counts match the queues listed).
 * 2. Nothing here changes state or calls back into a mechanism that would:
 *    a read of debugfs must not change what the scheduler does. The one
 *    exception is test builds' test_ranges (make TEST_HOOKS=1): written,
 *    it gives the disk the independent access ranges no emulated disk
 *    reports, for tests/vm/ranges.sh; bfq reads them when selected.
 * 3. Every line is "name=value" pairs after a fixed first word, so that the
 *    tests (tests/vm/core-observe.sh and others) parse them with awk; a
 *    field is added at the end of its line, never renamed.
 *
 * Files: queues (the queue in service, then the waiting and the empty
 * ones), service_trees (each class's virtual time and weight sum, the
 * busy counts, raising, merges and injection), rate (the peak rate
 * estimate, the budget it gives, the seek cost verdicts and the disk's
 * independent access ranges), groups (each
 * group's place in its parent's level and its own trees; bfq-cgroup.c
 * writes it, under the device's queue_lock too).
 */
#include <linux/blkdev.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/seq_file.h>

#include "bfq-iosched.h"
#include "bfq-cgroup.h"

static const char *const bfq_class_names[] = { "RT", "BE", "IDLE" };
static const char *const bfq_burst_names[] = {
	[BFQ_BURST_NONE]	= "none",
	[BFQ_BURST_MEMBER]	= "member",
	[BFQ_BURST_LARGE]	= "large",
};

static void bfq_debugfs_show_queue(struct seq_file *m, struct bfq_queue *bfqq,
				   const char *state)
{
	const struct bfq_entity *e = &bfqq->entity;

	seq_printf(m, "bfq%d%c %s class=%s weight=%u budget=%u service=%u start=%llu finish=%llu queued=%u in_driver=%u%s",
		   bfqq->pid, bfqq->sync ? 'S' : 'A', state,
		   bfq_class_names[e->class_idx], e->weight, e->budget_sectors,
		   e->service_sectors, e->start, e->finish, bfqq->nr_queued,
		   bfqq->nr_in_driver, bfq_seeky(bfqq) ? " seeky" : "");
	seq_printf(m, " think_us=%llu", div_u64(bfqq->think_ns, NSEC_PER_USEC));
	if (bfqq->merge.nr_members > 1)
		seq_printf(m, " merged members=%u%s", bfqq->merge.nr_members,
			   bfqq->merge.split_pending ? " split_pending" : "");
	seq_printf(m, " wr_coeff=%u wr_left_ms=%llu soft_rt=%d burst=%s waker=%d inject_debt=%u\n",
		   bfqq->wr.coeff, bfq_wr_left_ms(bfqq, ktime_get_ns()),
		   bfqq->wr.kind == BFQ_WR_SOFT_RT,
		   bfq_burst_names[bfqq->wr.burst],
		   bfqq->inj.waker ? bfqq->inj.waker->pid : 0,
		   bfqq->inj.debt_sectors);
}

/*
 * The allocated queues of @bfqd but the one in service: the backlogged
 * ones ("waiting") if @waiting, else those with nothing queued ("empty": a
 * reader whose one request is in the device, or a process that paused).
 * The fallback queue is listed only while it waits.
 */
static void bfq_debugfs_show_queues(struct seq_file *m, struct bfq_data *bfqd,
				    bool waiting)
{
	const char *state = waiting ? "waiting" : "empty";
	struct bfq_queue *bfqq;

	list_for_each_entry(bfqq, &bfqd->all_bfqqs, all_node) {
		bool active = bfqq->entity.state == BFQ_E_ACTIVE;

		if (bfqq != bfqd->in_service_bfqq && active == waiting)
			bfq_debugfs_show_queue(m, bfqq, state);
	}
	bfqq = &bfqd->fallback_bfqq;
	if (waiting && bfqq != bfqd->in_service_bfqq &&
	    bfqq->entity.state == BFQ_E_ACTIVE)
		bfq_debugfs_show_queue(m, bfqq, state);
}

/*
 * The queue in service, then the waiting queues, then the empty ones, each
 * in allocation order. Queues are listed from bfq_data.all_bfqqs, not from
 * the service trees, whose entities may be groups.
 */
static int bfq_debugfs_queues_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct bfq_data *bfqd = q->elevator->elevator_data;

	spin_lock_irq(&bfqd->lock);
	if (bfqd->in_service_bfqq)
		bfq_debugfs_show_queue(m, bfqd->in_service_bfqq,
				       bfqd->idling ? "in_service,idling" :
				       bfqd->parked ? "in_service,parked" :
				       "in_service");
	bfq_debugfs_show_queues(m, bfqd, true);
	bfq_debugfs_show_queues(m, bfqd, false);
	spin_unlock_irq(&bfqd->lock);
	return 0;
}

static int bfq_debugfs_trees_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct bfq_data *bfqd = q->elevator->elevator_data;
	int class;

	spin_lock_irq(&bfqd->lock);
	for (class = 0; class < BFQ_NR_CLASSES; class++) {
		const struct bfq_service_tree *st = &bfqd->sched.st[class];

		seq_printf(m, "%s vtime=%llu wsum=%llu active=%u idle=%s\n",
			   bfq_class_names[class], st->vtime, st->wsum,
			   st->nr_active, RB_EMPTY_ROOT(&st->idle) ? "empty" :
			   "non-empty");
	}
	seq_printf(m, "busy_sync_kinds=%u busy_groups=%u symmetric=%d\n",
		   bfqd->busy_kinds, bfqd->busy_groups,
		   bfq_symmetric(bfqd, bfqd->in_service_bfqq));
	seq_printf(m, "wr_raised=%u burst_size=%u burst_large=%d\n",
		   bfqd->wr.nr_raised, bfqd->wr.burst.size,
		   bfqd->wr.burst.large);
	seq_printf(m, "merges=%llu splits=%llu\n", bfqd->merge.nr_merges,
		   bfqd->merge.nr_splits);
	seq_printf(m, "inject_limit=%u inject_base_us=%llu injected_in_driver=%u injected=%llu for_wakers=%llu swept=%llu\n",
		   bfqd->inj.learn.limit,
		   div_u64(bfqd->inj.learn.base_ns, NSEC_PER_USEC),
		   bfqd->inj.in_driver, bfqd->inj.nr_injected,
		   bfqd->inj.nr_for_wakers, bfqd->inj.nr_swept);
	spin_unlock_irq(&bfqd->lock);
	return 0;
}

static int bfq_debugfs_groups_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;

	bfq_cg_debugfs_show(q->elevator->elevator_data, m);
	return 0;
}

static int bfq_debugfs_rate_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct bfq_data *bfqd = q->elevator->elevator_data;
	struct bfq_seek_cost *sc = &bfqd->seek;
	unsigned int i;

	spin_lock_irq(&bfqd->lock);
	seq_printf(m, "peak_sectors_per_sec=%llu samples=%u max_budget=%u rq_in_driver=%u driver_depth=%u hw_queueing=%d\n",
		   bfqd->rate.peak_sectors_per_sec, bfqd->rate.nr_samples,
		   bfq_max_budget(bfqd), bfqd->rq_in_driver,
		   bfqd->driver_depth, bfqd->hw_queueing);
	/* bfq_rate_seek_costly(): what requests served alone took. */
	seq_printf(m, "seeks_cost=%d\n", bfq_rate_seek_costly(sc));
	/* Design note 8 of bfq-iosched.c: writeback in the device. */
	seq_printf(m, "async_in_driver=%u async_bound=%d async_bound_offs=%lu drain_sectors_per_sec=%llu drain_samples=%u\n",
		   bfqd->async_in_driver,
		   bfq_async_bound_on(bfqd, ktime_get_ns()),
		   bfqd->async_bound_offs, bfqd->rate.drain_sectors_per_sec,
		   bfqd->rate.nr_drain);
	/* Rule 5 of bfq-inject.c. */
	seq_printf(m, "ranges nr=%u injected=%llu", bfqd->ranges.nr,
		   bfqd->ranges.nr_injected);
	for (i = 0; i < bfqd->ranges.nr; i++)
		seq_printf(m, " end%u=%llu in_driver%u=%u", i,
			   (unsigned long long)bfqd->ranges.end[i], i,
			   bfqd->ranges.in_driver[i]);
	seq_putc(m, '\n');
	for (i = 0; i < BFQ_SEEK_NR_SIZES; i++) {
		if (!sc->near_n[i] && !sc->far_n[i])
			continue;
		seq_printf(m, "seek sectors=%u near_us=%u/%u far_us=%u/%u verdict=%s\n",
			   1U << i, sc->near_ns[i] / (u32)NSEC_PER_USEC,
			   sc->near_n[i], sc->far_ns[i] / (u32)NSEC_PER_USEC,
			   sc->far_n[i], !(sc->known & BIT(i)) ? "none" :
			   sc->costly & BIT(i) ? "costly" : "free");
	}
	spin_unlock_irq(&bfqd->lock);
	return 0;
}

#ifdef BFQ_TEST_HOOKS
/*
 * Test builds: "N" gives the disk N equal independent access ranges (2 to
 * BFQ_MAX_RANGES), "0" none; select bfq again for it to read them.
 */
static ssize_t bfq_debugfs_test_ranges_write(void *data,
					     const char __user *buf,
					     size_t count, loff_t *ppos)
{
	struct request_queue *q = data;
	struct blk_independent_access_ranges *iars = NULL;
	sector_t cap = get_capacity(q->disk), part;
	unsigned int n, i;
	int ret;

	ret = kstrtouint_from_user(buf, count, 0, &n);
	if (ret)
		return ret;
	if (n == 1 || n > BFQ_MAX_RANGES)
		return -EINVAL;
	if (n) {
		iars = disk_alloc_independent_access_ranges(q->disk, n);
		if (!iars)
			return -ENOMEM;
		part = div_u64(cap, n);
		for (i = 0; i < n; i++) {
			iars->ia_range[i].sector = part * i;
			iars->ia_range[i].nr_sectors =
				i + 1 < n ? part : cap - part * i;
		}
	}
	/* Takes over iars, freed if the ranges are invalid. */
	disk_set_independent_access_ranges(q->disk, iars);
	return count;
}

/* What bfq read when selected, as the rate file says it. */
static int bfq_debugfs_test_ranges_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct bfq_data *bfqd = q->elevator->elevator_data;

	seq_printf(m, "%u\n", READ_ONCE(bfqd->ranges.nr));
	return 0;
}
#endif

const struct blk_mq_debugfs_attr bfq_queue_debugfs_attrs[] = {
	{ "queues", 0400, bfq_debugfs_queues_show },
	{ "service_trees", 0400, bfq_debugfs_trees_show },
	{ "rate", 0400, bfq_debugfs_rate_show },
	{ "groups", 0400, bfq_debugfs_groups_show },
#ifdef BFQ_TEST_HOOKS
	{ "test_ranges", 0600, bfq_debugfs_test_ranges_show,
	  bfq_debugfs_test_ranges_write },
#endif
	{},
};
