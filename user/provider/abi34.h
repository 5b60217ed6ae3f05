/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The part of libibverbs' private provider ABI, version 34 (rdma-core 44.0
 * in Debian 12; rdma-core 56.1 in Debian 13 has the same PABI number), that
 * xqp's provider needs. Debian installs no header for this ABI
 * (libibverbs-dev ships the public headers only, no infiniband/driver.h),
 * so the project declares it itself. Everything here was written from
 * facts read in rdma-core v44.0 (paths given per item, all under
 * libibverbs/ unless said otherwise) and checked against Debian's
 * libibverbs.so.1.14.44.0 by tests/provider/abi_check.c
 * (`make -C provider abi-check`).
 *
 * Naming: the types are this project's (prefix abi34_); only the function
 * names are rdma-core's, because they are the symbols the library exports
 * (all with symbol version IBVERBS_PRIVATE_34, libibverbs.map.in). C does
 * not link by type, so the pointer types in the prototypes only have to
 * describe the same memory layout as rdma-core's.
 *
 * Layout assumptions: LP64 (x86_64, aarch64), as Debian's amd64/arm64
 * packages. abi_check.c asserts the sizes below and checks at run time
 * the members libibverbs reads or writes on the paths it exercises (see
 * there); the sysfs record members only device enumeration writes (sysfs_name,
 * sysfs_cdev, modalias, driver_id, node_type, abi_ver, time_created) and
 * abi34_device.entry are checked by offset only.
 *
 * What is NOT declared: everything the design does not use (flows, WQs,
 * counters, DM, MW, ESP, parent domains, TM, import/export, the ioctl
 * command-buffer machinery, ibv_cmd_post_send: xqp needs the XRC remote
 * SRQ number in each send WR, which libibverbs' helper cannot carry).
 */
#ifndef XQP_PROVIDER_ABI34_H
#define XQP_PROVIDER_ABI34_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The PABI number, as it appears in symbol versions and in the name of the
 * registration entry point (CMakeLists.txt: IBVERBS_PABI_VERSION "34"). */
#define ABI34_PABI_VERSION		34
#define ABI34_SYMBOL_VERSION		"IBVERBS_PRIVATE_34"
/* Provider file name: lib<name>-rdmav34.so (CMakeLists.txt:
 * IBVERBS_PROVIDER_SUFFIX; dynamic_driver.c: load_driver()). */
#define ABI34_PROVIDER_SUFFIX		"-rdmav34.so"

/*
 * An intrusive doubly linked list node as rdma-core's bundled ccan list
 * uses it (ccan/list.h: struct list_node): forward pointer first, then the
 * backward pointer. The provider never walks these lists; it only needs
 * the size and position.
 */
struct abi34_list_node {
	struct abi34_list_node *next;
	struct abi34_list_node *prev;
};

/* ---- matching a kernel device to a provider (driver.h, init.c) ---------- */

/* Kinds of match table entries; a zero kind ends the table. */
enum {
	ABI34_MATCH_END = 0,		/* table terminator */
	ABI34_MATCH_PCI = 1,		/* vendor/device against "pci:v...d..." modalias */
	ABI34_MATCH_MODALIAS = 2,	/* fnmatch() pattern against the modalias */
	ABI34_MATCH_DRIVER_ID = 3,	/* netlink RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID */
};

/*
 * One match table entry (driver.h: struct verbs_match_ent). init.c tries,
 * for each provider with a table: the driver id (skipped when the kernel
 * reports RDMA_DRIVER_UNKNOWN = 0), then the pattern kinds against the
 * string "rdma_device:N<ibdev name>", then against the file
 * <ibdev_path>/device/modalias. A name pattern is a MODALIAS entry whose
 * pattern reads "rdma_device:*N<prefix>*".
 */
struct abi34_match_ent {
	void *driver_data;
	union {
		const char *modalias;	/* MODALIAS kind */
		uint64_t driver_id;	/* DRIVER_ID kind */
	} u;
	uint16_t vendor;		/* PCI kind */
	uint16_t device;		/* PCI kind */
	uint8_t kind;			/* ABI34_MATCH_* */
};

/* Bits of abi34_sysfs_dev.flags (driver.h). */
enum {
	ABI34_SYSFS_READ_MODALIAS = 1 << 0,	/* modalias[] was read (may be empty) */
	ABI34_SYSFS_READ_NODE_GUID = 1 << 1,	/* node_guid is valid (netlink gave it) */
};

/*
 * What libibverbs found about one kernel device before any provider sees it
 * (driver.h: struct verbs_sysfs_dev). Filled by ibdev_nl.c (netlink) or
 * init.c (the sysfs fallback); handed to match_device() and alloc_device();
 * after a match the verbs_device owns it (init.c: ibverbs_device_put()
 * frees it with free() on the device's last reference).
 *
 *  sysfs_name   the uverbs char device's name, "uverbs0": libibverbs opens
 *               /dev/infiniband/<sysfs_name> and requires its st_rdev to be
 *               sysfs_cdev (util/open_cdev.c)
 *  ibdev_name   the kernel RDMA device's name ("rxe0", "xqp_soft0")
 *  ibdev_path   "<sysfs>/class/infiniband/<ibdev_name>"; the base of every
 *               sysfs read (GIDs, P_Keys, modalias)
 *  modalias     <ibdev_path>/device/modalias, read lazily
 *  node_guid    from netlink (flag ABI34_SYSFS_READ_NODE_GUID), else read
 *               from sysfs on demand (device.c: ibv_get_device_guid)
 *  driver_id    netlink's UVERBS_DRIVER_ID, or 0 (RDMA_DRIVER_UNKNOWN)
 *  ibdev_idx    netlink device index; -1 in the sysfs fallback
 *  num_ports    netlink port count (0 in the fallback)
 *  abi_ver      the device's uverbs ABI version (netlink CHARDEV_ABI = the
 *               kernel driver's ib_device_ops.uverbs_abi_ver), compared with
 *               the provider's match_min/max_abi_version
 *  time_created mtime of ibdev_path, set only where libibverbs reads the
 *               uverbs sysfs directory (init.c: setup_sysfs_uverbs)
 */
struct abi34_sysfs_dev {
	struct abi34_list_node entry;
	void *provider_data;
	const struct abi34_match_ent *match;	/* the table entry that matched */
	unsigned int flags;			/* ABI34_SYSFS_READ_* */
	char sysfs_name[IBV_SYSFS_NAME_MAX];
	dev_t sysfs_cdev;
	char ibdev_name[IBV_SYSFS_NAME_MAX];
	char ibdev_path[IBV_SYSFS_PATH_MAX];
	char modalias[512];
	uint64_t node_guid;
	uint32_t driver_id;
	enum ibv_node_type node_type;
	int ibdev_idx;
	uint32_t num_ports;
	uint32_t abi_ver;
	struct timespec time_created;
};

struct abi34_device;

/*
 * A provider's entry table (driver.h: struct verbs_device_ops), handed to
 * verbs_register_driver_34(). Members, in order:
 *  name                 for messages
 *  match_min/max_abi_version  accepted range of abi34_sysfs_dev.abi_ver
 *  match_table          ABI34_MATCH_END-terminated; never NULL: try_drivers()
 *                       walks it unchecked for devices with a driver id
 *  static_providers     only for static builds of rdma-core; NULL
 *  match_device         if set, called after the table match for every
 *                       device (sysfs_dev->match holds the table result,
 *                       possibly NULL) and decides alone; if NULL, a table
 *                       match is required (init.c: match_device())
 *  alloc_context        ibv_open_device(): cmd_fd is the fd libibverbs
 *                       opened on /dev/infiniband/<sysfs_name>, O_RDWR |
 *                       O_CLOEXEC, owned by the callee from here on (it
 *                       closes it on failure) (device.c: verbs_open_device)
 *  import_context       ibv_import_device(); NULL = EOPNOTSUPP
 *  alloc_device         returns a zeroed abi34_device (or a struct starting
 *                       with one); libibverbs then sets its ops, refcount,
 *                       names, paths, node and transport type and sysfs
 *  uninit_device        frees what alloc_device allocated, called on the
 *                       device's last reference after sysfs was freed
 */
struct abi34_device_ops {
	const char *name;
	uint32_t match_min_abi_version;
	uint32_t match_max_abi_version;
	const struct abi34_match_ent *match_table;
	const struct abi34_device_ops **static_providers;
	bool (*match_device)(struct abi34_sysfs_dev *sysfs_dev);
	struct verbs_context *(*alloc_context)(struct ibv_device *device,
					       int cmd_fd, void *private_data);
	struct verbs_context *(*import_context)(struct ibv_device *device,
						int cmd_fd);
	struct abi34_device *(*alloc_device)(struct abi34_sysfs_dev *sysfs_dev);
	void (*uninit_device)(struct abi34_device *device);
};

/*
 * A device as libibverbs keeps it (driver.h: struct verbs_device). The
 * public struct ibv_device comes first (ibv_get_device_list() hands out
 * pointers to it). refcount starts at 1 (the list's); each context holds
 * one (verbs_init_context / verbs_uninit_context). core_support is set
 * only by the ioctl GET_CONTEXT; ibv_reg_mr() strips the optional access
 * bits unless it has IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS (verbs.c).
 */
struct abi34_device {
	struct ibv_device device;
	const struct abi34_device_ops *ops;
	atomic_int refcount;
	struct abi34_list_node entry;
	struct abi34_sysfs_dev *sysfs;
	uint64_t core_support;
};

/* ---- the context's operations (driver.h: struct verbs_context_ops) ------ */

/* Types the ops table names but the provider never dereferences. */
struct ibv_counters;
struct ibv_counters_init_attr;
struct ibv_counter_attach_attr;
struct ibv_flow_action_esp_attr;
struct ibv_parent_domain_init_attr;
struct ibv_td_init_attr;
struct ibv_ops_wr;
struct ibv_values_ex;
struct ibv_ece;
struct ibv_alloc_dm_attr;
struct ibv_rwq_ind_table_init_attr;
struct ibv_wq_init_attr;
struct ibv_wq_attr;
struct ibv_modify_cq_attr;
struct ibv_qp_rate_limit_attr;
struct abi34_mr;

/*
 * Every operation a provider may supply, sorted by name, exactly 76
 * pointers (driver.h, v44.0). verbs_set_ops() (dummy_ops.c) copies each
 * non-NULL member into the context's private table (what libibverbs' own
 * wrappers call) and, for most, also into the public struct the inline
 * verbs in <infiniband/verbs.h> call: struct verbs_context (same member
 * name; create_flow/destroy_flow as ibv_create_flow/ibv_destroy_flow),
 * struct ibv_context_ops (alloc_mw, bind_mw, dealloc_mw, poll_cq,
 * post_recv, post_send, post_srq_recv, req_notify_cq) or its _compat_<name>
 * slot. Not mirrored anywhere public (reached only through libibverbs'
 * functions): create_cq_ex, free_context, import_dm/mr/pd, query_ece,
 * query_port, query_qp_data_in_order, reg_dmabuf_mr, set_ece,
 * unimport_dm/mr/pd. A NULL member keeps libibverbs' dummy, which fails
 * with EOPNOTSUPP (returned, or in errno with NULL) or, for async_event,
 * cq_event and free_context, does nothing (dummy_ops.c).
 *
 * The member list is unchanged in rdma-core v56.1 (checked by diffing
 * driver.h v44.0..v56.1).
 */
struct abi34_context_ops {
	int (*advise_mr)(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
			 uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sges);
	struct ibv_dm *(*alloc_dm)(struct ibv_context *context,
				   struct ibv_alloc_dm_attr *attr);
	struct ibv_mw *(*alloc_mw)(struct ibv_pd *pd, enum ibv_mw_type type);
	struct ibv_mr *(*alloc_null_mr)(struct ibv_pd *pd);
	struct ibv_pd *(*alloc_parent_domain)(struct ibv_context *context,
					      struct ibv_parent_domain_init_attr *attr);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
	struct ibv_td *(*alloc_td)(struct ibv_context *context,
				   struct ibv_td_init_attr *init_attr);
	void (*async_event)(struct ibv_context *context, struct ibv_async_event *event);
	int (*attach_counters_point_flow)(struct ibv_counters *counters,
					  struct ibv_counter_attach_attr *attr,
					  struct ibv_flow *flow);
	int (*attach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid);
	int (*bind_mw)(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *mw_bind);
	int (*close_xrcd)(struct ibv_xrcd *xrcd);
	void (*cq_event)(struct ibv_cq *cq);
	struct ibv_ah *(*create_ah)(struct ibv_pd *pd, struct ibv_ah_attr *attr);
	struct ibv_counters *(*create_counters)(struct ibv_context *context,
						struct ibv_counters_init_attr *init_attr);
	struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe,
				    struct ibv_comp_channel *channel, int comp_vector);
	struct ibv_cq_ex *(*create_cq_ex)(struct ibv_context *context,
					  struct ibv_cq_init_attr_ex *init_attr);
	struct ibv_flow *(*create_flow)(struct ibv_qp *qp, struct ibv_flow_attr *flow_attr);
	struct ibv_flow_action *(*create_flow_action_esp)(struct ibv_context *context,
							  struct ibv_flow_action_esp_attr *attr);
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
	struct ibv_qp *(*create_qp_ex)(struct ibv_context *context,
				       struct ibv_qp_init_attr_ex *qp_init_attr_ex);
	struct ibv_rwq_ind_table *(*create_rwq_ind_table)(struct ibv_context *context,
							  struct ibv_rwq_ind_table_init_attr *init_attr);
	struct ibv_srq *(*create_srq)(struct ibv_pd *pd, struct ibv_srq_init_attr *srq_init_attr);
	struct ibv_srq *(*create_srq_ex)(struct ibv_context *context,
					 struct ibv_srq_init_attr_ex *srq_init_attr_ex);
	struct ibv_wq *(*create_wq)(struct ibv_context *context,
				    struct ibv_wq_init_attr *wq_init_attr);
	int (*dealloc_mw)(struct ibv_mw *mw);
	int (*dealloc_pd)(struct ibv_pd *pd);
	int (*dealloc_td)(struct ibv_td *td);
	int (*dereg_mr)(struct abi34_mr *vmr);
	int (*destroy_ah)(struct ibv_ah *ah);
	int (*destroy_counters)(struct ibv_counters *counters);
	int (*destroy_cq)(struct ibv_cq *cq);
	int (*destroy_flow)(struct ibv_flow *flow);
	int (*destroy_flow_action)(struct ibv_flow_action *action);
	int (*destroy_qp)(struct ibv_qp *qp);
	int (*destroy_rwq_ind_table)(struct ibv_rwq_ind_table *rwq_ind_table);
	int (*destroy_srq)(struct ibv_srq *srq);
	int (*destroy_wq)(struct ibv_wq *wq);
	int (*detach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid);
	void (*free_context)(struct ibv_context *context);
	int (*free_dm)(struct ibv_dm *dm);
	int (*get_srq_num)(struct ibv_srq *srq, uint32_t *srq_num);
	struct ibv_dm *(*import_dm)(struct ibv_context *context, uint32_t dm_handle);
	struct ibv_mr *(*import_mr)(struct ibv_pd *pd, uint32_t mr_handle);
	struct ibv_pd *(*import_pd)(struct ibv_context *context, uint32_t pd_handle);
	int (*modify_cq)(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr);
	int (*modify_flow_action_esp)(struct ibv_flow_action *action,
				      struct ibv_flow_action_esp_attr *attr);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask);
	int (*modify_qp_rate_limit)(struct ibv_qp *qp, struct ibv_qp_rate_limit_attr *attr);
	int (*modify_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr, int srq_attr_mask);
	int (*modify_wq)(struct ibv_wq *wq, struct ibv_wq_attr *wq_attr);
	struct ibv_qp *(*open_qp)(struct ibv_context *context, struct ibv_qp_open_attr *attr);
	struct ibv_xrcd *(*open_xrcd)(struct ibv_context *context,
				      struct ibv_xrcd_init_attr *xrcd_init_attr);
	int (*poll_cq)(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr);
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr);
	int (*post_srq_ops)(struct ibv_srq *srq, struct ibv_ops_wr *op, struct ibv_ops_wr **bad_op);
	int (*post_srq_recv)(struct ibv_srq *srq, struct ibv_recv_wr *recv_wr,
			     struct ibv_recv_wr **bad_recv_wr);
	int (*query_device_ex)(struct ibv_context *context,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr, size_t attr_size);
	int (*query_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	int (*query_port)(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *port_attr);
	int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
			struct ibv_qp_init_attr *init_attr);
	int (*query_qp_data_in_order)(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags);
	int (*query_rt_values)(struct ibv_context *context, struct ibv_values_ex *values);
	int (*query_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr);
	int (*read_counters)(struct ibv_counters *counters, uint64_t *counters_value,
			     uint32_t ncounters, uint32_t flags);
	struct ibv_mr *(*reg_dm_mr)(struct ibv_pd *pd, struct ibv_dm *dm, uint64_t dm_offset,
				    size_t length, unsigned int access);
	struct ibv_mr *(*reg_dmabuf_mr)(struct ibv_pd *pd, uint64_t offset, size_t length,
					uint64_t iova, int fd, int access);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t hca_va, int access);
	int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only);
	int (*rereg_mr)(struct abi34_mr *vmr, int flags, struct ibv_pd *pd, void *addr,
			size_t length, int access);
	int (*resize_cq)(struct ibv_cq *cq, int cqe);
	int (*set_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	void (*unimport_dm)(struct ibv_dm *dm);
	void (*unimport_mr)(struct ibv_mr *mr);
	void (*unimport_pd)(struct ibv_pd *pd);
};

