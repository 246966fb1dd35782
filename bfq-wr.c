// SPDX-License-Identifier: GPL-2.0
/*
 * BFQ low latency: weight raising of interactive and soft real-time queues,
 * and bursts of queue creations. Designed from Valente and Andreolini,
 * "Improving Application Responsiveness with the BFQ Disk I/O Scheduler"
 * (SYSTOR '12). Everything here acts only while the low_latency tunable
 * is 1, and only on sync queues of the BE class: RT queues already come
 * first, and IDLE ones asked to come last. Prefix: bfq_wr_ (bfq_wr_burst_
 * for the bursts, bfq_wr_softrt_ for soft real-time detection).
 *
 * Rules enforced, and why:
 *
 * 1. Interactive raising. A queue backlogged for the first time (a new
 *    process), or again after being idle for BFQ_WR_MIN_IDLE_MS, is
 *    starting a task a user waits for: loading an application, opening a
 *    file. Its weight is multiplied by BFQ_WR_COEFF for
 *    bfq_wr_duration_ns(): the time the device needs, at its estimated
 *    peak rate, to load a large application (BFQ_WR_REF_LOAD_SECTORS),
 *    within [BFQ_WR_MIN_DURATION_MS, BFQ_WR_MAX_DURATION_MS]; before the
 *    rate is measured, a typical disk's or SSD's by the device's kind.
 *    With that share the start-up takes about as long as on an idle
 *    device, whatever the background.
 * 2. Bulk queues lose it. A turn that ends because its queue used its whole
 *    budget or its whole turn, having moved at least half of max_budget, went
 *    at the device's pace (bfq_wr_greedy_turns()). A raised queue whose such
 *    turns could fill a quarter of its raising (bfq_wr_bulk_turns(): the
 *    raising's duration over twice timeout_sync, at least
 *    BFQ_WR_BULK_MIN_TURNS) transfers like a bulk reader or writer: its
 *    raising ends at once, so that it does not take the device from the
 *    others for the rest of it. A quarter of the raising is at most a quarter
 *    of the reference load (rule 1), 128 MiB (78 MiB on a 31 MB/s disk, whose
 *    raising the 10 s bound cuts), more than a large application reads in
 *    bulk: an application also reads its libraries at the device's pace, 15
 *    MiB for a terminal, and three such turns, half a second on a 31 MB/s
 *    disk, took a terminal's raising away in the middle of its start-up. Its
 *    small scattered reads with pauses move little per turn and do not count.
 *    A bulk reader of random blocks moves as little; its raising ends with
 *    its duration, or at the end of a turn that leaves it seeky with
 *    BFQ_WR_ASYNC_READS or more requests outstanding (bfq_wr_async_reader()):
 *    a process that waits for each read keeps one outstanding (random
 *    reads get no read-ahead), so that many at once come from one that
 *    does not wait (libaio, io_uring: a database, a benchmark), and no
 *    user waits for its reads one by one. Kept raised, one such reader of
 *    a database workload, started after the other 31 (the lab's exp4 at
 *    depth 10), held the device at 30 times their weight for 3-6 s: the
 *    sweep by position (bfq-inject.c rule 6) stops while a queue is
 *    raised, the others' budgets had grown to max_budget, and the run
 *    moved 162-166 requests a second instead of 175.
 *    A queue with a waker (bfq-inject.c rule 4) on a device of at most
 *    BFQ_TAGS_FEW tags is measured by time instead
 *    (bfq_wr_paced(); rule 4 of bfq-budget.c says why there only): its
 *    turns hold the device for its waker's requests too, so each half of
 *    timeout_sync of them counts as one such turn. Counted by sectors, a
 *    write + fsync loop (8 a write) kept its raising for its whole
 *    duration while the sequential reader started with it lost its own
 *    as bulk, and then took the device at 30 times the reader's weight.
 * 3. Soft real-time raising. When a queue becomes idle (nothing queued,
 *    nothing in the device) its next batch counts as soft real time only
 *    if it arrives no earlier than bfq_wr_softrt_next_start_ns(): the sectors
 *    of its last busy period at BFQ_SOFTRT_MAX_SECTORS_PER_SEC after that
 *    period began, and at least one idle slice and BFQ_SOFTRT_MIN_GAP_MS
 *    after it became idle. A queue whose last BFQ_SOFTRT_MIN_BATCHES
 *    batches all kept that pattern issues short periodic batches at a low
 *    average rate (a media player): it gets BFQ_WR_SOFTRT_COEFF for
 *    BFQ_WR_SOFTRT_DURATION_MS, renewed at each batch that keeps the
 *    pattern, so its batches are served before the other queues' turns.
 *    One batch is not a pattern: a bulk reader that stalls once (CPU
 *    contention, a page fault) must not pass. A queue that arrives early
 *    starts counting again and keeps its raising only until it lapses.
 *    A queue raised as interactive that keeps the pattern, and whose
 *    process pauses longer than the device idles for it (bfq_wr_pauses_long():
 *    its mean think time past its longest idle slice), is raised as soft
 *    real time too: a player is a new process, raised as interactive for
 *    seconds, and as such it is idled for after each batch (rule 5)
 *    and waits for the turn in service, where its frames are due every
 *    period (on the lab's disk, 64 KiB every 200 ms from a new player
 *    every 2 s beside 5 on/off readers: 7 and 9 streams sustained on 6.12
 *    and 6.1, the FIFO schedulers 16-18, most frames over 40 ms late from
 *    the first stream on; docs/results/2026-12-03-exp5-softrt.md). The
 *    interactive raising is only suspended: when the soft one lapses, it
 *    goes on to its own end (an application starting under load reads in
 *    short slow batches too, and must not lose its start-up's raising
 *    with them).
 * 4. Bursts. Sync queues created less than BFQ_BURST_WINDOW_MS after the
 *    previous one form a burst (bfq_wr_burst_birth()); the burst ends when
 *    that window passes without a new queue. Once a burst counts
 *    BFQ_BURST_LARGE_SIZE queues, its members and every queue born in it
 *    afterwards are in a large burst for their life: they are a batch
 *    (git grep, make -j, a service manager), not one application a user
 *    waits for. Raising them all would raise nobody, and idling for each
 *    to protect it would cost the batch its throughput: they get neither,
 *    only the idling that gives a sequential reader on a disk its
 *    throughput (bfq_should_idle()).
 * 5. Idling. The device idles for an interactively raised queue in service
 *    that empties, even where bfq_should_idle() would otherwise move on:
 *    the raised queue's next request is the one a user waits for. Also
 *    when its process thinks longer than an idle slice between requests:
 *    a starting application that is slow to issue its next read is
 *    usually short of CPU, and serving the background meanwhile gives the
 *    background's processes more work to take the CPU with. Not for a
 *    soft real-time queue: its next batch is a period away, and rule 7
 *    gives it the device when it comes. A timed-out turn of an
 *    interactively raised queue is charged what it moved, not a full
 *    max_budget as other timed-out turns are (bfq_budget_charge()): the
 *    time was spent waiting for it on purpose, and charged as a full
 *    budget it put the application's next turn behind every other
 *    queue's (such a turn moves a small part of a full budget:
 *    docs/results/2026-11-28-raised-turn-charge.md).
 *    The idling yields to another application starting (bfq_wr_yields()):
 *    when the queue the service order names next is interactively raised
 *    too, its raising begun no more than BFQ_WR_TOGETHER_MS before this
 *    one's (rule 10), and the device takes more than one request, the
 *    emptied queue's turn ends and the other one's request goes to the
 *    device beside the first one's. Idling is a promise to one application
 *    that its next request finds the device free; two applications starting
 *    at once cannot both be given that, and on a device that serves
 *    requests together, holding the second one back until the first one's
 *    request completes only makes it wait (blktests block/017 and
 *    block/018: a process's read in flight for half a second kept a second
 *    process's write out of an idle 64-tag device). On a one-request device
 *    the promise is kept: there the second request would take the device.
 * 6. low_latency=0 ends every raising at once (bfq_wr_end_all()) and stops
 *    rules 1-5 and 7-10; writing 1 applies them again to queues that become
 *    backlogged from then on.
 * 7. Preemption. A raised queue that becomes backlogged while a queue of
 *    its class that is not raised holds the device ends that queue's turn
 *    (bfq_wr_coeff_preempts()): its request is the one a user waits for, and a
 *    bulk queue's turn can last timeout_sync. A soft real-time queue ends
 *    an interactively raised one's turn too: its frame is due now, and a
 *    starting application's turn (or that of a reader that paused two
 *    seconds, raised again) lasts as long. The preempted queue is
 *    charged only what it received and keeps its budget, so it is owed the
 *    rest and, with its finish time unchanged, is served again right after
 *    the raised queues: it waits at most one raised turn, itself bounded by
 *    timeout_sync, and it never waits behind another non-raised queue
 *    because of this.
 * 8. Scheduler tags. A request exists only once its process holds one of
 *    the device's scheduler tags (nr_requests: twice the hardware queue
 *    depth, so 2 on a one-request device); a process that finds none
 *    sleeps in the block layer, before bfq sees its request, and ten
 *    readers hold every tag of a short queue. So a share of the tags is
 *    kept (bfq_limit_depth()) for the processes whose next request the
 *    user waits for: those of raised queues, and of queues idle for
 *    BFQ_WR_MIN_IDLE_MS that rule 1 will raise at that request
 *    (bfq_wr_tag_reserve()), and of a process with no queue yet while no
 *    large burst goes on (bfq_wr_newcomer_raisable()): rule 1 raises its
 *    queue too, and without this its first read waits behind every
 *    other sleeper (a new video player's first frame then waits hundreds
 *    of ms on a one-request device under 5 readers and 5 writers). Read
 *    without bfq_data.lock: the answer may be a request late, which costs
 *    the process one wait for a tag.
 * 9. The device's own queue. A request dispatched waits in the device
 *    behind those dispatched before it (a disk's queue, a controller's),
 *    and an application's read that finds ten random reads ahead of it on
 *    a disk waits ten seeks however fast bfq chose it. So while an
 *    interactively raised queue of the latest start-up (rule 10) has had
 *    an arrival or completion in the last BFQ_WR_APP_GAP_MS (its
 *    application is starting, between two of its reads), a request of a
 *    queue not so raised goes to the device only when the device holds
 *    nothing (bfq_wr_holds_back()): the application's next read waits
 *    behind one request at most. The others lose the device's internal
 *    parallelism only while an application starts; they keep their
 *    share, served one at a time. Writeback's one request is the costly
 *    one: merged by the flusher to hundreds of KiB against the
 *    application's few, it holds an SSD's bus for milliseconds (under 5
 *    random readers and 5 buffered writers on the lab's SSD, half of a
 *    start-up's reads found one, averaging 377 KiB, and the start-up took
 *    twice its idle time). So while the application reads, an async
 *    request waits BFQ_WR_COEFF times the transfer of the previous one at
 *    the device's measured rate (bfq_rate_drain(); bfq_wr_async_paced();
 *    BFQ_WR_APP_GAP_MS while no rate is known): writeback gets the time its
 *    weight would against the raised application, one BFQ_WR_COEFF-th,
 *    and the application's reads rarely meet it. A run-queue is
 *    scheduled for when the wait ends, as no completion may come.
 *    A player's frames come first (bfq_wr_softrt_playing()): on a device
 *    where seeks cost (bfq_rate_seek_costly()), while a soft real-time
 *    queue had an arrival or completion within BFQ_WR_SOFTRT_DURATION_MS,
 *    every other queue's request, the latest start-up's included, goes to
 *    the device only when it holds nothing. A late frame is a glitch, a
 *    slower start-up a delay; and a frame that found five readers'
 *    requests ahead in the lab's disk waited five seeks (40-140 ms
 *    where one request ahead costs about 40). On an SSD a request ahead
 *    costs a frame little, and the others keep the device's parallelism.
 *    Nor does a request go into the empty device if it would still be
 *    there when a player's next frame is due (bfq_wr_frame_wait()): the
 *    frame is due a period after the player's last one (its mean gap
 *    between arrivals), the request's cost is what a far request of its
 *    size took the device alone (bfq-rate.c rule 2) and a quarter more,
 *    and it waits until the frame comes, or a quarter of that cost past
 *    the due time, when the frame is taken as skipped. A frame that found
 *    one reader's 128 KiB read just sent to the lab's disk waited its two
 *    long seeks, ~42 ms; frames were late mostly in the seconds the
 *    readers read. Only processes that keep the device busy are held: one
 *    that sends a request and waits for it (it pauses longer than the
 *    device would idle for it, or nothing of its queue has been served
 *    yet: a new player's first frames, a starting application's first
 *    read) goes, even while the turn in service is held
 *    (bfq_wr_frame_exempt(); bfq-iosched.c, bfq_dispatch_unheld()): a
 *    new player among five raised readers lost its frames, more than 1 s
 *    late, while the readers' held turns kept it out. The others get the
 *    gaps between frames long enough for their requests; where the frames
 *    leave none, a queue is held no longer than its fifo_expire time
 *    since it was first held (bfq-iosched.c, bfq_frame_waits()).
 * 10. The latest start-up first. Two applications started seconds apart are
 *    not alike to the user: the one started last is the one waited for now,
 *    and the earlier one has had its raised service meanwhile. Nor is every
 *    raised queue an application: a process that reads at random from its
 *    start on (a database, an indexer) moves little per turn, so rule 2 never
 *    ends its raising, and it keeps it for its whole duration, seconds on a
 *    disk. So the interactive raisings begun within BFQ_WR_TOGETHER_MS of the
 *    latest one begun by a read are the latest start-up
 *    (bfq_wr_of_latest_startup()); a raising begun by a sync write (a
 *    journal's commit every few seconds) starts none. Raised queues of
 *    earlier start-ups step aside while it reads (bfq_wr_aside(): it has
 *    requests queued or in the device, or had I/O in the last
 *    BFQ_WR_APP_GAP_MS): their weight is unraised at once, their waiting
 *    turns stamped again (bfq_entity_reweight(); from its next turn for one
 *    in service), so that five readers raised when they started seconds
 *    before do not take five sixths of the device from it, and a raised
 *    arrival preempts their turns as it does an unraised queue's (rule 7).
 *    At the first turn of theirs that ends after it stopped reading they get
 *    their raised weight back for what is left of their raising. Nor do they
 *    keep the protection of rules 5 and 9 against it: the latest's idling
 *    does not yield to them, and while it reads their requests wait for the
 *    device to empty like any other's. Their seeky turns pay for device
 *    time (rule 3 of bfq-budget.c): charged 8 sectors for a read that holds
 *    a disk for a seek, five raised random readers got a turn each between
 *    any two of the latest application's. Once it stops reading
 *    (BFQ_WR_APP_GAP_MS) they are served as before; a short-lived newcomer
 *    (a daemon's few reads) costs an earlier application only the time it
 *    reads.
 *
 * The service layer knows nothing of this: a raised queue is an entity of
 * a larger weight (bfq_queue_weight()), set through bfq_entity_set_prio()
 * and so in effect from the queue's next turn. A raising ends lazily, when
 * its queue becomes backlogged, is selected or expires; no timer.
 *
 * Lifetime rule (bfq_data.lock): bfq_wr_data.raised lists the queues with
 * wr.coeff > 1, bfq_wr_data.burst_members the members of the current burst
 * while it is not large (so at most BFQ_BURST_LARGE_SIZE - 1 of them).
 * Neither list owns a reference: bfq_put_queue() calls bfq_wr_queue_exit()
 * before it frees a queue, which takes the queue off both. No other path
 * frees a bfq_queue.
 *
 * Injection and wakers, which decide what the device does while it idles,
 * live in bfq-inject.c.
 */
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/sizes.h>

