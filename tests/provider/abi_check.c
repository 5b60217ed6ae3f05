// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * abi-check: does user/provider/abi34.h describe the libibverbs installed here?
 *
 * Compiled against Debian's public <infiniband/verbs.h> and our own
 * abi34.h, linked against the installed libibverbs.so.1. Three layers:
 *
 *  1. compile time: sizes and offsets, of our declarations and of the
 *     public structs they rely on (_Static_assert);
 *  2. symbols: every entry point abi34.h declares (and the two other
 *     private ones this program calls) is exported with version
 *     IBVERBS_PRIVATE_34, and the linker bound our calls to exactly those
 *     (dlvsym); the library's provider directory, config directory and
 *     file suffix are what the install rules will use;
 *  3. behaviour: a provider in miniature runs inside libibverbs on a fake
 *     device whose command fd is a pipe. A pipe answers every ioctl with
 *     ENOTTY, as /dev/xqp/uverbsN does, so libibverbs must fall back to
 *     write(): the test reads back each command libibverbs wrote and checks
 *     it byte by byte against <rdma/ib_user_verbs.h>, and checks what the
 *     helpers stored in our object wrappers (our layouts, seen from the
 *     library's side). The ops table is checked member by member: the ones
 *     verbs_set_ops() mirrors into public structs by comparing pointers,
 *     the others by calling them through libibverbs' public functions.
 *     Responses: the test prefills the response buffers, as a kernel would
 *     fill them.
 *
 * No kernel device, no netlink (ibv_get_device_list() is never called: on
 * a machine with ib_core available it would load it). Exit status 1 on any
 * failure, with one line per failed check.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "abi34.h"

#ifndef ABI34_EXPECT_PROVIDER_DIR
#define ABI34_EXPECT_PROVIDER_DIR "/usr/lib/x86_64-linux-gnu/libibverbs"
#endif
#define ABI34_EXPECT_CONFIG_DIR "/etc/libibverbs.d"

/* Two more PRIVATE_34 entry points this program calls; not for providers.
 * verbs_open_device() is what ibv_open_device() runs (device.c);
 * ibv_query_gid_type() is called by Debian's ibv_devinfo (examples/
 * devinfo.c), which links against it. */
struct ibv_context *verbs_open_device(struct ibv_device *device, void *private_data);
int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		       unsigned int index, int *type);
/* Public (IBVERBS_1.0) but declared only in rdma-core's driver.h; Debian's
 * ibv_devinfo reads board_id with it. */
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size);

/* ---- 1. compile time ----------------------------------------------------- */

_Static_assert(sizeof(void *) == 8 && sizeof(long) == 8, "abi34.h assumes LP64");

/* Public structs (verbs.h) the design leans on. */
_Static_assert(offsetof(struct verbs_context, context) + sizeof(struct ibv_context) ==
	       sizeof(struct verbs_context), "ibv_context must end verbs_context");
_Static_assert(offsetof(struct verbs_context, sz) + sizeof(size_t) ==
	       offsetof(struct verbs_context, context), "sz must precede the ibv_context");
_Static_assert(offsetof(struct ibv_qp_ex, qp_base) == 0, "ibv_qp_ex starts with its ibv_qp");
_Static_assert(sizeof(struct ibv_device) == 16 + 4 + 4 + 2 * IBV_SYSFS_NAME_MAX +
	       2 * IBV_SYSFS_PATH_MAX, "struct ibv_device layout");
_Static_assert(IBV_SYSFS_NAME_MAX == 64 && IBV_SYSFS_PATH_MAX == 256, "sysfs name sizes");

/* Our declarations. The totals were worked out by hand from the member
 * lists in driver.h v44.0; layer 3 checks the positions that matter. */
_Static_assert(sizeof(struct abi34_context_ops) == ABI34_CONTEXT_OPS_COUNT * sizeof(void *),
	       "76 op pointers, nothing else");
_Static_assert(sizeof(struct abi34_list_node) == 16, "ccan list_node");
_Static_assert(sizeof(struct abi34_match_ent) == 24, "verbs_match_ent");
_Static_assert(offsetof(struct abi34_match_ent, kind) == 20, "verbs_match_ent.kind");
_Static_assert(sizeof(struct abi34_device_ops) == 72, "verbs_device_ops");
_Static_assert(offsetof(struct abi34_device, device) == 0, "ibv_device first");
_Static_assert(offsetof(struct abi34_device, ops) == sizeof(struct ibv_device), "ops");
_Static_assert(sizeof(struct abi34_device) == 712, "verbs_device");
_Static_assert(offsetof(struct abi34_sysfs_dev, sysfs_cdev) == 104, "sysfs_cdev");
_Static_assert(offsetof(struct abi34_sysfs_dev, ibdev_path) == 176, "ibdev_path");
_Static_assert(offsetof(struct abi34_sysfs_dev, node_guid) == 944, "node_guid");
_Static_assert(offsetof(struct abi34_sysfs_dev, num_ports) == 964, "num_ports");
_Static_assert(sizeof(struct abi34_sysfs_dev) == 992, "verbs_sysfs_dev");
_Static_assert(offsetof(struct abi34_qp, qp) == 0 && offsetof(struct abi34_qp, qp_ex) == 0,
	       "verbs_qp union first");
_Static_assert(offsetof(struct abi34_qp, comp_mask) == sizeof(struct ibv_qp_ex), "verbs_qp");
_Static_assert(offsetof(struct abi34_cq, cq_ex) == 0, "verbs_cq");
_Static_assert(offsetof(struct abi34_xrcd, comp_mask) == sizeof(struct ibv_xrcd), "verbs_xrcd");
_Static_assert(offsetof(struct abi34_srq, srq_type) == sizeof(struct ibv_srq), "verbs_srq");
_Static_assert(offsetof(struct abi34_mr, mr_type) == sizeof(struct ibv_mr), "verbs_mr");

