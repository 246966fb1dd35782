// SPDX-License-Identifier: GPL-2.0
/*
 * BFQ groups: what the weight files accept, how a tree of group weights
 * divides a device (rules 1-4: pure functions, so that the policy and the
 * tests share one definition of both), and the blkcg policy that keeps a
 * struct bfq_group per (cgroup, device) behind the cgroup files (rules
 * 5-10). Prefix: bfq_cg_ (bfq_cg_pd_ and bfq_cg_cpd_ for the blkcg
 * policy's callbacks).
 *
 * Rules enforced, and why:
 *
 * 1. All or nothing. A parser reads the whole write and fills the caller's
 *    struct bfq_cg_weight_req only if it is one of the forms below with
 *    values in range; on any error the request is untouched. A write that
 *    was half understood must not be half applied: the tools that write
 *    these files (systemd, container runtimes) report a failure, they do
 *    not read the file back to see what stuck.
 * 2. The forms, those the stock module documents, so that existing tooling
 *    works unchanged. cgroup v2 io.bfq.weight: "N" and "default N" set the
 *    group's weight, "MAJ:MIN N" its weight on one device, "MAJ:MIN
 *    default" drops that override. cgroup v1 blkio.bfq.weight: "N";
 *    blkio.bfq.weight_device: io.bfq.weight's forms, and "MAJ:MIN 0" drops
 *    the override too (as v1's documentation says).
 *    Fields are separated by whitespace; whitespace before the first and
 *    after the last (echo's newline, a stray blank) is ignored, as cgroup
 *    files that strip their input do. A number is decimal digits only: no
 *    sign, no 0x, no suffix. "default" is lower case.
 * 3. Errors, syntax first. -EINVAL for anything that is not one of the
 *    forms: an empty write, a missing or extra field, a number with
 *    anything else in it ("10x", "1:", ":1", "-5"), or a number that does
 *    not fit in 32 bits (no weight or device number is that long, so it is
 *    garbage rather than out of range). Then -ENODEV for a MAJ:MIN that
 *    cannot be a dev_t (major over 12 bits, minor over 20): it names no
 *    device, the answer the device lookup gives later for one that does
 *    not exist. Then -ERANGE for a weight outside
 *    BFQ_CG_WEIGHT_MIN..BFQ_CG_WEIGHT_MAX (v1's 0 excepted). Resolving
 *    MAJ:MIN to a device is the caller's, with its blkcg context.
 * 4. Shares. The children of a node divide the node's share of the device
 *    in proportion to their weights, counting only the active ones (with
 *    I/O backlogged in them or below): an idle group's share goes to its
 *    backlogged siblings, as B-WF2Q+ hands out service. An active root
 *    holds the whole device. Shares are in parts per million, rounded down
 *    at each level, so a node at depth d is less than d ppm under its exact
 *    share. Example: children of weights 200 and 100 under the root get
 *    666666 and 333333; children of 300 and 100 under the first get 499999
 *    and 166666.
 * 5. Registration. The policy is registered at module init before the
 *    elevator and unregistered after it at exit: init_sched, reachable
 *    once elv_register() returns, activates the policy and needs its plid.
 *    init_sched activates it on its device once q->elevator is set
 *    (pd_init finds the bfq_data there); exit_sched deactivates it first,
 *    while the bfq_data is whole. A failure at either step unwinds what
 *    the step took and nothing else.
 * 6. Data. Per cgroup (cpd, struct bfq_cgroup_data): the default weight,
 *    BFQ_CG_WEIGHT_DEFAULT until written; it is lost when the module is
 *    unloaded, with the policy. Per cgroup and device (pd, struct
 *    bfq_group): the device's override (0: none), the effective weight,
 *    the group's entity in its parent's service tree and its own trees
 *    below (bfq-wf2q.c), the device's bfq_data, and the counters of the
 *    blkio.bfq.* stat files.
 * 7. Weights. A group's effective weight is its override on the device,
 *    else its cgroup's default (bfq_cg_effective_weight()). A write is
 *    parsed whole first (rules 1-3). A default goes to the cpd and to every
 *    group of the cgroup, walking blkcg->blkg_list under blkcg->lock, as
 *    iocost's io.weight does; a group created meanwhile reads it in
 *    pd_online, also under blkcg->lock, so no group misses it. An override
 *    or its reset goes through blk-cgroup's conf helpers, which find the
 *    device (-ENODEV for no such disk, or a partition), create the
 *    cgroup's blkgs on it if needed and hold its queue_lock; then under
 *    blkcg->lock too. The entity gets the result through
 *    bfq_entity_set_prio() under bfq_data.lock, from its next turn on.
 * 8. A per-device write for a device bfq does not schedule (our policy not
 *    active there; blk-cgroup answers -EOPNOTSUPP, which users of the
 *    stock module find baffling) is refused with -ENODEV, as for a device
 *    that does not exist, and a rate-limited warning says which device and
 *    why. Nothing changes.
 * 9. Lock order: q->queue_lock, blkcg->lock, bfq_data.lock. blk-cgroup
 *    calls pd_online and pd_offline with the first two held.
 * 10. Lifetime. blk-cgroup owns the pd: pd_alloc with the blkg (or at
 *    activation), pd_free when the blkg's last reference goes (RCU- and
 *    work-deferred) or at deactivation. A bio holds a reference to its
 *    blkg (bio->bi_blkg) from submission until it completes, so a queued
 *    or dispatched request's group lives as long as its bios; but
 *    finish_request runs after they completed, so whatever of ours keeps
 *    a group beyond its requests (a bfq_queue in the group) must hold its
 *    own blkg_get(bfqg_to_blkg()) and blkg_put() it when freed or moved
 *    (blkg_put() is fine under bfq_data.lock). pd_offline (rmdir, disk
 *    removal, deactivation) comes before pd_free, with the device's
 *    bfq_data alive: it clears bfq_group.bfqd under bfq_data.lock, after
 *    which bfq_cg_bio_group() passes the group over and new I/O goes to its
 *    nearest online ancestor; its queues go there too (rule 11), and its
 *    counters are added to the
 *    parent's so the recursive stats keep its I/O. pd_offline runs under
 *    the device's queue_lock: a turn it ends is handed to kblockd
 *    (blk_mq_delay_run_hw_queues()), never run from there, since
 *    blk_mq_run_hw_queue() takes queue_lock when it finds nothing to run
 *    (6.12 and later). pd_free touches the pd
 *    only: on 6.1 a blkg destroyed before exit_sched is freed after it,
 *    bfq_data gone. (6.1's blk-cgroup frees such a pd through
 *    blkcg_policy[], which unregistering empties: an rmmod racing with the
 *    last reference to a removed cgroup's blkg is its bug, not ours.)
 * 11. Queues in groups. A request joins the queue of its bio's group
 *    (bfq_cg_rq_group(); NULL stands for the root group, whose queues are
 *    scheduled in bfq_data.sched directly). A queue is attached to its group
 *    when created (bfq_cg_attach()): it takes a blkg reference, and the
 *    group's entity, the first time one of its queues appears, is placed in
 *    its parent's level (the root's, or the parent group's own trees),
 *    ancestors first. Each group has its own async queues, whose slot
 *    references pd_offline drops. A process moved to another cgroup takes its
 *    sync queue along at its next request there, with the queue's raising and
 *    history (bfq_cg_move()), if the queue holds nothing of the old group: no
 *    request queued, in the device or not yet finished, no other process, no
 *    turn (a turn it idles or is parked in ends first). Otherwise it gets a
 *    new sync queue that takes the old one's state, and the old one keeps its
 *    requests and is freed, like any queue, when its last reference goes
 *    (bfq_cg_detach(): the blkg reference is dropped last). A group going
 *    offline (bfqd NULL: its cgroup removed) receives no new queue, and
 *    every queue it holds moves at once to the nearest group above it still
 *    online (bfq_cg_reparent_queues(), bfq_queue_reparent()), with its
 *    requests and what they count in the group (tags held, busy count,
 *    queued statistic); a turn one of them holds ends first. Left at the
 *    removed group's weight, the requests of a process that moved out
 *    before the removal would wait at a share nobody asked for any more
 *    (at weight 1, for minutes, and the process with them), and the group
 *    could not be released until they were served. Offline, the group is
 *    not busy: its entity leaves its parent's idle tree
 *    (bfq_entity_forget()), walking up through offline ancestors, at
 *    pd_offline or when its last queue leaves. So when pd_free comes, after
 *    the last queue's blkg_put(), no tree holds the entity. At exit_sched
 *    every queue is gone before the policy is deactivated.
 * 12. Unloading. Deactivation frees the pds of the blkgs on the device's
 *    list, but a blkg already destroyed (its cgroup removed) while a queue
 *    of ours still held it is freed later: RCU, then a work item that
 *    calls pd_free through blkcg_policy[] (6.1 and 6.12 alike). If the
 *    policy were unregistered first, that call would find NULL there, or
 *    our pd_free would be gone with the module (on 6.1, an rmdir then an
 *    rmmod would oops in blkg_free_workfn). So every pd holds a reference
 *    to the module, taken in pd_alloc and dropped as the last thing
 *    pd_free does: while one lives, rmmod is refused (EBUSY, for the few
 *    ms after an rmdir that such a free takes), and the module's exit
 *    never runs with a pd left. A count of live pds with the exit waiting
 *    for none, as before, was not enough: pd_free went on using module
 *    memory (the wait queue, its own code) after the count reached 0,
 *    while the exit was free to proceed.
 * 13. Symmetry. Idling for an emptied queue is what keeps a group from
 *    losing its share to groups whose queues stay backlogged, so with
 *    several busy groups the device idles, unless the groups are alike:
 *    siblings (one parent), of one weight, each holding the same number
 *    of busy sync queues (with requests queued, in service, or with
 *    requests in the device), with no busy queue of the root group beside
 *    them. Then every group is served as every other, idling or not, and
 *    skipping the idle slice costs no group its share; without this rule
 *    64 containers of one random reader each lose half the IOPS they get
 *    with the same readers in one cgroup. The shape is kept in O(1) per
 *    busy transition: per parent the count of its busy child groups, per
 *    device the sums of the busy groups' weights and queue counts and of
 *    their squares (all equal exactly when n * sum(x^2) = sum(x)^2, and
 *    here when both sums match n copies of the in-service group's value).
 * 14. Statistics. io_service_bytes and io_serviced count what the device
 *    is given, at dispatch: two per-cpu additions a request, the only
 *    statistics cost of a kernel without CONFIG_BFQ_CGROUP_DEBUG. With it,
 *    io_merged (bios and requests merged into a request of the group),
 *    io_queued (requests of the group waiting in bfq now), io_wait_time
 *    (ns from a request's allocation to its dispatch) and io_service_time
 *    (ns from its last dispatch, a requeued one's included, to
 *    completion) too, with _recursive views; their cost (a clock read at
 *    dispatch, per-cpu additions) is paid only by those who asked for
 *    it. A removed group hands its counts on to its parent for the
 *    recursive files, except the gauge io_queued.
 * 15. Scheduler tags. A process that does one request at a time (read()
 *    on O_DIRECT, the way most programs do I/O) has nothing queued while it
 *    prepares its next request, and on a short queue (2 tags on a one-request
 *    device) the other processes' requests take every tag meanwhile: it sleeps
 *    in the block layer, bfq never sees its group busy, and the groups share
 *    the device by their processes' wins of the tag races, four readers against
 *    one taking four requests in five whatever the weights. So each group
 *    counts the tags its requests hold (bfq_group.tags_held; the root group's
 *    count is in bfq_data), from the binding of a request to its queue to its
 *    free, and the tags bfq-tags.c keeps (bfq_tags_reserved_for()) go also to
 *    the processes of a group that holds none while other groups hold some;
 *    they are kept while a request of one group followed another group's in the
 *    last BFQ_TAG_KEEP_MS. Each group with a process waiting then has a request
 *    in bfq's sight, and B-WF2Q+ shares the device among them by weight, with
 *    the idling of rule 13 where their shapes differ. Read without
 *    bfq_data.lock, like all of bfq-tags.c: a wrong answer costs one request's
 *    wait, and a device with many tags never runs out of them for a few
 *    processes per group.
 */
