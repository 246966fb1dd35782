// SPDX-License-Identifier: GPL-2.0
/*
 * BFQ early queue merge: processes that read one region in interleaved
 * pieces (a thread pool on one file, QEMU's I/O threads, a parallel scan)
 * are served from one queue, and split again when they stop. Prefix:
 * bfq_merge_ (bfq_merge_pos_ for the position trees, bfq_merge_gather_ for
 * the gathering of a start-up, bfq_merge_stable_ for a pair's stability).
 *
 * Rule enforced, and why: each process's requests alone look scattered,
 * but together they are sequential. Served from one queue they reach the
 * device in position order, adjacent ones merge into larger requests, and
 * the device never idles for one of them while the others' next requests
 * wait; served from per-process queues, each turn moves a few small
 * pieces and the device idles between them. So when a process's requests
 * keep landing where another queue's last request ended, the two queues
 * become one; when the merged queue's requests stop following each other
 * (it turns seeky), each process gets its own queue back.
 *
 * States of a process (its bfq_io_cq) and of its sync queue:
 *
 *   SEPARATE       the queue is the process's own: merge.nr_members == 1.
 *   SCHEDULED      the queue was born less than BFQ_STABLE_BIRTH_MS after
 *                  the first of a run of births in its group (merge.stable,
 *                  a stable merge candidate); once it has lived
 *                  BFQ_STABLE_DELAY_MS the pair is judged at its next
 *                  request: merged if neither is seeky and they still read
 *                  within BFQ_STABLE_REGION_SECTORS of each other, else the
 *                  candidate is dropped. Processes started together that
 *                  keep reading one region are thereby merged even if no
 *                  single request of one landed close to the other's.
 *   MERGED         merge.nr_members > 1: the io contexts of several
 *                  processes point to the queue.
 *   SPLIT_PENDING  merge.split_pending: the merged queue turned seeky; each
 *                  member leaves it at its next request, with a new queue
 *                  that gets back the state the process had when it merged
 *                  (weight raising if not lapsed, think time, seek history,
 *                  large-burst membership). The last member keeps the
 *                  queue, SEPARATE again.
 *
 * Transitions, all at a sync request's arrival (bfq_bind_rq(), the
 * process's io context in hand) but for exit and moves:
 *
 *   SEPARATE/MERGED -> MERGED   BFQ_MERGE_HITS arrivals in a row each begin
 *                  within BFQ_MERGE_CLOSE_SECTORS of where another eligible
 *                  queue's last request ended (found in O(log N) in the
 *                  position tree), or a stable pair judged alike. Every
 *                  member of one queue moves to the other at once, so
 *                  chains (A into B, then B into C) leave one queue with
 *                  members; an emptied one lives on only through counted
 *                  references (a stable pointer, requests in the device)
 *                  and the lists bfq_put_queue() clears (waker, raised).
 *   MERGED -> SPLIT_PENDING     the merged queue is seeky (bfq_seeky()),
 *                  judged on its arrivals since the merge only.
 *   MERGED -> SEPARATE (for the leaver)  split_pending, or its ioprio
 *                  class or level no longer that of the queue.
 *   any -> gone    the process exits (exit_icq) or moves to another group:
 *                  it leaves; the others stay served by the queue.
 *
 * Eligible pairs: both sync queues of processes, the same group, the same class
 * and level (so a merged queue has one weight: the processes'), not born in a
 * large burst (bfq_wr_in_large_burst(): they are neither idled for nor raised,
 * so there is nothing to win), neither SPLIT_PENDING, and the candidate's last
 * request at most BFQ_MERGE_RECENT_MS old. A queue of a large burst is kept out
 * of the position tree altogether.
 *
 * What the merged queue gets: the members and their queued requests (with
 * their deadlines; those in the device finish on their old queue), the
 * larger of the two budgets, of each kind of weight raising the later one
 * (bfq_wr_merge(): soft real time over interactive); its seek history
 * starts afresh. The emptied queue ends its turn if it held the device
 * and lives on only through its requests in the device. Waker and
 * injection pointers to it hold no reference and are cleared when it is
 * freed (bfq-inject.c), so they stay consistent.
 *
 * Pointers and references (bfq_data.lock for all of them):
 *
 *  - bic->sync_bfqq owns one reference, as without merging; the bic is on
 *    sync_bfqq->merge.members iff sync_bfqq is set (no reference). Every
 *    change of sync_bfqq goes through bfq_merge_join()/bfq_merge_leave()
 *    and the move in bfq_merge_queues(): a reference taken on the new
 *    queue, the old one's dropped, the bic moved between the lists.
 *  - merge.stable owns one reference to an older queue, dropped when the
 *    pair is judged, when the pair merges, or when the holder's last
 *    member leaves; a queue's reference always points to an older queue,
 *    so they form no cycle, and a queue with no members holds none, so
 *    freeing one never frees a chain.
 *  - bfq_merge_data.stable_head and the position tree own none:
 *    bfq_merge_queue_exit() takes a freed queue off both (a queue leaves
 *    the tree anyway when its last member leaves).
 *  - requests moved to the merged queue take a reference on it and drop
 *    theirs on the old one (bfq_move_queued()).
 *
 * Gathering: a merged queue's request that carried the pieces of
 * k members brings k new pieces right after it completes, one from each
 * member as it wakes. Handed to the device one by one, each goes out
 * alone as a small request and the members drift apart; held until all
 * members' pieces are queued, they merge into one request and the members
 * stay in step. So while a merged queue has nothing in the device and
 * fewer queued bios than members still doing I/O (a sync request or bio
 * merge in the last BFQ_MERGE_RECENT_MS), its next dispatch waits, at most
 * twice its think time after its last completion (never less than
 * BFQ_GATHER_MIN_US, never more than slice_idle / BFQ_GATHER_SLICE_DIV;
 * slice_idle = 0 turns it off with idling). bfq_data.merge.gather_timer runs
 * the queue again when the wait ends; a bio that completes the gathering
 * runs it at once (bfq_bio_merge()).
 *
 * Laggards first: in a merged queue, a member whose piece lies
 * behind the head, within BFQ_STABLE_REGION_SECTORS, is served before
 * those ahead. Served in plain position order, the members ahead keep
 * the head moving away from it and it waits for its FIFO deadline, while
 * its piece is the one missing between theirs; served first, it catches
 * up, its pieces fill the gaps and gathering takes in all the members again.
 *
 * Everything here can be switched off with the module parameter
 * coop_merge=0 (/sys/module/bfq/parameters/coop_merge): no new merge is
 * made, merged queues split at their members' next requests.
 */
