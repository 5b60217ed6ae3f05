// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The write ABI itself: header rules, command numbers, lengths, response
 * pointers, trailing bytes, the context rule. Raw write()s, as a program
 * that includes only <rdma/ib_user_verbs.h> would send them.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "acc.h"

#define EXT IB_USER_VERBS_CMD_FLAG_EXTENDED

static int alloc_pd_raw(int fd, uint32_t *handle)
{
	struct ib_uverbs_alloc_pd_resp resp = { .pd_handle = 0xdeadbeef };
	struct ib_uverbs_alloc_pd cmd = { .response = (uintptr_t)&resp };
	int err = raw_cmd(fd, IB_USER_VERBS_CMD_ALLOC_PD, &cmd, sizeof(cmd), -1,
			  sizeof(resp) / 4);

	if (handle)
		*handle = resp.pd_handle;
	return err;
}

/* Before GET_CONTEXT every object command is refused, lookups find nothing. */
static void case_no_context(void)
{
	struct ib_uverbs_query_device_resp qd;
	struct ib_uverbs_open_xrcd_resp xr;
	struct ib_uverbs_open_xrcd ox = { .response = (uintptr_t)&xr };
	struct ib_uverbs_create_qp_resp qr;
	struct ib_uverbs_create_qp cq = { .response = (uintptr_t)&qr };
	int fd = open(g_dev, O_RDWR);

	CHECK(fd >= 0, "open %s", g_dev);
	EXPECT("query_device", query_device_raw(fd, &qd), EINVAL);
	EXPECT("alloc_pd", alloc_pd_raw(fd, NULL), EINVAL);
	EXPECT("dealloc_pd0", dealloc_pd_raw(fd, 0), ENOENT);
	ox.fd = (uint32_t)-1;
	EXPECT("open_xrcd_private", raw_cmd(fd, IB_USER_VERBS_CMD_OPEN_XRCD, &ox,
					    sizeof(ox), -1, sizeof(xr) / 4), EINVAL);
	ox.fd = 999;
	ox.oflags = O_CREAT;
	EXPECT("open_xrcd_badfd", raw_cmd(fd, IB_USER_VERBS_CMD_OPEN_XRCD, &ox,
					  sizeof(ox), -1, sizeof(xr) / 4), EBADF);
	cq.qp_type = 99;
	EXPECT("create_qp_badtype", raw_cmd(fd, IB_USER_VERBS_CMD_CREATE_QP, &cq,
					    sizeof(cq), -1, sizeof(qr) / 4), EINVAL);
	cq.qp_type = XQPV_QPT_RC;
	EXPECT("create_qp_rc", raw_cmd(fd, IB_USER_VERBS_CMD_CREATE_QP, &cq,
				       sizeof(cq), -1, sizeof(qr) / 4), EINVAL);
	EXPECT("destroy_qp0", destroy_qp_raw(fd, 0, NULL), ENOENT);
	close(fd);
}

/* One context per file; the async fd is a real fd. */
static void case_get_context(void)
{
	struct ib_uverbs_get_context_resp resp;
	struct ib_uverbs_get_context cmd = { .response = (uintptr_t)&resp };
	struct xqpv_context *ctx = open_ctx();

	CHECK(fcntl(ctx->async_fd, F_GETFD) >= 0, "async fd not open");
	CHECK(fcntl(ctx->async_fd, F_GETFD) & FD_CLOEXEC, "async fd not close-on-exec");
	EXPECT_INT("num_comp_vectors", ctx->num_comp_vectors, 1);
	EXPECT("second", raw_cmd(ctx->cmd_fd, IB_USER_VERBS_CMD_GET_CONTEXT, &cmd,
				 sizeof(cmd), -1, sizeof(resp) / 4), EINVAL);
	EXPECT("short_out", raw_cmd(ctx->cmd_fd, IB_USER_VERBS_CMD_GET_CONTEXT, &cmd,
				    sizeof(cmd), -1, 1), ENOSPC);
	xqpv_close_device(ctx);
}

/* Every QP's own READ/atomic resources at once, an int at most (no pool). */
static uint32_t res_rd_atom(const struct ib_uverbs_query_device_resp *r)
{
	uint64_t n = (uint64_t)r->max_qp_rd_atom * r->max_qp;

	return n > 0x7fffffff ? 0x7fffffff : (uint32_t)n;
}