#define ABI34_CONTEXT_OPS_COUNT 76

/* ---- object wrappers the ibv_cmd_* helpers fill (driver.h) -------------- */

/* abi34_xrcd.comp_mask bit: handle is valid. */
#define ABI34_XRCD_HANDLE	(1U << 0)

/* An XRC domain: ibv_cmd_open_xrcd() stores the kernel handle here when
 * the size it is given covers the member (vext_field_avail). */
struct abi34_xrcd {
	struct ibv_xrcd xrcd;
	uint32_t comp_mask;
	uint32_t handle;
};

/* An SRQ created through ibv_cmd_create_srq_ex(): for XRC SRQs the helper
 * stores the type, the XRCD, the CQ and the SRQ number the kernel gave
 * (cmd_srq.c: set_vsrq), which get_srq_num then reports. */
struct abi34_srq {
	struct ibv_srq srq;
	enum ibv_srq_type srq_type;
	struct abi34_xrcd *xrcd;
	struct ibv_cq *cq;
	uint32_t srq_num;
};

/* abi34_qp.comp_mask bits. */
#define ABI34_QP_XRCD	(1U << 0)	/* xrcd is valid */
#define ABI34_QP_EX	(1U << 1)	/* qp_ex is valid: ibv_qp_to_qp_ex() returns it (verbs.c) */