#include "bfq-compat.h"
#include "bfq-iosched.h"
#include "bfq-trace.h"

/*
 * Rule 1: a weight 30 times its own gives a starting application 30/31 of
 * the device against one busy queue of its ioprio and 30/40 against ten,
 * while the others keep a few percent each and do not starve.
 */
#define BFQ_WR_COEFF			30
/*
 * Rule 1: idle that long, a queue starts a new task: longer than the pauses
 * inside one task's I/O (page faults, computing between reads), shorter
 * than a user's pause between two commands.
 */
#define BFQ_WR_MIN_IDLE_MS		2000
/*
 * Rule 1: a large application's start-up (an office suite, a browser) in
 * sectors of sequential transfer: the several seconds it takes to load on
 * a disk of ~100 MB/s, at that disk's rate. 512 MiB.
 */
#define BFQ_WR_REF_LOAD_SECTORS		((u64)SZ_512M >> SECTOR_SHIFT)
/* Rule 1: a start-up takes this long even on the fastest device... */
#define BFQ_WR_MIN_DURATION_MS		1000
/* ...and past this it is not a start-up: the raising would erode shares. */
#define BFQ_WR_MAX_DURATION_MS		10000
/*
 * Rule 10: start-ups begun this close are one (a script, a desktop login
 * starting its programs, a double click); further apart, the user started
 * the later one after the first, and waits for it now.
 */
