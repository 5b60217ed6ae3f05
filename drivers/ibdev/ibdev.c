// SPDX-License-Identifier: GPL-2.0
/*
 * xqp_ibdev.ko: makes xqp's devices visible to Debian's unmodified
 * libibverbs (docs/provider.md).
 *
 * libibverbs lists devices through RDMA netlink, which only ib_core
 * answers. So for every xqp device this module, an xqp client, registers an
 * ib_device with ib_core, with the xqp device's name, whose parent is the
 * xqp char device (/sys/class/xqp_uverbs/uverbsN). It is a registration
 * device, not a verbs provider: it answers ib_core's queries (device, port,
 * GID and P_Key tables: ib_core's sysfs and netlink show exactly what the
 * xqp device reports), and refuses a user context. xqp's provider,
 * libxqp-rdmav34.so, matches it through the parent link and sends every
 * command to /dev/xqp/uverbsN instead of ib_uverbs' node.
 *
 * Lifetime: added after the char device (client order) and removed before
 * it; ib_unregister_device() returns with no query in flight, so the xqp
 * device is valid in every op. A stray open of /dev/infiniband/uverbsK
 * neither pins this module nor blocks removal (disassociate_ucontext).
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_netlink.h>

#include <xqp/driver.h>
#include <xqp/verbs.h>
#include "../../uverbs/export.h"
#include "ibdev.h"

/* The provider's ABI version (libibverbs: match_min/max_abi_version). */
#define XQP_IBDEV_UVERBS_ABI	1

struct xqp_ibdev_ucontext {
	struct ib_ucontext ibuc;
};

static struct xqp_device *to_xdev(struct ib_device *ibdev)
{
	return to_ibdev(ibdev)->xdev;
}

static_assert((int)XQP_ATOMIC_NONE == (int)IB_ATOMIC_NONE &&
	      (int)XQP_ATOMIC_HCA == (int)IB_ATOMIC_HCA &&
	      (int)XQP_ATOMIC_GLOB == (int)IB_ATOMIC_GLOB);

static int xqp_ibdev_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
				  struct ib_udata *udata)
{
	struct xqp_device_attr a;
	int err;

	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;
	err = xqp_query_device(to_xdev(ibdev), &a);
	if (err)
		return err;
	memset(attr, 0, sizeof(*attr));
	attr->sys_image_guid = cpu_to_be64(a.sys_image_guid);
	attr->max_mr_size = a.max_mr_size;
	attr->page_size_cap = a.page_size_cap;
	attr->vendor_id = a.vendor_id;
	attr->vendor_part_id = a.vendor_part_id;
	attr->hw_ver = a.hw_ver;
	attr->max_qp = a.max_qp;
	attr->max_qp_wr = a.max_qp_wr;
	/* memory windows are xqp's own uverbs' (no alloc_mw op here) */
	attr->device_cap_flags = a.device_cap_flags &
				 ~(XQP_DEVICE_MEM_WINDOW | XQP_DEVICE_MEM_WINDOW_TYPE_2B);
	attr->max_send_sge = a.max_send_sge;
	attr->max_recv_sge = a.max_recv_sge;
	attr->max_sge_rd = a.max_sge_rd;
	attr->max_mr = a.max_mr;
	attr->max_ah = a.max_ah;
	attr->max_res_rd_atom = a.max_res_rd_atom;
	attr->local_ca_ack_delay = a.local_ca_ack_delay;
	attr->max_cq = a.max_cq;
	attr->max_cqe = a.max_cqe;
	attr->max_pd = a.max_pd;
	attr->max_qp_rd_atom = a.max_qp_rd_atom;
	attr->max_qp_init_rd_atom = a.max_qp_init_rd_atom;
	attr->atomic_cap = (enum ib_atomic_cap)a.atomic_cap;
	attr->max_srq = a.max_srq;
	attr->max_srq_wr = a.max_srq_wr;
	attr->max_srq_sge = a.max_srq_sge;
	attr->max_pkeys = a.max_pkeys;
	attr->max_mcast_grp = a.max_mcast_grp;
	attr->max_mcast_qp_attach = a.max_mcast_qp_attach;
	attr->max_total_mcast_qp_attach = a.max_total_mcast_qp_attach;
	/* a link's device goes with `rdma link delete`, as rxe's */
	if (to_ibdev(ibdev)->link)
		attr->kernel_cap_flags |= IBK_ALLOW_USER_UNREG;
	return 0;
}

