// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The data path with raw write()s only: <rdma/ib_user_verbs.h> and
 * uapi/xqp_uverbs.h, no libxqpverbs call (the harness's raw_cmd() is a
 * write() of header + body). Two devices, an RC pair: REG_MR, POST_RECV,
 * POST_SEND (Linux's own wqe_size and xqp's longer one), POLL_CQ; the
 * multicast commands. xqp only.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "acc.h"
#include "xqp_uverbs.h"

struct rside {
	int fd, async_fd;
	uint32_t pd, cq, qp, qpn, mr, lkey, rkey;
	uint16_t lid;
	unsigned char *buf;
};

#define RAW_LEN 8192

static int rside_open(struct rside *s, const char *path)
{
	struct ib_uverbs_get_context_resp gr;
	struct ib_uverbs_get_context g = { .response = (uintptr_t)&gr };
	struct ib_uverbs_query_port_resp pr;
	struct ib_uverbs_query_port qp = { .response = (uintptr_t)&pr, .port_num = 1 };
	struct ib_uverbs_alloc_pd_resp ar;
	struct ib_uverbs_alloc_pd a = { .response = (uintptr_t)&ar };
	struct ib_uverbs_create_cq_resp cr;
	struct ib_uverbs_create_cq c = { .response = (uintptr_t)&cr, .user_handle = 1, .cqe = 16,
					 .comp_channel = -1 };
	struct ib_uverbs_create_qp_resp qr;
	struct ib_uverbs_create_qp q = { .response = (uintptr_t)&qr, .user_handle = 2,
					 .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1,
					 .max_recv_sge = 1, .qp_type = 2 /* IB_QPT_RC */ };
	struct ib_uverbs_reg_mr_resp mr;
	struct ib_uverbs_reg_mr m = { .response = (uintptr_t)&mr, .length = RAW_LEN,
				      .access_flags = 0xf };
	int err;

	memset(s, 0, sizeof(*s));
	s->fd = open(path, O_RDWR | O_CLOEXEC);
	if (s->fd < 0)
		return errno;
	if ((err = raw_cmd(s->fd, IB_USER_VERBS_CMD_GET_CONTEXT, &g, sizeof(g), -1,
			   sizeof(gr) / 4)))
		return err;
	s->async_fd = (int)gr.async_fd;
	if ((err = raw_cmd(s->fd, IB_USER_VERBS_CMD_QUERY_PORT, &qp, sizeof(qp), -1,
			   sizeof(pr) / 4)))
		return err;
	s->lid = pr.lid;
	if ((err = raw_cmd(s->fd, IB_USER_VERBS_CMD_ALLOC_PD, &a, sizeof(a), -1, sizeof(ar) / 4)))
		return err;
	s->pd = ar.pd_handle;
	if ((err = raw_cmd(s->fd, IB_USER_VERBS_CMD_CREATE_CQ, &c, sizeof(c), -1, sizeof(cr) / 4)))
		return err;
	s->cq = cr.cq_handle;
	q.pd_handle = s->pd;
	q.send_cq_handle = q.recv_cq_handle = s->cq;
	if ((err = raw_cmd(s->fd, IB_USER_VERBS_CMD_CREATE_QP, &q, sizeof(q), -1, sizeof(qr) / 4)))
		return err;
	s->qp = qr.qp_handle;
	s->qpn = qr.qpn;
	if (posix_memalign((void **)&s->buf, 4096, RAW_LEN))
		return ENOMEM;
	memset(s->buf, 0, RAW_LEN);
	m.start = m.hca_va = (uintptr_t)s->buf;
	m.pd_handle = s->pd;
	if ((err = raw_cmd(s->fd, IB_USER_VERBS_CMD_REG_MR, &m, sizeof(m), -1, sizeof(mr) / 4)))
		return err;
	s->mr = mr.mr_handle;
	s->lkey = mr.lkey;
	s->rkey = mr.rkey;
	return 0;
}

static int modify(struct rside *s, struct ib_uverbs_modify_qp *m)
{
	m->qp_handle = s->qp;
	return raw_cmd(s->fd, IB_USER_VERBS_CMD_MODIFY_QP, m, sizeof(*m), -1, 0);
}