#define BFQ_WR_TOGETHER_MS		1000
/* Rule 1, peak rate not measured yet: a SATA SSD's (~180 MB/s) duration. */
#define BFQ_WR_UNKNOWN_RATE_MS		3000
/*
 * Rule 1, peak rate not measured yet on a rotational device: a 100 MB/s
 * disk's, in sectors per second (5.4 s). A disk that has served only
 * random requests since bfq was selected has no rate sample, and a
 * starting application there needs its raising longer than an SSD's: one
 * whose raising ends partway through its start-up under random readers
 * finishes it at their pace (docs/results/2026-11-25-lab-exp6-rule9.md).
 */
#define BFQ_WR_UNKNOWN_DISK_SECTORS_PER_SEC	195312
/*
 * Rule 2: even with the shortest raising, an application loading a large
 * file may fill a large turn or two; a third is a bulk transfer.
 */
#define BFQ_WR_BULK_MIN_TURNS		3
/*
 * Rule 2: a process that waits for each of its reads has one outstanding,
 * a few when threads share its I/O context; twice the depth of such a
 * few is a process that issues them without waiting.
 */
#define BFQ_WR_ASYNC_READS		8

/*
 * Rule 9: an application between two reads computes for a few ms (under
 * TCG, or on a loaded CPU, up to a scheduler tick or two); past this it
 * is thinking, and the device serves the others at full depth again.
 */
#define BFQ_WR_APP_GAP_MS		20

/*
 * Rule 3: 3 times the interactive coefficient, so a periodic batch is
 * served ahead of applications starting meanwhile too: a late frame is a
 * visible glitch, a slower start-up only a delay.
 */
#define BFQ_WR_SOFTRT_COEFF		(3 * BFQ_WR_COEFF)
/*
 * Rule 3: renewed at every batch, a raising must only outlast the longest
 * period served: 3 periods of a 10 Hz audio stream.
 */
#define BFQ_WR_SOFTRT_DURATION_MS	300
/*
 * Rule 3: the highest average rate of a soft real-time application: a 4K
 * video stream is 3-6 MiB/s; 16 MiB/s leaves room for bursty decoders and
 * stays far below what a bulk reader moves on any disk.
 */
#define BFQ_SOFTRT_MAX_SECTORS_PER_SEC	((u64)SZ_16M >> SECTOR_SHIFT)
/*
 * Rule 3: the least pause between batches, whatever slice_idle: a process
 * reading back to back pauses only for its CPU time between requests,
 * which must not pass for a period. On a loaded CPU that pause grows to
 * several ms, so the bound is well above it; a 30 fps video's reader pauses
 * for most of its 33 ms period, and audio players read 100 ms or more of
 * sound at a time.
 */
#define BFQ_SOFTRT_MIN_GAP_MS		20
/*
 * Rule 3: batches in a row that must keep the pattern. Three periods of a
 * 25 fps video are 120 ms, well inside one start-up's raising; a bulk
 * reader that stalls by chance rarely does so three times in a row.
 */
#define BFQ_SOFTRT_MIN_BATCHES		3

/*
 * Rule 4: the processes one command starts (a pipeline, make -j, a service
 * manager's batch) create their queues within tens of ms of each other,
 * even on a loaded system; applications a user starts are seconds apart.
 */
#define BFQ_BURST_WINDOW_MS		180
/*
 * Rule 4: an application starts a handful of processes; eight or more
 * started together are a batch. Ten is too many: ten readers forked by
 * one fio stay a burst of ten, all raised for the whole raising period,
 * and an application starting among them then has a tenth of the device,
 * not most of it.
 */
#define BFQ_BURST_LARGE_SIZE		8

/* ------------------------------------------------------------------ */
/* Plain arithmetic and state machines (KUnit: bfq-wr-test.c)          */
/* ------------------------------------------------------------------ */

/* Rule 1: an interactive raising's length; @peak_sectors_per_sec 0: unknown. */
u64 bfq_wr_duration_ns(u64 peak_sectors_per_sec)
{
	u64 ms;

	if (!peak_sectors_per_sec)
		return (u64)BFQ_WR_UNKNOWN_RATE_MS * NSEC_PER_MSEC;
	ms = div64_u64(BFQ_WR_REF_LOAD_SECTORS * MSEC_PER_SEC,
		       peak_sectors_per_sec);
	return clamp_t(u64, ms, BFQ_WR_MIN_DURATION_MS,
		       BFQ_WR_MAX_DURATION_MS) * NSEC_PER_MSEC;
}

/*
 * Rule 3: the earliest time the next batch of a queue that served
 * @busy_sectors in a busy period begun at @busy_since_ns and became idle at
 * @idle_at_ns may arrive and still be soft real time. @min_gap_ns: the idle
 * slice, floored at BFQ_SOFTRT_MIN_GAP_MS.
 */
u64 bfq_wr_softrt_next_start_ns(u64 busy_since_ns, u64 busy_sectors,
				u64 idle_at_ns, u64 min_gap_ns)
{
	/* Capped so that the product fits in 64 bits; 2 TiB is bulk anyway. */
	u64 sectors = min_t(u64, busy_sectors, U32_MAX);
	u64 by_rate = busy_since_ns + div64_u64(sectors * NSEC_PER_SEC,
						BFQ_SOFTRT_MAX_SECTORS_PER_SEC);

	min_gap_ns = max_t(u64, min_gap_ns,
			   (u64)BFQ_SOFTRT_MIN_GAP_MS * NSEC_PER_MSEC);
	return max(by_rate, idle_at_ns + min_gap_ns);
}

/*
 * Rule 3: the count of batches in a row that kept the soft real-time
 * pattern, after one that arrives at @now_ns: it counts if its queue was
 * idle and it came no earlier than @next_start_ns, else the count starts
 * again. A queue that was not idle (requests still in the device) did not
 * end a batch, so the count stands.
 */
unsigned int bfq_wr_softrt_batches(unsigned int batches, bool was_idle,
				   u64 now_ns, u64 next_start_ns)
{
	if (!was_idle)
		return batches;
	if (now_ns < next_start_ns)
		return 0;
	return batches < UINT_MAX ? batches + 1 : batches;
}

/*
 * Rules 1, 3 and 4: the raising a queue that becomes backlogged earns, or
 * BFQ_WR_NONE (a queue already raised then keeps its raising). Always
 * inline: asked at every busy period's start with low_latency on, it then
 * needs no arrival in memory.
 */