static void case_query(void)
{
	struct xqpv_context *ctx = open_ctx();
	struct xqpv_device_attr da;
	struct xqpv_port_attr pa;
	struct ib_uverbs_query_port_resp pr;
	struct ib_uverbs_query_port qp = { .response = (uintptr_t)&pr };

	EXPECT("query_device", xqpv_query_device(ctx, &da), 0);
	EXPECT_INT("xrc_cap", !!(da.device_cap_flags & XQPV_DEVICE_XRC), 1);
	EXPECT_INT("ports", da.phys_port_cnt, 1);
	EXPECT_INT("max_pkeys", da.max_pkeys, 64);
	EXPECT("port1", xqpv_query_port(ctx, 1, &pa), 0);
	/*
	 * The driver's port, field by field. Both devices model an active
	 * 1X SDR InfiniBand port with a 4096-byte MTU, VL0, one GID, no
	 * capability bits, no error counts and rxe's 8 MiB message limit:
	 * those are compared. The LIDs are each device's own: only their kind
	 * is compared, xqp's values are checked on xqp.
	 */
	EXPECT_INT("port1_state", pa.state, 4);			/* ACTIVE */
	EXPECT_INT("port1_phys_state", pa.phys_state, 5);	/* LinkUp */
	EXPECT_INT("port1_link_layer", pa.link_layer, 1);	/* InfiniBand */
	EXPECT_INT("port1_max_mtu", pa.max_mtu, 5);		/* 4096 */
	EXPECT_INT("port1_active_mtu", pa.active_mtu, 5);
	EXPECT_INT("port1_width", pa.active_width, 1);		/* 1X */
	EXPECT_INT("port1_speed", pa.active_speed, 1);		/* SDR */
	EXPECT_INT("port1_max_vl_num", pa.max_vl_num, 1);
	EXPECT_INT("port1_gid_tbl_len", pa.gid_tbl_len, 1);
	EXPECT_INT("port1_pkey_tbl_len_is_max_pkeys", pa.pkey_tbl_len == da.max_pkeys, 1);
	EXPECT_INT("port1_cap_flags", pa.port_cap_flags, 0);
	EXPECT_INT("port1_max_msg_sz", pa.max_msg_sz, 0x800000);
	EXPECT_INT("port1_counters", pa.bad_pkey_cntr | pa.qkey_viol_cntr, 0);
	EXPECT_INT("port1_lmc", pa.lmc, 0);
	EXPECT_INT("port1_sm", pa.sm_sl | pa.subnet_timeout | pa.init_type_reply, 0);
	EXPECT_INT("port1_flags", pa.flags, 0);
	EXPECT_INT("port1_lid_unicast", pa.lid >= 1 && pa.lid <= 0xbfff, 1);
	EXPECT_INT("port1_sm_lid_unicast", pa.sm_lid >= 1 && pa.sm_lid <= 0xbfff, 1);
	if (g_is_xqp)
		CHECK(pa.lid == 1 && pa.sm_lid == 1, "soft device LIDs: got %u/%u, want 1/1",
		      pa.lid, pa.sm_lid);
	if (g_is_xqp) {
		/* the device's own values (enforced: host DeviceAttrs*) */
		struct ib_uverbs_query_device_resp r;

		memset(&r, 0xa5, sizeof(r));
		CHECK(query_device_raw(ctx->cmd_fd, &r) == 0 && r.atomic_cap == 1 &&
		      r.max_mr == 1u << 20 && r.max_ah == 1u << 20 && r.max_sge_rd == r.max_sge &&
		      r.max_res_rd_atom == res_rd_atom(&r) && r.local_ca_ack_delay == 15 &&
		      r.max_mw == 1u << 20 && (r.device_cap_flags & (1u << 17)) &&
		      (r.device_cap_flags & (1u << 24)) && r.max_mcast_grp == 8192 &&
		      r.max_mcast_qp_attach == 56 && r.max_total_mcast_qp_attach == 0x70000 &&
		      r.max_fmr == 0,
		      "QUERY_DEVICE: atomic_cap %u max_mr %u max_ah %u max_sge_rd %u res_rd_atom %u ack_delay %u max_mw %u cap_flags %#llx mcast %u/%u/%u",
		      r.atomic_cap, r.max_mr, r.max_ah, r.max_sge_rd, r.max_res_rd_atom,
		      r.local_ca_ack_delay, r.max_mw, (unsigned long long)r.device_cap_flags,
		      r.max_mcast_grp, r.max_mcast_qp_attach, r.max_total_mcast_qp_attach);
	}
	EXPECT("port0", xqpv_query_port(ctx, 0, &pa), EINVAL);
	EXPECT("port2", xqpv_query_port(ctx, 2, &pa), EINVAL);
	EXPECT("port255", xqpv_query_port(ctx, 255, &pa), EINVAL);
	qp.port_num = 1;
	memset(&pr, 0xa5, sizeof(pr));
	EXPECT("raw_port1", raw_cmd(ctx->cmd_fd, IB_USER_VERBS_CMD_QUERY_PORT, &qp,
				    sizeof(qp), -1, sizeof(pr) / 4), 0);
	/* the raw response: the same values, nothing left unwritten */
	EXPECT_INT("raw_port1_same", pr.state == 4 && pr.max_msg_sz == 0x800000 &&
		   pr.lid == pa.lid && pr.sm_lid == pa.sm_lid && pr.reserved == 0, 1);
	xqpv_close_device(ctx);
}