static int rside_connect(struct rside *s, uint16_t dlid, uint32_t dqpn)
{
	struct ib_uverbs_modify_qp m;
	int err;

	memset(&m, 0, sizeof(m));
	m.attr_mask = 1 | (1 << 4) | (1 << 5) | (1 << 3);	/* STATE PKEY PORT ACCESS */
	m.qp_state = 1;	/* INIT */
	m.port_num = 1;
	m.qp_access_flags = 0xe;
	if ((err = modify(s, &m)))
		return err;
	memset(&m, 0, sizeof(m));
	/* STATE AV PATH_MTU DEST_QPN RQ_PSN MAX_DEST_RD_ATOMIC MIN_RNR_TIMER */
	m.attr_mask = 1 | (1 << 7) | (1 << 8) | (1 << 20) | (1 << 12) | (1 << 17) | (1 << 15);
	m.qp_state = 2;	/* RTR */
	m.path_mtu = 3;
	m.dest_qp_num = dqpn;
	m.dest.dlid = dlid;
	m.dest.port_num = 1;
	m.max_dest_rd_atomic = 1;
	m.min_rnr_timer = 1;
	if ((err = modify(s, &m)))
		return err;
	memset(&m, 0, sizeof(m));
	/* STATE SQ_PSN TIMEOUT RETRY_CNT RNR_RETRY MAX_QP_RD_ATOMIC */
	m.attr_mask = 1 | (1 << 16) | (1 << 9) | (1 << 10) | (1 << 11) | (1 << 13);
	m.qp_state = 3;	/* RTS */
	m.timeout = 10;
	m.retry_cnt = 1;
	m.rnr_retry = 7;
	m.max_rd_atomic = 1;
	return modify(s, &m);
}

static void rside_close(struct rside *s)
{
	if (s->fd > 0)
		close(s->fd);
	if (s->async_fd > 0)
		close(s->async_fd);
	free(s->buf);
}

/* POST_RECV of one WR of one SGE. */
static int raw_recv(struct rside *s, uint64_t wr_id, uint32_t off, uint32_t len,
		    uint32_t *bad_wr)
{
	struct {
		struct ib_uverbs_post_recv cmd;
		struct ib_uverbs_recv_wr wr;
		struct ib_uverbs_sge sge;
	} r;
	struct ib_uverbs_post_recv_resp resp = { 0 };
	int err;

	memset(&r, 0, sizeof(r));
	r.cmd.response = (uintptr_t)&resp;
	r.cmd.qp_handle = s->qp;
	r.cmd.wr_count = 1;
	r.cmd.sge_count = 1;
	r.cmd.wqe_size = sizeof(r.wr);
	r.wr.wr_id = wr_id;
	r.wr.num_sge = 1;
	r.sge.addr = (uintptr_t)s->buf + off;
	r.sge.length = len;
	r.sge.lkey = s->lkey;
	err = raw_cmd(s->fd, IB_USER_VERBS_CMD_POST_RECV, &r, sizeof(r), -1, sizeof(resp) / 4);
	*bad_wr = resp.bad_wr;
	return err;
}

/*
 * POST_SEND of two WRs (a SEND_WITH_IMM and an RDMA_WRITE) of @wqe bytes
 * each, at most xqp's WQE.
 */
static int raw_send2(struct rside *s, const struct rside *peer, size_t wqe, uint32_t *bad_wr)
{
	unsigned char body[sizeof(struct ib_uverbs_post_send) +
			   2 * sizeof(struct xqp_uverbs_send_wr) +
			   2 * sizeof(struct ib_uverbs_sge)];
	struct ib_uverbs_post_send *cmd = (void *)body;
	struct ib_uverbs_post_send_resp resp = { 0 };
	struct ib_uverbs_send_wr *w0 = (void *)(body + sizeof(*cmd));
	struct ib_uverbs_send_wr *w1 = (void *)(body + sizeof(*cmd) + wqe);
	struct ib_uverbs_sge *sg = (void *)(body + sizeof(*cmd) + 2 * wqe);
	size_t len = sizeof(*cmd) + 2 * wqe + 2 * sizeof(*sg);
	int err;

	if (wqe > sizeof(struct xqp_uverbs_send_wr))
		return E2BIG;	/* not a case of this program */
	memset(body, 0, sizeof(body));
	cmd->response = (uintptr_t)&resp;
	cmd->qp_handle = s->qp;
	cmd->wr_count = 2;
	cmd->sge_count = 2;
	cmd->wqe_size = (uint32_t)wqe;
	w0->wr_id = 0x51;
	w0->num_sge = 1;
	w0->opcode = IB_UVERBS_WR_SEND_WITH_IMM;
	w0->send_flags = 2;	/* IB_SEND_SIGNALED */
	w0->ex.imm_data = 0x11223344;
	w1->wr_id = 0x52;
	w1->num_sge = 1;
	w1->opcode = IB_UVERBS_WR_RDMA_WRITE;
	w1->send_flags = 2;
	w1->wr.rdma.remote_addr = (uintptr_t)peer->buf + 4096;
	w1->wr.rdma.rkey = peer->rkey;
	for (int i = 0; i < 2; i++) {
		sg[i].addr = (uintptr_t)s->buf + (uint64_t)i * 1024;
		sg[i].length = 300;
		sg[i].lkey = s->lkey;
	}
	err = raw_cmd(s->fd, IB_USER_VERBS_CMD_POST_SEND, body, len, -1, sizeof(resp) / 4);
	*bad_wr = resp.bad_wr;
	return err;
}

