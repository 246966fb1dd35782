/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BFQ's types, one struct per mechanism, each field group with the lock that
 * protects it. See the design notes at the top of bfq-iosched.c.
 */
#ifndef _BFQ_IOSCHED_H
#define _BFQ_IOSCHED_H

#include <linux/bitops.h>
#include <linux/blkdev.h>
#include <linux/blktrace_api.h>
#include <linux/ioprio.h>
#include <linux/list.h>
#include <linux/rbtree.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>

#include "blk.h"
#include "blk-mq-debugfs.h"
#include "elevator.h"

/* The largest max_budget: 1 GiB in sectors. */
#define BFQ_MAX_BUDGET_LIMIT_SECTORS	(SZ_1G >> SECTOR_SHIFT)

/* ioprio classes we schedule, in strict priority order. */
enum bfq_class {
	BFQ_CLASS_RT,
	BFQ_CLASS_BE,
	BFQ_CLASS_IDLE,
	BFQ_NR_CLASSES,
};

/* Where an entity is in the service layer. */
enum bfq_entity_state {
	BFQ_E_OUT,		/* on no tree: never backlogged, or forgotten */
	BFQ_E_ACTIVE,		/* backlogged, waiting on its class's tree */
	BFQ_E_IN_SERVICE,	/* taken off the tree by bfq_sched_select() */
	BFQ_E_IDLE,		/* not backlogged; timestamps kept until */
				/* the virtual time passes its finish */
};

struct bfq_sched_data;

/*
 * One schedulable thing: a process queue (a leaf) or a group of entities.
 * The service layer (bfq-wf2q.c) reads only these fields; no heuristic
 * lives here. Timestamps are virtual times in sectors / weight <<
 * BFQ_VT_SHIFT, of the level @sd. sd and parent change only through
 * bfq_entity_place(). All fields: bfq_data.lock.
 */
struct bfq_entity {
	struct rb_node rb_node;		/* on its tree's active or idle tree */
	enum bfq_entity_state state;
	struct bfq_sched_data *sd;	/* the level it is scheduled in */
	struct bfq_entity *parent;	/* the group owning @sd; NULL: root */
	struct bfq_sched_data *my_sd;	/* a group's children; NULL: a leaf */
	u64 start, finish;		/* virtual timestamps */
	u64 min_start;			/* least start in this active subtree */

	unsigned int weight;		/* in effect for the current timestamps */
	enum bfq_class class_idx;
	unsigned int new_weight;	/* applied at the next timestamp update */
	enum bfq_class new_class;

	unsigned int budget_sectors;	/* service allowed in one turn */
	unsigned int service_sectors;	/* service received in this turn */
};

/* One class's entities of one scheduling level (bfq_data.lock). */
struct bfq_service_tree {
	struct rb_root active;		/* by finish, augmented by min_start */
	struct rb_root idle;		/* by finish */
	u64 vtime;			/* the tree's virtual time */
	u64 wsum;			/* weights of backlogged entities */
	unsigned int nr_active;		/* entities on the active tree */
};

/*
 * A scheduling level: the root (bfq_data.sched) or a group's children. One
 * service tree per ioprio class, served in strict priority, except that a
 * backlogged IDLE class gets a turn once it has waited
 * BFQ_IDLE_CLASS_GRACE_MS. At most one entity is in service.
 */
struct bfq_sched_data {
	struct bfq_service_tree st[BFQ_NR_CLASSES];
	struct bfq_entity *in_service;
	unsigned long idle_class_since;	/* jiffies: IDLE served or queued */
};

struct bfq_data;

/* Kinds of weight raising (bfq-wr.c). */
enum bfq_wr_kind {
	BFQ_WR_NONE,
	BFQ_WR_INTERACTIVE,	/* a new or long idle queue: start-up */
	BFQ_WR_SOFT_RT,		/* periodic batches at a low rate */
};

/* Why a raising ended, for the bfq_wr_end tracepoint. */
enum bfq_wr_end_reason {
	BFQ_WR_END_EXPIRED,	/* its duration passed */
	BFQ_WR_END_BULK,	/* it kept the device busy like a bulk reader */
	BFQ_WR_END_OFF,		/* low_latency was written 0 */
	BFQ_WR_END_BURST,	/* its queue turned out to be in a large burst */
	BFQ_WR_END_CLASS,	/* it left the BE class */
	BFQ_WR_END_EXIT,	/* its queue is freed */
};

/* A queue's membership of the burst of queue creations (bfq-wr.c). */
enum bfq_burst_member {
	BFQ_BURST_NONE,		/* not in the current burst (or born before) */
	BFQ_BURST_MEMBER,	/* in the current burst, not large (yet) */
	BFQ_BURST_LARGE,	/* born in a large burst: for the queue's life */
};

/*
 * Low-latency state of one queue (bfq-wr.c); bfq_data.lock. Lists:
 * raised_node is on bfq_wr_data.raised while coeff > 1, burst_node on
 * bfq_wr_data.burst_members while burst == BFQ_BURST_MEMBER; neither
 * holds a reference (see the lifetime rule in bfq-wr.c).
 */
struct bfq_wr_queue {
	enum bfq_wr_kind kind;
	unsigned int coeff;		/* weight multiplier; 1: not raised */
	u64 start_ns, dur_ns;		/* the current raising */
	/* An interactive raising a soft real-time one suspends (rule 3). */
	u64 int_start_ns, int_dur_ns;	/* int_dur_ns 0: none */
	unsigned int greedy_turns;	/* raised turns at the device's pace */
	u64 paced_ns;			/* a wakee's turn time, not yet a turn */
	bool aside;			/* rule 10: unraised weight for now */
	struct list_head raised_node;

	bool seen_busy;			/* backlogged at least once */
	bool idle;			/* nothing queued nor in the device */
	u64 idle_since_ns;		/* valid while idle */
	u64 busy_since_ns;		/* start of the last busy period */
	u64 busy_sectors;		/* dispatched since busy_since_ns */
	u64 softrt_next_start_ns;	/* earliest soft real-time arrival */
	u64 period_ns;			/* mean gap of arrivals from idle */
	u64 frame_held_ns;		/* rule 9: first held for a frame */
	unsigned int softrt_batches;	/* batches in a row that kept it */

	enum bfq_burst_member burst;
	struct list_head burst_node;
};

/* Waker detection of one queue (bfq_inject_waker_observe()). */
struct bfq_waker_track {
	u64 cand_serial;		/* queue that woke it last; 0: none */
	unsigned int hits;		/* wake-ups in a row after cand */
	unsigned int misses;		/* wake-ups in a row not after waker */
};

/*
 * Injection and waker state of one queue (bfq-inject.c); bfq_data.lock.
 * waker and the wakees list hold no reference (lifetime rule in
 * bfq-inject.c).
 */
