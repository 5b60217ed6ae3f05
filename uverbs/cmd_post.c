// SPDX-License-Identifier: GPL-2.0
/*
 * Posting: POST_SEND, POST_RECV, POST_SRQ_RECV (ib_uverbs_post_send(),
 * ib_uverbs_unmarshall_recv(), ib_uverbs_post_recv/_srq_recv()).
 *
 * The command is the header, wr_count WQEs of wqe_size bytes each, then
 * sge_count struct ib_uverbs_sge; WQE i takes the next num_sge SGEs. The
 * whole list is read and checked first (any error there posts nothing and
 * writes no response, as in Linux), then posted in one call; the response's
 * bad_wr is the 1-based index of the WR the core stopped at (0 on success).
 *
 * Bounds: wr_count and sge_count are bounded by the write() itself (the
 * WQEs and SGEs must lie inside it, at most 256 KiB); the kernel copies
 * take at most about twice that, plus the inline data of the WRs, each at
 * most the QP's max_inline_data.
 *
 * XRC: an XRC_INI QP's WR names the XRC SRQ it goes to in
 * struct xqp_uverbs_send_wr (uapi/xqp_uverbs.h), which trails Linux's WQE:
 * a wqe_size too short to hold it is -EINVAL for such a QP.
 *
 * Inline sends (IB_SEND_INLINE): the SGEs' addr are addresses in the
 * caller's memory; the data is copied in here and the core gets kernel
 * addresses (XQP_SEND_INLINE). A WR with more than max_inline_data bytes is
 * not copied: the WRs before it are posted and it is reported as bad_wr
 * with -EINVAL, which is the core's answer to it.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/uaccess.h>

#include "uverbs.h"
#include "../uapi/xqp_uverbs.h"

/* uverbs_req_iter: steps over the flexible arrays behind a command. */
struct req_iter {
	const u8 __user *cur;
	const u8 __user *end;
};

static void req_start(struct xqp_cmd *cmd, struct req_iter *it, size_t hdr_len)
{
	it->cur = (const u8 __user *)cmd->inbuf + hdr_len;
	it->end = (const u8 __user *)cmd->inbuf + cmd->inlen;
}

/* The next @len bytes, or ERR_PTR(-ENOSPC) if the write() is shorter. */
static const void __user *req_next(struct req_iter *it, u64 len)
{
	const void __user *p = it->cur;

	if (len > (u64)(it->end - it->cur))
		return (const void __user *)ERR_PTR(-ENOSPC);
	it->cur += len;
	return p;
}

/* Bytes after the SGEs must be zero (uverbs_request_finish()). */
static int req_finish(struct req_iter *it)
{
	return xqp_cmd_user_cleared(it->cur, it->end - it->cur);
}

/* The header of the three commands, and where its arrays are. */
struct post_hdr {
	u32 handle;
	u32 wr_count;
	u32 sge_count;
	u32 wqe_size;
	const u8 __user *wqes;
	const struct ib_uverbs_sge __user *sgls;
};

/* Locates the WQEs and SGEs inside the write(), in Linux's order. */
static int post_locate(struct xqp_cmd *cmd, struct req_iter *it,
		       struct post_hdr *h)
{
	const void __user *p;

	p = req_next(it, (u64)h->wqe_size * h->wr_count);
	if (IS_ERR((const void __force *)p))
		return PTR_ERR((const void __force *)p);
	h->wqes = p;
	p = req_next(it, (u64)h->sge_count * sizeof(struct ib_uverbs_sge));
	if (IS_ERR((const void __force *)p))
		return PTR_ERR((const void __force *)p);
	h->sgls = p;
	return req_finish(it);
}

/* SGEs as the core takes them: the same layout as struct ib_uverbs_sge. */
static_assert(sizeof(struct xqp_sge) == sizeof(struct ib_uverbs_sge));
static_assert(offsetof(struct xqp_sge, addr) == offsetof(struct ib_uverbs_sge, addr));
static_assert(offsetof(struct xqp_sge, length) == offsetof(struct ib_uverbs_sge, length));
static_assert(offsetof(struct xqp_sge, lkey) == offsetof(struct ib_uverbs_sge, lkey));

/* A WQE's @num SGEs must lie within sge_count, after those already taken. */
static int sges_check(const struct post_hdr *h, u32 used, u32 num)
{
	return (u64)used + num > h->sge_count ? -EINVAL : 0;
}