static int xqp_ibdev_query_port(struct ib_device *ibdev, u32 port,
				struct ib_port_attr *attr)
{
	struct xqp_port_attr a;
	int err;

	/* ib_core zeroes *attr first */
	err = xqp_query_port(to_xdev(ibdev), port, &a);
	if (err)
		return err;
	attr->state = (enum ib_port_state)a.state;
	attr->max_mtu = (enum ib_mtu)a.max_mtu;
	attr->active_mtu = (enum ib_mtu)a.active_mtu;
	attr->phys_mtu = ib_mtu_enum_to_int(attr->max_mtu);
	attr->gid_tbl_len = a.gid_tbl_len;
	attr->port_cap_flags = a.port_cap_flags;
	attr->max_msg_sz = a.max_msg_sz;
	attr->bad_pkey_cntr = a.bad_pkey_cntr;
	attr->qkey_viol_cntr = a.qkey_viol_cntr;
	attr->pkey_tbl_len = a.pkey_tbl_len;
	attr->lid = a.lid;
	attr->sm_lid = a.sm_lid;
	attr->lmc = a.lmc;
	attr->max_vl_num = a.max_vl_num;
	attr->sm_sl = a.sm_sl;
	attr->subnet_timeout = a.subnet_timeout;
	attr->init_type_reply = a.init_type_reply;
	attr->active_width = a.active_width;
	attr->active_speed = a.active_speed;
	attr->phys_state = a.phys_state;
	return 0;
}

static int xqp_ibdev_get_port_immutable(struct ib_device *ibdev, u32 port,
					struct ib_port_immutable *immutable)
{
	struct xqp_port_attr a;
	int err;

	err = xqp_query_port(to_xdev(ibdev), port, &a);
	if (err)
		return err;
	immutable->pkey_tbl_len = a.pkey_tbl_len;
	immutable->gid_tbl_len = a.gid_tbl_len;
	if (a.link_layer == XQP_LINK_LAYER_ETHERNET) {
		/*
		 * RoCE v2, rxe's flags: ib_core keeps the GID table from the
		 * netdev's addresses. The MAD and CM bits do not make ib_mad
		 * or ib_cm use the device while it is no kernel verbs
		 * provider (ib_device_check_mandatory()).
		 */
		immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
		immutable->max_mad_size = IB_MGMT_MAD_SIZE;
		return 0;
	}
	immutable->core_cap_flags = RDMA_CORE_CAP_PROT_IB;
	/* No MAD support, so no MAD size: ib_core refuses anything else. */
	immutable->max_mad_size = 0;
	return 0;
}

static enum rdma_link_layer xqp_ibdev_get_link_layer(struct ib_device *ibdev, u32 port)
{
	return xqp_device_netdev(to_xdev(ibdev), port) ? IB_LINK_LAYER_ETHERNET :
							 IB_LINK_LAYER_INFINIBAND;
}

static int xqp_ibdev_query_gid(struct ib_device *ibdev, u32 port, int index,
			       union ib_gid *gid)
{
	return xqp_query_gid(to_xdev(ibdev), port, index, gid->raw);
}

static int xqp_ibdev_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey)
{
	return xqp_query_pkey(to_xdev(ibdev), port, index, pkey);
}

/* Verbs go to /dev/xqp/uverbsN: ib_uverbs' node of this device has none. */
static int xqp_ibdev_alloc_ucontext(struct ib_ucontext *uctx, struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static void xqp_ibdev_dealloc_ucontext(struct ib_ucontext *uctx)
{
}

static void xqp_ibdev_disassociate_ucontext(struct ib_ucontext *uctx)
{
}

static const struct ib_device_ops xqp_ibdev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = XQP_IBDEV_UVERBS_ABI,

	.query_device = xqp_ibdev_query_device,
	.query_port = xqp_ibdev_query_port,
	.get_port_immutable = xqp_ibdev_get_port_immutable,
	.get_link_layer = xqp_ibdev_get_link_layer,
	.query_gid = xqp_ibdev_query_gid,
	.query_pkey = xqp_ibdev_query_pkey,
	.alloc_ucontext = xqp_ibdev_alloc_ucontext,
	.dealloc_ucontext = xqp_ibdev_dealloc_ucontext,
	.disassociate_ucontext = xqp_ibdev_disassociate_ucontext,

	INIT_RDMA_OBJ_SIZE(ib_ucontext, xqp_ibdev_ucontext, ibuc),
};

