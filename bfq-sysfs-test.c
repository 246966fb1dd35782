// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of bfq-sysfs.c: each tunable's parsing and bounds (rules 2
 * and 3). #included at the end of bfq-sysfs.c.
 */
#include <kunit/test.h>

#include "bfq-test.h"

struct bfq_parse_case {
	const char *desc;
	enum bfq_tunable_id id;
	const char *input;
	int err;		/* expected return */
	u64 stored;		/* expected stored value when err == 0 */
};

static const struct bfq_parse_case bfq_parse_cases[] = {
	{ "slice_idle ms to ns", BFQ_T_SLICE_IDLE, "8\n", 0, 8000000 },
	{ "slice_idle_us to ns", BFQ_T_SLICE_IDLE_US, "250", 0, 250000 },
	{ "slice_idle 0 disables", BFQ_T_SLICE_IDLE, "0", 0, 0 },
	{ "slice_idle above max", BFQ_T_SLICE_IDLE, "1001", -EINVAL, 0 },
	{ "max_budget auto", BFQ_T_MAX_BUDGET, "0", 0, 0 },
	{ "max_budget sectors", BFQ_T_MAX_BUDGET, "16384\n", 0, 16384 },
	{ "timeout_sync 0", BFQ_T_TIMEOUT_SYNC, "0", -EINVAL, 0 },
	{ "low_latency 2", BFQ_T_LOW_LATENCY, "2", -EINVAL, 0 },
	{ "back_seek_penalty 0", BFQ_T_BACK_SEEK_PENALTY, "0", -EINVAL, 0 },
	{ "text", BFQ_T_FIFO_EXPIRE_SYNC, "abc", -EINVAL, 0 },
	{ "negative", BFQ_T_FIFO_EXPIRE_ASYNC, "-1", -EINVAL, 0 },
	{ "empty", BFQ_T_BACK_SEEK_MAX, "", -EINVAL, 0 },
	{ "newline only", BFQ_T_BACK_SEEK_MAX, "\n", -EINVAL, 0 },
	{ "trailing garbage", BFQ_T_TIMEOUT_SYNC, "12x", -EINVAL, 0 },
	{ "two newlines", BFQ_T_TIMEOUT_SYNC, "12\n\n", -EINVAL, 0 },
	{ "overflow u64", BFQ_T_MAX_BUDGET, "99999999999999999999", -ERANGE, 0 },
	{ "hex is not decimal", BFQ_T_MAX_BUDGET, "0x10", -EINVAL, 0 },
};

BFQ_KUNIT_TABLE(bfq_parse, bfq_parse_cases, bfq_parse_case);

static void bfq_tunable_parse_table(struct kunit *test)
{
	const struct bfq_parse_case *c = test->param_value;
	u64 stored = 12345;
	int err;

	err = bfq_tunable_parse(&bfq_tunable_descs[c->id], c->input, &stored);
	KUNIT_EXPECT_EQ(test, err, c->err);
	/* A rejected write leaves the destination untouched. */
	KUNIT_EXPECT_EQ(test, stored, c->err ? 12345ULL : c->stored);
}

/* Every tunable's bounds survive the conversion to its stored unit. */
static void bfq_tunable_descs_no_overflow(struct kunit *test)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(bfq_tunable_descs); i++) {
		const struct bfq_tunable_desc *d = &bfq_tunable_descs[i];

		KUNIT_EXPECT_LE_MSG(test, d->min, d->max, "tunable %d", i);
		KUNIT_EXPECT_LE_MSG(test, d->max, U64_MAX / d->scale,
				    "tunable %d", i);
	}
}

static struct kunit_case bfq_tunable_cases[] = {
	KUNIT_CASE_PARAM(bfq_tunable_parse_table, bfq_parse_gen_params),
	KUNIT_CASE(bfq_tunable_descs_no_overflow),
	{}
};

static struct kunit_suite bfq_tunable_suite = {
	.name = "bfq_tunables",
	.test_cases = bfq_tunable_cases,
};

kunit_test_suite(bfq_tunable_suite);
