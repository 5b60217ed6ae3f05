// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * xqp-kill-rounds: one round of the kill -9 test, run in the guest by
 * scripts/kill-rounds, through Debian's libibverbs and xqp's provider.
 *
 *   xqp-kill-rounds DIR PROCS MILLISECONDS SEED [REMOVE_AT_MS]
 *
 * Forks PROCS workers. Every worker opens xqp_soft0 and xqp_soft1, joins
 * one XRC domain on xqp_soft1 through the file DIR/domain (ibv_open_xrcd
 * with its fd and O_CREAT: all workers share it), and loops:
 *  - registers a buffer on each device (pinned pages);
 *  - RC: a QP on each device, connected, one SEND and one RDMA WRITE from
 *    xqp_soft0 to xqp_soft1, the bytes checked;
 *  - XRC: an XRC SRQ and an XRC_RECV (target) QP in the shared domain, an
 *    XRC_SEND QP on xqp_soft0, one SEND to the SRQ, the bytes checked; the
 *    target's number is published in DIR/qpn.<worker>;
 *  - opens another worker's published target QP by number (ibv_open_qp)
 *    and keeps up to four such handles, so a QP outlives its creator;
 *  - keeps the objects of some iterations alive (up to three), so a kill
 *    finds many objects of every kind.
 * The supervisor SIGKILLs a random worker every 20-300 ms (seeded) and
 * starts a new one in its slot, for MILLISECONDS. With REMOVE_AT_MS it runs
 * "rmmod xqp_soft" that far into the round (the device disappears under
 * running workers) and starts no more workers. At the end every worker left
 * is killed and reaped.
 *
 * A worker that fails on its own objects before the removal is a failure of
 * the round (it prints why); opening another worker's QP may fail (it may
 * be gone). After the removal any error is expected.
 *
 * Prints "round: kills N, iterations N, removed R, unexpected N" and exits
 * 0, or 1 when a worker failed unexpectedly or no iteration completed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "verbs_util.h"

#define MAX_PROCS	16
#define KEEP_ITERS	3
#define OPEN_HANDLES	4
#define POLL_MS		20000
#define EXIT_UNEXPECTED	3

/* Counters the workers share with the supervisor (MAP_SHARED). */
struct shared {
	unsigned long iterations[MAX_PROCS];
	unsigned long opened[MAX_PROCS];
};

static struct shared *shm;
static const char *dir;
static int me;

/* One iteration's objects. */
struct iter {
	void *abuf, *bbuf;
	size_t len;
	struct ibv_mr *amr, *bmr;
	struct ibv_qp *rca, *rcb;
	struct ibv_srq *srq;
	struct ibv_qp *tgt, *ini;
};

static void die(const char *what)
{
	fprintf(stderr, "worker %d: %s: %s\n", me, what, strerror(errno));
	exit(EXIT_UNEXPECTED);
}

static void iter_free(struct iter *it)
{
	if (it->ini)
		ibv_destroy_qp(it->ini);
	if (it->tgt)
		ibv_destroy_qp(it->tgt);
	if (it->srq)
		ibv_destroy_srq(it->srq);
	if (it->rca)
		ibv_destroy_qp(it->rca);
	if (it->rcb)
		ibv_destroy_qp(it->rcb);
	if (it->amr)
		ibv_dereg_mr(it->amr);
	if (it->bmr)
		ibv_dereg_mr(it->bmr);
	free(it->abuf);
	free(it->bbuf);
	memset(it, 0, sizeof(*it));
}

static struct ibv_qp *rc_qp(struct stress_dev *d)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = d->cq, .recv_cq = d->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};

	return ibv_create_qp(d->pd, &ia);
}

/* Waits for one successful completion of @wr_id on @cq. */
static void expect_wc(struct ibv_cq *cq, uint64_t wr_id, const char *what)
{
	struct ibv_wc wc;
	int n = stress_poll(cq, &wc, 1, POLL_MS);

	if (n < 0)
		die(what);
	if (n == 0) {
		errno = ETIMEDOUT;
		die(what);
	}
	if (wc.status != IBV_WC_SUCCESS || wc.wr_id != wr_id) {
		fprintf(stderr, "worker %d: %s: status %d wr_id %llu (want %llu)\n", me, what,
			wc.status, (unsigned long long)wc.wr_id, (unsigned long long)wr_id);
		exit(EXIT_UNEXPECTED);
	}
}