struct bfq_inject_queue {
	u64 serial;			/* unique in its device, never reused */
	unsigned int debt_sectors;	/* injected, charged at its next turn */
	unsigned int paid_sectors;	/* of it, charged at this turn's start */
	struct bfq_queue *waker;	/* whose completions wake this queue */
	struct list_head waker_node;	/* on waker->inj.wakees */
	struct list_head wakees;	/* queues this one wakes */
	struct bfq_waker_track track;
	u64 sent_ns;			/* its last dispatch (rule 4) */
};

/*
 * Early queue merge state of one queue (bfq-merge.c); bfq_data.lock.
 * members lists the processes (bfq_io_cq.member_node) whose sync queue
 * this is, without references (theirs are their sync_bfqq's); pos_node is
 * on bfq_merge_data.pos_tree while the queue has members and has seen a
 * request; stable holds one reference (lifetime rules in bfq-merge.c).
 */
struct bfq_merge_queue {
	struct list_head members;
	unsigned int nr_members;
	struct rb_node pos_node;
	sector_t pos;			/* end of its last arrival: the key */
	unsigned long last_arrival;	/* jiffies */
	unsigned long born;		/* jiffies */
	unsigned int close_hits;	/* arrivals in a row near another queue */
	struct bfq_queue *stable;	/* born with it: to be judged later */
	bool split_pending;		/* merged, turned seeky: members leave */
	int bios_queued;		/* bios in its queued requests */
	unsigned int gather_target;	/* gathering's last target; 0: none */
};

/*
 * A process's queue of sync requests, or the shared queue of async requests
 * of one (class, level). Lifetime: see "References" in bfq-iosched.c.
 */
struct bfq_queue {
	struct bfq_entity entity;
	struct bfq_data *bfqd;

	/* bfq_data.lock protects everything below. */
	int ref;
	struct list_head all_node;	/* on bfq_data.all_bfqqs, for debugfs */
	struct bfq_group *bfqg;		/* its group; NULL: the root group */
	pid_t pid;			/* creator, for debugging */
	bool sync;
	enum bfq_class ioprio_class;
	unsigned short ioprio_level;	/* 0 (highest) .. 7 */

	struct rb_root sort_list;	/* queued requests by sector */
	struct list_head fifo;		/* queued requests by arrival */
	unsigned int nr_queued;
	unsigned int nr_meta;		/* of them REQ_META: bfq_choose_rq() */
	unsigned int nr_in_driver;
	/* Requests bound to it, from bfq_bind_rq() to their finish. */
	unsigned int nr_bound;
	sector_t next_pos;		/* end of the last dispatched request */
	sector_t arrival_end;		/* end of the last arrived request */
	u32 seek_history;		/* 1 bit per arrival: far from previous */
	u8 nr_judged;			/* arrivals in it, up to 32 */
	/*
	 * Device time of its seeky requests since its last turn ended, those
	 * injected while another queue was in service included: charged when
	 * its current or next turn ends (bfq-budget.c rule 3).
	 */
	u64 turn_far_ns;

	u64 idle_expired_ns;		/* when idling for it last timed out */
	u64 last_done_ns;		/* its last completion */
	u64 think_ns;			/* mean completion-to-next-request gap */

	/* Its first turn's budget was its first request (bfq_add_request). */
	bool first_budget;
	/* Its last turn was such a first turn, used up (bfq_expire()). */
	bool first_used;
	/* In bfq_data.busy_sync: backlogged, in service or in the device. */
	bool busy;
	enum bfq_class busy_class;
	unsigned short busy_level;

	struct bfq_wr_queue wr;
	struct bfq_inject_queue inj;
	struct bfq_merge_queue merge;
};

/*
 * What a process's own queue was when it merged, restored to the queue it
 * gets when it splits off (bfq-merge.c); valid only while it is merged.
 */
struct bfq_merge_saved {
	bool valid;
	u64 think_ns;
	u32 seek_history;
	u8 nr_judged;
	sector_t arrival_end;
	bool large_burst;
	enum bfq_wr_kind wr_kind;
	unsigned int wr_coeff;
	u64 wr_start_ns, wr_dur_ns;
	u64 wr_int_start_ns, wr_int_dur_ns;	/* suspended interactive */
};

/*
 * Per process and device: blk-ioc allocates icq_size bytes and hands us the
 * embedded io_cq, so icq must stay the first member.
 */
/* bfq_io_cq.flags */
#define BFQ_BIC_TAG_WAITING	0	/* counted in bfq_data.tags.waiters */

struct bfq_io_cq {
	struct io_cq icq;
	struct bfq_queue *sync_bfqq;	/* owns one reference; bfq_data.lock */
	bool exited;			/* exit_icq ran; bfq_data.lock */
	unsigned short default_ioprio;	/* from the task's nice, at prepare */
	u64 tag_ask_ns;			/* last sync request's tag ask; lockless */
	unsigned long flags;		/* atomic bitops, lockless */
	/* On sync_bfqq->merge.members iff sync_bfqq; bfq_data.lock. */
	struct list_head member_node;
	/* jiffies: its last sync request or bio merge (bfq_merge_gather()) */
	unsigned long arrival;
	struct bfq_merge_saved saved;	/* bfq_data.lock */
};

/*
 * User tunables, in the unit of their name. Written by sysfs stores with
 * WRITE_ONCE() and read locklessly with READ_ONCE(): each is one word and
 * no two must change together.
 */
struct bfq_tunables {
	u64 slice_idle_ns;
	u64 max_budget_sectors;		/* 0: autotune */
	u64 timeout_sync_ms;
	u64 low_latency;
	u64 strict_guarantees;
	u64 back_seek_max_kib;
	u64 back_seek_penalty;
	u64 fifo_expire_sync_ms;
	u64 fifo_expire_async_ms;
};

/* Why the queue in service loses the device. */
enum bfq_expire_reason {
	BFQ_EXP_EMPTY,			/* no request left, no idling */
	BFQ_EXP_IDLE_TIMEOUT,		/* idled slice_idle in vain */
	BFQ_EXP_BUDGET,			/* the next request exceeds the budget */
	BFQ_EXP_TIMEOUT,		/* turn longer than timeout_sync */
	BFQ_EXP_PREEMPTED,		/* a higher class became backlogged */
};

/* Peak-rate estimator state (bfq-rate.c), bfq_data.lock. */
struct bfq_rate {
	u64 peak_sectors_per_sec;	/* the estimate; valid if nr_samples */
	unsigned int nr_samples;	/* accepted windows */
	u64 drain_sectors_per_sec;	/* any window's; valid if nr_drain */
	unsigned int nr_drain;		/* windows, seeky ones too */
	bool win_open;
	u64 win_start_ns;
	u64 win_busy_ns;		/* device held requests, this window */
	u64 busy_since_ns;		/* start of the current busy period */
	u64 win_sectors;		/* completed inside the window */
	unsigned int win_rqs, win_seq_rqs; /* dispatched inside the window */
	/* Far requests served alone (bfq-rate.c rule 1): out of the peak. */
	u64 win_far_ns;
	u64 win_far_sectors;
};