#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/kdev_t.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "bfq-compat.h"
#include "bfq-cgroup.h"

/* A dev_t holds a 12-bit major above a MINORBITS-bit minor. */
#define BFQ_CG_MAJOR_MAX	((1U << (32 - MINORBITS)) - 1)

/* The most fields a weight write has: "MAJ:MIN N", "default N". */
#define BFQ_CG_MAX_FIELDS	2

/* One whitespace-separated field of a write: @len characters at @s. */
struct bfq_cg_field {
	const char *s;
	size_t len;
};

/*
 * Rule 2: split @buf into @f at whitespace. Returns the number of fields,
 * or -EINVAL if there are more than BFQ_CG_MAX_FIELDS.
 */
static int bfq_cg_split(const char *buf, struct bfq_cg_field *f)
{
	int n = 0;

	for (;;) {
		buf = skip_spaces(buf);
		if (!*buf)
			return n;
		if (n == BFQ_CG_MAX_FIELDS)
			return -EINVAL;
		f[n].s = buf;
		while (*buf && !isspace(*buf))
			buf++;
		f[n].len = buf - f[n].s;
		n++;
	}
}

static bool bfq_cg_field_is(const struct bfq_cg_field *f, const char *word)
{
	return f->len == strlen(word) && !memcmp(f->s, word, f->len);
}

