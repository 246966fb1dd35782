// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of bfq-cgroup.c, #included at its end: every form of the
 * weight files and every class of bad write (each must leave the request
 * untouched), the shares of group trees, and the policy's logic on a
 * cgroup and groups made by hand (no device): weights after each write
 * and as io.bfq.weight reads them, a group created after a write, the
 * counters and what offline does with them, the group a bio's I/O goes to.
 */
#include <kunit/test.h>

#include "bfq-test.h"

struct bfq_cg_parse_case {
	const char *desc;
	const char *input;
	int err;
	/* expected when err == 0 */
	enum bfq_cg_weight_op op;
	unsigned int major, minor, weight;
};

#define BFQ_CG_OK_DEFAULT(d, in, w)	{ d, in, 0, BFQ_CG_SET_DEFAULT, 0, 0, w }
#define BFQ_CG_OK_DEVICE(d, in, ma, mi, w) \
	{ d, in, 0, BFQ_CG_SET_DEVICE, ma, mi, w }
#define BFQ_CG_OK_RESET(d, in, ma, mi) \
	{ d, in, 0, BFQ_CG_RESET_DEVICE, ma, mi, 0 }
#define BFQ_CG_BAD(d, in, e)		{ d, in, e }

static const struct bfq_cg_parse_case bfq_cg_v2_cases[] = {
	BFQ_CG_OK_DEFAULT("N", "300", 300),
	BFQ_CG_OK_DEFAULT("N with echo's newline", "300\n", 300),
	BFQ_CG_OK_DEFAULT("N at min", "1", 1),
	BFQ_CG_OK_DEFAULT("N at max", "1000\n", 1000),
	BFQ_CG_OK_DEFAULT("N leading zeros", "0100", 100),
	BFQ_CG_OK_DEFAULT("default N", "default 500\n", 500),
	BFQ_CG_OK_DEFAULT("blanks around and between", " \tdefault \t 7\t\n\n",
			  7),
	BFQ_CG_OK_DEVICE("MAJ:MIN N", "8:16 200\n", 8, 16, 200),
	BFQ_CG_OK_DEVICE("MAJ:MIN N largest dev_t", "4095:1048575 1",
			 4095, 1048575, 1),
	BFQ_CG_OK_RESET("MAJ:MIN default", "8:16 default\n", 8, 16),
	BFQ_CG_OK_RESET("MAJ:MIN default, minor 0", "253:0 default", 253, 0),
	BFQ_CG_BAD("N 0", "0", -ERANGE),
	BFQ_CG_BAD("N 1001", "1001\n", -ERANGE),
	BFQ_CG_BAD("N fits u32, out of range", "4294967295", -ERANGE),
	BFQ_CG_BAD("default 0", "default 0", -ERANGE),
	BFQ_CG_BAD("default 1001", "default 1001", -ERANGE),
	BFQ_CG_BAD("MAJ:MIN 0 (v1's reset only)", "8:0 0", -ERANGE),
	BFQ_CG_BAD("MAJ:MIN 5000", "8:0 5000", -ERANGE),
	BFQ_CG_BAD("major past dev_t", "4096:0 100", -ENODEV),
	BFQ_CG_BAD("minor past dev_t", "8:1048576 default", -ENODEV),
	BFQ_CG_BAD("device checked before weight", "4096:0 0", -ENODEV),
	BFQ_CG_BAD("empty", "", -EINVAL),
	BFQ_CG_BAD("newline only", "\n", -EINVAL),
	BFQ_CG_BAD("text", "abc", -EINVAL),
	BFQ_CG_BAD("partial number", "10x", -EINVAL),
	BFQ_CG_BAD("decimal point", "1.5", -EINVAL),
	BFQ_CG_BAD("hex", "0x10", -EINVAL),
	BFQ_CG_BAD("negative", "-5", -EINVAL),
	BFQ_CG_BAD("plus sign", "+5", -EINVAL),
	BFQ_CG_BAD("overflow", "99999999999", -EINVAL),
	BFQ_CG_BAD("default overflow", "default 99999999999", -EINVAL),
	BFQ_CG_BAD("default alone", "default\n", -EINVAL),
	BFQ_CG_BAD("default default", "default default", -EINVAL),
	BFQ_CG_BAD("Default capitalised", "Default 100", -EINVAL),
	BFQ_CG_BAD("default negative", "default -1", -EINVAL),
	BFQ_CG_BAD("N N", "100 200", -EINVAL),
	BFQ_CG_BAD("default N extra", "default 100 x", -EINVAL),
	BFQ_CG_BAD("MAJ:MIN alone", "8:16\n", -EINVAL),
	BFQ_CG_BAD("MAJ: alone", "1:", -EINVAL),
	BFQ_CG_BAD("MAJ: N", "1: 5", -EINVAL),
	BFQ_CG_BAD(":MIN N", ":1 5", -EINVAL),
	BFQ_CG_BAD("MAJ:MIN:x N", "8:0:1 100", -EINVAL),
	BFQ_CG_BAD("blanks inside MAJ:MIN", "8 : 0 100", -EINVAL),
	BFQ_CG_BAD("MAJ:MIN N extra", "8:0 100 200", -EINVAL),
	BFQ_CG_BAD("MAJ:MIN default N", "8:0 default 100", -EINVAL),
	BFQ_CG_BAD("MAJ:MIN partial number", "8:0 10x", -EINVAL),
	BFQ_CG_BAD("MAJ:MIN negative", "8:0 -1", -EINVAL),
	BFQ_CG_BAD("MAJ:MIN overflow", "8:0 99999999999", -EINVAL),
	BFQ_CG_BAD("major overflow", "99999999999:0 100", -EINVAL),
	BFQ_CG_BAD("syntax before device", "4096:0 x", -EINVAL),
};

