// SPDX-License-Identifier: GPL-2.0
/*
 * The core when its driver goes or refuses: a shared QP detached by its
 * device's unregistration, verbs after the driver's module is gone, a
 * refused destroy of a QP that could not be published. Each test failed
 * before its fix (docs/reliability.md, "Defects found by reading"). The
 * char device's side of driver refusals: tests/acceptance/cases_refusals.c.
 */
#include <sys/mman.h>
#include <unistd.h>

#include "fixture.h"

/*
 * A shared QP that still had shares when its device was
 * unregistered stays in its XRCD, detached from the driver. Whether a
 * kernel client then closes its shares or destroys them, the last one
 * takes the QP along: the XRCD can be deallocated, nothing leaks (the
 * fixture counts allocations; the device goes with its last object).
 */
TEST_F(Core, DetachedSharedQpGoesWithItsLastShare)
{
	xqp_xrcd *x1 = xrcd(), *x2 = xrcd(), *x3 = xrcd();
	xqp_qp *h1 = create_tgt(x1), *h2 = create_tgt(x2), *h3 = create_tgt(x3);
	xqp_qp *o1 = open(x1, xqp_qp_num(h1));
	xqp_qp *o2 = open(x2, xqp_qp_num(h2));
	xqp_qp *o3 = open(x3, xqp_qp_num(h3));
	ASSERT_FALSE(xqp_is_err(o1) || xqp_is_err(o2) || xqp_is_err(o3));
	remove_device();

	/* every share closed */
	EXPECT_EQ(xqp_close_qp(o1), 0);
	EXPECT_EQ(xqp_close_qp(h1), 0);
	EXPECT_EQ(xqp_xrcd_usecnt(x1), 0u);
	EXPECT_EQ(xqp_dealloc_xrcd(x1), 0);
	/* one destroyed, the last one closed */
	EXPECT_EQ(xqp_destroy_qp(h2), 0);
	EXPECT_EQ(xqp_close_qp(o2), 0);
	EXPECT_EQ(xqp_xrcd_usecnt(x2), 0u);
	EXPECT_EQ(xqp_dealloc_xrcd(x2), 0);
	/* one closed, the last one destroyed (worked before the fix too) */
	EXPECT_EQ(xqp_close_qp(h3), 0);
	EXPECT_EQ(xqp_destroy_qp(o3), 0);
	EXPECT_EQ(xqp_xrcd_usecnt(x3), 0u);
	EXPECT_EQ(xqp_dealloc_xrcd(x3), 0);
}

/*
 * Defect 4: a kernel client that still holds objects of a device whose
 * driver module is gone calls verbs on them: each answers -EIO without
 * reading the driver's ops table, which went with the module. The table
 * lives on its own page here, made unreadable after unregistration (a
 * read faults: SIGSEGV in any build, and ASan names the reader).
 */