/* An ib_device for @xdev, filled but not registered, or an ERR_PTR. */
struct xqp_ibdev *xqp_ibdev_alloc(struct xqp_device *xdev)
{
	struct xqp_device_attr a;
	struct xqp_ibdev *d;
	int err;

	err = xqp_query_device(xdev, &a);
	if (err)
		return ERR_PTR(err);
	d = ib_alloc_device(xqp_ibdev, ibdev);
	if (!d)
		return ERR_PTR(-ENOMEM);
	d->xdev = xdev;
	xa_init(&d->kqps);
	d->parent = xqp_uverbs_get_device(xdev);
	if (!d->parent) {
		ib_dealloc_device(&d->ibdev);
		return ERR_PTR(-ENODEV);
	}
	strscpy(d->ibdev.node_desc, "xqp soft device", sizeof(d->ibdev.node_desc));
	d->ibdev.node_type = RDMA_NODE_IB_CA;
	d->ibdev.node_guid = cpu_to_be64(a.node_guid);
	d->ibdev.phys_port_cnt = a.phys_port_cnt;
	d->ibdev.num_comp_vectors = 1;
	d->ibdev.dev.parent = d->parent;
	ib_set_device_ops(&d->ibdev, &xqp_ibdev_ops);
	return d;
}

/* Undoes xqp_ibdev_alloc() for a device that was never registered. */
void xqp_ibdev_free(struct xqp_ibdev *d)
{
	struct device *parent = d->parent;

	ib_dealloc_device(&d->ibdev);
	put_device(parent);
}

int xqp_ibdev_register(struct xqp_ibdev *d)
{
	int err = ib_register_device(&d->ibdev, xqp_device_name(d->xdev), NULL);

	if (err)
		return err;
	d->registered = true;
	dev_info(&d->ibdev.dev, "registered with ib_core for libibverbs (verbs on %s)\n",
		 dev_name(d->parent));
	return 0;
}

/* A device was registered with xqp: register its ib_device. */
static void *xqp_ibdev_add(struct xqp_device *xdev)
{
	struct xqp_ibdev *d;
	int err;

	if (xqp_device_netdev(xdev, 1))
		return xqp_link_add(xdev);
	d = xqp_ibdev_alloc(xdev);
	if (IS_ERR(d))
		return d;
	err = xqp_ibdev_register(d);
	if (err) {
		xqp_ibdev_free(d);
		return ERR_PTR(err);
	}
	return d;
}

/*
 * The xqp device goes. A linked device's ib_device went first (ib_core
 * unregistered it: link.c); any other's is unregistered here.
 */
static void xqp_ibdev_remove(struct xqp_device *xdev, void *client_data)
{
	struct xqp_ibdev *d = client_data;
	struct device *parent;

	if (xqp_device_netdev(xdev, 1))
		return;
	parent = d->parent;
	ib_unregister_device(&d->ibdev);
	ib_dealloc_device(&d->ibdev);
	put_device(parent);
}

/* Port events of a linked device go to ib_core's clients too (as rxe's). */
static void xqp_ibdev_event(struct xqp_device *xdev, void *client_data, struct xqp_event *ev)
{
	if (xqp_device_netdev(xdev, 1))
		xqp_link_event(client_data, ev);
}

static struct xqp_client xqp_ibdev_client = {
	.name = "ibdev",
	.add = xqp_ibdev_add,
	.remove = xqp_ibdev_remove,
	.event = xqp_ibdev_event,
};

static int __init xqp_ibdev_init(void)
{
	int err = xqp_register_client(&xqp_ibdev_client);

	if (err)
		return err;
	err = xqp_link_init();
	if (err)
		xqp_unregister_client(&xqp_ibdev_client);
	return err;
}

/* Links first (their devices go), then every other device's ib_device. */
static void __exit xqp_ibdev_exit(void)
{
	xqp_link_exit();
	xqp_unregister_client(&xqp_ibdev_client);
}

module_init(xqp_ibdev_init);
module_exit(xqp_ibdev_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("xqp: registration ib_devices, so that libibverbs lists xqp's devices");
MODULE_SOFTDEP("post: ib_uverbs");
MODULE_ALIAS_RDMA_LINK("xqp");