/* kern-abi.h's rule: header, then the kernel struct, no padding. */
#define CMD_LAYOUT(tag)								\
	_Static_assert(offsetof(struct abi34_cmd_##tag, core) ==		\
		       sizeof(struct ib_uverbs_cmd_hdr) &&			\
		       sizeof(struct abi34_cmd_##tag) ==			\
		       sizeof(struct ib_uverbs_cmd_hdr) + sizeof(struct ib_uverbs_##tag), \
		       "command layout: " #tag)
CMD_LAYOUT(get_context);
CMD_LAYOUT(query_port);
CMD_LAYOUT(alloc_pd);
CMD_LAYOUT(reg_mr);
CMD_LAYOUT(create_cq);
CMD_LAYOUT(resize_cq);
CMD_LAYOUT(create_qp);
CMD_LAYOUT(open_qp);
CMD_LAYOUT(query_qp);
CMD_LAYOUT(modify_qp);
CMD_LAYOUT(create_srq);
CMD_LAYOUT(create_xsrq);
CMD_LAYOUT(modify_srq);
CMD_LAYOUT(query_srq);
CMD_LAYOUT(open_xrcd);
_Static_assert(sizeof(struct ib_uverbs_cmd_hdr) == 8 && sizeof(struct ib_uverbs_ex_cmd_hdr) == 16,
	       "command headers");

/* ---- reporting ----------------------------------------------------------- */

#include "check.h"

/* ---- 2. symbols ---------------------------------------------------------- */

struct sym {
	const char *name;
	void *linked;		/* what the linker bound our reference to */
};

#define SYM(fn) { #fn, (void *)(fn) }

static const struct sym private_syms[] = {
	SYM(verbs_register_driver_34),
	SYM(_verbs_init_and_alloc_context),
	SYM(verbs_uninit_context),
	SYM(verbs_set_ops),
	SYM(verbs_open_device),
	SYM(ibv_cmd_get_context),
	SYM(ibv_cmd_query_device_any),
	SYM(ibv_cmd_query_port),
	SYM(ibv_cmd_alloc_pd),
	SYM(ibv_cmd_dealloc_pd),
	SYM(ibv_cmd_open_xrcd),
	SYM(ibv_cmd_close_xrcd),
	SYM(ibv_cmd_reg_mr),
	SYM(ibv_cmd_dereg_mr),
	SYM(ibv_cmd_create_cq),
	SYM(ibv_cmd_poll_cq),
	SYM(ibv_cmd_req_notify_cq),
	SYM(ibv_cmd_resize_cq),
	SYM(ibv_cmd_destroy_cq),
	SYM(ibv_cmd_create_srq),
	SYM(ibv_cmd_create_srq_ex),
	SYM(ibv_cmd_modify_srq),
	SYM(ibv_cmd_query_srq),
	SYM(ibv_cmd_destroy_srq),
	SYM(ibv_cmd_post_srq_recv),
	SYM(ibv_cmd_create_qp),
	SYM(ibv_cmd_create_qp_ex),
	SYM(ibv_cmd_open_qp),
	SYM(ibv_cmd_query_qp),
	SYM(ibv_cmd_modify_qp),
	SYM(ibv_cmd_destroy_qp),
	SYM(ibv_cmd_post_recv),
	SYM(ibv_cmd_create_ah),
	SYM(ibv_cmd_destroy_ah),
	SYM(ibv_cmd_attach_mcast),
	SYM(ibv_cmd_detach_mcast),
	SYM(ibv_read_ibdev_sysfs_file),
	SYM(ibv_query_gid_type),
};

/* Returns the path of the loaded libibverbs, or NULL. */
static const char *check_symbols(void)
{
	static char path[PATH_MAX];
	void *lib = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_NOLOAD);
	Dl_info info;
	size_t i;

	CHECK(lib != NULL, "libibverbs.so.1 is not loaded: %s", dlerror());
	if (!lib)
		return NULL;
	for (i = 0; i < sizeof(private_syms) / sizeof(private_syms[0]); i++) {
		const struct sym *s = &private_syms[i];
		void *v = dlvsym(lib, s->name, ABI34_SYMBOL_VERSION);

		CHECK(v != NULL, "%s@%s not exported", s->name, ABI34_SYMBOL_VERSION);
		CHECK(v == NULL || v == s->linked,
		      "%s: linked to a different version than %s", s->name,
		      ABI34_SYMBOL_VERSION);
	}
	/* The registration entry carries the PABI number in its name. */
	CHECK(dlvsym(lib, "verbs_register_driver_33", ABI34_SYMBOL_VERSION) == NULL &&
	      dlvsym(lib, "verbs_register_driver_35", "IBVERBS_PRIVATE_35") == NULL,
	      "another provider ABI is exported too");
	/* ibv_cmd_post_send exists, but the design does not use it (XRC). */
	CHECK(dlvsym(lib, "ibv_cmd_post_send", ABI34_SYMBOL_VERSION) != NULL,
	      "ibv_cmd_post_send not exported (docs/provider.md says it is)");

	if (!dladdr((void *)verbs_set_ops, &info) || !info.dli_fname ||
	    !realpath(info.dli_fname, path)) {
		fail("cannot locate the file of libibverbs");
		return NULL;
	}
	return path;
}

static int file_has(const char *buf, size_t len, const char *s)
{
	return memmem(buf, len, s, strlen(s) + 1) != NULL;	/* with its NUL */
}

/* The strings the loader uses, as compiled into the library. */
static void check_library_strings(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long len;

	CHECK(f != NULL, "cannot read %s", path);
	if (!f)
		return;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc(len)) &&
	    fread(buf, 1, len, f) == (size_t)len) {
		CHECK(file_has(buf, len, ABI34_EXPECT_PROVIDER_DIR "/lib%s" ABI34_PROVIDER_SUFFIX),
		      "%s does not search " ABI34_EXPECT_PROVIDER_DIR "/lib<name>"
		      ABI34_PROVIDER_SUFFIX, path);
		CHECK(file_has(buf, len, "lib%s" ABI34_PROVIDER_SUFFIX),
		      "%s does not fall back to lib<name>" ABI34_PROVIDER_SUFFIX, path);
		CHECK(file_has(buf, len, ABI34_EXPECT_CONFIG_DIR),
		      "%s does not read " ABI34_EXPECT_CONFIG_DIR, path);
		CHECK(file_has(buf, len, "RDMAV_DRIVERS"), "%s ignores RDMAV_DRIVERS", path);
		CHECK(file_has(buf, len, "/dev/infiniband/%s"),
		      "%s does not open /dev/infiniband/<uverbs>", path);
	} else {
		fail("cannot read %s", path);
	}
	free(buf);
	fclose(f);
}

/* ---- 3. behaviour: the fake device and its command pipe ------------------ */

static int cmd_pipe[2] = { -1, -1 };	/* [1] is the context's cmd_fd */
static int async_pipe[2] = { -1, -1 };	/* [0] is the context's async_fd */
static unsigned char wire[8192];	/* the last command read back */
static size_t wire_len;

/* Reads what libibverbs wrote since the last call. */
static size_t take(void)
{
	ssize_t n = read(cmd_pipe[0], wire, sizeof(wire));

	wire_len = n > 0 ? (size_t)n : 0;
	return wire_len;
}

static struct ib_uverbs_cmd_hdr wire_hdr(void)
{
	struct ib_uverbs_cmd_hdr h = { 0 };

	if (wire_len >= sizeof(h))
		memcpy(&h, wire, sizeof(h));
	return h;
}

/* The core request as the kernel would copy it (after the 8-byte header). */
static const void *wire_core(void)
{
	return wire + sizeof(struct ib_uverbs_cmd_hdr);
}

/* One legacy command of @bytes bytes, @out_bytes of response expected. */
static void expect_cmd(const char *what, uint32_t command, size_t bytes, size_t out_bytes)
{
	struct ib_uverbs_cmd_hdr h = wire_hdr();

	CHECK(wire_len == bytes, "%s: %zu bytes written, expected %zu (one write())",
	      what, wire_len, bytes);
	CHECK(h.command == command, "%s: command %u, expected %u", what, h.command, command);
	CHECK((size_t)h.in_words * 4 == bytes, "%s: in_words %u for %zu bytes", what,
	      h.in_words, bytes);
	CHECK((size_t)h.out_words * 4 == out_bytes, "%s: out_words %u, expected %zu bytes",
	      what, h.out_words, out_bytes);
}

static int all_bytes(const void *p, size_t n, unsigned char v)
{
	const unsigned char *b = p;

	while (n--)
		if (*b++ != v)
			return 0;
	return 1;
}

#define FILL	0xa5	/* what the provider side leaves in its buffers */
#define UHW	0x5a	/* driver data bytes */

/* A command or response buffer with 8 bytes of driver data after it. */
#define WITH_UHW(type) union { type s; unsigned char raw[sizeof(type) + 8]; }

static struct abi34_sysfs_dev fake_sysfs;
static struct abi34_device fake_dev;
static char sysfs_dir[] = "/tmp/xqp-abi-check.XXXXXX";

struct test_ctx {
	uint64_t before;		/* verbs_context is not first: offset honoured? */
	struct verbs_context vctx;
	uint64_t after;
};

static struct test_ctx *the_ctx;
static unsigned int ic_called;	/* bit per op reachable only through calls */
static unsigned int reg_mr_access;
static int async_events;

enum {
	IC_CREATE_CQ_EX, IC_FREE_CONTEXT, IC_IMPORT_DM, IC_IMPORT_MR, IC_IMPORT_PD,
	IC_QUERY_ECE, IC_QUERY_PORT, IC_QUERY_QP_DATA_IN_ORDER, IC_REG_DMABUF_MR,
	IC_SET_ECE, IC_UNIMPORT_DM, IC_UNIMPORT_MR, IC_UNIMPORT_PD, IC_COUNT
};
static const char *const ic_names[IC_COUNT] = {
	"create_cq_ex", "free_context", "import_dm", "import_mr", "import_pd",
	"query_ece", "query_port", "query_qp_data_in_order", "reg_dmabuf_mr",
	"set_ece", "unimport_dm", "unimport_mr", "unimport_pd",
};
static int ic_expected = -1;	/* the op the next library call must reach */

/* Records that op @id was reached; it must be the one libibverbs meant. */
static void ic_hit(int id)
{
	CHECK(ic_expected == id, "libibverbs called our %s where it meant %s: member order differs",
	      ic_names[id], ic_expected >= 0 ? ic_names[ic_expected] : "no op");
	if (ic_expected == id)
		ic_called |= 1U << id;
	ic_expected = -1;
}

/* -- the provider in miniature (what libxqp-rdmav34.so will do, minus xqp) -- */

static struct ibv_pd *t_alloc_pd(struct ibv_context *context)
{
	struct ibv_pd *pd = calloc(1, sizeof(*pd));
	struct abi34_cmd_alloc_pd cmd;
	struct ib_uverbs_alloc_pd_resp resp = { .pd_handle = 0x77 };

	memset(&cmd, 0, sizeof(cmd));
	if (!pd || ibv_cmd_alloc_pd(context, pd, &cmd, sizeof(cmd), &resp, sizeof(resp))) {
		free(pd);
		return NULL;
	}
	return pd;
}

static int t_dealloc_pd(struct ibv_pd *pd)
{
	int ret = ibv_cmd_dealloc_pd(pd);

	if (!ret)
		free(pd);
	return ret;
}

static struct ibv_xrcd *t_open_xrcd(struct ibv_context *context,
				    struct ibv_xrcd_init_attr *attr)
{
	struct abi34_xrcd *x = calloc(1, sizeof(*x));
	struct abi34_cmd_open_xrcd cmd;
	struct ib_uverbs_open_xrcd_resp resp = { .xrcd_handle = 0x55 };

	memset(&cmd, 0, sizeof(cmd));
	if (!x || ibv_cmd_open_xrcd(context, x, sizeof(*x), attr, &cmd, sizeof(cmd),
				    &resp, sizeof(resp))) {
		free(x);
		return NULL;
	}
	return &x->xrcd;
}

static struct ibv_qp *t_open_qp(struct ibv_context *context, struct ibv_qp_open_attr *attr)
{
	struct abi34_qp *q = calloc(1, sizeof(*q));
	struct abi34_cmd_open_qp cmd;
	struct ib_uverbs_create_qp_resp resp = { .qp_handle = 0x66 };

	memset(&cmd, FILL, sizeof(cmd));	/* to see what libibverbs leaves alone */
	if (!q || ibv_cmd_open_qp(context, q, sizeof(*q), attr, &cmd, sizeof(cmd),
				  &resp, sizeof(resp))) {
		free(q);
		return NULL;
	}
	return &q->qp;
}

static int t_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	struct abi34_cmd_modify_qp cmd;

	memset(&cmd, FILL, sizeof(cmd));
	return ibv_cmd_modify_qp(qp, attr, mask, &cmd, sizeof(cmd));
}