#include <linux/blk-mq.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/rbtree.h>

#include "bfq-compat.h"
#include "bfq-iosched.h"
#include "bfq-trace.h"

/*
 * Interleaved readers' requests begin exactly where another's ended, or
 * one small gap further; 64 KiB covers a stride of a few 16 KiB pieces and
 * stays far below BFQ_SEEK_SECTORS. Unrelated random readers of a 1 GiB
 * region land that close to one of three others once in ~3000 requests.
 */
#define BFQ_MERGE_CLOSE_SECTORS		128
/*
 * Arrivals in a row that must land close before a merge: unrelated random
 * readers do so three times in a row about once in 10^10 requests, while
 * cooperating processes do it at every request.
 */
#define BFQ_MERGE_HITS			3
/* A queue's position older than this predicts nothing of its next one. */
#define BFQ_MERGE_RECENT_MS		100
/*
 * Births this close to the previous one of a run are candidates for a
 * stable merge: fio, a thread pool or a parallel scan start their
 * processes within a few ms.
 */
#define BFQ_STABLE_BIRTH_MS		10
/* How long a stable pair's I/O is watched before it is judged. */
#define BFQ_STABLE_DELAY_MS		200
/*
 * A stable pair still reads one region if its positions are this close:
 * a few strides of 1 MiB requests of a handful of processes.
 */
#define BFQ_STABLE_REGION_SECTORS	8192

/*
 * Gathering's shortest wait: woken processes take tens of us to issue their
 * next request even on an idle CPU.
 */