/* count, in_words, out_words, command number rules of ib_uverbs_write(). */
static void case_header(void)
{
	struct xqpv_context *ctx = open_ctx();
	int fd = ctx->cmd_fd;
	struct ib_uverbs_query_device_resp qd;
	struct ib_uverbs_query_device cmd = { .response = (uintptr_t)&qd };
	unsigned char buf[64] = { 0 };
	uint32_t pd;

	EXPECT("count0", raw_write(fd, buf, 0), EINVAL);
	EXPECT("count4", raw_write(fd, buf, 4), EINVAL);
	EXPECT("count7", raw_write(fd, buf, 7), EINVAL);
	EXPECT("bad_buf", raw_write(fd, (void *)8, 16), EFAULT);
	/* in_words must match the write exactly */
	EXPECT("in_words_big", raw_cmd(fd, IB_USER_VERBS_CMD_QUERY_DEVICE, &cmd,
				       sizeof(cmd), 5, sizeof(qd) / 4), EINVAL);
	EXPECT("in_words_small", raw_cmd(fd, IB_USER_VERBS_CMD_QUERY_DEVICE, &cmd,
					 sizeof(cmd), 3, sizeof(qd) / 4), EINVAL);
	EXPECT("in_words_ok", raw_cmd(fd, IB_USER_VERBS_CMD_QUERY_DEVICE, &cmd,
				      sizeof(cmd), 4, sizeof(qd) / 4), 0);
	/* a command shorter than its struct */
	EXPECT("short_body_query", raw_cmd(fd, IB_USER_VERBS_CMD_QUERY_DEVICE, &cmd,
					   4, -1, sizeof(qd) / 4), ENOSPC);
	EXPECT("short_body_hdr_only", raw_cmd(fd, IB_USER_VERBS_CMD_ALLOC_PD, NULL, 0,
					      -1, 1), ENOSPC);
	EXPECT("short_body_create_qp", raw_cmd(fd, IB_USER_VERBS_CMD_CREATE_QP, buf,
					       40, -1, 8), ENOSPC);
	/* a response buffer smaller than the response */
	EXPECT("short_out_query", raw_cmd(fd, IB_USER_VERBS_CMD_QUERY_DEVICE, &cmd,
					  sizeof(cmd), -1, sizeof(qd) / 4 - 1), ENOSPC);
	EXPECT("short_out_pd", raw_cmd(fd, IB_USER_VERBS_CMD_ALLOC_PD, &cmd,
				       sizeof(cmd), -1, 0), ENOSPC);
	/* command numbers */
	EXPECT("cmd_reserved_bits", raw_cmd(fd, IB_USER_VERBS_CMD_QUERY_DEVICE | 0x100,
					    &cmd, sizeof(cmd), -1, sizeof(qd) / 4), EINVAL);
	EXPECT("cmd_high_bits", raw_cmd(fd, 0x40000000 | IB_USER_VERBS_CMD_QUERY_DEVICE,
					&cmd, sizeof(cmd), -1, sizeof(qd) / 4), EINVAL);
	EXPECT("cmd_41", raw_cmd(fd, 41, buf, 16, -1, 0), EOPNOTSUPP);
	EXPECT("cmd_255_any_len", raw_cmd(fd, 255, buf, 16, 77, 0), EOPNOTSUPP);
	/* in range but without a method: the length check, then EOPNOTSUPP */
	EXPECT("cmd_query_ah", raw_cmd(fd, IB_USER_VERBS_CMD_QUERY_AH, buf, 8, -1, 0),
	       EOPNOTSUPP);
	EXPECT("cmd_query_ah_badlen", raw_cmd(fd, IB_USER_VERBS_CMD_QUERY_AH, buf, 8, 9, 0),
	       EINVAL);
	EXPECT("cmd_reg_smr", raw_cmd(fd, IB_USER_VERBS_CMD_REG_SMR, buf, 0, -1, 0),
	       EOPNOTSUPP);
	EXPECT("cmd_bind_mw", raw_cmd(fd, IB_USER_VERBS_CMD_BIND_MW, buf, 16, -1, 4),
	       EOPNOTSUPP);	/* (ALLOC_MW: xqp's devices have windows, the reference none) */
	/* extended commands */
	EXPECT("ex_out_of_range", raw_cmd(fd, EXT | 30, buf, 40, 1, 0), EOPNOTSUPP);
	EXPECT("ex_flow", raw_cmd(fd, EXT | IB_USER_VERBS_EX_CMD_CREATE_FLOW, buf, 40, 1, 0),
	       EOPNOTSUPP);
	EXPECT("ex_notsupp", raw_cmd(fd, EXT | 20, buf, 8, -1, 0), EOPNOTSUPP);
	EXPECT("ex_notsupp_badlen", raw_cmd(fd, EXT | 20, buf, 8, 2, 0), EINVAL);
	/* the extended header of a method Linux has (EX_QUERY_DEVICE) */
	{
		unsigned char ex[8 + 16 + 16];
		struct ib_uverbs_cmd_hdr *h = (void *)ex;
		struct ib_uverbs_ex_cmd_hdr *xh = (void *)(ex + 8);
		struct ib_uverbs_ex_query_device_resp xr;
		uint32_t c = EXT | IB_USER_VERBS_EX_CMD_QUERY_DEVICE;

		memset(ex, 0, sizeof(ex));
		h->command = c;
		h->in_words = 1;
		h->out_words = sizeof(xr) / 8;
		xh->response = (uintptr_t)&xr;
		EXPECT("ex_short", raw_write(fd, ex, 16), EINVAL);
		EXPECT("ex_in_words", raw_write(fd, ex, 40), EINVAL);
		xh->cmd_hdr_reserved = 1;
		EXPECT("ex_hdr_reserved", raw_write(fd, ex, 32), EINVAL);
		xh->cmd_hdr_reserved = 0;
		h->out_words = 0;
		EXPECT("ex_no_out_words", raw_write(fd, ex, 32), EINVAL);
		h->out_words = 2;
		xh->response = 0;
		EXPECT("ex_out_no_resp", raw_write(fd, ex, 32), EINVAL);
		h->out_words = sizeof(xr) / 8;
		xh->response = 0xffffffffffff0000ULL;
		EXPECT("ex_resp_kernel", raw_write(fd, ex, 32), EFAULT);
	}
	/* the response pointer */
	{
		struct ib_uverbs_alloc_pd bad = { .response = 8 };

		EXPECT("resp_efault", raw_cmd(fd, IB_USER_VERBS_CMD_ALLOC_PD, &bad,
					      sizeof(bad), -1, 1), EFAULT);
		/* the PD made before the fault is gone: handle 0 is free */
		EXPECT("after_efault", alloc_pd_raw(fd, &pd), 0);
		EXPECT_INT("after_efault_handle", pd, 0);
	}
	/* a response pointer to read-only memory */
	{
		void *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct ib_uverbs_alloc_pd bad = { .response = (uintptr_t)ro };

		EXPECT("resp_readonly", raw_cmd(fd, IB_USER_VERBS_CMD_ALLOC_PD, &bad,
						sizeof(bad), -1, 1), EFAULT);
		munmap(ro, 4096);
	}
	EXPECT("dealloc", dealloc_pd_raw(fd, pd), 0);
	xqpv_close_device(ctx);
}

