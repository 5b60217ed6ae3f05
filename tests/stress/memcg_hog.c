// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * xqp-memcg: the two processes of the memory-cgroup test, run in the
 * guest by scripts/memcg-check, through Debian's libibverbs and xqp's
 * provider.
 *
 *   xqp-memcg hog KIND UID MEMLOCK_KIB SECONDS
 *     Drops to UID (an unprivileged user: no CAP_IPC_LOCK, RLIMIT_MEMLOCK
 *     of MEMLOCK_KIB), opens xqp_soft0 and creates objects of one KIND
 *     until a create fails or SECONDS pass, holding all of them:
 *       pd  protection domains (small core, uverbs and driver objects)
 *       cq  completion queues of 4096 entries (rings)
 *       qp  RC QPs of 1024 send and receive WRs (work queue rings)
 *       mr  memory regions over one 256 KiB buffer, registered again and
 *           again (each registration pins and counts its pages)
 *     Prints "hog KIND: rss KIB" first, then "hog KIND: N created" after
 *     every object (every 64 PDs), and at the end "hog KIND: N created,
 *     stopped: ERRNO-NAME" (or "... stopped: time"); then waits (holding
 *     everything) until killed. A memory cgroup OOM kill can end it
 *     before that line.
 *
 *   xqp-memcg worker FILE
 *     RC traffic between xqp_soft0 and xqp_soft1 (SEND and RDMA WRITE,
 *     bytes checked, a new QP pair every 16 exchanges) until SIGTERM;
 *     writes its count of checked exchanges to FILE after each one. Exits
 *     1 on any failure (printing why), 0 on SIGTERM.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "verbs_util.h"