/*
 * The public ibv_qp_ex grows at its end within PABI 34: rdma-core 45 added
 * wr_flush after wr_atomic_write (Debian 12's 44.0 has no wr_flush, Debian
 * 13's 56.1 has it). A program calls any member whatever send ops the QP
 * was made for, so the provider must set every one its header declares
 * (post.c: xprov_qp_ex_init()); a NULL one is a jump to address 0. The
 * Makefile tells which layout the installed header has (ABI34_HAVE_WR_FLUSH,
 * a member no preprocessor test can see), and a header with a member past
 * the last one known here stops the build instead of crashing programs.
 *
 * The size of ibv_qp_ex also places abi34_qp.comp_mask, which libibverbs
 * writes and ibv_qp_to_qp_ex() reads: a provider built against one layout
 * cannot run under a libibverbs of the other, so it is built against the
 * headers of the library it is installed beside (abi-check runs there).
 */
#ifdef ABI34_HAVE_WR_FLUSH
#define ABI34_QP_EX_LAST_OP	wr_flush
#else
#define ABI34_QP_EX_LAST_OP	wr_atomic_write
#endif
_Static_assert(offsetof(struct ibv_qp_ex, ABI34_QP_EX_LAST_OP) + sizeof(void (*)(void)) ==
	       sizeof(struct ibv_qp_ex),
	       "<infiniband/verbs.h> declares ibv_qp_ex members past the last one xqp's provider "
	       "sets (abi34.h, post.c: xprov_qp_ex_init)");

