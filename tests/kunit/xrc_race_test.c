// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: open/close/destroy/create/event races between kthreads, under the
 * test kernel's KASAN and lockdep. Never a share to a freed QP (KASAN),
 * never an event after close (the context is poisoned, then freed), every
 * count back to zero.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/random.h>
#include <linux/slab.h>

#include "suite.h"
#include "xqp_test.h"

#define RACE_SLOTS 8
#define RACE_OPENERS 3
#define RACE_ROUNDS 400
#define CTX_LIVE 0x4c495645u
#define CTX_CLOSED 0x434c4f53u

struct race {
	struct kunit *test;
	struct xqp_soft *soft;
	struct xqp_xrcd *xrcd;
	u32 qpn[RACE_SLOTS];		/* READ_ONCE/WRITE_ONCE */
	atomic_t stop;
	atomic_t running;
	atomic_t late_events;
	atomic_t opens;
	atomic_t bad_errno;
	struct completion done;
};

struct race_ctx {
	u32 magic;
	struct race *race;
};

static void race_handler(struct xqp_event *ev, void *ctx)
{
	struct race_ctx *c = ctx;

	if (READ_ONCE(c->magic) != CTX_LIVE)
		atomic_inc(&c->race->late_events);
}

static void race_exit(struct race *r)
{
	if (atomic_dec_and_test(&r->running))
		complete(&r->done);
}

static int race_opener(void *arg)
{
	struct race *r = arg;

	while (!atomic_read(&r->stop)) {
		u32 qpn = READ_ONCE(r->qpn[get_random_u32_below(RACE_SLOTS)]);
		struct race_ctx *c;
		struct xqp_qp *h;

		if (!qpn) {
			cond_resched();
			continue;
		}
		c = kzalloc(sizeof(*c), GFP_KERNEL);
		if (!c)
			break;
		c->magic = CTX_LIVE;
		c->race = r;
		h = xqp_kt_open(r->test, r->xrcd, qpn, race_handler, c);
		if (IS_ERR(h)) {
			if (PTR_ERR(h) != -EINVAL)
				atomic_inc(&r->bad_errno);
			kfree(c);
			continue;
		}
		atomic_inc(&r->opens);
		if (get_random_u32_below(2))
			xqp_close_qp(h);
		else
			xqp_destroy_qp(h);
		WRITE_ONCE(c->magic, CTX_CLOSED);
		kfree(c);
		cond_resched();
	}
	race_exit(r);
	return 0;
}

static int race_eventer(void *arg)
{
	struct race *r = arg;
	unsigned int i = 0;

	while (!atomic_read(&r->stop)) {
		u32 qpn = READ_ONCE(r->qpn[i++ % RACE_SLOTS]);

		if (qpn)
			xqp_soft_raise_qp_event(r->soft, qpn, XQP_EVENT_COMM_EST);
		cond_resched();
	}
	race_exit(r);
	return 0;
}

static void churn(struct kunit *test, struct race *r)
{
	int i;

	for (i = 0; i < RACE_ROUNDS; i++) {
		struct xqp_qp *h = xqp_kt_create_tgt(test, r->xrcd, NULL, NULL);
		u32 qpn = xqp_qp_num(h);

		WRITE_ONCE(r->qpn[get_random_u32_below(RACE_SLOTS)], qpn);
		usleep_range(20, 100);	/* let the openers find it */
		if (get_random_u32_below(2)) {
			KUNIT_EXPECT_EQ(test, xqp_destroy_qp(h), 0);
		} else {
			struct xqp_qp *o;

			KUNIT_EXPECT_EQ(test, xqp_close_qp(h), 0);
			o = xqp_kt_open(test, r->xrcd, qpn, NULL, NULL);
			if (!IS_ERR(o))
				KUNIT_EXPECT_EQ(test, xqp_destroy_qp(o), 0);
		}
	}
}

static void open_close_destroy_event_race(struct kunit *test)
{
	struct xqp_kt *kt = xqp_kt(test);
	struct race *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct task_struct *t;
	u32 qpn;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->test = test;
	r->soft = kt->soft;
	r->xrcd = xqp_alloc_xrcd(kt->dev);
	KUNIT_ASSERT_FALSE(test, IS_ERR(r->xrcd));
	init_completion(&r->done);
	atomic_set(&r->running, RACE_OPENERS + 1);
	for (i = 0; i < RACE_OPENERS + 1; i++) {
		t = kthread_run(i ? race_opener : race_eventer, r, "xqp_race%d", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	}
	churn(test, r);
	atomic_set(&r->stop, 1);
	wait_for_completion(&r->done);

	KUNIT_EXPECT_EQ(test, atomic_read(&r->late_events), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->bad_errno), 0);
	kunit_info(test, "%d opens raced with %d creates\n", atomic_read(&r->opens),
		   RACE_ROUNDS);
	/* reclaim QPs whose creator closed and whose reopen lost the race */
	for (qpn = 2; qpn < 2 + 2 * RACE_ROUNDS && xqp_xrcd_usecnt(r->xrcd); qpn++) {
		struct xqp_qp *o = xqp_kt_open(test, r->xrcd, qpn, NULL, NULL);

		if (!IS_ERR(o))
			KUNIT_EXPECT_EQ(test, xqp_destroy_qp(o), 0);
	}
	KUNIT_EXPECT_EQ(test, xqp_xrcd_usecnt(r->xrcd), 0);
	KUNIT_EXPECT_EQ(test, xqp_dealloc_xrcd(r->xrcd), 0);
}

XQP_KUNIT_SUITE(xqp_race_suite, "xqp_races", XQP_KT_FIXTURE,
		KUNIT_CASE_SLOW(open_close_destroy_event_race));
