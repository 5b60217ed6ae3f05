// SPDX-License-Identifier: GPL-2.0
/* The executor: raw writes, the aux fds, and one op (run_op). */
#include "exec.h"

/*
 * RDMA_VERBS_IOCTL: mostly the device's GID queries xqp answers (ports,
 * indexes, entry sizes and output lengths at and around their limits),
 * else another method, which must be EPROTONOSUPPORT; then one damage from
 * the op's bytes: an attribute dropped, duplicated or unknown and
 * mandatory, bad flags, a header length or reserved field off, a pointer
 * to nowhere.
 */
static int verbs_ioctl(struct ufile *f, const struct fz_op *op)
{
	static const uint16_t sizes[] = { 0, 1, 24, 31, 32, 33, 40, 64, 4096 };
	static const uint32_t indexes[] = { 0, 1, 2, 3, 1023, 1024, 0x7fffffff, 0xffffffff };
	static __thread uint8_t out[64 * 64];
	const uint8_t *a = op->a;
	struct {
		struct ib_uverbs_ioctl_hdr hdr;
		struct ib_uverbs_attr attr[8];
	} c;
	uint64_t num = 0;
	uint16_t es = sizes[a[3] % 9], n = 4;
	int table = a[0] % 13 >= 6;

	memset(&c, 0, sizeof(c));
	c.hdr.object_id = a[0] % 13 < 10 ? UVERBS_OBJECT_DEVICE : a[9] % 32;
	c.hdr.method_id = a[0] % 13 < 6 ? UVERBS_METHOD_QUERY_GID_ENTRY :
			  a[0] % 13 < 10 ? UVERBS_METHOD_QUERY_GID_TABLE : a[10] % 16;
	for (int i = 0; i < 8; i++)
		c.attr[i].flags = UVERBS_ATTR_F_MANDATORY;
	if (!table) {
		c.attr[0] = (struct ib_uverbs_attr){ .attr_id = UVERBS_ATTR_QUERY_GID_ENTRY_PORT,
						     .len = 8, .data = a[1] % 3 };
		c.attr[1] = (struct ib_uverbs_attr){ .attr_id = UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX,
						     .len = 8, .data = indexes[a[2] % 8] };
		c.attr[2] = (struct ib_uverbs_attr){ .attr_id = UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS,
						     .len = 4, .data = a[5] % 8 ? 0 : a[5] };
		c.attr[3] = (struct ib_uverbs_attr){ .attr_id = UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY,
						     .len = sizes[a[4] % 9], .data = (uintptr_t)out };
	} else {
		c.attr[0] = (struct ib_uverbs_attr){ .attr_id = UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE,
						     .len = 8, .data = es };
		c.attr[1] = (struct ib_uverbs_attr){ .attr_id = UVERBS_ATTR_QUERY_GID_TABLE_FLAGS,
						     .len = 4, .data = a[5] % 8 ? 0 : a[5] };
		c.attr[2] = (struct ib_uverbs_attr){ .attr_id = UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES,
						     .len = (uint16_t)(es * (a[4] % 65)), .data = (uintptr_t)out };
		c.attr[3] = (struct ib_uverbs_attr){ .attr_id = UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES,
						     .len = a[6] % 8 ? 8 : 4, .data = (uintptr_t)&num };
	}
	switch (a[7] % 10) {
	case 0: n--; break;						/* one missing */
	case 1: c.attr[n++] = c.attr[a[8] % 4]; break;			/* a duplicate */
	case 2: c.attr[n++] = (struct ib_uverbs_attr){ .attr_id = a[8],
			.flags = UVERBS_ATTR_F_MANDATORY }; break;	/* unknown, mandatory */
	case 3: c.attr[a[8] % 4].flags = a[11]; break;
	case 4: c.attr[a[8] % 4].attr_data.reserved = 1; break;
	case 5: c.attr[a[8] % 4].data = a[11] % 2 ? 16 : (uint64_t)-4096; break;	/* nowhere */
	case 6: n = (uint16_t)(a[8] % 12); break;			/* up to 8 past the array */
	default: break;
	}
	c.hdr.num_attrs = n;
	c.hdr.length = (uint16_t)(sizeof(c.hdr) + n * sizeof(c.attr[0]));
	if (a[7] % 10 == 7)
		c.hdr.length += (uint16_t)(a[12] % 3 ? 8 : -8);
	if (a[7] % 10 == 8)
		c.hdr.reserved1 = 1;
	count();
	return ioctl(f->fd, RDMA_VERBS_IOCTL, &c) < 0 ? errno : 0;
}

