// SPDX-License-Identifier: GPL-2.0
/*
 * BFQ's tunables in /sys/block/<dev>/queue/iosched/ (the elevator's
 * attributes). Prefix: bfq_tunable_.
 *
 * Rules
 *
 * 1. Each tunable keeps the name, unit and default of the stock module's
 *    (Documentation/bfq-iosched.rst, "Tunables"), so that existing tuning
 *    keeps its meaning; it is stored in struct bfq_tunables in the unit the
 *    code uses (slice_idle in ns), @scale times the one the user writes.
 * 2. A write is applied only if it is one whole decimal number (an optional
 *    trailing newline, as kstrtou64 takes it) within the tunable's bounds;
 *    anything else returns -EINVAL (-ERANGE past u64) and changes nothing.
 *    A user who writes garbage keeps the value they had.
 * 3. The bounds keep the stored value within u64 (KUnit checks each one)
 *    and every code path that reads a tunable valid at each end: a zero
 *    where zero would divide or stall (timeout_sync, back_seek_penalty,
 *    the fifo expiries) is refused.
 * 4. Writes are lock-free (WRITE_ONCE, read with READ_ONCE where used);
 *    low_latency written 0 also ends every weight raising at once, under
 *    bfq_data.lock (bfq_wr_end_all()), as the stock module does.
 */
#include <linux/kernel.h>
#include <linux/sysfs.h>

#include "bfq-iosched.h"

/*
 * A tunable as the user sees it: written and shown in the unit of its name,
 * stored as @scale times that in struct bfq_tunables. A write is applied
 * only if it is a whole decimal number in [min, max]; anything else is
 * rejected and changes nothing.
 */
struct bfq_tunable_desc {
	size_t offset;
	u64 scale;
	u64 min, max;
};

#define BFQ_TUNABLE(field, sc, lo, hi)					\
	{ .offset = offsetof(struct bfq_tunables, field), .scale = (sc),	\
	  .min = (lo), .max = (hi) }

enum bfq_tunable_id {
	BFQ_T_SLICE_IDLE,
	BFQ_T_SLICE_IDLE_US,
	BFQ_T_MAX_BUDGET,
	BFQ_T_TIMEOUT_SYNC,
	BFQ_T_LOW_LATENCY,
	BFQ_T_STRICT_GUARANTEES,
	BFQ_T_BACK_SEEK_MAX,
	BFQ_T_BACK_SEEK_PENALTY,
	BFQ_T_FIFO_EXPIRE_SYNC,
	BFQ_T_FIFO_EXPIRE_ASYNC,
};

/* Bounds: see Documentation/bfq-iosched.rst, "Tunables". */
static const struct bfq_tunable_desc bfq_tunable_descs[] = {
	[BFQ_T_SLICE_IDLE] = BFQ_TUNABLE(slice_idle_ns, NSEC_PER_MSEC, 0, 1000),
	[BFQ_T_SLICE_IDLE_US] = BFQ_TUNABLE(slice_idle_ns, NSEC_PER_USEC,
					    0, 1000000),
	[BFQ_T_MAX_BUDGET] = BFQ_TUNABLE(max_budget_sectors, 1, 0,
					 BFQ_MAX_BUDGET_LIMIT_SECTORS),
	[BFQ_T_TIMEOUT_SYNC] = BFQ_TUNABLE(timeout_sync_ms, 1, 1, 10000),
	[BFQ_T_LOW_LATENCY] = BFQ_TUNABLE(low_latency, 1, 0, 1),
	[BFQ_T_STRICT_GUARANTEES] = BFQ_TUNABLE(strict_guarantees, 1, 0, 1),
	[BFQ_T_BACK_SEEK_MAX] = BFQ_TUNABLE(back_seek_max_kib, 1, 0, INT_MAX),
	[BFQ_T_BACK_SEEK_PENALTY] = BFQ_TUNABLE(back_seek_penalty, 1, 1, 1000),
	[BFQ_T_FIFO_EXPIRE_SYNC] = BFQ_TUNABLE(fifo_expire_sync_ms, 1,
					       1, 600000),
	[BFQ_T_FIFO_EXPIRE_ASYNC] = BFQ_TUNABLE(fifo_expire_async_ms, 1,
						1, 600000),
};