static long rss_kib(void)
{
	char line[256];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

static int hog(const char *kind, uid_t uid, long memlock_kib, int seconds)
{
	struct rlimit rl = { (rlim_t)memlock_kib * 1024, (rlim_t)memlock_kib * 1024 };
	const size_t mr_len = 256 * 1024;
	struct stress_dev d;
	uint64_t end;
	void *buf = NULL;
	unsigned long n = 0;
	int err = 0;

	if (setrlimit(RLIMIT_MEMLOCK, &rl) || setgid(uid) || setuid(uid)) {
		perror("hog: drop privileges");
		return 2;
	}
	if (stress_open_dev("xqp_soft0", 1, &d)) {
		perror("hog: open xqp_soft0");
		return 2;
	}
	if (!strcmp(kind, "mr")) {
		if (posix_memalign(&buf, 4096, mr_len))
			return 2;
		memset(buf, 1, mr_len);
	}
	printf("hog %s: rss %ld KiB\n", kind, rss_kib());
	fflush(stdout);
	end = stress_now_ms() + (uint64_t)seconds * 1000;
	for (;;) {
		void *obj;

		if (stress_now_ms() > end) {
			printf("hog %s: %lu created, stopped: time\n", kind, n);
			break;
		}
		errno = 0;
		if (!strcmp(kind, "pd")) {
			obj = ibv_alloc_pd(d.ctx);
		} else if (!strcmp(kind, "cq")) {
			obj = ibv_create_cq(d.ctx, 4096, NULL, NULL, 0);
		} else if (!strcmp(kind, "qp")) {
			struct ibv_qp_init_attr ia = {
				.send_cq = d.cq, .recv_cq = d.cq, .qp_type = IBV_QPT_RC,
				.cap = { .max_send_wr = 1024, .max_recv_wr = 1024,
					 .max_send_sge = 1, .max_recv_sge = 1 },
			};
			obj = ibv_create_qp(d.pd, &ia);
		} else if (!strcmp(kind, "mr")) {
			obj = ibv_reg_mr(d.pd, buf, mr_len, IBV_ACCESS_LOCAL_WRITE);
		} else {
			fprintf(stderr, "hog: unknown kind %s\n", kind);
			return 2;
		}
		if (!obj) {
			err = errno;
			printf("hog %s: %lu created, stopped: %s\n", kind, n,
			       err == ENOMEM ? "ENOMEM" : strerror(err));
			break;
		}
		/* every object but PDs (many, small): an OOM kill can end it any time */
		if (++n % (strcmp(kind, "pd") ? 1 : 64) == 0) {
			printf("hog %s: %lu created\n", kind, n);
			fflush(stdout);
		}
	}
	fflush(stdout);
	for (;;)
		pause();
}

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int fail(const char *what)
{
	fprintf(stderr, "worker: %s: %s\n", what, strerror(errno));
	return 1;
}

static int expect_wc(struct ibv_cq *cq, uint64_t wr_id, const char *what)
{
	struct ibv_wc wc;
	int n = stress_poll(cq, &wc, 1, 20000);

	if (n == 1 && wc.status == IBV_WC_SUCCESS && wc.wr_id == wr_id)
		return 0;
	fprintf(stderr, "worker: %s: %d completions, status %d\n", what, n,
		n == 1 ? (int)wc.status : -1);
	return -1;
}

static int worker(const char *file)
{
	const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	const size_t len = 8192;
	struct stress_dev a, b;
	struct ibv_mr *amr, *bmr;
	unsigned char *abuf, *bbuf;
	unsigned long done = 0;
	uint64_t rs = 1;
	char tmp[4096];

	snprintf(tmp, sizeof(tmp), "%s.tmp", file);
	signal(SIGTERM, on_term);
	if (stress_open_dev("xqp_soft0", 64, &a) || stress_open_dev("xqp_soft1", 64, &b))
		return fail("open devices");
	if (posix_memalign((void **)&abuf, 4096, len) || posix_memalign((void **)&bbuf, 4096, len))
		return fail("posix_memalign");
	amr = ibv_reg_mr(a.pd, abuf, len, access);
	bmr = ibv_reg_mr(b.pd, bbuf, len, access);
	if (!amr || !bmr)
		return fail("reg_mr");
	while (!stop) {
		struct ibv_qp_init_attr ia = {
			.qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
				 .max_recv_sge = 1 },
		};
		struct ibv_qp *qa, *qb;
		int i;

		ia.send_cq = ia.recv_cq = a.cq;
		qa = ibv_create_qp(a.pd, &ia);
		ia.send_cq = ia.recv_cq = b.cq;
		qb = ibv_create_qp(b.pd, &ia);
		if (!qa || !qb)
			return fail("create_qp");
		if (stress_to_init(qa, access) || stress_to_init(qb, access) ||
		    stress_connect(qa, b.lid, qb->qp_num, false) ||
		    stress_connect(qb, a.lid, qa->qp_num, false))
			return fail("connect");
		for (i = 0; i < 16 && !stop; i++) {
			struct ibv_sge sa = { (uintptr_t)abuf, len / 2, amr->lkey };
			struct ibv_sge sw = { (uintptr_t)abuf + len / 2, len / 2, amr->lkey };
			struct ibv_sge sb = { (uintptr_t)bbuf, len / 2, bmr->lkey };
			struct ibv_recv_wr r = { .wr_id = 1, .sg_list = &sb, .num_sge = 1 }, *rbad;
			struct ibv_send_wr s = { .wr_id = 2, .sg_list = &sa, .num_sge = 1,
						 .opcode = IBV_WR_SEND,
						 .send_flags = IBV_SEND_SIGNALED }, *sbad;
			struct ibv_send_wr w = { .wr_id = 3, .sg_list = &sw, .num_sge = 1,
						 .opcode = IBV_WR_RDMA_WRITE,
						 .send_flags = IBV_SEND_SIGNALED }, *wbad;
			size_t k;
			FILE *f;

			for (k = 0; k < len; k++)
				abuf[k] = (unsigned char)stress_rand(&rs);
			memset(bbuf, 0, len);
			w.wr.rdma.remote_addr = (uintptr_t)bbuf + len / 2;
			w.wr.rdma.rkey = bmr->rkey;
			if ((errno = ibv_post_recv(qb, &r, &rbad)) ||
			    (errno = ibv_post_send(qa, &s, &sbad)))
				return fail("post");
			if (expect_wc(a.cq, 2, "send") || expect_wc(b.cq, 1, "recv"))
				return 1;
			if ((errno = ibv_post_send(qa, &w, &wbad)))
				return fail("post write");
			if (expect_wc(a.cq, 3, "write"))
				return 1;
			if (memcmp(abuf, bbuf, len)) {
				fprintf(stderr, "worker: data differ\n");
				return 1;
			}
			done++;
			/* a reader sees the old count or the new one, never a torn file */
			f = fopen(tmp, "w");
			if (f) {
				fprintf(f, "%lu\n", done);
				if (!fclose(f))
					rename(tmp, file);
			}
		}
		if (ibv_destroy_qp(qa) || ibv_destroy_qp(qb))
			return fail("destroy_qp");
	}
	ibv_dereg_mr(amr);
	ibv_dereg_mr(bmr);
	stress_close_dev(&a);
	stress_close_dev(&b);
	printf("worker: %lu exchanges\n", done);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "hog"))
		return hog(argv[2], (uid_t)atoi(argv[3]), atol(argv[4]), atoi(argv[5]));
	if (argc == 3 && !strcmp(argv[1], "worker"))
		return worker(argv[2]);
	fprintf(stderr, "usage: %s hog pd|cq|qp|mr UID MEMLOCK_KIB SECONDS\n"
			"       %s worker COUNT_FILE\n", argv[0], argv[0]);
	return 2;
}