static struct ibv_cq *t_create_cq(struct ibv_context *context, int cqe,
				  struct ibv_comp_channel *channel, int comp_vector)
{
	struct abi34_cq *c = calloc(1, sizeof(*c));
	WITH_UHW(struct abi34_cmd_create_cq) cmd;
	WITH_UHW(struct ib_uverbs_create_cq_resp) resp;

	memset(&cmd, FILL, sizeof(cmd));
	memset(cmd.raw + sizeof(cmd.s), UHW, 8);
	memset(&resp, 0, sizeof(resp));
	resp.s.cq_handle = 0x99;
	resp.s.cqe = (uint32_t)cqe;
	if (!c || ibv_cmd_create_cq(context, cqe, channel, comp_vector, &c->cq, &cmd.s,
				    sizeof(cmd), &resp.s, sizeof(resp))) {
		free(c);
		return NULL;
	}
	return &c->cq;
}

static int t_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	return ibv_cmd_req_notify_cq(cq, solicited_only);
}

static int t_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	return ibv_cmd_post_recv(qp, wr, bad);
}

static struct ibv_srq *t_create_srq_ex(struct ibv_context *context,
				       struct ibv_srq_init_attr_ex *attr)
{
	struct abi34_srq *s = calloc(1, sizeof(*s));
	WITH_UHW(struct abi34_cmd_create_xsrq) cmd;
	WITH_UHW(struct ib_uverbs_create_srq_resp) resp;

	memset(&cmd, FILL, sizeof(cmd));
	memset(cmd.raw + sizeof(cmd.s), UHW, 8);
	memset(&resp, 0, sizeof(resp));
	resp.s.srq_handle = 0x44;
	resp.s.max_wr = attr->attr.max_wr;
	resp.s.max_sge = attr->attr.max_sge;
	resp.s.srqn = 0x321;
	if (!s || ibv_cmd_create_srq_ex(context, s, attr, &cmd.s, sizeof(cmd),
					&resp.s, sizeof(resp))) {
		free(s);
		return NULL;
	}
	return &s->srq;
}

static int t_get_srq_num(struct ibv_srq *srq, uint32_t *num)
{
	*num = abi34_container_of(srq, struct abi34_srq, srq)->srq_num;
	return 0;
}

static struct ibv_mr *t_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			       uint64_t hca_va, int access)
{
	struct abi34_mr *m = calloc(1, sizeof(*m));
	struct abi34_cmd_reg_mr cmd;
	struct ib_uverbs_reg_mr_resp resp = { .mr_handle = 0x88, .lkey = 0x1111,
					      .rkey = 0x2222 };

	reg_mr_access = (unsigned int)access;
	memset(&cmd, 0, sizeof(cmd));
	if (!m)
		return NULL;
	m->mr_type = (enum abi34_mr_type)7;	/* must be overwritten */
	m->access = -1;
	if (ibv_cmd_reg_mr(pd, addr, length, hca_va, access, m, &cmd, sizeof(cmd),
			   &resp, sizeof(resp))) {
		free(m);
		return NULL;
	}
	return &m->ibv_mr;
}

static int t_dereg_mr(struct abi34_mr *m)
{
	int ret = ibv_cmd_dereg_mr(m);

	if (!ret)
		free(m);
	return ret;
}

static int t_query_port(struct ibv_context *context, uint8_t port, struct ibv_port_attr *pa)
{
	struct abi34_cmd_query_port cmd;

	ic_hit(IC_QUERY_PORT);
	memset(&cmd, FILL, sizeof(cmd));
	return ibv_cmd_query_port(context, port, pa, &cmd, sizeof(cmd));
}

static int t_query_device_ex(struct ibv_context *context,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr, size_t attr_size)
{
	return ibv_cmd_query_device_any(context, input, attr, attr_size, NULL, NULL);
}

static void t_async_event(struct ibv_context *context, struct ibv_async_event *ev)
{
	(void)context;
	(void)ev;
	async_events++;
}

static void t_free_context(struct ibv_context *context)
{
	struct test_ctx *c = abi34_container_of(context, struct test_ctx, vctx.context);

	ic_hit(IC_FREE_CONTEXT);
	verbs_uninit_context(&c->vctx);
	free(c);
}

/* The ops libibverbs reaches only through its own functions. */
static struct ibv_cq_ex *t_create_cq_ex(struct ibv_context *c, struct ibv_cq_init_attr_ex *a)
{
	(void)c; (void)a;
	ic_hit(IC_CREATE_CQ_EX);
	errno = EOPNOTSUPP;
	return NULL;
}
static struct ibv_dm *t_import_dm(struct ibv_context *c, uint32_t h)
{
	(void)c; (void)h;
	ic_hit(IC_IMPORT_DM);
	errno = EOPNOTSUPP;
	return NULL;
}
static struct ibv_mr *t_import_mr(struct ibv_pd *pd, uint32_t h)
{
	(void)pd; (void)h;
	ic_hit(IC_IMPORT_MR);
	errno = EOPNOTSUPP;
	return NULL;
}
static struct ibv_pd *t_import_pd(struct ibv_context *c, uint32_t h)
{
	(void)c; (void)h;
	ic_hit(IC_IMPORT_PD);
	errno = EOPNOTSUPP;
	return NULL;
}
static int t_query_ece(struct ibv_qp *qp, struct ibv_ece *e)
{
	(void)qp; (void)e;
	ic_hit(IC_QUERY_ECE);
	return EOPNOTSUPP;
}
static int t_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t f)
{
	(void)qp; (void)op; (void)f;
	ic_hit(IC_QUERY_QP_DATA_IN_ORDER);
	return 0;
}
static struct ibv_mr *t_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t off, size_t len,
				      uint64_t iova, int fd, int access)
{
	(void)pd; (void)off; (void)len; (void)iova; (void)fd; (void)access;
	ic_hit(IC_REG_DMABUF_MR);
	errno = EOPNOTSUPP;
	return NULL;
}
static int t_set_ece(struct ibv_qp *qp, struct ibv_ece *e)
{
	(void)qp; (void)e;
	ic_hit(IC_SET_ECE);
	return EOPNOTSUPP;
}
static void t_unimport_dm(struct ibv_dm *dm)
{
	(void)dm;
	ic_hit(IC_UNIMPORT_DM);
}
static void t_unimport_mr(struct ibv_mr *mr)
{
	(void)mr;
	ic_hit(IC_UNIMPORT_MR);
}
static void t_unimport_pd(struct ibv_pd *pd)
{
	(void)pd;
	ic_hit(IC_UNIMPORT_PD);
}

/*
 * Every other member gets a distinct placeholder, so that each position in
 * the table holds a different pointer; they are compared, never called
 * (the void(void) type converts to any function pointer type); one that
 * is called anyway reports itself and aborts.
 */
