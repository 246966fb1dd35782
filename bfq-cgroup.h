/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BFQ groups: what the cgroup interface files accept and how a
 * tree of group weights divides a device. Defined in bfq-cgroup.c, which is
 * built only with CONFIG_BFQ_GROUP_IOSCHED; pure functions, no locking.
 */
#ifndef _BFQ_CGROUP_H
#define _BFQ_CGROUP_H

#include <linux/types.h>

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

#endif /* _BFQ_CGROUP_H */