/* Rule 2: exactly @len decimal digits at @s, fitting in 32 bits. */
static int bfq_cg_number(const char *s, size_t len, unsigned int *val)
{
	unsigned int v = 0;
	size_t i;

	if (!len)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		if (!isdigit(s[i]) || check_mul_overflow(v, 10U, &v) ||
		    check_add_overflow(v, (unsigned int)(s[i] - '0'), &v))
			return -EINVAL;
	}
	*val = v;
	return 0;
}

static int bfq_cg_weight_field(const struct bfq_cg_field *f,
			       struct bfq_cg_weight_req *r)
{
	return bfq_cg_number(f->s, f->len, &r->weight);
}

/* "MAJ:MIN" into @r's major and minor; syntax only. */
static int bfq_cg_device_field(const struct bfq_cg_field *f,
			       struct bfq_cg_weight_req *r)
{
	const char *colon = memchr(f->s, ':', f->len);
	size_t n;

	if (!colon)
		return -EINVAL;
	n = colon - f->s;
	if (bfq_cg_number(f->s, n, &r->major) ||
	    bfq_cg_number(colon + 1, f->len - n - 1, &r->minor))
		return -EINVAL;
	return 0;
}

/*
 * Rules 3 and 1: the checks after syntax, in their order, then hand a
 * request that passed them to the caller.
 */
static int bfq_cg_finish(const struct bfq_cg_weight_req *r,
			 struct bfq_cg_weight_req *req)
{
	if (r->op != BFQ_CG_SET_DEFAULT &&
	    (r->major > BFQ_CG_MAJOR_MAX || r->minor > MINORMASK))
		return -ENODEV;
	if (r->op != BFQ_CG_RESET_DEVICE &&
	    (r->weight < BFQ_CG_WEIGHT_MIN || r->weight > BFQ_CG_WEIGHT_MAX))
		return -ERANGE;
	*req = *r;
	return 0;
}

/*
 * cgroup v2 io.bfq.weight: "N", "default N", "MAJ:MIN N" or "MAJ:MIN
 * default". Returns 0 and fills @req, or -EINVAL, -ENODEV, -ERANGE (rule 3)
 * leaving it untouched.
 */
int bfq_cg_parse_weight_v2(const char *buf, struct bfq_cg_weight_req *req)
{
	struct bfq_cg_weight_req r = { .op = BFQ_CG_SET_DEFAULT };
	struct bfq_cg_field f[BFQ_CG_MAX_FIELDS];
	int n = bfq_cg_split(buf, f);

	if (n == 1)
		return bfq_cg_weight_field(&f[0], &r) ?: bfq_cg_finish(&r, req);
	if (n != 2)
		return -EINVAL;
	if (!bfq_cg_field_is(&f[0], "default")) {
		if (bfq_cg_device_field(&f[0], &r))
			return -EINVAL;
		r.op = BFQ_CG_SET_DEVICE;
		if (bfq_cg_field_is(&f[1], "default")) {
			r.op = BFQ_CG_RESET_DEVICE;
			return bfq_cg_finish(&r, req);
		}
	}
	return bfq_cg_weight_field(&f[1], &r) ?: bfq_cg_finish(&r, req);
}

/* cgroup v1 blkio.bfq.weight: "N". Returns as bfq_cg_parse_weight_v2(). */
int bfq_cg_parse_weight_v1(const char *buf, struct bfq_cg_weight_req *req)
{
	struct bfq_cg_weight_req r = { .op = BFQ_CG_SET_DEFAULT };
	struct bfq_cg_field f[BFQ_CG_MAX_FIELDS];

	if (bfq_cg_split(buf, f) != 1 || bfq_cg_weight_field(&f[0], &r))
		return -EINVAL;
	return bfq_cg_finish(&r, req);
}

/*
 * cgroup v1 blkio.bfq.weight_device: io.bfq.weight's forms, and "MAJ:MIN 0"
 * drops the device's override. Returns as bfq_cg_parse_weight_v2().
 */
int bfq_cg_parse_weight_device_v1(const char *buf,
				  struct bfq_cg_weight_req *req)
{
	struct bfq_cg_weight_req r = { .op = BFQ_CG_RESET_DEVICE };
	struct bfq_cg_field f[BFQ_CG_MAX_FIELDS];

	if (bfq_cg_split(buf, f) == 2 && !bfq_cg_device_field(&f[0], &r) &&
	    !bfq_cg_weight_field(&f[1], &r) && !r.weight)
		return bfq_cg_finish(&r, req);
	return bfq_cg_parse_weight_v2(buf, req);
}

/*
 * The shape bfq_cg_shares_ppm() needs: node 0 the only root, every parent
 * before its children, and every active node of positive weight (the root
 * aside) under an active parent.
 */
static bool bfq_cg_tree_valid(const struct bfq_cg_share_node *nodes,
			      unsigned int n)
{
	unsigned int i;

	if (!n || nodes[0].parent != -1)
		return false;
	for (i = 1; i < n; i++) {
		const struct bfq_cg_share_node *c = &nodes[i];

		if (c->parent < 0 || (unsigned int)c->parent >= i)
			return false;
		if (c->active && (!c->weight || !nodes[c->parent].active))
			return false;
	}
	return true;
}

/* The weights of @parent's active children. */
static u64 bfq_cg_active_wsum(const struct bfq_cg_share_node *nodes,
			      unsigned int n, int parent)
{
	u64 wsum = 0;
	unsigned int i;

	for (i = 1; i < n; i++)
		if (nodes[i].parent == parent && nodes[i].active)
			wsum += nodes[i].weight;
	return wsum;
}

