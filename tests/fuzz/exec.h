// SPDX-License-Identifier: GPL-2.0
/*
 * The executor's own declarations, shared by its files (exec.c: processes,
 * actors, programs; exec_objects.c, exec_wr.c, exec_connect.c, exec_res.c,
 * exec_inject.c, exec_op.c: the ops by family). Nothing outside the
 * executor includes it.
 */
#ifndef XQP_FUZZ_EXEC_H
#define XQP_FUZZ_EXEC_H

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include <linux/netlink.h>
#include <rdma/ib_user_verbs.h>

#include "../lib/fault_knobs.h"
#include "../lib/netlink.h"
#include "fuzz.h"
#include "xqp_uverbs.h"
#include "xqp_res.h"

/* enum ib_qp_type values (uverbs passes them as they are) */
enum { QPT_RC = 2, QPT_UC = 3, QPT_UD = 4, QPT_XRC_INI = 9, QPT_XRC_TGT = 10 };
/* enum ib_qp_attr_mask */
enum {
	M_STATE = 1, M_SQD_NOTIFY = 1 << 2, M_ACCESS = 1 << 3, M_PKEY = 1 << 4, M_PORT = 1 << 5, M_QKEY = 1 << 6,
	M_AV = 1 << 7, M_MTU = 1 << 8, M_TIMEOUT = 1 << 9, M_RETRY = 1 << 10,
	M_RNR_RETRY = 1 << 11, M_RQ_PSN = 1 << 12, M_RD_ATOMIC = 1 << 13,
	M_MIN_RNR = 1 << 15, M_SQ_PSN = 1 << 16, M_DEST_RD_ATOMIC = 1 << 17,
	M_DEST_QPN = 1 << 20,
};
enum { QPS_RESET, QPS_INIT, QPS_RTR, QPS_RTS, QPS_SQD };
/* enum ib_send_flags */
enum { SEND_FENCE = 1, SEND_SIGNALED = 2, SEND_SOLICITED = 4, SEND_INLINE = 8 };
#define QKEY_A	0x11111111u
#define QKEY_B	0x22222222u

enum { T_PD, T_CQ, T_QP, T_SRQ, T_XRCD, T_MR, T_AH, T_MW, NT };
#define MAX_OBJ	12
#define MAX_COMP 4
#define BUF_PAGES 16
#define NPUB	32
#define NO_HANDLE 0xffffffffu

/*
 * What this file knows of an object. PDs and XRC domains get an id that is
 * unique in the program (an XRCD shared through an inode: the same id in
 * every file of that device), so that objects of the same PD or domain can
 * be found across files and actors.
 */
struct obj {
	uint32_t handle, num, lkey, rkey;
	uint64_t addr, va;		/* MR: its iova and its address here */
	uint32_t len;			/* MR: length */
	uint16_t id;			/* PD, XRCD: the program-wide id */
	uint16_t pd, xrcd;		/* the ids of the PD / XRCD it belongs to */
	uint32_t pd_h;			/* QP: its PD's handle in this file */
	uint8_t qp_type, xrc, dev;
	uint8_t send_sge, recv_sge, inline_ok;
	/* a QP that FZ_CONNECT or FZ_SETUP pointed at a peer */
	uint8_t connected, peer_dev, has_ah;
	uint16_t peer_pd, peer_xrcd;
	uint32_t peer_qpn, peer_ah;
};

struct ufile {
	int fd, async_fd, dev, ctx;
	int n[NT];
	struct obj o[NT][MAX_OBJ];
	int comp[MAX_COMP], ncomp;
};

struct actor {
	struct ufile f[FZ_FILES];
	int xrcd_fd[2];
	int nl_fd;		/* generic netlink socket, or -1 */
};

/* published for every actor of the program */
struct pub_qp { uint32_t qpn; uint16_t pd, xrcd; uint8_t type, dev; };
struct pub_mr { uint32_t rkey, len; uint64_t addr; uint16_t pd; uint8_t dev; };
struct pub_srq { uint32_t srqn; uint16_t pd, xrcd; uint8_t dev, xrc; };
struct prof { uint64_t ns, n; };

struct fz_shared {
	/* ---- per program: zeroed before each (up to `commands`) ---- */
	struct pub_qp qp[NPUB];
	struct pub_srq srq[NPUB];
	struct pub_mr mr[16];
	uint32_t nqp, nsrq, nmr;
	uint32_t next_id;	/* PD and private XRCD ids */
	uint32_t injected;	/* an FZ_INJECT ran: disarm after the program */
	uint32_t hotplugged;	/* an FZ_HOTPLUG ran: the device back after it */
	uint32_t linked;	/* what FZ_LINK ops changed: undone after the program */
	int32_t actor_pid[FZ_ACTORS];
	double t_fork, t_done;
	/* ---- for the whole run ---- */
	long commands;
};

/* the time accounts of every process, all procs together */
struct fz_prof_page {
	struct prof phase[FZ_PHASES], kind[FZ_OP_COUNT];
};