/*
 * bfq-rate.c rule 1: the rate at which the device empties, in sectors per
 * second: the peak rate, or while none is measured (every window seeky),
 * what windows of any kind completed; 0 while unknown.
 */
static inline u64 bfq_rate_drain(const struct bfq_rate *r)
{
	if (r->nr_samples)
		return r->peak_sectors_per_sec;
	return r->nr_drain ? r->drain_sectors_per_sec : 0;
}

/*
 * Whether moving the head costs the device time (bfq_rate_seek_costly()):
 * the mean service time of requests the device served alone, by size
 * class (log2 of sectors) and by distance from the previous request (near
 * or far). bfq_data.lock.
 */
#define BFQ_SEEK_NR_SIZES	12
struct bfq_seek_cost {
	u32 near_ns[BFQ_SEEK_NR_SIZES], far_ns[BFQ_SEEK_NR_SIZES];
	u16 near_n[BFQ_SEEK_NR_SIZES], far_n[BFQ_SEEK_NR_SIZES];
	u16 known, costly;		/* size classes with a verdict */
	sector_t last_end;		/* of the last request dispatched */
	bool solo;			/* one request in the device, timed */
	bool solo_far;
	u8 solo_size;
	u64 solo_start_ns;
};

/*
 * The burst of queue creations, as plain values (bfq_wr_burst_birth()):
 * births less than BFQ_BURST_WINDOW_MS apart belong to one burst.
 */
struct bfq_burst {
	u64 last_birth_ns;
	unsigned int size;		/* births in the burst; 0: none yet */
	bool large;
};

/* Per device low-latency state (bfq-wr.c), bfq_data.lock. */
struct bfq_wr_data {
	struct bfq_burst burst;
	struct list_head burst_members;	/* of a burst that is not large */
	struct list_head raised;	/* queues with wr.coeff > 1 */
	unsigned int nr_raised;
	u64 app_io_ns;	/* last arrival or completion, latest start-up */
	u64 latest_from_ns;	/* raisings begun since: the latest start-up */
	u64 raised_io_ns;	/* the same, any raised queue; lock-free reads */
	u64 softrt_io_ns;	/* the same, any soft real-time queue */
	u64 async_sent_ns;	/* the latest async dispatch, for rule 9 */
	unsigned int async_sent_sectors;	/* its size */
};

/* The injection limit's feedback loop (bfq_inject_feedback()). */
struct bfq_inject_learn {
	u64 base_ns;			/* a probe's wait, nothing injected */
	u64 base_at_ns;			/* when base_ns was last sampled */
	unsigned int limit;		/* injected requests in the device */
	u64 zero_since_ns;		/* limit became 0 then */
	unsigned int zero_falls;	/* falls to 0 since the last rise */
};

/*
 * Rule 4 of bfq-inject.c: one queue's completions in a row, none of
 * another queue's between them.
 */
struct bfq_inject_done {
	struct bfq_queue *bfqq;		/* NULL: none, or the queue was freed */
	u64 first_ns, last_ns;		/* its first and last completion */
	u64 sent_ns;			/* the queue's last dispatch at last_ns */
};

/* Rule 4: the runs of completions a wake-up is matched against. */
#define BFQ_WAKER_RUNS		4

/*
 * Per device injection state (bfq-inject.c), bfq_data.lock. The pointers
 * hold no reference: done[].bfqq is cleared when its queue is freed,
 * probe_rq when its request is.
 */
struct bfq_inject_data {
	struct bfq_inject_learn learn;
	unsigned int in_driver;		/* injected requests in the device */
	u64 next_serial;
	/* The latest runs of completions; done[done_last] the newest. */
	struct bfq_inject_done done[BFQ_WAKER_RUNS];
	unsigned int done_last;
	struct request *probe_rq;	/* the request idled for, timed */
	u64 probe_sent_ns;		/* its dispatch; 0: not yet */
	bool probe_injected;		/* injected requests were ahead of it */
	u64 nr_injected, nr_for_wakers;	/* requests, for debugfs */
	u64 nr_swept;			/* rule 6's requests, for debugfs */
};

/*
 * The disk's independent access ranges (actuators), rule 5 of
 * bfq-inject.c; read when bfq is selected on the disk. bfq_data.lock.
 */
#define BFQ_MAX_RANGES		8
struct bfq_ranges {
	unsigned int nr;		/* 0: none reported (one actuator) */
	sector_t end[BFQ_MAX_RANGES];	/* first sector past each range */
	unsigned int in_driver[BFQ_MAX_RANGES];	/* requests in the device */
	u64 nr_injected;		/* for debugfs */
};

/* Per device early queue merge state (bfq-merge.c), bfq_data.lock. */
struct bfq_merge_data {
	struct rb_root pos_tree;	/* queues by merge.pos */
	struct bfq_queue *stable_head;	/* first of the births going on; */
	unsigned long stable_last;	/* no reference, cleared at its free */
	u64 nr_merges, nr_splits;	/* for debugfs */
	struct hrtimer gather_timer;	/* gathering: dispatch again */
};

/*
 * The shape of the busy groups that are not the root group (rule 13 of
 * bfq-cgroup.c): their weights and busy sync queue counts summed, and
 * summed squared, and the number of them that are the root's children.
 */
struct bfq_busy_groups {
	u64 weight_sum, weight_sq_sum;
	u64 sync_sum, sync_sq_sum;
	unsigned int root_children;
};

/*
 * The scheduler-tag policy's state (bfq-tags.c), read by the allocation
 * path without bfq_data.lock; root_held and last_group written under it.
 */
struct bfq_tags_data {
	/*
	 * Computed from nr, the nr_requests they were computed for
	 * (bfq_tags_set_depths()).
	 */
	unsigned int nr;
	unsigned int async_depth;
	unsigned int sync_write_depth;
	unsigned int shared_depth;	/* tags left to most sync reads */
	atomic_t waiters;		/* bics with BFQ_BIC_TAG_WAITING */
	atomic_t nr_tagged;		/* prepared requests: tags held */
	atomic_t nr_async_tagged;	/* of them, async */
	atomic_t nr_write_tagged;	/* of them, sync writes */
	u64 groups_io_ns;		/* last insert after another group's */
	unsigned int root_held;		/* the root group's bfq_group.tags_held */
	const struct bfq_group *last_group;	/* compared, never read */
	u64 newcomer_ask_ns;		/* a process with no queue waits: 0, none */
	/* The waker of the queue in service (rule 2): compared, never read. */
	const struct bfq_queue *served_waker;
};

/* Per device (request queue) scheduler state. */
struct bfq_data {
	struct request_queue *queue;
	struct bfq_tunables tun;

	struct bfq_tags_data tags;
	unsigned int driver_depth;	/* requests the device takes at once */