/* Copies the next @num SGEs of the command (checked by sges_check()). */
static int sges_copy(const struct post_hdr *h, struct xqp_sge *sges, u32 *used,
		     u32 num, struct xqp_sge **out)
{
	*out = NULL;
	if (!num)
		return 0;
	if (copy_from_user(sges + *used, h->sgls + *used, (size_t)num * sizeof(*sges)))
		return -EFAULT;
	*out = sges + *used;
	*used += num;
	return 0;
}

/* Linux's kmalloc(wqe_size) of one WQE fails past KMALLOC_MAX_SIZE. */
static int wqe_size_check(u32 wqe_size, size_t min)
{
	if (wqe_size < min)
		return -EINVAL;
	return wqe_size > KMALLOC_MAX_SIZE ? -ENOMEM : 0;
}

/*
 * Linux's bad_wr: counts the WRs up to and including the one the core
 * stopped at; all of them if it named none of the list.
 */
static u32 bad_index(long bad, u32 n)
{
	return bad >= 0 && bad < n ? (u32)bad + 1 : n;
}

static int post_respond(struct xqp_cmd *cmd, int ret, u32 bad_wr)
{
	struct ib_uverbs_post_send_resp resp = { .bad_wr = ret ? bad_wr : 0 };
	int ret2 = xqp_cmd_response(cmd, &resp, sizeof(resp));

	return ret2 ?: ret;
}

/* ---- POST_SEND ------------------------------------------------------------ */

/* One send WR and what this layer holds for it until the post is done. */
struct usend_wr {
	struct xqp_send_wr wr;
	struct xqp_uobj *held;	/* UD: the AH, BIND_MW: the window; read-locked */
	void *inline_buf;	/* IB_SEND_INLINE: the copied data */
};

struct send_ctx {
	struct xqp_cmd *cmd;
	struct post_hdr h;
	enum xqp_qp_type qp_type;
	u32 max_inline;
	struct usend_wr *wrs;
	struct xqp_sge *sges;
	u32 sges_used;
	u32 built;		/* wrs[0..built) hold references */
	u32 stop;		/* the first WR over max_inline_data, or wr_count */
};

/*
 * A BIND_MW WR: the window by its handle in this file (held until posted),
 * and what xqp_uverbs_send_wr says of the bind; a WQE too short to hold it
 * is -EINVAL.
 */
static int send_wr_bind(struct send_ctx *c, const struct xqp_uverbs_send_wr *u,
			struct usend_wr *w)
{
	struct xqp_uobj *mw;

	if (c->h.wqe_size < offsetofend(struct xqp_uverbs_send_wr, bind_length))
		return -EINVAL;
	mw = xqp_uobj_get(c->cmd->ufile, XQP_UOBJ_MW, u->mw_handle, XQP_LOOKUP_READ);
	if (IS_ERR(mw))
		return PTR_ERR(mw);
	w->held = mw;
	w->wr.wr.bind.mw = mw->object;
	w->wr.wr.bind.rkey = u->bind_rkey;
	w->wr.wr.bind.mr_lkey = u->mr_lkey;
	w->wr.wr.bind.addr = u->bind_addr;
	w->wr.wr.bind.length = u->bind_length;
	w->wr.wr.bind.access = (int)u->bind_access;
	return 0;
}

/* The opcode's union fields (Linux: ib_ud_wr, ib_rdma_wr, ib_atomic_wr). */
static int send_wr_fields(struct send_ctx *c, const struct xqp_uverbs_send_wr *u,
			  struct usend_wr *w)
{
	const struct ib_uverbs_send_wr *uw = &u->wr;
	struct xqp_uobj *ah;

