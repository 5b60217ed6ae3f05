// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * XRC domains: private ones, sharing by inode (O_CREAT, O_EXCL, EAGAIN,
 * EBADF), the last close, the library's comp_mask rules, OPEN_QP's rules.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "acc.h"

static void case_oflags(void)
{
	const char *path = case_file("oflags");
	const char *link = case_file("oflags-link");
	struct xqpv_context *ctx = open_ctx();
	struct xqpv_xrcd *a, *b, *c;
	int err;

	a = open_xrcd_path(ctx, path, 0, &err);
	EXPECT("no_creat", err, EAGAIN);
	a = open_xrcd_path(ctx, path, O_EXCL, &err);
	EXPECT("excl_only_absent", err, EAGAIN);
	a = open_xrcd_path(ctx, path, O_CREAT, &err);
	EXPECT("creat", err, 0);
	b = open_xrcd_path(ctx, path, 0, &err);
	EXPECT("join", err, 0);
	c = open_xrcd_path(ctx, path, O_CREAT | O_EXCL, &err);
	EXPECT("creat_excl_exists", err, EINVAL);
	c = open_xrcd_path(ctx, path, O_EXCL, &err);
	EXPECT("excl_exists", err, EINVAL);
	c = open_xrcd_path(ctx, path, O_CREAT | O_TRUNC | O_APPEND, &err);
	EXPECT("other_flags_ignored", err, 0);
	/* the same inode through another name */
	unlink(link);
	CHECK(!symlink(path, link), "symlink");
	{
		struct xqpv_xrcd *viasym = open_xrcd_path(ctx, link, 0, &err);

		EXPECT("same_inode_other_name", err, 0);
		if (viasym)
			xqpv_close_xrcd(viasym);
	}
	/* fds */
	{
		struct xqpv_xrcd_init_attr ia = {
			.comp_mask = XQPV_XRCD_INIT_ATTR_FD | XQPV_XRCD_INIT_ATTR_OFLAGS,
			.fd = 999, .oflags = O_CREAT,
		};

		EXPECT("bad_fd", PERR(xqpv_open_xrcd(ctx, &ia)), EBADF);
		ia.fd = -2;
		EXPECT("fd_minus2", PERR(xqpv_open_xrcd(ctx, &ia)), EBADF);
		ia.fd = ctx->cmd_fd;	/* any file will do: its inode is the key */
		c = xqpv_open_xrcd(ctx, &ia);
		EXPECT("device_fd_as_key", PERR(c), 0);
		if (c)
			EXPECT("close_devkey", xqpv_close_xrcd(c), 0);
	}
	/* the last close frees it: O_CREAT|O_EXCL works again */
	EXPECT("close_a", xqpv_close_xrcd(a), 0);
	c = open_xrcd_path(ctx, path, O_CREAT | O_EXCL, &err);
	EXPECT("excl_while_open", err, EINVAL);
	EXPECT("close_b", xqpv_close_xrcd(b), 0);
	c = open_xrcd_path(ctx, path, O_CREAT | O_EXCL, &err);
	EXPECT("excl_while_open2", err, EINVAL);
	/* the third open (other_flags_ignored) still holds it */
	xqpv_close_device(ctx);
	ctx = open_ctx();
	c = open_xrcd_path(ctx, path, O_CREAT | O_EXCL, &err);
	EXPECT("excl_after_last_close", err, 0);
	a = open_xrcd_path(ctx, path, 0, &err);
	EXPECT("join_again", err, 0);
	xqpv_close_device(ctx);
}