/*
 * Rule 4: @share_ppm[i], for each of the @n @nodes, is node i's share of
 * the device in parts per million; 0 for an inactive node. Returns 0, or
 * -EINVAL for a tree bfq_cg_tree_valid() refuses, leaving @share_ppm
 * untouched. O(n^2): meant for the small trees of tests and of expected
 * results, not for the I/O path.
 */
int bfq_cg_shares_ppm(const struct bfq_cg_share_node *nodes, unsigned int n,
		      u32 *share_ppm)
{
	unsigned int i;

	if (!bfq_cg_tree_valid(nodes, n))
		return -EINVAL;
	share_ppm[0] = nodes[0].active ? BFQ_CG_SHARE_PPM : 0;
	for (i = 1; i < n; i++) {
		const struct bfq_cg_share_node *c = &nodes[i];

		share_ppm[i] = c->active ?
			div64_u64((u64)share_ppm[c->parent] * c->weight,
				  bfq_cg_active_wsum(nodes, n, c->parent)) : 0;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* The blkcg policy                                                    */
/* ------------------------------------------------------------------ */

static struct bfq_cgroup_data *bfq_cg_data(struct blkcg *blkcg)
{
	return container_of(blkcg_to_cpd(blkcg, &bfq_blkcg_policy),
			    struct bfq_cgroup_data, cpd);
}

static struct blkcg_policy_data *bfq_cg_cpd_alloc(gfp_t gfp)
{
	struct bfq_cgroup_data *cgd = kzalloc(sizeof(*cgd), gfp);

	if (!cgd)
		return NULL;
	cgd->weight = BFQ_CG_WEIGHT_DEFAULT;
	return &cgd->cpd;
}

static void bfq_cg_cpd_free(struct blkcg_policy_data *cpd)
{
	kfree(container_of(cpd, struct bfq_cgroup_data, cpd));
}

#ifdef BFQ_TEST_HOOKS
#include <linux/delay.h>

/*
 * Test builds only (make TEST_HOOKS=1): pd_free sleeps this long before
 * it drops its module reference, where it may sleep (the free work; not
 * under deactivation's locks), so that a test can rmmod in the window.
 */
static unsigned int test_pd_free_delay_ms;
module_param(test_pd_free_delay_ms, uint, 0644);
#endif

/* Every counter of struct bfq_group_stats, for init, exit and reset. */
#define BFQ_CG_STAT(field)	offsetof(struct bfq_group_stats, field)
static const size_t bfq_cg_stats[] = {
	BFQ_CG_STAT(bytes), BFQ_CG_STAT(ios),
#ifdef CONFIG_BFQ_CGROUP_DEBUG
	BFQ_CG_STAT(merged), BFQ_CG_STAT(queued), BFQ_CG_STAT(wait_ns),
	BFQ_CG_STAT(service_ns),
#endif
};

#ifdef CONFIG_BFQ_CGROUP_DEBUG
#define BFQ_CG_STAT_QUEUED	BFQ_CG_STAT(queued)
#else
#define BFQ_CG_STAT_QUEUED	SIZE_MAX	/* no such counter */
#endif

static struct blkg_rwstat *bfq_cg_stat(struct bfq_group *bfqg,
				       unsigned int i)
{
	return (void *)&bfqg->stats + bfq_cg_stats[i];
}

/* Rule 10: may be freed by bfq_cg_pd_free() without having been inited. */
struct blkg_policy_data *bfq_cg_pd_alloc(struct request_queue *q, gfp_t gfp)
{
	struct bfq_group *bfqg = kzalloc_node(sizeof(*bfqg), gfp, q->node);
	unsigned int i;

	if (!bfqg)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(bfq_cg_stats); i++)
		if (blkg_rwstat_init(bfq_cg_stat(bfqg, i), gfp))
			goto exit_stats;
	/* Rule 12; fails only while the module is being unloaded. */
	if (!try_module_get(THIS_MODULE))
		goto exit_stats;
	return &bfqg->pd;

exit_stats:
	while (i--)
		blkg_rwstat_exit(bfq_cg_stat(bfqg, i));
	kfree(bfqg);
	return NULL;
}

/* A new group of @bfqd, before blk-cgroup publishes it. */
static void bfq_cg_group_init(struct bfq_group *bfqg, struct bfq_data *bfqd)
{
	bfqg->bfqd = bfqd;
	bfqg->weight = BFQ_CG_WEIGHT_DEFAULT;
	bfq_entity_init_group(&bfqg->entity, bfqg->weight, BFQ_CLASS_BE,
			      &bfqg->sched);
}

/* Rule 5: only while our policy is active, so q->elevator is ours. */
static void bfq_cg_pd_init(struct blkg_policy_data *pd)
{
	bfq_cg_group_init(pd_to_bfqg(pd),
			  pd_to_blkg(pd)->q->elevator->elevator_data);
}

/*
 * Rule 7: @bfqg's weight from its override or @dfl_weight, handed to its
 * entity while it is online. Called with blkcg->lock held.
 */
static void bfq_cg_set_weight(struct bfq_group *bfqg,
			      unsigned int dfl_weight)
{
	unsigned int weight = bfq_cg_effective_weight(dfl_weight,
						      bfqg->dev_weight);
	struct bfq_data *bfqd = bfqg->bfqd;
	unsigned long flags;

	lockdep_assert_held(&bfqg_to_blkg(bfqg)->blkcg->lock);
	if (!bfqd) {
		bfqg->weight = weight;
		return;
	}
	spin_lock_irqsave(&bfqd->lock, flags);
	bfqg->weight = weight;
	bfq_entity_set_prio(&bfqg->entity, weight, BFQ_CLASS_BE);
	spin_unlock_irqrestore(&bfqd->lock, flags);
}

/* Rule 7: a group blk-cgroup has just listed takes its cgroup's weight. */
static void bfq_cg_pd_online(struct blkg_policy_data *pd)
{
	struct blkcg *blkcg = pd_to_blkg(pd)->blkcg;

	bfq_cg_set_weight(pd_to_bfqg(pd), bfq_cg_data(blkcg)->weight);
}

/* Rule 11: drop the slot references of the group's async queues. */
static void bfq_cg_put_async(struct bfq_group *bfqg)
{
	struct bfq_queue **slot = &bfqg->async_bfqq[0][0];
	unsigned int i;

	for (i = 0; i < BFQ_NR_CLASSES * IOPRIO_NR_LEVELS; i++, slot++) {
		if (*slot) {
			bfq_end_parked_turn((*slot)->bfqd, *slot);
			bfq_put_queue(*slot);
			*slot = NULL;
		}
	}
}

/*
 * Rule 11: @bfqg and its ancestors that are offline and no longer busy
 * leave their parents' trees for good. Under bfq_data.lock.
 */
static void bfq_cg_forget_dead(struct bfq_group *bfqg)
{
	while (bfqg && !READ_ONCE(bfqg->bfqd) && bfqg->placed &&
	       (bfqg->entity.state == BFQ_E_IDLE ||
		bfqg->entity.state == BFQ_E_OUT)) {
		bfq_entity_forget(&bfqg->entity);
		bfqg = bfqg->entity.parent ?
		       container_of(bfqg->entity.parent, struct bfq_group,
				    entity) : NULL;
	}
}

/*
 * The group of @blkg on @bfqd, or of its nearest ancestor still online
 * there (rule 10), or the root group.
 */
static struct bfq_group *bfq_cg_online_from(struct bfq_data *bfqd,
					    struct blkcg_gq *blkg)
{
	for (; blkg; blkg = blkg->parent) {
		struct bfq_group *bfqg = blkg_to_bfqg(blkg);

		if (bfqg && READ_ONCE(bfqg->bfqd) == bfqd)
			return bfqg;
	}
	return bfq_root_group(bfqd);
}

/*
 * Rule 11: every queue of @bfqg, which has just gone offline, moves to the
 * nearest group above it still online on the device (NULL: the root
 * group), its requests with it. Returns whether a turn ended. Under
 * bfq_data.lock.
 */
static bool bfq_cg_reparent_queues(struct bfq_data *bfqd,
				   struct bfq_group *bfqg)
{
	struct bfq_group *to = bfq_cg_online_from(bfqd,
						  bfqg_to_blkg(bfqg)->parent);
	struct bfq_queue *bfqq, *next;
	bool ended = false;

	if (to == bfq_root_group(bfqd))
		to = NULL;
	if (list_empty(&bfqd->all_bfqqs))
		return false;
	/*
	 * A queue's last put (a turn ended, nothing else holding it) frees it
	 * and may free the queue it holds (bfq-merge.c): each queue of the
	 * walk is held while its successor is taken.
	 */
	bfqq = list_first_entry(&bfqd->all_bfqqs, struct bfq_queue, all_node);
	bfq_get_queue(bfqq);
	while (bfqq) {
		next = list_is_last(&bfqq->all_node, &bfqd->all_bfqqs) ? NULL :
		       list_next_entry(bfqq, all_node);
		if (next)
			bfq_get_queue(next);
		if (bfqq->bfqg == bfqg)
			ended |= bfq_queue_reparent(bfqd, bfqq, to);
		bfq_put_queue(bfqq);
		bfqq = next;
	}
	return ended;
}

/* Rule 10: the group leaves its device. queue_lock and blkcg->lock held. */
static void bfq_cg_pd_offline(struct blkg_policy_data *pd)
{
	struct bfq_group *bfqg = pd_to_bfqg(pd);
	struct bfq_group *parent = blkg_to_bfqg(pd_to_blkg(pd)->parent);
	struct bfq_data *bfqd = bfqg->bfqd;
	unsigned long flags;
	unsigned int i;
	bool run;

	/* A gauge of queued requests has nothing to hand on. */
	for (i = 0; parent && i < ARRAY_SIZE(bfq_cg_stats); i++)
		if (bfq_cg_stats[i] != BFQ_CG_STAT_QUEUED)
			blkg_rwstat_add_aux(bfq_cg_stat(parent, i),
					    bfq_cg_stat(bfqg, i));
	if (!bfqd)
		return;
	spin_lock_irqsave(&bfqd->lock, flags);
	WRITE_ONCE(bfqg->bfqd, NULL);
	bfq_cg_put_async(bfqg);
	run = bfq_cg_reparent_queues(bfqd, bfqg);
	bfq_cg_forget_dead(bfqg);
	spin_unlock_irqrestore(&bfqd->lock, flags);
	/*
	 * A turn taken from the group: the next one is chosen at dispatch,
	 * from kblockd. Not blk_mq_run_hw_queues(): finding nothing to run,
	 * it takes queue_lock (6.12 and later), which blkg_destroy() holds
	 * here, and the kworker offlining the group spins on it for ever
	 * (tests/vm/cgroup-offline.sh).
	 */
	if (run)
		blk_mq_delay_run_hw_queues(bfqd->queue, 0);
}

static void bfq_cg_pd_free(struct blkg_policy_data *pd)
{
	struct bfq_group *bfqg = pd_to_bfqg(pd);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bfq_cg_stats); i++)
		blkg_rwstat_exit(bfq_cg_stat(bfqg, i));
	kfree(bfqg);
