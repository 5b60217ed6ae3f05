// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Makes objects for scripts/res-check with raw uverbs write()s
 * (<rdma/ib_user_verbs.h> only), then waits to be killed, so that
 * `xqp res show` sees them owned by this process.
 *
 *   res-helper [--uid U] create FILE   XRCD shared through FILE (O_CREAT), a
 *                                      shareable XRC target QP in it, a PD,
 *                                      a CQ, an RC QP, an MR, an XRC SRQ;
 *                                      prints "qpn N rcqpn N pid N"
 *   res-helper [--uid U] open FILE QPN joins FILE's XRCD, opens QP QPN, a PD;
 *                                      prints "opened N pid N"
 *   res-helper runas U PROG ARGS...    PROG with uid and gid U (no capabilities)
 *
 * --uid U: become U first, so the objects belong to an unprivileged user.
 * Exit status 1 with the failing step and errno on any failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <rdma/ib_user_verbs.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int dev_fd;

static void die(const char *what, int err)
{
	fprintf(stderr, "res-helper: %s: %s\n", what, strerror(err));
	exit(1);
}

/* One command: header + body; the response goes where body's response points. */
static void cmd(uint32_t command, const void *body, size_t len, size_t resp_len,
		const char *what)
{
	unsigned char buf[8 + 256];
	struct ib_uverbs_cmd_hdr hdr = {
		.command = command,
		.in_words = (uint16_t)((8 + len) / 4),
		.out_words = (uint16_t)(resp_len / 4),
	};

	memcpy(buf, &hdr, sizeof(hdr));
	memcpy(buf + 8, body, len);
	if (write(dev_fd, buf, 8 + len) != (ssize_t)(8 + len))
		die(what, errno);
}

static void become(const char *uid_s)
{
	uid_t uid = (uid_t)strtoul(uid_s, NULL, 10);

	if (setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		die("setuid", errno);
}

static void open_dev(void)
{
	struct ib_uverbs_get_context_resp gr;
	struct ib_uverbs_get_context g = { .response = (uintptr_t)&gr };

	dev_fd = open("/dev/xqp/uverbs0", O_RDWR | O_CLOEXEC);
	if (dev_fd < 0)
		die("open /dev/xqp/uverbs0", errno);
	cmd(IB_USER_VERBS_CMD_GET_CONTEXT, &g, sizeof(g), sizeof(gr), "GET_CONTEXT");
}

static uint32_t open_xrcd(const char *path, int oflags)
{
	struct ib_uverbs_open_xrcd_resp xr;
	struct ib_uverbs_open_xrcd x = { .response = (uintptr_t)&xr, .oflags = (uint32_t)oflags };
	int fd = open(path, O_RDONLY | O_CREAT, 0666);

	if (fd < 0)
		die(path, errno);
	x.fd = (uint32_t)fd;
	cmd(IB_USER_VERBS_CMD_OPEN_XRCD, &x, sizeof(x), sizeof(xr), "OPEN_XRCD");
	return xr.xrcd_handle;
}

static uint32_t alloc_pd(void)
{
	struct ib_uverbs_alloc_pd_resp pr;
	struct ib_uverbs_alloc_pd p = { .response = (uintptr_t)&pr };

	cmd(IB_USER_VERBS_CMD_ALLOC_PD, &p, sizeof(p), sizeof(pr), "ALLOC_PD");
	return pr.pd_handle;
}

static void create(const char *path)
{
	static char buf[4096] __attribute__((aligned(4096)));
	struct ib_uverbs_create_qp_resp tr, rr;
	struct ib_uverbs_create_qp t = { .response = (uintptr_t)&tr, .user_handle = 1,
					 .qp_type = 10 /* IB_QPT_XRC_TGT */ };
	struct ib_uverbs_create_cq_resp cr;
	struct ib_uverbs_create_cq c = { .response = (uintptr_t)&cr, .user_handle = 2,
					 .cqe = 16, .comp_channel = -1 };
	struct ib_uverbs_create_qp r = { .response = (uintptr_t)&rr, .user_handle = 3,
					 .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
					 .max_recv_sge = 1, .qp_type = 2 /* IB_QPT_RC */ };
	struct ib_uverbs_reg_mr_resp mr;
	struct ib_uverbs_reg_mr m = { .response = (uintptr_t)&mr, .start = (uintptr_t)buf,
				      .length = sizeof(buf), .hca_va = (uintptr_t)buf,
				      .access_flags = 1 /* LOCAL_WRITE */ };
	struct ib_uverbs_create_srq_resp sr;
	struct ib_uverbs_create_xsrq s = { .response = (uintptr_t)&sr, .user_handle = 4,
					   .srq_type = 1 /* IB_SRQT_XRC */, .max_wr = 4,
					   .max_sge = 1 };
	uint32_t xrcd = open_xrcd(path, O_CREAT), pd;

	t.pd_handle = xrcd;
	cmd(IB_USER_VERBS_CMD_CREATE_QP, &t, sizeof(t), sizeof(tr), "CREATE_QP XRC_TGT");
	pd = alloc_pd();
	cmd(IB_USER_VERBS_CMD_CREATE_CQ, &c, sizeof(c), sizeof(cr), "CREATE_CQ");
	r.pd_handle = pd;
	r.send_cq_handle = r.recv_cq_handle = cr.cq_handle;
	cmd(IB_USER_VERBS_CMD_CREATE_QP, &r, sizeof(r), sizeof(rr), "CREATE_QP RC");
	m.pd_handle = pd;
	cmd(IB_USER_VERBS_CMD_REG_MR, &m, sizeof(m), sizeof(mr), "REG_MR");
	s.pd_handle = pd;
	s.xrcd_handle = xrcd;
	s.cq_handle = cr.cq_handle;
	cmd(IB_USER_VERBS_CMD_CREATE_XSRQ, &s, sizeof(s), sizeof(sr), "CREATE_XSRQ");
	printf("qpn %u rcqpn %u pid %d\n", tr.qpn, rr.qpn, (int)getpid());
}

static void open_shared(const char *path, const char *qpn_s)
{
	struct ib_uverbs_create_qp_resp or;
	struct ib_uverbs_open_qp o = { .response = (uintptr_t)&or, .user_handle = 5,
				       .qp_type = 10 };

	o.pd_handle = open_xrcd(path, 0);
	o.qpn = (uint32_t)strtoul(qpn_s, NULL, 0);
	cmd(IB_USER_VERBS_CMD_OPEN_QP, &o, sizeof(o), sizeof(or), "OPEN_QP");
	alloc_pd();
	printf("opened %u pid %d\n", or.qpn, (int)getpid());
}

int main(int argc, char **argv)
{
	int i = 1;

	if (argc > 3 && !strcmp(argv[1], "runas")) {
		become(argv[2]);
		execv(argv[3], argv + 3);
		die(argv[3], errno);
	}
	if (argc > 2 && !strcmp(argv[1], "--uid")) {
		become(argv[2]);
		i = 3;
	}
	if (argc == i + 2 && !strcmp(argv[i], "create")) {
		open_dev();
		create(argv[i + 1]);
	} else if (argc == i + 3 && !strcmp(argv[i], "open")) {
		open_dev();
		open_shared(argv[i + 1], argv[i + 2]);
	} else {
		fprintf(stderr, "usage: res-helper [--uid U] create FILE | open FILE QPN | runas U PROG ARGS...\n");
		return 2;
	}
	fflush(stdout);
	for (;;)
		pause();	/* the objects live until the process is killed */
}