/* Private XRCDs are each their own; QPs are visible in their XRCD only. */
static void case_private(void)
{
	struct xqpv_context *ctx = open_ctx();
	int err;
	struct xqpv_xrcd *p1 = open_xrcd_path(ctx, NULL, 0, &err);
	struct xqpv_xrcd *p2 = open_xrcd_path(ctx, NULL, O_CREAT | O_EXCL, &err);
	struct xqpv_qp *qp, *h;

	CHECK(p1 && p2, "private xrcds: %s", errname(err));
	if (!p1 || !p2)
		return;
	CHECK(p1->handle != p2->handle, "same handle");
	qp = create_tgt(ctx, p1);
	EXPECT("create", PERR(qp), 0);
	if (!qp)
		return;
	h = open_tgt(ctx, p2, qp->qp_num, &err);
	EXPECT("open_in_other_xrcd", err, EINVAL);
	h = open_tgt(ctx, p1, qp->qp_num, &err);
	EXPECT("open_in_own_xrcd", err, 0);
	EXPECT("close_p2", xqpv_close_xrcd(p2), 0);
	EXPECT("close_p1_busy", xqpv_close_xrcd(p1), EBUSY);
	EXPECT("destroy_opened", xqpv_destroy_qp(h), 0);
	EXPECT("close_p1_busy2", xqpv_close_xrcd(p1), EBUSY);
	EXPECT("destroy_created", xqpv_destroy_qp(qp), 0);
	EXPECT("close_p1", xqpv_close_xrcd(p1), 0);
	xqpv_close_device(ctx);
}

/* OPEN_QP's rules. */
static void case_open_qp_rules(void)
{
	struct xqpv_context *ctx = open_ctx();
	int err;
	struct xqpv_xrcd *x = open_xrcd_path(ctx, NULL, 0, &err);
	struct xqpv_pd *pd = xqpv_alloc_pd(ctx);
	struct xqpv_qp *qp = x ? create_tgt(ctx, x) : NULL;
	struct ib_uverbs_create_qp_resp r;
	struct ib_uverbs_open_qp o = { .response = (uintptr_t)&r };
	uint32_t qpn, raw_h = 0;

	CHECK(qp && pd, "setup");
	if (!qp || !pd)
		return;
	qpn = qp->qp_num;
	o.pd_handle = x->handle;
	o.qpn = qpn;
	o.qp_type = XQPV_QPT_RC;
	EXPECT("type_rc", raw_cmd(ctx->cmd_fd, IB_USER_VERBS_CMD_OPEN_QP, &o, sizeof(o), -1,
				  sizeof(r) / 4), EINVAL);
	o.qp_type = XQPV_QPT_XRC_SEND;
	EXPECT("type_ini", raw_cmd(ctx->cmd_fd, IB_USER_VERBS_CMD_OPEN_QP, &o, sizeof(o), -1,
				   sizeof(r) / 4), EINVAL);
	o.qp_type = 200;
	EXPECT("type_200", raw_cmd(ctx->cmd_fd, IB_USER_VERBS_CMD_OPEN_QP, &o, sizeof(o), -1,
				   sizeof(r) / 4), EINVAL);
	o.qp_type = XQPV_QPT_XRC_RECV;
	o.qpn = qpn ^ 0x800000;
	EXPECT("unknown_qpn", raw_cmd(ctx->cmd_fd, IB_USER_VERBS_CMD_OPEN_QP, &o, sizeof(o),
				      -1, sizeof(r) / 4), EINVAL);
	o.qpn = qpn;
	o.pd_handle = pd->handle;
	EXPECT("pd_not_xrcd", raw_cmd(ctx->cmd_fd, IB_USER_VERBS_CMD_OPEN_QP, &o, sizeof(o),
				      -1, sizeof(r) / 4), EINVAL);
	o.pd_handle = 4321;
	EXPECT("unknown_xrcd", raw_cmd(ctx->cmd_fd, IB_USER_VERBS_CMD_OPEN_QP, &o, sizeof(o),
				       -1, sizeof(r) / 4), EINVAL);
	o.pd_handle = x->handle;
	memset(&r, 0xff, sizeof(r));
	EXPECT("ok", raw_cmd(ctx->cmd_fd, IB_USER_VERBS_CMD_OPEN_QP, &o, sizeof(o), -1,
			     sizeof(r) / 4), 0);
	CHECK(r.qpn == qpn, "qpn %u, want %u", r.qpn, qpn);
	raw_h = r.qp_handle;
	EXPECT_INT("resp_rest_zero", r.max_send_wr == 0 && r.max_recv_wr == 0 &&
		   r.max_inline_data == 0 && r.reserved == 0, 1);
	/* an opened share of a non-shareable QP type is not possible either */
	{
		struct xqpv_cq *cq = xqpv_create_cq(ctx, 4, NULL, NULL, 0);
		struct xqpv_qp *rc = cq ? create_rc(ctx, pd, cq) : NULL;

		CHECK(rc, "rc");
		if (rc) {
			o.qpn = rc->qp_num;
			EXPECT("open_rc_qpn", raw_cmd(ctx->cmd_fd, IB_USER_VERBS_CMD_OPEN_QP, &o,
						      sizeof(o), -1, sizeof(r) / 4), EINVAL);
		}
	}
	/* after the last share is destroyed the number is not openable */
	EXPECT("destroy_created", xqpv_destroy_qp(qp), 0);
	{
		struct xqpv_qp *h = open_tgt(ctx, x, qpn, &err);

		EXPECT("open_while_opened_alive", err, 0);
		if (h)
			EXPECT("destroy_h", xqpv_destroy_qp(h), 0);
	}
	/* the raw-opened share above is the last one now */
	EXPECT("destroy_last", destroy_qp_raw(ctx->cmd_fd, raw_h, NULL), 0);
	EXPECT("open_after_last", PERR(open_tgt(ctx, x, qpn, &err)), EINVAL);
	xqpv_close_device(ctx);
}

