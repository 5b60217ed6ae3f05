// SPDX-License-Identifier: GPL-2.0
/*
 * xqp-wire-target: the QPs that xqp-badpkt's in-sequence cases aim at. On
 * an xqp device (libxqpverbs, /dev/xqp/uverbsN) it makes
 *   - an RC QP with a 64 KiB MR open to remote writes,
 *   - an XRC target QP T1 in domain D1 with an XRC SRQ S1 of D1 (one
 *     receive posted),
 *   - an XRC target QP T2 in D1, and an XRC SRQ S2 of another domain D2,
 * each connected (RTR) to the peer PEER_IP by its RoCE v2 GID, from a
 * made-up QP number, expecting PSN 0x1000. It prints
 *   target RC VA RKEY T1 S1 T2 S2 PSN
 * (hex), waits until GO_FILE exists, then checks what the packets did:
 *   - the good WRITE (16 bytes of 0xa5 at VA) landed, the one past the MR
 *     wrote nothing;
 *   - the good XRC SEND (16 bytes) completed on S1, and nothing else
 *     completed;
 *   - the RC QP, T1 and T2 are in ERR (a remote access error, an XRCETH
 *     naming a missing SRQ, one naming another domain's SRQ).
 * Prints "target: ok" and exits 0, or "target: FAIL ..." and exits 1.
 *
 *   xqp-wire-target DEV PEER_IP GID_INDEX GO_FILE
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "target.h"
#include "xqpverbs.h"

#define PSN 0x1000	/* what each QP expects first (printed for the sender) */

static struct {
	const char *peer;
	int gid_index;
} opt;

static void die(const char *what)
{
	printf("target: FAIL %s: %s\n", what, strerror(errno));
	exit(1);
}