#ifdef BFQ_TEST_HOOKS
	if (READ_ONCE(test_pd_free_delay_ms) && preemptible())
		msleep(READ_ONCE(test_pd_free_delay_ms));
#endif
	/* Rule 12: the last use of the module's memory, code aside. */
	module_put(THIS_MODULE);
}

static void bfq_cg_pd_reset_stats(struct blkg_policy_data *pd)
{
	struct bfq_group *bfqg = pd_to_bfqg(pd);
	unsigned int i;

	/* Not the requests queued now: they leave it and would drive it < 0. */
	for (i = 0; i < ARRAY_SIZE(bfq_cg_stats); i++)
		if (bfq_cg_stats[i] != BFQ_CG_STAT_QUEUED)
			blkg_rwstat_reset(bfq_cg_stat(bfqg, i));
}

/*
 * The group new I/O of @bio goes to on @bfqd: that of the bio's blkg, or
 * of its nearest ancestor still online on this device (rule 10), or the
 * root group. Called under bfq_data.lock; the bio holds its blkg.
 */
struct bfq_group *bfq_cg_bio_group(struct bfq_data *bfqd, struct bio *bio)
{
	lockdep_assert_held(&bfqd->lock);
	return bfq_cg_online_from(bfqd, bio->bi_blkg);
}