/* an arbitrary write: header fields and body from the op's bytes */
static int raw(struct ufile *f, const struct fz_op *op)
{
	/* what an extended header may claim: (63 + 4095) words of 8 bytes */
	static __thread uint8_t resp[(63 + 4096) * 8];
	uint8_t buf[8 + 24 + 256];
	uint64_t s = 0;
	size_t len = 8 + 4 * (op->a[3] % 72), i;
	struct ib_uverbs_cmd_hdr *h = (void *)buf;

	for (i = 0; i < FZ_ARGS; i++)
		s = s * 131 + op->a[i];
	for (i = 0; i < sizeof(buf); i++) {
		s = s * 6364136223846793005ull + 1442695040888963407ull;
		buf[i] = (uint8_t)(s >> 56);
		if (op->a[6] & 1)
			buf[i] &= 3;	/* small values: closer to valid */
	}
	h->command = op->a[0] % 48 | (op->a[4] & 0x80 ? 0x80000000u : 0) |
		     (op->a[4] == 0xff ? 0x7f000000u : 0);
	h->in_words = op->a[5] % 4 ? (uint16_t)(len / 4) : op->a[1];
	h->out_words = op->a[2] % 64;
	if (h->command & 0x80000000u) {
		struct ib_uverbs_ex_cmd_hdr *x = (void *)(buf + 8);

		x->response = op->a[5] & 2 ? (uintptr_t)resp : 0;
		x->provider_out_words %= 4096;	/* the device zeroes all it claims */
		x->cmd_hdr_reserved = op->a[5] & 4 ? 0 : x->cmd_hdr_reserved;
		h->in_words = (uint16_t)((len - 8 - 16 > 0 ? len - 24 : 0) / 8);
	} else if (len >= 16 && (op->a[5] & 2)) {
		uint64_t r = (uintptr_t)resp;

		memcpy(buf + 8, &r, 8);
	}
	count();
	return write(f->fd, buf, len) < 0 ? errno : 0;
}

/*
 * FZ_AUX_FD: the file paths of the event files other than a non-blocking
 * read. a[0] picks the async fd or a completion channel (a[1]); a[2] % 5:
 * poll() (0 or 1 ms), epoll (registered, waited on, taken off again or
 * left for the epoll instance's close), O_ASYNC on or off (SIGIO is
 * ignored), /proc/self/fdinfo, or a blocking read that a 2 ms timer
 * interrupts when nothing comes (SIGALRM is caught without SA_RESTART).
 */
static int aux_fd(struct ufile *f, const struct fz_op *op)
{
	const uint8_t *a = op->a;
	int fd = a[0] % 2 || !f->ncomp ? f->async_fd : f->comp[a[1] % f->ncomp];
	char buf[256];
	int ret = 0, ep;

	if (fd < 0)
		return EBADF;
	count();
	switch (a[2] % 5) {
	case 0: {
		struct pollfd p = { .fd = fd, .events = POLLIN | POLLOUT | POLLPRI };

		return poll(&p, 1, a[3] & 1) < 0 ? errno : 0;
	}
	case 1: {
		struct epoll_event ev = { .events = EPOLLIN | (a[3] & 2 ? EPOLLET : 0) };

		ep = epoll_create1(EPOLL_CLOEXEC);
		if (ep < 0)
			return errno;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0)
			ret = errno;
		else if (epoll_wait(ep, &ev, 1, a[3] & 1) < 0)
			ret = errno;
		if (a[3] & 4)
			epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
		close(ep);
		return ret;
	}
	case 2: {
		int fl = fcntl(fd, F_GETFL);

		if (fl < 0)
			return errno;
		fcntl(fd, F_SETOWN, getpid());
		return fcntl(fd, F_SETFL, a[3] & 1 ? fl | O_ASYNC : fl & ~O_ASYNC) < 0 ? errno : 0;
	}
	case 3: {
		int k, fi;

		snprintf(buf, sizeof(buf), "/proc/self/fdinfo/%d", fd);
		fi = open(buf, O_RDONLY | O_CLOEXEC);
		if (fi < 0)
			return errno;
		k = (int)read(fi, buf, sizeof(buf));
		close(fi);
		return k < 0 ? errno : 0;
	}
	default: {
		/* this thread's own timer (FZ_RACE has two), every 2 ms until deleted */
		struct sigevent sev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGALRM };
		struct itimerspec t = { .it_value = { .tv_nsec = 2000000 },
					.it_interval = { .tv_nsec = 2000000 } };
		int fl = fcntl(fd, F_GETFL);
		timer_t timer;

		if (fl < 0)
			return errno;
		sev._sigev_un._tid = gettid();	/* glibc 2.36 names no accessor */
		if (timer_create(CLOCK_MONOTONIC, &sev, &timer) < 0)
			return errno;
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
		timer_settime(timer, 0, &t, NULL);
		if (read(fd, buf, a[3] % 4 ? 16 * (1 + a[3] % 4) : 7) < 0)
			ret = errno;
		timer_delete(timer);
		fcntl(fd, F_SETFL, fl);
		return ret;
	}
	}
}