	spinlock_t lock;		/* irq-safe: finish_request may be hardirq */
	struct hrtimer idle_timer;	/* slice_idle; its callback takes lock */
	bool idling;			/* idle_timer armed for in_service_bfqq */
	bool parked;			/* in_service_bfqq emptied, none waits */
	unsigned int rq_in_driver;	/* dispatched, not finished */
	unsigned int async_in_driver;	/* their sectors, of async queues */
	u64 async_off_until_ns;		/* the bound on them is off till then */
	unsigned long async_bound_offs;	/* times it was turned off */
	unsigned int async_slow_run;	/* slow ones under it, in a row */
	bool hw_queueing;		/* device seen holding several requests */
	bool kick_on_finish;		/* dispatch held back for a completion */
	bool dispatch_refused;		/* last dispatch: none while rqs waited */
	struct bfq_rate rate;
	struct bfq_seek_cost seek;
	struct bfq_wr_data wr;
	struct bfq_inject_data inj;
	struct bfq_ranges ranges;
	struct bfq_merge_data merge;
	/*
	 * Busy sync queues per (class, level) and the number of such pairs
	 * in use: one pair means the active queues are symmetric.
	 */
	unsigned int busy_sync[BFQ_NR_CLASSES][IOPRIO_NR_LEVELS];
	unsigned int busy_kinds;
	unsigned int busy_sync_nr;	/* their sum */
	/*
	 * Groups (the root one included) holding busy sync queues, and the
	 * root group's count of them: more than one group means asymmetry
	 * unless the groups are alike (bfq_cg_alike(),
	 * busy_group_sums).
	 */
	unsigned int busy_groups;
	unsigned int root_busy_sync;
	struct bfq_busy_groups busy_group_sums;
	struct bfq_sched_data sched;
	struct list_head dispatch_head;	/* at-head inserts, served first */
	struct bfq_queue *in_service_bfqq; /* its entity is sched.in_service */
	unsigned long turn_deadline;	/* jiffies: budget timeout */
	/*
	 * When the turn in service began, moved on by the time it was
	 * parked: the time it held the device for (bfq_waker_time_charge()).
	 */
	u64 turn_start_ns;
	u64 parked_ns;			/* when the parked turn was parked */
	/*
	 * The time the device idled for the queue in service this turn,
	 * and when the current idle slice began (rule 2 of bfq-budget.c).
	 */
	u64 turn_idle_ns;
	u64 idle_start_ns;
	unsigned int nr_queued;		/* requests in queues + dispatch_head */
	unsigned int nr_bfqqs;		/* allocated queues, leak check */
	struct list_head all_bfqqs;	/* the allocated queues, for debugfs */
	struct bfq_queue *async_bfqq[BFQ_NR_CLASSES][IOPRIO_NR_LEVELS];
	struct bfq_queue fallback_bfqq;	/* when allocation fails; never freed */
	struct bfq_queue *merge_bfqq;	/* bio_merge -> request_merge hand-off */
	/* bio_merge -> request(s)_merged: was the bio counted, where is it. */
	bool bio_counted;
	struct request *bio_merged_into;
};

/* bfq-iosched.c, for the other files. bfq_data.lock. */
void bfq_get_queue(struct bfq_queue *bfqq);
void bfq_put_queue(struct bfq_queue *bfqq);
bool bfq_queue_reparent(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			struct bfq_group *to);
struct request *bfq_queued_from(struct bfq_queue *bfqq, sector_t pos,
				struct request **behind);
void bfq_end_parked_turn(struct bfq_data *bfqd, struct bfq_queue *bfqq);
void bfq_move_queued(struct bfq_data *bfqd, struct bfq_queue *from,
		     struct bfq_queue *to);
unsigned int bfq_max_budget(struct bfq_data *bfqd);
bool bfq_symmetric(struct bfq_data *bfqd, struct bfq_queue *bfqq);
bool bfq_async_bound_on(const struct bfq_data *bfqd, u64 now_ns);
struct io_cq *bfq_current_icq_hint(struct request_queue *q);

static inline struct bfq_io_cq *icq_to_bic(struct io_cq *icq)
{
	return icq ? container_of(icq, struct bfq_io_cq, icq) : NULL;
}

/*
 * The lock-free readers of a process's queue (bfq_limit_depth(),
 * bfq_bio_merge()) run under rcu_read_lock() and rely on the queue cache's
 * SLAB_TYPESAFE_BY_RCU; with CONFIG_BFQ_DEBUG_QUEUE_FREE (an ordinary
 * cache, so that KASAN sees a queue used after its free) they take
 * bfq_data.lock instead.
 */
#ifdef CONFIG_BFQ_DEBUG_QUEUE_FREE
static inline void bfq_lockless_lock(struct bfq_data *bfqd,
				     unsigned long *flags)
	__acquires(&bfqd->lock)
{
	spin_lock_irqsave(&bfqd->lock, *flags);
}

static inline void bfq_lockless_unlock(struct bfq_data *bfqd,
				       unsigned long flags)
	__releases(&bfqd->lock)
{
	spin_unlock_irqrestore(&bfqd->lock, flags);
}
#else
/* The production build: the reads stay lock-free. */
static inline void bfq_lockless_lock(struct bfq_data *bfqd,
				     unsigned long *flags)
{
}

static inline void bfq_lockless_unlock(struct bfq_data *bfqd,
				       unsigned long flags)
{
}
#endif

/* bfq-tags.c: the scheduler-tag policy. Lock-free unless said. */
void bfq_tags_count_group(struct bfq_data *bfqd, struct bfq_group *bfqg,
			  bool up);	/* bfq_data.lock */
void bfq_tags_wake_marked(struct bfq_data *bfqd, struct blk_mq_hw_ctx *hctx);
void bfq_limit_depth(blk_opf_t opf, struct blk_mq_alloc_data *data);
int bfq_init_hctx(struct blk_mq_hw_ctx *hctx, unsigned int hctx_idx);

/*
 * Rule 1 of bfq-tags.c: the kinds of request whose tags are counted, and
 * the count of each. A request's kind is taken at prepare and kept with
 * it (bfq-iosched.c's request state), not read again at finish: the block
 * layer changes rq->cmd_flags in between (a cached plug request takes the
 * flags of the bio that uses it; the flush machinery sets REQ_SYNC).
 */
enum bfq_tag_kind {
	BFQ_TAG_READ,		/* not counted */
	BFQ_TAG_SYNC_WRITE,
	BFQ_TAG_ASYNC,
};

static inline enum bfq_tag_kind bfq_tag_kind_of(blk_opf_t opf)
{
	if (!op_is_sync(opf))
		return BFQ_TAG_ASYNC;
	return op_is_write(opf) ? BFQ_TAG_SYNC_WRITE : BFQ_TAG_READ;
}

static inline atomic_t *bfq_tags_held(struct bfq_data *bfqd,
				      enum bfq_tag_kind kind)
{
	switch (kind) {
	case BFQ_TAG_SYNC_WRITE:
		return &bfqd->tags.nr_write_tagged;
	case BFQ_TAG_ASYNC:
		return &bfqd->tags.nr_async_tagged;
	default:
		return NULL;
	}
}

/* A request of @kind we prepared holds a scheduler tag until its finish. */
static inline void bfq_tags_taken(struct bfq_data *bfqd,
				  enum bfq_tag_kind kind)
{
	atomic_t *held = bfq_tags_held(bfqd, kind);