	if (c->qp_type == XQP_QPT_UD) {
		if (uw->opcode != IB_UVERBS_WR_SEND &&
		    uw->opcode != IB_UVERBS_WR_SEND_WITH_IMM)
			return -EINVAL;
		ah = xqp_uobj_get(c->cmd->ufile, XQP_UOBJ_AH, uw->wr.ud.ah,
				  XQP_LOOKUP_READ);
		if (IS_ERR(ah))
			return PTR_ERR(ah);
		w->held = ah;
		w->wr.wr.ud.ah = ah->object;
		w->wr.wr.ud.remote_qpn = uw->wr.ud.remote_qpn;
		w->wr.wr.ud.remote_qkey = uw->wr.ud.remote_qkey;
		return 0;
	}
	if (uw->opcode == IB_UVERBS_WR_BIND_MW)
		return send_wr_bind(c, u, w);
	switch (uw->opcode) {
	case IB_UVERBS_WR_RDMA_WRITE:
	case IB_UVERBS_WR_RDMA_WRITE_WITH_IMM:
	case IB_UVERBS_WR_RDMA_READ:
		w->wr.wr.rdma.remote_addr = uw->wr.rdma.remote_addr;
		w->wr.wr.rdma.rkey = uw->wr.rdma.rkey;
		return 0;
	case IB_UVERBS_WR_ATOMIC_CMP_AND_SWP:
	case IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD:
		w->wr.wr.atomic.remote_addr = uw->wr.atomic.remote_addr;
		w->wr.wr.atomic.compare_add = uw->wr.atomic.compare_add;
		w->wr.wr.atomic.swap = uw->wr.atomic.swap;
		w->wr.wr.atomic.rkey = uw->wr.atomic.rkey;
		return 0;
	case IB_UVERBS_WR_SEND:
	case IB_UVERBS_WR_SEND_WITH_IMM:
		return 0;
	}
	/* As Linux's uverbs, the other IB opcodes reach the device, which
	 * refuses those it does not execute (-EOPNOTSUPP). */
	return uw->opcode <= XQP_WR_ATOMIC_WRITE ? 0 : -EINVAL;
}

/* The XRC SRQ of an XRC_INI WR: only where the WQE is long enough. */
static int send_wr_xrc(struct send_ctx *c, const struct xqp_uverbs_send_wr *u,
		       struct usend_wr *w)
{
	if (c->qp_type != XQP_QPT_XRC_INI)
		return 0;
	if (c->h.wqe_size < offsetofend(struct xqp_uverbs_send_wr, xrc_remote_srq_num))
		return -EINVAL;
	w->wr.xrc_remote_srq_num = u->xrc_remote_srq_num;
	return 0;
}

/* Copies an inline WR's data in and points its SGEs at the copy. */
static int send_wr_inline(struct send_ctx *c, struct usend_wr *w, u32 index)
{
	struct xqp_sge *sge = w->wr.sg_list;
	u64 total = 0;
	u8 *p;
	int i;

	for (i = 0; i < w->wr.num_sge; i++)
		total += sge[i].length;
	if (total > c->max_inline) {
		c->stop = min(c->stop, index);
		return 0;
	}
	if (c->stop < index)
		return 0;	/* not posted */
	if (!total) {
		for (i = 0; i < w->wr.num_sge; i++)
			sge[i].addr = 0;	/* no user address reaches the core */
		return 0;
	}
	w->inline_buf = kmalloc(total, GFP_KERNEL_ACCOUNT);
	if (!w->inline_buf)
		return -ENOMEM;
	p = w->inline_buf;
	for (i = 0; i < w->wr.num_sge; i++) {
		if (copy_from_user(p, u64_to_user_ptr((u64)sge[i].addr), sge[i].length))
			return -EFAULT;
		sge[i].addr = (u64)(uintptr_t)p;
		p += sge[i].length;
	}
	return 0;
}

/* Reads WQE @i into wrs[i], in the order of checks of Linux's loop. */
static int send_wr_build(struct send_ctx *c, u32 i)
{
	struct usend_wr *w = &c->wrs[i];
	struct xqp_uverbs_send_wr u;
	size_t len = min_t(size_t, c->h.wqe_size, sizeof(u));
	struct xqp_sge *sg_list;
	int ret;

	memset(&u, 0, sizeof(u));
	if (copy_from_user(&u, c->h.wqes + (size_t)i * c->h.wqe_size, len))
		return -EFAULT;
	ret = sges_check(&c->h, c->sges_used, u.wr.num_sge);
	if (ret)
		return ret;
	ret = send_wr_fields(c, &u, w);
	if (ret)
		return ret;
	c->built = i + 1;	/* wrs[i] may hold an AH or window from here */
	ret = send_wr_xrc(c, &u, w);
	if (ret)
		return ret;
	if (u.wr.opcode == IB_UVERBS_WR_SEND_WITH_IMM ||
	    u.wr.opcode == IB_UVERBS_WR_RDMA_WRITE_WITH_IMM ||
	    u.wr.opcode == IB_UVERBS_WR_SEND_WITH_INV ||
	    u.wr.opcode == IB_UVERBS_WR_LOCAL_INV)
		w->wr.imm_data = (__force u32)u.wr.ex.imm_data;	/* as posted, or the rkey */
	w->wr.wr_id = u.wr.wr_id;
	w->wr.num_sge = u.wr.num_sge;
	w->wr.opcode = u.wr.opcode;
	w->wr.send_flags = u.wr.send_flags;
	if (i)
		c->wrs[i - 1].wr.next = &w->wr;
	ret = sges_copy(&c->h, c->sges, &c->sges_used, u.wr.num_sge, &sg_list);
	if (ret)
		return ret;
	w->wr.sg_list = sg_list;
	if (u.wr.send_flags & XQP_SEND_INLINE)
		return send_wr_inline(c, w, i);
	return 0;
}