TEST_F(Core, VerbsAfterTheDriverIsGoneReturnEio)
{
	const long page = sysconf(_SC_PAGESIZE);
	void *mem = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	ASSERT_NE(mem, MAP_FAILED);
	auto *ops = static_cast<xqp_device_ops *>(mem);
	*ops = *xqp_soft_ops();
	/* a second core device on the fixture's soft device: the "module" */
	xqp_device *d = xqp_register_device("xqp_gone", ops, soft_);
	ASSERT_FALSE(xqp_is_err(d));

	xqp_pd *pd = xqp_alloc_pd(d);
	xqp_cq *cq = xqp_create_cq(d, 4, nullptr, nullptr);
	xqp_xrcd *x = xqp_alloc_xrcd(d);
	ASSERT_FALSE(xqp_is_err(pd) || xqp_is_err(cq) || xqp_is_err(x));
	xqp_srq_init_attr sa = {};
	sa.attr.max_wr = 4;
	sa.attr.max_sge = 1;
	sa.srq_type = XQP_SRQT_BASIC;
	xqp_srq *srq = xqp_create_srq(pd, &sa);
	ASSERT_FALSE(xqp_is_err(srq));
	xqp_qp_init_attr qa = {};
	qa.qp_type = XQP_QPT_RC;
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qa.cap.max_send_wr = 1;
	qa.cap.max_recv_wr = 1;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	xqp_qp *qp = xqp_create_qp_user(d, pd, &qa, nullptr, nullptr, "t");
	ASSERT_FALSE(xqp_is_err(qp));

	xqp_unregister_device(d);	/* the driver's module unloads next */
	ASSERT_EQ(mprotect(mem, page, PROT_NONE), 0);

	/* creation on the device and on its objects */
	EXPECT_EQ(xqp_ptr_err(xqp_alloc_pd(d)), -XQP_EIO);
	EXPECT_EQ(xqp_ptr_err(xqp_create_cq(d, 4, nullptr, nullptr)), -XQP_EIO);
	EXPECT_EQ(xqp_ptr_err(xqp_alloc_xrcd(d)), -XQP_EIO);
	EXPECT_EQ(xqp_ptr_err(xqp_create_srq(pd, &sa)), -XQP_EIO);
	sa.srq_type = XQP_SRQT_XRC;
	sa.cq = cq;
	sa.xrcd = x;
	EXPECT_EQ(xqp_ptr_err(xqp_create_srq(pd, &sa)), -XQP_EIO);
	EXPECT_EQ(xqp_ptr_err(xqp_create_qp_user(d, pd, &qa, nullptr, nullptr, "t")), -XQP_EIO);
	xqp_device_attr da = {};
	EXPECT_EQ(xqp_query_device(d, &da), -XQP_EIO);
	xqp_ah_attr aa = {};
	aa.port_num = 1;
	EXPECT_EQ(xqp_ptr_err(xqp_create_ah(pd, &aa)), -XQP_EIO);
	static char buf[64];
	EXPECT_EQ(xqp_ptr_err(xqp_reg_kernel_mr(pd, buf, sizeof(buf), XQP_ACCESS_LOCAL_WRITE)),
		  -XQP_EIO);

	/* the data path on objects the client holds */
	xqp_send_wr swr = {};
	const xqp_send_wr *bad_s = nullptr;
	EXPECT_EQ(xqp_post_send(qp, &swr, &bad_s), -XQP_EIO);
	xqp_recv_wr rwr = {};
	const xqp_recv_wr *bad_r = nullptr;
	EXPECT_EQ(xqp_post_recv(qp, &rwr, &bad_r), -XQP_EIO);
	EXPECT_EQ(xqp_post_srq_recv(srq, &rwr, &bad_r), -XQP_EIO);
	xqp_wc wc[1];
	EXPECT_EQ(xqp_poll_cq(cq, 1, wc), -XQP_EIO);
	EXPECT_EQ(xqp_req_notify_cq(cq, XQP_CQ_NEXT_COMP), -XQP_EIO);
	EXPECT_EQ(xqp_resize_cq(cq, 8), -XQP_EIO);
	xqp_srq_attr s = {};
	EXPECT_EQ(xqp_modify_srq(srq, &s, XQP_SRQ_LIMIT), -XQP_EIO);
	EXPECT_EQ(xqp_query_srq(srq, &s), -XQP_EIO);
	xqp_qp_attr a = {};
	a.qp_state = XQP_QPS_INIT;
	EXPECT_EQ(xqp_modify_qp(qp, &a, XQP_QP_STATE), -XQP_EIO);
	EXPECT_EQ(xqp_query_qp(qp, &a, XQP_QP_STATE, nullptr), -XQP_EIO);

	/* destroy/dealloc only free the core objects; the last frees the device */
	EXPECT_EQ(xqp_destroy_qp(qp), 0);
	EXPECT_EQ(xqp_destroy_srq(srq), 0);
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
	EXPECT_EQ(xqp_destroy_cq(cq), 0);
	EXPECT_EQ(xqp_dealloc_pd(pd), 0);
	xqp_rcu_barrier();
	munmap(mem, page);
}

/*
 * Defect 5: creating an XRC_TGT QP fails after the driver made it (the
 * creator's share or a node of the XRCD's table cannot be allocated), and
 * the driver then refuses to destroy it. The core must not free the QP the
 * driver still reports events on: it keeps it, no user of its XRCD,
 * without a warning (a driver may refuse), and asks the driver again when
 * the XRCD is deallocated, or at unregistration.
 */
namespace {

struct Events {
	int calls = 0;
};

void count_event(xqp_event *, void *ctx)
{
	static_cast<Events *>(ctx)->calls++;
}

struct Attempt {
	xqp_qp *h;
	bool refused;	/* the driver was asked to destroy it and refused */
};

Attempt create_refusing_destroy(xqp_soft *soft, xqp_device *dev, xqp_qp_init_attr *init,
				u32 qpn, int n)
{
	xqp_soft_set_qpn_cursor(soft, qpn);
	xqp_u64 destroys = xqp_soft_op_calls(soft, XQP_SOFT_OP_DESTROY_QP);
	xqp_soft_inject(soft, XQP_SOFT_OP_DESTROY_QP, -XQP_EBUSY, 0);
	xqp_host_fail_alloc_after(n);
	xqp_qp *h = xqp_create_qp_user(dev, nullptr, init, nullptr, nullptr, "t");
	xqp_host_fail_alloc_after(-1);
	bool asked = xqp_soft_op_calls(soft, XQP_SOFT_OP_DESTROY_QP) != destroys;
	xqp_soft_inject(soft, XQP_SOFT_OP_DESTROY_QP, 0, 0);	/* disarm */
	return {h, asked};
}

} // namespace