#define BFQ_GATHER_MIN_US		50
/* Gathering waits at most this fraction of slice_idle. */
#define BFQ_GATHER_SLICE_DIV		4

static bool coop_merge = true;
module_param(coop_merge, bool, 0644);
MODULE_PARM_DESC(coop_merge,
		 "Merge the queues of processes doing interleaved I/O (default: 1)");

static bool bfq_merge_enabled(void)
{
	return READ_ONCE(coop_merge);
}

static enum hrtimer_restart bfq_merge_gather_timer_fn(struct hrtimer *timer)
{
	struct bfq_data *bfqd = container_of(timer, struct bfq_data,
					     merge.gather_timer);

	blk_mq_run_hw_queues(bfqd->queue, true);
	return HRTIMER_NORESTART;
}

void bfq_merge_init(struct bfq_data *bfqd)
{
	bfqd->merge.pos_tree = RB_ROOT;
	bfq_hrtimer_setup(&bfqd->merge.gather_timer, bfq_merge_gather_timer_fn,
			  CLOCK_MONOTONIC, HRTIMER_MODE_REL);
}

/* No dispatch left to run: the elevator is going. */
void bfq_merge_exit(struct bfq_data *bfqd)
{
	hrtimer_cancel(&bfqd->merge.gather_timer);
}

/* Gathering: whether a dispatch waits for the pieces of a merged queue. */
bool bfq_merge_gathering(struct bfq_data *bfqd)
{
	return hrtimer_active(&bfqd->merge.gather_timer);
}

/* @rq, with its bios, joins (@sign 1) or leaves (-1) @bfqq's queue. */
void bfq_merge_count_bios(struct bfq_queue *bfqq, struct request *rq,
			  int sign)
{
	struct bio *bio;
	int n = 0;

	/* Only gathering reads it: no walk of the bios for a process's own. */
	if (bfqq->merge.nr_members < 2) {
		bfqq->merge.bios_queued = 0;
		return;
	}
	__rq_for_each_bio(bio, rq)
		n++;
	bfqq->merge.bios_queued += sign * n;
	/*
	 * Requests queued before the queue merged were not counted; the
	 * count is exact again once it is empty.
	 */
	if (bfqq->merge.bios_queued < 0 || !bfqq->nr_queued)
		bfqq->merge.bios_queued = 0;
}

/*
 * Laggards first: the merged queue's lowest request behind its head, no further
 * back than BFQ_STABLE_REGION_SECTORS, or NULL. A lower-bound descent of
 * the position-ordered tree: a request further back is not in the way.
 */
struct request *bfq_merge_laggard(struct bfq_queue *bfqq)
{
	struct rb_node *node = bfqq->sort_list.rb_node;
	struct request *best = NULL, *rq;
	sector_t lo;

	if (bfqq->merge.nr_members < 2)
		return NULL;
	lo = bfqq->next_pos > BFQ_STABLE_REGION_SECTORS ?
	     bfqq->next_pos - BFQ_STABLE_REGION_SECTORS : 0;
	while (node) {
		rq = rb_entry_rq(node);
		if (blk_rq_pos(rq) >= lo) {
			best = rq;
			node = node->rb_left;
		} else {
			node = node->rb_right;
		}
	}
	return best && blk_rq_pos(best) < bfqq->next_pos ? best : NULL;
}

/*
 * Gathering: the members that still do I/O, each one piece to wait for; a
 * member quiet for BFQ_MERGE_RECENT_MS (it stopped reading, or waits for
 * something else) is not waited for.
 */
static unsigned int bfq_merge_gather_members(const struct bfq_queue *bfqq)
{
	unsigned long recent = msecs_to_jiffies(BFQ_MERGE_RECENT_MS);
	struct bfq_io_cq *bic;
	unsigned int n = 0;

	list_for_each_entry(bic, &bfqq->merge.members, member_node)
		if (time_before(jiffies, bic->arrival + recent))
			n++;
	return max(n, 1U);
}