/* Bytes past the struct: zero is fine, anything else EOPNOTSUPP (no udata). */
static void case_trailing(void)
{
	struct xqpv_context *ctx = open_ctx();
	int fd = ctx->cmd_fd;
	static unsigned char big[8 + 0xffff * 4];
	struct ib_uverbs_query_device_resp qd;
	struct ib_uverbs_query_device cmd = { .response = (uintptr_t)&qd };
	struct ib_uverbs_cmd_hdr *h = (void *)big;
	uint32_t body[4] = { 0 };
	uint32_t pd;

	EXPECT("alloc", alloc_pd_raw(fd, &pd), 0);
	body[0] = pd;
	body[1] = 0;
	EXPECT("dealloc_zero_tail", raw_cmd(fd, IB_USER_VERBS_CMD_DEALLOC_PD, body, 8,
					    -1, 0), 0);
	EXPECT("alloc2", alloc_pd_raw(fd, &pd), 0);
	body[0] = pd;
	body[1] = 1;
	EXPECT("dealloc_dirty_tail", raw_cmd(fd, IB_USER_VERBS_CMD_DEALLOC_PD, body, 8,
					     -1, 0), EOPNOTSUPP);
	body[1] = 0;
	EXPECT("dealloc_after", raw_cmd(fd, IB_USER_VERBS_CMD_DEALLOC_PD, body, 4, -1, 0), 0);

	/* the largest write: in_words = 0xffff */
	memset(big, 0, sizeof(big));
	h->command = IB_USER_VERBS_CMD_QUERY_DEVICE;
	h->in_words = 0xffff;
	h->out_words = sizeof(qd) / 4;
	memcpy(big + 8, &cmd, sizeof(cmd));
	/* Linux checks at most 64 KiB - 1 trailing bytes: more is "not clear" */
	EXPECT("max_len_zero", raw_write(fd, big, 0xffff * 4), EOPNOTSUPP);
	h->in_words = (8 + 8 + 0xffff) / 4;
	EXPECT("max_clear_len", raw_write(fd, big, h->in_words * 4), 0);
	big[8 + 8 + 1000] = 1;
	EXPECT("dirty_in_clear_len", raw_write(fd, big, h->in_words * 4), EOPNOTSUPP);
	/* driver data of a udata command is the driver's: ignored by both */
	{
		struct ib_uverbs_alloc_pd_resp r;
		uint64_t b[3] = { (uintptr_t)&r, 0x1234, 0x5678 };

		EXPECT("udata_ignored", raw_cmd(fd, IB_USER_VERBS_CMD_ALLOC_PD, b, sizeof(b),
						-1, 2), 0);
		EXPECT_INT("udata_handle", r.pd_handle, 0);
	}
	/* a response bigger than the struct (no udata) is zero-filled */
	{
		uint32_t out[64];
		struct ib_uverbs_query_device c = { .response = (uintptr_t)out };

		memset(out, 0xab, sizeof(out));
		EXPECT("long_out", raw_cmd(fd, IB_USER_VERBS_CMD_QUERY_DEVICE, &c, sizeof(c),
					   -1, 64), 0);
		EXPECT_INT("long_out_zeroed", out[63] == 0 &&
			   out[sizeof(struct ib_uverbs_query_device_resp) / 4] == 0, 1);
	}
	xqpv_close_device(ctx);
}