__always_inline enum bfq_wr_kind
bfq_wr_choose(const struct bfq_wr_arrival *a)
{
	if (a->large_burst)
		return BFQ_WR_NONE;
	if (a->new_queue)
		return BFQ_WR_INTERACTIVE;
	if (!a->was_idle || a->now_ns < a->idle_since_ns)
		return BFQ_WR_NONE;
	if (a->now_ns - a->idle_since_ns >= BFQ_WR_MIN_IDLE_MS * NSEC_PER_MSEC)
		return BFQ_WR_INTERACTIVE;
	if (a->softrt_batches >= BFQ_SOFTRT_MIN_BATCHES &&
	    (!a->interactive || a->pauses_long))
		return BFQ_WR_SOFT_RT;
	return BFQ_WR_NONE;
}

/*
 * Rule 7: whether a queue raised by @new_coeff that becomes backlogged
 * ends the turn of a queue raised by @in_service_coeff (1: not raised):
 * a raised one over one not raised, a soft real-time one over an
 * interactive one too. Only across one class: between classes the
 * service layer's order rules.
 */
bool bfq_wr_coeff_preempts(unsigned int new_coeff,
			   unsigned int in_service_coeff, bool same_class)
{
	return same_class && new_coeff > in_service_coeff;
}

/*
 * Rule 2: the greedy turns that end a raising of @dur_ns with turns of
 * @timeout_ms: enough to fill a quarter of it at the device's pace.
 */
unsigned int bfq_wr_bulk_turns(u64 dur_ns, unsigned int timeout_ms)
{
	u64 turns;

	if (!timeout_ms)
		return BFQ_WR_BULK_MIN_TURNS;
	turns = div64_u64(dur_ns, 2ULL * timeout_ms * NSEC_PER_MSEC);
	return max_t(u64, turns, BFQ_WR_BULK_MIN_TURNS);
}

/*
 * Rule 10: whether the raised queue of @wr steps aside (its weight
 * unraised) for the latest start-up, whose raisings began at
 * @latest_from_ns or later; @latest_reads: that start-up is reading.
 */
bool bfq_wr_aside(const struct bfq_wr_queue *wr, u64 latest_from_ns,
		  bool latest_reads)
{
	return latest_reads && wr->kind == BFQ_WR_INTERACTIVE &&
	       wr->coeff > 1 && wr->start_ns < latest_from_ns;
}

/*
 * Rule 2: the count of greedy turns after a raised turn that ended for
 * @why having served @served sectors, max_budget being @max_budget; the
 * raising ends when it reaches bfq_wr_bulk_turns().
 */
unsigned int bfq_wr_greedy_turns(unsigned int turns,
				 enum bfq_expire_reason why,
				 unsigned int served, unsigned int max_budget)
{
	if ((why == BFQ_EXP_BUDGET || why == BFQ_EXP_TIMEOUT) &&
	    (u64)served * 2 >= max_budget)
		return turns + 1;
	return turns;
}

/* Rule 4: a sync queue is born at @now_ns; what that does to the burst. */
enum bfq_burst_step bfq_wr_burst_birth(struct bfq_burst *b, u64 now_ns)
{
	enum bfq_burst_step step;

	if (!b->size ||
	    now_ns - b->last_birth_ns >= BFQ_BURST_WINDOW_MS * NSEC_PER_MSEC) {
		b->size = 1;
		b->large = false;
		step = BFQ_BURST_STARTED;
	} else if (b->large) {
		if (b->size < UINT_MAX)
			b->size++;
		step = BFQ_BURST_IN_LARGE;
	} else if (++b->size >= BFQ_BURST_LARGE_SIZE) {
		b->large = true;
		step = BFQ_BURST_TURNED_LARGE;
	} else {
		step = BFQ_BURST_JOINED;
	}
	b->last_birth_ns = now_ns;
	return step;
}

/* ------------------------------------------------------------------ */
/* Queues                                                              */
/* ------------------------------------------------------------------ */

static bool bfq_wr_raisable(const struct bfq_queue *bfqq)
{
	return bfqq->sync && bfqq->ioprio_class == BFQ_CLASS_BE;
}

void bfq_wr_init(struct bfq_data *bfqd)
{
	INIT_LIST_HEAD(&bfqd->wr.burst_members);
	INIT_LIST_HEAD(&bfqd->wr.raised);
}

void bfq_wr_queue_init(struct bfq_queue *bfqq)
{
	bfqq->wr.coeff = 1;
	INIT_LIST_HEAD(&bfqq->wr.raised_node);
	INIT_LIST_HEAD(&bfqq->wr.burst_node);
}

/*
 * Rule 10: @bfqq's weight unraised (@aside) or raised again. At once if
 * the queue waits for a turn: stamped with its raised weight, its turn
 * would come as soon as if it still had it, and five readers waiting so
 * took a turn each, a full budget apiece, before the latest application's
 * next one. In service, from its next turn.
 */
static void bfq_wr_set_aside(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			     bool aside)
{
	if (bfqq->wr.aside == aside)
		return;
	bfqq->wr.aside = aside;
	bfq_queue_apply_weight(bfqq);
	bfq_entity_reweight(&bfqq->entity);
	bfq_log(bfqd, bfqq, "wr %s", aside ? "aside" : "back");
}

/*
 * Rule 10: whether the latest start-up is reading at @now_ns: one of its
 * queues has requests queued or in the device, or had an arrival or a
 * completion within BFQ_WR_APP_GAP_MS.
 */
static bool bfq_wr_latest_reads(struct bfq_data *bfqd, u64 now_ns)
{
	struct bfq_queue *bfqq;

	if (bfqd->wr.app_io_ns &&
	    now_ns - bfqd->wr.app_io_ns < (u64)BFQ_WR_APP_GAP_MS * NSEC_PER_MSEC)
		return true;
	list_for_each_entry(bfqq, &bfqd->wr.raised, wr.raised_node)
		if (bfq_wr_of_latest_startup(bfqd, bfqq) &&
		    (bfqq->nr_queued || bfqq->nr_in_driver))
			return true;
	return false;
}

/* Rule 10: a new start-up, @latest; the earlier ones' queues step aside. */
static void bfq_wr_put_aside(struct bfq_data *bfqd, struct bfq_queue *latest)
{
	struct bfq_queue *bfqq;

	list_for_each_entry(bfqq, &bfqd->wr.raised, wr.raised_node)
		if (bfqq != latest)
			bfq_wr_set_aside(bfqd, bfqq,
					 bfq_wr_aside(&bfqq->wr,
						      bfqd->wr.latest_from_ns,
						      true));
}

/*
 * @read: the request that raises the queue is a read. Only a read starts
 * a new start-up (rule 10): an application starting reads its code and
 * data, while a sync write after a pause (a journal's commit, every few
 * seconds) is no application the user has just started. Out of line:
 * inlined, it made bfq_wr_backlogged() save registers at every busy
 * period's start, which rarely raises.
 */
