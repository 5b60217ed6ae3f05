// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * make -C provider test: the provider's code inside Debian's libibverbs,
 * against a fake kernel, without any device.
 *
 * The provider's objects are linked into this program. A fake sysfs tree
 * describes an ib_device whose parent is an xqp_uverbs class device, and
 * $XQP_PROVIDER_DEV_DIR points the provider at a directory where that
 * device's node is a symlink to /dev/null (whose dev_t the fake sysfs
 * names). /dev/null answers ioctl() with ENOTTY as /dev/xqp/uverbsN does,
 * so libibverbs uses write(); this program defines write() itself
 * (interposing libc's for the whole process: libibverbs' and the
 * provider's calls bind to it), and a write() to a /dev/null fd goes to
 * fake_kernel(), which answers every command synchronously through the
 * command's response pointer, as the kernel would, and records it.
 *
 * So the checks see the exact bytes each verb puts on the wire (reserved
 * words, POST_SEND's WQEs with the XRC SRQ number, chunking), and what the
 * provider makes of the answers (ibv_poll_cq, ibv_cq_ex, ibv_qp_ex).
 * Not covered here: device discovery (netlink; the VM test does it) and
 * the CREATE_QP/CREATE_SRQ wire forms of ABI 6 (libibverbs picks them by
 * a global only enumeration sets; without it they are the v3/v5 forms).
 *
 * Prints one line per failed check and "provider-test: N passed, N failed".
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "xqp.h"
#include "../../user/wire/wire.h"

/* What ibv_open_device() runs (device.c; IBVERBS_PRIVATE_34, checked by
 * abi-check): here with a device record of our own. */
struct ibv_context *verbs_open_device(struct ibv_device *device, void *private_data);

#include "check.h"

/* ---- the fake kernel ------------------------------------------------------ */

#define MAX_LOG 16
static dev_t fake_rdev;
static bool fake_on;

/* The last commands, newest last; each a copy of the write(). */
static struct {
	uint32_t command;
	size_t len;
	unsigned char *buf;
} wlog[MAX_LOG];
static unsigned int nlog;		/* commands since the last reset */
static unsigned int ext_cmds;		/* extended commands seen */
static uint32_t next_handle = 1;

/* POST_SEND: what the "kernel" saw */
static unsigned int posts, posted_wrs;
static uint64_t posted_last_wr_id;
static bool wr_ids_in_order = true;
static unsigned char inline_copy[256];	/* inline data of the last inline WR */
static size_t inline_copy_len;
static int post_errno;			/* answer POST_SEND with this */
static uint32_t post_bad_wr;

/* POLL_CQ: completions to hand out */
static struct ib_uverbs_wc cq_queue[128];
static unsigned int cq_queued, cq_taken, polls;

static int comp_pipe[2] = { -1, -1 }, async_pipe[2] = { -1, -1 };

static void log_reset(void)
{
	unsigned int i;

	for (i = 0; i < MAX_LOG; i++) {
		free(wlog[i].buf);
		wlog[i].buf = NULL;
		wlog[i].len = 0;
	}
	nlog = 0;
}

static void log_cmd(uint32_t command, const void *buf, size_t len)
{
	unsigned int i = nlog < MAX_LOG ? nlog : MAX_LOG - 1;

	if (nlog >= MAX_LOG) {
		free(wlog[0].buf);
		memmove(&wlog[0], &wlog[1], sizeof(wlog[0]) * (MAX_LOG - 1));
	}
	wlog[i].command = command;
	wlog[i].len = len;
	wlog[i].buf = malloc(len);
	memcpy(wlog[i].buf, buf, len);
	nlog++;
}

/* The @back-th last command (0 = the last one), or NULL. */
static const void *last_core(unsigned int back, uint32_t command, size_t *len)
{
	unsigned int have = nlog < MAX_LOG ? nlog : MAX_LOG;

	if (back >= have || wlog[have - 1 - back].command != command)
		return NULL;
	if (len)
		*len = wlog[have - 1 - back].len;
	return wlog[have - 1 - back].buf + sizeof(struct ib_uverbs_cmd_hdr);
}

static void respond(uint64_t ptr, const void *resp, size_t size, uint16_t out_words)
{
	size_t n = (size_t)out_words * 4;

	if (ptr && n)
		memcpy((void *)(uintptr_t)ptr, resp, n < size ? n : size);
}

static bool all_zero(const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--)
		if (*b++)
			return false;
	return true;
}

static void fake_post_send(const struct ib_uverbs_post_send *c, size_t len, uint16_t out)
{
	const struct xqp_uverbs_send_wr *w = (const void *)(c + 1);
	const struct ib_uverbs_sge *s;
	size_t want = sizeof(struct ib_uverbs_cmd_hdr) + sizeof(*c) +
		      (size_t)c->wr_count * c->wqe_size +
		      (size_t)c->sge_count * sizeof(struct ib_uverbs_sge);
	struct ib_uverbs_post_send_resp resp = { .bad_wr = post_bad_wr };
	uint32_t i;

	CHECK(c->wqe_size == sizeof(struct xqp_uverbs_send_wr), "POST_SEND wqe_size %u",
	      c->wqe_size);
	CHECK(want == len, "POST_SEND: %zu bytes for %u WRs and %u SGEs", len, c->wr_count,
	      c->sge_count);
	s = (const void *)((const unsigned char *)w + (size_t)c->wr_count * c->wqe_size);
	posts++;
	for (i = 0; i < c->wr_count; i++) {
		const struct xqp_uverbs_send_wr *k = (const void *)((const unsigned char *)w +
								   (size_t)i * c->wqe_size);

		if (posted_wrs && k->wr.wr_id != posted_last_wr_id + 1)
			wr_ids_in_order = false;
		posted_last_wr_id = k->wr.wr_id;
		posted_wrs++;
		if ((k->wr.send_flags & IBV_SEND_INLINE) && k->wr.num_sge) {
			/* the kernel copies inline data during the write() */
			inline_copy_len = s->length < sizeof(inline_copy) ? s->length
									   : sizeof(inline_copy);
			memcpy(inline_copy, (const void *)(uintptr_t)s->addr, inline_copy_len);
		}
		s += k->wr.num_sge;
	}
	respond(c->response, &resp, sizeof(resp), out);
}

static ssize_t fake_kernel(const void *buf, size_t len)
{
	struct ib_uverbs_cmd_hdr h;
	const void *core = (const unsigned char *)buf + sizeof(h);
	uint64_t rp = 0;

	if (len < sizeof(h)) {
		errno = EINVAL;
		return -1;
	}
	memcpy(&h, buf, sizeof(h));
	if (h.command & IB_USER_VERBS_CMD_FLAG_EXTENDED) {
		ext_cmds++;
		errno = EOPNOTSUPP;	/* xqp: every extended command */
		return -1;
	}
	CHECK((size_t)h.in_words * 4 == len, "command %u: in_words %u for %zu bytes", h.command,
	      h.in_words, len);
	log_cmd(h.command, buf, len);
	if (len >= sizeof(h) + 8)
		memcpy(&rp, core, 8);	/* `response` comes first where there is one */

	switch (h.command) {
	case IB_USER_VERBS_CMD_GET_CONTEXT: {
		struct ib_uverbs_get_context_resp r = { .async_fd = (uint32_t)async_pipe[0],
							.num_comp_vectors = 1 };
		respond(rp, &r, sizeof(r), h.out_words);
		break;
	}
	case IB_USER_VERBS_CMD_QUERY_DEVICE: {
		struct ib_uverbs_query_device_resp r = {
			.fw_ver = (1ULL << 32) | (2ULL << 16) | 3, .node_guid = 0x1234,
			.max_qp = 64, .max_qp_wr = 1024, .device_cap_flags = 1ULL << 20,
			.max_sge = 8, .max_cq = 64, .max_cqe = 4096, .phys_port_cnt = 1,
		};
		respond(rp, &r, sizeof(r), h.out_words);
		break;
	}
	case IB_USER_VERBS_CMD_QUERY_PORT: {
		struct ib_uverbs_query_port_resp r = {
			.state = IBV_PORT_ACTIVE, .max_mtu = IBV_MTU_4096, .active_mtu = IBV_MTU_4096,
			.gid_tbl_len = 1, .pkey_tbl_len = 1, .lid = 7, .sm_lid = 1,
			.link_layer = IBV_LINK_LAYER_INFINIBAND,
		};
		respond(rp, &r, sizeof(r), h.out_words);
		break;
	}
	case IB_USER_VERBS_CMD_ALLOC_PD: {
		struct ib_uverbs_alloc_pd_resp r = { .pd_handle = next_handle++ };
		respond(rp, &r, sizeof(r), h.out_words);
		break;
	}
	case IB_USER_VERBS_CMD_REG_MR: {
		struct ib_uverbs_reg_mr_resp r = { .mr_handle = next_handle++, .lkey = 0x1111,
						   .rkey = 0x2222 };
		respond(rp, &r, sizeof(r), h.out_words);
		break;
	}
	case IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL: {
		struct ib_uverbs_create_comp_channel_resp r = { .fd = (uint32_t)comp_pipe[0] };
		respond(rp, &r, sizeof(r), h.out_words);
		break;
	}
	case IB_USER_VERBS_CMD_CREATE_CQ: {
		const struct ib_uverbs_create_cq *c = core;
		struct ib_uverbs_create_cq_resp r = { .cq_handle = next_handle++, .cqe = c->cqe };
		respond(rp, &r, sizeof(r), h.out_words);
		break;
	}
	case IB_USER_VERBS_CMD_RESIZE_CQ: {
		const struct ib_uverbs_resize_cq *c = core;
		struct ib_uverbs_resize_cq_resp r = { .cqe = c->cqe };
		respond(rp, &r, sizeof(r), h.out_words);
		break;
	}
	case IB_USER_VERBS_CMD_POLL_CQ: {
		const struct ib_uverbs_poll_cq *c = core;
		struct ib_uverbs_poll_cq_resp *r = (void *)(uintptr_t)c->response;
		uint32_t n = cq_queued - cq_taken;

		polls++;
		if (n > c->ne)
			n = c->ne;
		CHECK((size_t)h.out_words * 4 == sizeof(*r) + (size_t)c->ne * sizeof(r->wc[0]),
		      "POLL_CQ out_words %u for ne %u", h.out_words, c->ne);
		r->count = n;
		r->reserved = 0;
		memcpy(r->wc, &cq_queue[cq_taken], n * sizeof(r->wc[0]));
		cq_taken += n;
		break;
	}
	case IB_USER_VERBS_CMD_CREATE_QP:
	case IB_USER_VERBS_CMD_OPEN_QP: {
		uint32_t hd = next_handle++;
		struct ib_uverbs_create_qp_resp r = {
			.qp_handle = hd, .qpn = 0x100 + hd, .max_send_wr = 16, .max_recv_wr = 16,
			.max_send_sge = 4, .max_recv_sge = 4, .max_inline_data = 64,
		};
		respond(rp, &r, sizeof(r), h.out_words);
		break;
	}
	case IB_USER_VERBS_CMD_QUERY_QP: {
		struct ib_uverbs_query_qp_resp r = { .qp_state = IBV_QPS_INIT, .max_inline_data = 64,
						     .max_send_sge = 4 };
		respond(rp, &r, sizeof(r), h.out_words);
		break;
	}
	case IB_USER_VERBS_CMD_DESTROY_QP:
	case IB_USER_VERBS_CMD_DESTROY_CQ:
	case IB_USER_VERBS_CMD_DESTROY_SRQ: {
		unsigned char zero[16] = { 0 };	/* nothing reported */
		respond(rp, zero, sizeof(zero), h.out_words);
		break;
	}
	case IB_USER_VERBS_CMD_POST_SEND: {
		const struct ib_uverbs_post_send *c = core;

		fake_post_send(c, len, h.out_words);
		if (post_errno) {
			errno = post_errno;
			return -1;
		}
		break;
	}
	case IB_USER_VERBS_CMD_POST_RECV:
	case IB_USER_VERBS_CMD_POST_SRQ_RECV: {
		struct ib_uverbs_post_recv_resp r = { .bad_wr = 0 };
		respond(rp, &r, sizeof(r), h.out_words);
		break;
	}
	case IB_USER_VERBS_CMD_CREATE_SRQ:
	case IB_USER_VERBS_CMD_CREATE_XSRQ: {
		const struct ib_uverbs_create_srq *c = core;
		struct ib_uverbs_create_srq_resp r = { .srq_handle = next_handle++,
						       .max_wr = c->max_wr, .max_sge = c->max_sge,
						       .srqn = 0x321 };
		respond(rp, &r, sizeof(r), h.out_words);
		break;
	}
	case IB_USER_VERBS_CMD_QUERY_SRQ: {
		struct ib_uverbs_query_srq_resp r = { .max_wr = 8, .max_sge = 1, .srq_limit = 2 };
		respond(rp, &r, sizeof(r), h.out_words);
		break;
	}
	case IB_USER_VERBS_CMD_ALLOC_MW: {
		struct ib_uverbs_alloc_mw_resp r = { .mw_handle = next_handle, .rkey = 0x3300 };

		next_handle++;
		respond(rp, &r, sizeof(r), h.out_words);
		break;
	}
	case IB_USER_VERBS_CMD_OPEN_XRCD: {
		struct ib_uverbs_open_xrcd_resp r = { .xrcd_handle = next_handle++ };
		respond(rp, &r, sizeof(r), h.out_words);
		break;
	}
	case IB_USER_VERBS_CMD_CREATE_AH: {
		struct ib_uverbs_create_ah_resp r = { .ah_handle = next_handle++ };
		uint64_t ahrp;

		memcpy(&ahrp, core, sizeof(ahrp));
		respond(ahrp, &r, sizeof(r), h.out_words);
		break;
	}
	case IB_USER_VERBS_CMD_MODIFY_QP:
	case IB_USER_VERBS_CMD_MODIFY_SRQ:
	case IB_USER_VERBS_CMD_REQ_NOTIFY_CQ:
	case IB_USER_VERBS_CMD_DEALLOC_PD:
	case IB_USER_VERBS_CMD_DEREG_MR:
	case IB_USER_VERBS_CMD_CLOSE_XRCD:
	case IB_USER_VERBS_CMD_DESTROY_AH:
	case IB_USER_VERBS_CMD_DEALLOC_MW:
		break;
	default:
		errno = EOPNOTSUPP;
		return -1;
	}
	return (ssize_t)len;
}

/* Interposes libc's write() for the whole process. */
ssize_t write(int fd, const void *buf, size_t n)
{
	struct stat st;

	if (fake_on && fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == fake_rdev)
		return fake_kernel(buf, n);
	return syscall(SYS_write, fd, buf, n);
}

/* ---- the fake sysfs tree -------------------------------------------------- */

static char tree[] = "/tmp/xqp-provider-test.XXXXXX";

static void mk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void mk(const char *fmt, ...)
{
	char rel[256], path[512], *p;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	for (p = path + strlen(tree) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0700);
			*p = '/';
		}
	mkdir(path, 0700);
}

