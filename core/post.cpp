// SPDX-License-Identifier: GPL-2.0
/*
 * The data-path verbs: posting work requests, polling and arming CQs,
 * SRQ attributes. Each is a thin, lock-free pass to the driver on the real
 * QP (a share of an XRC_TGT QP has no queues of its own) after the
 * checks Linux's verbs make.
 */
#include "objects.h"

using namespace xqp;

namespace {

/*
 * The device must still be there and its driver must offer @op. The ops
 * table is read only for a live device: after unregistration it may have
 * gone with the driver's module.
 */
template <typename Op> int usable(const xqp_device *dev, Op xqp_device_ops::*op)
{
	if (!dev->alive())
		return -XQP_EIO;
	return dev->ops->*op ? 0 : -XQP_EOPNOTSUPP;
}

template <typename Wr> int refuse_first(const Wr *wr, const Wr **bad_wr, int err)
{
	*bad_wr = wr;
	return err;
}

/* A caller may pass no @bad_wr (as to ib_post_send()); drivers always get one. */
template <typename Wr> const Wr **bad_or(const Wr **bad_wr, const Wr **scratch)
{
	return bad_wr ? bad_wr : scratch;
}

} // namespace

/**
 * xqp_post_send - queue send work requests on a QP (ib_post_send).
 * @qp: the QP; an XRC_TGT QP (or a share of one) has no send queue.
 * @wr: the first WR of a NULL-terminated list.
 * @bad_wr: set to the first WR not queued when this fails; may be NULL.
 *
 * Each WR is checked and queued in order; a failure stops the list there,
 * the WRs before it stay queued. The driver executes them (docs/datapath.md).
 *
 * Context: any; WRs are executed in the caller's context only when it may
 * sleep, else on a workqueue.
 * Return: 0; -EINVAL (no send queue, wrong state, a bad WR), -ENOMEM
 * (queue full), -EIO (device removed), -EOPNOTSUPP.
 */
extern "C" int xqp_post_send(struct xqp_qp *qp, const struct xqp_send_wr *wr,
			     const struct xqp_send_wr **bad_wr)
{
	RealQp *real = real_of(qp);
	xqp_device *dev = real->dev;
	int ret = usable(dev, &xqp_device_ops::post_send);
	const xqp_send_wr *scratch;

	bad_wr = bad_or(bad_wr, &scratch);
	if (ret)
		return refuse_first(wr, bad_wr, ret);
	if (real->is_xrc_tgt() || !real->drv)
		return refuse_first(wr, bad_wr, -XQP_EINVAL);
	return dev->ops->post_send(dev->drv, real->drv, wr, bad_wr);
}

/**
 * xqp_post_recv - queue receive work requests on a QP's receive queue.
 * @qp: the QP: not one on an SRQ, not an XRC QP (those have none).
 * @wr: the first WR of a NULL-terminated list.
 * @bad_wr: set to the first WR not queued when this fails; may be NULL.
 *
 * Context: any.
 * Return: as xqp_post_send().
 */
extern "C" int xqp_post_recv(struct xqp_qp *qp, const struct xqp_recv_wr *wr,
			     const struct xqp_recv_wr **bad_wr)
{
	RealQp *real = real_of(qp);
	xqp_device *dev = real->dev;
	int ret = usable(dev, &xqp_device_ops::post_recv);
	const xqp_recv_wr *scratch;

	bad_wr = bad_or(bad_wr, &scratch);
	if (ret)
		return refuse_first(wr, bad_wr, ret);
	if (real->srq || real->type == XQP_QPT_XRC_INI || real->is_xrc_tgt() ||
	    !real->drv)
		return refuse_first(wr, bad_wr, -XQP_EINVAL);
	return dev->ops->post_recv(dev->drv, real->drv, wr, bad_wr);
}

/**
 * xqp_post_srq_recv - queue receive work requests on an SRQ.
 * @srq: the SRQ (basic or XRC).
 * @wr: the first WR of a NULL-terminated list.
 * @bad_wr: set to the first WR not queued when this fails; may be NULL.
 *
 * Context: any.
 * Return: 0, -EINVAL (too many SGEs), -ENOMEM (full), -EIO, -EOPNOTSUPP.
 */
extern "C" int xqp_post_srq_recv(struct xqp_srq *srq, const struct xqp_recv_wr *wr,
				 const struct xqp_recv_wr **bad_wr)
{
	xqp_device *dev = srq->t.dev;
	int ret = usable(dev, &xqp_device_ops::post_srq_recv);
	const xqp_recv_wr *scratch;

	bad_wr = bad_or(bad_wr, &scratch);
	if (ret || !srq->t.drv)
		return refuse_first(wr, bad_wr, ret ? ret : -XQP_EIO);
	return dev->ops->post_srq_recv(dev->drv, srq->t.drv, wr, bad_wr);
}

/**
 * xqp_modify_srq - change an SRQ's size or arm its limit (ib_modify_srq).
 * @srq: the SRQ.
 * @attr: max_wr (XQP_SRQ_MAX_WR: resize; rewritten to what is granted) and
 *	  srq_limit (XQP_SRQ_LIMIT: SRQ_LIMIT_REACHED once fewer WRs are posted).
 * @mask: XQP_SRQ_* bits.
 *
 * Context: may sleep.
 * Return: 0, -EINVAL (unknown bits, limit above the size, a size below the
 * WRs posted), -EIO, -EOPNOTSUPP, the driver's error.
 */