/* ---- one op ----------------------------------------------------------------- */

static const uint32_t qp_states_mask[7][5] = {
	/* RC/XRC, UC, UD: the masks IB requires for each target */
	[1] = { 1 | 1 << 3 | 1 << 4 | 1 << 5, 1 | 1 << 3 | 1 << 4 | 1 << 5,
		1 | 1 << 4 | 1 << 5 | 1 << 6 },
	[2] = { 1 | 1 << 7 | 1 << 8 | 1 << 20 | 1 << 12 | 1 << 17 | 1 << 15,
		1 | 1 << 7 | 1 << 8 | 1 << 20 | 1 << 12, 1 },
	[3] = { 1 | 1 << 16 | 1 << 9 | 1 << 10 | 1 << 11 | 1 << 13, 1 | 1 << 16, 1 | 1 << 16 },
};

static int modify_qp(struct ufile *f, const struct fz_op *op)
{
	struct ib_uverbs_modify_qp m;
	struct obj *qp = named(f, T_QP, op->a[0]);
	int state = op->a[1] % 7, cls = 0;

	memset(&m, 0, sizeof(m));
	m.qp_handle = handle_of(f, T_QP, op->a[0]);
	if (qp && qp->qp_type == QPT_UC)
		cls = 1;
	else if (qp && qp->qp_type == QPT_UD)
		cls = 2;
	m.attr_mask = qp_states_mask[state][cls] ? qp_states_mask[state][cls] : 1;
	if (qp && state >= QPS_INIT && state <= QPS_RTS && op->a[2] % 4 == 2)
		m.attr_mask = conn_mask(qp->qp_type, state);	/* exactly right */
	if (op->a[2] % 8 == 0)
		m.attr_mask ^= 1u << (op->a[3] % 22);
	else if (op->a[2] % 16 == 1)
		m.attr_mask = (uint32_t)op->a[3] << 12 | op->a[4] << 4 | (op->a[5] & 0xf);
	m.qp_state = (uint8_t)state;
	m.cur_qp_state = op->a[6] % 7;
	m.port_num = op->a[7] % 16 ? 1 : op->a[7] % 4;
	m.pkey_index = op->a[7] % 32 == 3;
	m.qp_access_flags = op->a[8] % 16;
	m.qkey = op->a[8] & 0x80 ? 0x80000000u | op->a[8] : QKEY_A;
	m.path_mtu = 1 + op->a[9] % 5;
	m.dest_qp_num = qp && qp->connected && op->a[4] < 0x80 ? qp->peer_qpn : pub_qpn(op->a[4]);
	m.dest.dlid = qp && qp->connected && op->a[5] < 0x80 ? 1 + qp->peer_dev : 1 + op->a[5] % 2;
	m.dest.port_num = op->a[7] % 16 ? 1 : op->a[7] % 4;
	m.dest.is_global = op->a[10] % 16 == 0;
	m.dest.sl = op->a[10] % 16;
	m.rq_psn = m.sq_psn = op->a[10];
	m.max_dest_rd_atomic = m.max_rd_atomic = op->a[11] % 4;
	m.min_rnr_timer = 1;
	m.timeout = 10;
	m.retry_cnt = op->a[11] % 8;
	m.rnr_retry = op->a[11] % 8;
	m.alt_port_num = op->a[3] % 3;
	m.en_sqd_async_notify = op->a[3] & 1;
	return cmd(f->fd, IB_USER_VERBS_CMD_MODIFY_QP, &m, sizeof(m), 0, op);
}