static void put(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void lnk(const char *target, const char *rel)
{
	char path[512], tgt[512];

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	if (target[0] == '/' && strncmp(target, "/dev/", 5) == 0)
		snprintf(tgt, sizeof(tgt), "%s", target);
	else
		snprintf(tgt, sizeof(tgt), "%s", target);
	if (symlink(tgt, path))
		fail("symlink %s: %s", path, strerror(errno));
}

static void build_tree(void)
{
	struct stat st;
	char buf[64];

	if (!mkdtemp(tree)) {
		fail("mkdtemp: %s", strerror(errno));
		exit(1);
	}
	if (stat("/dev/null", &st) || !S_ISCHR(st.st_mode)) {
		fail("/dev/null is not a character device");
		exit(1);
	}
	fake_rdev = st.st_rdev;
	mk("class/xqp_uverbs");
	mk("bus/pci");
	/* an xqp device: uverbs7, whose node is (a link to) /dev/null */
	mk("devices/virtual/xqp_uverbs/uverbs7");
	lnk("../../../../class/xqp_uverbs", "devices/virtual/xqp_uverbs/uverbs7/subsystem");
	snprintf(buf, sizeof(buf), "%u:%u\n", major(fake_rdev), minor(fake_rdev));
	put("devices/virtual/xqp_uverbs/uverbs7/dev", buf);
	mk("class/infiniband/xqp_t0");
	lnk("../../../devices/virtual/xqp_uverbs/uverbs7", "class/infiniband/xqp_t0/device");
	/* another whose sysfs dev_t is not its node's */
	mk("devices/virtual/xqp_uverbs/uverbs8");
	lnk("../../../../class/xqp_uverbs", "devices/virtual/xqp_uverbs/uverbs8/subsystem");
	snprintf(buf, sizeof(buf), "%u:%u\n", major(fake_rdev), minor(fake_rdev) + 100);
	put("devices/virtual/xqp_uverbs/uverbs8/dev", buf);
	mk("class/infiniband/xqp_t1");
	lnk("../../../devices/virtual/xqp_uverbs/uverbs8", "class/infiniband/xqp_t1/device");
	/* a PCI device, and one without a parent (rxe) */
	mk("devices/pci0000:00/0000:00:03.0");
	lnk("../../../bus/pci", "devices/pci0000:00/0000:00:03.0/subsystem");
	put("devices/pci0000:00/0000:00:03.0/dev", "1:3\n");
	mk("class/infiniband/mlx5_0");
	lnk("../../../devices/pci0000:00/0000:00:03.0", "class/infiniband/mlx5_0/device");
	mk("class/infiniband/rxe0");
	/* the nodes */
	mk("dev");
	lnk("/dev/null", "dev/uverbs7");
	lnk("/dev/null", "dev/uverbs8");
	snprintf(buf, sizeof(buf), "%s/dev", tree);
	setenv(XPROV_DEV_DIR_ENV, buf, 1);
}

static void remove_tree(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tree);
	if (system(cmd))
		fail("could not remove %s", tree);
}