#define PLACEHOLDER(name)						\
	static void ph_##name(void)					\
	{								\
		fputs("abi-check: FAIL: libibverbs called the placeholder for " \
		      #name ": member order differs\n", stderr);		\
		abort();						\
	}
#define PH(name) ((__typeof__(((struct abi34_context_ops *)0)->name))ph_##name)
PLACEHOLDER(advise_mr) PLACEHOLDER(alloc_dm) PLACEHOLDER(alloc_mw)
PLACEHOLDER(alloc_null_mr) PLACEHOLDER(alloc_parent_domain) PLACEHOLDER(alloc_td)
PLACEHOLDER(attach_counters_point_flow) PLACEHOLDER(attach_mcast) PLACEHOLDER(bind_mw)
PLACEHOLDER(close_xrcd) PLACEHOLDER(cq_event) PLACEHOLDER(create_ah)
PLACEHOLDER(create_counters) PLACEHOLDER(create_flow) PLACEHOLDER(create_flow_action_esp)
PLACEHOLDER(create_qp) PLACEHOLDER(create_qp_ex) PLACEHOLDER(create_rwq_ind_table)
PLACEHOLDER(create_srq) PLACEHOLDER(create_wq) PLACEHOLDER(dealloc_mw)
PLACEHOLDER(dealloc_td) PLACEHOLDER(destroy_ah) PLACEHOLDER(destroy_counters)
PLACEHOLDER(destroy_cq) PLACEHOLDER(destroy_flow) PLACEHOLDER(destroy_flow_action)
PLACEHOLDER(destroy_qp) PLACEHOLDER(destroy_rwq_ind_table) PLACEHOLDER(destroy_srq)
PLACEHOLDER(destroy_wq) PLACEHOLDER(detach_mcast) PLACEHOLDER(free_dm)
PLACEHOLDER(modify_cq) PLACEHOLDER(modify_flow_action_esp) PLACEHOLDER(modify_qp_rate_limit)
PLACEHOLDER(modify_srq) PLACEHOLDER(modify_wq) PLACEHOLDER(poll_cq) PLACEHOLDER(post_send)
PLACEHOLDER(post_srq_ops) PLACEHOLDER(post_srq_recv) PLACEHOLDER(query_qp)
PLACEHOLDER(query_rt_values) PLACEHOLDER(query_srq) PLACEHOLDER(read_counters)
PLACEHOLDER(reg_dm_mr) PLACEHOLDER(rereg_mr) PLACEHOLDER(resize_cq)

static const struct abi34_context_ops t_ops = {
	.advise_mr = PH(advise_mr),
	.alloc_dm = PH(alloc_dm),
	.alloc_mw = PH(alloc_mw),
	.alloc_null_mr = PH(alloc_null_mr),
	.alloc_parent_domain = PH(alloc_parent_domain),
	.alloc_pd = t_alloc_pd,
	.alloc_td = PH(alloc_td),
	.async_event = t_async_event,
	.attach_counters_point_flow = PH(attach_counters_point_flow),
	.attach_mcast = PH(attach_mcast),
	.bind_mw = PH(bind_mw),
	.close_xrcd = PH(close_xrcd),
	.cq_event = PH(cq_event),
	.create_ah = PH(create_ah),
	.create_counters = PH(create_counters),
	.create_cq = t_create_cq,
	.create_cq_ex = t_create_cq_ex,
	.create_flow = PH(create_flow),
	.create_flow_action_esp = PH(create_flow_action_esp),
	.create_qp = PH(create_qp),
	.create_qp_ex = PH(create_qp_ex),
	.create_rwq_ind_table = PH(create_rwq_ind_table),
	.create_srq = PH(create_srq),
	.create_srq_ex = t_create_srq_ex,
	.create_wq = PH(create_wq),
	.dealloc_mw = PH(dealloc_mw),
	.dealloc_pd = t_dealloc_pd,
	.dealloc_td = PH(dealloc_td),
	.dereg_mr = t_dereg_mr,
	.destroy_ah = PH(destroy_ah),
	.destroy_counters = PH(destroy_counters),
	.destroy_cq = PH(destroy_cq),
	.destroy_flow = PH(destroy_flow),
	.destroy_flow_action = PH(destroy_flow_action),
	.destroy_qp = PH(destroy_qp),
	.destroy_rwq_ind_table = PH(destroy_rwq_ind_table),
	.destroy_srq = PH(destroy_srq),
	.destroy_wq = PH(destroy_wq),
	.detach_mcast = PH(detach_mcast),
	.free_context = t_free_context,
	.free_dm = PH(free_dm),
	.get_srq_num = t_get_srq_num,
	.import_dm = t_import_dm,
	.import_mr = t_import_mr,
	.import_pd = t_import_pd,
	.modify_cq = PH(modify_cq),
	.modify_flow_action_esp = PH(modify_flow_action_esp),
	.modify_qp = t_modify_qp,
	.modify_qp_rate_limit = PH(modify_qp_rate_limit),
	.modify_srq = PH(modify_srq),
	.modify_wq = PH(modify_wq),
	.open_qp = t_open_qp,
	.open_xrcd = t_open_xrcd,
	.poll_cq = PH(poll_cq),
	.post_recv = t_post_recv,
	.post_send = PH(post_send),
	.post_srq_ops = PH(post_srq_ops),
	.post_srq_recv = PH(post_srq_recv),
	.query_device_ex = t_query_device_ex,
	.query_ece = t_query_ece,
	.query_port = t_query_port,
	.query_qp = PH(query_qp),
	.query_qp_data_in_order = t_query_qp_data_in_order,
	.query_rt_values = PH(query_rt_values),
	.query_srq = PH(query_srq),
	.read_counters = PH(read_counters),
	.reg_dm_mr = PH(reg_dm_mr),
	.reg_dmabuf_mr = t_reg_dmabuf_mr,
	.reg_mr = t_reg_mr,
	.req_notify_cq = t_req_notify_cq,
	.rereg_mr = PH(rereg_mr),
	.resize_cq = PH(resize_cq),
	.set_ece = t_set_ece,
	.unimport_dm = t_unimport_dm,
	.unimport_mr = t_unimport_mr,
	.unimport_pd = t_unimport_pd,
};

/* Where verbs_set_ops() must have mirrored each member (dummy_ops.c). */
enum where { IN_VCTX, IN_CTX_OPS, IN_NONE };
struct mirror {
	const char *name;
	size_t ours;		/* offset in struct abi34_context_ops */
	enum where where;
	size_t pub;		/* offset in verbs_context or ibv_context_ops */
};
#define OURS(n) offsetof(struct abi34_context_ops, n)
#define MV(n) { #n, OURS(n), IN_VCTX, offsetof(struct verbs_context, n) }
#define MV2(n, p) { #n, OURS(n), IN_VCTX, offsetof(struct verbs_context, p) }
#define MC(n) { #n, OURS(n), IN_CTX_OPS, offsetof(struct ibv_context_ops, n) }
#define MP(n) { #n, OURS(n), IN_CTX_OPS, offsetof(struct ibv_context_ops, _compat_##n) }
#define MI(n) { #n, OURS(n), IN_NONE, 0 }

static const struct mirror mirrors[] = {
	MV(advise_mr), MV(alloc_dm), MC(alloc_mw), MV(alloc_null_mr),
	MV(alloc_parent_domain), MP(alloc_pd), MV(alloc_td), MP(async_event),
	MV(attach_counters_point_flow), MP(attach_mcast), MC(bind_mw), MV(close_xrcd),
	MP(cq_event), MP(create_ah), MV(create_counters), MP(create_cq),
	MI(create_cq_ex), MV2(create_flow, ibv_create_flow), MV(create_flow_action_esp),
	MP(create_qp), MV(create_qp_ex), MV(create_rwq_ind_table), MP(create_srq),
	MV(create_srq_ex), MV(create_wq), MC(dealloc_mw), MP(dealloc_pd), MV(dealloc_td),
	MP(dereg_mr), MP(destroy_ah), MV(destroy_counters), MP(destroy_cq),
	MV2(destroy_flow, ibv_destroy_flow), MV(destroy_flow_action), MP(destroy_qp),
	MV(destroy_rwq_ind_table), MP(destroy_srq), MV(destroy_wq), MP(detach_mcast),
	MI(free_context), MV(free_dm), MV(get_srq_num), MI(import_dm), MI(import_mr),
	MI(import_pd), MV(modify_cq), MV(modify_flow_action_esp), MP(modify_qp),
	MV(modify_qp_rate_limit), MP(modify_srq), MV(modify_wq), MV(open_qp),
	MV(open_xrcd), MC(poll_cq), MC(post_recv), MC(post_send), MV(post_srq_ops),
	MC(post_srq_recv), MV(query_device_ex), MI(query_ece), MI(query_port),
	MP(query_qp), MI(query_qp_data_in_order), MV(query_rt_values), MP(query_srq),
	MV(read_counters), MV(reg_dm_mr), MI(reg_dmabuf_mr), MP(reg_mr), MC(req_notify_cq),
	MP(rereg_mr), MP(resize_cq), MI(set_ece), MI(unimport_dm), MI(unimport_mr),
	MI(unimport_pd),
};

static void *op_at(const void *table, size_t off)
{
	void *p;

	memcpy(&p, (const char *)table + off, sizeof(p));
	return p;
}

static void check_ops_mirrored(struct verbs_context *vctx)
{
	size_t n = sizeof(mirrors) / sizeof(mirrors[0]);
	unsigned char seen[ABI34_CONTEXT_OPS_COUNT] = { 0 };
	size_t i, j;

	CHECK(n == ABI34_CONTEXT_OPS_COUNT, "mirror table lists %zu ops", n);
	for (i = 0; i < n; i++) {
		const struct mirror *m = &mirrors[i];
		void *ours = op_at(&t_ops, m->ours);

		if (m->ours / sizeof(void *) < ABI34_CONTEXT_OPS_COUNT)
			seen[m->ours / sizeof(void *)]++;
		for (j = 0; j < i && op_at(&t_ops, mirrors[j].ours) != ours; j++)
			;
		CHECK(ours != NULL && j == i, "test op %s unset or shared", m->name);
		if (m->where == IN_VCTX)
			CHECK(op_at(vctx, m->pub) == ours,
			      "verbs_set_ops did not put our %s into verbs_context.%s: "
			      "member order differs", m->name, m->name);
		else if (m->where == IN_CTX_OPS)
			CHECK(op_at(&vctx->context.ops, m->pub) == ours,
			      "verbs_set_ops did not put our %s into ibv_context_ops: "
			      "member order differs", m->name);
	}
	for (i = 0; i < ABI34_CONTEXT_OPS_COUNT && seen[i] == 1; i++)
		;
	CHECK(i == ABI34_CONTEXT_OPS_COUNT, "op slot %zu listed %u times", i,
	      i < ABI34_CONTEXT_OPS_COUNT ? seen[i] : 0);
}

/* -- the device's entry points -- */

static struct verbs_context *t_alloc_context(struct ibv_device *device, int cmd_fd,
					     void *private_data)
{
	WITH_UHW(struct abi34_cmd_get_context) cmd;
	WITH_UHW(struct ib_uverbs_get_context_resp) resp;
	struct test_ctx *c;
	int ret;

	CHECK(cmd_fd == -1, "alloc_context: cmd_fd %d for a device without sysfs", cmd_fd);
	CHECK(private_data == (void *)&fake_sysfs, "alloc_context: private_data not passed");
	/*
	 * The provider opens its own command fd and hands it to the init call
	 * (xqp: /dev/xqp/uverbsN). Here: a pipe, which answers ioctl() with
	 * ENOTTY just as xqp's char device does.
	 */
	if (pipe2(cmd_pipe, O_CLOEXEC) || pipe2(async_pipe, O_CLOEXEC) ||
	    fcntl(cmd_pipe[0], F_SETFL, O_NONBLOCK) || fcntl(async_pipe[0], F_SETFL, O_NONBLOCK)) {
		fail("pipe: %s", strerror(errno));
		return NULL;
	}
	c = _verbs_init_and_alloc_context(device, cmd_pipe[1], sizeof(*c),
					  (struct verbs_context *)offsetof(struct test_ctx, vctx),
					  0);
	CHECK(c != NULL, "_verbs_init_and_alloc_context: %s", strerror(errno));
	if (!c)
		return NULL;
	the_ctx = c;
	CHECK(c->before == 0 && c->after == 0, "context allocation not zeroed / offset ignored");
	CHECK(c->vctx.context.device == device, "context.device");
	CHECK(c->vctx.context.cmd_fd == cmd_pipe[1], "context.cmd_fd is not the fd we gave");
	CHECK(c->vctx.context.async_fd == -1, "context.async_fd before GET_CONTEXT: %d",
	      c->vctx.context.async_fd);
	CHECK(c->vctx.context.abi_compat == __VERBS_ABI_IS_EXTENDED, "context.abi_compat");
	CHECK(c->vctx.sz == sizeof(struct verbs_context), "verbs_context.sz %zu", c->vctx.sz);
	CHECK(c->vctx.priv != NULL, "verbs_context.priv");
	CHECK(atomic_load(&fake_dev.refcount) == 2,
	      "device refcount %d after init (abi34_device.refcount misplaced?)",
	      atomic_load(&fake_dev.refcount));
	CHECK(take() == 0, "the ioctl probe wrote %zu bytes", wire_len);

	/* GET_CONTEXT, with 8 bytes of driver data each way. */
	memset(&cmd, FILL, sizeof(cmd));
	memset(cmd.raw + sizeof(cmd.s), UHW, 8);
	memset(&resp, 0, sizeof(resp));
	resp.s.async_fd = (uint32_t)async_pipe[0];
	resp.s.num_comp_vectors = 1;
	ret = ibv_cmd_get_context(&c->vctx, &cmd.s, sizeof(cmd), &resp.s, sizeof(resp));
	CHECK(ret == 0, "ibv_cmd_get_context: %s (the ENOTTY fallback to write() failed?)",
	      strerror(ret));
	take();
	expect_cmd("GET_CONTEXT", IB_USER_VERBS_CMD_GET_CONTEXT, sizeof(cmd), sizeof(resp));
	if (wire_len == sizeof(cmd)) {
		const struct ib_uverbs_get_context *k = wire_core();

		CHECK(k->response == (uintptr_t)&resp, "GET_CONTEXT.response");
		CHECK(all_bytes(wire + sizeof(cmd.s), 8, UHW),
		      "GET_CONTEXT: driver data not right after the core request");
	}
	CHECK(c->vctx.context.async_fd == async_pipe[0], "async_fd not taken from the response");
	CHECK(c->vctx.context.num_comp_vectors == 1, "num_comp_vectors not taken");

	verbs_set_ops(&c->vctx, &t_ops);
	return &c->vctx;
}

static const struct abi34_device_ops fake_dev_ops = {
	.name = "xqp-abi-check",
	.match_min_abi_version = 1,
	.match_max_abi_version = 1,
	.alloc_context = t_alloc_context,
};

static int write_file(const char *rel, const char *text)
{
	char path[PATH_MAX], dir[PATH_MAX], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", sysfs_dir, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	for (slash = dir + strlen(sysfs_dir) + 1; (slash = strchr(slash, '/')); slash++) {
		*slash = '\0';
		if (mkdir(dir, 0700) && errno != EEXIST)
			return -1;
		*slash = '/';
	}
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static void remove_tree(void)
{
	static const char *const files[] = {
		"ports/1/gids/0", "ports/1/pkeys/0", "board_id",
		"ports/1/gids", "ports/1/pkeys", "ports/1", "ports",
	};
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", sysfs_dir, files[i]);
		remove(path);
	}
	rmdir(sysfs_dir);
}