static void connect_qp(struct xqpv_qp *qp, uint32_t peer_qpn)
{
	struct xqpv_qp_attr a = { .qp_state = XQPV_QPS_INIT, .port_num = 1,
				  .qp_access_flags = XQPV_ACCESS_REMOTE_WRITE };
	struct in_addr ip;
	int err;

	if ((err = xqpv_modify_qp(qp, &a, XQPV_QP_STATE | XQPV_QP_PKEY_INDEX | XQPV_QP_PORT |
				 XQPV_QP_ACCESS_FLAGS))) {
		errno = err;
		die("QP to INIT");
	}
	if (inet_pton(AF_INET, opt.peer, &ip) != 1) {
		errno = EINVAL;
		die("PEER_IP");
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = XQPV_QPS_RTR;
	a.path_mtu = XQPV_MTU_1024;
	a.dest_qp_num = peer_qpn;
	a.rq_psn = PSN;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.port_num = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid[10] = a.ah_attr.grh.dgid[11] = 0xff;	/* ::ffff:PEER_IP */
	memcpy(a.ah_attr.grh.dgid + 12, &ip, 4);
	a.ah_attr.grh.sgid_index = (uint8_t)opt.gid_index;
	a.ah_attr.grh.hop_limit = 64;
	if ((err = xqpv_modify_qp(qp, &a, XQPV_QP_STATE | XQPV_QP_AV | XQPV_QP_PATH_MTU |
				 XQPV_QP_DEST_QPN | XQPV_QP_RQ_PSN | XQPV_QP_MAX_DEST_RD_ATOMIC |
				 XQPV_QP_MIN_RNR_TIMER))) {
		errno = err;
		die("QP to RTR");
	}
}

static struct xqpv_xrcd *domain(struct xqpv_context *ctx)
{
	struct xqpv_xrcd_init_attr xa = { .comp_mask = XQPV_XRCD_INIT_ATTR_FD |
					  XQPV_XRCD_INIT_ATTR_OFLAGS, .fd = -1 };
	struct xqpv_xrcd *x = xqpv_open_xrcd(ctx, &xa);

	if (!x)
		die("open XRC domain");
	return x;
}

static struct xqpv_srq *xrc_srq(struct xqpv_context *ctx, struct xqpv_pd *pd,
				struct xqpv_xrcd *x, struct xqpv_cq *cq)
{
	struct xqpv_srq_init_attr_ex a = {
		.attr = { .max_wr = 4, .max_sge = 1 },
		.comp_mask = XQPV_SRQ_INIT_ATTR_TYPE | XQPV_SRQ_INIT_ATTR_PD |
			     XQPV_SRQ_INIT_ATTR_XRCD | XQPV_SRQ_INIT_ATTR_CQ,
		.srq_type = XQPV_SRQT_XRC, .pd = pd, .xrcd = x, .cq = cq,
	};
	struct xqpv_srq *s = xqpv_create_srq_ex(ctx, &a);

	if (!s)
		die("create XRC SRQ");
	return s;
}

static struct xqpv_qp *xrc_tgt(struct xqpv_context *ctx, struct xqpv_xrcd *x)
{
	struct xqpv_qp_init_attr_ex a = { .qp_type = XQPV_QPT_XRC_RECV,
					  .comp_mask = XQPV_QP_INIT_ATTR_XRCD, .xrcd = x };
	struct xqpv_qp *q = xqpv_create_qp_ex(ctx, &a);

	if (!q)
		die("create XRC target QP");
	return q;
}

static uint32_t srq_num(struct xqpv_srq *s)
{
	uint32_t n;

	if (xqpv_get_srq_num(s, &n))
		die("SRQ number");
	return n;
}

static int state(struct xqpv_qp *qp)
{
	struct xqpv_qp_attr a;
	struct xqpv_qp_init_attr ia;

	if (xqpv_query_qp(qp, &a, XQPV_QP_STATE, &ia))
		return -1;
	return a.qp_state;
}

int main(int argc, char **argv)
{
	struct xqpv_context *ctx;
	struct xqpv_pd *pd;
	struct xqpv_cq *cq;
	struct xqpv_mr *mr;
	struct xqpv_xrcd *d1, *d2;
	struct xqpv_srq *s1, *s2;
	struct xqpv_qp *rc, *t1, *t2;
	struct xqpv_wc wc[4];
	unsigned char *buf;
	char why[256] = "";
	int i, n = 0;

	if (argc != 5) {
		fprintf(stderr, "usage: %s DEV PEER_IP GID_INDEX GO_FILE\n", argv[0]);
		return 2;
	}
	opt.peer = argv[2];
	opt.gid_index = atoi(argv[3]);
	ctx = xqpv_open_device_path(argv[1]);
	if (!ctx)
		die(argv[1]);
	pd = xqpv_alloc_pd(ctx);
	cq = pd ? xqpv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
	if (!cq)
		die("PD and CQ");
	if (posix_memalign((void **)&buf, 4096, TARGET_MR_BYTES))
		die("memory");
	memset(buf, 0, TARGET_MR_BYTES);
	mr = xqpv_reg_mr(pd, buf, TARGET_MR_BYTES, XQPV_ACCESS_LOCAL_WRITE | XQPV_ACCESS_REMOTE_WRITE);
	if (!mr)
		die("register the MR");
	{
		struct xqpv_qp_init_attr_ex a = {
			.qp_type = XQPV_QPT_RC, .comp_mask = XQPV_QP_INIT_ATTR_PD, .pd = pd,
			.send_cq = cq, .recv_cq = cq,
			.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1,
				 .max_recv_sge = 1 },
		};
		rc = xqpv_create_qp_ex(ctx, &a);
		if (!rc)
			die("create the RC QP");
	}
	d1 = domain(ctx);
	d2 = domain(ctx);
	s1 = xrc_srq(ctx, pd, d1, cq);
	s2 = xrc_srq(ctx, pd, d2, cq);
	t1 = xrc_tgt(ctx, d1);
	t2 = xrc_tgt(ctx, d1);
	{
		struct xqpv_sge sge = { (uintptr_t)(buf + TARGET_MR_BYTES / 2), 64, mr->lkey };
		struct xqpv_recv_wr w = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 }, *bad;

		if (xqpv_post_srq_recv(s1, &w, &bad))
			die("post a receive on S1");
		w.wr_id = 2;
		if (xqpv_post_srq_recv(s2, &w, &bad))
			die("post a receive on S2");
	}
	connect_qp(rc, TARGET_PEER_RC);
	connect_qp(t1, TARGET_PEER_XRC1);
	connect_qp(t2, TARGET_PEER_XRC2);
	printf("target %#x %#lx %#x %#x %#x %#x %#x %#x\n", rc->qp_num, (unsigned long)(uintptr_t)buf,
	       mr->rkey, t1->qp_num, srq_num(s1), t2->qp_num, srq_num(s2), PSN);
	fflush(stdout);

	for (i = 0; i < 1200 && access(argv[4], F_OK); i++)
		usleep(100 * 1000);
	if (i == 1200) {
		printf("target: FAIL %s never came\n", argv[4]);
		return 1;
	}
	for (i = 0; i < 16; i++)
		if (buf[i] != 0xa5)
			break;
	if (i < 16)
		snprintf(why, sizeof(why), "the good WRITE: byte %d is %#x", i, buf[i]);
	for (i = TARGET_MR_BYTES - 16; i < TARGET_MR_BYTES; i++)
		if (buf[i])
			snprintf(why, sizeof(why), "the WRITE past the MR wrote byte %d", i);
	for (i = 0; i < 10 && n < 4; i++) {
		int got = xqpv_poll_cq(cq, 4 - n, wc + n);

		if (got > 0)
			n += got;
		usleep(10 * 1000);
	}
	if (n != 1 || wc[0].wr_id != 1 || wc[0].status != XQPV_WC_SUCCESS || wc[0].byte_len != 16)
		snprintf(why, sizeof(why), "%d completion(s); the first wr_id %lu status %d bytes %u",
			 n, n ? (unsigned long)wc[0].wr_id : 0UL, n ? (int)wc[0].status : -1,
			 n ? wc[0].byte_len : 0);
	if (state(rc) != XQPV_QPS_ERR || state(t1) != XQPV_QPS_ERR || state(t2) != XQPV_QPS_ERR)
		snprintf(why, sizeof(why), "QP states RC %d T1 %d T2 %d, not ERR (%d)", state(rc),
			 state(t1), state(t2), XQPV_QPS_ERR);
	xqpv_destroy_qp(t2);
	xqpv_destroy_qp(t1);
	xqpv_destroy_qp(rc);
	xqpv_destroy_srq(s2);
	xqpv_destroy_srq(s1);
	xqpv_close_xrcd(d2);
	xqpv_close_xrcd(d1);
	xqpv_dereg_mr(mr);
	xqpv_destroy_cq(cq);
	xqpv_dealloc_pd(pd);
	xqpv_close_device(ctx);
	free(buf);
	if (why[0]) {
		printf("target: FAIL %s\n", why);
		return 1;
	}
	printf("target: ok\n");
	return 0;
}