/* POLL_CQ for up to @ne WCs, retried for a while until @want came. */
static int raw_poll(struct rside *s, struct ib_uverbs_wc *wc, uint32_t ne, uint32_t want)
{
	unsigned char out[sizeof(struct ib_uverbs_poll_cq_resp) + 8 * sizeof(struct ib_uverbs_wc)];
	struct ib_uverbs_poll_cq_resp *resp = (void *)out;
	struct ib_uverbs_poll_cq cmd = { .response = (uintptr_t)out, .cq_handle = s->cq };
	uint32_t got = 0;

	for (int tries = 0; tries < 5000 && got < want; tries++) {
		cmd.ne = ne - got;
		resp->count = 0xdead;
		if (raw_cmd(s->fd, IB_USER_VERBS_CMD_POLL_CQ, &cmd, sizeof(cmd), -1,
			    (int)((sizeof(*resp) + cmd.ne * sizeof(*wc)) / 4)))
			return -1;
		if (resp->count > cmd.ne)
			return -2;
		memcpy(wc + got, resp->wc, resp->count * sizeof(*wc));
		got += resp->count;
		if (got < want)
			usleep(1000);
	}
	return (int)got;
}

static void case_raw(void)
{
	struct rside a, b;
	struct ib_uverbs_wc wc[8];
	uint32_t bad = 99;
	char dev2[256];
	size_t n = strlen(g_dev);

	snprintf(dev2, sizeof(dev2), "%s", g_dev);
	dev2[n - 1]++;
	EXPECT("open_a", rside_open(&a, g_dev), 0);
	EXPECT("open_b", rside_open(&b, dev2), 0);
	EXPECT_INT("keys_nonzero", a.lkey && b.lkey, 1);
	EXPECT("connect_a", rside_connect(&a, b.lid, b.qpn), 0);
	EXPECT("connect_b", rside_connect(&b, a.lid, a.qpn), 0);
	EXPECT_INT("poll_empty", raw_poll(&a, wc, 4, 0), 0);
	EXPECT("post_recv", raw_recv(&a, 0x61, 0, 1024, &bad), 0);
	EXPECT_INT("post_recv_bad_wr", bad, 0);
	for (int i = 0; i < 600; i++)
		b.buf[i] = (unsigned char)(i * 3 + 1);
	/* Linux's own wqe_size (no XRC number) on an RC QP */
	EXPECT("post_send_linux_wqe", raw_send2(&b, &a, sizeof(struct ib_uverbs_send_wr), &bad), 0);
	EXPECT_INT("post_send_bad_wr", bad, 0);
	EXPECT_INT("send_wcs", raw_poll(&b, wc, 8, 2), 2);
	EXPECT_INT("wc0", wc[0].wr_id == 0x51 && wc[0].status == 0 &&
		   wc[0].opcode == IB_UVERBS_WC_SEND && wc[0].byte_len == 300 &&
		   wc[0].qp_num == b.qpn, 1);
	EXPECT_INT("wc1", wc[1].wr_id == 0x52 && wc[1].status == 0 &&
		   wc[1].opcode == IB_UVERBS_WC_RDMA_WRITE && wc[1].byte_len == 300, 1);
	EXPECT_INT("recv_wcs", raw_poll(&a, wc, 8, 1), 1);
	EXPECT_INT("recv_wc", wc[0].wr_id == 0x61 && wc[0].status == 0 &&
		   wc[0].opcode == 128 && wc[0].byte_len == 300 &&
		   (wc[0].wc_flags & 2) && wc[0].ex.imm_data == 0x11223344 &&
		   wc[0].qp_num == a.qpn && wc[0].src_qp == b.qpn && wc[0].slid == b.lid &&
		   wc[0].port_num == 1, 1);
	EXPECT_INT("recv_data", !memcmp(a.buf, b.buf, 300), 1);
	EXPECT_INT("write_data", !memcmp(a.buf + 4096, b.buf + 1024, 300), 1);
	/* xqp's wqe_size: the same, with the XRC number trailing */
	EXPECT("post_recv2", raw_recv(&a, 0x62, 0, 1024, &bad), 0);
	EXPECT("post_send_xqp_wqe", raw_send2(&b, &a, sizeof(struct xqp_uverbs_send_wr), &bad), 0);
	EXPECT_INT("send_wcs2", raw_poll(&b, wc, 8, 2), 2);
	EXPECT_INT("recv_wcs2", raw_poll(&a, wc, 8, 1), 1);
	/* a wqe_size below struct ib_uverbs_send_wr: EINVAL, nothing posted */
	bad = 99;
	EXPECT("post_send_short_wqe", raw_send2(&b, &a, 40, &bad), EINVAL);
	EXPECT_INT("short_wqe_no_bad_wr", bad, 0);
	rside_close(&a);
	rside_close(&b);
}