static const struct bfq_cg_parse_case bfq_cg_v1_cases[] = {
	BFQ_CG_OK_DEFAULT("N", "300", 300),
	BFQ_CG_OK_DEFAULT("N with echo's newline", "300\n", 300),
	BFQ_CG_OK_DEFAULT("N at min", "1", 1),
	BFQ_CG_OK_DEFAULT("N at max", "1000", 1000),
	BFQ_CG_BAD("N 0", "0\n", -ERANGE),
	BFQ_CG_BAD("N 1001", "1001", -ERANGE),
	BFQ_CG_BAD("empty", "", -EINVAL),
	BFQ_CG_BAD("text", "abc", -EINVAL),
	BFQ_CG_BAD("partial number", "10x", -EINVAL),
	BFQ_CG_BAD("negative", "-1", -EINVAL),
	BFQ_CG_BAD("overflow", "99999999999", -EINVAL),
	BFQ_CG_BAD("N N", "100 100", -EINVAL),
	BFQ_CG_BAD("v2's default N", "default 100", -EINVAL),
	BFQ_CG_BAD("weight_device's form", "8:0 100", -EINVAL),
};

static const struct bfq_cg_parse_case bfq_cg_v1_dev_cases[] = {
	BFQ_CG_OK_DEVICE("MAJ:MIN N", "8:16 300\n", 8, 16, 300),
	BFQ_CG_OK_DEVICE("MAJ:MIN at max", "8:16 1000", 8, 16, 1000),
	BFQ_CG_OK_RESET("MAJ:MIN 0 resets", "8:16 0\n", 8, 16),
	BFQ_CG_BAD("MAJ:MIN 1001", "8:16 1001", -ERANGE),
	BFQ_CG_BAD("major past dev_t", "4096:0 300", -ENODEV),
	BFQ_CG_OK_RESET("MAJ:MIN 00 resets", "8:16 00", 8, 16),
	BFQ_CG_BAD("MAJ:MIN 0 past dev_t", "4096:0 0", -ENODEV),
	/* io.bfq.weight's forms */
	BFQ_CG_OK_RESET("MAJ:MIN default", "8:16 default\n", 8, 16),
	BFQ_CG_OK_DEFAULT("N", "300\n", 300),
	BFQ_CG_OK_DEFAULT("default N", "default 300", 300),
	BFQ_CG_BAD("N 0", "0", -ERANGE),
	BFQ_CG_BAD("default 0", "default 0", -ERANGE),
	BFQ_CG_BAD("empty", "", -EINVAL),
	BFQ_CG_BAD("MAJ:MIN alone", "8:16", -EINVAL),
	BFQ_CG_BAD("default alone", "default", -EINVAL),
	BFQ_CG_BAD("0 default", "0 default", -EINVAL),
	BFQ_CG_BAD("MAJ: N", "1: 300", -EINVAL),
	BFQ_CG_BAD(":MIN N", ":1 5", -EINVAL),
	BFQ_CG_BAD("partial number", "8:16 10x", -EINVAL),
	BFQ_CG_BAD("negative", "8:16 -1", -EINVAL),
	BFQ_CG_BAD("overflow", "8:16 99999999999", -EINVAL),
	BFQ_CG_BAD("extra field", "8:16 300 1", -EINVAL),
};

BFQ_KUNIT_TABLE(bfq_cg_v2, bfq_cg_v2_cases, bfq_cg_parse_case);
BFQ_KUNIT_TABLE(bfq_cg_v1, bfq_cg_v1_cases, bfq_cg_parse_case);
BFQ_KUNIT_TABLE(bfq_cg_v1_dev, bfq_cg_v1_dev_cases, bfq_cg_parse_case);

/* Run @parse on the row's input over a request it must not touch on error. */
static void bfq_cg_parse_check(struct kunit *test,
			       int (*parse)(const char *buf,
					    struct bfq_cg_weight_req *req))
{
	const struct bfq_cg_parse_case *c = test->param_value;
	const struct bfq_cg_weight_req before = {
		.op = BFQ_CG_RESET_DEVICE, .major = 11, .minor = 22,
		.weight = 33,
	};
	struct bfq_cg_weight_req req = before;

	KUNIT_ASSERT_EQ(test, parse(c->input, &req), c->err);
	if (c->err) {
		KUNIT_EXPECT_EQ(test, memcmp(&req, &before, sizeof(req)), 0);
		return;
	}
	KUNIT_EXPECT_EQ(test, req.op, c->op);
	if (c->op != BFQ_CG_SET_DEFAULT) {
		KUNIT_EXPECT_EQ(test, req.major, c->major);
		KUNIT_EXPECT_EQ(test, req.minor, c->minor);
	}
	if (c->op != BFQ_CG_RESET_DEVICE)
		KUNIT_EXPECT_EQ(test, req.weight, c->weight);
}

static void bfq_cg_parse_weight_v2_table(struct kunit *test)
{
	bfq_cg_parse_check(test, bfq_cg_parse_weight_v2);
}

static void bfq_cg_parse_weight_v1_table(struct kunit *test)
{
	bfq_cg_parse_check(test, bfq_cg_parse_weight_v1);
}

static void bfq_cg_parse_weight_device_v1_table(struct kunit *test)
{
	bfq_cg_parse_check(test, bfq_cg_parse_weight_device_v1);
}

#define BFQ_CG_TEST_NODES	9

struct bfq_cg_share_case {
	const char *desc;
	unsigned int n;
	struct bfq_cg_share_node nodes[BFQ_CG_TEST_NODES];
	u32 ppm[BFQ_CG_TEST_NODES];	/* expected, when err == 0 */
	int err;
};