	atomic_inc(&bfqd->tags.nr_tagged);
	if (held)
		atomic_inc(held);
}

static inline void bfq_tags_given_back(struct bfq_data *bfqd,
				       enum bfq_tag_kind kind)
{
	atomic_t *held = bfq_tags_held(bfqd, kind);

	atomic_dec(&bfqd->tags.nr_tagged);
	if (held)
		atomic_dec(held);
}

/*
 * Whether the other queues' requests (queued, in the device, or just
 * allocated) hold every scheduler tag: then the process of @bfqq, which
 * has nothing queued, cannot send its next request until one of theirs
 * completes, and the device would idle for it in vain. Its own requests in
 * the device do not count: their tags come back to it. Nor do its waker's
 * (bfq-inject.c rule 4), queued or in the device: they are what its
 * process waits for, dispatched at once while the device idles for it, so
 * their tags come back before its next request: on a one-request
 * device, a journal write that takes the last tag beside a reader's
 * request is the next thing to serve for the fsync-ing process idled
 * for, not a reason to give its turn away. Counted against one hardware
 * queue's tags (nr_requests): devices with one, like disks, are where
 * idling matters; with several (null_blk adds a poll queue), it errs
 * towards not idling once that many requests exist. Called with
 * bfq_data.lock held.
 */
static inline bool bfq_tags_exhausted(struct bfq_data *bfqd,
				      struct bfq_queue *bfqq)
{
	const struct bfq_queue *waker = bfqq->inj.waker;
	int held = atomic_read(&bfqd->tags.nr_tagged) - (int)bfqq->nr_in_driver;

	if (waker)
		held -= (int)(waker->nr_queued + waker->nr_in_driver);
	return held >= (int)bfqd->queue->nr_requests;
}

/*
 * Rule 4 of bfq-tags.c: @bic's process has its tag, or is gone. Inline,
 * like bfq_tags_wake_waiters(): at every request, mostly unmarked.
 */
static inline void bfq_tags_waited(struct bfq_data *bfqd,
				   struct bfq_io_cq *bic)
{
	if (test_bit(BFQ_BIC_TAG_WAITING, &bic->flags) &&
	    test_and_clear_bit(BFQ_BIC_TAG_WAITING, &bic->flags))
		atomic_dec(&bfqd->tags.waiters);
}

/*
 * Rule 4 of bfq-tags.c: a request we prepared is about to give back its
 * tag; while a process the kept tags are for may wait (a bic marked, or a
 * newcomer's ask), bfq_tags_wake_marked() sees whether one does. Inline:
 * at every finish, mostly to find neither.
 */
static inline void bfq_tags_wake_waiters(struct bfq_data *bfqd,
					 struct blk_mq_hw_ctx *hctx)
{
	if (atomic_read(&bfqd->tags.waiters) ||
	    READ_ONCE(bfqd->tags.newcomer_ask_ns))
		bfq_tags_wake_marked(bfqd, hctx);
}

/*
 * Rule 2 of bfq-tags.c: the queue in service, or its waker, changed. Under
 * bfq_data.lock; read lock-free, as a pointer compared only.
 */
static inline void bfq_tags_served_changed(struct bfq_data *bfqd)
{
	struct bfq_queue *cur = bfqd->in_service_bfqq;

	WRITE_ONCE(bfqd->tags.served_waker, cur ? cur->inj.waker : NULL);
}

/*
 * Rule 1 of bfq-tags.c: with at most this many scheduler tags (a device
 * of one or two requests) the writes' share is counted rather than a
 * prefix of the tag map. Also where a queue with a waker pays its turn's
 * time (rule 4 of bfq-budget.c).
 */
#define BFQ_TAGS_FEW			4

/* bfq-sysfs.c: the elevator's attributes, the tunables. */
extern struct elv_fs_entry bfq_attrs[];

/* bfq-debugfs.c: the elevator's debugfs files. */
#ifdef CONFIG_BLK_DEBUG_FS
extern const struct blk_mq_debugfs_attr bfq_queue_debugfs_attrs[];
#endif

/*
 * A queue is seeky if more than this many of its last 32 arrivals were
 * far from the one before; a queue with fewer than 32 arrivals judged,
 * if more than the same fraction of them were, once it has at least
 * BFQ_SEEKY_MIN_JUDGED. The young queue's rule: waiting for nine far
 * arrivals idled the device for each new random reader's first nine
 * requests, a slice each, and 32 database workers starting together on a
 * disk waited seconds for it (the lab's exp4, 2026-12-07). Four arrivals
 * of which two are far is no sequential reader's start (one far jump
 * from its metadata to its data is allowed).
 */
#define BFQ_SEEKY_ARRIVALS	8
#define BFQ_SEEKY_MIN_JUDGED	4

static __always_inline bool bfq_seeky(const struct bfq_queue *bfqq)
{
	unsigned int far = hweight32(bfqq->seek_history);

	if (far > BFQ_SEEKY_ARRIVALS)
		return true;
	return bfqq->nr_judged >= BFQ_SEEKY_MIN_JUDGED &&
	       bfqq->nr_judged < 32 &&
	       far * 32 > BFQ_SEEKY_ARRIVALS * bfqq->nr_judged;
}

/*
 * Whether @bfqq's last two arrivals were both far: a queue sequential so
 * far (not yet seeky) that now jumps from place to place, as a process
 * reading one small file after another does once a large file ends. Its
 * next request is no cheaper to serve than another queue's: idling for
 * it on that ground (bfq_should_idle()) kept its turn for eight small
 * files in a row, until it counted as seeky, and it then waited seconds
 * for the others to catch up (the lab's exp3, 2026-12-07). One far
 * arrival alone is a reader starting its next file, whose next request
 * is near. (A queue's first arrival is judged near: two far bits mean
 * three arrivals at least.)
 */
static inline bool bfq_jumping(const struct bfq_queue *bfqq)
{
	return (bfqq->seek_history & 3) == 3;
}

/* bfq-wf2q.c: the service layer. Every call needs bfq_data.lock. */
#define BFQ_VT_SHIFT		22
#define BFQ_IDLE_CLASS_GRACE_MS	200

void bfq_sched_init(struct bfq_sched_data *sd);
void bfq_entity_init(struct bfq_entity *entity, unsigned int weight,
		     enum bfq_class class_idx);
void bfq_entity_init_group(struct bfq_entity *entity, unsigned int weight,
			   enum bfq_class class_idx,
			   struct bfq_sched_data *my_sd);
void bfq_entity_place(struct bfq_entity *entity, struct bfq_sched_data *sd,
		      struct bfq_entity *parent);
void bfq_entity_set_prio(struct bfq_entity *entity, unsigned int weight,
			 enum bfq_class class_idx);
