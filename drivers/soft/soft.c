// SPDX-License-Identifier: GPL-2.0
/*
 * xqp_soft: the software device. It implements the ops of struct
 * xqp_device_ops the way rxe does, split as rxe splits its driver:
 *   soft.c    the device: its queries, its ops table, create and destroy
 *   pool.c    references, number tables, counted objects
 *   inject.c  fault injection and call counts per op
 *   verbs.c   PD, CQ and XRCD objects;  srq.c  SRQs;  qp.c  QPs
 *   events.c  async events raised as hardware would
 *   the data path: fabric.c, mr.c, cq.c, wq.c and exec.c (soft_priv.h).
 *
 * Locking: soft->lock (a spinlock, class XQP_LOCK_SOFT) protects the object
 * counts and the number tables; each QP's own lock protects its state and
 * attributes. The two are never held together. Nothing allocates or frees
 * under a spinlock. Fault injection and call counts use atomics. Events and
 * remote requesters use an object under no soft lock: its refs keep it
 * alive meanwhile, and its destroy op sleeps until they drain after making
 * it unreachable (QPs, SRQs and MRs by number, CQs on soft->cqs).
 */
#include "soft_priv.h"

#define SOFT_GUID_BASE		0x0258515000000000ULL	/* 02:"XQP":... */

static unsigned int soft_instances;

/* ---- device ------------------------------------------------------------- */

/* rxe's ack delay: 4.096 us * 2^15. */
#define SOFT_CA_ACK_DELAY	15

/*
 * READs and atomics a device has in flight as a target: each QP's own
 * max_dest_rd_atomic (at most max_qp_rd_atom), no pool shared between QPs,
 * so every QP at once (ib_device_attr's int at most).
 */
static xqp_u32 soft_res_rd_atom(const struct xqp_soft_limits *lim)
{
	xqp_u64 n = (xqp_u64)lim->max_qp_rd_atom * lim->max_qp;

	return n > 0x7fffffff ? 0x7fffffff : (xqp_u32)n;
}

static int soft_query_device(void *drv, struct xqp_device_attr *attr)
{
	struct xqp_soft *soft = drv;
	const struct xqp_soft_limits *lim = &soft->lim;
	int err;

	err = soft_enter(soft, XQP_SOFT_OP_QUERY_DEVICE);
	if (err)
		return err;

	*attr = (struct xqp_device_attr) {
		XQP_RULES_DEVICE_ATTRS(lim),
		.device_cap_flags	= XQP_DEVICE_XRC | XQP_DEVICE_MEM_WINDOW |
					  XQP_DEVICE_MEM_WINDOW_TYPE_2B,
		.vendor_part_id		= 0,
		.hw_ver			= 0,
		.max_inline_data	= lim->max_inline,
		.max_xrcd		= lim->max_xrcd,
		.node_guid		= soft->node_guid,
		.sys_image_guid		= soft->node_guid,
		.phys_port_cnt		= SOFT_PORT_CNT,
		.max_mr			= lim->max_mr,
		.max_mw			= lim->max_mw,
		.max_ah			= lim->max_ah,
		.max_sge_rd		= lim->max_sge,
		.max_res_rd_atom	= soft_res_rd_atom(lim),
		/* CPU atomics on the target's memory (mr.c), rxe's value */
		.atomic_cap		= XQP_ATOMIC_HCA,
		.local_ca_ack_delay	= SOFT_CA_ACK_DELAY,
		.max_mcast_grp		= lim->max_mcast_grp,
		.max_mcast_qp_attach	= lim->max_mcast_qp_attach,
		.max_total_mcast_qp_attach = lim->max_total_mcast_qp_attach,
	};
	return 0;
}

static int soft_port_ok(xqp_u32 port)
{
	return port >= 1 && port <= SOFT_PORT_CNT;
}

/*
 * Its one port: an active InfiniBand port, 1X SDR, 4096-byte MTU, the LID
 * the fabric gave the device, the subnet's SM at LID 1, VL0 only, one GID,
 * the device's P_Keys, rxe's message size limit (8 MiB). No capability bits
 * (no CM, no SM on the port) and no error counters.
 */