/* A node of weight @w under node @p, backlogged (ACT) or not (IDLE). */
#define BFQ_CG_ACT(w, p)	{ .weight = (w), .parent = (p), .active = true }
#define BFQ_CG_IDLE(w, p)	{ .weight = (w), .parent = (p) }
#define BFQ_CG_ROOT		BFQ_CG_ACT(0, -1)

static const struct bfq_cg_share_case bfq_cg_share_cases[] = {
	{ "flat 100:300", 3,
	  { BFQ_CG_ROOT, BFQ_CG_ACT(100, 0), BFQ_CG_ACT(300, 0) },
	  { 1000000, 250000, 750000 } },
	/* Groups 1 and 2; four readers in group 1, one in group 2. */
	{ "4 readers vs 1, equal groups", 8,
	  { BFQ_CG_ROOT, BFQ_CG_ACT(100, 0), BFQ_CG_ACT(100, 0),
	    BFQ_CG_ACT(100, 1), BFQ_CG_ACT(100, 1), BFQ_CG_ACT(100, 1),
	    BFQ_CG_ACT(100, 1), BFQ_CG_ACT(100, 2) },
	  { 1000000, 500000, 500000, 125000, 125000, 125000, 125000,
	    500000 } },
	/*
	 * A(200) and B(100) under the root; A1(300) and A2(100) under A;
	 * x(100) and y(900) under A1; B1 alone under B. Exact leaf shares
	 * 50000, 450000, 166666.7, 333333.3; each level rounds down.
	 */
	{ "depth 3, mixed weights", 8,
	  { BFQ_CG_ROOT, BFQ_CG_ACT(200, 0), BFQ_CG_ACT(100, 0),
	    BFQ_CG_ACT(300, 1), BFQ_CG_ACT(100, 1), BFQ_CG_ACT(100, 3),
	    BFQ_CG_ACT(900, 3), BFQ_CG_ACT(50, 2) },
	  { 1000000, 666666, 333333, 499999, 166666, 49999, 449999,
	    333333 } },
	{ "inactive sibling not counted", 4,
	  { BFQ_CG_ROOT, BFQ_CG_ACT(100, 0), BFQ_CG_IDLE(300, 0),
	    BFQ_CG_ACT(100, 0) },
	  { 1000000, 500000, 0, 500000 } },
	{ "inactive subtree not counted", 5,
	  { BFQ_CG_ROOT, BFQ_CG_IDLE(900, 0), BFQ_CG_IDLE(100, 1),
	    BFQ_CG_ACT(1, 0), BFQ_CG_ACT(1, 3) },
	  { 1000000, 0, 0, 1000000, 1000000 } },
	/* A group's own queue beside its child group, one level each. */
	{ "queue beside a child group", 5,
	  { BFQ_CG_ROOT, BFQ_CG_ACT(100, 0), BFQ_CG_ACT(100, 1),
	    BFQ_CG_ACT(100, 1), BFQ_CG_ACT(100, 3) },
	  { 1000000, 1000000, 500000, 500000, 500000 } },
	{ "nothing backlogged", 3,
	  { BFQ_CG_IDLE(0, -1), BFQ_CG_IDLE(100, 0), BFQ_CG_IDLE(300, 0) },
	  { 0, 0, 0 } },
	{ "root alone", 1, { BFQ_CG_ROOT }, { 1000000 } },
	{ "no nodes", 0, {}, {}, -EINVAL },
	{ "node 0 not a root", 2,
	  { BFQ_CG_ACT(100, 1), BFQ_CG_ACT(100, 0) }, {}, -EINVAL },
	{ "second root", 2,
	  { BFQ_CG_ROOT, BFQ_CG_ACT(100, -1) }, {}, -EINVAL },
	{ "parent after child", 3,
	  { BFQ_CG_ROOT, BFQ_CG_ACT(100, 2), BFQ_CG_ACT(100, 0) }, {},
	  -EINVAL },
	{ "parent out of the tree", 2,
	  { BFQ_CG_ROOT, BFQ_CG_ACT(100, 7) }, {}, -EINVAL },
	{ "active under inactive", 3,
	  { BFQ_CG_ROOT, BFQ_CG_IDLE(100, 0), BFQ_CG_ACT(100, 1) }, {},
	  -EINVAL },
	{ "active weight 0", 2,
	  { BFQ_CG_ROOT, BFQ_CG_ACT(0, 0) }, {}, -EINVAL },
};

BFQ_KUNIT_TABLE(bfq_cg_shares, bfq_cg_share_cases, bfq_cg_share_case);

/*
 * The active children of each node divide its share, losing less than
 * one ppm each to rounding.
 */
static void bfq_cg_shares_check_split(struct kunit *test,
				      const struct bfq_cg_share_case *c,
				      const u32 *ppm)
{
	unsigned int p, i;

	for (p = 0; p < c->n; p++) {
		u32 sum = 0, nr = 0;

		for (i = 1; i < c->n; i++) {
			if ((unsigned int)c->nodes[i].parent != p ||
			    !c->nodes[i].active)
				continue;
			sum += ppm[i];
			nr++;
		}
		if (!nr)
			continue;
		KUNIT_EXPECT_LE_MSG(test, sum, ppm[p], "children of %u", p);
		KUNIT_EXPECT_GT_MSG(test, sum + nr, ppm[p], "children of %u",
				    p);
	}
}