/* A UD QP (2 WRs, 1 SGE) on @s's PD and CQ: 0 with *@handle, or errno. */
static int create_ud_raw(struct rside *s, uint32_t *handle)
{
	struct ib_uverbs_create_qp_resp qr;
	struct ib_uverbs_create_qp q = { .response = (uintptr_t)&qr, .user_handle = 3,
					 .pd_handle = s->pd, .send_cq_handle = s->cq,
					 .recv_cq_handle = s->cq, .max_send_wr = 2,
					 .max_recv_wr = 2, .max_send_sge = 1, .max_recv_sge = 1,
					 .qp_type = 4 /* IB_QPT_UD */ };
	int err = raw_cmd(s->fd, IB_USER_VERBS_CMD_CREATE_QP, &q, sizeof(q), -1,
			  sizeof(qr) / 4);

	if (!err)
		*handle = qr.qp_handle;
	return err;
}

static int mcast_cmd(int fd, uint32_t command, uint32_t qp, const uint8_t gid[16], uint16_t lid)
{
	struct ib_uverbs_attach_mcast m = { .qp_handle = qp, .mlid = lid };

	memcpy(m.gid, gid, 16);
	return raw_cmd(fd, command, &m, sizeof(m), -1, 0);
}

/*
 * ATTACH_MCAST and DETACH_MCAST as uverbs_cmd.c answers them: a UD QP and a
 * multicast GID (else EINVAL), a multicast LID on an InfiniBand port, the
 * same pair again 0 and one attachment, DESTROY_QP of an attached QP EBUSY,
 * a pair not attached EINVAL; closing the file detaches what it attached.
 */