/* Drops what the built WRs hold, newest first. */
static void send_wrs_release(struct send_ctx *c)
{
	while (c->built) {
		struct usend_wr *w = &c->wrs[--c->built];

		kfree(w->inline_buf);
		if (w->held)
			xqp_uobj_put(w->held, XQP_LOOKUP_READ);
	}
}

/* Posts wrs[0..stop); a WR over max_inline_data at stop is the bad one. */
static int send_post(struct send_ctx *c, struct xqp_qp *qp, u32 *bad_wr)
{
	const struct xqp_send_wr *bad = NULL;
	int ret = 0;

	if (c->stop && c->stop < c->h.wr_count)
		c->wrs[c->stop - 1].wr.next = NULL;	/* the list ends before it */
	if (c->stop || c->stop == c->h.wr_count)
		ret = xqp_post_send(qp, c->stop ? &c->wrs[0].wr : NULL, &bad);
	if (ret) {
		*bad_wr = bad_index(bad ? container_of(bad, struct usend_wr, wr) -
					  c->wrs : -1, c->stop);
		return ret;
	}
	if (c->stop < c->h.wr_count) {
		*bad_wr = c->stop + 1;
		return -EINVAL;
	}
	return 0;
}

static int send_alloc(struct send_ctx *c)
{
	c->wrs = kvcalloc(c->h.wr_count, sizeof(*c->wrs), GFP_KERNEL_ACCOUNT);
	if (!c->wrs && c->h.wr_count)
		return -ENOMEM;
	c->sges = kvmalloc_array(c->h.sge_count, sizeof(*c->sges), GFP_KERNEL_ACCOUNT);
	if (!c->sges && c->h.sge_count) {
		kvfree(c->wrs);
		return -ENOMEM;
	}
	return 0;
}

static void send_free(struct send_ctx *c)
{
	kvfree(c->sges);
	kvfree(c->wrs);
}

int xqp_cmd_post_send(struct xqp_cmd *cmd)
{
	struct send_ctx c = { .cmd = cmd };
	struct ib_uverbs_post_send req;
	struct xqp_uobj *uobj;
	struct req_iter it;
	u32 bad_wr = 0;
	int ret;
	u32 i;

	if (copy_from_user(&req, cmd->inbuf, sizeof(req)))
		return -EFAULT;
	c.h = (struct post_hdr){ .handle = req.qp_handle, .wr_count = req.wr_count,
				 .sge_count = req.sge_count, .wqe_size = req.wqe_size };
	req_start(cmd, &it, sizeof(req));
	ret = post_locate(cmd, &it, &c.h);
	if (ret)
		return ret;
	ret = wqe_size_check(c.h.wqe_size, sizeof(struct ib_uverbs_send_wr));
	if (ret)
		return ret;

	uobj = xqp_uobj_get(cmd->ufile, XQP_UOBJ_QP, c.h.handle, XQP_LOOKUP_READ);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	c.qp_type = xqp_qp_get_type(uobj->object);
	c.max_inline = container_of(uobj, struct xqp_uqp, uevent.uobj)->max_inline_data;
	c.stop = c.h.wr_count;
	ret = send_alloc(&c);
	if (ret)
		goto out_put;
	for (i = 0; i < c.h.wr_count; i++) {
		ret = send_wr_build(&c, i);
		if (ret)
			goto out_release;
	}
	ret = send_post(&c, uobj->object, &bad_wr);
	ret = post_respond(cmd, ret, bad_wr);
out_release:
	send_wrs_release(&c);
	send_free(&c);
out_put:
	xqp_uobj_put(uobj, XQP_LOOKUP_READ);
	return ret;
}

/* ---- POST_RECV / POST_SRQ_RECV --------------------------------------------- */