static void bfq_cg_shares_ppm_table(struct kunit *test)
{
	const struct bfq_cg_share_case *c = test->param_value;
	u32 ppm[BFQ_CG_TEST_NODES];
	unsigned int i;

	memset(ppm, 0xa5, sizeof(ppm));
	KUNIT_ASSERT_EQ(test, bfq_cg_shares_ppm(c->nodes, c->n, ppm), c->err);
	if (c->err) {
		/* A refused tree leaves the output untouched. */
		for (i = 0; i < BFQ_CG_TEST_NODES; i++)
			KUNIT_EXPECT_EQ(test, ppm[i], 0xa5a5a5a5U);
		return;
	}
	for (i = 0; i < c->n; i++)
		KUNIT_EXPECT_EQ_MSG(test, ppm[i], c->ppm[i], "node %u", i);
	bfq_cg_shares_check_split(test, c, ppm);
}

/*
 * A cgroup with a group on each of two devices, 8:0 and 8:16, of one
 * bfq_data, as blk-cgroup would list them; blkcg_gq and blkcg made by
 * hand, with only the fields our policy reads.
 */
#define BFQ_CG_FAKE_DEVS	2

struct bfq_cg_fake {
	struct blkcg blkcg;
	struct bfq_cgroup_data cgd;
	struct blkcg_gq blkg[BFQ_CG_FAKE_DEVS];
	struct bfq_group bfqg[BFQ_CG_FAKE_DEVS];
	struct bfq_data *bfqd;
};

static const dev_t bfq_cg_fake_devt[BFQ_CG_FAKE_DEVS] = {
	MKDEV(8, 0), MKDEV(8, 16),
};

/* @bfqg, on @blkg of @blkcg, as pd_init and pd_online leave it. */
static void bfq_cg_fake_group(struct blkcg *blkcg, struct blkcg_gq *blkg,
			      struct bfq_group *bfqg, struct bfq_data *bfqd)
{
	blkg->blkcg = blkcg;
	blkg->pd[bfq_blkcg_policy.plid] = &bfqg->pd;
	bfqg->pd.blkg = blkg;
	bfq_cg_group_init(bfqg, bfqd);
	spin_lock_irq(&blkcg->lock);
	hlist_add_head(&blkg->blkcg_node, &blkcg->blkg_list);
	bfq_cg_pd_online(&bfqg->pd);
	spin_unlock_irq(&blkcg->lock);
}

static struct bfq_cg_fake *bfq_cg_fake_new(struct kunit *test)
{
	struct bfq_cg_fake *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->bfqd = bfq_test_bfqd(test);
	spin_lock_init(&f->blkcg.lock);
	INIT_HLIST_HEAD(&f->blkcg.blkg_list);
	f->cgd.weight = BFQ_CG_WEIGHT_DEFAULT;
	f->blkcg.cpd[bfq_blkcg_policy.plid] = &f->cgd.cpd;
	for (i = 0; i < BFQ_CG_FAKE_DEVS; i++)
		bfq_cg_fake_group(&f->blkcg, &f->blkg[i], &f->bfqg[i],
				  f->bfqd);
	return f;
}

/* Which weight file a write goes to. */
enum bfq_cg_file { BFQ_CG_V2, BFQ_CG_V1, BFQ_CG_V1_DEV };

struct bfq_cg_write {
	enum bfq_cg_file file;
	const char *input;		/* NULL: no more writes */
	int err;
};

/*
 * One write as bfq_cg_write() does it, blkg_conf_prep()'s part played by
 * a lookup of the two fake devices (-ENODEV for any other).
 */
static int bfq_cg_fake_write(struct bfq_cg_fake *f,
			     const struct bfq_cg_write *w)
{
	static int (* const parse[])(const char *buf,
				     struct bfq_cg_weight_req *req) = {
		[BFQ_CG_V2] = bfq_cg_parse_weight_v2,
		[BFQ_CG_V1] = bfq_cg_parse_weight_v1,
		[BFQ_CG_V1_DEV] = bfq_cg_parse_weight_device_v1,
	};
	struct bfq_group *bfqg = NULL;
	struct bfq_cg_weight_req req;
	int ret = parse[w->file](w->input, &req);
	int i;

	if (ret)
		return ret;
	if (req.op != BFQ_CG_SET_DEFAULT) {
		for (i = 0; i < BFQ_CG_FAKE_DEVS; i++)
			if (bfq_cg_fake_devt[i] == MKDEV(req.major, req.minor))
				bfqg = &f->bfqg[i];
		if (!bfqg)
			return -ENODEV;
	}
	spin_lock_irq(&f->blkcg.lock);
	bfq_cg_apply(&f->blkcg, bfqg, &req);
	spin_unlock_irq(&f->blkcg.lock);
	return 0;
}

/* io.bfq.weight as bfq_cg_weight_show() writes it for @f. */
static void bfq_cg_fake_read(struct bfq_cg_fake *f, char *buf, size_t size)
{
	struct seq_file sf = { .buf = buf, .size = size };
	int i;

	memset(buf, 0, size);
	bfq_cg_seq_default(&sf, &f->blkcg);
	for (i = 0; i < BFQ_CG_FAKE_DEVS; i++)
		bfq_cg_seq_device(&sf, bfq_cg_fake_devt[i], &f->bfqg[i]);
}

#define BFQ_CG_MAX_WRITES	5

struct bfq_cg_apply_case {
	const char *desc;
	struct bfq_cg_write w[BFQ_CG_MAX_WRITES];
	unsigned int dfl;			/* the cgroup's default */
	unsigned int dev[BFQ_CG_FAKE_DEVS];	/* overrides, 0: none */
	unsigned int eff[BFQ_CG_FAKE_DEVS];	/* effective weights */
	const char *read;			/* io.bfq.weight */
};

#define BFQ_CG_W2(in, e)	{ BFQ_CG_V2, in, e }
#define BFQ_CG_W1(in, e)	{ BFQ_CG_V1, in, e }
#define BFQ_CG_W1D(in, e)	{ BFQ_CG_V1_DEV, in, e }