/* Gathering's decision for @bfqq at @now_ns: 0 to dispatch now, else when. */
static u64 bfq_merge_gather_until(struct bfq_data *bfqd, struct bfq_queue *bfqq,
				  u64 now_ns)
{
	u64 cap = READ_ONCE(bfqd->tun.slice_idle_ns) / BFQ_GATHER_SLICE_DIV;
	unsigned int have = max(bfqq->merge.bios_queued, 0);
	u64 until;

	if (bfqq->merge.nr_members < 2 || bfqq->nr_in_driver ||
	    have >= bfqq->merge.nr_members || !bfqq->last_done_ns || !cap)
		return 0;
	bfqq->merge.gather_target = bfq_merge_gather_members(bfqq);
	if (have >= bfqq->merge.gather_target)
		return 0;
	until = bfqq->last_done_ns +
		clamp_t(u64, 2 * bfqq->think_ns,
			min_t(u64, BFQ_GATHER_MIN_US * NSEC_PER_USEC, cap), cap);
	return now_ns < until ? until : 0;
}

/*
 * Gathering: whether @bfqq, in service with requests queued, waits for more
 * of its members' pieces before its next dispatch; arms gather_timer for
 * the end of the wait if so.
 */
bool bfq_merge_gather(struct bfq_data *bfqd, struct bfq_queue *bfqq,
		      u64 now_ns)
{
	u64 until;

	lockdep_assert_held(&bfqd->lock);

	until = bfq_merge_gather_until(bfqd, bfqq, now_ns);
	if (!until)
		return false;
	hrtimer_start(&bfqd->merge.gather_timer, ns_to_ktime(until - now_ns),
		      HRTIMER_MODE_REL);
	return true;
}

/* Gathering: whether @bfqq's gathering has all the pieces it waits for. */
bool bfq_merge_gathered(const struct bfq_queue *bfqq)
{
	unsigned int target = bfqq->merge.gather_target;

	if (!target || target > bfqq->merge.nr_members)
		target = bfqq->merge.nr_members;
	return bfqq->merge.bios_queued >= (int)target;
}

/* Gathering: @bic's process did sync I/O just now. */
void bfq_merge_member_active(struct bfq_io_cq *bic)
{
	bic->arrival = jiffies;
}

void bfq_merge_queue_init(struct bfq_queue *bfqq)
{
	INIT_LIST_HEAD(&bfqq->merge.members);
	RB_CLEAR_NODE(&bfqq->merge.pos_node);
}

/* ------------------------------------------------------------------ */
/* The position tree                                                    */
/* ------------------------------------------------------------------ */

static void bfq_merge_pos_erase(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	if (RB_EMPTY_NODE(&bfqq->merge.pos_node))
		return;
	rb_erase(&bfqq->merge.pos_node, &bfqd->merge.pos_tree);
	RB_CLEAR_NODE(&bfqq->merge.pos_node);
}

static struct bfq_queue *bfq_merge_pos_queue(struct rb_node *node)
{
	return node ? rb_entry(node, struct bfq_queue, merge.pos_node) : NULL;
}

/*
 * Whether @bfqq is the only queue in the tree (a lone reader): then no
 * other queue is near it, and its key keeps its place whatever it is.
 */
static bool bfq_merge_pos_alone(const struct bfq_data *bfqd,
				const struct bfq_queue *bfqq)
{
	const struct rb_node *root = bfqd->merge.pos_tree.rb_node;

	return root == &bfqq->merge.pos_node && !root->rb_left &&
	       !root->rb_right;
}

/*
 * Whether @bfqq, in the tree, keeps its place with key @pos: no neighbour
 * on its left above it, none on its right below it (equal keys may stay
 * where they are: the tree's order is by key alone).
 */
static bool bfq_merge_pos_in_place(struct bfq_queue *bfqq, sector_t pos)
{
	struct bfq_queue *prev = bfq_merge_pos_queue(rb_prev(&bfqq->merge.pos_node));
	struct bfq_queue *next = bfq_merge_pos_queue(rb_next(&bfqq->merge.pos_node));

	return (!prev || prev->merge.pos <= pos) &&
	       (!next || next->merge.pos >= pos);
}