/* The library's own checks (libibverbs' ibv_cmd_open_xrcd/open_qp rules). */
static void case_lib_comp_mask(void)
{
	struct xqpv_context *ctx = open_ctx();
	struct xqpv_xrcd_init_attr ia = { .fd = -1, .oflags = 0 };
	struct xqpv_qp_open_attr oa = { 0 };
	struct xqpv_xrcd *x;
	struct xqpv_qp *qp = open_xrcd_tgt(ctx, NULL, 0, &x);

	CHECK(qp, "setup");
	if (!qp)
		return;
	ia.comp_mask = 0;
	EXPECT("xrcd_no_mask", PERR(xqpv_open_xrcd(ctx, &ia)), EINVAL);
	ia.comp_mask = XQPV_XRCD_INIT_ATTR_FD;
	EXPECT("xrcd_fd_only", PERR(xqpv_open_xrcd(ctx, &ia)), EINVAL);
	ia.comp_mask = XQPV_XRCD_INIT_ATTR_OFLAGS;
	EXPECT("xrcd_oflags_only", PERR(xqpv_open_xrcd(ctx, &ia)), EINVAL);
	ia.comp_mask = XQPV_XRCD_INIT_ATTR_FD | XQPV_XRCD_INIT_ATTR_OFLAGS |
		       XQPV_XRCD_INIT_ATTR_RESERVED;
	EXPECT("xrcd_unknown_bit", PERR(xqpv_open_xrcd(ctx, &ia)), EOPNOTSUPP);
	ia.comp_mask = 1U << 31;
	EXPECT("xrcd_high_bit", PERR(xqpv_open_xrcd(ctx, &ia)), EOPNOTSUPP);

	oa.qp_num = qp->qp_num;
	oa.xrcd = x;
	oa.qp_type = XQPV_QPT_XRC_RECV;
	oa.comp_mask = XQPV_QP_OPEN_ATTR_XRCD | XQPV_QP_OPEN_ATTR_TYPE;
	EXPECT("open_no_num", PERR(xqpv_open_qp(ctx, &oa)), EINVAL);
	oa.comp_mask = XQPV_QP_OPEN_ATTR_NUM | XQPV_QP_OPEN_ATTR_TYPE;
	EXPECT("open_no_xrcd", PERR(xqpv_open_qp(ctx, &oa)), EINVAL);
	oa.comp_mask = XQPV_QP_OPEN_ATTR_NUM | XQPV_QP_OPEN_ATTR_XRCD;
	EXPECT("open_no_type", PERR(xqpv_open_qp(ctx, &oa)), EINVAL);
	oa.comp_mask = XQPV_QP_OPEN_ATTR_NUM | XQPV_QP_OPEN_ATTR_XRCD | XQPV_QP_OPEN_ATTR_TYPE |
		       XQPV_QP_OPEN_ATTR_RESERVED;
	EXPECT("open_unknown_bit", PERR(xqpv_open_qp(ctx, &oa)), EOPNOTSUPP);
	oa.comp_mask = XQPV_QP_OPEN_ATTR_NUM | XQPV_QP_OPEN_ATTR_XRCD | XQPV_QP_OPEN_ATTR_TYPE;
	EXPECT("open_no_context_ok", PERR(xqpv_open_qp(ctx, &oa)), 0);
	oa.comp_mask |= XQPV_QP_OPEN_ATTR_CONTEXT;
	oa.qp_context = &oa;
	{
		struct xqpv_qp *h = xqpv_open_qp(ctx, &oa);

		EXPECT("open_with_context", PERR(h), 0);
		CHECK(!h || h->qp_context == &oa, "qp_context not kept");
	}
	{
		struct xqpv_qp_init_attr_ex qa = { .qp_type = XQPV_QPT_XRC_RECV, .xrcd = x };

		qa.comp_mask = XQPV_QP_INIT_ATTR_PD;
		EXPECT("create_tgt_no_xrcd_bit", PERR(xqpv_create_qp_ex(ctx, &qa)), EINVAL);
		qa.comp_mask = XQPV_QP_INIT_ATTR_XRCD | XQPV_QP_INIT_ATTR_RESERVED;
		EXPECT("create_unknown_bit", PERR(xqpv_create_qp_ex(ctx, &qa)), EOPNOTSUPP);
	}
	xqpv_close_device(ctx);
}