static void post_send(struct ibv_qp *qp, struct ibv_sge *s, enum ibv_wr_opcode op,
		      uint64_t wr_id, uint32_t srqn, uint64_t raddr, uint32_t rkey)
{
	struct ibv_send_wr w = { .wr_id = wr_id, .sg_list = s, .num_sge = 1, .opcode = op,
				 .send_flags = IBV_SEND_SIGNALED }, *bad;

	w.qp_type.xrc.remote_srqn = srqn;
	w.wr.rdma.remote_addr = raddr;
	w.wr.rdma.rkey = rkey;
	errno = ibv_post_send(qp, &w, &bad);
	if (errno)
		die("post_send");
}

static void post_recv(struct ibv_qp *qp, struct ibv_srq *srq, struct ibv_sge *s,
		      uint64_t wr_id)
{
	struct ibv_recv_wr r = { .wr_id = wr_id, .sg_list = s, .num_sge = 1 }, *bad;

	errno = srq ? ibv_post_srq_recv(srq, &r, &bad) : ibv_post_recv(qp, &r, &bad);
	if (errno)
		die("post_recv");
}

static void fill(void *buf, size_t len, uint64_t *rs)
{
	unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)stress_rand(rs);
}

static void iteration(struct stress_dev *a, struct stress_dev *b, struct ibv_xrcd *xrcd,
		      struct iter *it, uint64_t *rs)
{
	const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	struct ibv_sge s;
	size_t half;

	it->len = 4096 * (1 + stress_rand(rs) % 16);
	half = it->len / 2;
	if (posix_memalign(&it->abuf, 4096, it->len) || posix_memalign(&it->bbuf, 4096, it->len))
		die("posix_memalign");
	memset(it->bbuf, 0, it->len);
	fill(it->abuf, it->len, rs);
	it->amr = ibv_reg_mr(a->pd, it->abuf, it->len, access);
	if (!it->amr)
		die("reg_mr a");
	it->bmr = ibv_reg_mr(b->pd, it->bbuf, it->len, access);
	if (!it->bmr)
		die("reg_mr b");

	/* RC: a SEND into the first half, an RDMA WRITE into the second. */
	it->rca = rc_qp(a);
	it->rcb = rc_qp(b);
	if (!it->rca || !it->rcb)
		die("create rc qp");
	if (stress_to_init(it->rca, access) || stress_to_init(it->rcb, access) ||
	    stress_connect(it->rca, b->lid, it->rcb->qp_num, false) ||
	    stress_connect(it->rcb, a->lid, it->rca->qp_num, false))
		die("connect rc");
	s = (struct ibv_sge){ .addr = (uintptr_t)it->bbuf, .length = half, .lkey = it->bmr->lkey };
	post_recv(it->rcb, NULL, &s, 1);
	s = (struct ibv_sge){ .addr = (uintptr_t)it->abuf, .length = half, .lkey = it->amr->lkey };
	post_send(it->rca, &s, IBV_WR_SEND, 2, 0, 0, 0);
	expect_wc(a->cq, 2, "rc send completion");
	expect_wc(b->cq, 1, "rc recv completion");
	s = (struct ibv_sge){ .addr = (uintptr_t)it->abuf + half, .length = half,
			      .lkey = it->amr->lkey };
	post_send(it->rca, &s, IBV_WR_RDMA_WRITE, 3, 0, (uintptr_t)it->bbuf + half,
		  it->bmr->rkey);
	expect_wc(a->cq, 3, "rc write completion");
	if (memcmp(it->abuf, it->bbuf, it->len)) {
		errno = EILSEQ;
		die("rc data");
	}