static const struct bfq_cg_apply_case bfq_cg_apply_cases[] = {
	{ "nothing written", {}, 100, { 0, 0 }, { 100, 100 },
	  "default 100\n" },
	{ "N sets the default everywhere",
	  { BFQ_CG_W2("300\n", 0) }, 300, { 0, 0 }, { 300, 300 },
	  "default 300\n" },
	{ "default N, then N",
	  { BFQ_CG_W2("default 500", 0), BFQ_CG_W2("7", 0) },
	  7, { 0, 0 }, { 7, 7 }, "default 7\n" },
	{ "override on one device only",
	  { BFQ_CG_W2("8:16 40\n", 0) }, 100, { 0, 40 }, { 100, 40 },
	  "default 100\n8:16 40\n" },
	{ "default after an override leaves the override",
	  { BFQ_CG_W2("8:16 40", 0), BFQ_CG_W2("default 900", 0) },
	  900, { 0, 40 }, { 900, 40 }, "default 900\n8:16 40\n" },
	{ "override after a default",
	  { BFQ_CG_W2("900", 0), BFQ_CG_W2("8:0 1", 0) },
	  900, { 1, 0 }, { 1, 900 }, "default 900\n8:0 1\n" },
	{ "MAJ:MIN default drops the override for the current default",
	  { BFQ_CG_W2("8:0 1000", 0), BFQ_CG_W2("8:16 2", 0),
	    BFQ_CG_W2("250", 0), BFQ_CG_W2("8:0 default", 0) },
	  250, { 0, 2 }, { 250, 2 }, "default 250\n8:16 2\n" },
	{ "reset of a device without override",
	  { BFQ_CG_W2("8:0 default", 0) }, 100, { 0, 0 }, { 100, 100 },
	  "default 100\n" },
	{ "bad writes change nothing",
	  { BFQ_CG_W2("8:0 500", 0), BFQ_CG_W2("8:0 1001", -ERANGE),
	    BFQ_CG_W2("default 10x", -EINVAL), BFQ_CG_W2("8:32 5", -ENODEV),
	    BFQ_CG_W2("0", -ERANGE) },
	  100, { 500, 0 }, { 500, 100 }, "default 100\n8:0 500\n" },
	{ "v1: weight, then weight_device",
	  { BFQ_CG_W1("300", 0), BFQ_CG_W1D("8:0 50\n", 0) },
	  300, { 50, 0 }, { 50, 300 }, "default 300\n8:0 50\n" },
	{ "v1: weight_device 0 resets",
	  { BFQ_CG_W1D("8:0 50", 0), BFQ_CG_W1D("8:16 60", 0),
	    BFQ_CG_W1D("8:0 0", 0) },
	  100, { 0, 60 }, { 100, 60 }, "default 100\n8:16 60\n" },
	{ "v1: bad writes change nothing",
	  { BFQ_CG_W1("200", 0), BFQ_CG_W1("default 5", -EINVAL),
	    BFQ_CG_W1D("8:0", -EINVAL), BFQ_CG_W1D("9:0 5", -ENODEV),
	    BFQ_CG_W1D("8:0 1001", -ERANGE) },
	  200, { 0, 0 }, { 200, 200 }, "default 200\n" },
};

BFQ_KUNIT_TABLE(bfq_cg_apply, bfq_cg_apply_cases, bfq_cg_apply_case);

/*
 * Each write answers as the row says; then the default, the overrides,
 * the effective weights, the weights given to the entities and the
 * io.bfq.weight text are the row's.
 */
static void bfq_cg_apply_table(struct kunit *test)
{
	const struct bfq_cg_apply_case *c = test->param_value;
	struct bfq_cg_fake *f = bfq_cg_fake_new(test);
	char buf[128];
	int i;

	for (i = 0; i < BFQ_CG_MAX_WRITES && c->w[i].input; i++)
		KUNIT_EXPECT_EQ_MSG(test, bfq_cg_fake_write(f, &c->w[i]),
				    c->w[i].err, "write '%s'", c->w[i].input);
	KUNIT_EXPECT_EQ(test, f->cgd.weight, c->dfl);
	for (i = 0; i < BFQ_CG_FAKE_DEVS; i++) {
		const struct bfq_group *bfqg = &f->bfqg[i];

		KUNIT_EXPECT_EQ_MSG(test, bfqg->dev_weight, c->dev[i],
				    "device %d", i);
		KUNIT_EXPECT_EQ_MSG(test, bfqg->weight, c->eff[i],
				    "device %d", i);
		KUNIT_EXPECT_EQ_MSG(test, bfqg->entity.new_weight, c->eff[i],
				    "device %d", i);
		KUNIT_EXPECT_EQ(test, bfqg->entity.new_class, BFQ_CLASS_BE);
	}
	bfq_cg_fake_read(f, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, c->read);
}

/* A group blk-cgroup creates after a default write takes it in online. */
static void bfq_cg_pd_online_takes_default(struct kunit *test)
{
	struct bfq_cg_fake *f = bfq_cg_fake_new(test);
	const struct bfq_cg_write w = BFQ_CG_W2("default 640", 0);
	struct blkcg_gq *blkg = kunit_kzalloc(test, sizeof(*blkg), GFP_KERNEL);
	struct bfq_group *bfqg = kunit_kzalloc(test, sizeof(*bfqg),
					       GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, blkg);
	KUNIT_ASSERT_NOT_NULL(test, bfqg);
	KUNIT_ASSERT_EQ(test, bfq_cg_fake_write(f, &w), 0);
	bfq_cg_fake_group(&f->blkcg, blkg, bfqg, f->bfqd);
	KUNIT_EXPECT_EQ(test, bfqg->weight, 640U);
	KUNIT_EXPECT_EQ(test, bfqg->entity.new_weight, 640U);
	KUNIT_EXPECT_PTR_EQ(test, bfqg->bfqd, f->bfqd);
}

