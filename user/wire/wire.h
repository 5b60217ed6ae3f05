/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The userspace wire layer: the only code that lays out write()s to
 * /dev/xqp/uverbsN (the uverbs write ABI, uapi/xqp_uverbs.h): the header
 * and its limits, POST_SEND / POST_RECV / POST_SRQ_RECV of a WR list in as
 * few writes as carry it with the kernel's bad_wr mapped back to the WR,
 * and POLL_CQ. libxqpverbs (user/lib) and the provider (user/provider)
 * link it. The fuzzer does not: it writes malformed commands on purpose,
 * from the uapi declarations alone.
 *
 * Errors are errno values (0 for success); nothing here sets errno.
 */
#ifndef XQP_USER_WIRE_H
#define XQP_USER_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "xqp_uverbs.h"

/* The header counts 32-bit words in 16 bits, both ways. */
#define XQP_WIRE_MAX_WRITE	((size_t)0xffff * 4)
#define XQP_WIRE_HDR_LEN	sizeof(struct ib_uverbs_cmd_hdr)

/*
 * Bytes of a POST_SEND, POST_RECV or POST_SRQ_RECV (one layout) of @nwr
 * WQEs of @wqe bytes and @nsge SGEs, the header included.
 */
#define XQP_WIRE_POST_LEN(wqe, nwr, nsge)						\
	(XQP_WIRE_HDR_LEN + sizeof(struct ib_uverbs_post_send) + (nwr) * (wqe) +	\
	 (nsge) * sizeof(struct ib_uverbs_sge))

/* The most completions one POLL_CQ response carries. */
#define XQP_WIRE_POLL_MAX								\
	((XQP_WIRE_MAX_WRITE - sizeof(struct ib_uverbs_poll_cq_resp)) /			\
	 sizeof(struct ib_uverbs_wc))

/* The opcodes @prefix##RDMA_WRITE ... are the kernel's (IBV_WR_, XQPV_WR_). */
#define XQP_WIRE_ASSERT_WR_OPCODES(prefix)						\
	_Static_assert((int)prefix##RDMA_WRITE == (int)IB_UVERBS_WR_RDMA_WRITE &&	\
		       (int)prefix##RDMA_WRITE_WITH_IMM ==				\
		       (int)IB_UVERBS_WR_RDMA_WRITE_WITH_IMM &&				\
		       (int)prefix##SEND == (int)IB_UVERBS_WR_SEND &&			\
		       (int)prefix##SEND_WITH_IMM == (int)IB_UVERBS_WR_SEND_WITH_IMM &&	\
		       (int)prefix##RDMA_READ == (int)IB_UVERBS_WR_RDMA_READ &&		\
		       (int)prefix##ATOMIC_CMP_AND_SWP ==				\
		       (int)IB_UVERBS_WR_ATOMIC_CMP_AND_SWP &&				\
		       (int)prefix##ATOMIC_FETCH_AND_ADD ==				\
		       (int)IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD,				\
		       #prefix "* are not the IB_UVERBS_WR_* opcodes")

/**
 * xqp_wire_write - one command: the header at the start of @buf filled in,
 * the @len bytes written to @fd.
 * @resp_len: the response's bytes (the command's `response` points at it).
 *
 * Return: 0; EINVAL for lengths the header cannot carry (not a multiple of
 * 4, or past XQP_WIRE_MAX_WRITE); the write's errno; EIO for a short write.
 */
int xqp_wire_write(int fd, uint32_t command, void *buf, size_t len, size_t resp_len);

/*
 * A WR list as its owner's types link it, read through these (@arg is the
 * list's own): the layer knows no WR struct.
 */
struct xqp_wire_list {
	/* The WR after @wr; NULL at the end. */
	const void *(*next)(const void *wr, const void *arg);
	/* @wr's SGE count, or -1 for a WR refused before any write. */
	int (*num_sge)(const void *wr, const void *arg);
	/*
	 * @wr's WQE at @wqe (zeroed, wqe_size bytes), its SGEs at @sge;
	 * returns how many SGEs it wrote (its num_sge).
	 */
	int (*lay)(void *wqe, struct ib_uverbs_sge *sge, const void *wr, const void *arg);
	const void *arg;
};

/**
 * xqp_wire_post - POST_SEND, POST_RECV or POST_SRQ_RECV (@command) of the
 * list from @first on the QP or SRQ @handle, WQEs of @wqe_size bytes, in as
 * few write()s as carry it.
 * @bad: set to the first WR not posted on failure, NULL on success.
 *
 * Return: 0; or the kernel's errno for the WR it named (those before it are
 * posted, a write() at a time: a failure in a later write still names the
 * right WR); EINVAL for a WR the list refuses, or one no write can carry
 * (more SGEs than any device takes); ENOMEM when no buffer could be had.
 */
int xqp_wire_post(int fd, uint32_t command, uint32_t handle, size_t wqe_size,
		  const struct xqp_wire_list *list, const void *first, const void **bad);

/**
 * xqp_wire_poll_cq - one POLL_CQ of at most @ne completions of @cq_handle.
 * @resp: the response, with room for @ne WCs after it (resp->wc[]).
 * @ne: at most XQP_WIRE_POLL_MAX.
 *
 * Return: the completions in resp->wc[], or -errno (-EIO when the kernel
 * answers more than were asked for, -EINVAL for @ne too large).
 */
int xqp_wire_poll_cq(int fd, uint32_t cq_handle, struct ib_uverbs_poll_cq_resp *resp,
		     unsigned int ne);

#endif /* XQP_USER_WIRE_H */