/* A QP: the public ibv_qp_ex starts with the ibv_qp (qp_base), so one
 * object serves both APIs. ibv_cmd_create_qp_ex()/open_qp() set comp_mask
 * to ABI34_QP_XRCD (or 0); the provider adds ABI34_QP_EX itself. */
struct abi34_qp {
	union {
		struct ibv_qp qp;
		struct ibv_qp_ex qp_ex;
	};
	uint32_t comp_mask;
	struct abi34_xrcd *xrcd;
};

/* A CQ usable through both the old and the extended (ibv_cq_ex) API. */
struct abi34_cq {
	union {
		struct ibv_cq cq;
		struct ibv_cq_ex cq_ex;
	};
};

/* abi34_mr.mr_type values. */
enum abi34_mr_type {
	ABI34_MR_TYPE_MR,
	ABI34_MR_TYPE_NULL_MR,
	ABI34_MR_TYPE_IMPORTED_MR,
	ABI34_MR_TYPE_DMABUF_MR,
};

/* An MR: ibv_cmd_reg_mr() records type and access; ibv_dereg_mr() reads
 * them back to decide whether to undo ibv_dontfork_range() (verbs.c). */
struct abi34_mr {
	struct ibv_mr ibv_mr;
	enum abi34_mr_type mr_type;
	int access;
};