void bfq_entity_reweight(struct bfq_entity *entity);
void bfq_entity_activate(struct bfq_entity *entity);
void bfq_entity_rejoin(struct bfq_entity *entity, unsigned int max_lag);
void bfq_entity_deactivate(struct bfq_entity *entity);
struct bfq_entity *bfq_sched_select(struct bfq_sched_data *root,
				    unsigned long now);
struct bfq_entity *bfq_sched_peek(const struct bfq_sched_data *root,
				  enum bfq_class max_class);
void bfq_entity_expire(struct bfq_entity *entity, unsigned int charge_sectors,
		       bool backlogged);
void bfq_entity_forget(struct bfq_entity *entity);
bool bfq_sched_busy(const struct bfq_sched_data *sd);
bool bfq_sched_higher_class_waits(const struct bfq_sched_data *root);
unsigned int bfq_entity_ioprio_weight(unsigned int level);

/* bfq-budget.c: budget feedback and turn charges. */
unsigned int bfq_budget_on_busy(unsigned int max_budget, unsigned int budget,
				bool sync, bool served, unsigned int rq_sectors,
				bool far_after_first, bool *first);
unsigned int bfq_budget_after_first(unsigned int max_budget,
				    unsigned int served, bool far);
unsigned int bfq_budget_next(unsigned int max_budget, unsigned int budget,
			     unsigned int served, enum bfq_expire_reason why);
unsigned int bfq_budget_charge(unsigned int timeout_charge, unsigned int served,
			       enum bfq_expire_reason why, bool streamed,
			       unsigned int idle_charge);
bool bfq_budget_streamed(unsigned int served, unsigned int busy_charge);
unsigned int bfq_budget_time_charge(u64 ns, unsigned int max_budget,
				    unsigned int timeout_ms);

/* bfq-rate.c: the peak rate and seek cost estimators. bfq_data.lock. */
void bfq_rate_dispatched(struct bfq_rate *r, u64 now_ns, bool seq,
			 unsigned int in_driver);
void bfq_rate_far_served(struct bfq_rate *r, u64 ns, unsigned int sectors);
void bfq_rate_completed(struct bfq_rate *r, u64 now_ns, unsigned int sectors,
			unsigned int in_driver);
void bfq_rate_requeued(struct bfq_rate *r, u64 now_ns, unsigned int in_driver);
void bfq_rate_redispatched(struct bfq_rate *r, u64 now_ns,
			   unsigned int in_driver);
unsigned int bfq_rate_auto_budget(const struct bfq_rate *r, u64 timeout_ms);
void bfq_rate_seek_dispatched(struct bfq_seek_cost *sc, u64 now_ns, sector_t pos,
			      unsigned int sectors, unsigned int in_driver);
u64 bfq_rate_seek_completed(struct bfq_seek_cost *sc, u64 now_ns,
			    unsigned int in_driver);
void bfq_rate_seek_cancel(struct bfq_seek_cost *sc);
bool bfq_rate_seek_costly(const struct bfq_seek_cost *sc);
u64 bfq_rate_seek_far_ns(const struct bfq_seek_cost *sc, unsigned int sectors);

/*
 * A think time sample (bfq_queue.think_ns) is capped at this many idle
 * slices: a process that pauses once between two phases of its work
 * (opening the next file, waiting for input) must not pass for a slow
 * thinker for long.
 */
#define BFQ_THINK_SAMPLE_SLICES	2
/*
 * The longest idle slice for an interactively raised queue (bfq_idle_slice()):
 * its mean think time and a quarter again, if that is at most this many
 * slices; past it, the device idles one slice, and the queue's next
 * request usually comes after the slice (bfq_wr_pauses_long()).
 */
#define BFQ_IDLE_WR_SLICES	BFQ_THINK_SAMPLE_SLICES

/* Whether @think_ns is past what an interactive queue's idle slice covers. */
static inline bool bfq_wr_pauses_long(u64 think_ns, u64 slice_ns)
{
	return think_ns + think_ns / 4 > slice_ns * BFQ_IDLE_WR_SLICES;
}

/* bfq-wr.c: weight raising and bursts (low_latency). bfq_data.lock. */
struct bfq_wr_arrival {
	bool new_queue;			/* never backlogged before */
	bool was_idle;			/* idle since idle_since_ns */
	bool large_burst;		/* born in a large burst */
	bool interactive;		/* raised as interactive, not lapsed */
	bool pauses_long;		/* bfq_wr_pauses_long() */
	u64 now_ns, idle_since_ns;
	unsigned int softrt_batches;	/* this one included, if on time */
};

enum bfq_burst_step {
	BFQ_BURST_STARTED,		/* the birth starts a new burst */
	BFQ_BURST_JOINED,		/* it joins a burst, not large */
	BFQ_BURST_TURNED_LARGE,		/* it makes the burst large */
	BFQ_BURST_IN_LARGE,		/* it joins a large burst */
};

u64 bfq_wr_duration_ns(u64 peak_sectors_per_sec);
u64 bfq_wr_softrt_next_start_ns(u64 busy_since_ns, u64 busy_sectors,
				u64 idle_at_ns, u64 min_gap_ns);
unsigned int bfq_wr_softrt_batches(unsigned int batches, bool was_idle,
				   u64 now_ns, u64 next_start_ns);
enum bfq_wr_kind bfq_wr_choose(const struct bfq_wr_arrival *a);
bool bfq_wr_coeff_preempts(unsigned int new_coeff,
			   unsigned int in_service_coeff, bool same_class);
unsigned int bfq_wr_greedy_turns(unsigned int turns,
				 enum bfq_expire_reason why,
				 unsigned int served, unsigned int max_budget);
unsigned int bfq_wr_bulk_turns(u64 dur_ns, unsigned int timeout_ms);
bool bfq_wr_aside(const struct bfq_wr_queue *wr, u64 latest_from_ns,
		  bool latest_reads);
enum bfq_burst_step bfq_wr_burst_birth(struct bfq_burst *b, u64 now_ns);

void bfq_wr_init(struct bfq_data *bfqd);
void bfq_wr_queue_init(struct bfq_queue *bfqq);
void bfq_wr_queue_born(struct bfq_data *bfqd, struct bfq_queue *bfqq,
		       u64 now_ns);
void bfq_wr_queue_exit(struct bfq_data *bfqd, struct bfq_queue *bfqq);
void bfq_wr_backlogged(struct bfq_data *bfqd, struct bfq_queue *bfqq,
		       u64 now_ns, u64 asked_ns, bool read);
void bfq_wr_dispatched(struct bfq_queue *bfqq, unsigned int sectors);
void bfq_wr_went_idle(struct bfq_data *bfqd, struct bfq_queue *bfqq,
		      u64 now_ns);
void bfq_wr_selected(struct bfq_data *bfqd, struct bfq_queue *bfqq,
		     u64 now_ns);
void bfq_wr_paced(struct bfq_data *bfqd, struct bfq_queue *bfqq,
		  u64 turn_ns);
void bfq_wr_expired(struct bfq_data *bfqd, struct bfq_queue *bfqq,
		    enum bfq_expire_reason why, unsigned int served,
		    unsigned int max_budget, u64 now_ns);