static noinline void bfq_wr_start(struct bfq_data *bfqd,
				  struct bfq_queue *bfqq, enum bfq_wr_kind kind,
				  bool read, u64 now_ns)
{
	struct bfq_wr_queue *wr = &bfqq->wr;
	u64 peak = bfqd->rate.nr_samples ? bfqd->rate.peak_sectors_per_sec : 0;

	lockdep_assert_held(&bfqd->lock);

	if (!peak && !bfq_queue_nonrot(bfqd->queue))
		peak = BFQ_WR_UNKNOWN_DISK_SECTORS_PER_SEC;

	if (wr->coeff == 1) {
		list_add_tail(&wr->raised_node, &bfqd->wr.raised);
		bfqd->wr.nr_raised++;
	}
	/* Rule 3: an interactive raising resumes when a soft one lapses. */
	if (kind == BFQ_WR_INTERACTIVE) {
		wr->int_dur_ns = 0;
	} else if (wr->coeff > 1 && wr->kind == BFQ_WR_INTERACTIVE) {
		wr->int_start_ns = wr->start_ns;
		wr->int_dur_ns = wr->dur_ns;
	}
	wr->kind = kind;
	wr->start_ns = now_ns;
	wr->greedy_turns = 0;
	wr->paced_ns = 0;
	wr->aside = false;
	if (kind == BFQ_WR_SOFT_RT) {
		wr->coeff = BFQ_WR_SOFTRT_COEFF;
		wr->dur_ns = (u64)BFQ_WR_SOFTRT_DURATION_MS * NSEC_PER_MSEC;
	} else {
		u64 from = now_ns > (u64)BFQ_WR_TOGETHER_MS * NSEC_PER_MSEC ?
			   now_ns - (u64)BFQ_WR_TOGETHER_MS * NSEC_PER_MSEC : 0;

		wr->coeff = BFQ_WR_COEFF;
		wr->dur_ns = bfq_wr_duration_ns(peak);
		if (read && from > bfqd->wr.latest_from_ns) {
			bfqd->wr.latest_from_ns = from;
			bfq_wr_put_aside(bfqd, bfqq);
		}
	}
	bfq_queue_apply_weight(bfqq);
	trace_bfq_wr_start(bfq_dev(bfqd), bfqq->pid, kind == BFQ_WR_SOFT_RT,
			   wr->coeff, div_u64(wr->dur_ns, NSEC_PER_MSEC));
	bfq_log(bfqd, bfqq, "wr start %s coeff=%u duration=%llums",
		kind == BFQ_WR_SOFT_RT ? "soft_rt" : "interactive", wr->coeff,
		div_u64(wr->dur_ns, NSEC_PER_MSEC));
}

static void bfq_wr_end(struct bfq_data *bfqd, struct bfq_queue *bfqq,
		       enum bfq_wr_end_reason why, u64 now_ns)
{
	struct bfq_wr_queue *wr = &bfqq->wr;
	u64 raised_ms;

	lockdep_assert_held(&bfqd->lock);

	if (wr->coeff == 1)
		return;
	raised_ms = div_u64(now_ns - wr->start_ns, NSEC_PER_MSEC);
	list_del_init(&wr->raised_node);
	bfqd->wr.nr_raised--;
	wr->coeff = 1;
	wr->kind = BFQ_WR_NONE;
	wr->aside = false;
	wr->int_dur_ns = 0;
	bfq_queue_apply_weight(bfqq);
	trace_bfq_wr_end(bfq_dev(bfqd), bfqq->pid, why, raised_ms);
	bfq_log(bfqd, bfqq, "wr end reason=%d after=%llums", why, raised_ms);
}

/* Raise @bfqq as @kind for what is left of a raising begun elsewhere. */
static void bfq_wr_resume(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			  enum bfq_wr_kind kind, unsigned int coeff,
			  u64 start_ns, u64 dur_ns)
{
	struct bfq_wr_queue *wr = &bfqq->wr;

	if (wr->coeff == 1) {
		list_add_tail(&wr->raised_node, &bfqd->wr.raised);
		bfqd->wr.nr_raised++;
	}
	wr->kind = kind;
	wr->coeff = coeff;
	wr->start_ns = start_ns;
	wr->dur_ns = dur_ns;
	wr->greedy_turns = 0;
	wr->paced_ns = 0;
	wr->aside = false;
	wr->int_dur_ns = 0;
	bfq_queue_apply_weight(bfqq);
}

/*
 * Rules 1, 3 and 6: end a raising that is over; a soft real-time raising
 * that lapses gives back the interactive one it suspended, if that runs.
 */
static void bfq_wr_check_end(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			     u64 now_ns)
{
	const struct bfq_wr_queue *wr = &bfqq->wr;

	if (wr->coeff == 1)
		return;
	if (!bfq_wr_enabled(bfqd)) {
		bfq_wr_end(bfqd, bfqq, BFQ_WR_END_OFF, now_ns);
		return;
	}
	if (!bfq_wr_raisable(bfqq)) {
		bfq_wr_end(bfqd, bfqq, BFQ_WR_END_CLASS, now_ns);
		return;
	}
	if (now_ns - wr->start_ns < wr->dur_ns)
		return;
	if (!wr->int_dur_ns || now_ns - wr->int_start_ns >= wr->int_dur_ns) {
		bfq_wr_end(bfqd, bfqq, BFQ_WR_END_EXPIRED, now_ns);
		return;
	}
	bfq_wr_resume(bfqd, bfqq, BFQ_WR_INTERACTIVE, BFQ_WR_COEFF,
		      wr->int_start_ns, wr->int_dur_ns);
	trace_bfq_wr_start(bfq_dev(bfqd), bfqq->pid, false, wr->coeff,
			   bfq_wr_left_ms(bfqq, now_ns));
}

/* Empty the list of the current burst's members. */
static void bfq_wr_burst_forget_members(struct bfq_data *bfqd,
					enum bfq_burst_member now_member)
{
	struct bfq_queue *bfqq, *next;

	list_for_each_entry_safe(bfqq, next, &bfqd->wr.burst_members,
				 wr.burst_node) {
		list_del_init(&bfqq->wr.burst_node);
		bfqq->wr.burst = now_member;
	}
}

/* Rule 4: the members of a burst that just became large lose raising. */
static void bfq_wr_burst_turn_large(struct bfq_data *bfqd, u64 now_ns)
{
	struct bfq_queue *bfqq;

	list_for_each_entry(bfqq, &bfqd->wr.burst_members, wr.burst_node)
		bfq_wr_end(bfqd, bfqq, BFQ_WR_END_BURST, now_ns);
	bfq_wr_burst_forget_members(bfqd, BFQ_BURST_LARGE);
}

/* Rule 4: a sync queue was created. Called from the insert path. */
void bfq_wr_queue_born(struct bfq_data *bfqd, struct bfq_queue *bfqq,
		       u64 now_ns)
{
	lockdep_assert_held(&bfqd->lock);

	if (!bfq_wr_enabled(bfqd) || !bfqq->sync)
		return;
	switch (bfq_wr_burst_birth(&bfqd->wr.burst, now_ns)) {
	case BFQ_BURST_STARTED:
		bfq_wr_burst_forget_members(bfqd, BFQ_BURST_NONE);
		fallthrough;
	case BFQ_BURST_JOINED:
		bfqq->wr.burst = BFQ_BURST_MEMBER;
		list_add_tail(&bfqq->wr.burst_node, &bfqd->wr.burst_members);
		break;
	case BFQ_BURST_TURNED_LARGE:
		bfq_wr_burst_turn_large(bfqd, now_ns);
		fallthrough;
	case BFQ_BURST_IN_LARGE:
		bfqq->wr.burst = BFQ_BURST_LARGE;
		break;
	}
}

/*
 * Queue merging (bfq-merge.c): what of @bfqq's low-latency state its
 * process gets back if it splits off again after merging.
 */
void bfq_wr_save(const struct bfq_queue *bfqq, struct bfq_merge_saved *s)
{
	s->large_burst = bfq_wr_born_in_large_burst(bfqq);
	s->wr_kind = bfqq->wr.kind;
	s->wr_coeff = bfqq->wr.coeff;
	s->wr_start_ns = bfqq->wr.start_ns;
	s->wr_dur_ns = bfqq->wr.dur_ns;
	s->wr_int_start_ns = bfqq->wr.int_start_ns;
	s->wr_int_dur_ns = bfqq->wr.int_dur_ns;
}

/*
 * Give @bfqq a raising of @kind from @start_ns for @dur_ns, if it still
 * runs at @now_ns, beside the one @bfqq has. Of each kind the later end is
 * kept, and rule 3 holds between the two: a soft real-time raising is the
 * queue's own while it runs, the interactive one (the queue's or the one
 * given) suspended under it. A raising taken over starts afresh as
 * bfq_wr_resume() says (rule 10's set-aside weight ends with it).
 */
