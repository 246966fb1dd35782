// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of bfq-tags.c: the writes' share as a count (rule 1), whom
 * the kept tags go to and when they are kept (rules 2 and 3). #included at
 * the end of bfq-tags.c.
 */
#include <kunit/test.h>

#include "bfq-test.h"

/*
 * Rule 1 on a one-request device (2 tags): a sync write with no write
 * holding a tag, or an async one with no async holding one, asks as a
 * read (no limit); once its kind holds its share (1 tag), it is limited to
 * that share; given back, free again. Reads are never limited here. On
 * 64 tags the share is the prefix, always.
 */
static void bfq_tags_write_share_counted(struct kunit *test)
{
	struct bfq_data *bfqd = bfq_test_bfqd(test);
	const blk_opf_t sw = REQ_OP_WRITE | REQ_SYNC, aw = REQ_OP_WRITE;
	const blk_opf_t rd = REQ_OP_READ;

	bfq_tags_set_depths(bfqd, 2);
	KUNIT_EXPECT_EQ(test, bfqd->tags.sync_write_depth, 1U);
	KUNIT_EXPECT_EQ(test, bfqd->tags.async_depth, 1U);
	KUNIT_EXPECT_EQ(test, bfq_tags_write_limit(bfqd, sw), 0U);
	KUNIT_EXPECT_EQ(test, bfq_tags_write_limit(bfqd, aw), 0U);

	/* A reader's two requests hold both tags: writes still unlimited. */
	bfq_tags_taken(bfqd, bfq_tag_kind_of(rd));
	bfq_tags_taken(bfqd, bfq_tag_kind_of(rd));
	KUNIT_EXPECT_EQ(test, bfq_tags_write_limit(bfqd, sw), 0U);

	/* One sync write holds a tag: the next is limited, async is not. */
	bfq_tags_given_back(bfqd, bfq_tag_kind_of(rd));
	bfq_tags_taken(bfqd, bfq_tag_kind_of(sw));
	KUNIT_EXPECT_EQ(test, bfq_tags_write_limit(bfqd, sw), 1U);
	KUNIT_EXPECT_EQ(test, bfq_tags_write_limit(bfqd, aw), 0U);
	KUNIT_EXPECT_EQ(test, bfq_tags_write_limit(bfqd, rd), 0U);
	bfq_tags_taken(bfqd, bfq_tag_kind_of(aw));
	KUNIT_EXPECT_EQ(test, bfq_tags_write_limit(bfqd, aw), 1U);

	bfq_tags_given_back(bfqd, bfq_tag_kind_of(sw));
	bfq_tags_given_back(bfqd, bfq_tag_kind_of(aw));
	bfq_tags_given_back(bfqd, bfq_tag_kind_of(rd));
	KUNIT_EXPECT_EQ(test, atomic_read(&bfqd->tags.nr_tagged), 0);
	KUNIT_EXPECT_EQ(test, bfq_tags_write_limit(bfqd, sw), 0U);
	KUNIT_EXPECT_EQ(test, bfq_tags_write_limit(bfqd, aw), 0U);

	/*
	 * The kind is taken once, at prepare, and given back as taken: a
	 * cached plug request is prepared with one bio's flags and used for
	 * another's. PREFLUSH counts as sync, as the block layer makes it.
	 */
	KUNIT_EXPECT_EQ(test, bfq_tag_kind_of(aw | REQ_PREFLUSH),
			BFQ_TAG_SYNC_WRITE);
	KUNIT_EXPECT_EQ(test, bfq_tag_kind_of(aw), BFQ_TAG_ASYNC);
	KUNIT_EXPECT_EQ(test, bfq_tag_kind_of(rd), BFQ_TAG_READ);
	bfq_tags_taken(bfqd, BFQ_TAG_ASYNC);
	bfq_tags_given_back(bfqd, BFQ_TAG_ASYNC);
	KUNIT_EXPECT_EQ(test, atomic_read(&bfqd->tags.nr_write_tagged), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&bfqd->tags.nr_async_tagged), 0);

	/* A count read below zero (a give-back seen first) limits nothing. */
	atomic_set(&bfqd->tags.nr_write_tagged, -1);
	KUNIT_EXPECT_EQ(test, bfq_tags_write_limit(bfqd, sw), 0U);
	atomic_set(&bfqd->tags.nr_write_tagged, 0);

	/* 64 tags: the prefix always, 48 for sync writes and 32 for async. */
	bfq_tags_set_depths(bfqd, 64);
	KUNIT_EXPECT_EQ(test, bfq_tags_write_limit(bfqd, sw), 48U);
	KUNIT_EXPECT_EQ(test, bfq_tags_write_limit(bfqd, aw), 32U);
	KUNIT_EXPECT_EQ(test, bfq_tags_write_limit(bfqd, rd), 0U);
}

