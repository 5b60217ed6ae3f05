// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * A driver that refuses to destroy an object when the response of the
 * command that created it cannot be written, or when its file is closed
 * (docs/reliability.md, "Defects found by reading the code", 1 and 3).
 * Before their fix both freed the object under the core's handle (the
 * next event of the shared QP used freed memory) and left the XRCD that
 * could never be closed, its inode held; the cases check each of those.
 * The core's side: tests/host/test_driver_gone.cpp.
 *
 * The refusal comes from the soft device's debugfs hook
 * (drivers/soft/soft_main.c): xqp only. refused_stray_inode_xrcd is defect
 * 5's fix (the same section) seen through an inode's XRCD, which the fault sweep found;
 * refused_open_xrcd_unwind the same rule on OPEN_XRCD's error path, which the fuzzer found.
 */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "acc.h"
#include "../lib/fault_knobs.h"

/*
 * How long to wait before touching what a buggy teardown would have freed:
 * the uobjs go through kfree_rcu(), whose batches are freed up to 5 s
 * later (KFREE_DRAIN_JIFFIES); after that KASAN sees any use of them.
 */
#define FREE_DELAY_S	7

/* acc.h */
int soft_inject(const char *cmd)
{
	const char *slash = strrchr(g_dev, '/');
	char path[256], ibdev[64] = "";
	FILE *f;
	int fd, err;

	snprintf(path, sizeof(path), "/sys/class/xqp_uverbs/%s/ibdev",
		 slash ? slash + 1 : g_dev);
	f = fopen(path, "r");
	if (!f)
		return errno;
	if (!fgets(ibdev, sizeof(ibdev), f))
		ibdev[0] = '\0';
	fclose(f);
	ibdev[strcspn(ibdev, "\n")] = '\0';
	snprintf(path, sizeof(path), "/sys/kernel/debug/xqp_soft/%s/inject", ibdev);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return errno;
	err = write(fd, cmd, strlen(cmd)) < 0 ? errno : 0;
	close(fd);
	return err;
}

/* One raw event from @ctx's async fd within @ms: 0 or errno. */
static int read_event_raw(struct xqpv_context *ctx, struct ib_uverbs_async_event_desc *d,
			  int ms)
{
	struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };

	if (poll(&p, 1, ms) != 1)
		return ETIMEDOUT;
	return read(ctx->async_fd, d, sizeof(*d)) == (ssize_t)sizeof(*d) ? 0 : errno;
}

/*
 * Defect 1: CREATE_QP's response cannot be written (read-only memory) and
 * the driver refuses to destroy the new QP again. As Linux
 * (rdma_alloc_abort_uobject()), the object is then committed under the
 * handle the command reserved, the command still fails with EFAULT: the
 * QP is usable, its events reach this file, DESTROY_QP on that handle and
 * CLOSE_XRCD work, and the inode's XRCD goes with its last user.
 */