/*
 * @bfqq's last request ended at @pos: rekey it, equal keys to the right
 * of those already there; in place if the order holds (a lone reader,
 * or one that keeps between the same two neighbours).
 */
static void bfq_merge_pos_update(struct bfq_data *bfqd, struct bfq_queue *bfqq,
				 sector_t pos)
{
	struct rb_node **link = &bfqd->merge.pos_tree.rb_node, *parent = NULL;

	if (!RB_EMPTY_NODE(&bfqq->merge.pos_node)) {
		if (bfqq->merge.pos == pos)
			return;
		if (bfq_merge_pos_in_place(bfqq, pos)) {
			bfqq->merge.pos = pos;
			return;
		}
		bfq_merge_pos_erase(bfqd, bfqq);
	}
	bfqq->merge.pos = pos;
	while (*link) {
		parent = *link;
		if (pos < rb_entry(parent, struct bfq_queue,
				   merge.pos_node)->merge.pos)
			link = &parent->rb_left;
		else
			link = &parent->rb_right;
	}
	rb_link_node(&bfqq->merge.pos_node, parent, link);
	rb_insert_color(&bfqq->merge.pos_node, &bfqd->merge.pos_tree);
}

static sector_t bfq_merge_pos_dist(sector_t a, sector_t b)
{
	return a > b ? a - b : b - a;
}

/*
 * The queue other than @self whose key is nearest @pos, or NULL: the last
 * key at or below @pos and the first above it, stepping over @self.
 */
static struct bfq_queue *bfq_merge_pos_nearest(struct bfq_data *bfqd,
					       struct bfq_queue *self, sector_t pos)
{
	struct rb_node *node = bfqd->merge.pos_tree.rb_node;
	struct rb_node *below = NULL, *above = NULL;
	struct bfq_queue *lo, *hi;

	while (node) {
		if (bfq_merge_pos_queue(node)->merge.pos <= pos) {
			below = node;
			node = node->rb_right;
		} else {
			above = node;
			node = node->rb_left;
		}
	}
	if (below && bfq_merge_pos_queue(below) == self)
		below = rb_prev(below);
	if (above && bfq_merge_pos_queue(above) == self)
		above = rb_next(above);
	lo = bfq_merge_pos_queue(below);
	hi = bfq_merge_pos_queue(above);
	if (!lo || !hi)
		return lo ?: hi;
	return bfq_merge_pos_dist(pos, lo->merge.pos) <=
	       bfq_merge_pos_dist(pos, hi->merge.pos) ? lo : hi;
}

/* ------------------------------------------------------------------ */
/* Members and the stable candidate                                     */
/* ------------------------------------------------------------------ */

static void bfq_merge_stable_drop(struct bfq_queue *bfqq)
{
	struct bfq_queue *stable = bfqq->merge.stable;

	if (!stable)
		return;
	bfqq->merge.stable = NULL;
	bfq_put_queue(stable);
}

/* @bfqq's last member left: nothing of it is to be merged any more. */
static void bfq_merge_emptied(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	bfq_merge_pos_erase(bfqd, bfqq);
	bfq_merge_stable_drop(bfqq);
	bfqq->merge.split_pending = false;
	bfqq->merge.close_hits = 0;
}

/* A queue is born: the first of a run of births, or a candidate of it. */
static void bfq_merge_stable_born(struct bfq_data *bfqd, struct bfq_queue *bfqq,
				  unsigned long now)
{
	struct bfq_merge_data *md = &bfqd->merge;
	struct bfq_queue *head = md->stable_head;

	bfqq->merge.born = now;
	if (head && head != bfqq && head->merge.nr_members &&
	    head->bfqg == bfqq->bfqg &&
	    time_before(now, md->stable_last +
			msecs_to_jiffies(BFQ_STABLE_BIRTH_MS))) {
		bfq_get_queue(head);
		bfqq->merge.stable = head;
	} else {
		md->stable_head = bfqq;
	}
	md->stable_last = now;
}

/*
 * @bic's process now uses @bfqq, new, whose reference it owns: a birth, or
 * its split from a merged queue (@split), which gives the process back what
 * it was before it merged, or its move to another group that its queue
 * could not follow (after bfq_merge_keep()), which gives it what it had
 * there.
 */