static void bfq_wr_give(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			enum bfq_wr_kind kind, unsigned int coeff,
			u64 start_ns, u64 dur_ns, u64 now_ns)
{
	struct bfq_wr_queue *wr = &bfqq->wr;
	u64 int_start_ns = 0, int_dur_ns = 0;

	if (!dur_ns || now_ns - start_ns >= dur_ns)
		return;
	if (wr->coeff > 1 && wr->kind == BFQ_WR_SOFT_RT &&
	    kind == BFQ_WR_INTERACTIVE) {
		/* Under the queue's soft real-time raising. */
		if (!wr->int_dur_ns ||
		    start_ns + dur_ns > wr->int_start_ns + wr->int_dur_ns) {
			wr->int_start_ns = start_ns;
			wr->int_dur_ns = dur_ns;
		}
		return;
	}
	if (wr->coeff > 1 && wr->kind == kind) {
		if (start_ns + dur_ns <= wr->start_ns + wr->dur_ns)
			return;
		int_start_ns = wr->int_start_ns;
		int_dur_ns = wr->int_dur_ns;
	} else if (wr->coeff > 1) {
		/* A soft real-time raising over the queue's interactive one. */
		int_start_ns = wr->start_ns;
		int_dur_ns = wr->dur_ns;
	}
	bfq_wr_resume(bfqd, bfqq, kind, coeff, start_ns, dur_ns);
	wr->int_start_ns = int_start_ns;
	wr->int_dur_ns = int_dur_ns;
}

/*
 * The new queue of a process split off a merged queue gets back the state
 * it had when it merged: a large burst's membership for its life, a
 * raising if it has not lapsed meanwhile, with the interactive raising a
 * soft real-time one suspended (which goes on alone if the soft one
 * lapsed). It is no new queue to rule 1.
 */
void bfq_wr_restore(struct bfq_data *bfqd, struct bfq_queue *bfqq,
		    const struct bfq_merge_saved *s, u64 now_ns)
{
	lockdep_assert_held(&bfqd->lock);

	bfqq->wr.seen_busy = true;
	if (s->large_burst)
		bfqq->wr.burst = BFQ_BURST_LARGE;
	if (s->wr_coeff == 1 || !bfq_wr_enabled(bfqd) ||
	    !bfq_wr_raisable(bfqq))
		return;
	bfq_wr_give(bfqd, bfqq, s->wr_kind, s->wr_coeff, s->wr_start_ns,
		    s->wr_dur_ns, now_ns);
	bfq_wr_give(bfqd, bfqq, BFQ_WR_INTERACTIVE, BFQ_WR_COEFF,
		    s->wr_int_start_ns, s->wr_int_dur_ns, now_ns);
}

/*
 * @from merged into @to: @to keeps, of each kind of raising, the one of
 * the two that ends later, so that no process of the merged queue loses a
 * raising it was owed by merging; a soft real-time one over an
 * interactive one, as rule 3 says.
 */
void bfq_wr_merge(struct bfq_data *bfqd, struct bfq_queue *to,
		  const struct bfq_queue *from, u64 now_ns)
{
	const struct bfq_wr_queue *f = &from->wr;

	lockdep_assert_held(&bfqd->lock);

	if (f->coeff == 1 || !bfq_wr_raisable(to) || !bfq_wr_enabled(bfqd))
		return;
	bfq_wr_give(bfqd, to, f->kind, f->coeff, f->start_ns, f->dur_ns,
		    now_ns);
	bfq_wr_give(bfqd, to, BFQ_WR_INTERACTIVE, BFQ_WR_COEFF,
		    f->int_start_ns, f->int_dur_ns, now_ns);
}

/* The lifetime rule: called by bfq_put_queue() before it frees @bfqq. */
void bfq_wr_queue_exit(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	lockdep_assert_held(&bfqd->lock);

	/* Most queues die unraised: read the clock only for the trace. */
	if (bfqq->wr.coeff > 1)
		bfq_wr_end(bfqd, bfqq, BFQ_WR_END_EXIT, ktime_get_ns());
	list_del_init(&bfqq->wr.burst_node);
}

/*
 * Rule 9, a player's next frame: @wr, idle, has an arrival at @now_ns. Its
 * period is the mean gap between the starts of its busy periods, a new
 * gap weighing an eighth (a skipped frame moves it by an eighth of a
 * period); a gap longer than a soft real-time raising lasts makes it
 * unknown (0): no frame is expected then.
 */
static void bfq_wr_period_sample(struct bfq_wr_queue *wr, u64 now_ns)
{
	u64 gap = now_ns - wr->busy_since_ns;

	if (!wr->busy_since_ns || now_ns < wr->busy_since_ns ||
	    gap > (u64)BFQ_WR_SOFTRT_DURATION_MS * NSEC_PER_MSEC)
		wr->period_ns = 0;
	else if (!wr->period_ns)
		wr->period_ns = gap;
	else
		wr->period_ns = wr->period_ns - (wr->period_ns >> 3) +
				(gap >> 3);
}

/*
 * Rules 1 and 3: raise @bfqq, raisable, if its arrival at @now_ns earns
 * it; its process asked at @asked_ns (@paused: after its queue went idle;
 * @new_queue: it had never been backlogged). Called last by
 * bfq_wr_backlogged(), only while something may be raised (low_latency 1,
 * a queue of the BE class).
 */
static void bfq_wr_arrival(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			   u64 now_ns, u64 asked_ns, bool read,
			   bool new_queue, bool paused)
{
	const struct bfq_wr_queue *wr = &bfqq->wr;
	struct bfq_wr_arrival a = {
		.new_queue = new_queue,
		.was_idle = paused,
		.large_burst = wr->burst == BFQ_BURST_LARGE,
		.interactive = wr->kind == BFQ_WR_INTERACTIVE,
		.pauses_long = bfq_wr_pauses_long(bfqq->think_ns,
				READ_ONCE(bfqd->tun.slice_idle_ns)),
		.now_ns = asked_ns,
		.idle_since_ns = wr->idle_since_ns,
		.softrt_batches = wr->softrt_batches,
	};
	enum bfq_wr_kind kind = bfq_wr_choose(&a);

	if (kind != BFQ_WR_NONE)
		bfq_wr_start(bfqd, bfqq, kind, read, now_ns);
}

/*
 * Rules 1 and 3: @bfqq became backlogged at @now_ns, from idle or from
 * serving requests still in the device; its process asked for the request
 * at @asked_ns (earlier when it waited for a scheduler tag: rule 8). The
 * rules judge the process's pause, which ended when it asked: one that
 * asked before its queue went idle did not pause at all. Called before the
 * service layer activates the queue, so that a new weight applies to this
 * turn.
 */
void bfq_wr_backlogged(struct bfq_data *bfqd, struct bfq_queue *bfqq,
		       u64 now_ns, u64 asked_ns, bool read)
{
	struct bfq_wr_queue *wr = &bfqq->wr;
	bool paused, new_queue;

	lockdep_assert_held(&bfqd->lock);

	if (wr->coeff > 1)
		bfq_wr_check_end(bfqd, bfqq, now_ns);
	if (!bfqq->sync)
		return;
	paused = wr->idle && asked_ns >= wr->idle_since_ns;
	new_queue = !wr->seen_busy;
	/* Kept with low_latency off too: writing 1 finds the history. */
	if (wr->idle && !paused)	/* asked before it went idle: early */
		wr->softrt_batches = 0;
	else
		wr->softrt_batches = bfq_wr_softrt_batches(wr->softrt_batches,
							   paused, asked_ns,
							   wr->softrt_next_start_ns);
	wr->seen_busy = true;
	if (wr->idle) {
		bfq_wr_period_sample(wr, now_ns);
		wr->idle = false;
		wr->busy_since_ns = now_ns;
		wr->busy_sectors = 0;
	}
	if (bfq_wr_enabled(bfqd) && bfq_wr_raisable(bfqq))
		bfq_wr_arrival(bfqd, bfqq, now_ns, asked_ns, read, new_queue,
			       paused);
}