/* rdma-core v18/v19 sent DESTROY_CQ in 16 bytes: Linux takes it as 24. */
static void case_destroy_cq_compat(void)
{
	struct xqpv_context *ctx = open_ctx();
	struct xqpv_cq *cq = xqpv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ib_uverbs_destroy_cq_resp resp;
	unsigned char buf[24];
	struct ib_uverbs_cmd_hdr h = { IB_USER_VERBS_CMD_DESTROY_CQ, 4, sizeof(resp) / 4 };
	struct ib_uverbs_destroy_cq c = { .response = (uintptr_t)&resp };

	CHECK(cq, "create_cq: %s", errname(errno));
	if (!cq)
		return;
	c.cq_handle = cq->handle;
	memcpy(buf, &h, 8);
	memcpy(buf + 8, &c, 16);
	EXPECT("destroy16", raw_write(ctx->cmd_fd, buf, 16), 0);
	EXPECT("destroy_again", xqpv_destroy_cq(cq) ? errno : 0, ENOENT);
	xqpv_close_device(ctx);
}

/*
 * Reserved fields are not looked at, as Linux: libibverbs leaves OPEN_QP's
 * as the provider's buffer had them (real clients first).
 */
static void case_reserved(void)
{
	struct xqpv_context *ctx = open_ctx();
	struct xqpv_xrcd *x;
	struct xqpv_qp *qp = open_xrcd_tgt(ctx, NULL, 0, &x);
	struct ib_uverbs_create_qp_resp r = { 0 };
	struct ib_uverbs_open_qp oq = { .response = (uintptr_t)&r };
	struct ib_uverbs_query_port_resp pr;
	struct ib_uverbs_query_port qpt = { .response = (uintptr_t)&pr, .port_num = 1 };
	struct ib_uverbs_destroy_qp_resp dr;
	struct ib_uverbs_destroy_qp dq = { .response = (uintptr_t)&dr };

	CHECK(qp, "create: %s", errname(errno));
	if (!qp)
		return;
	oq.pd_handle = x->handle;
	oq.qpn = qp->qp_num;
	oq.qp_type = XQPV_QPT_XRC_RECV;
	memset(oq.reserved, 0xa5, sizeof(oq.reserved));
	EXPECT("open_qp", raw_cmd(ctx->cmd_fd, IB_USER_VERBS_CMD_OPEN_QP, &oq, sizeof(oq),
				  -1, sizeof(r) / 4), 0);
	EXPECT_INT("opened_qpn", r.qpn, qp->qp_num);
	qpt.reserved[6] = 1;
	EXPECT("query_port", raw_cmd(ctx->cmd_fd, IB_USER_VERBS_CMD_QUERY_PORT, &qpt,
				     sizeof(qpt), -1, sizeof(pr) / 4), 0);
	dq.qp_handle = r.qp_handle;
	dq.reserved = 1;
	EXPECT("destroy_qp", raw_cmd(ctx->cmd_fd, IB_USER_VERBS_CMD_DESTROY_QP, &dq,
				     sizeof(dq), -1, sizeof(dr) / 4), 0);
	xqpv_close_device(ctx);
}