void bfq_wr_end_all(struct bfq_data *bfqd);
bool bfq_wr_needs_idling(struct bfq_data *bfqd, const struct bfq_queue *bfqq,
			 u64 now_ns);
bool bfq_wr_yields(struct bfq_data *bfqd, const struct bfq_queue *bfqq,
		   u64 now_ns);
bool bfq_wr_holds_back_busy(struct bfq_data *bfqd,
			    const struct bfq_queue *bfqq, u64 now_ns);
u64 bfq_wr_async_paced(struct bfq_data *bfqd, const struct bfq_queue *bfqq,
		       u64 now_ns);
bool bfq_wr_frame_exempt(struct bfq_data *bfqd, const struct bfq_queue *bfqq);
u64 bfq_wr_frame_wait(struct bfq_data *bfqd, const struct bfq_queue *bfqq,
		      unsigned int sectors, u64 now_ns);
bool bfq_wr_tag_reserve(struct bfq_data *bfqd, const struct bfq_queue *bfqq,
			u64 now_ns);
/*
 * Whether the low-latency rules of bfq-wr.c apply (low_latency 1): with
 * it off no queue is raised, and bfq_wr_tag_reserve() names none.
 */
static inline bool bfq_wr_enabled(const struct bfq_data *bfqd)
{
	return READ_ONCE(bfqd->tun.low_latency);
}

bool bfq_wr_newcomer_raisable(struct bfq_data *bfqd, u64 now_ns);
bool bfq_wr_preempts_queue(struct bfq_data *bfqd, const struct bfq_queue *bfqq,
			   const struct bfq_queue *cur);
bool bfq_wr_in_large_burst(struct bfq_data *bfqd,
			   const struct bfq_queue *bfqq);
/*
 * bfq-wr.c rule 10: whether @bfqq is raised as an application starting
 * with the latest start-up (at most BFQ_WR_TOGETHER_MS before it).
 */
static inline bool bfq_wr_of_latest_startup(const struct bfq_data *bfqd,
					    const struct bfq_queue *bfqq)
{
	return bfqq->wr.kind == BFQ_WR_INTERACTIVE && bfqq->wr.coeff > 1 &&
	       bfqq->wr.start_ns >= bfqd->wr.latest_from_ns;
}

/*
 * bfq-wr.c: @bfqq had an arrival or a completion at @now_ns (for the
 * latest start-up, see bfq_wr_holds_back(); any raised one keeps tags).
 * Inline: the life cycle calls it at every arrival and completion, and
 * only a raised queue has anything to note.
 */
static inline void bfq_wr_raised_io(struct bfq_data *bfqd,
				    const struct bfq_queue *bfqq, u64 now_ns)
{
	if (bfqq->wr.coeff == 1)
		return;
	/* Read by bfq_tags_kept() without the lock. */
	WRITE_ONCE(bfqd->wr.raised_io_ns, now_ns);
	if (bfq_wr_of_latest_startup(bfqd, bfqq))
		bfqd->wr.app_io_ns = now_ns;
	else if (bfqq->wr.kind == BFQ_WR_SOFT_RT)
		bfqd->wr.softrt_io_ns = now_ns;
}

/*
 * bfq-wr.c rule 3: if @bfqq has nothing queued, nothing in the device and
 * is not in service (or is, parked: bfq-iosched.c's bfq_park()), its busy
 * period ended at @now_ns. Called where each of those may become true:
 * expiry, request removal, completion, parking. Inline: completion and
 * parking both ask, and at most one of them finds the queue idle.
 */
static inline void bfq_wr_maybe_idle(struct bfq_data *bfqd,
				     struct bfq_queue *bfqq, u64 now_ns)
{
	lockdep_assert_held(&bfqd->lock);

	if (!bfqq->sync || bfqq->wr.idle || bfqq->nr_queued ||
	    bfqq->nr_in_driver ||
	    (bfqq == bfqd->in_service_bfqq && !bfqd->parked))
		return;
	bfq_wr_went_idle(bfqd, bfqq, now_ns);
}

/*
 * bfq-wr.c rule 9: whether a request of @bfqq must wait for the device to
 * empty because an application starting reads between its own requests,
 * or a player's next frame is near, at @now_ns (the dispatch's clock
 * reading). Inline: every dispatch asks, and an empty device or a soft
 * real-time queue's request never waits.
 */
static inline bool bfq_wr_holds_back(struct bfq_data *bfqd,
				     const struct bfq_queue *bfqq, u64 now_ns)
{
	lockdep_assert_held(&bfqd->lock);

	if (!bfqd->rq_in_driver || bfqq->wr.kind == BFQ_WR_SOFT_RT)
		return false;
	return bfq_wr_holds_back_busy(bfqd, bfqq, now_ns);
}

/*
 * bfq-wr.c rule 9: an async request of @sectors went to the device at
 * @now_ns (bfq_wr_async_paced() spaces the next while an application
 * starts). Inline and two stores: it runs at every async dispatch.
 */
static inline void bfq_wr_async_sent(struct bfq_data *bfqd,
				     unsigned int sectors, u64 now_ns)
{
	bfqd->wr.async_sent_ns = now_ns;
	bfqd->wr.async_sent_sectors = sectors;
}

/* Whether @bfqq was born in a large burst, whatever low_latency says now. */
static inline bool bfq_wr_born_in_large_burst(const struct bfq_queue *bfqq)
{
	return bfqq->wr.burst == BFQ_BURST_LARGE;
}

u64 bfq_wr_left_ms(const struct bfq_queue *bfqq, u64 now_ns);

/* bfq-inject.c: injection and wakers (low_latency). bfq_data.lock. */
enum bfq_waker_step {
	BFQ_WAKER_SAME,			/* nothing changes */
	BFQ_WAKER_FOUND,		/* the candidate becomes the waker */
	BFQ_WAKER_LOST,			/* the waker stopped waking it */
};

unsigned int bfq_inject_limit(struct bfq_inject_learn *l, u64 now_ns);
bool bfq_inject_waker_could_wake(u64 now_ns, u64 done_ns, u64 sent_ns,
				 u64 own_done_ns);

void bfq_inject_init(struct bfq_data *bfqd);
void bfq_inject_queue_init(struct bfq_data *bfqd, struct bfq_queue *bfqq);
void bfq_inject_queue_exit(struct bfq_data *bfqd, struct bfq_queue *bfqq);
void bfq_inject_woken(struct bfq_data *bfqd, struct bfq_queue *bfqq,
		      struct request *rq, u64 asked_ns);
void bfq_inject_probe_sent(struct bfq_data *bfqd, struct request *rq,
			   u64 now_ns);
bool bfq_inject_other_done(struct bfq_data *bfqd, struct bfq_queue *a,
			   struct bfq_queue *b, u64 now_ns, u64 horizon_ns);
struct bfq_queue *bfq_inject_pick(struct bfq_data *bfqd,
				  struct bfq_queue *cur, u64 now_ns,
				  bool symmetric);
