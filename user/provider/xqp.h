/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * libxqp-rdmav34.so: xqp's provider for Debian's libibverbs (private ABI
 * 34, declared in abi34.h). Design: docs/provider.md. The provider claims
 * the discovery-only ib_devices that xqp_ibdev.ko registers (their sysfs
 * parent is an xqp_uverbs class device), and speaks to /dev/xqp/uverbsN
 * for every verb: the control path through libibverbs' ibv_cmd_* helpers,
 * POST_SEND and POLL_CQ itself (post.c, cq.c, through user/wire), the ibv_qp_ex builders and
 * the ibv_cq_ex poller on top of them.
 *
 * Everything here is internal (hidden visibility); the shared object
 * exports nothing, it only registers itself from a constructor.
 */
#ifndef XQP_PROVIDER_XQP_H
#define XQP_PROVIDER_XQP_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "abi34.h"
#include "../../uapi/xqp_uverbs.h"

#define XPROV_HIDDEN __attribute__((visibility("hidden")))

/* The provider's uverbs ABI (the discovery ib_device's ops.uverbs_abi_ver). */
#define XQP_PROVIDER_ABI	1
/* Where the command nodes live (devtmpfs name xqp/uverbsN). */
#define XPROV_DEFAULT_DEV_DIR	XQP_UVERBS_DEV_DIR
/* Overrides XPROV_DEFAULT_DEV_DIR (tests; ignored for setuid programs). */
#define XPROV_DEV_DIR_ENV		"XQP_PROVIDER_DEV_DIR"

struct xprov_device {
	struct abi34_device vdev;	/* first: libibverbs frees through it */
	char node[PATH_MAX];		/* /dev/xqp/uverbsN */
	dev_t rdev;			/* what node must be */
};

struct xprov_context {
	struct verbs_context vctx;
};

struct xprov_pd {
	struct ibv_pd pd;
};

struct xprov_mr {
	struct abi34_mr vmr;
};

struct xprov_ah {
	struct ibv_ah ah;
};

struct xprov_xrcd {
	struct abi34_xrcd vxrcd;
};

struct xprov_srq {
	struct abi34_srq vsrq;
};

/* Completions fetched by one POLL_CQ, for the ibv_cq_ex poller. */
#define XPROV_CQ_BATCH	32

struct xprov_cq {
	struct abi34_cq vcq;
	pthread_mutex_t lock;		/* the batch; held from start_poll to end_poll */
	uint64_t wc_flags;		/* as asked at create_cq_ex */
	unsigned int head, count;	/* batch[head..count) not yet consumed */
	const struct ib_uverbs_wc *cur;	/* the ibv_cq_ex's current completion */
	struct ib_uverbs_wc batch[XPROV_CQ_BATCH];
};

/* One WR built through ibv_qp_ex, waiting for wr_complete(). */
struct xprov_pending_wr {
	struct xqp_uverbs_send_wr k;	/* num_sge filled at set_sge* time */
	uint32_t first_sge;		/* into xprov_qp.sges */
	bool inline_data;		/* SGE addrs are offsets into xprov_qp.inl */
	bool has_data;			/* set_sge* or set_inline* was called */
	bool ud_set;			/* set_ud_addr was called */
};

struct xprov_qp {
	struct abi34_qp vqp;		/* first: ibv_qp / ibv_qp_ex */
	enum ibv_qp_type type;
	uint32_t max_inline;		/* granted at create */
	uint32_t max_send_sge;
	uint64_t send_ops;		/* IBV_QP_EX_WITH_* allowed */
	/* ibv_qp_ex builder state, between wr_start and wr_complete/abort */
	pthread_mutex_t wr_lock;
	int wr_err;			/* first error of this batch */
	struct xprov_pending_wr *wrs;
	size_t nwr, wr_cap;
	struct ib_uverbs_sge *sges;
	size_t nsge, sge_cap;
	unsigned char *inl;		/* copies of inline data */
	size_t inl_len, inl_cap;
};

static inline struct xprov_device *to_xdev(struct ibv_device *d)
{
	return abi34_container_of(abi34_get_device(d), struct xprov_device, vdev);
}

static inline struct xprov_qp *to_xqp(struct ibv_qp *qp)
{
	return abi34_container_of(qp, struct xprov_qp, vqp.qp);
}

static inline struct xprov_qp *qpex_to_xqp(struct ibv_qp_ex *qpx)
{
	return abi34_container_of(qpx, struct xprov_qp, vqp.qp_ex);
}

static inline struct xprov_cq *to_xcq(struct ibv_cq *cq)
{
	return abi34_container_of(cq, struct xprov_cq, vcq.cq);
}

static inline struct xprov_cq *cqex_to_xcq(struct ibv_cq_ex *cq)
{
	return abi34_container_of(cq, struct xprov_cq, vcq.cq_ex);
}

/* The device ops the constructor registers (xqp.c); tests use them too. */
extern const struct abi34_device_ops xprov_device_ops XPROV_HIDDEN;

/* post.c */
int xprov_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr) XPROV_HIDDEN;
int xprov_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *mw_bind) XPROV_HIDDEN;
/* Sets up the ibv_qp_ex members for @send_ops (IBV_QP_EX_WITH_*). */
void xprov_qp_ex_init(struct xprov_qp *qp) XPROV_HIDDEN;
void xprov_qp_ex_free(struct xprov_qp *qp) XPROV_HIDDEN;
/* The IBV_QP_EX_WITH_* bits the builders implement. */
#define XPROV_SUPPORTED_SEND_OPS						\
	(IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |	\
	 IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |		\
	 IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |	\
	 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_BIND_MW |	\
	 IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_SEND_WITH_INV)

/* cq.c */
int xprov_poll_cq(struct ibv_cq *cq, int ne, struct ibv_wc *wc) XPROV_HIDDEN;
struct ibv_cq *xprov_create_cq(struct ibv_context *ctx, int cqe,
			     struct ibv_comp_channel *channel, int comp_vector) XPROV_HIDDEN;
struct ibv_cq_ex *xprov_create_cq_ex(struct ibv_context *ctx,
				   struct ibv_cq_init_attr_ex *attr) XPROV_HIDDEN;
int xprov_destroy_cq(struct ibv_cq *cq) XPROV_HIDDEN;
/* The wc_flags create_cq_ex accepts. */
#define XPROV_SUPPORTED_WC_FLAGS	((uint64_t)IBV_WC_STANDARD_FLAGS)

#endif /* XQP_PROVIDER_XQP_H */