/* ---- command buffers the ibv_cmd_* helpers take (kern-abi.h) ------------ */

/*
 * kern-abi.h lays every legacy command out as the 8-byte
 * struct ib_uverbs_cmd_hdr followed directly by the kernel's request
 * struct (<rdma/ib_user_verbs.h>), and asserts there is no padding between
 * them. A provider may pass a longer buffer (cmd_size): the bytes after
 * the kernel struct are driver data. Likewise for responses: the kernel
 * response struct, then driver data.
 *
 * Where the request lands: helpers built on DECLARE_LEGACY_UHW_BUFS
 * (get_context, create_cq, create_qp(_ex), create_srq(_ex); cmd_write.h)
 * build the request and take the response in libibverbs' own stack
 * buffers when no driver data is passed, and in the caller's buffers
 * otherwise; the other helpers always use the caller's buffers.
 */
#define ABI34_DECLARE_CMD(tag)				\
	struct abi34_cmd_##tag {			\
		struct ib_uverbs_cmd_hdr hdr;		\
		struct ib_uverbs_##tag core;		\
	}

ABI34_DECLARE_CMD(get_context);
ABI34_DECLARE_CMD(query_port);
ABI34_DECLARE_CMD(alloc_pd);
ABI34_DECLARE_CMD(reg_mr);
ABI34_DECLARE_CMD(create_cq);
ABI34_DECLARE_CMD(resize_cq);
ABI34_DECLARE_CMD(create_qp);
ABI34_DECLARE_CMD(open_qp);
ABI34_DECLARE_CMD(query_qp);
ABI34_DECLARE_CMD(modify_qp);
ABI34_DECLARE_CMD(create_srq);
ABI34_DECLARE_CMD(create_xsrq);
ABI34_DECLARE_CMD(modify_srq);
ABI34_DECLARE_CMD(query_srq);
ABI34_DECLARE_CMD(open_xrcd);