static void sysfs_for(struct abi34_sysfs_dev *sd, const char *ibdev)
{
	memset(sd, 0, sizeof(*sd));
	snprintf(sd->ibdev_name, sizeof(sd->ibdev_name), "%s", ibdev);
	snprintf(sd->ibdev_path, sizeof(sd->ibdev_path), "%s/class/infiniband/%s", tree, ibdev);
	snprintf(sd->sysfs_name, sizeof(sd->sysfs_name), "uverbs0");
	sd->abi_ver = XQP_PROVIDER_ABI;
	sd->num_ports = 1;
	sd->node_type = IBV_NODE_CA;
	sd->ibdev_idx = -1;
}

/* What try_driver() (init.c) does after a match. */
static struct abi34_device *make_device(struct abi34_sysfs_dev *sd)
{
	struct abi34_device *d = xprov_device_ops.alloc_device(sd);

	if (!d)
		return NULL;
	d->ops = &xprov_device_ops;
	atomic_init(&d->refcount, 1);
	d->device.node_type = IBV_NODE_CA;
	d->device.transport_type = IBV_TRANSPORT_IB;
	snprintf(d->device.name, sizeof(d->device.name), "%s", sd->ibdev_name);
	snprintf(d->device.dev_name, sizeof(d->device.dev_name), "%s", sd->sysfs_name);
	snprintf(d->device.ibdev_path, sizeof(d->device.ibdev_path), "%s", sd->ibdev_path);
	return d;
}

/* ---- the tests ------------------------------------------------------------ */

static void test_matching(void)
{
	struct abi34_sysfs_dev sd;
	struct abi34_device *d;
	struct ibv_context *ctx;

	sysfs_for(&sd, "xqp_t0");
	CHECK(xprov_device_ops.match_device(&sd), "xqp_t0 (parent in class xqp_uverbs) not matched");
	sysfs_for(&sd, "mlx5_0");
	CHECK(!xprov_device_ops.match_device(&sd), "a PCI device matched");
	sysfs_for(&sd, "rxe0");
	CHECK(!xprov_device_ops.match_device(&sd), "a device without parent matched");
	sysfs_for(&sd, "nosuch");
	CHECK(!xprov_device_ops.match_device(&sd), "a missing device matched");
	CHECK(xprov_device_ops.match_min_abi_version == 1 &&
	      xprov_device_ops.match_max_abi_version == 1 &&
	      !strcmp(xprov_device_ops.name, "xqp"), "device ops header");
	/* libibverbs walks the table unchecked for devices with a driver id */
	CHECK(xprov_device_ops.match_table && xprov_device_ops.match_table[0].kind == ABI34_MATCH_END,
	      "match table missing or not empty");

	/* the node exists but is not the device sysfs names */
	sysfs_for(&sd, "xqp_t1");
	CHECK(xprov_device_ops.match_device(&sd), "xqp_t1 not matched");
	d = make_device(&sd);
	CHECK(d != NULL, "alloc_device xqp_t1");
	if (d) {
		errno = 0;
		ctx = verbs_open_device(&d->device, NULL);
		CHECK(!ctx && errno == ENODEV, "open with a foreign node: %p errno %d", (void *)ctx,
		      errno);
		CHECK(atomic_load(&d->refcount) == 1, "refcount after failed open");
		xprov_device_ops.uninit_device(d);
	}
}

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_mr *mr;
static char mem[8192] __attribute__((aligned(4096)));

static void test_context(void)
{
	struct ibv_device_attr_ex ax;
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	const struct ib_uverbs_get_context *gc;
	const struct ib_uverbs_query_port *qp;
	unsigned int ext;

	CHECK(ctx->cmd_fd >= 0, "cmd_fd");
	{
		struct stat st;

		CHECK(fstat(ctx->cmd_fd, &st) == 0 && st.st_rdev == fake_rdev,
		      "cmd_fd is not the xqp node");
	}
	CHECK(ctx->async_fd == async_pipe[0], "async_fd %d not from GET_CONTEXT", ctx->async_fd);
	CHECK(ctx->num_comp_vectors == 1, "num_comp_vectors");
	gc = last_core(0, IB_USER_VERBS_CMD_GET_CONTEXT, NULL);
	CHECK(gc != NULL, "GET_CONTEXT was not the first command");
	CHECK(ctx->ops.poll_cq == xprov_poll_cq && ctx->ops.post_send == xprov_post_send,
	      "poll_cq/post_send not installed");

	log_reset();
	ext = ext_cmds;
	memset(&ax, 0, sizeof(ax));
	CHECK(ibv_query_device_ex(ctx, NULL, &ax) == 0, "ibv_query_device_ex");
	CHECK(ext_cmds == ext + 1, "EX_QUERY_DEVICE not tried first");
	CHECK(last_core(0, IB_USER_VERBS_CMD_QUERY_DEVICE, NULL) != NULL, "QUERY_DEVICE fallback");
	CHECK(!strcmp(ax.orig_attr.fw_ver, "1.2.3"), "fw_ver '%s'", ax.orig_attr.fw_ver);
	CHECK(ax.orig_attr.device_cap_flags & IBV_DEVICE_XRC, "XRC capability lost");
	CHECK(ax.orig_attr.max_qp == 64 && ax.orig_attr.phys_port_cnt == 1, "device attrs");
	CHECK(ibv_query_device(ctx, &da) == 0 && !strcmp(da.fw_ver, "1.2.3"), "ibv_query_device");

	CHECK(ibv_query_port(ctx, 1, &pa) == 0 && pa.lid == 7 && pa.state == IBV_PORT_ACTIVE,
	      "ibv_query_port");
	qp = last_core(0, IB_USER_VERBS_CMD_QUERY_PORT, NULL);
	CHECK(qp && qp->port_num == 1 && all_zero(qp->reserved, sizeof(qp->reserved)),
	      "QUERY_PORT wire");
}

static void test_pd_mr_cq(void)
{
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq2;
	const struct ib_uverbs_create_cq *cc;
	const struct ib_uverbs_reg_mr *rm;

	pd = ibv_alloc_pd(ctx);
	CHECK(pd && pd->context == ctx, "ibv_alloc_pd");
	mr = ibv_reg_mr(pd, mem, sizeof(mem), IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	CHECK(mr && mr->lkey == 0x1111 && mr->rkey == 0x2222 && mr->addr == mem, "ibv_reg_mr");
	rm = last_core(0, IB_USER_VERBS_CMD_REG_MR, NULL);
	CHECK(rm && rm->start == (uintptr_t)mem && rm->length == sizeof(mem) &&
	      rm->pd_handle == pd->handle &&
	      rm->access_flags == (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE), "REG_MR wire");

	cq = ibv_create_cq(ctx, 31, (void *)0x77, NULL, 0);
	CHECK(cq && cq->cqe == 31 && cq->cq_context == (void *)0x77 && cq->context == ctx,
	      "ibv_create_cq");
	cc = last_core(0, IB_USER_VERBS_CMD_CREATE_CQ, NULL);
	CHECK(cc && cc->user_handle == (uintptr_t)cq && cc->comp_channel == -1 &&
	      cc->reserved == 0, "CREATE_CQ wire");
	CHECK(ibv_req_notify_cq(cq, 0) == 0 && last_core(0, IB_USER_VERBS_CMD_REQ_NOTIFY_CQ, NULL),
	      "ibv_req_notify_cq");
	CHECK(ibv_resize_cq(cq, 63) == 0 && cq->cqe == 63, "ibv_resize_cq");

	ch = ibv_create_comp_channel(ctx);
	CHECK(ch && ch->fd == comp_pipe[0], "ibv_create_comp_channel");
	if (ch) {
		cq2 = ibv_create_cq(ctx, 4, NULL, ch, 0);
		cc = last_core(0, IB_USER_VERBS_CMD_CREATE_CQ, NULL);
		CHECK(cq2 && cc && cc->comp_channel == ch->fd && cq2->channel == ch,
		      "CREATE_CQ with a channel");
		CHECK(cq2 && ibv_destroy_cq(cq2) == 0, "ibv_destroy_cq");
		CHECK(ibv_destroy_comp_channel(ch) == 0, "ibv_destroy_comp_channel");
		comp_pipe[0] = -1;
	}
}

static const struct xqp_uverbs_send_wr *posted_wr(unsigned int back, unsigned int i,
						  const struct ib_uverbs_post_send **cmd)
{
	size_t len;
	const struct ib_uverbs_post_send *c = last_core(back, IB_USER_VERBS_CMD_POST_SEND, &len);

	if (cmd)
		*cmd = c;
	if (!c || i >= c->wr_count)
		return NULL;
	return (const void *)((const unsigned char *)(c + 1) + (size_t)i * c->wqe_size);
}

static const struct ib_uverbs_sge *posted_sges(const struct ib_uverbs_post_send *c)
{
	return (const void *)((const unsigned char *)(c + 1) + (size_t)c->wr_count * c->wqe_size);
}

static struct ibv_qp *make_qp(enum ibv_qp_type type)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = type,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 4,
			 .max_recv_sge = 4, .max_inline_data = 64 },
	};

	return ibv_create_qp(pd, &a);
}