void bfq_merge_join(struct bfq_data *bfqd, struct bfq_io_cq *bic,
		    struct bfq_queue *bfqq, bool split, u64 now_ns)
{
	struct bfq_merge_saved *s = &bic->saved;

	lockdep_assert_held(&bfqd->lock);

	list_add_tail(&bic->member_node, &bfqq->merge.members);
	bfqq->merge.nr_members++;
	if (split)
		bfqd->merge.nr_splits++;
	if (s->valid) {
		bfqq->think_ns = s->think_ns;
		bfqq->seek_history = s->seek_history;
		bfqq->nr_judged = s->nr_judged;
		bfqq->arrival_end = s->arrival_end;
		bfq_wr_restore(bfqd, bfqq, s, now_ns);
		bfqq->merge.born = jiffies;
	} else if (bfqq->sync) {
		bfq_merge_stable_born(bfqd, bfqq, jiffies);
	}
	s->valid = false;
}

/*
 * @bic's process stops using its sync queue (exit, move to another group,
 * split); the caller drops the reference. A merged queue left with one
 * member is that process's own again.
 */
void bfq_merge_leave(struct bfq_data *bfqd, struct bfq_io_cq *bic)
{
	struct bfq_queue *bfqq = bic->sync_bfqq;
	struct bfq_io_cq *last;

	lockdep_assert_held(&bfqd->lock);

	list_del_init(&bic->member_node);
	if (!--bfqq->merge.nr_members) {
		bfq_merge_emptied(bfqd, bfqq);
	} else if (bfqq->merge.nr_members == 1) {
		last = list_first_entry(&bfqq->merge.members,
					struct bfq_io_cq, member_node);
		last->saved.valid = false;
		bfqq->merge.split_pending = false;
	}
}

/* The lifetime rule: called by bfq_put_queue() before it frees @bfqq. */
void bfq_merge_queue_exit(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	lockdep_assert_held(&bfqd->lock);

	WARN_ON_ONCE(bfqq->merge.nr_members || bfqq->merge.stable);
	bfq_merge_pos_erase(bfqd, bfqq);
	if (bfqd->merge.stable_head == bfqq)
		bfqd->merge.stable_head = NULL;
}

/*
 * Whether a process of class @class_idx, @level must leave @bfqq now, and
 * if so @why.
 */
bool bfq_merge_must_split(const struct bfq_queue *bfqq,
			  enum bfq_class class_idx, unsigned short level,
			  enum bfq_split_why *why)
{
	if (bfqq->merge.nr_members < 2)
		return false;
	if (bfqq->ioprio_class != class_idx || bfqq->ioprio_level != level)
		*why = BFQ_SPLIT_IOPRIO;
	else if (bfqq->merge.split_pending)
		*why = BFQ_SPLIT_SEEKY;
	else if (!bfq_merge_enabled())
		*why = BFQ_SPLIT_OFF;
	else
		return false;
	return true;
}

/* ------------------------------------------------------------------ */
/* Merging                                                              */
/* ------------------------------------------------------------------ */

static bool bfq_merge_eligible(const struct bfq_queue *a,
			       const struct bfq_queue *b, unsigned long now)
{
	return a != b && b->merge.nr_members && a->sync && b->sync &&
	       a->bfqg == b->bfqg && a->ioprio_class == b->ioprio_class &&
	       a->ioprio_level == b->ioprio_level &&
	       !bfq_wr_born_in_large_burst(a) &&
	       !bfq_wr_born_in_large_burst(b) &&
	       !a->merge.split_pending && !b->merge.split_pending &&
	       time_before(now, b->merge.last_arrival +
			   msecs_to_jiffies(BFQ_MERGE_RECENT_MS));
}

