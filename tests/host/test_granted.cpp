// SPDX-License-Identifier: GPL-2.0
/*
 * What the core reports of what the driver granted, as ib_core does: the
 * size of a CQ, the number of an SRQ, the attributes of a port, the
 * signalling type of a QP; and enum fields of caller structs read as the
 * integers a C caller may have stored there (any value, never loaded as the
 * C++ enum type: the ASan+UBSan variant reports such loads).
 */
#include <cstring>

#include "fixture.h"

namespace {

/* Stores @v in an enum field as C code may: any int, no C++ enum cast. */
template <typename E> void store_raw(E *field, int v)
{
	static_assert(sizeof(E) == sizeof(int));
	std::memcpy(field, &v, sizeof(v));
}

} // namespace

/* ---- enum fields read as integers --------------------------------------- */

TEST_F(Core, SrqTypeOutsideTheEnumIsNotSupported)
{
	xqp_pd *pd = xqp_alloc_pd(dev());
	xqp_cq *cq = xqp_create_cq(dev(), 16, nullptr, nullptr);
	xqp_xrcd *x = xrcd();
	ASSERT_FALSE(xqp_is_err(pd));
	ASSERT_FALSE(xqp_is_err(cq));

	/* Tag matching (2), anything past it, negative values: EOPNOTSUPP,
	 * the driver is not asked, nothing is taken. */
	xqp_u64 calls = xqp_soft_op_calls(soft_, XQP_SOFT_OP_CREATE_SRQ);
	for (int type : {2, 3, 200, -1, 0x7fffffff}) {
		xqp_srq_init_attr sa = {};
		store_raw(&sa.srq_type, type);
		sa.attr.max_wr = 8;
		sa.xrcd = x;
		sa.cq = cq;
		EXPECT_EQ(xqp_ptr_err(xqp_create_srq(pd, &sa)), -XQP_EOPNOTSUPP) << type;
	}
	EXPECT_EQ(xqp_soft_op_calls(soft_, XQP_SOFT_OP_CREATE_SRQ), calls);
	EXPECT_EQ(counts().srq, 0u);
	EXPECT_EQ(xqp_xrcd_usecnt(x), 0u);

	/* The two known types still work when stored the same way. */
	for (int type : {0, 1}) {
		xqp_srq_init_attr sa = {};
		store_raw(&sa.srq_type, type);
		sa.attr.max_wr = 8;
		sa.xrcd = x;
		sa.cq = cq;
		xqp_srq *srq = xqp_create_srq(pd, &sa);
		ASSERT_FALSE(xqp_is_err(srq)) << type << ": " << xqp_ptr_err(srq);
		EXPECT_EQ(xqp_xrcd_usecnt(x), type == 1 ? 1u : 0u);
		EXPECT_EQ(xqp_destroy_srq(srq), 0);
	}
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
	EXPECT_EQ(xqp_destroy_cq(cq), 0);
	EXPECT_EQ(xqp_dealloc_pd(pd), 0);
}

TEST_F(Core, OpenQpTypeOutsideTheEnumIsInvalid)
{
	xqp_xrcd *x = xrcd();
	xqp_qp *h = create_tgt(x);

	for (int type : {0, 11, 200, -1}) {
		xqp_qp_open_attr oa = {};
		oa.qp_num = xqp_qp_num(h);
		store_raw(&oa.qp_type, type);
		EXPECT_EQ(xqp_ptr_err(xqp_open_qp(x, &oa)), -XQP_EINVAL) << type;
	}
	EXPECT_EQ(xqp_qp_handle_count(h), 1u);
	xqp_qp_open_attr oa = {};
	oa.qp_num = xqp_qp_num(h);
	store_raw(&oa.qp_type, XQP_QPT_XRC_TGT);
	xqp_qp *o = xqp_open_qp(x, &oa);
	ASSERT_FALSE(xqp_is_err(o));
	EXPECT_EQ(xqp_destroy_qp(o), 0);
	EXPECT_EQ(xqp_destroy_qp(h), 0);
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
}