static void test_post_send(void)
{
	struct ibv_qp *rc = make_qp(IBV_QPT_RC), *ud = make_qp(IBV_QPT_UD);
	struct ibv_qp_init_attr_ex xa = {
		.qp_type = IBV_QPT_XRC_SEND, .comp_mask = IBV_QP_INIT_ATTR_PD, .pd = pd,
		.send_cq = cq, .cap = { .max_send_wr = 8, .max_send_sge = 2 },
	};
	struct ibv_qp *xrc = ibv_create_qp_ex(ctx, &xa);
	struct ibv_ah_attr aa = { .dlid = 2, .port_num = 1 };
	struct ibv_ah *ah = ibv_create_ah(pd, &aa);
	struct ibv_sge sg[3] = {
		{ .addr = (uintptr_t)mem, .length = 100, .lkey = 0x1111 },
		{ .addr = (uintptr_t)mem + 200, .length = 50, .lkey = 0x1111 },
		{ .addr = (uintptr_t)"inline!", .length = 7, .lkey = 0 },
	};
	struct ibv_send_wr w[4], *bad = NULL;
	const struct ib_uverbs_post_send *c;
	const struct xqp_uverbs_send_wr *k;
	const struct ib_uverbs_create_qp *cq_wire;
	int ret;

	CHECK(rc && ud && xrc && ah, "QPs/AH for posting");
	if (!rc || !ud || !xrc || !ah)
		return;
	cq_wire = last_core(1, IB_USER_VERBS_CMD_CREATE_QP, NULL);
	CHECK(cq_wire && cq_wire->qp_type == IBV_QPT_XRC_SEND && cq_wire->recv_cq_handle == 0 &&
	      cq_wire->max_recv_wr == 0 && all_zero(&cq_wire->reserved, sizeof(cq_wire->reserved)),
	      "CREATE_QP XRC_SEND wire");
	CHECK(to_xqp(rc)->max_inline == 64, "max_inline not recorded");

	/* RC: SEND with 2 SGEs, WRITE_WITH_IMM, CMP_AND_SWP, inline SEND */
	memset(w, 0, sizeof(w));
	w[0] = (struct ibv_send_wr){ .wr_id = 1, .next = &w[1], .sg_list = sg, .num_sge = 2,
				     .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED };
	w[1] = (struct ibv_send_wr){ .wr_id = 2, .next = &w[2], .sg_list = sg, .num_sge = 1,
				     .opcode = IBV_WR_RDMA_WRITE_WITH_IMM, .imm_data = htobe32(0xabcd),
				     .wr.rdma = { .remote_addr = 0x5000, .rkey = 0x99 } };
	w[2] = (struct ibv_send_wr){ .wr_id = 3, .next = &w[3], .sg_list = sg, .num_sge = 1,
				     .opcode = IBV_WR_ATOMIC_CMP_AND_SWP,
				     .wr.atomic = { .remote_addr = 0x6000, .compare_add = 5,
						    .swap = 6, .rkey = 0x98 } };
	w[3] = (struct ibv_send_wr){ .wr_id = 4, .sg_list = &sg[2], .num_sge = 1,
				     .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_INLINE };
	posts = 0;
	posted_wrs = 0;
	inline_copy_len = 0;
	ret = ibv_post_send(rc, w, &bad);
	CHECK(ret == 0 && posts == 1, "ibv_post_send RC: %d, %u writes", ret, posts);
	k = posted_wr(0, 0, &c);
	CHECK(c && c->qp_handle == rc->handle && c->wr_count == 4 && c->sge_count == 5,
	      "POST_SEND header");
	CHECK(k && k->wr.wr_id == 1 && k->wr.num_sge == 2 && k->wr.opcode == IBV_WR_SEND &&
	      k->wr.send_flags == IBV_SEND_SIGNALED && k->xrc_remote_srq_num == 0 &&
	      k->reserved == 0, "POST_SEND WR 0");
	k = posted_wr(0, 1, NULL);
	CHECK(k && k->wr.opcode == IBV_WR_RDMA_WRITE_WITH_IMM &&
	      k->wr.ex.imm_data == htobe32(0xabcd) && k->wr.wr.rdma.remote_addr == 0x5000 &&
	      k->wr.wr.rdma.rkey == 0x99 && k->wr.wr.rdma.reserved == 0, "POST_SEND WR 1");
	k = posted_wr(0, 2, NULL);
	CHECK(k && k->wr.wr.atomic.remote_addr == 0x6000 && k->wr.wr.atomic.compare_add == 5 &&
	      k->wr.wr.atomic.swap == 6 && k->wr.wr.atomic.rkey == 0x98, "POST_SEND WR 2");
	if (c) {
		const struct ib_uverbs_sge *s = posted_sges(c);

		CHECK(s[0].addr == sg[0].addr && s[0].length == 100 && s[1].length == 50 &&
		      s[2].addr == sg[0].addr && s[4].addr == sg[2].addr, "POST_SEND SGEs in order");
	}
	CHECK(inline_copy_len == 7 && !memcmp(inline_copy, "inline!", 7), "inline data");

	/* UD: the AH's handle, QPN and Q_Key; a WR without an AH is refused */
	memset(w, 0, sizeof(w));
	w[0] = (struct ibv_send_wr){ .wr_id = 10, .sg_list = sg, .num_sge = 1,
				     .opcode = IBV_WR_SEND_WITH_IMM, .imm_data = 7,
				     .wr.ud = { .ah = ah, .remote_qpn = 0x55, .remote_qkey = 0x11 } };
	CHECK(ibv_post_send(ud, w, &bad) == 0, "ibv_post_send UD");
	k = posted_wr(0, 0, NULL);
	CHECK(k && k->wr.wr.ud.ah == ah->handle && k->wr.wr.ud.remote_qpn == 0x55 &&
	      k->wr.wr.ud.remote_qkey == 0x11 && k->wr.ex.imm_data == 7, "POST_SEND UD fields");
	posts = 0;
	w[0].wr.ud.ah = NULL;
	bad = NULL;
	CHECK(ibv_post_send(ud, w, &bad) == EINVAL && bad == &w[0] && posts == 0,
	      "UD without an AH");
	w[0].wr.ud.ah = ah;
	w[0].next = &w[1];
	w[1] = w[0];
	w[1].next = NULL;
	w[1].wr.ud.ah = NULL;
	bad = NULL;
	CHECK(ibv_post_send(ud, w, &bad) == EINVAL && bad == &w[1] && posts == 1,
	      "UD: the WR before the refused one is posted");

	/* XRC: the remote SRQ number trails the kernel's WR */
	memset(w, 0, sizeof(w));
	w[0] = (struct ibv_send_wr){ .wr_id = 20, .sg_list = sg, .num_sge = 1,
				     .opcode = IBV_WR_SEND };
	w[0].qp_type.xrc.remote_srqn = 0x4321;
	CHECK(ibv_post_send(xrc, w, &bad) == 0, "ibv_post_send XRC");
	k = posted_wr(0, 0, NULL);
	CHECK(k && k->xrc_remote_srq_num == 0x4321, "XRC remote SRQN on the wire");

	/* the kernel's bad_wr (1-based) names the WR */
	w[0].next = &w[1];
	w[1] = w[0];
	w[1].next = &w[2];
	w[2] = w[0];
	w[2].next = NULL;
	post_errno = ENOMEM;
	post_bad_wr = 2;
	bad = NULL;
	CHECK(ibv_post_send(xrc, w, &bad) == ENOMEM && bad == &w[1], "bad_wr from the kernel");
	post_bad_wr = 0;
	bad = NULL;
	CHECK(ibv_post_send(xrc, w, &bad) == ENOMEM && bad == &w[0], "bad_wr 0: the first WR");
	post_errno = 0;

	/* a list too long for one write() goes out in several */
	{
		enum { N = 5000 };
		struct ibv_send_wr *many = calloc(N, sizeof(*many));
		/* WRs of one SGE a write() holds, after its header */
		const size_t per = (XQP_WIRE_MAX_WRITE - sizeof(struct ib_uverbs_cmd_hdr) -
				    sizeof(struct ib_uverbs_post_send)) /
				   (sizeof(struct xqp_uverbs_send_wr) + sizeof(struct ib_uverbs_sge));
		unsigned int i;

		if (many) {
			for (i = 0; i < N; i++) {
				many[i].wr_id = 1000 + i;
				many[i].sg_list = sg;
				many[i].num_sge = 1;
				many[i].opcode = IBV_WR_SEND;
				many[i].next = i + 1 < N ? &many[i + 1] : NULL;
			}
			posts = 0;
			posted_wrs = 0;
			wr_ids_in_order = true;
			CHECK(ibv_post_send(rc, many, &bad) == 0 && posts == (N + per - 1) / per &&
			      posts > 1 && posted_wrs == N &&
			      wr_ids_in_order && posted_last_wr_id == 1000 + N - 1,
			      "long list: %u writes, %u WRs", posts, posted_wrs);
			free(many);
		}
	}

	/* receives go through libibverbs' helper */
	{
		struct ibv_recv_wr r = { .wr_id = 5, .sg_list = sg, .num_sge = 1 }, *rbad;
		const struct ib_uverbs_post_recv *pr;

		CHECK(ibv_post_recv(rc, &r, &rbad) == 0, "ibv_post_recv");
		pr = last_core(0, IB_USER_VERBS_CMD_POST_RECV, NULL);
		CHECK(pr && pr->qp_handle == rc->handle && pr->wr_count == 1, "POST_RECV wire");
	}

	CHECK(ibv_destroy_ah(ah) == 0, "ibv_destroy_ah");
	CHECK(ibv_destroy_qp(rc) == 0 && ibv_destroy_qp(ud) == 0 && ibv_destroy_qp(xrc) == 0,
	      "ibv_destroy_qp");
	CHECK(last_core(0, IB_USER_VERBS_CMD_DESTROY_QP, NULL) != NULL, "DESTROY_QP");
}