/* Rule 11: give @bfqg's entity its parent's level, ancestors first. */
static void bfq_cg_place(struct bfq_data *bfqd, struct bfq_group *bfqg)
{
	struct blkcg_gq *pblkg = bfqg_to_blkg(bfqg)->parent;
	struct bfq_group *parent = pblkg ? blkg_to_bfqg(pblkg) : NULL;

	if (bfqg->placed)
		return;
	if (!parent || parent == bfq_root_group(bfqd)) {
		bfq_entity_place(&bfqg->entity, &bfqd->sched, NULL);
	} else {
		bfq_cg_place(bfqd, parent);
		bfq_entity_place(&bfqg->entity, &parent->sched,
				 &parent->entity);
	}
	bfqg->placed = true;
}

/*
 * Rule 11: @bfqq, on no tree (new, or moving), joins @bfqg (NULL: the
 * root group, where a new queue already is). Under bfq_data.lock.
 */
void bfq_cg_attach(struct bfq_data *bfqd, struct bfq_queue *bfqq,
		   struct bfq_group *bfqg)
{
	lockdep_assert_held(&bfqd->lock);
	if (!bfqg)
		return;
	bfq_cg_place(bfqd, bfqg);
	blkg_get(bfqg_to_blkg(bfqg));
	WRITE_ONCE(bfqq->bfqg, bfqg);
	bfq_entity_place(&bfqq->entity, &bfqg->sched, &bfqg->entity);
}

/*
 * Rule 11: a queue, off every tree, has left @bfqg: an offline group it
 * leaves idle leaves its parent's trees, then the blkg reference goes.
 */
static void bfq_cg_leave(struct bfq_group *bfqg)
{
	bfq_cg_forget_dead(bfqg);
	blkg_put(bfqg_to_blkg(bfqg));
}

/* Rule 11: @bfqq, off every tree, is being freed. */
void bfq_cg_detach(struct bfq_queue *bfqq)
{
	struct bfq_group *bfqg = bfqq->bfqg;

	if (!bfqg)
		return;
	bfqq->bfqg = NULL;
	bfq_cg_leave(bfqg);
}

/*
 * Rule 11: @bfqq, whose one process now does its I/O in @bfqg (NULL: the
 * root group), goes there with its state. It holds nothing of its old
 * group: no request, no turn, on no tree but the idle one. Under
 * bfq_data.lock. The new group's reference is taken before the old one's
 * goes; a lock-free reader of bfqq->bfqg (bfq-tags.c) finds either group,
 * and blk-cgroup frees the old one only a grace period after this put.
 */
void bfq_cg_move(struct bfq_data *bfqd, struct bfq_queue *bfqq,
		 struct bfq_group *bfqg)
{
	struct bfq_group *old = bfqq->bfqg;

	lockdep_assert_held(&bfqd->lock);
	bfq_entity_forget(&bfqq->entity);
	if (bfqg) {
		bfq_cg_attach(bfqd, bfqq, bfqg);
	} else {
		WRITE_ONCE(bfqq->bfqg, NULL);
		bfq_entity_place(&bfqq->entity, &bfqd->sched, NULL);
	}
	if (old)
		bfq_cg_leave(old);
}

/* Rule 11: the group's async queue slots, [class][level] in a row. */
struct bfq_queue **bfq_cg_async_slots(struct bfq_group *bfqg)
{
	return &bfqg->async_bfqq[0][0];
}

/* Rule 13: the busy child-group count of @bfqg's parent. */
static unsigned int *bfq_cg_parent_busy(struct bfq_data *bfqd,
					struct bfq_group *bfqg)
{
	struct bfq_entity *parent = bfqg->entity.parent;

	return parent ? &container_of(parent, struct bfq_group,
				      entity)->busy_children :
			&bfqd->busy_group_sums.root_children;
}

/*
 * Rule 13: a sync queue of @bfqg became busy (@up) or stopped being so.
 * Under bfq_data.lock. Returns whether the group became, or stopped
 * being, busy.
 */
bool bfq_cg_busy_change(struct bfq_data *bfqd, struct bfq_group *bfqg,
			bool up)
{
	struct bfq_busy_groups *g = &bfqd->busy_group_sums;
	u64 c, w;

	lockdep_assert_held(&bfqd->lock);
	if (up) {
		c = bfqg->busy_sync++;
		g->sync_sum++;
		g->sync_sq_sum += 2 * c + 1;
		if (c)
			return false;
		/* Taken once, given back as taken whatever the weight becomes. */
		bfqg->busy_weight = bfqg->weight;
		w = bfqg->busy_weight;
		(*bfq_cg_parent_busy(bfqd, bfqg))++;
		g->weight_sum += w;
		g->weight_sq_sum += w * w;
		return true;
	}
	if (WARN_ON_ONCE(!bfqg->busy_sync))
		return false;
	c = --bfqg->busy_sync;
	g->sync_sum--;
	g->sync_sq_sum -= 2 * c + 1;
	if (c)
		return false;
	w = bfqg->busy_weight;
	(*bfq_cg_parent_busy(bfqd, bfqg))--;
	g->weight_sum -= w;
	g->weight_sq_sum -= w * w;
	return true;
}

/*
 * Rule 13: whether the @n busy groups (n > 1) are alike, @bfqg (the group
 * of the queue in service, NULL: the root group) being one of them.
 */
bool bfq_cg_alike(struct bfq_data *bfqd, struct bfq_group *bfqg,
		  unsigned int n)
{
	const struct bfq_busy_groups *g = &bfqd->busy_group_sums;
	u64 w, c;

	lockdep_assert_held(&bfqd->lock);
	if (!bfqg || !bfqg->busy_sync || bfqd->root_busy_sync ||
	    *bfq_cg_parent_busy(bfqd, bfqg) != n)
		return false;
	w = bfqg->busy_weight;
	c = bfqg->busy_sync;
	return g->weight_sum == n * w && g->weight_sq_sum == n * w * w &&
	       g->sync_sum == n * c && g->sync_sq_sum == n * c * c;
}

/* ------------------------------------------------------------------ */
/* The cgroup files                                                    */
/* ------------------------------------------------------------------ */

/*
 * Rule 7: apply @req, already parsed, to @blkcg: a default to its cpd and
 * all its groups, an override or its reset to @bfqg, its group on the
 * request's device. Called with blkcg->lock held.
 */
static void bfq_cg_apply(struct blkcg *blkcg, struct bfq_group *bfqg,
			 const struct bfq_cg_weight_req *req)
{
	struct bfq_cgroup_data *cgd = bfq_cg_data(blkcg);
	struct blkcg_gq *blkg;

	lockdep_assert_held(&blkcg->lock);
	if (req->op != BFQ_CG_SET_DEFAULT) {
		bfqg->dev_weight = req->op == BFQ_CG_SET_DEVICE ?
				   req->weight : 0;
		bfq_cg_set_weight(bfqg, cgd->weight);
		return;
	}
	WRITE_ONCE(cgd->weight, req->weight);
	hlist_for_each_entry(blkg, &blkcg->blkg_list, blkcg_node) {
		bfqg = blkg_to_bfqg(blkg);
		if (bfqg)
			bfq_cg_set_weight(bfqg, req->weight);
	}
}