TEST_F(Core, RefusedDestroyOfAnUnpublishedQpKeepsIt)
{
	const u32 qpn = 0x4242;
	Events ev;
	xqp_qp_init_attr init = {};
	init.qp_type = XQP_QPT_XRC_TGT;
	init.event_handler = count_event;
	init.event_flags = XQP_EVENT_INLINE;
	init.qp_context = &ev;
	int refused = 0, n = 0;

	for (; n < 64; n++) {
		xqp_xrcd *x = xrcd();	/* a fresh table: the insert allocates nodes */
		init.xrcd = x;
		Attempt a = create_refusing_destroy(soft_, dev(), &init, qpn, n);
		if (!xqp_is_err(a.h)) {
			EXPECT_EQ(xqp_destroy_qp(a.h), 0);
			EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
			break;
		}
		if (!a.refused) {	/* failed before the driver made it */
			EXPECT_EQ(counts().qp, 0u);
			EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
			continue;
		}
		refused++;
		SCOPED_TRACE(n);
		EXPECT_EQ(xqp_ptr_err(a.h), -XQP_ENOMEM);
		EXPECT_EQ(counts().qp, 1u) << "the driver still has it";
		EXPECT_EQ(xqp_xrcd_usecnt(x), 0u) << "the kept QP is no user of its XRCD";
		EXPECT_EQ(xqp_ptr_err(open(x, qpn)), -XQP_EINVAL) << "never published";
		/* refused again: the XRCD stays, intact */
		xqp_soft_inject(soft_, XQP_SOFT_OP_DESTROY_QP, -XQP_EBUSY, 0);
		EXPECT_EQ(xqp_dealloc_xrcd(x), -XQP_EBUSY);
		EXPECT_EQ(counts().qp, 1u);
		/* an event on it reaches no handler and no freed memory */
		EXPECT_EQ(xqp_soft_raise_qp_event(soft_, qpn, XQP_EVENT_COMM_EST), 0);
		EXPECT_EQ(ev.calls, 0);
		/* accepted: the QP goes, then the XRCD */
		EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
		EXPECT_EQ(counts().qp, 0u);
	}
	EXPECT_LT(n, 64) << "the create never succeeded";
	/* the creator's share, the table's node */
	EXPECT_GE(refused, 2) << "too few failures came after the driver's create";

	/*
	 * An inode's XRCD (uverbs) is deallocated when its last user is put:
	 * a kept QP must not count as one, or the XRCD, the kept QP and the
	 * inode stay until the device goes (the acceptance case
	 * refused_stray_inode_xrcd is this through the char device).
	 */
	for (n = 0; n < 64; n++) {
		xqp_xrcd *x = xrcd();
		init.xrcd = x;
		xqp_xrcd_get_user(x);	/* the inode's open */
		Attempt a = create_refusing_destroy(soft_, dev(), &init, qpn, n);
		if (!xqp_is_err(a.h)) {
			ADD_FAILURE() << "no allocation failure came after the driver's create";
			EXPECT_EQ(xqp_destroy_qp(a.h), 0);
			xqp_xrcd_put_user(x);
			EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
			break;
		}
		xqp_xrcd_put_user(x);
		EXPECT_EQ(xqp_xrcd_usecnt(x), 0u) << "the inode's last user is gone";
		EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
		EXPECT_EQ(counts().qp, 0u) << "the kept QP went with its XRCD";
		if (a.refused)
			break;
	}

	/* kept at unregistration: it goes with the device */
	for (n = 0; n < 64; n++) {
		xqp_xrcd *x = xrcd();
		init.xrcd = x;
		Attempt a = create_refusing_destroy(soft_, dev(), &init, qpn, n);
		if (!xqp_is_err(a.h)) {
			ADD_FAILURE() << "no allocation failure came after the driver's create";
			EXPECT_EQ(xqp_destroy_qp(a.h), 0);
			EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
			break;
		}
		if (!a.refused) {
			EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
			continue;
		}
		EXPECT_EQ(counts().qp, 1u);
		remove_device();
		EXPECT_EQ(xqp_xrcd_usecnt(x), 0u);
		EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
		break;
	}
}
