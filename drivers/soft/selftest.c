// SPDX-License-Identifier: GPL-2.0
/*
 * The load-time self-test (module parameter selftest=1): the shared-QP
 * scenario on a private soft device, each step told in words. It is what
 * `make run` shows and what the smoke test checks on Debian's kernel, which
 * has no KUnit. The KUnit suites test the same rules one by one.
 */
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/string.h>

#include "soft/soft.h"
#include "xqp/seam.h"
#include "soft/selftest.h"

struct st_events {
	struct xqp_qp *seen[4];
	int calls;
};

static void st_handler(struct xqp_event *ev, void *ctx)
{
	struct st_events *e = ctx;

	if (e->calls < ARRAY_SIZE(e->seen))
		e->seen[e->calls] = ev->element.qp;
	e->calls++;
}

#define STEP(cond, fmt, ...)                                                  \
	do {                                                                  \
		if (!(cond)) {                                                \
			pr_err("xqp selftest: FAILED: " fmt " [%s]\n",        \
			       ##__VA_ARGS__, #cond);                         \
			return -EINVAL;                                       \
		}                                                             \
		pr_info("xqp selftest: " fmt "\n", ##__VA_ARGS__);            \
	} while (0)

static int st_scenario(struct xqp_soft *soft)
{
	struct xqp_device *dev = xqp_soft_device(soft);
	struct xqp_qp_init_attr init = { .qp_type = XQP_QPT_XRC_TGT };
	struct xqp_qp_open_attr oa = { .qp_type = XQP_QPT_XRC_TGT };
	struct xqp_qp_attr attr = {};
	struct st_events ea = {}, eb = {}, ec = {};
	struct xqp_qp *creator, *a, *b, *real;
	struct xqp_soft_counts counts;
	struct xqp_object_sizes sizes;
	struct xqp_xrcd *xrcd;
	u32 qpn;

	xrcd = xqp_alloc_xrcd(dev);
	STEP(!IS_ERR(xrcd), "allocated an XRC domain on %s", xqp_device_name(dev));

	init.xrcd = xrcd;
	init.event_handler = st_handler;
	init.qp_context = &ec;
	creator = xqp_create_qp_user(dev, NULL, &init, NULL, NULL, KBUILD_MODNAME);
	STEP(!IS_ERR(creator) && xqp_qp_is_share(creator),
	     "created an XRC target QP: the creator holds a share, not the QP");
	qpn = xqp_qp_num(creator);
	real = xqp_qp_real(creator);
	STEP(xqp_xrcd_usecnt(xrcd) == 1, "QP number 0x%06x is published in the XRCD (usecnt 1)", qpn);

	oa.qp_num = qpn;
	oa.event_handler = st_handler;
	oa.qp_context = &ea;
	a = xqp_open_qp(xrcd, &oa);
	oa.qp_context = &eb;
	b = xqp_open_qp(xrcd, &oa);
	STEP(!IS_ERR(a) && !IS_ERR(b) && xqp_qp_share_count(creator) == 3,
	     "opened it twice by number: three equal shares of one real QP");

	attr.qp_state = XQP_QPS_INIT;
	attr.port_num = 1;
	STEP(xqp_modify_qp(a, &attr, XQP_QP_STATE | XQP_QP_PKEY_INDEX | XQP_QP_PORT |
			   XQP_QP_ACCESS_FLAGS) == 0,
	     "moved it RESET -> INIT through the first opener's share");
	memset(&attr, 0, sizeof(attr));
	STEP(xqp_query_qp(b, &attr, XQP_QP_STATE, NULL) == 0 && attr.qp_state == XQP_QPS_INIT,
	     "the second opener's share sees the same state: INIT");

	xqp_soft_raise_qp_event(soft, qpn, XQP_EVENT_QP_FATAL);
	xqp_work_flush_all();	/* a kernel client's handlers: the QP's work item */
	STEP(ea.calls == 1 && eb.calls == 1 && ec.calls == 1 && ea.seen[0] == a &&
	     eb.seen[0] == b && ec.seen[0] == creator,
	     "a QP_FATAL event reached each share once, addressed to that share, from the QP's work item");

	STEP(xqp_destroy_qp(creator) == 0 && xqp_qp_share_count(a) == 2,
	     "the creator destroyed its share: 0, and the QP lives on for the openers");
	STEP(xqp_qp_real(a) == real && xqp_xrcd_usecnt(xrcd) == 1,
	     "the real QP outlived its creator's share");

	xqp_soft_raise_qp_event(soft, qpn, XQP_EVENT_COMM_EST);
	xqp_work_flush_all();
	STEP(ec.calls == 1 && ea.calls == 2 && eb.calls == 2,
	     "the next event reached the two openers and not the departed creator");

	STEP(xqp_close_qp(a) == 0 && xqp_qp_share_count(b) == 1,
	     "the first opener closed its share");
	STEP(xqp_close_qp(real) == -EINVAL, "closing the real QP itself is refused: -EINVAL");
	STEP(xqp_destroy_qp(real) == -EBUSY, "destroying the real QP while a share exists: -EBUSY");
	STEP(xqp_destroy_qp(b) == 0 && xqp_xrcd_usecnt(xrcd) == 0,
	     "the last share was destroyed: the real QP is gone, XRCD usecnt 0");

	oa.qp_context = NULL;
	a = xqp_open_qp(xrcd, &oa);
	STEP(PTR_ERR(a) == -EINVAL, "opening QP 0x%06x again: -EINVAL, no such QP", qpn);
	STEP(xqp_dealloc_xrcd(xrcd) == 0, "deallocated the XRC domain");

	xqp_soft_counts(soft, &counts);
	STEP(!counts.pd && !counts.cq && !counts.xrcd && !counts.srq && !counts.qp,
	     "the device holds no objects: nothing leaked");
	xqp_object_sizes(&sizes);
	pr_info("xqp selftest: on this kernel a share takes %zu bytes, a real QP %zu\n",
		sizes.share, sizes.real_qp);
	return 0;
}

int xqp_selftest_run(void)
{
	struct xqp_soft *soft = xqp_soft_create("xqp_selftest", NULL);
	int ret;

	if (IS_ERR(soft))
		return PTR_ERR(soft);
	ret = st_scenario(soft);
	xqp_soft_destroy(soft);
	pr_info("xqp selftest: %s\n", ret ? "FAILED" : "all steps passed");
	return ret;
}