/* Rules 7 and 8: an override or its reset, @buf starting with MAJ:MIN. */
static int bfq_cg_write_device(struct blkcg *blkcg, char *buf,
			       const struct bfq_cg_weight_req *req)
{
	struct blkg_conf_ctx ctx;
	int ret;

	ret = bfq_blkg_conf_begin(blkcg, &bfq_blkcg_policy, buf, &ctx);
	if (ret == -EOPNOTSUPP) {
		pr_warn_ratelimited("bfq: device %u:%u: bfq is not its I/O scheduler, no per-device weight set\n",
				    req->major, req->minor);
		return -ENODEV;
	}
	if (ret)
		return ret;
	spin_lock(&blkcg->lock);
	bfq_cg_apply(blkcg, blkg_to_bfqg(ctx.blkg), req);
	spin_unlock(&blkcg->lock);
	bfq_blkg_conf_end(&ctx);
	return 0;
}

/* A write to a weight file, parsed by @parse (rules 1-3) before anything. */
static ssize_t bfq_cg_write(struct kernfs_open_file *of, char *buf,
			    size_t nbytes,
			    int (*parse)(const char *buf,
					 struct bfq_cg_weight_req *req))
{
	struct blkcg *blkcg = css_to_blkcg(of_css(of));
	struct bfq_cg_weight_req req;
	int ret = parse(buf, &req);

	if (ret)
		return ret;
	if (req.op != BFQ_CG_SET_DEFAULT)
		return bfq_cg_write_device(blkcg, buf, &req) ?: nbytes;
	spin_lock_irq(&blkcg->lock);
	bfq_cg_apply(blkcg, NULL, &req);
	spin_unlock_irq(&blkcg->lock);
	return nbytes;
}

static ssize_t bfq_cg_weight_write(struct kernfs_open_file *of, char *buf,
				   size_t nbytes, loff_t off)
{
	return bfq_cg_write(of, buf, nbytes, bfq_cg_parse_weight_v2);
}

static ssize_t bfq_cg_weight_write_v1(struct kernfs_open_file *of,
				      char *buf, size_t nbytes, loff_t off)
{
	return bfq_cg_write(of, buf, nbytes, bfq_cg_parse_weight_v1);
}

static ssize_t bfq_cg_weight_device_write_v1(struct kernfs_open_file *of,
					     char *buf, size_t nbytes,
					     loff_t off)
{
	return bfq_cg_write(of, buf, nbytes, bfq_cg_parse_weight_device_v1);
}

/* io.bfq.weight's first line. */
static void bfq_cg_seq_default(struct seq_file *sf, struct blkcg *blkcg)
{
	seq_printf(sf, "default %u\n", READ_ONCE(bfq_cg_data(blkcg)->weight));
}

/* The line of @bfqg's override on device @devt, if it has one. */
static void bfq_cg_seq_device(struct seq_file *sf, dev_t devt,
			      const struct bfq_group *bfqg)
{
	if (bfqg->dev_weight)
		seq_printf(sf, "%u:%u %u\n", MAJOR(devt), MINOR(devt),
			   bfqg->dev_weight);
}

/* blkcg_print_blkgs() calls it under the device's queue_lock. */
static u64 bfq_cg_prfill_weight(struct seq_file *sf,
				struct blkg_policy_data *pd, int off)
{
	struct gendisk *disk = pd_to_blkg(pd)->q->disk;

	if (disk)
		bfq_cg_seq_device(sf, disk_devt(disk), pd_to_bfqg(pd));
	return 0;
}

static void bfq_cg_seq_devices(struct seq_file *sf, struct blkcg *blkcg)
{
	blkcg_print_blkgs(sf, blkcg, bfq_cg_prfill_weight, &bfq_blkcg_policy,
			  0, false);
}

/*
 * io.bfq.weight and blkio.bfq.weight_device: "default N", then "MAJ:MIN N"
 * per override.
 */
static int bfq_cg_weight_show(struct seq_file *sf, void *v)
{
	struct blkcg *blkcg = css_to_blkcg(seq_css(sf));

	bfq_cg_seq_default(sf, blkcg);
	bfq_cg_seq_devices(sf, blkcg);
	return 0;
}

/* blkio.bfq.weight: the default alone. */
static int bfq_cg_weight_show_v1(struct seq_file *sf, void *v)
{
	struct blkcg *blkcg = css_to_blkcg(seq_css(sf));

	seq_printf(sf, "%u\n", READ_ONCE(bfq_cg_data(blkcg)->weight));
	return 0;
}

/* The blkio controller's per-device Read/Write/Sync/Async/Discard/Total. */
static int bfq_cg_rwstat_show(struct seq_file *sf, void *v)
{
	blkcg_print_blkgs(sf, css_to_blkcg(seq_css(sf)), blkg_prfill_rwstat,
			  &bfq_blkcg_policy, seq_cft(sf)->private, true);
	return 0;
}

static u64 bfq_cg_prfill_rwstat_recursive(struct seq_file *sf,
					  struct blkg_policy_data *pd, int off)
{
	struct blkg_rwstat_sample sum;

	blkg_rwstat_recursive_sum(pd_to_blkg(pd), &bfq_blkcg_policy, off, &sum);
	return __blkg_prfill_rwstat(sf, pd, &sum);
}

/* The same over the cgroup's subtree, removed children included. */
static int bfq_cg_rwstat_recursive_show(struct seq_file *sf, void *v)
{
	blkcg_print_blkgs(sf, css_to_blkcg(seq_css(sf)),
			  bfq_cg_prfill_rwstat_recursive, &bfq_blkcg_policy,
			  seq_cft(sf)->private, true);
	return 0;
}

/* cgroup v2: io.bfq.weight. */
static struct cftype bfq_cg_dfl_files[] = {
	{
		.name = "bfq.weight",
		.flags = CFTYPE_NOT_ON_ROOT,
		.seq_show = bfq_cg_weight_show,
		.write = bfq_cg_weight_write,
	},
	{}
};