static int create_qp(struct ufile *f, const struct fz_op *op)
{
	static const uint32_t types[] = { QPT_RC, QPT_UC, QPT_UD,
					  QPT_XRC_INI, QPT_XRC_TGT,
					  QPT_RC, QPT_XRC_TGT };
	struct ib_uverbs_create_qp c;
	int err, tgt;

	memset(&c, 0, sizeof(c));
	c.user_handle = op->a[0];
	c.qp_type = (uint8_t)pick_u32(op->a[1], types, 7);
	tgt = c.qp_type == QPT_XRC_TGT;
	c.pd_handle = tgt ? handle_of(f, T_XRCD, op->a[2]) : handle_of(f, T_PD, op->a[2]);
	c.send_cq_handle = handle_of(f, T_CQ, op->a[3]);
	c.recv_cq_handle = handle_of(f, T_CQ, op->a[4]);
	c.is_srq = op->a[5] % 4 == 0;
	c.srq_handle = handle_of(f, T_SRQ, op->a[5]);
	c.max_send_wr = op->a[6] % 64;
	c.max_recv_wr = op->a[7] % 64;
	c.max_send_sge = op->a[8] % 5;
	c.max_recv_sge = op->a[9] % 5;
	c.max_inline_data = op->a[10] % 4 ? 0 : 64u << (op->a[10] % 5);
	c.sq_sig_all = op->a[11] & 1;
	create_qp_as(f, op, &c, named(f, tgt ? T_XRCD : T_PD, op->a[2]), &err);
	return err;
}

