/* SPDX-License-Identifier: GPL-2.0 */
/* Shared helpers of the xqp KUnit suites: a fresh soft device per test. */
#ifndef XQP_KUNIT_TEST_H
#define XQP_KUNIT_TEST_H

#include <kunit/test.h>
#include <linux/err.h>

#include "soft/soft.h"

struct xqp_kt {
	struct xqp_soft *soft;
	struct xqp_device *dev;
};

/* Suite .init/.exit: a soft device per test, checked empty at the end. */
int xqp_kt_init(struct kunit *test);
void xqp_kt_exit(struct kunit *test);

static inline struct xqp_kt *xqp_kt(struct kunit *test)
{
	return test->priv;
}

/* Creates an XRC_TGT QP in @xrcd; returns the creator's share. */
struct xqp_qp *xqp_kt_create_tgt(struct kunit *test, struct xqp_xrcd *xrcd,
				 xqp_event_handler_t handler, void *ctx);
struct xqp_qp *xqp_kt_open(struct kunit *test, struct xqp_xrcd *xrcd, u32 qpn,
			   xqp_event_handler_t handler, void *ctx);

/* Counts events per context and remembers the element of the last one. */
struct xqp_kt_events {
	int calls;
	struct xqp_qp *last;
	enum xqp_event_type type;
};
void xqp_kt_event_handler(struct xqp_event *ev, void *ctx);

#endif