void bfq_inject_dispatched(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			   struct bfq_queue *cur, unsigned int sectors);
void bfq_inject_completed(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			  struct request *rq, bool injected, u64 now_ns);
void bfq_inject_forget_rq(struct bfq_data *bfqd, struct request *rq);
unsigned int bfq_inject_take_debt(struct bfq_queue *bfqq, unsigned int budget);
void bfq_inject_ranges_init(struct bfq_ranges *r, struct gendisk *disk);
unsigned int bfq_inject_range_of(const struct bfq_ranges *r, sector_t pos);
struct request *bfq_inject_range_pick(struct bfq_data *bfqd,
				      struct bfq_queue *cur,
				      unsigned int busy_range, u64 now_ns,
				      struct bfq_queue **bfqqp);
void bfq_inject_range_dispatched(struct bfq_data *bfqd,
				 struct bfq_queue *bfqq, unsigned int sectors);
u64 bfq_inject_sweep_key(sector_t head, sector_t pos);
struct request *bfq_inject_sweep_pick(struct bfq_data *bfqd,
				      struct bfq_queue *cur,
				      struct request *rq, u64 now_ns,
				      struct bfq_queue **bfqqp);
void bfq_inject_swept(struct bfq_data *bfqd, struct bfq_queue *bfqq,
		      unsigned int sectors);

/* Rule 4: @bfqq dispatched a request at @now_ns (what a waiter waits for). */
static inline void bfq_inject_note_sent(struct bfq_queue *bfqq, u64 now_ns)
{
	bfqq->inj.sent_ns = now_ns;
}

/* An injected request came back from the driver: it is no longer there. */
static inline void bfq_inject_requeued(struct bfq_data *bfqd)
{
	bfqd->inj.in_driver--;
}

void bfq_wr_save(const struct bfq_queue *bfqq, struct bfq_merge_saved *s);
void bfq_wr_restore(struct bfq_data *bfqd, struct bfq_queue *bfqq,
		    const struct bfq_merge_saved *s, u64 now_ns);
void bfq_wr_merge(struct bfq_data *bfqd, struct bfq_queue *to,
		  const struct bfq_queue *from, u64 now_ns);

/* bfq-merge.c: early queue merge and split. bfq_data.lock. */
enum bfq_merge_why {
	BFQ_MERGE_CLOSE,		/* its requests land next to another's */
	BFQ_MERGE_STABLE,		/* born together, kept close */
};

enum bfq_split_why {
	BFQ_SPLIT_SEEKY,		/* the merged queue turned seeky */
	BFQ_SPLIT_IOPRIO,		/* the process changed its ioprio */
	BFQ_SPLIT_OFF,			/* coop_merge was set to 0 */
};

void bfq_merge_init(struct bfq_data *bfqd);
void bfq_merge_exit(struct bfq_data *bfqd);
bool bfq_merge_gathering(struct bfq_data *bfqd);
void bfq_merge_count_bios(struct bfq_queue *bfqq, struct request *rq,
			  int sign);
bool bfq_merge_gather(struct bfq_data *bfqd, struct bfq_queue *bfqq,
		      u64 now_ns);
struct request *bfq_merge_laggard(struct bfq_queue *bfqq);
bool bfq_merge_gathered(const struct bfq_queue *bfqq);
void bfq_merge_member_active(struct bfq_io_cq *bic);
void bfq_merge_queue_init(struct bfq_queue *bfqq);
void bfq_merge_queue_exit(struct bfq_data *bfqd, struct bfq_queue *bfqq);
void bfq_merge_join(struct bfq_data *bfqd, struct bfq_io_cq *bic,
		    struct bfq_queue *bfqq, bool split, u64 now_ns);
void bfq_merge_leave(struct bfq_data *bfqd, struct bfq_io_cq *bic);
void bfq_merge_keep(struct bfq_io_cq *bic);
bool bfq_merge_must_split(const struct bfq_queue *bfqq,
			  enum bfq_class class_idx, unsigned short level,
			  enum bfq_split_why *why);
struct bfq_queue *bfq_merge_arrival(struct bfq_data *bfqd,
				    struct bfq_io_cq *bic,
				    struct bfq_queue *bfqq, sector_t pos,
				    unsigned int sectors);

/* A bio joined a queued request of @bfqq (gathering counts the pieces). */
static inline void bfq_merge_bio_queued(struct bfq_queue *bfqq)
{
	bfqq->merge.bios_queued++;
}

/*
 * The raising's factor in effect: 1 while an earlier start-up's queue
 * steps aside for the latest one (bfq-wr.c rule 10).
 */
static inline unsigned int bfq_wr_coeff(const struct bfq_queue *bfqq)
{
	return bfqq->wr.aside ? 1 : bfqq->wr.coeff;
}

/* The weight the service layer sees: the ioprio's, times any raising. */
static inline unsigned int bfq_queue_weight(const struct bfq_queue *bfqq)
{
	return bfq_entity_ioprio_weight(bfqq->ioprio_level) *
	       bfq_wr_coeff(bfqq);
}

/* Hand the queue's class and weight to the service layer (next turn on). */
static inline void bfq_queue_apply_weight(struct bfq_queue *bfqq)
{
	bfq_entity_set_prio(&bfqq->entity, bfq_queue_weight(bfqq),
			    bfqq->ioprio_class);
}

static inline dev_t bfq_dev(struct bfq_data *bfqd)
{
	return bfqd->queue->disk ? disk_devt(bfqd->queue->disk) : 0;
}

/*
 * Whether blktrace may be running on @q: a peek without rcu_read_lock(),
 * which blk_add_trace_msg() takes (two calls on a preemptible-RCU kernel,
 * at each of the decisions logged per request) only when it is.
 */
#ifdef CONFIG_BLK_DEV_IO_TRACE
static inline bool bfq_blktrace_on(struct request_queue *q)
{
	return unlikely(rcu_access_pointer(q->blk_trace));
}
#else
static inline bool bfq_blktrace_on(struct request_queue *q)
{
	return false;
}
#endif

struct cgroup_subsys_state *bfq_queue_css(const struct bfq_queue *bfqq);

/*
 * Each decision goes to the bfq tracepoints and, while blktrace runs on
 * the device, into its stream as a message tagged with the queue's
 * cgroup, where blkparse shows it among the I/O events (with -C, the
 * cgroup's path).
 */
#define bfq_log(bfqd, bfqq, fmt, ...)					\
	do {								\
		struct request_queue *__rq_q = (bfqd)->queue;		\
		const struct bfq_queue *__q __maybe_unused = (bfqq);	\
									\
		if (bfq_blktrace_on(__rq_q))				\
			blk_add_cgroup_trace_msg(__rq_q,		\
						 bfq_queue_css(__q),	\
						 "bfq%d%c " fmt,	\
						 __q->pid,		\
						 __q->sync ? 'S' : 'A',	\
						 ##__VA_ARGS__);	\
	} while (0)

#endif /* _BFQ_IOSCHED_H */