/* Before a queue's first merge, its one process's state is kept. */
static void bfq_merge_save(struct bfq_queue *bfqq)
{
	struct bfq_io_cq *bic;

	if (bfqq->merge.nr_members != 1)
		return;
	bic = list_first_entry(&bfqq->merge.members, struct bfq_io_cq,
			       member_node);
	if (bic->saved.valid)
		return;
	bic->saved.think_ns = bfqq->think_ns;
	bic->saved.seek_history = bfqq->seek_history;
	bic->saved.nr_judged = bfqq->nr_judged;
	bic->saved.arrival_end = bfqq->arrival_end;
	bfq_wr_save(bfqq, &bic->saved);
	bic->saved.valid = true;
}

/*
 * @bic's process is about to leave its queue for a new one in another
 * group: keep what it had for bfq_merge_join(); the state it had before it
 * merged, if its queue is a merged one.
 */
void bfq_merge_keep(struct bfq_io_cq *bic)
{
	bfq_merge_save(bic->sync_bfqq);
}

/* Every process of @from moves to @to, with @from's queued requests. */
static void bfq_merge_queues(struct bfq_data *bfqd, struct bfq_queue *from,
			     struct bfq_queue *to, enum bfq_merge_why why)
{
	struct bfq_io_cq *bic, *next;
	unsigned int n = from->merge.nr_members;

	lockdep_assert_held(&bfqd->lock);

	bfq_merge_save(from);
	bfq_merge_save(to);
	/* The members' references go; @from must outlive the moves. */
	bfq_get_queue(from);
	list_for_each_entry_safe(bic, next, &from->merge.members,
				 member_node) {
		list_move_tail(&bic->member_node, &to->merge.members);
		bfq_get_queue(to);
		WRITE_ONCE(bic->sync_bfqq, to);
		bfq_put_queue(from);
	}
	to->merge.nr_members += n;
	from->merge.nr_members = 0;

	bfq_merge_emptied(bfqd, from);
	if (to->merge.stable == from)
		bfq_merge_stable_drop(to);

	to->merge.close_hits = 0;
	to->entity.budget_sectors = max(to->entity.budget_sectors,
					from->entity.budget_sectors);
	bfq_wr_merge(bfqd, to, from, ktime_get_ns());
	bfqd->merge.nr_merges++;
	trace_bfq_merge(bfq_dev(bfqd), from->pid, to->pid,
			to->merge.nr_members, why);
	bfq_log(bfqd, to, "merge bfq%d members=%u %s", from->pid,
		to->merge.nr_members, why == BFQ_MERGE_STABLE ? "stable" :
		"close");
	bfq_move_queued(bfqd, from, to);
	/* After the move: its requests' arrivals must not judge @to. */
	to->seek_history = 0;
	to->nr_judged = 0;
	bfq_put_queue(from);
}

/*
 * The stable pair of @bfqq, judged once it has lived BFQ_STABLE_DELAY_MS:
 * the candidate if they still read one region, else NULL; the candidate's
 * reference is dropped either way, by the merge or here.
 */
static struct bfq_queue *bfq_merge_stable_judge(struct bfq_queue *bfqq,
						sector_t pos, unsigned long now)
{
	struct bfq_queue *stable = bfqq->merge.stable;

	if (!stable || time_before(now, bfqq->merge.born +
				   msecs_to_jiffies(BFQ_STABLE_DELAY_MS)))
		return NULL;
	if (bfq_merge_eligible(bfqq, stable, now) && !bfq_seeky(bfqq) &&
	    !bfq_seeky(stable) &&
	    bfq_merge_pos_dist(pos, stable->merge.pos) <= BFQ_STABLE_REGION_SECTORS)
		return stable;
	bfq_merge_stable_drop(bfqq);
	return NULL;
}

/*
 * bfq_merge_observe() of a lone reader: @bfqq, a process's own queue, with
 * no stable candidate, is the only queue in the position tree. No queue
 * is near it and its key, moved to @end, keeps its place: no search, no
 * rekeying. False, and nothing done, for any other queue.
 */
static bool bfq_merge_observe_alone(struct bfq_data *bfqd,
				    struct bfq_queue *bfqq, sector_t end,
				    unsigned long now)
{
	struct bfq_merge_queue *m = &bfqq->merge;

	if (m->nr_members != 1 || m->stable ||
	    bfq_wr_born_in_large_burst(bfqq) || !bfq_merge_pos_alone(bfqd, bfqq))
		return false;
	if (bfq_merge_enabled() && !m->split_pending)
		m->close_hits = 0;
	m->last_arrival = now;
	m->pos = end;
	return true;
}