/* ---- entry points (all IBVERBS_PRIVATE_34) ------------------------------ */

/*
 * Registration (init.c). The provider calls it from an ELF constructor;
 * driver.h's PROVIDER_DRIVER macro does just that, plus an alias symbol
 * used only when providers are linked statically into libibverbs.
 * Providers are loaded (dynamic_driver.c) the first time
 * ibv_get_device_list() finds a device no registered provider matched:
 * every "driver NAME" line of the regular files in /etc/libibverbs.d, and
 * the names in $RDMAV_DRIVERS (or $IBV_DRIVERS) split at ':' or ';' (not
 * for setuid programs). NAME is opened as
 * /usr/lib/x86_64-linux-gnu/libibverbs/libNAME-rdmav34.so (Debian's
 * VERBS_PROVIDER_DIR), then libNAME-rdmav34.so on the ordinary library
 * path; a NAME starting with '/' is opened as NAME-rdmav34.so directly.
 */
void verbs_register_driver_34(const struct abi34_device_ops *ops);

/*
 * Context set-up (device.c). _verbs_init_and_alloc_context() callocs
 * alloc_size bytes, finds the struct verbs_context at byte offset
 * (uintptr_t)context_offset inside them and initialises it
 * (verbs_init_context, not exported itself): takes a device reference,
 * stores cmd_fd (which it owns from now on: closed on failure), sets
 * async_fd = -1, abi_compat = __VERBS_ABI_IS_EXTENDED, sz =
 * sizeof(struct verbs_context), the dummy ops, and probes the ioctl
 * interface once with ioctl(cmd_fd, RDMA_VERBS_IOCTL, ...): if that fails
 * with ENOTTY or EPROTONOSUPPORT, every later write-ABI command goes out
 * as write(cmd_fd), otherwise wrapped in the ioctl INVOKE_WRITE method.
 * The probe is why the provider must hand its own fd to this call, not
 * swap it in afterwards. driver_id goes into every ioctl header.
 */
