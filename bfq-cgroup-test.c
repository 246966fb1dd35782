// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of bfq-cgroup.c, #included at its end: every form of the
 * weight files and every class of bad write (each must leave the request
 * untouched), and the shares of group trees.
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
	BFQ_CG_BAD("empty", "", -EINVAL),
	BFQ_CG_BAD("N alone", "300", -EINVAL),
	BFQ_CG_BAD("MAJ:MIN alone", "8:16", -EINVAL),
	BFQ_CG_BAD("v2's MAJ:MIN default", "8:16 default", -EINVAL),
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

static struct kunit_case bfq_cgroup_test_cases[] = {
	KUNIT_CASE_PARAM(bfq_cg_parse_weight_v2_table, bfq_cg_v2_gen_params),
	KUNIT_CASE_PARAM(bfq_cg_parse_weight_v1_table, bfq_cg_v1_gen_params),
	KUNIT_CASE_PARAM(bfq_cg_parse_weight_device_v1_table,
			 bfq_cg_v1_dev_gen_params),
	KUNIT_CASE_PARAM(bfq_cg_shares_ppm_table, bfq_cg_shares_gen_params),
	{}
};

static struct kunit_suite bfq_cgroup_suite = {
	.name = "bfq_cgroup",
	.test_cases = bfq_cgroup_test_cases,
};

kunit_test_suite(bfq_cgroup_suite);