/*
 * Rule 2: the tags kept for raised queues (bfq_wr_tag_reserve()) go also to
 * a process whose group holds no tag while another group holds some, and
 * are kept while the requests of several groups follow one another; with
 * every queue in the root group nothing changes.
 */
static void bfq_tags_kept_for_tagless_group(struct kunit *test)
{
	struct bfq_data *bfqd = bfq_test_bfqd(test);
	struct bfq_queue *qb = bfq_test_queue(test, bfqd, 2);
	u64 now_ns;
	bool kept_for;
#ifdef CONFIG_BFQ_GROUP_IOSCHED
	struct bfq_queue *qa = bfq_test_queue(test, bfqd, 1);
	struct bfq_group *ga, *gb;
#endif

	/* Rule 8's own reasons to keep tags off: no raising. */
	bfqd->tun.low_latency = 0;

	/* Flat: one request of the root group holds a tag. */
	spin_lock_irq(&bfqd->lock);
	bfq_tags_count_group(bfqd, NULL, true);
	spin_unlock_irq(&bfqd->lock);
	atomic_set(&bfqd->tags.nr_tagged, 1);
	now_ns = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, bfqd->tags.root_held, 1U);
	KUNIT_EXPECT_FALSE(test, bfq_tags_reserved_for(bfqd, qb, now_ns, &kept_for));
	KUNIT_EXPECT_FALSE(test, kept_for);
	KUNIT_EXPECT_FALSE(test, bfq_tags_kept(bfqd, now_ns));
	spin_lock_irq(&bfqd->lock);
	bfq_tags_count_group(bfqd, NULL, false);
	spin_unlock_irq(&bfqd->lock);
	atomic_set(&bfqd->tags.nr_tagged, 0);
	KUNIT_EXPECT_EQ(test, bfqd->tags.root_held, 0U);

#ifdef CONFIG_BFQ_GROUP_IOSCHED
	/* Two groups: A's request holds the only tag taken. */
	ga = kunit_kzalloc(test, sizeof(*ga), GFP_KERNEL);
	gb = kunit_kzalloc(test, sizeof(*gb), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ga);
	KUNIT_ASSERT_NOT_NULL(test, gb);
	qa->bfqg = ga;
	qb->bfqg = gb;
	spin_lock_irq(&bfqd->lock);
	bfq_tags_count_group(bfqd, ga, true);
	spin_unlock_irq(&bfqd->lock);
	atomic_set(&bfqd->tags.nr_tagged, 1);
	now_ns = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, ga->tags_held, 1U);
	KUNIT_EXPECT_TRUE(test, bfq_tags_kept(bfqd, now_ns));
	/* B holds none: its process may take the kept tags. */
	KUNIT_EXPECT_TRUE(test, bfq_tags_reserved_for(bfqd, qb, now_ns, &kept_for));
	KUNIT_EXPECT_TRUE(test, kept_for);
	/* A holds one, and is not in service: it may not. */
	KUNIT_EXPECT_FALSE(test, bfq_tags_reserved_for(bfqd, qa, now_ns, &kept_for));
	KUNIT_EXPECT_FALSE(test, kept_for);
	/* Nor may B once it holds one too. */
	spin_lock_irq(&bfqd->lock);
	bfq_tags_count_group(bfqd, gb, true);
	spin_unlock_irq(&bfqd->lock);
	atomic_set(&bfqd->tags.nr_tagged, 2);
	KUNIT_EXPECT_FALSE(test, bfq_tags_reserved_for(bfqd, qb, now_ns, &kept_for));
	/* Kept for BFQ_TAG_KEEP_MS after the last change of group. */
	KUNIT_EXPECT_TRUE(test, bfq_tags_kept(bfqd, now_ns));
	KUNIT_EXPECT_FALSE(test, bfq_tags_kept(bfqd, bfqd->tags.groups_io_ns +
					       BFQ_TAG_KEEP_MS * NSEC_PER_MSEC));
	/* Every tag given back: nobody holds one, nothing to keep for. */
	spin_lock_irq(&bfqd->lock);
	bfq_tags_count_group(bfqd, ga, false);
	bfq_tags_count_group(bfqd, gb, false);
	spin_unlock_irq(&bfqd->lock);
	atomic_set(&bfqd->tags.nr_tagged, 0);
	KUNIT_EXPECT_EQ(test, gb->tags_held, 0U);
	KUNIT_EXPECT_FALSE(test, bfq_tags_reserved_for(bfqd, qb, now_ns, &kept_for));
	qa->bfqg = NULL;
	qb->bfqg = NULL;