static void queue_wcs(unsigned int n)
{
	unsigned int i;

	cq_queued = cq_taken = 0;
	for (i = 0; i < n && i < 128; i++) {
		struct ib_uverbs_wc *k = &cq_queue[i];

		memset(k, 0, sizeof(*k));
		k->wr_id = 500 + i;
		k->status = i % 7 == 6 ? IBV_WC_WR_FLUSH_ERR : IBV_WC_SUCCESS;
		k->opcode = i % 2 ? IBV_WC_RECV : IBV_WC_SEND;
		k->byte_len = 10 + i;
		k->ex.imm_data = htobe32(i);
		k->qp_num = 0x101;
		k->src_qp = 0x202;
		k->wc_flags = i % 2 ? 2 /* kernel WITH_IMM */ | 1 /* GRH */ : 0;
		k->pkey_index = 0;
		k->slid = 2;
		k->sl = 3;
		k->dlid_path_bits = 0;
		k->port_num = 1;
	}
	cq_queued = i;
}

static void test_poll_cq(void)
{
	struct ibv_wc wc[64];
	int n, i;
	bool ok = true;

	queue_wcs(40);
	polls = 0;
	n = ibv_poll_cq(cq, 64, wc);
	CHECK(n == 40, "ibv_poll_cq: %d of 40", n);
	for (i = 0; i < n && i < 64; i++) {
		bool odd = i % 2;

		if (wc[i].wr_id != 500u + i || wc[i].byte_len != 10u + i ||
		    wc[i].opcode != (odd ? IBV_WC_RECV : IBV_WC_SEND) ||
		    wc[i].status != (i % 7 == 6 ? IBV_WC_WR_FLUSH_ERR : IBV_WC_SUCCESS) ||
		    wc[i].wc_flags != (odd ? (unsigned)(IBV_WC_WITH_IMM | IBV_WC_GRH) : 0u) ||
		    wc[i].imm_data != htobe32(i) || wc[i].qp_num != 0x101 || wc[i].src_qp != 0x202 ||
		    wc[i].slid != 2 || wc[i].sl != 3)
			ok = false;
	}
	CHECK(ok, "ibv_poll_cq fields");
	CHECK(ibv_poll_cq(cq, 8, wc) == 0, "ibv_poll_cq on an empty CQ");
	queue_wcs(3);
	CHECK(ibv_poll_cq(cq, 1, wc) == 1 && wc[0].wr_id == 500 && cq_taken == 1,
	      "ibv_poll_cq takes no more than asked");
	CHECK(ibv_poll_cq(cq, 4, wc) == 2 && wc[1].wr_id == 502, "the rest");
}

static void test_cq_ex(void)
{
	struct ibv_cq_init_attr_ex a = { .cqe = 64, .wc_flags = IBV_WC_STANDARD_FLAGS };
	struct ibv_poll_cq_attr pa = { 0 };
	struct ibv_cq_ex *x;
	struct ibv_wc wc[8];
	unsigned int seen = 0;
	bool ok = true;
	int ret;

	{
		struct ibv_cq_init_attr_ex ts = a;

		ts.wc_flags |= IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
		errno = 0;
		CHECK(!ibv_create_cq_ex(ctx, &ts) && errno == EOPNOTSUPP,
		      "timestamps: errno %d, not EOPNOTSUPP", errno);
		ts = a;
		ts.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
		ts.flags = IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN;
		errno = 0;
		CHECK(!ibv_create_cq_ex(ctx, &ts) && errno == EOPNOTSUPP, "CQ flags");
	}
	x = ibv_create_cq_ex(ctx, &a);
	CHECK(x != NULL, "ibv_create_cq_ex: %s", strerror(errno));
	if (!x)
		return;
	CHECK(x->context == ctx && x->cqe == 64, "ibv_cq_ex set up by libibverbs");
	CHECK(last_core(0, IB_USER_VERBS_CMD_CREATE_CQ, NULL) != NULL, "ex CQ over CREATE_CQ");

	queue_wcs(0);
	CHECK(ibv_start_poll(x, &pa) == ENOENT, "start_poll on an empty CQ");

	queue_wcs(70);	/* three batches */
	ret = ibv_start_poll(x, &pa);
	CHECK(ret == 0, "start_poll: %d", ret);
	while (ret == 0) {
		bool odd = seen % 2;

		if (x->wr_id != 500 + seen ||
		    x->status != (seen % 7 == 6 ? IBV_WC_WR_FLUSH_ERR : IBV_WC_SUCCESS) ||
		    ibv_wc_read_opcode(x) != (odd ? IBV_WC_RECV : IBV_WC_SEND) ||
		    ibv_wc_read_byte_len(x) != 10 + seen ||
		    ibv_wc_read_imm_data(x) != htobe32(seen) || ibv_wc_read_qp_num(x) != 0x101 ||
		    ibv_wc_read_src_qp(x) != 0x202 ||
		    ibv_wc_read_wc_flags(x) != (odd ? (unsigned)(IBV_WC_WITH_IMM | IBV_WC_GRH) : 0u) ||
		    ibv_wc_read_slid(x) != 2 || ibv_wc_read_sl(x) != 3 ||
		    ibv_wc_read_dlid_path_bits(x) != 0 || ibv_wc_read_vendor_err(x) != 0)
			ok = false;
		seen++;
		ret = ibv_next_poll(x);
	}
	CHECK(ret == ENOENT && seen == 70 && ok, "ibv_cq_ex: %u of 70 (ret %d), fields %s", seen,
	      ret, ok ? "ok" : "wrong");
	ibv_end_poll(x);

	/* what start_poll fetched but end_poll left is ibv_poll_cq's next */
	queue_wcs(5);
	CHECK(ibv_start_poll(x, &pa) == 0 && x->wr_id == 500, "start_poll");
	ibv_end_poll(x);
	CHECK(ibv_poll_cq(ibv_cq_ex_to_cq(x), 8, wc) == 4 && wc[0].wr_id == 501 &&
	      wc[3].wr_id == 504, "batch left-overs to ibv_poll_cq");
	CHECK(ibv_destroy_cq(ibv_cq_ex_to_cq(x)) == 0, "destroy ex CQ");
}

static struct ibv_qp_ex *make_qp_ex(enum ibv_qp_type type, uint64_t ops, struct ibv_qp **qpp)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = type, .send_cq = cq, .recv_cq = cq, .pd = pd,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = ops,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 2,
			 .max_recv_sge = 2, .max_inline_data = 16 },
	};

	*qpp = ibv_create_qp_ex(ctx, &a);
	return *qpp ? ibv_qp_to_qp_ex(*qpp) : NULL;
}

