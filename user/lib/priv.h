/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * libxqpverbs internals shared by verbs.c (devices, control path), cq.c,
 * mr.c and post.c (the data path). Not installed.
 */
#ifndef XQPVERBS_PRIV_H
#define XQPVERBS_PRIV_H

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/ib_user_verbs.h>

#include "xqpverbs.h"
#include "xqp_uverbs.h"

static inline int fail(int err)
{
	errno = err;
	return err;
}

static inline void *fail_ptr(int err)
{
	errno = err;
	return NULL;
}

/*
 * Writes header + @cmd (@cmd_len bytes, a multiple of 4, at most 512); the
 * response, if any, lands where @cmd's leading `response` field points (set
 * by the caller). Return: 0 or errno.
 */
int xqpi_exec_cmd(struct xqpv_context *ctx, uint32_t command, const void *cmd,
		  size_t cmd_len, size_t resp_len);

/*
 * The same for a command of any size already laid out in @buf after
 * sizeof(struct ib_uverbs_cmd_hdr) free bytes, which this fills in:
 * @total bytes in all (header included). EINVAL past the legacy header's
 * 16-bit word counts.
 */
int xqpi_write_cmd(struct xqpv_context *ctx, uint32_t command, void *buf,
		   size_t total, size_t resp_len);

#define RESP(r) ((uint64_t)(uintptr_t)(r))

/*
 * xqpi_exec_cmd() of a command struct *@cmd with a leading `response`
 * field and its response struct *@resp: zeroes @resp, points @cmd's
 * `response` at it and takes both lengths from the types.
 */
#define exec_resp(ctx, command, cmd, resp)					\
	(memset((resp), 0, sizeof(*(resp))), (cmd)->response = RESP(resp),	\
	 xqpi_exec_cmd((ctx), (command), (cmd), sizeof(*(cmd)), sizeof(*(resp))))

/*
 * For a command that makes an object: when it failed (@err non-zero),
 * frees the object allocated for it and sets errno; returns @err.
 */
static inline int free_on_err(void *obj, int err)
{
	if (err) {
		free(obj);
		errno = err;
	}
	return err;
}

/*
 * rdma-core's verbs_is_destroy_err(): after device removal the kernel's
 * objects are gone already, so EIO from a destroy means "destroyed".
 */
static inline int destroy_err(int err)
{
	return err == EIO ? 0 : err;
}

/*
 * An object's count of the async events the user acknowledged, with the
 * lock and condition that guard it (libibverbs' scheme). A CQ's completion
 * events count under the same lock (struct xqpv_cq.comp_events_completed).
 */
struct event_acks {
	pthread_mutex_t *mutex;
	pthread_cond_t *cond;
	uint32_t *completed;
};

static inline struct event_acks cq_acks(struct xqpv_cq *cq)
{
	return (struct event_acks){ &cq->mutex, &cq->cond, &cq->async_events_completed };
}

static inline void acks_init(struct event_acks a)
{
	pthread_mutex_init(a.mutex, NULL);
	pthread_cond_init(a.cond, NULL);
}

/* @n more events acknowledged. */
static inline void acks_add(struct event_acks a, uint32_t n)
{
	pthread_mutex_lock(a.mutex);
	*a.completed += n;
	pthread_cond_broadcast(a.cond);
	pthread_mutex_unlock(a.mutex);
}

/*
 * DESTROY_CQ, DESTROY_QP or DESTROY_SRQ (@command) of @handle, then waits
 * until the user acknowledged every async event the kernel says it
 * reported for the object and, for a CQ (@comp_completed, under the same
 * lock), every completion event; then destroys the lock and condition.
 */
int xqpi_destroy_acked(struct xqpv_context *ctx, uint32_t command, uint32_t handle,
		       struct event_acks acks, uint32_t *comp_completed);

/*
 * DEALLOC_PD, CLOSE_XRCD, DEREG_MR, DESTROY_AH (@command) of @handle; on
 * success the library's object @obj goes too (free()). Return: 0 or errno.
 */
int xqpi_destroy_plain(struct xqpv_context *ctx, uint32_t command, uint32_t handle, void *obj);

#endif