static void case_abort_refused(void)
{
	const char *path = case_file("abort");
	struct xqpv_context *a = open_ctx(), *b = open_ctx(), *c;
	void *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct ib_uverbs_create_qp cmd;
	struct ib_uverbs_async_event_desc d;
	struct xqpv_xrcd *xa, *xb, *xc;
	struct xqpv_qp *t0, *opened;
	uint32_t kept;
	int err;

	xa = open_xrcd_path(a, path, O_CREAT, &err);
	t0 = xa ? create_tgt(a, xa) : NULL;
	CHECK(ro != MAP_FAILED && t0, "setup: %s", errname(errno));
	if (ro == MAP_FAILED || !t0)
		return;
	kept = t0->handle + 1;	/* handles are allocated lowest-free first */

	memset(&cmd, 0, sizeof(cmd));
	cmd.response = (uintptr_t)ro;
	cmd.user_handle = 0x5eed;
	cmd.pd_handle = xa->handle;
	cmd.qp_type = XQPV_QPT_XRC_TGT;
	EXPECT("arm", soft_inject("destroy_qp 16"), 0);
	EXPECT("create_resp_unwritable",
	       raw_cmd(a->cmd_fd, IB_USER_VERBS_CMD_CREATE_QP, &cmd, sizeof(cmd), -1,
		       sizeof(struct ib_uverbs_create_qp_resp) / 4), EFAULT);
	EXPECT("disarm", soft_inject("destroy_qp 0"), 0);
	sleep(FREE_DELAY_S);

	/* the soft device numbers QPs in sequence: the kept one is next */
	xb = open_xrcd_path(b, path, 0, &err);
	opened = xb ? open_tgt(b, xb, t0->qp_num + 1, &err) : NULL;
	EXPECT("open_kept", opened ? 0 : err, 0);
	if (opened) {
		EXPECT("raise", raise_event(opened, XQPV_EVENT_COMM_EST), 0);
		EXPECT("kept_handle_event", read_event_raw(a, &d, 2000), 0);
		EXPECT_INT("kept_handle_event_element", d.element, 0x5eed);
		EXPECT("destroy_opened", xqpv_destroy_qp(opened), 0);
	}
	EXPECT("destroy_kept", destroy_qp_raw(a->cmd_fd, kept, NULL), 0);
	EXPECT("destroy_first", xqpv_destroy_qp(t0), 0);
	EXPECT("close_xrcd", xqpv_close_xrcd(xa), 0);
	if (xb)
		EXPECT("close_xrcd_other", xqpv_close_xrcd(xb), 0);
	xqpv_close_device(a);
	xqpv_close_device(b);

	/* the last user of the inode's XRCD is gone: it is free again */
	c = open_ctx();
	xc = open_xrcd_path(c, path, O_CREAT | O_EXCL, &err);
	EXPECT("inode_released", xc ? 0 : err, 0);
	xqpv_close_device(c);
	munmap(ro, 4096);
}

/*
 * Defect 3: the driver refuses to destroy a shared QP when its creator's
 * file is closed, so that file's XRCD cannot go either. What the driver
 * would not destroy is kept (not freed under the core's handle) and
 * retried: another file joins the XRCD, opens the QP and gets its events
 * with no use of freed memory; once that file closes (the driver agrees
 * by then), everything the first file left is gone, the inode included.
 */
static void case_close_refused(void)
{
	const char *path = case_file("close");
	struct xqpv_context *a = open_ctx(), *b, *c;
	struct xqpv_xrcd *xa, *xb, *xc;
	struct xqpv_async_event ev;
	struct xqpv_qp *qa, *hb;
	uint32_t qpn;
	int err;

	xa = open_xrcd_path(a, path, O_CREAT, &err);
	qa = xa ? create_tgt(a, xa) : NULL;
	CHECK(qa, "setup: %s", errname(errno));
	if (!qa)
		return;
	qpn = qa->qp_num;
	EXPECT("arm", soft_inject("destroy_qp 16"), 0);
	xqpv_close_device(a);	/* the QP's destroy is refused, the XRCD stays busy */
	EXPECT("disarm", soft_inject("destroy_qp 0"), 0);
	sleep(FREE_DELAY_S);

	b = open_ctx();
	xb = open_xrcd_path(b, path, 0, &err);
	EXPECT("join", xb ? 0 : err, 0);
	hb = xb ? open_tgt(b, xb, qpn, &err) : NULL;
	EXPECT("open_kept", hb ? 0 : err, 0);
	if (hb) {
		EXPECT("raise", raise_event(hb, XQPV_EVENT_COMM_EST), 0);
		EXPECT("event", get_event(b, &ev, 2000), 0);
		EXPECT_INT("event_is_ours", ev.element.qp == hb, 1);
		xqpv_ack_async_event(&ev);
		EXPECT("destroy", xqpv_destroy_qp(hb), 0);
	}
	if (xb)
		EXPECT("close_xrcd", xqpv_close_xrcd(xb), 0);
	xqpv_close_device(b);	/* retries what the first file left */

	c = open_ctx();
	xc = open_xrcd_path(c, path, O_CREAT | O_EXCL, &err);
	EXPECT("inode_released", xc ? 0 : err, 0);
	if (xc)
		EXPECT("qp_gone", open_tgt(c, xc, qpn, &err) ? 0 : err, EINVAL);
	xqpv_close_device(c);
}

/* fail_page_alloc's min-order: past every order, no page allocation counts */
#define PAGES_NOT_COUNTED	"11"