void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd,
				    size_t alloc_size,
				    struct verbs_context *context_offset,
				    uint32_t driver_id);

/* Frees the private part, closes cmd_fd and async_fd (when not -1) and
 * drops the device reference; the caller frees its own allocation. */
void verbs_uninit_context(struct verbs_context *context);

/* Installs the provider's ops (see struct abi34_context_ops). May be
 * called more than once; NULL members leave the current op in place. */
void verbs_set_ops(struct verbs_context *vctx, const struct abi34_context_ops *ops);

/*
 * The command helpers (cmd*.c). All return 0 or a positive errno, except
 * ibv_cmd_poll_cq (the number of completions, or -1). Every
 * one that has an ioctl form tries it first and, once the fd has answered
 * ENOTTY to any ioctl, uses the write() form for the rest of the context's
 * life (cmd_fallback.c: _execute_ioctl_fallback). Objects get
 * user_handle = their own address, which is what libibverbs then expects
 * to read back from the async fd and from completion channels.
 */
int ibv_cmd_get_context(struct verbs_context *context,
			struct abi34_cmd_get_context *cmd, size_t cmd_size,
			struct ib_uverbs_get_context_resp *resp, size_t resp_size);
int ibv_cmd_query_device_any(struct ibv_context *context,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr, size_t attr_size,
			     struct ib_uverbs_ex_query_device_resp *resp,
			     size_t *resp_size);
int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num,
		       struct ibv_port_attr *port_attr,
		       struct abi34_cmd_query_port *cmd, size_t cmd_size);

int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		     struct abi34_cmd_alloc_pd *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size);
int ibv_cmd_dealloc_pd(struct ibv_pd *pd);

int ibv_cmd_open_xrcd(struct ibv_context *context, struct abi34_xrcd *xrcd,
		      int vxrcd_size, struct ibv_xrcd_init_attr *attr,
		      struct abi34_cmd_open_xrcd *cmd, size_t cmd_size,
		      struct ib_uverbs_open_xrcd_resp *resp, size_t resp_size);
int ibv_cmd_close_xrcd(struct abi34_xrcd *xrcd);