/* Rules 3 and 9: @sectors of @bfqq left for the device. */
void bfq_wr_dispatched(struct bfq_queue *bfqq, unsigned int sectors)
{
	bfqq->wr.busy_sectors += sectors;
	bfqq->wr.frame_held_ns = 0;
}

/*
 * Rule 3: the busy period of @bfqq ended at @now_ns (bfq_wr_maybe_idle()
 * found it idle).
 */
void bfq_wr_went_idle(struct bfq_data *bfqd, struct bfq_queue *bfqq,
		      u64 now_ns)
{
	struct bfq_wr_queue *wr = &bfqq->wr;

	lockdep_assert_held(&bfqd->lock);

	wr->idle = true;
	wr->idle_since_ns = now_ns;
	wr->softrt_next_start_ns =
		bfq_wr_softrt_next_start_ns(wr->busy_since_ns, wr->busy_sectors,
					    now_ns,
					    READ_ONCE(bfqd->tun.slice_idle_ns));
}

/* @bfqq got the device: a lapsed raising ends before its turn runs. */
void bfq_wr_selected(struct bfq_data *bfqd, struct bfq_queue *bfqq,
		     u64 now_ns)
{
	lockdep_assert_held(&bfqd->lock);

	bfq_wr_check_end(bfqd, bfqq, now_ns);
}

/* Rule 2: @bfqq reads at random without waiting for its reads. */
static bool bfq_wr_async_reader(const struct bfq_queue *bfqq)
{
	return bfqq->wr.kind == BFQ_WR_INTERACTIVE && bfq_seeky(bfqq) &&
	       bfqq->nr_queued + bfqq->nr_in_driver >= BFQ_WR_ASYNC_READS;
}

/*
 * Rule 2: the turn of @bfqq ended for @why after @served sectors, with
 * max_budget @max_budget. Called before the service layer requeues it, so
 * that an ended raising applies to its next turn.
 */
void bfq_wr_expired(struct bfq_data *bfqd, struct bfq_queue *bfqq,
		    enum bfq_expire_reason why, unsigned int served,
		    unsigned int max_budget, u64 now_ns)
{
	struct bfq_wr_queue *wr = &bfqq->wr;

	lockdep_assert_held(&bfqd->lock);

	if (wr->coeff == 1)
		return;
	wr->greedy_turns = bfq_wr_greedy_turns(wr->greedy_turns, why, served,
					       max_budget);
	if (wr->greedy_turns >=
	    bfq_wr_bulk_turns(wr->dur_ns,
			      READ_ONCE(bfqd->tun.timeout_sync_ms)) ||
	    bfq_wr_async_reader(bfqq))
		bfq_wr_end(bfqd, bfqq, BFQ_WR_END_BULK, now_ns);
	else
		bfq_wr_check_end(bfqd, bfqq, now_ns);
	if (wr->coeff > 1)
		bfq_wr_set_aside(bfqd, bfqq,
				 bfq_wr_aside(wr, bfqd->wr.latest_from_ns,
					      bfq_wr_latest_reads(bfqd, now_ns)));
}

/*
 * Rule 2, for a queue with a waker (bfq-inject.c rule 4): its turn in
 * service, ending now, held the device for @turn_ns, for its requests,
 * its waker's and the pauses between them. Its sectors say nothing of
 * that (an fsync loop moves 8 a request), so the time counts: each half
 * of timeout_sync of it is one greedy turn. Called before
 * bfq_wr_expired(), which ends the raising at bfq_wr_bulk_turns().
 */
void bfq_wr_paced(struct bfq_data *bfqd, struct bfq_queue *bfqq, u64 turn_ns)
{
	struct bfq_wr_queue *wr = &bfqq->wr;
	u64 half_ns = (u64)READ_ONCE(bfqd->tun.timeout_sync_ms) *
		      (NSEC_PER_MSEC / 2);

	lockdep_assert_held(&bfqd->lock);

	if (wr->coeff == 1 || !half_ns)
		return;
	wr->paced_ns += turn_ns;
	wr->greedy_turns += div64_u64_rem(wr->paced_ns, half_ns,
					  &wr->paced_ns);
}

/* Rule 6: low_latency was written 0. Called from the sysfs store. */
void bfq_wr_end_all(struct bfq_data *bfqd)
{
	struct bfq_queue *bfqq, *next;
	u64 now_ns = ktime_get_ns();

	lockdep_assert_held(&bfqd->lock);

	list_for_each_entry_safe(bfqq, next, &bfqd->wr.raised, wr.raised_node)
		bfq_wr_end(bfqd, bfqq, BFQ_WR_END_OFF, now_ns);
	bfq_wr_burst_forget_members(bfqd, BFQ_BURST_NONE);
	bfqd->wr.burst.size = 0;
}

/* Rule 5: whether @bfqq is raised at @now_ns and must be idled for. */
bool bfq_wr_needs_idling(struct bfq_data *bfqd, const struct bfq_queue *bfqq,
			 u64 now_ns)
{
	const struct bfq_wr_queue *wr = &bfqq->wr;

	return bfq_wr_enabled(bfqd) && wr->kind == BFQ_WR_INTERACTIVE &&
	       now_ns - wr->start_ns < wr->dur_ns;
}

/*
 * Rule 5: whether the idling for @bfqq, interactively raised and in
 * service, gives way at @now_ns to the next queue in the service order,
 * raised as an application starting too, on a device that serves several
 * requests at once.
 */
bool bfq_wr_yields(struct bfq_data *bfqd, const struct bfq_queue *bfqq,
		   u64 now_ns)
{
	struct bfq_entity *next;
	struct bfq_queue *other;

	lockdep_assert_held(&bfqd->lock);

	if (READ_ONCE(bfqd->driver_depth) < 2)
		return false;
	next = bfq_sched_peek(&bfqd->sched, bfqq->entity.class_idx);
	if (!next)
		return false;
	other = container_of(next, struct bfq_queue, entity);
	return other != bfqq && bfq_wr_needs_idling(bfqd, other, now_ns) &&
	       other->wr.start_ns + (u64)BFQ_WR_TOGETHER_MS * NSEC_PER_MSEC >=
	       bfqq->wr.start_ns;
}

/* Rule 9: whether the latest start-up had I/O in the last gap. */
static bool bfq_wr_app_reading(struct bfq_data *bfqd, u64 now_ns)
{
	u64 last = bfqd->wr.app_io_ns;

	return last && bfq_wr_enabled(bfqd) &&
	       now_ns - last < (u64)BFQ_WR_APP_GAP_MS * NSEC_PER_MSEC;
}

/*
 * Rule 9: whether a soft real-time queue had I/O within its raising's
 * length, on a device where one request ahead costs a frame a seek.
 */
static bool bfq_wr_softrt_playing(struct bfq_data *bfqd, u64 now_ns)
{
	u64 last = bfqd->wr.softrt_io_ns;

	return last && bfq_wr_enabled(bfqd) &&
	       now_ns - last < (u64)BFQ_WR_SOFTRT_DURATION_MS * NSEC_PER_MSEC &&
	       bfq_rate_seek_costly(&bfqd->seek);
}

/*
 * Rule 9: bfq_wr_holds_back() past its first test (the device holds
 * something, @bfqq is no soft real-time queue).
 */
bool bfq_wr_holds_back_busy(struct bfq_data *bfqd,
			    const struct bfq_queue *bfqq, u64 now_ns)
{
	lockdep_assert_held(&bfqd->lock);

	/* A frame before a start-up: a glitch is seen, a delay is not. */
	if (bfq_wr_softrt_playing(bfqd, now_ns))
		return true;
	return !bfq_wr_of_latest_startup(bfqd, bfqq) &&
	       bfq_wr_app_reading(bfqd, now_ns);
}