	/* XRC: SRQ and target in the shared domain, the initiator on a. */
	{
		struct ibv_srq_init_attr_ex sa = {
			.attr = { .max_wr = 8, .max_sge = 1 },
			.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_XRCD |
				     IBV_SRQ_INIT_ATTR_CQ | IBV_SRQ_INIT_ATTR_PD,
			.srq_type = IBV_SRQT_XRC, .xrcd = xrcd, .cq = b->cq, .pd = b->pd,
		};
		struct ibv_qp_init_attr_ex ta = { .qp_type = IBV_QPT_XRC_RECV,
						  .comp_mask = IBV_QP_INIT_ATTR_XRCD,
						  .xrcd = xrcd };
		struct ibv_qp_init_attr_ex ia = {
			.qp_type = IBV_QPT_XRC_SEND, .send_cq = a->cq, .pd = a->pd,
			.comp_mask = IBV_QP_INIT_ATTR_PD,
			.cap = { .max_send_wr = 8, .max_send_sge = 1 },
		};
		uint32_t srqn;

		it->srq = ibv_create_srq_ex(b->ctx, &sa);
		if (!it->srq || ibv_get_srq_num(it->srq, &srqn))
			die("create xrc srq");
		it->tgt = ibv_create_qp_ex(b->ctx, &ta);
		it->ini = ibv_create_qp_ex(a->ctx, &ia);
		if (!it->tgt || !it->ini)
			die("create xrc qps");
		if (stress_to_init(it->tgt, 0) || stress_to_init(it->ini, 0) ||
		    stress_connect(it->tgt, a->lid, it->ini->qp_num, true) ||
		    stress_connect(it->ini, b->lid, it->tgt->qp_num, false))
			die("connect xrc");
		memset(it->bbuf, 0, it->len);
		s = (struct ibv_sge){ .addr = (uintptr_t)it->bbuf, .length = it->len,
				      .lkey = it->bmr->lkey };
		post_recv(NULL, it->srq, &s, 4);
		s = (struct ibv_sge){ .addr = (uintptr_t)it->abuf, .length = it->len,
				      .lkey = it->amr->lkey };
		post_send(it->ini, &s, IBV_WR_SEND, 5, srqn, 0, 0);
		expect_wc(a->cq, 5, "xrc send completion");
		expect_wc(b->cq, 4, "xrc recv completion");
		if (memcmp(it->abuf, it->bbuf, it->len)) {
			errno = EILSEQ;
			die("xrc data");
		}
	}
}

/* DIR/qpn.<slot>: the number of a target QP that slot's worker holds. */
static void publish(uint32_t qpn)
{
	char path[256], tmp[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/qpn.%d", dir, me);
	snprintf(tmp, sizeof(tmp), "%s/.qpn.%d", dir, me);
	f = fopen(tmp, "w");
	if (!f)
		die("publish");
	fprintf(f, "%u\n", qpn);
	if (fclose(f) || rename(tmp, path))
		die("publish");
}

static int read_published(int slot, uint32_t *qpn)
{
	char path[256];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/qpn.%d", dir, slot);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = fscanf(f, "%u", qpn) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

static void worker(int slot, int procs, uint64_t seed)
{
	struct stress_dev a, b;
	struct ibv_xrcd_init_attr xa = { .comp_mask = IBV_XRCD_INIT_ATTR_FD |
						      IBV_XRCD_INIT_ATTR_OFLAGS,
					 .oflags = O_CREAT };
	struct ibv_qp *opened[OPEN_HANDLES] = { 0 };
	struct iter kept[KEEP_ITERS] = { 0 };
	struct ibv_xrcd *xrcd;
	char path[256];
	uint64_t rs = seed;
	int n_open = 0, k, fd;

	me = slot;
	if (stress_open_dev("xqp_soft0", 64, &a) || stress_open_dev("xqp_soft1", 64, &b))
		die("open device");
	snprintf(path, sizeof(path), "%s/domain", dir);
	fd = open(path, O_RDONLY | O_CREAT, 0600);
	if (fd < 0)
		die("open domain file");
	xa.fd = fd;
	xrcd = ibv_open_xrcd(b.ctx, &xa);
	if (!xrcd)
		die("open_xrcd");
	close(fd);

	for (;;) {
		struct iter it = { 0 };
		uint32_t qpn;
		int other;

		iteration(&a, &b, xrcd, &it, &rs);
		publish(it.tgt->qp_num);

		/* Another worker's target QP, by number. */
		other = (int)(stress_rand(&rs) % (uint64_t)procs);
		if (other != slot && !read_published(other, &qpn)) {
			struct ibv_qp_open_attr oa = {
				.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
					     IBV_QP_OPEN_ATTR_TYPE,
				.qp_num = qpn, .xrcd = xrcd, .qp_type = IBV_QPT_XRC_RECV,
			};
			struct ibv_qp *qp = ibv_open_qp(b.ctx, &oa);

			if (qp) {
				if (opened[n_open % OPEN_HANDLES] &&
				    ibv_destroy_qp(opened[n_open % OPEN_HANDLES]))
					die("close opened qp");
				opened[n_open % OPEN_HANDLES] = qp;
				n_open++;
				__atomic_add_fetch(&shm->opened[slot], 1, __ATOMIC_RELAXED);
			}
		}

		/* Keep this iteration's objects one time in four. */
		k = (int)(stress_rand(&rs) % (4 * KEEP_ITERS));
		if (k < KEEP_ITERS) {
			iter_free(&kept[k]);
			kept[k] = it;
		} else {
			iter_free(&it);
		}
		__atomic_add_fetch(&shm->iterations[slot], 1, __ATOMIC_RELAXED);
	}
}

static pid_t spawn(int slot, int procs, uint64_t seed)
{
	pid_t pid = fork();

	if (pid == 0) {
		worker(slot, procs, seed);
		_exit(0);
	}
	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	return pid;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec t = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&t, &t) && errno == EINTR)
		;
}

