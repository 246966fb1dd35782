// SPDX-License-Identifier: GPL-2.0
/*
 * BFQ groups: what the weight files accept, and how a tree of group
 * weights divides a device. Pure functions, no blkcg state, so that the
 * blkcg policy and the tests share one definition of both.
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
 *    blkio.bfq.weight_device: "MAJ:MIN N", where N = 0 drops the override.
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
 */
#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/kdev_t.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/string.h>

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
 * cgroup v1 blkio.bfq.weight_device: "MAJ:MIN N", N = 0 drops the device's
 * override. Returns as bfq_cg_parse_weight_v2().
 */
int bfq_cg_parse_weight_device_v1(const char *buf,
				  struct bfq_cg_weight_req *req)
{
	struct bfq_cg_weight_req r = { .op = BFQ_CG_SET_DEVICE };
	struct bfq_cg_field f[BFQ_CG_MAX_FIELDS];

	if (bfq_cg_split(buf, f) != 2 || bfq_cg_device_field(&f[0], &r) ||
	    bfq_cg_weight_field(&f[1], &r))
		return -EINVAL;
	if (!r.weight)
		r.op = BFQ_CG_RESET_DEVICE;
	return bfq_cg_finish(&r, req);
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

#ifdef CONFIG_BFQ_KUNIT_TEST
#include "bfq-cgroup-test.c"
#endif