static int soft_query_port(void *drv, xqp_u32 port, struct xqp_port_attr *attr)
{
	struct xqp_soft *soft = drv;
	int err;

	err = soft_enter(soft, XQP_SOFT_OP_QUERY_PORT);
	if (err)
		return err;
	if (!soft_port_ok(port))
		return -XQP_EINVAL;

	*attr = (struct xqp_port_attr) {
		.state		= XQP_PORT_ACTIVE,
		.max_mtu	= XQP_MTU_4096,
		.active_mtu	= XQP_MTU_4096,
		.gid_tbl_len	= SOFT_GID_TBL_LEN,
		.port_cap_flags	= 0,
		.max_msg_sz	= SOFT_MAX_MSG_SZ,
		.pkey_tbl_len	= soft->lim.max_pkeys,
		.lid		= soft->lid,
		.sm_lid		= 1,
		.lmc		= 0,
		.max_vl_num	= 1,		/* VL0 */
		.active_width	= XQP_WIDTH_1X,
		.active_speed	= XQP_SPEED_SDR,
		.phys_state	= XQP_PORT_PHYS_STATE_LINK_UP,
		.link_layer	= XQP_LINK_LAYER_INFINIBAND,
	};
	if (soft->link) {
		unsigned long flags = xqp_spin_lock_irqsave(&soft->lock);

		soft_link_port(soft->link, attr);
		xqp_spin_unlock_irqrestore(&soft->lock, flags);
	}
	return 0;
}

/* ---- the device --------------------------------------------------------- */

static const struct xqp_device_ops soft_ops = {
	.query_device	= soft_query_device,
	.query_port	= soft_query_port,
	.query_gid	= soft_query_gid,
	.query_pkey	= soft_query_pkey,
	.get_netdev	= soft_get_netdev,
	.modify_gid	= soft_modify_gid,
	.query_gid_entry = soft_query_gid_entry,
	.port_stats	= xqp_soft_port_stats,
	.alloc_pd	= soft_alloc_pd,
	.dealloc_pd	= soft_dealloc_pd,
	.create_cq	= soft_create_cq,
	.destroy_cq	= soft_destroy_cq,
	.alloc_xrcd	= soft_alloc_xrcd,
	.dealloc_xrcd	= soft_dealloc_xrcd,
	.create_srq	= soft_create_srq,
	.destroy_srq	= soft_destroy_srq,
	.create_qp	= soft_create_qp,
	.modify_qp	= soft_modify_qp,
	.query_qp	= soft_query_qp,
	.destroy_qp	= soft_destroy_qp,
	.reg_mr		= soft_reg_mr,
	.dereg_mr	= soft_dereg_mr,
	.alloc_mw	= soft_alloc_mw,
	.dealloc_mw	= soft_dealloc_mw,
	.attach_mcast	= soft_attach_mcast,
	.detach_mcast	= soft_detach_mcast,
	.post_send	= soft_post_send,
	.post_recv	= soft_post_recv,
	.post_srq_recv	= soft_post_srq_recv,
	.poll_cq	= soft_poll_cq,
	.req_notify_cq	= soft_req_notify_cq,
	.resize_cq	= soft_resize_cq,
	.modify_srq	= soft_modify_srq,
	.query_srq	= soft_query_srq,
};

/**
 * xqp_soft_ops - the soft device's ops, for tests that call them directly.
 *
 * The driver pointer to pass to them is the struct xqp_soft itself.
 *
 * Return: the ops table.
 */
const struct xqp_device_ops *xqp_soft_ops(void)
{
	return &soft_ops;
}

/**
 * xqp_soft_default_limits - fill @lim with the soft device's defaults.
 * @lim: the limits to fill.
 *
 * The shared rules' defaults (XQP_RULES_DEFAULT_LIMITS, rules/limits.h),
 * which the reference device has too.
 */
void xqp_soft_default_limits(struct xqp_soft_limits *lim)
{
	*lim = (struct xqp_soft_limits) XQP_RULES_DEFAULT_LIMITS;
}

/**
 * xqp_soft_create - create a soft device and register it with the core.
 * @name: the device name, e.g. "xqp_soft0"; copied by the core.
 * @lim: the device's limits, or NULL for xqp_soft_default_limits().
 *
 * Context: may sleep.
 * Return: the soft device, or ERR_PTR(-EINVAL) for impossible limits,
 * ERR_PTR(-ENOMEM), or the error of xqp_register_device(). Nothing is left
 * allocated on failure.
 */
struct xqp_soft *xqp_soft_create(const char *name,
				 const struct xqp_soft_limits *lim)
{
	return soft_create(name, lim, NULL);
}

/* xqp_soft_create(), linked when @link, which the device owns once this succeeds. */
struct xqp_soft *soft_create(const char *name, const struct xqp_soft_limits *lim,
			     struct soft_link *link)
{
	struct xqp_soft *soft;
	struct xqp_device *dev;
	xqp_u64 instance;
	int err;