/* low_latency was written 0: every weight raising ends now (bfq-wr.c). */
static void bfq_tunable_low_latency_off(struct bfq_data *bfqd)
{
	spin_lock_irq(&bfqd->lock);
	bfq_wr_end_all(bfqd);
	spin_unlock_irq(&bfqd->lock);
}

/* Parse a write to tunable @d into its stored value, or return an error. */
static int bfq_tunable_parse(const struct bfq_tunable_desc *d,
			     const char *buf, u64 *stored)
{
	u64 val;
	int ret;

	/* kstrtou64 takes one trailing newline and nothing else extra. */
	ret = kstrtou64(buf, 10, &val);
	if (ret)
		return ret;
	if (val < d->min || val > d->max)
		return -EINVAL;
	*stored = val * d->scale;
	return 0;
}

static u64 *bfq_tunable_field(struct bfq_data *bfqd,
			      const struct bfq_tunable_desc *d)
{
	return (u64 *)((char *)&bfqd->tun + d->offset);
}

static ssize_t bfq_tunable_show(struct elevator_queue *e, char *page,
				enum bfq_tunable_id id)
{
	const struct bfq_tunable_desc *d = &bfq_tunable_descs[id];
	u64 val = READ_ONCE(*bfq_tunable_field(e->elevator_data, d));

	return sysfs_emit(page, "%llu\n", div64_u64(val, d->scale));
}

static ssize_t bfq_tunable_store(struct elevator_queue *e, const char *page,
				 size_t count, enum bfq_tunable_id id)
{
	const struct bfq_tunable_desc *d = &bfq_tunable_descs[id];
	u64 val;
	int ret;

	ret = bfq_tunable_parse(d, page, &val);
	if (ret)
		return ret;
	WRITE_ONCE(*bfq_tunable_field(e->elevator_data, d), val);
	if (id == BFQ_T_LOW_LATENCY && !val)
		bfq_tunable_low_latency_off(e->elevator_data);
	return count;
}

#define BFQ_TUNABLE_ATTR(name, id)					\
static const enum bfq_tunable_id bfq_##name##_id = (id);		\
static ssize_t bfq_##name##_show(struct elevator_queue *e, char *page)	\
{									\
	return bfq_tunable_show(e, page, bfq_##name##_id);		\
}									\
static ssize_t bfq_##name##_store(struct elevator_queue *e,		\
				  const char *page, size_t count)	\
{									\
	return bfq_tunable_store(e, page, count, bfq_##name##_id);	\
}

BFQ_TUNABLE_ATTR(slice_idle, BFQ_T_SLICE_IDLE)
BFQ_TUNABLE_ATTR(slice_idle_us, BFQ_T_SLICE_IDLE_US)
BFQ_TUNABLE_ATTR(max_budget, BFQ_T_MAX_BUDGET)
BFQ_TUNABLE_ATTR(timeout_sync, BFQ_T_TIMEOUT_SYNC)
BFQ_TUNABLE_ATTR(low_latency, BFQ_T_LOW_LATENCY)
BFQ_TUNABLE_ATTR(strict_guarantees, BFQ_T_STRICT_GUARANTEES)
BFQ_TUNABLE_ATTR(back_seek_max, BFQ_T_BACK_SEEK_MAX)
BFQ_TUNABLE_ATTR(back_seek_penalty, BFQ_T_BACK_SEEK_PENALTY)
BFQ_TUNABLE_ATTR(fifo_expire_sync, BFQ_T_FIFO_EXPIRE_SYNC)
BFQ_TUNABLE_ATTR(fifo_expire_async, BFQ_T_FIFO_EXPIRE_ASYNC)

#define BFQ_ATTR(name) __ATTR(name, 0644, bfq_##name##_show, bfq_##name##_store)

struct elv_fs_entry bfq_attrs[] = {
	BFQ_ATTR(slice_idle),
	BFQ_ATTR(slice_idle_us),
	BFQ_ATTR(max_budget),
	BFQ_ATTR(timeout_sync),
	BFQ_ATTR(low_latency),
	BFQ_ATTR(strict_guarantees),
	BFQ_ATTR(back_seek_max),
	BFQ_ATTR(back_seek_penalty),
	BFQ_ATTR(fifo_expire_sync),
	BFQ_ATTR(fifo_expire_async),
	__ATTR_NULL
};

#ifdef CONFIG_BFQ_KUNIT_TEST
#include "bfq-sysfs-test.c"
#endif