/*
 * This thread's fail-nth, opened, for a case that arms it itself, with the
 * fault knobs set; -1 (noted) where the kernel has no fault injection or
 * the fault sweep (-f) has armed it already, which then runs the case
 * unarmed. Only slab allocations count as failure points here: whether an
 * allocation needs a fresh page (or KASAN's stack depot one) depends on
 * what was freed before, RCU's timing included, so with pages counted one
 * point of a command came at a different n from one try to the next, and a
 * sweep could step over the one point the case is about (it did, once, on
 * a busy host). own_fail_nth_done() counts pages again.
 */
static int own_fail_nth(void)
{
	int fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	char now[8] = "";

	if (fd < 0 || pread(fd, now, sizeof(now) - 1, 0) <= 0 || atoi(now) != 0) {
		acc_note("fail-nth %s: not run", fd < 0 ? "absent" : "armed by the sweep");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	EXPECT("fault_knobs", fault_knobs_set() ? errno : 0, 0);
	if (access(FAULT_KNOBS_DIR "fail_page_alloc", F_OK) == 0)
		EXPECT("pages_not_counted", fault_knob(FAULT_KNOBS_DIR "fail_page_alloc/min-order",
						       PAGES_NOT_COUNTED) ? errno : 0, 0);
	return fd;
}

static void own_fail_nth_done(int fd)
{
	close(fd);
	EXPECT("fault_knobs_again", fault_knobs_set() ? errno : 0, 0);
}

/* Writes @v to this thread's fail-nth, opened as @fd: 0 or errno. */
static int fail_nth_write(int fd, const char *v)
{
	return pwrite(fd, v, strlen(v), 0) == (ssize_t)strlen(v) ? 0 : errno;
}

/*
 * One CREATE_QP of an XRC_TGT in @x whose @n-th allocation on this task
 * fails while the driver refuses one destroy; a QP created (the failure
 * was absorbed, or never reached) is destroyed again. Returns 1 if the
 * create reached its @n-th allocation. What it leaves is the caller's to
 * judge.
 */
static int create_failing(struct xqpv_xrcd *x, int nth_fd, unsigned int n)
{
	char v[16], left[16] = "";
	struct xqpv_qp *qp;

	snprintf(v, sizeof(v), "%u", n);
	EXPECT("arm_refusal", soft_inject("destroy_qp 16"), 0);
	EXPECT("arm_fail_nth", fail_nth_write(nth_fd, v), 0);
	qp = create_tgt(x->context, x);
	if (pread(nth_fd, left, sizeof(left) - 1, 0) <= 0)
		acc_fail("cannot read fail-nth back: %s", errname(errno));
	EXPECT("disarm_fail_nth", fail_nth_write(nth_fd, "0"), 0);
	EXPECT("disarm_refusal", soft_inject("destroy_qp 0"), 0);
	if (qp)
		EXPECT("destroy", xqpv_destroy_qp(qp), 0);
	return atoi(left) == 0;
}

/*
 * After armed run @n of a case on the inode of @path, its file closed:
 * nothing may be left in the soft devices, and the inode must be free for
 * a new XRCD. Returns 1 if something was left (the case stops there).
 */
static int left_behind(const char *path, unsigned int n)
{
	struct xqpv_context *d;
	struct xqpv_xrcd *y;
	char left[256], step[48];
	int err;

	snprintf(step, sizeof(step), "nth%u_nothing_left", n);
	EXPECT_INT(step, soft_objects(left, sizeof(left)), 0);
	if (left[0])
		acc_note("fail-nth %u: left %s", n, left);
	d = open_ctx();
	y = open_xrcd_path(d, path, O_CREAT | O_EXCL, &err);
	snprintf(step, sizeof(step), "nth%u_inode_released", n);
	EXPECT(step, y ? 0 : err, 0);
	xqpv_close_device(d);
	return left[0] != 0;
}

/*
 * Defect 5 through an inode's XRCD (found by the fault sweep of
 * refused_abort_destroy): CREATE_QP of an XRC_TGT fails after the driver
 * made the QP (an allocation of publishing it fails, this task's
 * fail-nth), and the driver refuses to destroy it; the core keeps that QP
 * for the XRCD's deallocation. Closing the inode's last XRCD user must
 * still deallocate the XRCD, which takes the kept QP, and release the
 * inode: the kept QP once counted as a user, and all three stayed until
 * the device went. Each failure point of the create in turn, each in a
 * fresh file and XRCD; at least one must be after the driver's create.
 * Needs fail-nth (a kernel with fault injection); not armed twice under
 * the fault sweep (-f), which then runs the case unarmed.
 */
static void case_stray_inode_xrcd(void)
{
	const char *path = case_file("stray");
	int nth_fd = own_fail_nth();
	unsigned int n, kept = 0;
	char left[256];

	if (nth_fd < 0)
		return;
	for (n = 1; n < 200; n++) {
		struct xqpv_context *c = open_ctx();
		struct xqpv_xrcd *x;
		int err, reached;

		x = open_xrcd_path(c, path, O_CREAT, &err);
		if (!x) {
			acc_fail("open_xrcd: %s", errname(err));
			break;
		}
		reached = create_failing(x, nth_fd, n);
		if (soft_objects(left, sizeof(left)) > 1)	/* the XRCD and the QP */
			kept++;
		xqpv_close_xrcd(x);	/* EBUSY where a share holds the QP */
		xqpv_close_device(c);
		if (left_behind(path, n) || !reached)
			break;
	}
	own_fail_nth_done(nth_fd);
	EXPECT_INT("end_reached", n < 200, 1);
	CHECK(kept > 0, "no failure point came after the driver's create");
	acc_note("%u failure points, %u of them after the driver's create", n - 1, kept);
}

/*
 * OPEN_XRCD of an inode fails after the core made the XRCD (recording the
 * inode cannot allocate: this task's fail-nth) and the driver refuses to
 * deallocate it again. Found by the fuzzer: a WARN, then the XRCD stayed
 * listed with its owner's freed handle, which an `xqp res` dump read
 * (KASAN), and nothing ever deallocated it. Now it is kept under the
 * handle the command reserved, as a refused abort keeps a QP
 * (refused_abort_destroy): the file's close deallocates it, nothing is
 * left and the inode is not held. Each failure point of the command in
 * turn, each in a fresh file; at least one must come after the XRCD was
 * made and its deallocation refused.
 */
static void case_open_xrcd_refused(void)
{
	const char *path = case_file("openx");
	int nth_fd = own_fail_nth();
	unsigned int n, kept = 0;
	char left[256];

	if (nth_fd < 0)
		return;
	for (n = 1; n < 100; n++) {
		struct xqpv_xrcd_init_attr a = {
			.comp_mask = XQPV_XRCD_INIT_ATTR_FD | XQPV_XRCD_INIT_ATTR_OFLAGS,
			.oflags = O_CREAT,
		};
		struct xqpv_context *c = open_ctx();
		char v[16], now[16] = "";
		struct xqpv_xrcd *x;
		int reached;

		a.fd = open(path, O_RDONLY);
		snprintf(v, sizeof(v), "%u", n);
		EXPECT("arm_refusal", soft_inject("dealloc_xrcd 16"), 0);
		EXPECT("arm_fail_nth", fail_nth_write(nth_fd, v), 0);
		x = xqpv_open_xrcd(c, &a);
		if (pread(nth_fd, now, sizeof(now) - 1, 0) <= 0)
			acc_fail("cannot read fail-nth back: %s", errname(errno));
		EXPECT("disarm_fail_nth", fail_nth_write(nth_fd, "0"), 0);
		EXPECT("disarm_refusal", soft_inject("dealloc_xrcd 0"), 0);
		reached = atoi(now) == 0;
		close(a.fd);
		if (!x && soft_objects(left, sizeof(left)) > 0)
			kept++;
		if (x)
			xqpv_close_xrcd(x);
		xqpv_close_device(c);
		if (left_behind(path, n) || !reached)
			break;
	}
	own_fail_nth_done(nth_fd);
	EXPECT_INT("end_reached", n < 100, 1);
	CHECK(kept > 0, "no failure point came after the XRCD was made");
	acc_note("%u failure points, %u of them with the XRCD made and kept", n - 1, kept);
}

const struct acc_case acc_cases_refusals[] = {
	{ "refused_abort_destroy", case_abort_refused, NULL, ACC_XQP_ONLY },
	{ "refused_stray_inode_xrcd", case_stray_inode_xrcd, NULL, ACC_XQP_ONLY },
	{ "refused_close_destroy", case_close_refused, NULL, ACC_XQP_ONLY },
	{ "refused_open_xrcd_unwind", case_open_xrcd_refused, NULL, ACC_XQP_ONLY },
	{ 0 },
};