/*
 * A sync request of @sectors at @pos arrives for @bfqq, a process's queue,
 * at @now (jiffies): marks a seeky merged queue for splitting, counts the
 * arrivals that land close to another queue, moves @bfqq's key. Returns
 * the queue @bfqq is to merge with, or NULL.
 */
static struct bfq_queue *bfq_merge_observe(struct bfq_data *bfqd,
					   struct bfq_queue *bfqq,
					   sector_t pos, unsigned int sectors,
					   unsigned long now)
{
	struct bfq_merge_queue *m = &bfqq->merge;
	struct bfq_queue *cand = NULL, *near;

	lockdep_assert_held(&bfqd->lock);

	if (bfq_merge_observe_alone(bfqd, bfqq, pos + sectors, now))
		return NULL;
	if (!m->nr_members)
		return NULL;
	if (m->nr_members > 1 && bfq_seeky(bfqq) && !m->split_pending) {
		m->split_pending = true;
		bfq_log(bfqd, bfqq, "split pending members=%u",
			m->nr_members);
	}
	if (bfq_wr_born_in_large_burst(bfqq)) {
		/*
		 * Never eligible, on either side of a pair: no search, and
		 * no key that would hide an eligible neighbour from others.
		 * Ten readers started together would pay both tree walks
		 * at each request for nothing.
		 */
		bfq_merge_stable_drop(bfqq);
		bfq_merge_pos_erase(bfqd, bfqq);
		m->close_hits = 0;
		m->last_arrival = now;
		return NULL;
	}
	if (bfq_merge_enabled() && !m->split_pending) {
		cand = bfq_merge_stable_judge(bfqq, pos, now);
		near = cand ? NULL : bfq_merge_pos_nearest(bfqd, bfqq, pos);
		if (near && bfq_merge_eligible(bfqq, near, now) &&
		    bfq_merge_pos_dist(pos, near->merge.pos) <=
		    BFQ_MERGE_CLOSE_SECTORS)
			m->close_hits++;
		else if (!cand)
			m->close_hits = 0;
		if (m->close_hits >= BFQ_MERGE_HITS)
			cand = near;
	}
	m->last_arrival = now;
	bfq_merge_pos_update(bfqd, bfqq, pos + sectors);
	return cand;
}

/*
 * A sync request of @bic's process, bound to @bfqq, arrives: the queue it
 * goes to, the one @bfqq merged with if the two are to merge now. The
 * queue in service, if one of them, absorbs the other, which keeps the
 * device serving the same requests; else @bfqq's processes join the
 * other's.
 */
struct bfq_queue *bfq_merge_arrival(struct bfq_data *bfqd,
				    struct bfq_io_cq *bic,
				    struct bfq_queue *bfqq, sector_t pos,
				    unsigned int sectors)
{
	struct bfq_queue *cand;
	bool stable;

	lockdep_assert_held(&bfqd->lock);

	if (!bic || bic->sync_bfqq != bfqq)
		return bfqq;
	bfq_merge_member_active(bic);
	cand = bfq_merge_observe(bfqd, bfqq, pos, sectors, jiffies);
	if (!cand)
		return bfqq;
	stable = bfqq->merge.stable == cand;
	if (bfqq == bfqd->in_service_bfqq) {
		bfq_merge_queues(bfqd, cand, bfqq, stable ? BFQ_MERGE_STABLE :
				 BFQ_MERGE_CLOSE);
		return bfqq;
	}
	bfq_merge_queues(bfqd, bfqq, cand, stable ? BFQ_MERGE_STABLE :
			 BFQ_MERGE_CLOSE);
	/* Its key is where this request ends, as @bfqq's was. */
	cand->merge.last_arrival = jiffies;
	bfq_merge_pos_update(bfqd, cand, pos + sectors);
	return cand;
}

#ifdef CONFIG_BFQ_KUNIT_TEST
#include "bfq-merge-test.c"
#endif