/*
 * A proc: one fork server and the programs it runs, one at a time, with its
 * own shared page, MR buffer, KCOV buffers and XRC domain files, so that
 * `procs` programs can run at once (the guest has 2 CPUs).
 */
struct proc {
	pid_t pid;		/* its fork server; 0: not started */
	int in, out;
	struct fz_shared *shared;
	uint8_t *mrbuf;
	double t_start;
	long before;		/* its commands when the program was submitted */
	int busy;
};

/* The executor's state (exec.c). */
extern struct proc procs[FZ_MAX_PROCS];
extern int nprocs;
extern int proc_index;		/* in a fork server and its processes */
extern struct fz_prof_page *prof;
extern struct fz_shared *shared;	/* in a fork server: its proc's */
extern uint8_t *mrbuf;		/* BUF_PAGES pages, same address in every actor */
extern __thread int fail_nth_fd;
extern int nl_family;		/* the xqp_res family's id; 0: not registered */
extern int fz_verbose;
extern const struct fz_op clean_op;	/* the sub-commands of composite ops */

/* exec.c */
void prof_add(struct prof *p, double since);
void count(void);
int cmd(int fd, uint32_t command, void *body, size_t len, uint32_t out_words,
	const struct fz_op *op);

/* exec_objects.c */
uint32_t handle_of(struct ufile *f, int t, uint8_t b);
struct obj *obj_of(struct ufile *f, int t, uint8_t b);
struct obj *named(struct ufile *f, int t, uint8_t b);
struct obj *add_obj(struct ufile *f, int t, struct obj o);
void remove_handle(struct ufile *f, int t, uint32_t h);
uint32_t pub_qpn(uint8_t b);
uint32_t pub_srqn(uint8_t b);
uint32_t pub_xsrqn(uint8_t b, uint16_t xrcd, uint8_t dev);
const struct pub_mr *pub_mr_of(uint8_t b, uint16_t pd, uint8_t dev);
uint32_t pick_u32(uint8_t b, const uint32_t *vals, int nvals);
void reset_file(struct ufile *f);
void close_file(struct ufile *f, int aux_too);
int open_file(struct ufile *f, int dev);
int get_context(struct ufile *f, const struct fz_op *op);
struct obj *alloc_pd(struct ufile *f, const struct fz_op *op, uint64_t response,
		     int *err);
struct obj *create_cq(struct ufile *f, const struct fz_op *op, uint64_t user_handle,
		      int cqe, int vector, int channel, int *err);
int create_channel(struct ufile *f, const struct fz_op *op);
struct obj *reg_mr_at(struct ufile *f, const struct fz_op *op, struct obj *pd,
		      uint32_t pd_h, uint64_t start, uint64_t length, uint64_t iova,
		      uint32_t access, int *err);
struct obj *create_qp_as(struct ufile *f, const struct fz_op *op,
			 struct ib_uverbs_create_qp *c, const struct obj *pd_or_xrcd,
			 int *err);
struct obj *create_xsrq(struct ufile *f, const struct fz_op *op,
			struct ib_uverbs_create_xsrq *c, const struct obj *pd,
			const struct obj *xrcd, int *err);
struct obj *open_xrcd(struct actor *ac, struct ufile *f, const struct fz_op *op,
		      int which, uint32_t oflags, int *err);
struct obj *create_ah(struct ufile *f, const struct fz_op *op, const struct obj *pd,
		      uint32_t pd_h, int port, int dlid, int global, int sl,
		      int hop_limit, int *err);

/* exec_wr.c */
int post_send(struct ufile *f, const struct fz_op *op);
int post_recv_on(struct ufile *f, const struct fz_op *op, int srq, uint32_t handle,
		 uint16_t pd, uint32_t nwr, uint8_t wqe_b, uint8_t nsge_b, uint8_t sel,
		 uint8_t shape);
int post_recv(struct ufile *f, const struct fz_op *op, int srq);
int reg_mr(struct ufile *f, const struct fz_op *op);
int alloc_mw(struct ufile *f, const struct fz_op *op);
int mcast(struct ufile *f, const struct fz_op *op);
/* publishes a range an rkey opens (an MR's, a window's) for remote ops */
void publish_mr(uint32_t rkey, uint32_t len, uint64_t addr, uint16_t pd, uint8_t dev);

/* exec_connect.c */
uint32_t conn_mask(int type, int state);
int connect_op(struct actor *ac, struct ufile *f, const struct fz_op *op);
int setup_op(struct actor *ac, struct ufile *f, const struct fz_op *op);

/* exec_res.c */
int nl_resolve(void);
int nl_res(struct actor *ac, const struct fz_op *op);

/* exec_inject.c */
void inject_discover(void);
void inject(const struct fz_op *op);
void exec_disarm(void);
void hotplug_write(const char *what);
void hotplug(const struct fz_op *op);

/* exec_link.c */
int link_op(const struct fz_op *op);
void link_restore(unsigned int what);

/* exec_op.c */
int run_op_timed(struct actor *ac, const struct fz_op *op);

extern int n_soft_ops;
extern __thread int cur_kind, cur_index;	/* the op running (exec_op.c), for the fault report */

#endif /* XQP_FUZZ_EXEC_H */
