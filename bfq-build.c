// SPDX-License-Identifier: GPL-2.0
/*
 * BFQ's files built as one unit, as the scheduler's are
 * (kernel/sched/build_policy.c): every request passes through several of
 * them (a request's path calls some fifty functions, most of them a test
 * or two in another file: the rate estimators, the low-latency rules,
 * injection, merging), and as one unit the compiler inlines those across
 * the files. Under QEMU -icount on 6.12, one psync reader on a null_blk
 * that completes at once: 144 instructions a request fewer
 * (docs/results/2026-12-07-cost-one-unit.md). Each file keeps its
 * header, rules and KUnit tests; a name static to one file must not be
 * used by another.
 */
#include "bfq-iosched.c"
#include "bfq-wf2q.c"
#include "bfq-budget.c"
#include "bfq-rate.c"
#include "bfq-wr.c"
#include "bfq-inject.c"
#include "bfq-merge.c"
#include "bfq-tags.c"
#include "bfq-sysfs.c"
#ifdef CONFIG_BLK_DEBUG_FS
#include "bfq-debugfs.c"
#endif
#ifdef CONFIG_BFQ_GROUP_IOSCHED
#include "bfq-cgroup.c"
#endif
