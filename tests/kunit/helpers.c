// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the xqp KUnit suites. */
#include <linux/module.h>

#include "xqp_test.h"

int xqp_kt_init(struct kunit *test)
{
	struct xqp_kt *kt = kunit_kzalloc(test, sizeof(*kt), GFP_KERNEL);

	if (!kt)
		return -ENOMEM;
	kt->soft = xqp_soft_create("xqp_kunit", NULL);
	if (IS_ERR(kt->soft))
		return PTR_ERR(kt->soft);
	kt->dev = xqp_soft_device(kt->soft);
	test->priv = kt;
	return 0;
}

void xqp_kt_exit(struct kunit *test)
{
	struct xqp_kt *kt = xqp_kt(test);
	struct xqp_soft_counts c;

	/* Every test cleans up after itself: the device must be empty. */
	xqp_soft_counts(kt->soft, &c);
	KUNIT_EXPECT_EQ(test, c.pd + c.cq + c.xrcd + c.srq + c.qp + c.mr + c.mcast_grp +
			c.mcast_attach, 0);
	xqp_soft_destroy(kt->soft);
}

struct xqp_qp *xqp_kt_create_tgt(struct kunit *test, struct xqp_xrcd *xrcd,
				 xqp_event_handler_t handler, void *ctx)
{
	struct xqp_qp_init_attr init = {
		.qp_type = XQP_QPT_XRC_TGT,
		.xrcd = xrcd,
		.event_handler = handler,
		.qp_context = ctx,
		.event_flags = XQP_EVENT_INLINE,	/* the walk's rules, seen at once */
	};
	struct xqp_qp *qp;

	qp = xqp_create_qp_user(xqp_kt(test)->dev, NULL, &init, NULL, NULL, KBUILD_MODNAME);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(qp), "create XRC_TGT: %ld", PTR_ERR(qp));
	return qp;
}

struct xqp_qp *xqp_kt_open(struct kunit *test, struct xqp_xrcd *xrcd, u32 qpn,
			   xqp_event_handler_t handler, void *ctx)
{
	struct xqp_qp_open_attr oa = {
		.qp_num = qpn,
		.qp_type = XQP_QPT_XRC_TGT,
		.event_handler = handler,
		.qp_context = ctx,
		.event_flags = XQP_EVENT_INLINE,
	};

	return xqp_open_qp(xrcd, &oa);
}

void xqp_kt_event_handler(struct xqp_event *ev, void *ctx)
{
	struct xqp_kt_events *e = ctx;

	e->calls++;
	e->last = ev->element.qp;
	e->type = ev->event;
}

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("xqp KUnit suites");