/* An offline group's weight still changes; its entity is left alone. */
static void bfq_cg_set_weight_offline(struct kunit *test)
{
	struct bfq_cg_fake *f = bfq_cg_fake_new(test);
	const struct bfq_cg_write w = BFQ_CG_W2("default 640", 0);

	bfq_cg_pd_offline(&f->bfqg[1].pd);
	KUNIT_EXPECT_NULL(test, f->bfqg[1].bfqd);
	KUNIT_ASSERT_EQ(test, bfq_cg_fake_write(f, &w), 0);
	KUNIT_EXPECT_EQ(test, f->bfqg[0].entity.new_weight, 640U);
	KUNIT_EXPECT_EQ(test, f->bfqg[1].weight, 640U);
	KUNIT_EXPECT_EQ(test, f->bfqg[1].entity.new_weight,
			BFQ_CG_WEIGHT_DEFAULT);
}

/* One counter of a group's stats, as a recursive file reads it. */
struct bfq_cg_stat_want {
	size_t off;			/* of the blkg_rwstat in bfq_group */
	enum blkg_rwstat_type type;
	u64 val;
};

#define BFQ_CG_BYTES(t, v) \
	{ offsetof(struct bfq_group, stats.bytes), BLKG_RWSTAT_##t, v }
#define BFQ_CG_IOS(t, v) \
	{ offsetof(struct bfq_group, stats.ios), BLKG_RWSTAT_##t, v }

static void bfq_cg_stats_expect(struct kunit *test, struct bfq_group *bfqg,
				const struct bfq_cg_stat_want *want,
				unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct blkg_rwstat *stat = (void *)bfqg + want[i].off;

		KUNIT_EXPECT_EQ_MSG(test,
				    blkg_rwstat_read_counter(stat, want[i].type),
				    want[i].val, "counter %u", i);
	}
}

/* Two groups from bfq_cg_pd_alloc(), the second under the first. */
static void bfq_cg_stat_pair(struct kunit *test, struct bfq_data *bfqd,
			     struct bfq_group **parent,
			     struct bfq_group **child)
{
	struct blkcg_gq *blkg = kunit_kzalloc(test, 2 * sizeof(*blkg),
					      GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, blkg);
	*parent = pd_to_bfqg(bfq_cg_pd_alloc(bfqd->queue, GFP_KERNEL));
	*child = pd_to_bfqg(bfq_cg_pd_alloc(bfqd->queue, GFP_KERNEL));
	KUNIT_ASSERT_NOT_NULL(test, *parent);
	KUNIT_ASSERT_NOT_NULL(test, *child);
	blkg[1].parent = &blkg[0];
	blkg[0].pd[bfq_blkcg_policy.plid] = &(*parent)->pd;
	(*parent)->pd.blkg = &blkg[0];
	(*child)->pd.blkg = &blkg[1];
	bfq_cg_group_init(*parent, bfqd);
	bfq_cg_group_init(*child, bfqd);
}

/*
 * bfq_cg_stat_dispatched() counts bytes and requests by direction and
 * sync; offline adds a child's counts to its parent's aux counts, which
 * only the recursive files read; reset clears them.
 */
static void bfq_cg_stat_dispatched_and_offline(struct kunit *test)
{
	static const struct bfq_cg_stat_want child_want[] = {
		BFQ_CG_BYTES(READ, 4096), BFQ_CG_BYTES(WRITE, 131072),
		BFQ_CG_BYTES(SYNC, 4096), BFQ_CG_BYTES(ASYNC, 131072),
		BFQ_CG_BYTES(DISCARD, 0),
		BFQ_CG_IOS(READ, 1), BFQ_CG_IOS(WRITE, 2),
		BFQ_CG_IOS(SYNC, 1), BFQ_CG_IOS(ASYNC, 2),
	};
	static const struct bfq_cg_stat_want reset_want[] = {
		BFQ_CG_BYTES(WRITE, 0), BFQ_CG_IOS(READ, 0),
	};
	struct bfq_data *bfqd = bfq_test_bfqd(test);
	struct request *rq = kunit_kzalloc(test, sizeof(*rq), GFP_KERNEL);
	struct bfq_group *parent, *child;
	struct blkg_rwstat_sample own;

	KUNIT_ASSERT_NOT_NULL(test, rq);
	bfq_cg_stat_pair(test, bfqd, &parent, &child);
	rq->cmd_flags = REQ_OP_READ | REQ_SYNC;
	rq->__data_len = 4096;
	bfq_cg_stat_dispatched(child, rq, 0);
	rq->cmd_flags = REQ_OP_WRITE;
	rq->__data_len = 65536;
	bfq_cg_stat_dispatched(child, rq, 0);
	bfq_cg_stat_dispatched(child, rq, 0);
	bfq_cg_stats_expect(test, child, child_want, ARRAY_SIZE(child_want));

	bfq_cg_pd_offline(&child->pd);
	KUNIT_EXPECT_NULL(test, child->bfqd);
	bfq_cg_stats_expect(test, parent, child_want, ARRAY_SIZE(child_want));
	blkg_rwstat_read(&parent->stats.bytes, &own);
	KUNIT_EXPECT_EQ(test, own.cnt[BLKG_RWSTAT_WRITE], 0ULL);

	bfq_cg_pd_reset_stats(&parent->pd);
	bfq_cg_stats_expect(test, parent, reset_want, ARRAY_SIZE(reset_want));
	bfq_cg_pd_free(&child->pd);
	bfq_cg_pd_free(&parent->pd);
}

#ifdef CONFIG_BFQ_CGROUP_DEBUG
#define BFQ_CG_DBG(f, t, v) \
	{ offsetof(struct bfq_group, stats.f), BLKG_RWSTAT_##t, v }

/*
 * Rule 14, CONFIG_BFQ_CGROUP_DEBUG: a read queued twice, one of them merged
 * into the other, waits from 1000 to 5000 ns and is served until 7500; a
 * write still queued. Offline hands all but io_queued to the parent.
 */
static void bfq_cg_stat_debug_life(struct kunit *test)
{
	static const struct bfq_cg_stat_want child_want[] = {
		BFQ_CG_DBG(queued, READ, 0), BFQ_CG_DBG(queued, WRITE, 1),
		BFQ_CG_DBG(merged, READ, 1), BFQ_CG_DBG(merged, WRITE, 0),
		BFQ_CG_DBG(wait_ns, READ, 4000), BFQ_CG_DBG(wait_ns, SYNC, 4000),
		BFQ_CG_DBG(service_ns, READ, 2500),
		BFQ_CG_DBG(service_ns, WRITE, 0),
	};
	static const struct bfq_cg_stat_want parent_want[] = {
		BFQ_CG_DBG(queued, WRITE, 0), BFQ_CG_DBG(merged, READ, 1),
		BFQ_CG_DBG(wait_ns, READ, 4000),
		BFQ_CG_DBG(service_ns, READ, 2500),
	};
	struct bfq_data *bfqd = bfq_test_bfqd(test);
	struct request *rq = kunit_kzalloc(test, 2 * sizeof(*rq), GFP_KERNEL);
	struct bfq_group *parent, *child;

	KUNIT_ASSERT_NOT_NULL(test, rq);
	bfq_cg_stat_pair(test, bfqd, &parent, &child);
	rq[0].cmd_flags = REQ_OP_READ | REQ_SYNC;
	rq[0].start_time_ns = 1000;
	rq[1].cmd_flags = REQ_OP_WRITE;
	bfq_cg_stat_queued(child, &rq[0], 1);
	bfq_cg_stat_queued(child, &rq[0], 1);
	bfq_cg_stat_queued(child, &rq[1], 1);
	bfq_cg_stat_merged(child, &rq[0]);
	bfq_cg_stat_queued(child, &rq[0], -1);
	bfq_cg_stat_queued(child, &rq[0], -1);
	bfq_cg_stat_dispatched(child, &rq[0], 5000);
	bfq_cg_stat_completed(child, &rq[0], 7500);
	bfq_cg_stats_expect(test, child, child_want, ARRAY_SIZE(child_want));
	bfq_cg_pd_offline(&child->pd);
	bfq_cg_stats_expect(test, parent, parent_want,
			    ARRAY_SIZE(parent_want));
	bfq_cg_pd_free(&child->pd);
	bfq_cg_pd_free(&parent->pd);
}
#endif

/*
 * Groups for bfq_cg_bio_group(): 0 the root, 1 under it, 2 under 1 and gone
 * offline, 3 under 2; 4 on another device. -1 is a bio without a blkg.
 */
#define BFQ_CG_BIO_GROUPS	5

struct bfq_cg_bio_group_case {
	const char *desc;
	int bio_blkg;
	int want;
};

static const struct bfq_cg_bio_group_case bfq_cg_bio_group_cases[] = {
	{ "the bio's own group", 1, 1 },
	{ "the root group", 0, 0 },
	{ "an offline group's parent", 2, 1 },
	{ "past an offline ancestor", 3, 3 },
	{ "no blkg: the root", -1, 0 },
	{ "another device's group: the root", 4, 0 },
};

BFQ_KUNIT_TABLE(bfq_cg_bio_group, bfq_cg_bio_group_cases, bfq_cg_bio_group_case);

static void bfq_cg_bio_group_table(struct kunit *test)
{
	static const int parent[BFQ_CG_BIO_GROUPS] = { -1, 0, 1, 2, -1 };
	const struct bfq_cg_bio_group_case *c = test->param_value;
	struct bfq_data *bfqd = bfq_test_bfqd(test);
	struct bfq_data *other = bfq_test_bfqd(test);
	struct blkcg_gq *blkg;
	struct bfq_group *bfqg;
	struct bio bio = {};
	int i;

	blkg = kunit_kzalloc(test, BFQ_CG_BIO_GROUPS * sizeof(*blkg),
			     GFP_KERNEL);
	bfqg = kunit_kzalloc(test, BFQ_CG_BIO_GROUPS * sizeof(*bfqg),
			     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, blkg);
	KUNIT_ASSERT_NOT_NULL(test, bfqg);
	for (i = 0; i < BFQ_CG_BIO_GROUPS; i++) {
		blkg[i].parent = parent[i] < 0 ? NULL : &blkg[parent[i]];
		blkg[i].pd[bfq_blkcg_policy.plid] = &bfqg[i].pd;
		bfqg[i].pd.blkg = &blkg[i];
		bfq_cg_group_init(&bfqg[i], i == 4 ? other : i == 2 ? NULL : bfqd);
	}
	bfqd->queue->root_blkg = &blkg[0];
	bio.bi_blkg = c->bio_blkg < 0 ? NULL : &blkg[c->bio_blkg];
	spin_lock_irq(&bfqd->lock);
	KUNIT_EXPECT_PTR_EQ(test, bfq_cg_bio_group(bfqd, &bio), &bfqg[c->want]);
	spin_unlock_irq(&bfqd->lock);
}

/*
 * Rule 13: which busy groups are alike. Groups 1, 2 and 3 are children
 * of the root, 4 and 5 children of 1; busy[0] is the root group's own
 * busy sync queues. Each case makes the queues busy one by one, asks
 * about the group in service, then idles them all again, which must
 * leave every count and sum at zero.
 */
#define BFQ_CG_SYM_GROUPS	6

struct bfq_cg_sym_case {
	const char *desc;
	unsigned int weight[BFQ_CG_SYM_GROUPS];	/* 0: the default */
	unsigned int busy[BFQ_CG_SYM_GROUPS];
	int in_service;
	bool alike;
};

static const struct bfq_cg_sym_case bfq_cg_sym_cases[] = {
	{ "siblings, one weight, one queue each", {}, { 0, 1, 1, 1 }, 1, true },
	{ "siblings, two queues each", {}, { 0, 2, 2 }, 2, true },
	{ "siblings, 2 queues against 1", {}, { 0, 2, 1 }, 1, false },
	{ "siblings, weights 100 and 300", { 0, 100, 300 }, { 0, 1, 1 }, 1,
	  false },
	{ "weights 50, 100, 150 summing as 3 x 100", { 0, 100, 50, 150 },
	  { 0, 1, 1, 1 }, 1, false },
	{ "nested siblings", {}, { 0, 0, 0, 0, 1, 1 }, 4, true },
	{ "cousins: a root child and a grandchild", {}, { 0, 0, 1, 0, 1 }, 2,
	  false },
	{ "a parent and its child", {}, { 0, 1, 0, 0, 1 }, 4, false },
	{ "root queues beside groups", {}, { 1, 1, 1 }, 1, false },
	{ "in service: a root queue", {}, { 1, 1, 1 }, 0, false },
	{ "in service: a group with no busy queue", {}, { 0, 0, 1, 1 }, 1,
	  false },
};

BFQ_KUNIT_TABLE(bfq_cg_sym, bfq_cg_sym_cases, bfq_cg_sym_case);

static void bfq_cg_sym_table(struct kunit *test)
{
	static const int parent[BFQ_CG_SYM_GROUPS] = { -1, -1, -1, -1, 1, 1 };
	const struct bfq_cg_sym_case *c = test->param_value;
	struct bfq_data *bfqd = bfq_test_bfqd(test);
	struct bfq_group *g;
	unsigned int n = 0, i, k;

	g = kunit_kzalloc(test, BFQ_CG_SYM_GROUPS * sizeof(*g), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, g);
	for (i = 1; i < BFQ_CG_SYM_GROUPS; i++) {
		bfq_cg_group_init(&g[i], bfqd);
		g[i].weight = c->weight[i] ?: BFQ_CG_WEIGHT_DEFAULT;
		if (parent[i] > 0)
			g[i].entity.parent = &g[parent[i]].entity;
	}
	spin_lock_irq(&bfqd->lock);
	bfqd->root_busy_sync = c->busy[0];
	n = !!c->busy[0];
	for (i = 1; i < BFQ_CG_SYM_GROUPS; i++)
		for (k = 0; k < c->busy[i]; k++)
			n += bfq_cg_busy_change(bfqd, &g[i], true);
	KUNIT_EXPECT_EQ(test, bfq_cg_alike(bfqd, c->in_service ?
					       &g[c->in_service] : NULL, n),
			c->alike);
	for (i = 1; i < BFQ_CG_SYM_GROUPS; i++)
		for (k = 0; k < c->busy[i]; k++)
			n -= bfq_cg_busy_change(bfqd, &g[i], false);
	spin_unlock_irq(&bfqd->lock);
	KUNIT_EXPECT_EQ(test, n, !!c->busy[0]);
	KUNIT_EXPECT_EQ(test, bfqd->busy_group_sums.weight_sum, 0);
	KUNIT_EXPECT_EQ(test, bfqd->busy_group_sums.weight_sq_sum, 0);
	KUNIT_EXPECT_EQ(test, bfqd->busy_group_sums.sync_sum, 0);
	KUNIT_EXPECT_EQ(test, bfqd->busy_group_sums.sync_sq_sum, 0);
	KUNIT_EXPECT_EQ(test, bfqd->busy_group_sums.root_children, 0);
	KUNIT_EXPECT_EQ(test, g[1].busy_children, 0);
}

static struct kunit_case bfq_cgroup_test_cases[] = {
	KUNIT_CASE_PARAM(bfq_cg_parse_weight_v2_table, bfq_cg_v2_gen_params),
	KUNIT_CASE_PARAM(bfq_cg_parse_weight_v1_table, bfq_cg_v1_gen_params),
	KUNIT_CASE_PARAM(bfq_cg_parse_weight_device_v1_table,
			 bfq_cg_v1_dev_gen_params),
	KUNIT_CASE_PARAM(bfq_cg_shares_ppm_table, bfq_cg_shares_gen_params),
	KUNIT_CASE_PARAM(bfq_cg_apply_table, bfq_cg_apply_gen_params),
	KUNIT_CASE(bfq_cg_pd_online_takes_default),
	KUNIT_CASE(bfq_cg_set_weight_offline),
	KUNIT_CASE(bfq_cg_stat_dispatched_and_offline),
	KUNIT_CASE_PARAM(bfq_cg_bio_group_table, bfq_cg_bio_group_gen_params),
	KUNIT_CASE_PARAM(bfq_cg_sym_table, bfq_cg_sym_gen_params),
#ifdef CONFIG_BFQ_CGROUP_DEBUG
	KUNIT_CASE(bfq_cg_stat_debug_life),
#endif
	{}
};

static struct kunit_suite bfq_cgroup_suite = {
	.name = "bfq_cgroup",
	.test_cases = bfq_cgroup_test_cases,
};

kunit_test_suite(bfq_cgroup_suite);