static void run_fake_device(void)
{
	static char buf[2 * 4096] __attribute__((aligned(4096)));
	struct ibv_context *ctx;
	struct verbs_context *vctx;
	struct ibv_pd *pd;
	struct ibv_xrcd *xrcd;
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct ibv_mr *mr;
	struct ibv_comp_channel *ch;
	struct ibv_port_attr pa;
	struct ibv_device_attr_ex ax;
	struct ibv_device_attr da;
	struct ibv_async_event ev;
	union ibv_gid gid;
	__be16 pkey;
	int cq_cookie, gid_type = -1;
	uint32_t srqn = 0;
	char text[64];
	int i;

	/* The device as libibverbs would have built it (init.c: try_driver). */
	fake_dev.ops = &fake_dev_ops;
	atomic_init(&fake_dev.refcount, 1);
	fake_dev.device.node_type = IBV_NODE_CA;
	fake_dev.device.transport_type = IBV_TRANSPORT_IB;
	snprintf(fake_dev.device.name, sizeof(fake_dev.device.name), "xqp_check0");
	snprintf(fake_dev.device.dev_name, sizeof(fake_dev.device.dev_name), "uverbs99");

	/* No sysfs while opening: libibverbs opens nothing, cmd_fd = -1. */
	ctx = verbs_open_device(&fake_dev.device, &fake_sysfs);
	CHECK(ctx != NULL, "verbs_open_device failed: %s", strerror(errno));
	if (!ctx)
		return;
	vctx = &the_ctx->vctx;
	CHECK(ctx == &vctx->context, "verbs_open_device returned another context");
	check_ops_mirrored(vctx);
	/* set_lib_ops() (device.c) then installed libibverbs' own wrappers. */
	CHECK(vctx->query_port != NULL && vctx->create_cq_ex != NULL,
	      "libibverbs' query_port/create_cq_ex wrappers missing");
	CHECK(vctx->ABI_placeholder1 == (void (*)(void))vctx->ibv_create_flow &&
	      vctx->ABI_placeholder2 == (void (*)(void))vctx->ibv_destroy_flow,
	      "flow placeholders");

	/* From here libibverbs may read the device's sysfs record. */
	if (!mkdtemp(sysfs_dir)) {
		fail("mkdtemp: %s", strerror(errno));
		return;
	}
	fake_sysfs.flags = ABI34_SYSFS_READ_NODE_GUID;
	fake_sysfs.node_guid = 0x0258515200000001ULL;
	fake_sysfs.ibdev_idx = 42;
	fake_sysfs.num_ports = 1;
	fake_sysfs.abi_ver = 1;
	snprintf(fake_sysfs.ibdev_name, sizeof(fake_sysfs.ibdev_name), "xqp_check0");
	snprintf(fake_sysfs.ibdev_path, sizeof(fake_sysfs.ibdev_path), "%s", sysfs_dir);
	fake_dev.sysfs = &fake_sysfs;
	CHECK(write_file("ports/1/gids/0", "fe80:0000:0000:0000:0258:5152:0000:0001\n") == 0 &&
	      write_file("ports/1/pkeys/0", "0xffff\n") == 0 &&
	      write_file("board_id", "xqp\n") == 0, "cannot write the fake sysfs tree");

	CHECK(ibv_get_device_guid(&fake_dev.device) == htobe64(fake_sysfs.node_guid),
	      "ibv_get_device_guid: sysfs flags/node_guid misplaced");
	CHECK(ibv_get_device_index(&fake_dev.device) == 42,
	      "ibv_get_device_index: sysfs ibdev_idx misplaced");
	CHECK(ibv_read_ibdev_sysfs_file(text, sizeof(text), &fake_sysfs, "ports/%d/pkeys/%d",
					1, 0) == 6 && !strcmp(text, "0xffff"),
	      "ibv_read_ibdev_sysfs_file: sysfs ibdev_path misplaced");

	/* QUERY_PORT: reserved cleared by libibverbs, whatever we left there. */
	memset(&pa, 0, sizeof(pa));
	ic_expected = IC_QUERY_PORT;
	CHECK(ibv_query_port(ctx, 1, &pa) == 0, "ibv_query_port");
	take();
	expect_cmd("QUERY_PORT", IB_USER_VERBS_CMD_QUERY_PORT,
		   sizeof(struct abi34_cmd_query_port), sizeof(struct ib_uverbs_query_port_resp));
	if (wire_len == sizeof(struct abi34_cmd_query_port)) {
		const struct ib_uverbs_query_port *k = wire_core();

		CHECK(k->port_num == 1, "QUERY_PORT.port_num");
		CHECK(all_bytes(k->reserved, sizeof(k->reserved), 0),
		      "QUERY_PORT.reserved not cleared by libibverbs (docs/provider.md says it is)");
	}

	pd = ibv_alloc_pd(ctx);
	CHECK(pd && pd->handle == 0x77 && pd->context == ctx, "ibv_alloc_pd");
	take();
	expect_cmd("ALLOC_PD", IB_USER_VERBS_CMD_ALLOC_PD, sizeof(struct abi34_cmd_alloc_pd),
		   sizeof(struct ib_uverbs_alloc_pd_resp));
	if (!pd)
		return;
	{
		struct ibv_pd *pd2 = ibv_alloc_pd(ctx);

		take();
		/* DEALLOC_PD: tries the ioctl form, then write(); no response. */
		CHECK(pd2 && ibv_dealloc_pd(pd2) == 0, "ibv_dealloc_pd");
		take();
		expect_cmd("DEALLOC_PD", IB_USER_VERBS_CMD_DEALLOC_PD,
			   sizeof(struct ib_uverbs_cmd_hdr) + sizeof(struct ib_uverbs_dealloc_pd), 0);
		if (wire_len == sizeof(struct ib_uverbs_cmd_hdr) + sizeof(struct ib_uverbs_dealloc_pd))
			CHECK(((const struct ib_uverbs_dealloc_pd *)wire_core())->pd_handle == 0x77,
			      "DEALLOC_PD.pd_handle");
	}

	{
		struct ibv_xrcd_init_attr xa = {
			.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
			.fd = -1, .oflags = O_CREAT,
		};
		struct abi34_xrcd *vx;

		xrcd = ibv_open_xrcd(ctx, &xa);
		CHECK(xrcd != NULL, "ibv_open_xrcd");
		if (!xrcd)
			return;
		vx = abi34_container_of(xrcd, struct abi34_xrcd, xrcd);
		CHECK(vx->handle == 0x55 && vx->comp_mask == ABI34_XRCD_HANDLE &&
		      xrcd->context == ctx, "ibv_cmd_open_xrcd: verbs_xrcd layout");
		take();
		expect_cmd("OPEN_XRCD", IB_USER_VERBS_CMD_OPEN_XRCD,
			   sizeof(struct abi34_cmd_open_xrcd),
			   sizeof(struct ib_uverbs_open_xrcd_resp));
		if (wire_len == sizeof(struct abi34_cmd_open_xrcd)) {
			const struct ib_uverbs_open_xrcd *k = wire_core();

			CHECK(k->fd == (uint32_t)-1 && k->oflags == O_CREAT, "OPEN_XRCD fields");
		}
	}

	/* OPEN_QP: libibverbs fills the fields and leaves reserved[] alone. */
	{
		struct ibv_qp_open_attr oa = {
			.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
				     IBV_QP_OPEN_ATTR_TYPE | IBV_QP_OPEN_ATTR_CONTEXT,
			.qp_num = 0x123, .xrcd = xrcd, .qp_context = &cq_cookie,
			.qp_type = IBV_QPT_XRC_RECV,
		};
		struct abi34_qp *vq;

		qp = ibv_open_qp(ctx, &oa);
		CHECK(qp != NULL, "ibv_open_qp");
		if (!qp)
			return;
		vq = abi34_container_of(qp, struct abi34_qp, qp);
		CHECK(qp->handle == 0x66 && qp->qp_num == 0x123 && qp->context == ctx &&
		      qp->qp_type == IBV_QPT_XRC_RECV && qp->state == IBV_QPS_UNKNOWN &&
		      qp->qp_context == &cq_cookie, "ibv_cmd_open_qp: ibv_qp fields");
		CHECK(vq->comp_mask == ABI34_QP_XRCD &&
		      vq->xrcd == abi34_container_of(xrcd, struct abi34_xrcd, xrcd),
		      "ibv_cmd_open_qp: verbs_qp comp_mask/xrcd misplaced");
		take();
		expect_cmd("OPEN_QP", IB_USER_VERBS_CMD_OPEN_QP, sizeof(struct abi34_cmd_open_qp),
			   sizeof(struct ib_uverbs_create_qp_resp));
		if (wire_len == sizeof(struct abi34_cmd_open_qp)) {
			const struct ib_uverbs_open_qp *k = wire_core();

			CHECK(k->user_handle == (uintptr_t)qp && k->pd_handle == 0x55 &&
			      k->qpn == 0x123 && k->qp_type == IBV_QPT_XRC_RECV,
			      "OPEN_QP fields");
			CHECK(all_bytes(k->reserved, sizeof(k->reserved), FILL),
			      "OPEN_QP.reserved: libibverbs now writes it "
			      "(docs/provider.md says it passes the provider's bytes)");
		}
	}

	/* MODIFY_QP: only masked fields and reserved[] are written. */
	{
		struct ibv_qp_attr qa = { .qp_state = IBV_QPS_INIT };

		CHECK(ibv_modify_qp(qp, &qa, IBV_QP_STATE) == 0, "ibv_modify_qp");
		CHECK(qp->state == IBV_QPS_INIT, "ibv_modify_qp did not record the state");
		take();
		expect_cmd("MODIFY_QP", IB_USER_VERBS_CMD_MODIFY_QP,
			   sizeof(struct abi34_cmd_modify_qp), 0);
		if (wire_len == sizeof(struct abi34_cmd_modify_qp)) {
			const struct ib_uverbs_modify_qp *k = wire_core();

			CHECK(k->qp_handle == 0x66 && k->attr_mask == IBV_QP_STATE &&
			      k->qp_state == IBV_QPS_INIT, "MODIFY_QP fields");
			CHECK(all_bytes(k->reserved, sizeof(k->reserved), 0),
			      "MODIFY_QP.reserved not cleared (docs/provider.md says it is)");
			CHECK(k->dest_qp_num == 0xa5a5a5a5U && k->dest.reserved == 0xa5a5,
			      "MODIFY_QP: unmasked fields are now written "
			      "(docs/provider.md says they keep the provider's bytes)");
		}
	}

	/* CREATE_CQ with driver data: request built in our buffer. */
	cq = ibv_create_cq(ctx, 15, &cq_cookie, NULL, 0);
	CHECK(cq && cq->handle == 0x99 && cq->cqe == 15 && cq->context == ctx &&
	      cq->cq_context == &cq_cookie && cq->channel == NULL, "ibv_create_cq");
	take();
	expect_cmd("CREATE_CQ", IB_USER_VERBS_CMD_CREATE_CQ,
		   sizeof(struct abi34_cmd_create_cq) + 8,
		   sizeof(struct ib_uverbs_create_cq_resp) + 8);
	if (wire_len == sizeof(struct abi34_cmd_create_cq) + 8) {
		const struct ib_uverbs_create_cq *k = wire_core();

		CHECK(cq && k->user_handle == (uintptr_t)cq && k->cqe == 15 &&
		      k->comp_vector == 0 && k->comp_channel == -1, "CREATE_CQ fields");
		CHECK(k->reserved == 0, "CREATE_CQ.reserved not cleared (docs/provider.md says it is)");
		CHECK(all_bytes(wire + sizeof(struct abi34_cmd_create_cq), 8, UHW),
		      "CREATE_CQ: driver data misplaced");
	}
	if (!cq)
		return;

	CHECK(ibv_req_notify_cq(cq, 1) == 0, "ibv_req_notify_cq");
	take();
	expect_cmd("REQ_NOTIFY_CQ", IB_USER_VERBS_CMD_REQ_NOTIFY_CQ,
		   sizeof(struct ib_uverbs_cmd_hdr) + sizeof(struct ib_uverbs_req_notify_cq), 0);
	if (wire_len >= sizeof(struct ib_uverbs_cmd_hdr) + sizeof(struct ib_uverbs_req_notify_cq)) {
		const struct ib_uverbs_req_notify_cq *k = wire_core();

		CHECK(k->cq_handle == 0x99 && k->solicited_only == 1, "REQ_NOTIFY_CQ fields");
	}

	/* POST_RECV: header, WQEs of wqe_size, then the SGEs. */
	{
		struct ibv_sge sge = { .addr = 0x1000, .length = 64, .lkey = 0x1111 };
		struct ibv_recv_wr wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1 }, *bad = NULL;
		size_t len = sizeof(struct ib_uverbs_cmd_hdr) + sizeof(struct ib_uverbs_post_recv) +
			     sizeof(struct ib_uverbs_recv_wr) + sizeof(struct ib_uverbs_sge);

		CHECK(ibv_post_recv(qp, &wr, &bad) == 0, "ibv_post_recv");
		take();
		expect_cmd("POST_RECV", IB_USER_VERBS_CMD_POST_RECV, len,
			   sizeof(struct ib_uverbs_post_recv_resp));
		if (wire_len == len) {
			const struct ib_uverbs_post_recv *k = wire_core();
			const struct ib_uverbs_recv_wr *w = (const void *)(k + 1);
			const struct ib_uverbs_sge *s = (const void *)(w + 1);

			CHECK(k->qp_handle == 0x66 && k->wr_count == 1 && k->sge_count == 1 &&
			      k->wqe_size == sizeof(*w), "POST_RECV header");
			CHECK(w->wr_id == 7 && w->num_sge == 1 && s->addr == 0x1000 &&
			      s->length == 64 && s->lkey == 0x1111, "POST_RECV WQE/SGE");
		}
	}

	/* CREATE_XSRQ: an XRC SRQ; the helper fills the verbs_srq tail. */
	{
		struct ibv_srq_init_attr_ex sa = {
			.attr = { .max_wr = 8, .max_sge = 1 },
			.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_XRCD |
				     IBV_SRQ_INIT_ATTR_CQ | IBV_SRQ_INIT_ATTR_PD,
			.srq_type = IBV_SRQT_XRC, .pd = pd, .xrcd = xrcd, .cq = cq,
		};
		struct abi34_srq *vs;

		srq = ibv_create_srq_ex(ctx, &sa);
		CHECK(srq != NULL, "ibv_create_srq_ex");
		if (srq) {
			vs = abi34_container_of(srq, struct abi34_srq, srq);
			CHECK(srq->handle == 0x44 && srq->context == ctx, "ibv_cmd_create_srq_ex");
			CHECK(vs->srq_type == IBV_SRQT_XRC && vs->srq_num == 0x321 &&
			      vs->cq == cq &&
			      vs->xrcd == abi34_container_of(xrcd, struct abi34_xrcd, xrcd),
			      "ibv_cmd_create_srq_ex: verbs_srq layout");
			CHECK(ibv_get_srq_num(srq, &srqn) == 0 && srqn == 0x321, "ibv_get_srq_num");
		}
		take();
		expect_cmd("CREATE_XSRQ", IB_USER_VERBS_CMD_CREATE_XSRQ,
			   sizeof(struct abi34_cmd_create_xsrq) + 8,
			   sizeof(struct ib_uverbs_create_srq_resp) + 8);
		if (wire_len == sizeof(struct abi34_cmd_create_xsrq) + 8) {
			const struct ib_uverbs_create_xsrq *k = wire_core();

			CHECK(k->user_handle == (uintptr_t)srq && k->srq_type == IBV_SRQT_XRC &&
			      k->pd_handle == 0x77 && k->max_wr == 8 && k->max_sge == 1 &&
			      k->cq_handle == 0x99 && k->xrcd_handle == 0x55, "CREATE_XSRQ fields");
			CHECK(k->srq_limit == 0 && k->max_num_tags == 0,
			      "CREATE_XSRQ: fields not given were not cleared");
		}
	}

	/* REG_MR: optional access bits survive only with core_support set. */
	fake_dev.core_support = IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS;
	mr = ibv_reg_mr_iova2(pd, buf, 4096, (uintptr_t)buf,
			      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_RELAXED_ORDERING);
	CHECK(mr && reg_mr_access == (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_RELAXED_ORDERING),
	      "ibv_reg_mr: abi34_device.core_support misplaced");
	if (mr) {
		struct abi34_mr *vm = abi34_container_of(mr, struct abi34_mr, ibv_mr);

		CHECK(mr->handle == 0x88 && mr->lkey == 0x1111 && mr->rkey == 0x2222 &&
		      mr->addr == buf && mr->length == 4096 && mr->pd == pd,
		      "ibv_cmd_reg_mr: ibv_mr fields");
		CHECK(vm->mr_type == ABI34_MR_TYPE_MR &&
		      vm->access == (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_RELAXED_ORDERING),
		      "ibv_cmd_reg_mr: verbs_mr layout");
	}
	take();
	expect_cmd("REG_MR", IB_USER_VERBS_CMD_REG_MR, sizeof(struct abi34_cmd_reg_mr),
		   sizeof(struct ib_uverbs_reg_mr_resp));
	if (wire_len == sizeof(struct abi34_cmd_reg_mr)) {
		const struct ib_uverbs_reg_mr *k = wire_core();

		CHECK(k->start == (uintptr_t)buf && k->length == 4096 &&
		      k->hca_va == (uintptr_t)buf && k->pd_handle == 0x77, "REG_MR fields");
	}
	if (mr) {
		CHECK(ibv_dereg_mr(mr) == 0, "ibv_dereg_mr");
		take();
		expect_cmd("DEREG_MR", IB_USER_VERBS_CMD_DEREG_MR,
			   sizeof(struct ib_uverbs_cmd_hdr) + sizeof(struct ib_uverbs_dereg_mr), 0);
	}
	fake_dev.core_support = 0;
	mr = ibv_reg_mr_iova2(pd, buf + 4096, 4096, (uintptr_t)buf + 4096,
			      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_RELAXED_ORDERING);
	CHECK(mr && reg_mr_access == IBV_ACCESS_LOCAL_WRITE,
	      "ibv_reg_mr kept optional bits without core_support");
	take();	/* REG_MR again */

	/* Async events: libibverbs reads async_fd itself. */
	{
		struct ib_uverbs_async_event_desc d = {
			.element = (uintptr_t)qp, .event_type = IBV_EVENT_COMM_EST,
		};

		CHECK(write(async_pipe[1], &d, sizeof(d)) == sizeof(d), "async pipe write");
		CHECK(ibv_get_async_event(ctx, &ev) == 0 && ev.event_type == IBV_EVENT_COMM_EST &&
		      ev.element.qp == qp, "ibv_get_async_event");
		CHECK(async_events == 1, "provider async_event op not called");
		ibv_ack_async_event(&ev);
		CHECK(qp->events_completed == 1, "ibv_ack_async_event");
	}

	/* Completion channels are created by libibverbs itself, on cmd_fd. */
	ch = ibv_create_comp_channel(ctx);
	CHECK(ch != NULL, "ibv_create_comp_channel");
	take();
	expect_cmd("CREATE_COMP_CHANNEL", IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL,
		   sizeof(struct ib_uverbs_cmd_hdr) + sizeof(struct ib_uverbs_create_comp_channel),
		   sizeof(struct ib_uverbs_create_comp_channel_resp));
	free(ch);	/* its fd came from an unwritten response: not ours to close */

	/* ibv_query_device_ex: the extended command first (xqp: EOPNOTSUPP). */
	memset(&ax, 0xff, sizeof(ax));
	CHECK(ibv_query_device_ex(ctx, NULL, &ax) == 0, "ibv_query_device_ex");
	CHECK(ax.phys_port_cnt_ex == 1, "phys_port_cnt_ex %u: sysfs num_ports misplaced",
	      ax.phys_port_cnt_ex);
	take();
	{
		struct ib_uverbs_cmd_hdr h = wire_hdr();
		struct ib_uverbs_ex_cmd_hdr x;
		size_t len = sizeof(h) + sizeof(x) + sizeof(struct ib_uverbs_ex_query_device);

		CHECK(wire_len == len, "EX_QUERY_DEVICE: %zu bytes, expected %zu", wire_len, len);
		CHECK(h.command == (IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_QUERY_DEVICE),
		      "EX_QUERY_DEVICE: command 0x%x", h.command);
		if (wire_len == len) {
			memcpy(&x, wire + sizeof(h), sizeof(x));
			CHECK(h.in_words == 1 && x.provider_in_words == 0 &&
			      x.provider_out_words == 0 && x.cmd_hdr_reserved == 0 &&
			      x.response != 0 && h.out_words > 0, "EX_QUERY_DEVICE header");
		}
	}
	/* The legacy entry goes straight to QUERY_DEVICE. */
	CHECK(ibv_query_device(ctx, &da) == 0, "ibv_query_device");
	take();
	expect_cmd("QUERY_DEVICE", IB_USER_VERBS_CMD_QUERY_DEVICE,
		   sizeof(struct ib_uverbs_cmd_hdr) + sizeof(struct ib_uverbs_query_device),
		   sizeof(struct ib_uverbs_query_device_resp));

	/* GIDs and P_Keys come from sysfs, not from the command fd. */
	CHECK(ibv_query_gid(ctx, 1, 0, &gid) == 0, "ibv_query_gid");
	CHECK(gid.raw[0] == 0xfe && gid.raw[1] == 0x80 && gid.raw[8] == 0x02 &&
	      gid.raw[15] == 0x01, "ibv_query_gid: wrong GID from sysfs");
	CHECK(take() == 0, "ibv_query_gid wrote a command (%zu bytes)", wire_len);
	CHECK(ibv_query_pkey(ctx, 1, 0, &pkey) == 0 && pkey == htobe16(0xffff), "ibv_query_pkey");
	CHECK(take() == 0, "ibv_query_pkey wrote a command");
	ic_expected = IC_QUERY_PORT;
	CHECK(ibv_query_gid_type(ctx, 1, 0, &gid_type) == 0 && gid_type == 0,
	      "ibv_query_gid_type: %d (IB/RoCE v1 expected without gid_attrs)", gid_type);
	take();	/* it asked for the link layer: one QUERY_PORT */
	expect_cmd("QUERY_PORT (gid type)", IB_USER_VERBS_CMD_QUERY_PORT,
		   sizeof(struct abi34_cmd_query_port), sizeof(struct ib_uverbs_query_port_resp));
	CHECK(ibv_read_sysfs_file(sysfs_dir, "board_id", text, sizeof(text)) > 0 &&
	      !strcmp(text, "xqp"), "ibv_read_sysfs_file");

	/* The ops no public struct mirrors: reach each through libibverbs. */
	{
		struct ibv_ece ece = { .vendor_id = 1 };
		struct ibv_dm dm = { .context = ctx };
		struct ibv_mr fmr = { .context = ctx };
		struct ibv_cq_init_attr_ex ca = { .cqe = 1, .wc_flags = IBV_WC_STANDARD_FLAGS };

		ic_expected = IC_SET_ECE;
		ibv_set_ece(qp, &ece);
		ic_expected = IC_QUERY_ECE;
		ibv_query_ece(qp, &ece);
		ic_expected = IC_QUERY_QP_DATA_IN_ORDER;
		ibv_query_qp_data_in_order(qp, IBV_WR_SEND, 0);
		ic_expected = IC_IMPORT_PD;
		CHECK(ibv_import_pd(ctx, 1) == NULL, "import_pd op");
		ic_expected = IC_IMPORT_MR;
		CHECK(ibv_import_mr(pd, 1) == NULL, "import_mr op");
		ic_expected = IC_IMPORT_DM;
		CHECK(ibv_import_dm(ctx, 1) == NULL, "import_dm op");
		ic_expected = IC_UNIMPORT_PD;
		ibv_unimport_pd(pd);
		ic_expected = IC_UNIMPORT_MR;
		ibv_unimport_mr(&fmr);
		ic_expected = IC_UNIMPORT_DM;
		ibv_unimport_dm(&dm);
		ic_expected = IC_REG_DMABUF_MR;
		CHECK(ibv_reg_dmabuf_mr(pd, 0, 4096, 0, -1, 0) == NULL, "reg_dmabuf_mr op");
		ic_expected = IC_CREATE_CQ_EX;
		CHECK(ibv_create_cq_ex(ctx, &ca) == NULL, "create_cq_ex op");
		CHECK(take() == 0, "an unmirrored op wrote a command");
	}

	ic_expected = IC_FREE_CONTEXT;
	ibv_close_device(ctx);
	CHECK(atomic_load(&fake_dev.refcount) == 1, "device refcount %d after close",
	      atomic_load(&fake_dev.refcount));
	CHECK(fcntl(cmd_pipe[1], F_GETFD) == -1 && errno == EBADF,
	      "verbs_uninit_context did not close cmd_fd");
	CHECK(fcntl(async_pipe[0], F_GETFD) == -1 && errno == EBADF,
	      "verbs_uninit_context did not close async_fd");
	for (i = 0; i < IC_COUNT; i++)
		CHECK(ic_called & (1U << i), "op %s not reached through libibverbs: "
		      "member order differs", ic_names[i]);
	close(cmd_pipe[0]);
	close(async_pipe[1]);
	/* Without a kernel the destroy commands cannot be answered (their
	 * responses live on libibverbs' stack), so the objects are simply freed. */
	free(abi34_container_of(mr, struct abi34_mr, ibv_mr));
	free(abi34_container_of(srq, struct abi34_srq, srq));
	free(abi34_container_of(cq, struct abi34_cq, cq));
	free(abi34_container_of(qp, struct abi34_qp, qp));
	free(abi34_container_of(xrcd, struct abi34_xrcd, xrcd));
	free(pd);
}

int main(void)
{
	const char *lib;

	check_name = "abi-check";
	lib = check_symbols();
	if (lib)
		check_library_strings(lib);
	run_fake_device();
	if (sysfs_dir[strlen(sysfs_dir) - 1] != 'X')
		remove_tree();
	printf("abi-check: %d passed, %d failed (%s)\n", checks - failures, failures,
	       lib ? lib : "libibverbs");
	return failures ? 1 : 0;
}
