/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xqp-fuzz: a coverage-guided fuzzer of /dev/xqp/uverbsN, run in the guest.
 *
 * A program is a sequence of fixed-size ops (struct fz_op). An op names the
 * actor (process) that runs it, the uverbs file it uses and a command; its
 * argument bytes are resolved against what earlier responses returned
 * (handles, QP and SRQ numbers, keys), so almost every byte string is a
 * meaningful program and mutations keep their meaning. The manager process
 * never touches the device: a small fork server forks a fresh executor
 * process (actor 0) for every program, which forks the other actors on
 * demand. Coverage comes from KCOV, one buffer per actor, filtered to xqp's
 * modules.
 */
#ifndef XQP_FUZZ_H
#define XQP_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#define FZ_ARGS		13
struct fz_op {
	uint8_t actor;		/* % FZ_ACTORS */
	uint8_t kind;		/* % FZ_OP_COUNT */
	uint8_t file;		/* % FZ_FILES; bit 7: fail the next allocation(s) */
	uint8_t a[FZ_ARGS];
};

#define FZ_MAX_OPS	128	/* a file may hold fewer; older ones held at most 64 */
struct fz_prog {
	int n;
	struct fz_op op[FZ_MAX_OPS];
};

#define FZ_ACTORS	4
#define FZ_FILES	3
#define FZ_MAX_PROCS	4	/* programs run at once (--procs) */

enum fz_kind {
	FZ_OPEN, FZ_CLOSE, FZ_GET_CONTEXT, FZ_QUERY_DEVICE, FZ_QUERY_PORT,
	FZ_ALLOC_PD, FZ_DEALLOC_PD, FZ_CREATE_AH, FZ_DESTROY_AH,
	FZ_REG_MR, FZ_DEREG_MR, FZ_CREATE_COMP_CHANNEL, FZ_CREATE_CQ,
	FZ_RESIZE_CQ, FZ_DESTROY_CQ, FZ_POLL_CQ, FZ_REQ_NOTIFY_CQ,
	FZ_CREATE_QP, FZ_QUERY_QP, FZ_MODIFY_QP, FZ_DESTROY_QP,
	FZ_POST_SEND, FZ_POST_RECV, FZ_POST_SRQ_RECV,
	FZ_CREATE_SRQ, FZ_CREATE_XSRQ, FZ_MODIFY_SRQ, FZ_QUERY_SRQ, FZ_DESTROY_SRQ,
	FZ_OPEN_XRCD, FZ_CLOSE_XRCD, FZ_OPEN_QP,
	FZ_READ_ASYNC, FZ_READ_COMP, FZ_CLOSE_AUX, FZ_RAISE_EVENT, FZ_INJECT,
	FZ_RAW, FZ_FORK, FZ_KILL, FZ_RACE,
	/* appended: older reproducers keep their meaning */
	FZ_CONNECT,	/* two QPs of earlier responses to RTS, pointed at each other */
	FZ_SETUP,	/* PD, CQ, MR, a QP pair of one type, connected, receives posted */
	FZ_NL_RES,	/* a request to the xqp_res generic netlink family */
	FZ_AUX_FD,	/* poll, epoll, O_ASYNC, fdinfo or a blocking read of an event fd */
	FZ_HOTPLUG,	/* the second soft device removed or made again */
	FZ_VERBS_IOCTL,	/* RDMA_VERBS_IOCTL: the GID queries, damaged now and then */
	FZ_LINK,	/* an xqp link added or deleted, its netdev's addresses, carrier, MTU */
	FZ_ALLOC_MW, FZ_DEALLOC_MW,	/* memory windows (bound by POST_SEND's BIND_MW) */
	FZ_ATTACH_MCAST, FZ_DETACH_MCAST,	/* UD multicast groups (sends to them: POST_SEND) */
	FZ_OP_COUNT
};
extern const char *const fz_kind_name[FZ_OP_COUNT];

/* ---- random numbers (xorshift64*, seeded) -------------------------------- */
uint64_t fz_rand(void);
void fz_srand(uint64_t seed);
static inline uint32_t fz_below(uint32_t n) { return n ? (uint32_t)(fz_rand() % n) : 0; }

/* ---- programs (prog.c) ----------------------------------------------------- */
/* 0: generated and mutated programs get no FZ_HOTPLUG op (--hotplug 0) */
extern int fz_hotplug;
/* FZ_LINK's weight among the ops (--links N, default 1; 0: none) */
extern int fz_links;
void fz_generate(struct fz_prog *p, int nops);
void fz_mutate(struct fz_prog *p, const struct fz_prog *other);
/* bytes <-> program: a whole number of ops, at most FZ_MAX_OPS */
size_t fz_encode(const struct fz_prog *p, uint8_t *buf, size_t cap);
int fz_decode(struct fz_prog *p, const uint8_t *buf, size_t len);
int fz_load_file(struct fz_prog *p, const char *path);

/* ---- coverage (cover.c): FZ_ACTORS buffers for each of `procs` ------------- */
int fz_cover_init(const char *sections_file, int procs);	/* 0, or -1: no KCOV */
int fz_cover_available(void);
void fz_cover_enable(int slot);			/* in actor slot % FZ_ACTORS of proc slot / FZ_ACTORS */
void fz_cover_reset(int proc);			/* manager, before a program of `proc` */
/* manager, after a program of `proc`: PCs of xqp's modules seen; returns how many are new */
int fz_cover_collect(int proc);
void fz_cover_report(void);			/* prints FUZZ-COV lines */
long fz_cover_distinct(void);

/* ---- execution (exec.c) ---------------------------------------------------- */
struct fz_shared;	/* what the actors publish for each other */
int fz_exec_init(int procs);	/* `procs` fork servers, programs run at once */
/*
 * fz_exec_submit() hands the program to fork server `proc` (idle), which
 * runs it in a fresh executor process; fz_exec_wait() waits until one of
 * the busy ones is done, says which, adds its commands and returns 0, 1 if
 * the executor died of a signal, or -1 on a hang (that fork server and its
 * processes killed). fz_exec() is both, for proc 0.
 */
int fz_exec_submit(int proc, const struct fz_prog *p);	/* 0, or -1: not started */
int fz_exec_wait(int *proc, long *commands);
int fz_exec(const struct fz_prog *p, long *commands);

/* ---- where the time goes (exec.c) ------------------------------------------ */
enum fz_phase {
	FZ_PH_GENERATE,		/* manager: generating or mutating a program */
	FZ_PH_EXEC,		/* manager: from sending a program to its "done" */
	FZ_PH_COLLECT,		/* manager: reading the KCOV buffers */
	FZ_PH_KMSG,		/* manager: reading /dev/kmsg */
	FZ_PH_OUTPUT,		/* manager: printing FUZZ-NEW lines */
	FZ_PH_FORK,		/* fork server's fork() to the executor's first op */
	FZ_PH_OPS,		/* executor: the program's ops */
	FZ_PH_TEARDOWN,		/* executor: actors killed, files closed */
	FZ_PH_REAP,		/* executor's exit until the fork server has reaped it */
	FZ_PHASES
};
double fz_now(void);
void fz_prof(int phase, double since);	/* adds fz_now() - since to the phase */
void fz_prof_report(void);		/* prints FUZZ-PROF lines */

#endif
