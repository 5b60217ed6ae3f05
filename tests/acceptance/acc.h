/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The acceptance suite's harness. Every case runs in its own process (and
 * forks more where the scenario needs several), once per device under test.
 * A case records what it observed as named tokens ("name=VALUE"); the set
 * of tokens is the case's signature, compared between xqp's device and
 * Linux's. EXPECT() also checks the value xqp must give (the spec); on
 * Linux's device only the comparison counts.
 */
#ifndef XQP_ACC_H
#define XQP_ACC_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <rdma/ib_user_verbs.h>

#include "xqpverbs.h"

struct acc_case {
	const char *name;
	void (*fn)(void);
	const char *divergence;	/* why xqp and Linux differ here, or NULL */
	int flags;
};

#define ACC_XQP_ONLY	1	/* needs xqp's test hooks: not run on Linux */
#define ACC_REMOVAL	2	/* unloads the device module: run last, alone */

/* The device under test (set by the runner before a case starts). */
extern const char *g_dev;
extern int g_is_xqp;
extern const char *g_soft_module;	/* module to unload in ACC_REMOVAL cases */

/* Records token "@name=@value" (any process of the case may call it). */
void acc_token(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Records a failed expectation (fails the case on xqp). */
void acc_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Informational line shown with -v. */
void acc_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

const char *errname(int err);	/* "0", "EINVAL", ... */

/* Token + check: @got and @want are errno values (0 = success). */
#define EXPECT(name, got, want) acc_expect_err(name, got, want, __FILE__, __LINE__)
void acc_expect_err(const char *name, int got, int want, const char *file, int line);
/* Token + check for plain integers. */
#define EXPECT_INT(name, got, want) acc_expect_int(name, (long long)(got), (long long)(want), __FILE__, __LINE__)
void acc_expect_int(const char *name, long long got, long long want, const char *file, int line);
/* Check only, no token (for values that legitimately differ: QP numbers). */
#define CHECK(cond, ...) do { if (!(cond)) acc_fail(__VA_ARGS__); } while (0)

/* errno of a pointer-returning call. */
#define PERR(p) ((p) ? 0 : errno)

/* ---- helpers ---------------------------------------------------------- */
struct xqpv_context *open_ctx(void);	/* fails the case on error */

/* Raw write of hdr + body; hdr words computed unless overridden (-1). */
int raw_cmd(int fd, uint32_t command, const void *body, size_t body_len,
	    int in_words, int out_words);
/* Raw write of exactly @len bytes from @buf. */
int raw_write(int fd, const void *buf, size_t len);

/* A file every process of the case can open (shared inode). */
const char *case_file(const char *tag);

/* XRCD on @path (NULL: private) with @oflags; errno in *err. */
struct xqpv_xrcd *open_xrcd_path(struct xqpv_context *ctx, const char *path,
				int oflags, int *err);
struct xqpv_qp *create_tgt(struct xqpv_context *ctx, struct xqpv_xrcd *xrcd);
struct xqpv_qp *open_tgt(struct xqpv_context *ctx, struct xqpv_xrcd *xrcd,
			uint32_t qpn, int *err);
/* XRCD as open_xrcd_path() (into *@xrcd if not NULL), then a target QP in
 * it: the QP, or NULL with errno. */
struct xqpv_qp *open_xrcd_tgt(struct xqpv_context *ctx, const char *path, int oflags,
			     struct xqpv_xrcd **xrcd);
/* RC QP on @pd, @cq for both queues, 1 send WR of 1 SGE. */
struct xqpv_qp *create_rc(struct xqpv_context *ctx, struct xqpv_pd *pd, struct xqpv_cq *cq);
/* XRC SRQ in @xrcd on @pd and @cq, 4 WRs of 1 SGE. */
struct xqpv_srq *create_xrc_srq(struct xqpv_context *ctx, struct xqpv_pd *pd,
			       struct xqpv_xrcd *xrcd, struct xqpv_cq *cq);

/* Raw commands, as raw_cmd(): 0 or errno. */
int query_device_raw(int fd, struct ib_uverbs_query_device_resp *resp);
int dealloc_pd_raw(int fd, uint32_t handle);
/* @resp may be NULL (the response is not kept). */
int query_qp_raw(int fd, uint32_t handle, struct ib_uverbs_query_qp_resp *resp);
/* @events_reported may be NULL. */
int destroy_qp_raw(int fd, uint32_t handle, uint32_t *events_reported);
int destroy_cq_raw(int fd, uint32_t handle, uint32_t *events_reported);
int destroy_srq_raw(int fd, uint32_t handle, uint32_t *events_reported);

/* Processes: fork @fn(@arg); wait for one; the exit status is checked. */
pid_t spawn(void (*fn)(void *), void *arg);
int reap(pid_t pid);	/* returns the exit code, 128+sig if killed */

/* Tiny pipe channel to pass numbers between processes. */
struct chan {
	int fd[2];
};
void chan_init(struct chan *c);
void chan_send(struct chan *c, uint32_t v);
uint32_t chan_recv(struct chan *c);	/* 0xffffffff on EOF */

/* A child process of the case that joins the XRCD on @path and obeys
 * numbered commands: one channel each way. */
struct peer {
	const char *path;	/* the XRCD's file */
	struct chan to, from;	/* parent -> child, child -> parent */
	const char *tag;
};
void peer_init(struct peer *p, const char *path, const char *tag);
uint32_t peer_ask(struct peer *p, uint32_t cmd);	/* sends @cmd, returns the reply */

/* Raises @event on @qp: xqp's ioctl; on Linux the reference device's
 * debugfs hook if present. Returns 0 or errno (ENOTTY: no hook). */
int raise_event(struct xqpv_qp *qp, enum xqpv_event_type event);
/* The same for @cq (on Linux: through @qp, a QP whose send CQ is @cq) and
 * for @srq (on Linux: XRC SRQs only, by number). */
int raise_cq_event(struct xqpv_cq *cq, struct xqpv_qp *qp, enum xqpv_event_type event);
int raise_srq_event(struct xqpv_srq *srq, enum xqpv_event_type event);

/* Reads one async event within @ms (errno ETIMEDOUT if none). */
int get_event(struct xqpv_context *ctx, struct xqpv_async_event *ev, int ms);
/* The number after "@key:" in this process's /proc/self/fdinfo/@fd; -1 if none. */
long long fdinfo_value(int fd, const char *key);

/*
 * Live driver objects of the soft devices (their debugfs "counts" files),
 * listed as "xqp_soft0 qp 1, ..." in @what; -1 when no device has the file.
 */
long soft_objects(char *what, size_t n);
/* Arms the soft device behind g_dev to fail an op ("OP ERRNO [AFTER]", debugfs inject): 0 or errno. */
int soft_inject(const char *cmd);
/* The same for the lines of kind @which only (NULL: all); @what may be NULL. */
long soft_count(const char *which, char *what, size_t n);

/* Case tables (cases_*.c). */
extern const struct acc_case acc_cases_abi[];
extern const struct acc_case acc_cases_objects[];
extern const struct acc_case acc_cases_xrcd[];
extern const struct acc_case acc_cases_shared[];
extern const struct acc_case acc_cases_events[];
extern const struct acc_case acc_cases_stress[];
extern const struct acc_case acc_cases_traffic[];
extern const struct acc_case acc_cases_errors[];
extern const struct acc_case acc_cases_channel[];
extern const struct acc_case acc_cases_raw[];
extern const struct acc_case acc_cases_refusals[];
extern const struct acc_case acc_cases_removal[];

#endif