/* Commands Linux has that xqp does not: EOPNOTSUPP after the length check. */
static void case_not_implemented(void)
{
	struct xqpv_context *ctx = open_ctx();
	struct ib_uverbs_ex_query_device_resp xr;
	unsigned char ex[8 + 16 + 8];
	struct ib_uverbs_cmd_hdr *h = (void *)ex;
	struct ib_uverbs_ex_cmd_hdr *xh = (void *)(ex + 8);

	memset(ex, 0, sizeof(ex));
	h->command = EXT | IB_USER_VERBS_EX_CMD_QUERY_DEVICE;
	h->in_words = 1;
	h->out_words = sizeof(xr) / 8;
	xh->response = (uintptr_t)&xr;
	EXPECT("ex_query_device", raw_write(ctx->cmd_fd, ex, sizeof(ex)), EOPNOTSUPP);
	xqpv_close_device(ctx);
}

/* A forked child inherits the file but may not write to it (f_cred). */
static void child_write(void *arg)
{
	struct xqpv_context *ctx = arg;
	uint32_t pd;

	EXPECT("child_alloc_pd", alloc_pd_raw(ctx->cmd_fd, &pd), EACCES);
}

static void case_fork_eacces(void)
{
	struct xqpv_context *ctx = open_ctx();

	EXPECT_INT("child", reap(spawn(child_write, ctx)), 0);
	EXPECT("parent_alloc_pd", alloc_pd_raw(ctx->cmd_fd, NULL), 0);
	xqpv_close_device(ctx);
}

/*
 * Random commands: any number, any length, random bodies and handles, the
 * response always pointing at a scratch buffer. Then the data path's
 * commands with bodies made mostly of real things (handles of live
 * objects, the addresses of a registered buffer, its keys, WR lists whose
 * counts and sizes are almost right), so that the kernel gets past its
 * first checks. Only the kernel's survival (and KASAN's silence) is
 * checked; results are not compared.
 */
static const uint32_t dp_cmds[] = {
	IB_USER_VERBS_CMD_REG_MR, IB_USER_VERBS_CMD_DEREG_MR, IB_USER_VERBS_CMD_CREATE_AH,
	IB_USER_VERBS_CMD_DESTROY_AH, IB_USER_VERBS_CMD_POLL_CQ,
	IB_USER_VERBS_CMD_REQ_NOTIFY_CQ, IB_USER_VERBS_CMD_RESIZE_CQ,
	IB_USER_VERBS_CMD_POST_SEND, IB_USER_VERBS_CMD_POST_RECV,
	IB_USER_VERBS_CMD_POST_SRQ_RECV, IB_USER_VERBS_CMD_MODIFY_SRQ,
	IB_USER_VERBS_CMD_QUERY_SRQ, IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL,
	IB_USER_VERBS_CMD_CREATE_CQ, IB_USER_VERBS_CMD_MODIFY_QP,
};

/* A value that is usually meaningful here: a small handle, a key, an
 * address inside (or just outside) @buf, a length, or noise. */
static uint64_t dp_value(unsigned int *seed, const unsigned char *buf, size_t len,
			 const uint32_t *keys, int nkeys)
{
	uint32_t r = (uint32_t)rand_r(seed);

	switch (r % 8) {
	case 0: case 1:
		return r % 8 / 2 + (uint32_t)rand_r(seed) % 6;	/* handles, counts */
	case 2:
		return nkeys ? keys[(uint32_t)rand_r(seed) % (uint32_t)nkeys] : r;
	case 3: case 4:
		return (uintptr_t)buf + (uint32_t)rand_r(seed) % (len + 64);
	case 5:
		return (uint32_t)rand_r(seed) % 5000;
	case 6:
		return ((uint64_t)r << 32) | (uint32_t)rand_r(seed);
	default:
		return 0;
	}
}