extern "C" int xqp_modify_srq(struct xqp_srq *srq, struct xqp_srq_attr *attr, int mask)
{
	xqp_device *dev = srq->t.dev;
	int ret = usable(dev, &xqp_device_ops::modify_srq);

	if (ret)
		return ret;
	if (mask & ~(XQP_SRQ_MAX_WR | XQP_SRQ_LIMIT))
		return -XQP_EINVAL;
	return srq->t.drv ? dev->ops->modify_srq(dev->drv, srq->t.drv, attr, mask) : -XQP_EIO;
}

/**
 * xqp_query_srq - an SRQ's size, SGE count and armed limit (0: none).
 * @srq: the SRQ.
 * @attr: filled in.
 *
 * Context: may sleep.
 * Return: 0, -EIO, -EOPNOTSUPP, the driver's error.
 */
extern "C" int xqp_query_srq(struct xqp_srq *srq, struct xqp_srq_attr *attr)
{
	xqp_device *dev = srq->t.dev;
	int ret = usable(dev, &xqp_device_ops::query_srq);

	if (ret)
		return ret;
	*attr = xqp_srq_attr{};
	return srq->t.drv ? dev->ops->query_srq(dev->drv, srq->t.drv, attr) : -XQP_EIO;
}

/**
 * xqp_poll_cq - take up to @num_entries completions, oldest first.
 * @cq: the CQ.
 * @num_entries: how many @wc can hold (> 0).
 * @wc: filled with the completions taken.
 *
 * Context: any.
 * Return: the number taken (0: empty), -EINVAL for @num_entries < 0, -EIO,
 * -EOPNOTSUPP.
 */
extern "C" int xqp_poll_cq(struct xqp_cq *cq, int num_entries, struct xqp_wc *wc)
{
	xqp_device *dev = cq->t.dev;
	int ret = usable(dev, &xqp_device_ops::poll_cq);

	if (ret)
		return ret;
	if (num_entries < 0)
		return -XQP_EINVAL;
	return cq->t.drv ? dev->ops->poll_cq(dev->drv, cq->t.drv, num_entries, wc) : -XQP_EIO;
}

/**
 * xqp_req_notify_cq - arm a CQ for its next completion (ib_req_notify_cq).
 * @cq: the CQ.
 * @flags: XQP_CQ_NEXT_COMP (any completion) or XQP_CQ_SOLICITED (a solicited
 *	   or failed one), optionally | XQP_CQ_REPORT_MISSED_EVENTS.
 *
 * Context: any.
 * Return: 0; 1 with REPORT_MISSED_EVENTS when completions are already
 * waiting (poll again before sleeping); -EINVAL for bad flags, -EIO,
 * -EOPNOTSUPP.
 */
extern "C" int xqp_req_notify_cq(struct xqp_cq *cq, int flags)
{
	xqp_device *dev = cq->t.dev;
	int ret = usable(dev, &xqp_device_ops::req_notify_cq);
	int how = flags & XQP_CQ_SOLICITED_MASK;

	if (ret)
		return ret;
	if ((flags & ~(XQP_CQ_SOLICITED_MASK | XQP_CQ_REPORT_MISSED_EVENTS)) ||
	    (how != XQP_CQ_SOLICITED && how != XQP_CQ_NEXT_COMP))
		return -XQP_EINVAL;
	return cq->t.drv ? dev->ops->req_notify_cq(dev->drv, cq->t.drv, flags) : -XQP_EIO;
}

/**
 * xqp_cq_arm_poll_wake - have the CQ's poll_wake handler called once, after
 * the next completion queued on it.
 * @cq: the CQ, created with a poll_wake handler.
 *
 * For a poller that found the CQ empty and would rather sleep than spin
 * (uverbs' POLL_CQ when its CPU is wanted). Leaves req_notify's arming as
 * it is: no comp_handler call, no completion event comes of it.
 *
 * Context: any.
 * Return: 0 armed; 1 when completions are already waiting (poll again,
 * do not sleep); -EINVAL for a CQ without a poll_wake handler, -EIO,
 * -EOPNOTSUPP, the driver's error.
 */
extern "C" int xqp_cq_arm_poll_wake(struct xqp_cq *cq)
{
	xqp_device *dev = cq->t.dev;
	int ret = usable(dev, &xqp_device_ops::req_notify_cq);

	if (ret)
		return ret;
	if (!cq->poll_wake)
		return -XQP_EINVAL;
	return cq->t.drv ? dev->ops->req_notify_cq(dev->drv, cq->t.drv,
						   XQP_CQ_ARM_POLL_WAKE |
						   XQP_CQ_REPORT_MISSED_EVENTS)
			 : -XQP_EIO;
}

/**
 * xqp_resize_cq - change a CQ's size (ib_resize_cq).
 * @cq: the CQ.
 * @cqe: the new size; the driver may grant more (xqp_cq_cqe() tells).
 *
 * Context: may sleep.
 * Return: 0, -EINVAL (below 1, above the device's max, or below the
 * completions queued now), -EIO, -EOPNOTSUPP, -ENOMEM.
 */
extern "C" int xqp_resize_cq(struct xqp_cq *cq, int cqe)
{
	xqp_device *dev = cq->t.dev;
	int ret = usable(dev, &xqp_device_ops::resize_cq);
	int granted = cqe;

	if (ret)
		return ret;
	if (cqe < 1)
		return -XQP_EINVAL;
	if (!cq->t.drv)
		return -XQP_EIO;
	ret = dev->ops->resize_cq(dev->drv, cq->t.drv, cqe, &granted);
	if (!ret)
		cq->cqe = granted;
	return ret;
}