int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		   uint64_t hca_va, int access, struct abi34_mr *vmr,
		   struct abi34_cmd_reg_mr *cmd, size_t cmd_size,
		   struct ib_uverbs_reg_mr_resp *resp, size_t resp_size);
int ibv_cmd_dereg_mr(struct abi34_mr *vmr);

int ibv_cmd_create_cq(struct ibv_context *context, int cqe,
		      struct ibv_comp_channel *channel, int comp_vector,
		      struct ibv_cq *cq, struct abi34_cmd_create_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_create_cq_resp *resp,
		      size_t resp_size);
int ibv_cmd_poll_cq(struct ibv_cq *cq, int ne, struct ibv_wc *wc);
int ibv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only);
int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe,
		      struct abi34_cmd_resize_cq *cmd, size_t cmd_size,
		      struct ib_uverbs_resize_cq_resp *resp, size_t resp_size);
int ibv_cmd_destroy_cq(struct ibv_cq *cq);

int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
		       struct ibv_srq_init_attr *attr,
		       struct abi34_cmd_create_srq *cmd, size_t cmd_size,
		       struct ib_uverbs_create_srq_resp *resp, size_t resp_size);
int ibv_cmd_create_srq_ex(struct ibv_context *context, struct abi34_srq *srq,
			  struct ibv_srq_init_attr_ex *attr_ex,
			  struct abi34_cmd_create_xsrq *cmd, size_t cmd_size,
			  struct ib_uverbs_create_srq_resp *resp, size_t resp_size);
int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		       int srq_attr_mask, struct abi34_cmd_modify_srq *cmd,
		       size_t cmd_size);
int ibv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		      struct abi34_cmd_query_srq *cmd, size_t cmd_size);
int ibv_cmd_destroy_srq(struct ibv_srq *srq);
int ibv_cmd_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad_wr);

int ibv_cmd_create_qp(struct ibv_pd *pd, struct ibv_qp *qp,
		      struct ibv_qp_init_attr *attr,
		      struct abi34_cmd_create_qp *cmd, size_t cmd_size,
		      struct ib_uverbs_create_qp_resp *resp, size_t resp_size);
int ibv_cmd_create_qp_ex(struct ibv_context *context, struct abi34_qp *qp,
			 struct ibv_qp_init_attr_ex *attr_ex,
			 struct abi34_cmd_create_qp *cmd, size_t cmd_size,
			 struct ib_uverbs_create_qp_resp *resp, size_t resp_size);
int ibv_cmd_open_qp(struct ibv_context *context, struct abi34_qp *qp,
		    int vqp_sz, struct ibv_qp_open_attr *attr,
		    struct abi34_cmd_open_qp *cmd, size_t cmd_size,
		    struct ib_uverbs_create_qp_resp *resp, size_t resp_size);
int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *qp_attr,
		     int attr_mask, struct ibv_qp_init_attr *qp_init_attr,
		     struct abi34_cmd_query_qp *cmd, size_t cmd_size);
int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask, struct abi34_cmd_modify_qp *cmd,
		      size_t cmd_size);
int ibv_cmd_destroy_qp(struct ibv_qp *qp);
int ibv_cmd_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr);

int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		      struct ibv_ah_attr *attr,
		      struct ib_uverbs_create_ah_resp *resp, size_t resp_size);
int ibv_cmd_destroy_ah(struct ibv_ah *ah);
int ibv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid);
int ibv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid);

/*
 * Reads <sysfs_dev->ibdev_path>/<printf(fnfmt, ...)> into buf, without the
 * trailing newline. Return: bytes read, or -1 with errno (sysfs.c).
 */
int ibv_read_ibdev_sysfs_file(char *buf, size_t size,
			      struct abi34_sysfs_dev *sysfs_dev,
			      const char *fnfmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Back from an object to its wrapper. */
#define abi34_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

static inline struct abi34_device *abi34_get_device(struct ibv_device *dev)
{
	return abi34_container_of(dev, struct abi34_device, device);
}

#ifdef __cplusplus
}
#endif

#endif /* XQP_PROVIDER_ABI34_H */