static void fuzz_datapath(struct xqpv_context *ctx, unsigned int seed)
{
	static unsigned char mem[65536] __attribute__((aligned(4096)));
	static unsigned char scratch[16384];
	struct xqpv_pd *pd = xqpv_alloc_pd(ctx);
	struct xqpv_cq *cq = xqpv_create_cq(ctx, 8, NULL, NULL, 0);
	struct xqpv_qp *qp = pd && cq ? create_rc(ctx, pd, cq) : NULL;
	struct xqpv_mr *mr = pd ? xqpv_reg_mr(pd, mem, sizeof(mem), 0xf) : NULL;
	uint32_t keys[4] = { mr ? mr->lkey : 1, mr ? mr->lkey + 1 : 2, 0, 0xffffffff };
	uint64_t body[512];

	(void)qp;
	for (int i = 0; i < 6000; i++) {
		uint32_t command = dp_cmds[(uint32_t)rand_r(&seed) %
					   (sizeof(dp_cmds) / sizeof(dp_cmds[0]))];
		size_t words = 2 + (size_t)(rand_r(&seed) % 40);	/* 8-byte words */
		int out = rand_r(&seed) % 64, err;

		for (size_t w = 0; w < words; w++)
			body[w] = dp_value(&seed, mem, sizeof(mem), keys, 4);
		body[0] = (uintptr_t)scratch;	/* response */
		if (command == IB_USER_VERBS_CMD_POST_SEND ||
		    command == IB_USER_VERBS_CMD_POST_RECV ||
		    command == IB_USER_VERBS_CMD_POST_SRQ_RECV) {
			uint32_t *h = (uint32_t *)&body[1];
			uint32_t wqe = command == IB_USER_VERBS_CMD_POST_SEND ?
				       (rand_r(&seed) % 2 ? 64 : 56) : 16;

			h[0] = (uint32_t)rand_r(&seed) % 8;		/* handle */
			h[1] = (uint32_t)rand_r(&seed) % 4;		/* wr_count */
			h[2] = (uint32_t)rand_r(&seed) % 5;		/* sge_count */
			h[3] = rand_r(&seed) % 8 ? wqe : (uint32_t)rand_r(&seed) % 200;
			/* plausible opcodes, flags and SGE counts in the WRs */
			for (size_t w = 3; w + 3 < words; w += wqe / 8) {
				uint32_t *x = (uint32_t *)&body[w];

				x[2] = (uint32_t)rand_r(&seed) % 3;		/* num_sge */
				x[3] = (uint32_t)rand_r(&seed) % 12;		/* opcode */
				x[4] = (uint32_t)rand_r(&seed) % 16;		/* send_flags */
			}
		}
		if (command == IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL) {
			struct ib_uverbs_create_comp_channel_resp r = { .fd = (uint32_t)-1 };
			struct ib_uverbs_create_comp_channel c = { .response = (uintptr_t)&r };

			if (!raw_cmd(ctx->cmd_fd, command, &c, sizeof(c), -1, sizeof(r) / 4))
				close((int)r.fd);	/* no fd pile-up */
			continue;
		}
		err = raw_cmd(ctx->cmd_fd, command, body, words * 8, -1, out);
		(void)err;
	}
}

static void case_fuzz(void)
{
	struct xqpv_context *ctx = open_ctx();
	static unsigned char scratch[8192];
	unsigned int seed = 12345;
	uint32_t body[1024];
	int odd = 0;

	for (int i = 0; i < 20000; i++) {
		uint32_t command = (uint32_t)rand_r(&seed) % 48;
		size_t words = (size_t)(rand_r(&seed) % 40);
		int err;

		if (rand_r(&seed) % 16 == 0)
			command |= EXT;
		if (command == IB_USER_VERBS_CMD_GET_CONTEXT ||
		    command == IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL)
			continue;	/* would pile up fds */
		for (size_t w = 0; w < words; w++) {
			uint32_t r = (uint32_t)rand_r(&seed);

			/* mostly small numbers: they hit real handles */
			body[w] = (r & 3) == 0 ? r : r % 8;
		}
		if (words >= 2) {
			uint64_t resp = (uintptr_t)scratch;

			memcpy(body, &resp, sizeof(resp));
		}
		err = raw_cmd(ctx->cmd_fd, command, body, words * 4, -1,
			      rand_r(&seed) % 64);
		if (err && err != EINVAL && err != ENOSPC && err != EOPNOTSUPP &&
		    err != ENOENT && err != EBUSY && err != EFAULT && err != EBADF &&
		    err != EAGAIN && err != EPERM && err != ENOMEM)
			odd = err;
	}
	CHECK(!odd, "unexpected errno %s", errname(odd));
	fuzz_datapath(ctx, seed);
	acc_token("survived", "1");
	xqpv_close_device(ctx);
}