static int run_op(struct actor *ac, const struct fz_op *op)
{
	struct ufile *f = &ac->f[(op->file & 0x7f) % FZ_FILES];
	const uint8_t *a = op->a;
	int kind = op->kind % FZ_OP_COUNT, err = 0;

	if (kind == FZ_NL_RES)
		return nl_res(ac, op);
	if (kind == FZ_LINK)
		return link_op(op);
	if (kind != FZ_OPEN && kind != FZ_SETUP && f->fd < 0) {
		/* an op on a closed file goes to the first open one */
		int k;

		for (k = 0; k < FZ_FILES && ac->f[k].fd < 0; k++)
			;
		if (k == FZ_FILES)
			return EBADF;
		f = &ac->f[k];
	}
	switch (kind) {
	case FZ_OPEN:
		if (f->fd >= 0)
			close_file(f, a[1] & 1);
		/* the two soft devices, now and then a link's (exec_link.c) */
		return open_file(f, a[0] % 16 == 15 ? 2 : a[0] % 2);
	case FZ_CLOSE:
		count();
		close_file(f, a[0] & 1);
		return 0;
	case FZ_GET_CONTEXT:
		return get_context(f, op);
	case FZ_QUERY_DEVICE: {
		struct ib_uverbs_query_device_resp r;
		struct ib_uverbs_query_device q = { .response = (uintptr_t)&r };

		return cmd(f->fd, IB_USER_VERBS_CMD_QUERY_DEVICE, &q, sizeof(q),
			   a[0] % 8 ? sizeof(r) / 4 : a[0] % 64, op);
	}
	case FZ_QUERY_PORT: {
		struct ib_uverbs_query_port_resp r;
		struct ib_uverbs_query_port q = { .response = (uintptr_t)&r,
						  .port_num = a[0] % 4 ? 1 : a[0] % 3 };

		return cmd(f->fd, IB_USER_VERBS_CMD_QUERY_PORT, &q, sizeof(q), sizeof(r) / 4, op);
	}
	case FZ_ALLOC_PD:
		alloc_pd(f, op, a[0] % 16 ? 0 : 8, &err);
		return err;
	case FZ_DEALLOC_PD: {
		struct ib_uverbs_dealloc_pd c = { .pd_handle = handle_of(f, T_PD, a[0]) };

		err = cmd(f->fd, IB_USER_VERBS_CMD_DEALLOC_PD, &c, sizeof(c), 0, op);
		if (!err)
			remove_handle(f, T_PD, c.pd_handle);
		return err;
	}
	case FZ_CREATE_AH:
		create_ah(f, op, named(f, T_PD, a[0]), handle_of(f, T_PD, a[0]),
			  a[1] % 8 ? 1 : a[1] % 4, 1 + a[2] % 3, a[3] % 8 == 0, a[4] % 16, a[5], &err);
		return err;
	case FZ_DESTROY_AH: {
		struct ib_uverbs_destroy_ah c = { .ah_handle = handle_of(f, T_AH, a[0]) };
		int i;

		err = cmd(f->fd, IB_USER_VERBS_CMD_DESTROY_AH, &c, sizeof(c), 0, op);
		if (!err) {
			remove_handle(f, T_AH, c.ah_handle);
			for (i = 0; i < f->n[T_QP]; i++)
				if (f->o[T_QP][i].has_ah && f->o[T_QP][i].peer_ah == c.ah_handle)
					f->o[T_QP][i].has_ah = 0;
		}
		return err;
	}
	case FZ_REG_MR:
		return reg_mr(f, op);
	case FZ_ALLOC_MW:
		return alloc_mw(f, op);
	case FZ_ATTACH_MCAST:
	case FZ_DETACH_MCAST:
		return mcast(f, op);
	case FZ_DEALLOC_MW: {
		struct ib_uverbs_dealloc_mw c = { .mw_handle = handle_of(f, T_MW, a[0]) };

		err = cmd(f->fd, IB_USER_VERBS_CMD_DEALLOC_MW, &c, sizeof(c), 0, op);
		if (!err)
			remove_handle(f, T_MW, c.mw_handle);
		return err;
	}
	case FZ_DEREG_MR: {
		struct ib_uverbs_dereg_mr c = { .mr_handle = handle_of(f, T_MR, a[0]) };

		err = cmd(f->fd, IB_USER_VERBS_CMD_DEREG_MR, &c, sizeof(c), 0, op);
		if (!err)
			remove_handle(f, T_MR, c.mr_handle);
		return err;
	}
	case FZ_CREATE_COMP_CHANNEL:
		return create_channel(f, op) < 0 ? EINVAL : 0;
	case FZ_CREATE_CQ: {
		static const uint32_t cqes[] = { 1, 4, 16, 64, 255, 3, 0, 100000 };

		create_cq(f, op, a[0], (int)pick_u32(a[1], cqes, 8), a[2] % 16 == 0,
			  a[3] % 3 == 0 || !f->ncomp ? -1 :
			  a[3] % 3 == 1 ? f->comp[a[4] % f->ncomp] : (int)a[4] % 8, &err);
		return err;
	}
	case FZ_RESIZE_CQ: {
		struct ib_uverbs_resize_cq_resp r;
		struct ib_uverbs_resize_cq c = { .response = (uintptr_t)&r,
						 .cq_handle = handle_of(f, T_CQ, a[0]),
						 .cqe = a[1] % 8 ? a[1] : 70000 };

		return cmd(f->fd, IB_USER_VERBS_CMD_RESIZE_CQ, &c, sizeof(c), sizeof(r) / 4, op);
	}
	case FZ_DESTROY_CQ: {
		struct ib_uverbs_destroy_cq_resp r;
		struct ib_uverbs_destroy_cq c = { .response = (uintptr_t)&r,
						  .cq_handle = handle_of(f, T_CQ, a[0]) };

		err = cmd(f->fd, IB_USER_VERBS_CMD_DESTROY_CQ, &c, sizeof(c), sizeof(r) / 4, op);
		if (!err)
			remove_handle(f, T_CQ, c.cq_handle);
		return err;
	}
	case FZ_POLL_CQ: {
		struct {
			struct ib_uverbs_poll_cq_resp h;
			struct ib_uverbs_wc wc[16];
		} r;
		struct ib_uverbs_poll_cq c = { .response = (uintptr_t)&r,
					       .cq_handle = handle_of(f, T_CQ, a[0]),
					       .ne = a[1] % 17 };

		return cmd(f->fd, IB_USER_VERBS_CMD_POLL_CQ, &c, sizeof(c),
			   (uint32_t)(sizeof(r.h) + c.ne * sizeof(r.wc[0])) / 4, op);
	}
	case FZ_REQ_NOTIFY_CQ: {
		struct ib_uverbs_req_notify_cq c = { .cq_handle = handle_of(f, T_CQ, a[0]),
						     .solicited_only = a[1] & 1 };

		return cmd(f->fd, IB_USER_VERBS_CMD_REQ_NOTIFY_CQ, &c, sizeof(c), 0, op);
	}
	case FZ_CREATE_QP:
		return create_qp(f, op);
	case FZ_QUERY_QP: {
		struct ib_uverbs_query_qp_resp r;
		struct ib_uverbs_query_qp c = { .response = (uintptr_t)&r,
						.qp_handle = handle_of(f, T_QP, a[0]),
						.attr_mask = a[1] % 4 ? 0x1fffff : (uint32_t)a[2] << 20 };

		return cmd(f->fd, IB_USER_VERBS_CMD_QUERY_QP, &c, sizeof(c), sizeof(r) / 4, op);
	}
	case FZ_MODIFY_QP:
		return modify_qp(f, op);
	case FZ_DESTROY_QP: {
		struct ib_uverbs_destroy_qp_resp r;
		struct ib_uverbs_destroy_qp c = { .response = a[1] % 16 ? (uintptr_t)&r : 16,
						  .qp_handle = handle_of(f, T_QP, a[0]) };

		err = cmd(f->fd, IB_USER_VERBS_CMD_DESTROY_QP, &c, sizeof(c), sizeof(r) / 4, op);
		if (!err)
			remove_handle(f, T_QP, c.qp_handle);
		return err;
	}
	case FZ_POST_SEND:
		return post_send(f, op);
	case FZ_POST_RECV:
		return post_recv(f, op, 0);
	case FZ_POST_SRQ_RECV:
		return post_recv(f, op, 1);
	case FZ_CREATE_SRQ: {
		struct ib_uverbs_create_srq_resp r;
		struct ib_uverbs_create_srq c = { .response = (uintptr_t)&r, .user_handle = a[0],
						  .pd_handle = handle_of(f, T_PD, a[1]),
						  .max_wr = a[2] % 64, .max_sge = a[3] % 5,
						  .srq_limit = a[4] % 8 };
		struct obj *pd = named(f, T_PD, a[1]);

		err = cmd(f->fd, IB_USER_VERBS_CMD_CREATE_SRQ, &c, sizeof(c), sizeof(r) / 4, op);
		if (!err)
			add_obj(f, T_SRQ, (struct obj){ .handle = r.srq_handle, .num = r.srqn,
						       .pd = pd ? pd->id : 0,
						       .dev = (uint8_t)f->dev });
		return err;
	}
	case FZ_CREATE_XSRQ: {
		struct ib_uverbs_create_xsrq c = {
			.user_handle = a[0],
			.srq_type = a[1] % 8 < 5 ? 1 : a[1] % 8 < 7 ? 0 : a[1] % 4,
			.pd_handle = handle_of(f, T_PD, a[2]), .max_wr = a[3] % 64,
			.max_sge = a[4] % 5, .srq_limit = a[5] % 8,
			.xrcd_handle = handle_of(f, T_XRCD, a[6]),
			.cq_handle = handle_of(f, T_CQ, a[7]),
		};

		create_xsrq(f, op, &c, named(f, T_PD, a[2]), named(f, T_XRCD, a[6]), &err);
		return err;
	}
	case FZ_MODIFY_SRQ: {
		struct ib_uverbs_modify_srq c = { .srq_handle = handle_of(f, T_SRQ, a[0]),
						  .attr_mask = a[1] % 4, .max_wr = a[2] % 128,
						  .srq_limit = a[3] % 32 };

		return cmd(f->fd, IB_USER_VERBS_CMD_MODIFY_SRQ, &c, sizeof(c), 0, op);
	}
	case FZ_QUERY_SRQ: {
		struct ib_uverbs_query_srq_resp r;
		struct ib_uverbs_query_srq c = { .response = (uintptr_t)&r,
						 .srq_handle = handle_of(f, T_SRQ, a[0]) };

		return cmd(f->fd, IB_USER_VERBS_CMD_QUERY_SRQ, &c, sizeof(c), sizeof(r) / 4, op);
	}
	case FZ_DESTROY_SRQ: {
		struct ib_uverbs_destroy_srq_resp r;
		struct ib_uverbs_destroy_srq c = { .response = (uintptr_t)&r,
						   .srq_handle = handle_of(f, T_SRQ, a[0]) };

		err = cmd(f->fd, IB_USER_VERBS_CMD_DESTROY_SRQ, &c, sizeof(c), sizeof(r) / 4, op);
		if (!err)
			remove_handle(f, T_SRQ, c.srq_handle);
		return err;
	}
	case FZ_OPEN_XRCD:
		open_xrcd(ac, f, op, a[0] % 3,
			  a[1] % 3 == 0 ? 0 : a[1] % 3 == 1 ? O_CREAT : O_CREAT | O_EXCL, &err);
		return err;
	case FZ_CLOSE_XRCD: {
		struct ib_uverbs_close_xrcd c = { .xrcd_handle = handle_of(f, T_XRCD, a[0]) };

		err = cmd(f->fd, IB_USER_VERBS_CMD_CLOSE_XRCD, &c, sizeof(c), 0, op);
		if (!err)
			remove_handle(f, T_XRCD, c.xrcd_handle);
		return err;
	}
	case FZ_OPEN_QP: {
		struct ib_uverbs_create_qp_resp r;
		struct ib_uverbs_open_qp c;
		struct obj *xrcd = named(f, T_XRCD, a[1]);

		memset(&c, 0, sizeof(c));
		c.response = (uintptr_t)&r;
		c.user_handle = a[0];
		c.pd_handle = handle_of(f, T_XRCD, a[1]);
		c.qpn = pub_qpn(a[2]);
		c.qp_type = a[3] % 8 ? QPT_XRC_TGT : a[3] % 16;
		err = cmd(f->fd, IB_USER_VERBS_CMD_OPEN_QP, &c, sizeof(c), sizeof(r) / 4, op);
		if (!err)
			add_obj(f, T_QP, (struct obj){ .handle = r.qp_handle, .num = r.qpn,
						       .qp_type = QPT_XRC_TGT,
						       .xrcd = xrcd ? xrcd->id : 0,
						       .dev = (uint8_t)f->dev });
		return err;
	}
	case FZ_READ_ASYNC: {
		struct ib_uverbs_async_event_desc ev[4];

		if (f->async_fd < 0)
			return EBADF;
		count();
		return read(f->async_fd, ev, a[0] % 8 ? sizeof(ev[0]) * (1 + a[0] % 4) : 7) < 0
			       ? errno : 0;
	}
	case FZ_READ_COMP: {
		struct ib_uverbs_comp_event_desc ev[4];

		if (!f->ncomp)
			return EBADF;
		count();
		return read(f->comp[a[0] % f->ncomp], ev, sizeof(ev[0]) * (1 + a[1] % 4)) < 0
			       ? errno : 0;
	}
	case FZ_CLOSE_AUX:
		count();
		if (a[0] % 2 == 0 && f->async_fd >= 0) {
			close(f->async_fd);
			f->async_fd = -1;
		} else if (f->ncomp) {
			int i = a[1] % f->ncomp;

			close(f->comp[i]);
			f->comp[i] = f->comp[--f->ncomp];
		}
		return 0;
	case FZ_RAISE_EVENT: {
		static const unsigned long ioc[3] = { XQP_UVERBS_IOC_RAISE_QP_EVENT,
						      XQP_UVERBS_IOC_RAISE_CQ_EVENT,
						      XQP_UVERBS_IOC_RAISE_SRQ_EVENT };
		static const int types[3] = { T_QP, T_CQ, T_SRQ };
		struct xqp_uverbs_raise_event e = { .handle = handle_of(f, types[a[0] % 3], a[1]),
						    .event_type = a[2] % 24 };

		count();
		return ioctl(f->fd, ioc[a[0] % 3], &e) < 0 ? errno : 0;
	}
	case FZ_VERBS_IOCTL:
		return verbs_ioctl(f, op);
	case FZ_INJECT:
		inject(op);
		return 0;
	case FZ_RAW:
		return raw(f, op);
	case FZ_CONNECT:
		return connect_op(ac, f, op);
	case FZ_SETUP:
		return setup_op(ac, f, op);
	case FZ_AUX_FD:
		return aux_fd(f, op);
	case FZ_HOTPLUG:
		hotplug(op);
		return 0;
	}
	return 0;
}

/* the op this thread runs, for the report of a crash of the fuzzer itself */
__thread int cur_kind = -1, cur_index = -1;

int run_op_timed(struct actor *ac, const struct fz_op *op)
{
	double t0 = fz_now();
	int err;

	cur_kind = op->kind % FZ_OP_COUNT;
	err = run_op(ac, op);
	cur_kind = -1;

	prof_add(&prof->kind[op->kind % FZ_OP_COUNT], t0);
	return err;
}