/* Two files (two contexts) in one process on one inode share the XRCD. */
static void case_two_files(void)
{
	const char *path = case_file("twofiles");
	struct xqpv_context *c1 = open_ctx(), *c2 = open_ctx();
	int err;
	struct xqpv_xrcd *x1 = open_xrcd_path(c1, path, O_CREAT, &err);
	struct xqpv_xrcd *x2 = open_xrcd_path(c2, path, 0, &err);
	struct xqpv_qp *qp, *h;

	EXPECT("join_from_other_file", err, 0);
	if (!x1 || !x2)
		return;
	qp = create_tgt(c1, x1);
	h = qp ? open_tgt(c2, x2, qp->qp_num, &err) : NULL;
	EXPECT("open_from_other_file", err, 0);
	/* the creator's file goes: the QP stays for the other file */
	EXPECT("close_c1", xqpv_close_device(c1), 0);
	if (h) {
		struct xqpv_qp_attr a;

		EXPECT("query_after_creator_left", xqpv_query_qp(h, &a, XQPV_QP_STATE, NULL), 0);
		EXPECT("reopen_after_creator_left",
		       PERR(open_tgt(c2, x2, h->qp_num, &err)), 0);
	}
	xqpv_close_device(c2);
}

const struct acc_case acc_cases_xrcd[] = {
	{ "xrcd_inode_oflags", case_oflags, NULL, 0 },
	{ "xrcd_private", case_private, NULL, 0 },
	{ "xrcd_open_qp_rules", case_open_qp_rules, NULL, 0 },
	{ "xrcd_lib_comp_mask", case_lib_comp_mask, NULL, 0 },
	{ "xrcd_two_files_one_inode", case_two_files, NULL, 0 },
	{ NULL, NULL, NULL, 0 },
};