#define BFQ_CG_STAT_FILE(fname, field, show)				\
	{								\
		.name = fname,						\
		.private = offsetof(struct bfq_group, stats.field),	\
		.seq_show = show,					\
	}

/* cgroup v1: blkio.bfq.*. */
static struct cftype bfq_cg_legacy_files[] = {
	{
		.name = "bfq.weight",
		.flags = CFTYPE_NOT_ON_ROOT,
		.seq_show = bfq_cg_weight_show_v1,
		.write = bfq_cg_weight_write_v1,
	},
	{
		.name = "bfq.weight_device",
		.flags = CFTYPE_NOT_ON_ROOT,
		.seq_show = bfq_cg_weight_show,
		.write = bfq_cg_weight_device_write_v1,
	},
	BFQ_CG_STAT_FILE("bfq.io_service_bytes", bytes, bfq_cg_rwstat_show),
	BFQ_CG_STAT_FILE("bfq.io_serviced", ios, bfq_cg_rwstat_show),
	BFQ_CG_STAT_FILE("bfq.io_service_bytes_recursive", bytes,
			 bfq_cg_rwstat_recursive_show),
	BFQ_CG_STAT_FILE("bfq.io_serviced_recursive", ios,
			 bfq_cg_rwstat_recursive_show),
#ifdef CONFIG_BFQ_CGROUP_DEBUG
	BFQ_CG_STAT_FILE("bfq.io_merged", merged, bfq_cg_rwstat_show),
	BFQ_CG_STAT_FILE("bfq.io_queued", queued, bfq_cg_rwstat_show),
	BFQ_CG_STAT_FILE("bfq.io_wait_time", wait_ns, bfq_cg_rwstat_show),
	BFQ_CG_STAT_FILE("bfq.io_service_time", service_ns,
			 bfq_cg_rwstat_show),
	BFQ_CG_STAT_FILE("bfq.io_merged_recursive", merged,
			 bfq_cg_rwstat_recursive_show),
	BFQ_CG_STAT_FILE("bfq.io_queued_recursive", queued,
			 bfq_cg_rwstat_recursive_show),
	BFQ_CG_STAT_FILE("bfq.io_wait_time_recursive", wait_ns,
			 bfq_cg_rwstat_recursive_show),
	BFQ_CG_STAT_FILE("bfq.io_service_time_recursive", service_ns,
			 bfq_cg_rwstat_recursive_show),
#endif
	{}
};

struct blkcg_policy bfq_blkcg_policy = {
	.dfl_cftypes		= bfq_cg_dfl_files,
	.legacy_cftypes		= bfq_cg_legacy_files,
	.cpd_alloc_fn		= bfq_cg_cpd_alloc,
	.cpd_free_fn		= bfq_cg_cpd_free,
	.pd_alloc_fn		= bfq_cg_pd_alloc_fn,
	.pd_init_fn		= bfq_cg_pd_init,
	.pd_online_fn		= bfq_cg_pd_online,
	.pd_offline_fn		= bfq_cg_pd_offline,
	.pd_free_fn		= bfq_cg_pd_free,
	.pd_reset_stats_fn	= bfq_cg_pd_reset_stats,
};

/* Rule 5: at module init, before elv_register(). */
int bfq_cg_register(void)
{
	return blkcg_policy_register(&bfq_blkcg_policy);
}

/*
 * Rule 5: at module exit, after elv_unregister(). No pd is left (rule 12:
 * each holds a module reference).
 */
void bfq_cg_unregister(void)
{
	blkcg_policy_unregister(&bfq_blkcg_policy);
}

/* Rule 5: from init_sched, with q->elevator set and the queue frozen. */
int bfq_cg_activate(struct bfq_data *bfqd)
{
	return bfq_blkcg_activate(bfqd->queue, &bfq_blkcg_policy);
}

/* Rule 5: from exit_sched, before anything of the bfq_data goes. */
void bfq_cg_deactivate(struct bfq_data *bfqd)
{
	bfq_blkcg_deactivate(bfqd->queue, &bfq_blkcg_policy);
}

#ifdef CONFIG_BLK_DEBUG_FS
/*
 * debugfs sched/groups: a line per group of the device whose entity has
 * been placed (it has had a queue): its cgroup, weight, state and times
 * in its parent's level (relative to that level's virtual time, so that a
 * group owed service shows a negative start), then its own level's trees.
 * Lock order of rule 9: q->queue_lock (the device's blkg list), then
 * bfq_data.lock, so that the lines agree with each other.
 */
void bfq_cg_debugfs_show(struct bfq_data *bfqd, struct seq_file *m)
{
	static const char *const states[] = {
		[BFQ_E_OUT] = "out", [BFQ_E_ACTIVE] = "waiting",
		[BFQ_E_IN_SERVICE] = "in_service", [BFQ_E_IDLE] = "idle",
	};
	static const char *const classes[] = { "rt", "be", "idle" };
	struct request_queue *q = bfqd->queue;
	struct blkcg_gq *blkg;
	char path[128];
	int i;

	spin_lock_irq(&q->queue_lock);
	spin_lock(&bfqd->lock);
	list_for_each_entry(blkg, &q->blkg_list, q_node) {
		struct bfq_group *bfqg = blkg_to_bfqg(blkg);
		const struct bfq_entity *e;
		u64 v;

		if (!bfqg || !bfqg->placed)
			continue;
		e = &bfqg->entity;
		v = e->sd->st[e->class_idx].vtime;
		if (cgroup_path(blkg->blkcg->css.cgroup, path, sizeof(path)) < 0)
			strscpy(path, "?", sizeof(path));
		seq_printf(m, "group path=%s weight=%u state=%s start=%lld finish=%lld busy_children=%u",
			   path, e->weight, states[e->state],
			   (s64)(e->start - v), (s64)(e->finish - v),
			   bfqg->busy_children);
		for (i = 0; i < BFQ_NR_CLASSES; i++)
			seq_printf(m, " %s_vtime=%llu %s_wsum=%llu %s_active=%u",
				   classes[i], bfqg->sched.st[i].vtime,
				   classes[i], bfqg->sched.st[i].wsum,
				   classes[i], bfqg->sched.st[i].nr_active);
		seq_putc(m, '\n');
	}
	spin_unlock(&bfqd->lock);
	spin_unlock_irq(&q->queue_lock);
}
#endif

#ifdef CONFIG_BFQ_KUNIT_TEST
#include "bfq-cgroup-test.c"
#endif
