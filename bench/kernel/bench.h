/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xqp_bench: xqp's core and Linux's ib_core side by side in one kernel.
 *
 * Each implementation is one "side" (side_xqp.c: xqp on a soft device of its
 * own; side_linux.c: ib_core on a reference device of its own). A side
 * offers the same primitives and the same timed loops, generated for both
 * from one template (bench_side.h) so that the loops are identical code and
 * call each implementation's verbs directly, never through a pointer per op.
 * bench_main.c runs the metrics (run.h), alternating the sides in rounds.
 *
 * Kernel C; side_xqp.c sees only xqp's headers, side_linux.c only Linux's
 * RDMA headers.
 */
#ifndef XQP_BENCH_H
#define XQP_BENCH_H

#include <linux/types.h>

struct bk_dev;			/* a side's device + XRCD */

/* What an event handler counts, one per share (or shared, see users). */
struct bk_hctx {
	unsigned long events;
};

struct bk_side {
	const char *name;	/* "xqp", "linux" */

	/* A fresh device and one XRCD on it. ERR_PTR on failure. */
	struct bk_dev *(*dev_create)(void);
	/*
	 * Deallocates the XRCD and the device. Return: 0, or how many objects
	 * could not be freed / were still alive in the driver (> 0), or an
	 * error (< 0).
	 */
	int (*dev_destroy)(struct bk_dev *d);
	/* Driver QPs alive on the device now. */
	u32 (*live_qps)(struct bk_dev *d);
	/* The XRCD's usecnt (real XRC_TGT QPs). */
	u32 (*xrcd_usecnt)(struct bk_dev *d);

	/* One XRC_TGT QP, returned as its creator's share. */
	int (*qp_create)(struct bk_dev *d, struct bk_hctx *c, void **h, u32 *qpn);
	/* Destroys a share (the last one destroys the QP). */
	int (*qp_destroy)(void *h);
	int (*h_open)(struct bk_dev *d, u32 qpn, struct bk_hctx *c, void **h);
	int (*h_close)(void *h);
	/* Bytes the share's allocations take (ksize). */
	size_t (*h_bytes)(void *h);
	/* Prints bench-kernel-info: lines about the side's object sizes. */
	void (*info)(void);
	/* One COMM_EST event on QP @qpn, raised as its driver raises events. */
	int (*raise)(struct bk_dev *d, u32 qpn);

	/* Timed loops. Return 0 or the first error; *ns: the elapsed time. */
	int (*loop_open_close)(struct bk_dev *d, u32 qpn, u32 n, u64 *ns);
	/* Open + close, cycling through @qpns with a stride (see bench_side.h). */
	int (*loop_open_close_walk)(struct bk_dev *d, const u32 *qpns, u32 nq,
				    u32 n, u64 *ns);
	int (*loop_create_destroy)(struct bk_dev *d, u32 n, u64 *ns);
	int (*loop_raise)(struct bk_dev *d, u32 qpn, u32 n, u64 *ns);
	/*
	 * @n open + close pairs on @qpn, each timed alone into @lat[i] (ns);
	 * stops early (returns -EINTR) when *@abort becomes true.
	 */
	int (*sample_open_close)(struct bk_dev *d, u32 qpn, u32 n, u32 *lat,
				 const bool *abort);
	/*
	 * @nq XRC_TGT QPs left in the XRCD without a share (created, then the
	 * creator's share closed); their numbers in @qpns. *@made: how many
	 * exist, also on failure (depopulate them).
	 */
	int (*populate)(struct bk_dev *d, u32 *qpns, u32 nq, u32 *made);
	/* Destroys them: open a share, destroy it (the last). */
	int (*depopulate)(struct bk_dev *d, const u32 *qpns, u32 nq);
};

extern const struct bk_side bk_side_xqp;
extern const struct bk_side bk_side_linux;

/* The stride of loop_open_close_walk: a prime no population size shares. */
#define BK_WALK_STRIDE	611953U

#endif /* XQP_BENCH_H */