/* The builders of the ops the provider refuses, each with its arguments. */
static void build_tso(struct ibv_qp_ex *x, uint64_t *data)
{
	ibv_wr_send_tso(x, data, 8, 64);
}

static void build_atomic_write(struct ibv_qp_ex *x, uint64_t *data)
{
	ibv_wr_atomic_write(x, 1, 0x1000, data);
}

#ifdef ABI34_HAVE_WR_FLUSH
static void build_flush(struct ibv_qp_ex *x, uint64_t *data)
{
	(void)data;
	ibv_wr_flush(x, 1, 0x1000, 8, IBV_FLUSH_GLOBAL, IBV_FLUSH_RANGE);
}
#endif

/*
 * Every member of ibv_qp_ex in this header's layout is set, and each builder
 * of an op the provider does not carry fails the batch with EOPNOTSUPP and
 * posts nothing. Under Debian 13's libibverbs (56.1, whose ibv_qp_ex has
 * wr_flush) the provider once left wr_flush NULL: ibv_wr_flush() was a jump
 * to address 0.
 */
static void test_qp_ex_every_builder(struct ibv_qp_ex *x)
{
	void (**fp)(void) = (void (**)(void))(void *)&x->wr_atomic_cmp_swp;
	void (**end)(void) = (void (**)(void))(void *)(x + 1);
	unsigned int unset = 0, i;
	uint64_t data = 0;
	struct {
		const char *name;
		void (*build)(struct ibv_qp_ex *x, uint64_t *data);
	} refused[] = {
		{ "send_tso", build_tso },
		{ "atomic_write", build_atomic_write },
#ifdef ABI34_HAVE_WR_FLUSH
		{ "flush", build_flush },
#endif
	};

	for (; fp < end; fp++)
		unset += !*fp;
	CHECK(unset == 0, "%u ibv_qp_ex members left NULL", unset);
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		posts = 0;
		ibv_wr_start(x);
		refused[i].build(x, &data);
		CHECK(ibv_wr_complete(x) == EOPNOTSUPP && posts == 0, "ibv_wr_%s not refused",
		      refused[i].name);
	}
	posts = 0;
	ibv_wr_start(x);
	ibv_wr_send(x);
	ibv_wr_set_sge(x, 0x1111, (uintptr_t)mem, 8);
	CHECK(ibv_wr_complete(x) == 0 && posts == 1, "a send after the refused builders");
}

static void test_qp_ex(void)
{
	const uint64_t all = XPROV_SUPPORTED_SEND_OPS;
	struct ibv_qp *qp, *ud, *xrc, *plain = make_qp(IBV_QPT_RC), *bad_qp;
	struct ibv_qp_ex *x = make_qp_ex(IBV_QPT_RC, all, &qp), *xu, *xx;
	struct ibv_sge two[3] = {
		{ .addr = (uintptr_t)mem, .length = 8, .lkey = 0x1111 },
		{ .addr = (uintptr_t)mem + 64, .length = 16, .lkey = 0x1111 },
		{ .addr = (uintptr_t)mem + 128, .length = 16, .lkey = 0x1111 },
	};
	struct ibv_data_buf parts[2] = { { .addr = "ab", .length = 2 }, { .addr = "cde", .length = 3 } };
	char text[8] = "hello";
	const struct ib_uverbs_post_send *c;
	const struct xqp_uverbs_send_wr *k;
	struct ibv_ah_attr aa = { .dlid = 2, .port_num = 1 };
	struct ibv_ah *ah = ibv_create_ah(pd, &aa);
	int ret;

	CHECK(plain && !ibv_qp_to_qp_ex(plain), "a plain QP has no ibv_qp_ex");
	CHECK(x != NULL, "ibv_create_qp_ex with SEND_OPS_FLAGS");
	if (!x || !ah)
		return;
	{
		/* IBV_QP_EX_WITH_FLUSH (1 << 11) is not in Debian 12's header */
		const uint64_t refused[] = { IBV_QP_EX_WITH_TSO, IBV_QP_EX_WITH_ATOMIC_WRITE,
					     1ULL << 11 };
		unsigned int i;

		for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
			errno = 0;
			CHECK(!make_qp_ex(IBV_QPT_RC, refused[i] | IBV_QP_EX_WITH_SEND, &bad_qp) &&
			      errno == EOPNOTSUPP, "send op %#llx accepted",
			      (unsigned long long)refused[i]);
		}
	}
	test_qp_ex_every_builder(x);

	ibv_wr_start(x);
	x->wr_id = 1;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(x);
	ibv_wr_set_sge(x, 0x1111, (uintptr_t)mem, 8);
	x->wr_id = 2;
	x->wr_flags = 0;
	ibv_wr_rdma_write(x, 0x77, 0x9000);
	ibv_wr_set_sge_list(x, 2, two);
	x->wr_id = 3;
	ibv_wr_send_imm(x, htobe32(42));
	ibv_wr_set_inline_data(x, text, 5);
	memcpy(text, "XXXXX", 5);	/* the data was taken at the call */
	x->wr_id = 4;
	ibv_wr_atomic_fetch_add(x, 0x78, 0xa000, 9);
	ibv_wr_set_sge(x, 0x1111, (uintptr_t)mem + 256, 8);
	x->wr_id = 5;
	ibv_wr_atomic_cmp_swp(x, 0x79, 0xb000, 1, 2);
	ibv_wr_set_sge(x, 0x1111, (uintptr_t)mem + 264, 8);
	x->wr_id = 6;
	ibv_wr_rdma_read(x, 0x7a, 0xc000);
	ibv_wr_set_sge(x, 0x1111, (uintptr_t)mem + 512, 32);
	x->wr_id = 7;
	ibv_wr_rdma_write_imm(x, 0x7b, 0xd000, htobe32(43));
	ibv_wr_set_inline_data_list(x, 2, parts);
	posts = 0;
	posted_wrs = 0;
	inline_copy_len = 0;
	ret = ibv_wr_complete(x);
	CHECK(ret == 0 && posts == 1 && posted_wrs == 7, "wr_complete: %d, %u writes, %u WRs", ret,
	      posts, posted_wrs);
	k = posted_wr(0, 0, &c);
	CHECK(c && c->wr_count == 7 && c->sge_count == 8, "batch header");
	CHECK(k && k->wr.wr_id == 1 && k->wr.opcode == IBV_WR_SEND &&
	      k->wr.send_flags == IBV_SEND_SIGNALED && k->wr.num_sge == 1, "builder WR 1");
	k = posted_wr(0, 1, NULL);
	CHECK(k && k->wr.opcode == IBV_WR_RDMA_WRITE && k->wr.wr.rdma.rkey == 0x77 &&
	      k->wr.wr.rdma.remote_addr == 0x9000 && k->wr.num_sge == 2, "builder WR 2");
	k = posted_wr(0, 2, NULL);
	CHECK(k && k->wr.opcode == IBV_WR_SEND_WITH_IMM && k->wr.ex.imm_data == htobe32(42) &&
	      (k->wr.send_flags & IBV_SEND_INLINE) && k->wr.num_sge == 1, "builder WR 3 (inline)");
	if (c) {
		const struct ib_uverbs_sge *s = posted_sges(c);

		CHECK(s[0].addr == (uintptr_t)mem && s[1].addr == two[0].addr &&
		      s[2].addr == two[1].addr && s[3].length == 5 && s[3].lkey == 0,
		      "builder SGEs");
	}
	k = posted_wr(0, 3, NULL);
	CHECK(k && k->wr.opcode == IBV_WR_ATOMIC_FETCH_AND_ADD &&
	      k->wr.wr.atomic.compare_add == 9 && k->wr.wr.atomic.rkey == 0x78 &&
	      k->wr.wr.atomic.remote_addr == 0xa000, "builder fetch_add");
	k = posted_wr(0, 4, NULL);
	CHECK(k && k->wr.opcode == IBV_WR_ATOMIC_CMP_AND_SWP && k->wr.wr.atomic.compare_add == 1 &&
	      k->wr.wr.atomic.swap == 2, "builder cmp_swp");
	k = posted_wr(0, 5, NULL);
	CHECK(k && k->wr.opcode == IBV_WR_RDMA_READ && k->wr.wr.rdma.rkey == 0x7a, "builder read");
	k = posted_wr(0, 6, NULL);
	CHECK(k && k->wr.opcode == IBV_WR_RDMA_WRITE_WITH_IMM && k->wr.ex.imm_data == htobe32(43),
	      "builder write_imm");
	CHECK(inline_copy_len == 5 && !memcmp(inline_copy, "abcde", 5),
	      "inline data list copied and joined");

	/* the first inline WR's data, checked on its own */
	ibv_wr_start(x);
	ibv_wr_send(x);
	memcpy(text, "hello", 5);
	ibv_wr_set_inline_data(x, text, 5);
	memset(text, 'Z', 5);
	inline_copy_len = 0;
	CHECK(ibv_wr_complete(x) == 0 && inline_copy_len == 5 && !memcmp(inline_copy, "hello", 5),
	      "inline data copied at wr_set_inline_data()");

	/* errors: nothing is posted */
	posts = 0;
	ibv_wr_start(x);
	ibv_wr_send(x);
	ibv_wr_set_sge_list(x, 3, two);	/* more than max_send_sge (2) */
	CHECK(ibv_wr_complete(x) == EINVAL && posts == 0, "too many SGEs");
	ibv_wr_start(x);
	ibv_wr_send(x);
	ibv_wr_set_inline_data(x, mem, 17);	/* more than max_inline_data (16) */
	CHECK(ibv_wr_complete(x) == EINVAL && posts == 0, "too much inline data");
	ibv_wr_start(x);
	ibv_wr_set_sge(x, 1, 2, 3);	/* no WR yet */
	CHECK(ibv_wr_complete(x) == EINVAL && posts == 0, "set_sge before a WR");
	ibv_wr_start(x);
	ibv_wr_send(x);
	ibv_wr_set_sge(x, 0x1111, (uintptr_t)mem, 8);
	ibv_wr_abort(x);
	CHECK(posts == 0, "wr_abort posted");
	ibv_wr_start(x);
	CHECK(ibv_wr_complete(x) == 0 && posts == 0, "an empty batch");
	ibv_wr_start(x);
	ibv_wr_send(x);
	post_errno = EINVAL;
	CHECK(ibv_wr_complete(x) == EINVAL && posts == 1, "the kernel's errno");
	post_errno = 0;
	{
		struct ibv_qp *only_send;
		struct ibv_qp_ex *xs = make_qp_ex(IBV_QPT_RC, IBV_QP_EX_WITH_SEND, &only_send);

		CHECK(xs != NULL, "QP with SEND only");
		if (xs) {
			posts = 0;
			ibv_wr_start(xs);
			ibv_wr_rdma_write(xs, 1, 2);
			CHECK(ibv_wr_complete(xs) == EOPNOTSUPP && posts == 0,
			      "an op the QP was not created for");
			ibv_destroy_qp(only_send);
		}
	}

	/* UD: the address is required; XRC: the SRQ number */
	xu = make_qp_ex(IBV_QPT_UD, IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM, &ud);
	CHECK(xu != NULL, "UD ibv_qp_ex");
	if (xu) {
		ibv_wr_start(xu);
		ibv_wr_send(xu);
		ibv_wr_set_ud_addr(xu, ah, 0x66, 0x1234);
		ibv_wr_set_sge(xu, 0x1111, (uintptr_t)mem, 8);
		CHECK(ibv_wr_complete(xu) == 0, "UD wr_complete");
		k = posted_wr(0, 0, NULL);
		CHECK(k && k->wr.wr.ud.ah == ah->handle && k->wr.wr.ud.remote_qpn == 0x66 &&
		      k->wr.wr.ud.remote_qkey == 0x1234, "UD builder fields");
		posts = 0;
		ibv_wr_start(xu);
		ibv_wr_send(xu);
		CHECK(ibv_wr_complete(xu) == EINVAL && posts == 0, "UD without an address");
		ibv_destroy_qp(ud);
	}
	xx = make_qp_ex(IBV_QPT_XRC_SEND, IBV_QP_EX_WITH_SEND, &xrc);
	CHECK(xx != NULL, "XRC_SEND ibv_qp_ex");
	if (xx) {
		ibv_wr_start(xx);
		ibv_wr_send(xx);
		ibv_wr_set_xrc_srqn(xx, 0x777);
		ibv_wr_set_sge(xx, 0x1111, (uintptr_t)mem, 8);
		CHECK(ibv_wr_complete(xx) == 0, "XRC wr_complete");
		k = posted_wr(0, 0, NULL);
		CHECK(k && k->xrc_remote_srq_num == 0x777, "wr_set_xrc_srqn on the wire");
		ibv_wr_start(x);
		ibv_wr_send(x);
		ibv_wr_set_xrc_srqn(x, 1);	/* on an RC QP */
		CHECK(ibv_wr_complete(x) == EINVAL, "set_xrc_srqn on RC");
		ibv_destroy_qp(xrc);
	}
	ibv_destroy_ah(ah);
	ibv_destroy_qp(qp);
	ibv_destroy_qp(plain);
}