	if (lim && !xqp_rules_limits_ok(lim))
		return xqp_err_ptr(-XQP_EINVAL);

	soft = xqp_zalloc(sizeof(*soft), XQP_GFP_KERNEL);
	if (!soft)
		return xqp_err_ptr(-XQP_ENOMEM);
	if (lim)
		soft->lim = *lim;
	else
		xqp_soft_default_limits(&soft->lim);
	instance = __atomic_add_fetch(&soft_instances, 1, __ATOMIC_RELAXED);
	soft->node_guid = SOFT_GUID_BASE | (instance & 0xffffffffULL);
	soft->link = link;
	xqp_spin_init(&soft->lock, XQP_LOCK_SOFT);
	xqp_mutex_init(&soft->mcast_mutex, XQP_LOCK_SOFT_MCAST);

	err = soft_numtab_init(&soft->qpns, XQP_SOFT_QPN_RESERVED);
	if (err)
		goto err_free_soft;
	err = soft_numtab_init(&soft->srqns, 1);
	if (err)
		goto err_free_qpns;
	err = soft_numtab_init(&soft->mrns, 1);
	if (err)
		goto err_free_srqns;
	if (link) {
		err = soft_net_attach(soft);
		if (err)
			goto err_free_mrns;
	}
	err = soft_fabric_join(soft);
	if (err)
		goto err_detach;

	dev = xqp_register_device(name, &soft_ops, soft);
	if (xqp_is_err(dev)) {
		err = (int)xqp_ptr_err(dev);
		goto err_leave;
	}
	soft->dev = dev;
	return soft;

err_leave:
	soft_fabric_leave(soft);
err_detach:
	if (link)
		soft_net_detach(soft);
err_free_mrns:
	soft_numtab_free(&soft->mrns);
err_free_srqns:
	soft_numtab_free(&soft->srqns);
err_free_qpns:
	soft_numtab_free(&soft->qpns);
err_free_soft:
	xqp_mutex_destroy(&soft->mcast_mutex);
	xqp_free(soft);
	return xqp_err_ptr(err);
}

/**
 * xqp_soft_device - the core device of a soft device.
 * @soft: the soft device.
 *
 * Return: the device xqp_soft_create() registered.
 */
struct xqp_device *xqp_soft_device(struct xqp_soft *soft)
{
	return soft->dev;
}

/**
 * xqp_soft_counts - read the numbers of live driver objects.
 * @soft: the soft device.
 * @counts: filled with one snapshot of the counts.
 *
 * Context: any.
 */
void xqp_soft_counts(struct xqp_soft *soft, struct xqp_soft_counts *counts)
{
	unsigned long flags;

	flags = xqp_spin_lock_irqsave(&soft->lock);
	*counts = soft->counts;
	xqp_spin_unlock_irqrestore(&soft->lock, flags);
}

/**
 * xqp_soft_destroy - unregister a soft device and free it.
 * @soft: the soft device; NULL and error pointers are ignored.
 *
 * The core destroys every object left on the device during unregistration;
 * driver objects still alive after that are a bug (WARN) and are leaked,
 * since whoever holds them may still use them.
 *
 * Context: may sleep.
 */
void xqp_soft_destroy(struct xqp_soft *soft)
{
	struct xqp_soft_counts *c;

	if (!soft || xqp_is_err(soft))
		return;
	xqp_unregister_device(soft->dev);
	soft_fabric_leave(soft);	/* no packet reaches it after this */
	if (soft->link)
		soft_net_detach(soft);

	c = &soft->counts;
	if (XQP_WARN_ON(c->pd || c->cq || c->xrcd || c->srq || c->qp || c->mr ||
			c->mcast_grp))
		xqp_log("xqp_soft: leaking %u PDs, %u CQs, %u XRCDs, %u SRQs, %u QPs, %u MRs, %u multicast groups\n",
			c->pd, c->cq, c->xrcd, c->srq, c->qp, c->mr, c->mcast_grp);
	soft_numtab_free(&soft->mrns);
	soft_numtab_free(&soft->srqns);
	soft_numtab_free(&soft->qpns);
	soft_mcast_fini(soft);
	xqp_mutex_destroy(&soft->mcast_mutex);
	xqp_free(soft->link);
	xqp_free(soft);
}

/**
 * xqp_soft_lid - the LID the subnet gave a soft device.
 * @soft: the soft device.
 *
 * Return: 1 for the first device made, then the lowest free LID.
 */
xqp_u16 xqp_soft_lid(struct xqp_soft *soft)
{
	return soft->lid;
}
