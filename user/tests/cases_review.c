// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The char-device defects of issue 9's review (defects 1 and 3): a driver
 * that refuses to destroy an object when the response of the command that
 * created it cannot be written, or when its file is closed. Before their
 * fix both freed the object under the core's handle (the next event of
 * the shared QP used freed memory) and left the XRCD that could never be
 * closed, its inode held; the cases check each of those. The core's
 * defects 2, 4 and 5 are tests/host/test_review_defects.cpp.
 *
 * The refusal comes from the soft device's debugfs hook
 * (drivers/soft/soft_main.c): xqp only.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "acc.h"

/* Arms the fault injection of the soft device behind g_dev: 0 or errno. */
static int soft_inject(const char *cmd)
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
	struct xqp_context *a = open_ctx(), *b, *c;
	struct xqp_xrcd *xa, *xb, *xc;
	struct xqp_async_event ev;
	struct xqp_qp *qa, *hb;
	uint32_t qpn;
	int err;

	xa = open_xrcd_path(a, path, O_CREAT, &err);
	qa = xa ? create_tgt(a, xa) : NULL;
	CHECK(qa, "setup: %s", errname(errno));
	if (!qa)
		return;
	qpn = qa->qp_num;
	EXPECT("arm", soft_inject("destroy_qp 16"), 0);
	xqp_close_device(a);	/* the QP's destroy is refused, the XRCD stays busy */
	EXPECT("disarm", soft_inject("destroy_qp 0"), 0);

	b = open_ctx();
	xb = open_xrcd_path(b, path, 0, &err);
	EXPECT("join", xb ? 0 : err, 0);
	hb = xb ? open_tgt(b, xb, qpn, &err) : NULL;
	EXPECT("open_kept", hb ? 0 : err, 0);
	if (hb) {
		EXPECT("raise", raise_event(hb, XQP_EVENT_COMM_EST), 0);
		EXPECT("event", get_event(b, &ev, 2000), 0);
		EXPECT_INT("event_is_ours", ev.element.qp == hb, 1);
		xqp_ack_async_event(&ev);
		EXPECT("destroy", xqp_destroy_qp(hb), 0);
	}
	if (xb)
		EXPECT("close_xrcd", xqp_close_xrcd(xb), 0);
	xqp_close_device(b);	/* retries what the first file left */

	c = open_ctx();
	xc = open_xrcd_path(c, path, O_CREAT | O_EXCL, &err);
	EXPECT("inode_released", xc ? 0 : err, 0);
	if (xc)
		EXPECT("qp_gone", open_tgt(c, xc, qpn, &err) ? 0 : err, EINVAL);
	xqp_close_device(c);
}

const struct acc_case acc_cases_review[] = {
	{ "review_close_refused", case_close_refused, NULL, ACC_XQP_ONLY },
	{ 0 },
};