int main(int argc, char **argv)
{
	pid_t pids[MAX_PROCS];
	unsigned long kills = 0, spawned = 0, iterations = 0, opened = 0;
	int procs, unexpected = 0, removed = 0, remove_rc = 0, i, st;
	uint64_t rs, start, ms, remove_at = 0;

	if (argc < 5) {
		fprintf(stderr, "usage: %s DIR PROCS MILLISECONDS SEED [REMOVE_AT_MS]\n", argv[0]);
		return 2;
	}
	dir = argv[1];
	procs = atoi(argv[2]);
	ms = strtoull(argv[3], NULL, 0);
	rs = strtoull(argv[4], NULL, 0) * 2654435761u + 1;
	if (argc > 5)
		remove_at = strtoull(argv[5], NULL, 0);
	if (procs < 2 || procs > MAX_PROCS) {
		fprintf(stderr, "PROCS must be 2..%d\n", MAX_PROCS);
		return 2;
	}
	mkdir(dir, 0700);
	shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	memset(shm, 0, sizeof(*shm));
	for (i = 0; i < procs; i++, spawned++)
		pids[i] = spawn(i, procs, stress_rand(&rs));

	start = stress_now_ms();
	while (stress_now_ms() - start < ms) {
		pid_t pid;

		sleep_ms(20 + (unsigned int)(stress_rand(&rs) % 281));
		/* Workers that ended on their own. */
		while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
			for (i = 0; i < procs && pids[i] != pid; i++)
				;
			if (i == procs)
				continue;
			pids[i] = 0;
			if (!removed) {
				fprintf(stderr, "round: worker %d ended by itself (status %#x)\n", i, st);
				unexpected++;
				pids[i] = spawn(i, procs, stress_rand(&rs));
				spawned++;
			}
		}
		if (remove_at && !removed && stress_now_ms() - start >= remove_at) {
			remove_rc = system("rmmod xqp_soft");
			removed = 1;
			fprintf(stderr, "round: xqp_soft removed at %llu ms (rmmod status %d)\n",
				(unsigned long long)(stress_now_ms() - start), remove_rc);
		}
		i = (int)(stress_rand(&rs) % (uint64_t)procs);
		if (!pids[i])
			continue;
		kill(pids[i], SIGKILL);
		waitpid(pids[i], &st, 0);
		kills++;
		pids[i] = 0;
		if (!removed) {
			pids[i] = spawn(i, procs, stress_rand(&rs));
			spawned++;
		}
	}
	for (i = 0; i < procs; i++) {
		if (!pids[i])
			continue;
		kill(pids[i], SIGKILL);
		waitpid(pids[i], &st, 0);
		if (!WIFSIGNALED(st) && !removed) {
			fprintf(stderr, "round: worker %d ended by itself (status %#x)\n", i, st);
			unexpected++;
		}
	}
	for (i = 0; i < MAX_PROCS; i++) {
		iterations += shm->iterations[i];
		opened += shm->opened[i];
	}
	if (remove_at && (!removed || remove_rc)) {
		fprintf(stderr, "round: the removal %s\n", removed ? "failed" : "never ran");
		unexpected++;
	}
	printf("round: kills %lu, workers %lu, iterations %lu, opened %lu, removed %d, unexpected %d\n",
	       kills, spawned, iterations, opened, removed, unexpected);
	return unexpected || !iterations ? 1 : 0;
}