#endif
}

/*
 * The writer of a write+fsync loop on a one-request device (2 tags), idled
 * for while its journal thread works: a reader's request holds one tag,
 * the journal's write the other. The journal's tag comes back before the
 * writer's next request (rule 4 of bfq-inject.c serves it while the
 * device idles), so the tags are not exhausted for the writer; a queue
 * that has no waker finds them so. And the tag kept for the queue in
 * service (rule 2) is its waker's too: the journal, not raised, may take
 * it while the writer is in service, and not once the writer's turn ends.
 */
static void bfq_tags_waker_of_served(struct kunit *test)
{
	struct bfq_data *bfqd = bfq_test_bfqd(test);
	struct bfq_queue *writer = bfq_test_queue(test, bfqd, 1);
	struct bfq_queue *jbd2 = bfq_test_queue(test, bfqd, 2);
	struct bfq_queue *reader = bfq_test_queue(test, bfqd, 3);
	u64 now_ns = ktime_get_ns();
	bool kept_for;

	bfqd->tun.low_latency = 0;
	bfqd->queue->nr_requests = 2;
	bfq_tags_set_depths(bfqd, 2);
	atomic_set(&bfqd->tags.nr_tagged, 2);
	jbd2->nr_queued = 1;
	reader->nr_queued = 1;
	KUNIT_EXPECT_TRUE(test, bfq_tags_exhausted(bfqd, writer));
	writer->inj.waker = jbd2;
	KUNIT_EXPECT_FALSE(test, bfq_tags_exhausted(bfqd, writer));
	/* Its own request in the device, and the journal's queued: free. */
	atomic_set(&bfqd->tags.nr_tagged, 3);
	writer->nr_in_driver = 1;
	KUNIT_EXPECT_FALSE(test, bfq_tags_exhausted(bfqd, writer));
	writer->nr_in_driver = 0;
	atomic_set(&bfqd->tags.nr_tagged, 2);
	/* The reader's second request, not the journal's: exhausted. */
	jbd2->nr_queued = 0;
	KUNIT_EXPECT_TRUE(test, bfq_tags_exhausted(bfqd, writer));

	/* The kept tag: the writer in service, its waker known. */
	atomic_set(&bfqd->tags.nr_tagged, 1);
	spin_lock_irq(&bfqd->lock);
	bfq_tags_count_group(bfqd, NULL, true);
	bfqd->in_service_bfqq = writer;
	bfq_tags_served_changed(bfqd);
	spin_unlock_irq(&bfqd->lock);
	KUNIT_EXPECT_TRUE(test, bfq_tags_reserved_for(bfqd, jbd2, now_ns,
						      &kept_for));
	KUNIT_EXPECT_FALSE(test, bfq_tags_reserved_for(bfqd, reader, now_ns,
						       &kept_for));
	spin_lock_irq(&bfqd->lock);
	bfqd->in_service_bfqq = reader;
	bfq_tags_served_changed(bfqd);
	spin_unlock_irq(&bfqd->lock);
	KUNIT_EXPECT_FALSE(test, bfq_tags_reserved_for(bfqd, jbd2, now_ns,
						       &kept_for));
	spin_lock_irq(&bfqd->lock);
	bfqd->in_service_bfqq = NULL;
	bfq_tags_served_changed(bfqd);
	bfq_tags_count_group(bfqd, NULL, false);
	spin_unlock_irq(&bfqd->lock);
	KUNIT_EXPECT_PTR_EQ(test, bfqd->tags.served_waker, NULL);
	writer->inj.waker = NULL;
}

static struct kunit_case bfq_tags_cases[] = {
	KUNIT_CASE(bfq_tags_write_share_counted),
	KUNIT_CASE(bfq_tags_kept_for_tagless_group),
	KUNIT_CASE(bfq_tags_waker_of_served),
	{}
};

static struct kunit_suite bfq_tags_suite = {
	.name = "bfq_tags",
	.test_cases = bfq_tags_cases,
};

kunit_test_suite(bfq_tags_suite);