/*
 * Rule 9, a player's next frame: whether @bfqq's requests go whatever the
 * players' next frames: a player's own, and those of a process that sends
 * a request and waits for it (it pauses longer than the device would idle
 * for it, or its queue has had nothing served yet).
 */
bool bfq_wr_frame_exempt(struct bfq_data *bfqd, const struct bfq_queue *bfqq)
{
	return bfqq->wr.kind == BFQ_WR_SOFT_RT || !bfqq->last_done_ns ||
	       bfq_wr_pauses_long(bfqq->think_ns,
				  READ_ONCE(bfqd->tun.slice_idle_ns));
}

/*
 * Rule 9, a player's next frame: how long a request of @sectors of @bfqq,
 * about to go into the empty device at @now_ns, waits for a soft real-time
 * queue's frame due before the request would leave the device (0: it may
 * go). Only a process that keeps the device busy is held: one that pauses
 * longer than the device would idle for it, or whose queue has had no
 * request served yet (a player not yet recognised as one, a new
 * application's first read), sends one request and waits for it. The
 * request's cost is what a far request of its size took the device
 * alone, and a quarter more: on the lab's disk the slowest of them took
 * 1.3 times the mean (a rotation on top of the seek). A frame is due a
 * period after its queue's last arrival and is waited for until a
 * quarter of the mean cost past that, then taken as skipped: holding
 * longer would not help such a frame, which would come to a request that
 * leaves the device sooner than the held one would have.
 */
u64 bfq_wr_frame_wait(struct bfq_data *bfqd, const struct bfq_queue *bfqq,
		      unsigned int sectors, u64 now_ns)
{
	const struct bfq_queue *p;
	u64 cost, wait = 0;

	lockdep_assert_held(&bfqd->lock);

	if (bfq_wr_frame_exempt(bfqd, bfqq) ||
	    !bfq_wr_softrt_playing(bfqd, now_ns))
		return 0;
	cost = bfq_rate_seek_far_ns(&bfqd->seek, sectors);
	if (!cost)
		return 0;
	list_for_each_entry(p, &bfqd->wr.raised, wr.raised_node) {
		u64 due, until;

		if (p->wr.kind != BFQ_WR_SOFT_RT || !p->wr.idle ||
		    !p->wr.period_ns)
			continue;
		due = p->wr.busy_since_ns + p->wr.period_ns;
		until = due + cost / 4;
		if (now_ns >= until || now_ns + cost + cost / 4 <= due)
			continue;
		if (!wait || until - now_ns < wait)
			wait = until - now_ns;
	}
	return wait;
}

/*
 * Rule 9, writeback: how long an async request of @bfqq, at @now_ns, still
 * waits (0: it may go) while the latest start-up reads.
 */
u64 bfq_wr_async_paced(struct bfq_data *bfqd, const struct bfq_queue *bfqq,
		       u64 now_ns)
{
	u64 sent = bfqd->wr.async_sent_ns, rate, next;

	lockdep_assert_held(&bfqd->lock);

	if (bfqq->sync || !sent || !bfq_wr_app_reading(bfqd, now_ns))
		return 0;
	/*
	 * The last async request's transfer at the device's measured rate,
	 * BFQ_WR_COEFF times (BFQ_WR_APP_GAP_MS while no rate is known). A
	 * device slow for every request is slow for the application too,
	 * so the wait is as long: it lasts only while the application
	 * reads, and its raising is bounded.
	 */
	rate = bfq_rate_drain(&bfqd->rate);
	next = sent + (rate ? div64_u64((u64)bfqd->wr.async_sent_sectors *
					BFQ_WR_COEFF * NSEC_PER_SEC, rate) :
			      (u64)BFQ_WR_APP_GAP_MS * NSEC_PER_MSEC);
	return now_ns < next ? next - now_ns : 0;
}

/*
 * Rule 8: whether the process of @bfqq, asking at @now_ns, may take the
 * scheduler tags kept for applications a user waits for. No bfq_data.lock
 * (but in a CONFIG_BFQ_DEBUG_QUEUE_FREE build): the caller holds
 * rcu_read_lock() and bfq_queue is SLAB_TYPESAFE_BY_RCU, so @bfqq is
 * some queue's memory, maybe no longer this process's;
 * data_race() marks the plain reads of fields written under the lock. A
 * wrong answer only moves one tag allocation between the shared tags and
 * the kept ones.
 */
bool bfq_wr_tag_reserve(struct bfq_data *bfqd, const struct bfq_queue *bfqq,
			u64 now_ns)
{
	const struct bfq_wr_queue *wr = &bfqq->wr;
	/* Each racy read below may be stale: see the comment above. */
	enum bfq_class class = data_race(bfqq->ioprio_class);
	/* Racy: see above. */
	enum bfq_wr_kind kind = data_race(wr->kind);
	/* Rule 1's own test on the queue's idleness; racy: see above. */
	struct bfq_wr_arrival a = {
		/* Racy: see above. */
		.was_idle = data_race(wr->idle),
		/* Racy: see above. */
		.large_burst = data_race(wr->burst) == BFQ_BURST_LARGE,
		.now_ns = now_ns,
		/* Racy: see above. */
		.idle_since_ns = data_race(wr->idle_since_ns),
	};

	if (!bfq_wr_enabled(bfqd) || class != BFQ_CLASS_BE || a.large_burst)
		return false;
	return kind != BFQ_WR_NONE || bfq_wr_choose(&a) == BFQ_WR_INTERACTIVE;
}

/*
 * Rule 8 for a process that has no queue on the device yet (its first
 * request there): rule 1 raises the queue it is about to get unless it is
 * born in a large burst, so the tags are kept for it too. Racy reads of
 * the burst, as in bfq_wr_tag_reserve(): a stale answer keeps the tags a
 * little longer, or costs the newcomer one wait for a tag.
 */
bool bfq_wr_newcomer_raisable(struct bfq_data *bfqd, u64 now_ns)
{
	const struct bfq_burst *b = &bfqd->wr.burst;
	/*
	 * Racy, see above; signed: another CPU may have stored a time
	 * later than ours.
	 */
	s64 since = now_ns - data_race(b->last_birth_ns);
	/* Racy: see above. */
	bool large = data_race(b->large) && data_race(b->size);

	if (!bfq_wr_enabled(bfqd))
		return false;
	return !large || since >= (s64)BFQ_BURST_WINDOW_MS * NSEC_PER_MSEC;
}

/* Rule 7: whether @bfqq, just backlogged, takes the device from @cur. */
bool bfq_wr_preempts_queue(struct bfq_data *bfqd, const struct bfq_queue *bfqq,
			   const struct bfq_queue *cur)
{
	return bfq_wr_enabled(bfqd) &&
	       bfq_wr_coeff_preempts(bfq_wr_coeff(bfqq), bfq_wr_coeff(cur),
				     bfqq->ioprio_class == cur->ioprio_class);
}

/* Rule 4: whether @bfqq was born in a large burst (no idling to protect it). */
bool bfq_wr_in_large_burst(struct bfq_data *bfqd,
			   const struct bfq_queue *bfqq)
{
	return bfq_wr_enabled(bfqd) && bfq_wr_born_in_large_burst(bfqq);
}

/* For debugfs: what is left of the raising of @bfqq, in ms. */
u64 bfq_wr_left_ms(const struct bfq_queue *bfqq, u64 now_ns)
{
	const struct bfq_wr_queue *wr = &bfqq->wr;
	u64 elapsed = now_ns - wr->start_ns;

	if (wr->coeff == 1 || elapsed >= wr->dur_ns)
		return 0;
	return div_u64(wr->dur_ns - elapsed, NSEC_PER_MSEC);
}

#ifdef CONFIG_BFQ_KUNIT_TEST
#include "bfq-wr-test.c"
#endif