/* ALLOC_MW into @resp: the errno. */
static int alloc_mw_raw(int fd, uint32_t pd_handle, uint8_t type,
			struct ib_uverbs_alloc_mw_resp *resp)
{
	struct ib_uverbs_alloc_mw c = { .response = (uintptr_t)resp, .pd_handle = pd_handle,
					.mw_type = type };

	return raw_cmd(fd, IB_USER_VERBS_CMD_ALLOC_MW, &c, sizeof(c), -1, sizeof(*resp) / 4);
}

/*
 * Memory windows through the raw commands (the reference device has none):
 * ALLOC_MW's checks in ib_uverbs_alloc_mw()'s order (PD, then type), a
 * window's rkey, DEALLOC_MW of it once; another file's window handle is
 * not this file's (ENOENT), and a PD with a window is busy.
 */
static void case_mw(void)
{
	struct xqpv_context *ctx = open_ctx(), *other = open_ctx();
	struct xqpv_pd *pd = xqpv_alloc_pd(ctx);
	struct ib_uverbs_alloc_mw_resp r1, r2;
	struct ib_uverbs_dealloc_mw d;
	int fd = ctx->cmd_fd;

	CHECK(pd != NULL, "alloc_pd: %s", strerror(errno));
	if (!pd)
		return;
	EXPECT("alloc_mw_bad_pd", alloc_mw_raw(fd, pd->handle + 1000, 1, &r1), ENOENT);
	EXPECT("alloc_mw_type_0", alloc_mw_raw(fd, pd->handle, 0, &r1), EINVAL);
	EXPECT("alloc_mw_type_3", alloc_mw_raw(fd, pd->handle, 3, &r1), EINVAL);
	EXPECT("alloc_mw_type_1", alloc_mw_raw(fd, pd->handle, 1, &r1), 0);
	EXPECT("alloc_mw_type_2", alloc_mw_raw(fd, pd->handle, 2, &r2), 0);
	CHECK(r1.rkey != r2.rkey && (r1.rkey >> 8) != (r2.rkey >> 8) && r1.mw_handle != r2.mw_handle,
	      "two windows, rkeys %#x %#x handles %u %u", r1.rkey, r2.rkey, r1.mw_handle,
	      r2.mw_handle);
	EXPECT("dealloc_pd_busy", xqpv_dealloc_pd(pd), EBUSY);
	d.mw_handle = r1.mw_handle;
	EXPECT("dealloc_mw_other_file", raw_cmd(other->cmd_fd, IB_USER_VERBS_CMD_DEALLOC_MW, &d,
						sizeof(d), -1, 0), ENOENT);
	EXPECT("dealloc_mw", raw_cmd(fd, IB_USER_VERBS_CMD_DEALLOC_MW, &d, sizeof(d), -1, 0), 0);
	EXPECT("dealloc_mw_again", raw_cmd(fd, IB_USER_VERBS_CMD_DEALLOC_MW, &d, sizeof(d), -1, 0),
	       ENOENT);
	/* r2 and the PD: the file's teardown */
	xqpv_close_device(other);
	xqpv_close_device(ctx);
}

const struct acc_case acc_cases_abi[] = {
	{ "abi_fuzz_random_commands", case_fuzz, NULL, 0 },
	{ "abi_no_context", case_no_context, NULL, 0 },
	{ "abi_get_context", case_get_context, NULL, 0 },
	{ "abi_query_device_port", case_query, NULL, 0 },
	{ "abi_header_rules", case_header, NULL, 0 },
	{ "abi_trailing_bytes", case_trailing, NULL, 0 },
	{ "abi_destroy_cq_16_bytes", case_destroy_cq_compat, NULL, 0 },
	{ "abi_reserved_fields", case_reserved, NULL, 0 },
	{ "abi_not_implemented", case_not_implemented,
	  "xqp has no extended commands; Linux has them", 0 },
	{ "abi_fork_child_eacces", case_fork_eacces, NULL, 0 },
	{ "abi_memory_windows", case_mw, NULL, ACC_XQP_ONLY },
	{ NULL, NULL, NULL, 0 },
};