static void test_xrc_srq(void)
{
	struct ibv_xrcd_init_attr xa = { .comp_mask = IBV_XRCD_INIT_ATTR_FD |
						      IBV_XRCD_INIT_ATTR_OFLAGS,
					 .fd = -1, .oflags = O_CREAT };
	struct ibv_xrcd *xrcd = ibv_open_xrcd(ctx, &xa);
	struct ibv_srq_init_attr_ex sa = {
		.attr = { .max_wr = 8, .max_sge = 1 }, .srq_context = (void *)0x42,
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_XRCD |
			     IBV_SRQ_INIT_ATTR_CQ | IBV_SRQ_INIT_ATTR_PD,
		.srq_type = IBV_SRQT_XRC, .pd = pd, .xrcd = xrcd, .cq = cq,
	};
	struct ibv_srq *srq, *basic;
	struct ibv_srq_attr at;
	struct ibv_qp *tgt, *opened;
	uint32_t num = 0;

	CHECK(xrcd != NULL, "ibv_open_xrcd");
	if (!xrcd)
		return;
	srq = ibv_create_srq_ex(ctx, &sa);
	CHECK(srq && srq->srq_context == (void *)0x42 && srq->pd == pd && srq->context == ctx,
	      "ibv_create_srq_ex XRC: context/pd");
	CHECK(srq && ibv_get_srq_num(srq, &num) == 0 && num == 0x321, "ibv_get_srq_num %x", num);
	{
		const struct ib_uverbs_create_xsrq *k = last_core(0, IB_USER_VERBS_CMD_CREATE_XSRQ,
								  NULL);

		CHECK(k && k->srq_type == IBV_SRQT_XRC && k->cq_handle == cq->handle &&
		      k->pd_handle == pd->handle && k->max_num_tags == 0, "CREATE_XSRQ wire");
	}
	sa.srq_type = IBV_SRQT_TM;
	errno = 0;
	CHECK(!ibv_create_srq_ex(ctx, &sa) && errno == EOPNOTSUPP, "TM SRQ");
	{
		struct ibv_srq_init_attr ba = { .attr = { .max_wr = 4, .max_sge = 1 } };

		basic = ibv_create_srq(pd, &ba);
		CHECK(basic != NULL, "ibv_create_srq");
		CHECK(basic && ibv_get_srq_num(basic, &num) == EINVAL, "srq num of a basic SRQ");
	}
	if (srq) {
		struct ibv_recv_wr r = { .wr_id = 1 }, *rb;

		CHECK(ibv_post_srq_recv(srq, &r, &rb) == 0 &&
		      last_core(0, IB_USER_VERBS_CMD_POST_SRQ_RECV, NULL), "ibv_post_srq_recv");
		at.srq_limit = 3;
		CHECK(ibv_modify_srq(srq, &at, IBV_SRQ_LIMIT) == 0, "ibv_modify_srq");
		CHECK(ibv_query_srq(srq, &at) == 0 && at.max_wr == 8 && at.srq_limit == 2,
		      "ibv_query_srq");
	}

	{
		struct ibv_qp_init_attr_ex ta = { .qp_type = IBV_QPT_XRC_RECV,
						  .comp_mask = IBV_QP_INIT_ATTR_XRCD, .xrcd = xrcd };
		const struct ib_uverbs_create_qp *k;

		tgt = ibv_create_qp_ex(ctx, &ta);
		k = last_core(0, IB_USER_VERBS_CMD_CREATE_QP, NULL);
		CHECK(tgt && k && k->qp_type == IBV_QPT_XRC_RECV &&
		      k->pd_handle == abi34_container_of(xrcd, struct abi34_xrcd, xrcd)->handle,
		      "XRC_RECV: the XRCD in pd_handle");
		ta.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		ta.send_ops_flags = IBV_QP_EX_WITH_SEND;
		errno = 0;
		CHECK(!ibv_create_qp_ex(ctx, &ta) && errno == EOPNOTSUPP, "send ops on XRC_RECV");
	}
	if (tgt) {
		struct ibv_qp_open_attr oa = {
			.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
				     IBV_QP_OPEN_ATTR_TYPE,
			.qp_num = tgt->qp_num, .xrcd = xrcd, .qp_type = IBV_QPT_XRC_RECV,
		};
		const struct ib_uverbs_open_qp *k;
		struct ibv_qp_attr qa = { .qp_state = IBV_QPS_INIT, .pkey_index = 0,
					  .port_num = 1 };
		struct ibv_qp_init_attr ia;
		const struct ib_uverbs_modify_qp *m;

		opened = ibv_open_qp(ctx, &oa);
		k = last_core(0, IB_USER_VERBS_CMD_OPEN_QP, NULL);
		CHECK(opened && k && k->qpn == tgt->qp_num &&
		      all_zero(k->reserved, sizeof(k->reserved)), "OPEN_QP: reserved words zero");
		CHECK(ibv_modify_qp(tgt, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT) == 0,
		      "ibv_modify_qp");
		m = last_core(0, IB_USER_VERBS_CMD_MODIFY_QP, NULL);
		CHECK(m && m->qp_state == IBV_QPS_INIT && m->port_num == 1 && m->dest_qp_num == 0 &&
		      all_zero(&m->dest, sizeof(m->dest)) && all_zero(&m->alt_dest, sizeof(m->alt_dest)) &&
		      all_zero(m->reserved, sizeof(m->reserved)) && m->qkey == 0,
		      "MODIFY_QP: unselected fields zero");
		CHECK(ibv_query_qp(tgt, &qa, IBV_QP_STATE, &ia) == 0 && qa.qp_state == IBV_QPS_INIT,
		      "ibv_query_qp");
		CHECK(opened && ibv_destroy_qp(opened) == 0, "destroy the opened QP");
		CHECK(ibv_destroy_qp(tgt) == 0, "destroy XRC_RECV");
	}
	CHECK(!srq || ibv_destroy_srq(srq) == 0, "ibv_destroy_srq");
	CHECK(!basic || ibv_destroy_srq(basic) == 0, "ibv_destroy_srq basic");
	CHECK(ibv_close_xrcd(xrcd) == 0 && last_core(0, IB_USER_VERBS_CMD_CLOSE_XRCD, NULL),
	      "ibv_close_xrcd");
}