struct recv_list {
	struct xqp_recv_wr *wrs;
	struct xqp_sge *sges;
};

static void recv_free(struct recv_list *l)
{
	kvfree(l->sges);
	kvfree(l->wrs);
}

/* ib_uverbs_unmarshall_recv(): the checks come before the object lookup. */
static int recv_unmarshall(struct xqp_cmd *cmd, size_t hdr_len,
			   struct post_hdr *h, struct recv_list *l)
{
	struct ib_uverbs_recv_wr u;
	struct req_iter it;
	u32 used = 0, i;
	int ret;

	if (h->wqe_size < sizeof(u))
		return -EINVAL;
	req_start(cmd, &it, hdr_len);
	ret = post_locate(cmd, &it, h);
	if (ret)
		return ret;
	ret = wqe_size_check(h->wqe_size, sizeof(u));
	if (ret)
		return ret;
	l->wrs = kvcalloc(h->wr_count, sizeof(*l->wrs), GFP_KERNEL_ACCOUNT);
	l->sges = kvmalloc_array(h->sge_count, sizeof(*l->sges), GFP_KERNEL_ACCOUNT);
	if ((!l->wrs && h->wr_count) || (!l->sges && h->sge_count)) {
		ret = -ENOMEM;
		goto err;
	}
	for (i = 0; i < h->wr_count; i++) {
		struct xqp_recv_wr *w = &l->wrs[i];

		if (copy_from_user(&u, h->wqes + (size_t)i * h->wqe_size, sizeof(u))) {
			ret = -EFAULT;
			goto err;
		}
		ret = sges_check(h, used, u.num_sge) ?:
		      sges_copy(h, l->sges, &used, u.num_sge, &w->sg_list);
		if (ret)
			goto err;
		w->wr_id = u.wr_id;
		w->num_sge = u.num_sge;
		if (i)
			l->wrs[i - 1].next = w;
	}
	return 0;

err:
	recv_free(l);
	return ret;
}

static u32 recv_bad_index(const struct recv_list *l, const struct xqp_recv_wr *bad,
			  u32 n)
{
	return bad_index(bad ? bad - l->wrs : -1, n);
}

/* The two commands' headers are the same (handle, wr_count, sge_count, wqe_size). */
static_assert(sizeof(struct ib_uverbs_post_recv) == sizeof(struct ib_uverbs_post_srq_recv));
static_assert(offsetof(struct ib_uverbs_post_recv, qp_handle) ==
	      offsetof(struct ib_uverbs_post_srq_recv, srq_handle));
static_assert(offsetof(struct ib_uverbs_post_recv, wqe_size) ==
	      offsetof(struct ib_uverbs_post_srq_recv, wqe_size));

static int post_recv(struct xqp_cmd *cmd, enum xqp_uobj_type type)
{
	const struct xqp_recv_wr *bad = NULL;
	struct ib_uverbs_post_recv req;
	struct recv_list l = {};
	struct post_hdr h = {};
	struct xqp_uobj *uobj;
	int ret;

	if (copy_from_user(&req, cmd->inbuf, sizeof(req)))
		return -EFAULT;
	h.handle = req.qp_handle;
	h.wr_count = req.wr_count;
	h.sge_count = req.sge_count;
	h.wqe_size = req.wqe_size;
	ret = recv_unmarshall(cmd, sizeof(req), &h, &l);
	if (ret)
		return ret;

	uobj = xqp_uobj_get(cmd->ufile, type, h.handle, XQP_LOOKUP_READ);
	if (IS_ERR(uobj)) {
		ret = PTR_ERR(uobj);
		goto out;
	}
	if (type == XQP_UOBJ_QP)
		ret = xqp_post_recv(uobj->object, h.wr_count ? l.wrs : NULL, &bad);
	else
		ret = xqp_post_srq_recv(uobj->object, h.wr_count ? l.wrs : NULL, &bad);
	xqp_uobj_put(uobj, XQP_LOOKUP_READ);
	ret = post_respond(cmd, ret, recv_bad_index(&l, bad, h.wr_count));
out:
	recv_free(&l);
	return ret;
}

int xqp_cmd_post_recv(struct xqp_cmd *cmd)
{
	return post_recv(cmd, XQP_UOBJ_QP);
}

int xqp_cmd_post_srq_recv(struct xqp_cmd *cmd)
{
	return post_recv(cmd, XQP_UOBJ_SRQ);
}