static void case_mcast(void)
{
	const uint8_t g1[16] = { 0xff, 0x0e, [15] = 1 }, g2[16] = { 0xff, 0x0e, [15] = 2 };
	const uint8_t v4[16] = { [10] = 0xff, [11] = 0xff, 239, 1, 1, 1 };
	const uint8_t uni[16] = { 0xfe, 0x80, [15] = 1 };
	long attach0 = soft_count("mcast_attach", NULL, 0), grp0 = soft_count("mcast_grp", NULL, 0);
	const uint32_t A = IB_USER_VERBS_CMD_ATTACH_MCAST, D = IB_USER_VERBS_CMD_DETACH_MCAST;
	struct rside a;
	uint32_t ud;

	EXPECT("open", rside_open(&a, g_dev), 0);
	EXPECT("create_ud", create_ud_raw(&a, &ud), 0);
	EXPECT_INT("counts_readable", attach0 >= 0 && grp0 >= 0, 1);
	EXPECT("attach_rc", mcast_cmd(a.fd, A, a.qp, g1, 0xc001), EINVAL);
	EXPECT("attach_unicast_gid", mcast_cmd(a.fd, A, ud, uni, 0xc001), EINVAL);
	EXPECT("attach_unicast_lid", mcast_cmd(a.fd, A, ud, g1, 7), EINVAL);
	EXPECT("attach_bad_handle", mcast_cmd(a.fd, A, 0x7777, g1, 0xc001), EINVAL);
	EXPECT("attach_short", raw_cmd(a.fd, A, g1, 16, -1, 0), ENOSPC);
	EXPECT("attach", mcast_cmd(a.fd, A, ud, g1, 0xc001), 0);
	EXPECT("attach_again", mcast_cmd(a.fd, A, ud, g1, 0xc001), 0);
	EXPECT_INT("one_attachment", soft_count("mcast_attach", NULL, 0) - attach0, 1);
	EXPECT("attach_ipv4_group", mcast_cmd(a.fd, A, ud, v4, 0xc002), 0);
	EXPECT("destroy_attached", destroy_qp_raw(a.fd, ud, NULL), EBUSY);
	EXPECT("detach_not_attached", mcast_cmd(a.fd, D, ud, g2, 0xc001), EINVAL);
	EXPECT("detach_other_lid", mcast_cmd(a.fd, D, ud, g1, 0xc003), EINVAL);
	EXPECT("detach", mcast_cmd(a.fd, D, ud, g1, 0xc001), 0);
	EXPECT("detach_again", mcast_cmd(a.fd, D, ud, g1, 0xc001), EINVAL);
	EXPECT("attach_g2", mcast_cmd(a.fd, A, ud, g2, 0xc001), 0);
	EXPECT_INT("groups", soft_count("mcast_grp", NULL, 0) - grp0, 2);
	rside_close(&a);	/* the file's teardown detaches both */
	EXPECT_INT("close_detaches", soft_count("mcast_attach", NULL, 0) - attach0, 0);
	EXPECT_INT("close_frees_groups", soft_count("mcast_grp", NULL, 0) - grp0, 0);
}

/*
 * A DETACH_MCAST the device refuses (an injected ENOMEM): the pair stays
 * on the handle, so detaching it again works and the QP can go (Linux
 * drops the pair first and its QP stays busy for good); then a close
 * whose detach is refused parks the QP, and the next file's teardown
 * detaches and destroys it.
 */
static void case_mcast_refused(void)
{
	const uint8_t g[16] = { 0xff, 0x0e, [15] = 9 };
	const uint32_t A = IB_USER_VERBS_CMD_ATTACH_MCAST, D = IB_USER_VERBS_CMD_DETACH_MCAST;
	long attach0 = soft_count("mcast_attach", NULL, 0);
	struct rside a, b;
	uint32_t ud;

	EXPECT("open", rside_open(&a, g_dev), 0);
	EXPECT("create_ud", create_ud_raw(&a, &ud), 0);
	EXPECT("attach", mcast_cmd(a.fd, A, ud, g, 0xc001), 0);
	EXPECT("arm", soft_inject("detach_mcast 12"), 0);
	EXPECT("detach_refused", mcast_cmd(a.fd, D, ud, g, 0xc001), ENOMEM);
	EXPECT("disarm", soft_inject("detach_mcast 0"), 0);
	EXPECT("still_busy", destroy_qp_raw(a.fd, ud, NULL), EBUSY);
	EXPECT("detach_again", mcast_cmd(a.fd, D, ud, g, 0xc001), 0);
	EXPECT("destroy", destroy_qp_raw(a.fd, ud, NULL), 0);

	EXPECT("create_ud2", create_ud_raw(&a, &ud), 0);
	EXPECT("attach2", mcast_cmd(a.fd, A, ud, g, 0xc001), 0);
	EXPECT("arm_close", soft_inject("detach_mcast 12"), 0);
	rside_close(&a);	/* the detach is refused: the QP is parked */
	EXPECT("disarm_close", soft_inject("detach_mcast 0"), 0);
	EXPECT("open_b", rside_open(&b, g_dev), 0);
	rside_close(&b);	/* retries what the first file left */
	EXPECT_INT("all_detached", soft_count("mcast_attach", NULL, 0) - attach0, 0);
}

const struct acc_case acc_cases_raw[] = {
	{ "dp_raw_writes", case_raw, NULL, ACC_XQP_ONLY },
	{ "mcast_attach_rules", case_mcast, NULL, ACC_XQP_ONLY },
	{ "mcast_detach_refused", case_mcast_refused, NULL, ACC_XQP_ONLY },
	{ NULL, NULL, NULL, 0 },
};