/*
 * Memory windows: ALLOC_MW and DEALLOC_MW on the wire; ibv_bind_mw() of a
 * type 1 window posts a BIND_MW WQE with the window's next rkey, which the
 * window takes; ibv_wr_bind_mw(), ibv_wr_local_inv() and ibv_wr_send_inv()
 * put their fields where the kernel reads them (uapi/xqp_uverbs.h).
 */
static void test_mw(void)
{
	struct ibv_qp_ex *x;
	struct ibv_qp *qp;
	struct ibv_mw *mw1 = ibv_alloc_mw(pd, IBV_MW_TYPE_1), *mw2;
	const struct ib_uverbs_alloc_mw *am = last_core(0, IB_USER_VERBS_CMD_ALLOC_MW, NULL);
	const struct xqp_uverbs_send_wr *k;
	struct ibv_mw_bind bind = { .wr_id = 5, .send_flags = IBV_SEND_SIGNALED,
				    .bind_info = { .mr = mr, .addr = 0x4000, .length = 64,
						   .mw_access_flags = IBV_ACCESS_REMOTE_READ } };
	uint32_t rkey;

	CHECK(mw1 && am && am->pd_handle == pd->handle && am->mw_type == IBV_MW_TYPE_1 &&
	      mw1->rkey == 0x3300 && mw1->type == IBV_MW_TYPE_1 && mw1->pd == pd,
	      "ibv_alloc_mw");
	x = make_qp_ex(IBV_QPT_RC, XPROV_SUPPORTED_SEND_OPS, &qp);
	if (!mw1 || !x)
		return;
	posts = 0;
	rkey = mw1->rkey;
	CHECK(ibv_bind_mw(qp, mw1, &bind) == 0 && posts == 1 && mw1->rkey == ibv_inc_rkey(rkey),
	      "ibv_bind_mw: posted, the window's rkey moved on");
	k = posted_wr(0, 0, NULL);
	CHECK(k && k->wr.opcode == IBV_WR_BIND_MW && k->wr.wr_id == 5 && k->mw_handle == mw1->handle &&
	      k->bind_rkey == mw1->rkey && k->mr_lkey == 0x1111 && k->bind_addr == 0x4000 &&
	      k->bind_length == 64 && k->bind_access == IBV_ACCESS_REMOTE_READ,
	      "ibv_bind_mw's WQE");
	mw2 = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	CHECK(mw2 && ibv_bind_mw(qp, mw2, &bind) == EINVAL, "ibv_bind_mw of a type 2 window: EINVAL");
	ibv_wr_start(x);
	ibv_wr_bind_mw(x, mw2, 0x3342, &bind.bind_info);
	ibv_wr_local_inv(x, 0x3342);
	ibv_wr_send_inv(x, 0x3342);
	ibv_wr_set_sge(x, 0x1111, (uintptr_t)mem, 8);
	posts = 0;
	CHECK(ibv_wr_complete(x) == 0 && posts == 1, "window builders posted");
	k = posted_wr(0, 0, NULL);
	CHECK(k && k->wr.opcode == IBV_WR_BIND_MW && k->mw_handle == mw2->handle &&
	      k->bind_rkey == 0x3342, "ibv_wr_bind_mw's WQE");
	k = posted_wr(0, 1, NULL);
	CHECK(k && k->wr.opcode == IBV_WR_LOCAL_INV && k->wr.ex.invalidate_rkey == 0x3342,
	      "ibv_wr_local_inv's WQE");
	k = posted_wr(0, 2, NULL);
	CHECK(k && k->wr.opcode == IBV_WR_SEND_WITH_INV && k->wr.ex.invalidate_rkey == 0x3342 &&
	      k->wr.num_sge == 1, "ibv_wr_send_inv's WQE");
	CHECK(ibv_dealloc_mw(mw1) == 0 && last_core(0, IB_USER_VERBS_CMD_DEALLOC_MW, NULL) &&
	      ibv_dealloc_mw(mw2) == 0, "ibv_dealloc_mw");
	CHECK(ibv_destroy_qp(qp) == 0, "ibv_destroy_qp");
}

static void test_unsupported(void)
{
	CHECK(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			   IBV_ACCESS_LOCAL_WRITE) != 0, "rereg_mr");
	errno = 0;
	CHECK(!ibv_import_pd(ctx, 1) && errno == EOPNOTSUPP, "import_pd");
}

int main(void)
{
	struct abi34_sysfs_dev sd;
	struct abi34_device *d;
	int cmd_fd;

	check_name = "provider-test";
	if (pipe2(async_pipe, O_CLOEXEC) || pipe2(comp_pipe, O_CLOEXEC)) {
		perror("pipe");
		return 1;
	}
	build_tree();
	fake_on = true;
	test_matching();

	sysfs_for(&sd, "xqp_t0");
	d = make_device(&sd);
	CHECK(d != NULL, "alloc_device");
	if (!d)
		goto out;
	CHECK(!strcmp(to_xdev(&d->device)->node + strlen(to_xdev(&d->device)->node) - 7,
		      "uverbs7"), "node %s", to_xdev(&d->device)->node);
	/* libibverbs opens nothing when the device has no sysfs record */
	ctx = verbs_open_device(&d->device, NULL);
	CHECK(ctx != NULL, "verbs_open_device: %s", strerror(errno));
	if (!ctx)
		goto out;
	d->sysfs = &sd;	/* what ibv_query_device_ex reads the port count from */
	cmd_fd = ctx->cmd_fd;
	test_context();
	test_pd_mr_cq();
	test_post_send();
	test_poll_cq();
	test_cq_ex();
	test_qp_ex();
	test_xrc_srq();
	test_mw();
	test_unsupported();
	CHECK(ibv_dereg_mr(mr) == 0, "ibv_dereg_mr");
	CHECK(ibv_destroy_cq(cq) == 0, "ibv_destroy_cq");
	CHECK(ibv_dealloc_pd(pd) == 0 && last_core(0, IB_USER_VERBS_CMD_DEALLOC_PD, NULL),
	      "ibv_dealloc_pd");
	CHECK(ibv_close_device(ctx) == 0, "ibv_close_device");
	CHECK(fcntl(cmd_fd, F_GETFD) == -1 && errno == EBADF, "cmd_fd left open");
	CHECK(atomic_load(&d->refcount) == 1, "device refcount after close");
	d->sysfs = NULL;
	xprov_device_ops.uninit_device(d);
out:
	fake_on = false;
	log_reset();
	remove_tree();
	printf("provider-test: %d passed, %d failed\n", checks - failures, failures);
	return failures ? 1 : 0;
}
