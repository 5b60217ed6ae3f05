// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * xqp: xqp's devices and objects, shaped like iproute2's `rdma`, from the
 * "xqp_res" generic netlink family (uapi/xqp_res.h) over a plain
 * NETLINK_GENERIC socket (no libnl, no libxqpverbs).
 *
 *   xqp [-j] [-p] [-d] dev [show [DEV]]
 *   xqp [-j] [-p] [-d] res [show [TYPE] [dev DEV] [qpn N] [pid P]]
 *       TYPE: qp | xrcd | srq | cq | pd | mr   (none: counts per device)
 *   -j JSON (one array), -p pretty JSON, -d details. docs/res.md.
 *
 * Exit status: 0; 1 on a kernel error (its errno is printed); 2 on usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "xqp_res.h"

static bool opt_json, opt_pretty, opt_details;

static void usage(void)
{
	fprintf(stderr,
		"Usage: xqp [-j] [-p] [-d] dev [show [DEV]]\n"
		"       xqp [-j] [-p] [-d] res [show [qp|xrcd|srq|cq|pd|mr] [dev DEV] [qpn N] [pid P]]\n");
	exit(2);
}

/* ---- netlink --------------------------------------------------------- */

struct nl {
	int fd;
	uint32_t seq;
	uint16_t family;
};

struct req {
	struct nlmsghdr nh;
	struct genlmsghdr gh;
	char attrs[256];
};

static void req_init(struct req *r, uint16_t type, uint16_t flags, uint8_t cmd, uint8_t version)
{
	memset(r, 0, sizeof(*r));
	r->nh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->nh.nlmsg_type = type;
	r->nh.nlmsg_flags = NLM_F_REQUEST | flags;
	r->gh.cmd = cmd;
	r->gh.version = version;
}

static void req_put(struct req *r, uint16_t type, const void *data, size_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)r + NLMSG_ALIGN(r->nh.nlmsg_len));

	if (NLMSG_ALIGN(r->nh.nlmsg_len) + NLA_HDRLEN + NLA_ALIGN(len) > sizeof(*r)) {
		fprintf(stderr, "xqp: request too long\n");
		exit(2);
	}
	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	r->nh.nlmsg_len = NLMSG_ALIGN(r->nh.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static void req_put_u32(struct req *r, uint16_t type, uint32_t v)
{
	req_put(r, type, &v, sizeof(v));
}

static void req_put_str(struct req *r, uint16_t type, const char *s)
{
	req_put(r, type, s, strlen(s) + 1);
}

/* Attributes of one level, indexed by type (the last one of a type wins). */
#define MAX_ATTR 64
struct attrs {
	const struct nlattr *a[MAX_ATTR];
};

static void parse(struct attrs *t, const void *buf, int len)
{
	const struct nlattr *a = buf;

	memset(t, 0, sizeof(*t));
	while (len >= (int)NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len) {
		int type = a->nla_type & NLA_TYPE_MASK;

		if (type < MAX_ATTR)
			t->a[type] = a;
		len -= NLA_ALIGN(a->nla_len);
		a = (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len));
	}
}

static const void *payload(const struct nlattr *a)
{
	return (const char *)a + NLA_HDRLEN;
}

static int plen(const struct nlattr *a)
{
	return a->nla_len - NLA_HDRLEN;
}

static uint32_t get_u32(const struct attrs *t, int type)
{
	uint32_t v = 0;

	if (t->a[type] && plen(t->a[type]) >= 4)
		memcpy(&v, payload(t->a[type]), 4);
	return v;
}

static uint64_t get_u64(const struct attrs *t, int type)
{
	uint64_t v = 0;

	if (t->a[type] && plen(t->a[type]) >= 8)
		memcpy(&v, payload(t->a[type]), 8);
	return v;
}

static uint8_t get_u8(const struct attrs *t, int type)
{
	return t->a[type] && plen(t->a[type]) >= 1 ? *(const uint8_t *)payload(t->a[type]) : 0;
}

static const char *get_str(const struct attrs *t, int type)
{
	const struct nlattr *a = t->a[type];

	if (!a || plen(a) < 1 || ((const char *)payload(a))[plen(a) - 1])
		return NULL;
	return payload(a);
}

static void nl_open(struct nl *nl)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	nl->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (nl->fd < 0 || bind(nl->fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "xqp: netlink socket: %s\n", strerror(errno));
		exit(1);
	}
	nl->seq = 1;
}

static void nl_send(struct nl *nl, struct req *r)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	r->nh.nlmsg_seq = ++nl->seq;
	if (sendto(nl->fd, r, r->nh.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "xqp: netlink send: %s\n", strerror(errno));
		exit(1);
	}
}

typedef void (*msg_fn)(const struct attrs *t, void *arg);

/* Receives the answers to the last request; 0 or the kernel's errno. */
static int nl_recv(struct nl *nl, msg_fn fn, void *arg)
{
	static char buf[65536];

	for (;;) {
		ssize_t n = recv(nl->fd, buf, sizeof(buf), 0);
		struct nlmsghdr *h;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != nl->seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
					return EPROTO;
				if (e->error == 0)
					return 0;	/* the ack of a non-dump request */
				return -e->error;
			}
			if (h->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
				continue;
			struct attrs t;
			parse(&t, (char *)NLMSG_DATA(h) + GENL_HDRLEN,
			      (int)h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN));
			fn(&t, arg);
			if (!(h->nlmsg_flags & NLM_F_MULTI))
				return 0;
		}
	}
}

static void family_cb(const struct attrs *t, void *arg)
{
	const struct nlattr *a = t->a[CTRL_ATTR_FAMILY_ID];

	if (a && plen(a) >= 2)
		memcpy(arg, payload(a), 2);
}

static void nl_family(struct nl *nl)
{
	struct req r;
	int err;

	req_init(&r, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY, 1);
	req_put_str(&r, CTRL_ATTR_FAMILY_NAME, XQP_RES_GENL_NAME);
	nl_send(nl, &r);
	nl->family = 0;
	err = nl_recv(nl, family_cb, &nl->family);
	if (err || !nl->family) {
		fprintf(stderr, "xqp: no %s netlink family (is xqp.ko loaded?): %s\n",
			XQP_RES_GENL_NAME, strerror(err ? err : ENOENT));
		exit(1);
	}
}

/* ---- output: one line per object, or JSON ----------------------------- */

static int json_count;		/* objects printed into the array */
static int json_depth;
static bool json_first;		/* no member printed yet at this level */

static void json_nl(void)
{
	if (!opt_pretty)
		return;
	putchar('\n');
	for (int i = 0; i < json_depth; i++)
		fputs("  ", stdout);
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void json_key(const char *k)
{
	if (!json_first)
		putchar(',');
	json_first = false;
	json_nl();
	json_str(k);
	fputs(opt_pretty ? ": " : ":", stdout);
}

static void json_open(char c)
{
	putchar(c);
	json_depth++;
	json_first = true;
}

static void json_close(char c)
{
	json_depth--;
	if (!json_first)
		json_nl();
	putchar(c);
	json_first = false;
}

static void json_begin_object(void)
{
	if (json_count++)
		putchar(',');
	json_nl();
	json_open('{');
}

/* A field: "key": value in JSON, " key value" in a line. */
static void field_u(const char *k, uint64_t v)
{
	if (opt_json) {
		json_key(k);
		printf("%llu", (unsigned long long)v);
	} else {
		printf(" %s %llu", k, (unsigned long long)v);
	}
}

static void field_s(const char *k, const char *v)
{
	if (opt_json) {
		json_key(k);
		json_str(v);
	} else {
		printf(" %s %s", k, v);
	}
}

static void field_flag(const char *k)
{
	if (opt_json) {
		json_key(k);
		fputs("true", stdout);
	} else {
		printf(" %s", k);
	}
}

static void field_u_opt(const struct attrs *t, int type, const char *k)
{
	if (t->a[type])
		field_u(k, get_u32(t, type));
}

static const char *qp_type_name(unsigned t)
{
	switch (t) {
	case 2: return "RC";
	case 3: return "UC";
	case 4: return "UD";
	case 9: return "XRC_INI";
	case 10: return "XRC_TGT";
	}
	return "UNKNOWN";
}

/* Owner fields (the object's, or one share's). */
static void put_owner(const struct attrs *t)
{
	switch (get_u8(t, XQP_RES_A_OWNER_KIND)) {
	case XQP_RES_OWNER_USER:
		field_u("pid", get_u32(t, XQP_RES_A_PID));
		field_s("comm", get_str(t, XQP_RES_A_COMM) ? get_str(t, XQP_RES_A_COMM) : "");
		if (opt_json || opt_details)
			field_u("uhandle", get_u32(t, XQP_RES_A_UHANDLE));
		break;
	case XQP_RES_OWNER_KERNEL:
		field_s("kernel", get_str(t, XQP_RES_A_KERN_NAME) ? get_str(t, XQP_RES_A_KERN_NAME) : "");
		break;
	default:
		if (opt_json || opt_details)
			field_s("owner", "none");
		break;
	}
}

static void put_shares(const struct attrs *t)
{
	const struct nlattr *list = t->a[XQP_RES_A_SHARES];
	const struct nlattr *a;
	int len, n = 0;

	if (opt_json) {
		json_key("shares");
		json_open('[');
	} else {
		fputs(" [", stdout);
	}
	if (list) {
		a = payload(list);
		len = plen(list);
		while (len >= (int)NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len) {
			struct attrs h;

			if ((a->nla_type & NLA_TYPE_MASK) == XQP_RES_A_SHARE) {
				parse(&h, payload(a), plen(a));
				if (opt_json) {
					if (n)
						putchar(',');
					json_first = true;
					json_nl();
					json_open('{');
					put_owner(&h);
					json_close('}');
				} else {
					fputs(n ? " |" : "", stdout);
					put_owner(&h);
				}
				n++;
			}
			len -= NLA_ALIGN(a->nla_len);
			a = (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len));
		}
	}
	if (opt_json)
		json_close(']');
	else
		fputs(" ]", stdout);
}

static const char *type_names[] = { "pd", "cq", "xrcd", "srq", "qp", "mr" };

static void obj_cb(const struct attrs *t, void *arg)
{
	unsigned type = get_u32(t, XQP_RES_A_TYPE);
	const char *dev = get_str(t, XQP_RES_A_DEV_NAME);

	(void)arg;
	if (opt_json) {
		json_begin_object();
		field_u("ifindex", get_u32(t, XQP_RES_A_DEV_INDEX));
		field_s("ifname", dev ? dev : "");
	} else {
		printf("dev %s", dev ? dev : "?");
	}
	if (type == XQP_RES_OBJ_QP) {
		unsigned qpt = get_u8(t, XQP_RES_A_QP_TYPE);

		field_u("qpn", get_u32(t, XQP_RES_A_QPN));
		field_s("type", qp_type_name(qpt));
		if (qpt == 10) {
			field_u("xrcdn", get_u32(t, XQP_RES_A_XRCDN));
			field_u("xrcd-usecnt", get_u32(t, XQP_RES_A_XRCD_USECNT));
			if (t->a[XQP_RES_A_DYING])
				field_flag("dying");
			if ((opt_json || opt_details) && get_str(t, XQP_RES_A_KERN_NAME))
				field_s("created-by", get_str(t, XQP_RES_A_KERN_NAME));
			/* JSON: "share_count" every share, "shares" those listed */
			field_u(opt_json ? "share_count" : "shares",
				get_u32(t, XQP_RES_A_SHARE_COUNT));
			put_shares(t);
		} else {
			field_u_opt(t, XQP_RES_A_ID, "id");
			field_u_opt(t, XQP_RES_A_PDN, "pdn");
			field_u_opt(t, XQP_RES_A_SCQN, "scqn");
			field_u_opt(t, XQP_RES_A_RCQN, "rcqn");
			field_u_opt(t, XQP_RES_A_SRQN, "srqn");
			put_owner(t);
		}
	} else {
		const char *idname[] = { "pdn", "cqn", "xrcdn", "srqn", "qpn", "mrn" };

		field_u(type <= XQP_RES_OBJ_MAX ? idname[type] : "id", get_u32(t, XQP_RES_A_ID));
		field_u_opt(t, XQP_RES_A_USECNT, "usecnt");
		switch (type) {
		case XQP_RES_OBJ_CQ:
			field_u_opt(t, XQP_RES_A_CQE, "cqe");
			break;
		case XQP_RES_OBJ_SRQ:
			field_u_opt(t, XQP_RES_A_SRQ_NUM, "srq-num");
			field_s("srq-type", get_u8(t, XQP_RES_A_SRQ_TYPE) ? "XRC" : "BASIC");
			field_u_opt(t, XQP_RES_A_PDN, "pdn");
			field_u_opt(t, XQP_RES_A_SCQN, "cqn");
			field_u_opt(t, XQP_RES_A_XRCDN, "xrcdn");
			break;
		case XQP_RES_OBJ_XRCD:
			if (t->a[XQP_RES_A_INODE])
				field_u("inode", get_u64(t, XQP_RES_A_INODE));
			break;
		case XQP_RES_OBJ_MR:
			field_u_opt(t, XQP_RES_A_PDN, "pdn");
			if (t->a[XQP_RES_A_MR_LEN])
				field_u("mrlen", get_u64(t, XQP_RES_A_MR_LEN));
			if (opt_json || opt_details) {
				field_u_opt(t, XQP_RES_A_LKEY, "lkey");
				field_u_opt(t, XQP_RES_A_RKEY, "rkey");
			}
			break;
		}
		put_owner(t);
	}
	if (opt_json)
		json_close('}');
	else
		putchar('\n');
}

static void dev_cb(const struct attrs *t, void *arg)
{
	const char *name = get_str(t, XQP_RES_A_DEV_NAME);

	(void)arg;
	if (opt_json) {
		json_begin_object();
		field_u("ifindex", get_u32(t, XQP_RES_A_DEV_INDEX));
		field_s("ifname", name ? name : "");
		field_u_opt(t, XQP_RES_A_PORTS, "ports");
		json_close('}');
	} else {
		printf("%u: %s:", get_u32(t, XQP_RES_A_DEV_INDEX), name ? name : "?");
		field_u_opt(t, XQP_RES_A_PORTS, "ports");
		putchar('\n');
	}
}

/* ---- commands ---------------------------------------------------------- */

struct filters {
	const char *dev;
	bool has_qpn, has_pid;
	uint32_t qpn, pid;
};

static void put_dev(struct req *r, const char *dev)
{
	char *end;
	unsigned long idx;

	if (!dev)
		return;
	idx = strtoul(dev, &end, 10);
	if (*dev && !*end)
		req_put_u32(r, XQP_RES_A_DEV_INDEX, (uint32_t)idx);
	else
		req_put_str(r, XQP_RES_A_DEV_NAME, dev);
}

static int dump(struct nl *nl, uint8_t cmd, int type, const struct filters *f, msg_fn fn,
		void *arg)
{
	struct req r;

	req_init(&r, nl->family, NLM_F_DUMP, cmd, XQP_RES_GENL_VERSION);
	put_dev(&r, f->dev);
	if (type >= 0)
		req_put_u32(&r, XQP_RES_A_TYPE, (uint32_t)type);
	if (f->has_qpn)
		req_put_u32(&r, XQP_RES_A_FILTER_QPN, f->qpn);
	if (f->has_pid)
		req_put_u32(&r, XQP_RES_A_FILTER_PID, f->pid);
	nl_send(nl, &r);
	return nl_recv(nl, fn, arg);
}

static int fail(int err)
{
	fprintf(stderr, "xqp: %s\n", strerror(err));
	return 1;
}

/* `xqp res show` without a type: object counts per device, as rdma res. */
struct count_arg {
	uint32_t dev_index;
	char dev_name[64];
	unsigned counts[XQP_RES_OBJ_MAX + 1];
};

#define MAX_DEVS 32
static struct count_arg counts[MAX_DEVS];
static int ncounts;
static int count_type;

static void count_cb(const struct attrs *t, void *arg)
{
	uint32_t idx = get_u32(t, XQP_RES_A_DEV_INDEX);
	const char *name = get_str(t, XQP_RES_A_DEV_NAME);
	int i;

	(void)arg;
	for (i = 0; i < ncounts && counts[i].dev_index != idx; i++)
		;
	if (i == ncounts) {
		if (ncounts == MAX_DEVS)
			return;
		ncounts++;
		counts[i].dev_index = idx;
		snprintf(counts[i].dev_name, sizeof(counts[i].dev_name), "%s", name ? name : "?");
	}
	if (count_type >= 0)
		counts[i].counts[count_type]++;
}

/* Returns 0 or an errno. */
static int res_summary(struct nl *nl, const struct filters *f)
{
	static const int order[] = { XQP_RES_OBJ_PD, XQP_RES_OBJ_CQ, XQP_RES_OBJ_QP,
				     XQP_RES_OBJ_SRQ, XQP_RES_OBJ_XRCD, XQP_RES_OBJ_MR };
	int err;

	count_type = -1;
	err = dump(nl, XQP_RES_CMD_DEV_GET, -1, f, count_cb, NULL);
	if (err)
		return err;
	for (unsigned i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		count_type = order[i];
		err = dump(nl, XQP_RES_CMD_RES_GET, order[i], f, count_cb, NULL);
		if (err)
			return err;
	}
	for (int d = 0; d < ncounts; d++) {
		if (opt_json) {
			json_begin_object();
			field_u("ifindex", counts[d].dev_index);
			field_s("ifname", counts[d].dev_name);
		} else {
			printf("%u: %s:", counts[d].dev_index, counts[d].dev_name);
		}
		for (unsigned i = 0; i < sizeof(order) / sizeof(order[0]); i++)
			field_u(type_names[order[i]], counts[d].counts[order[i]]);
		if (opt_json)
			json_close('}');
		else
			putchar('\n');
	}
	return 0;
}

static int parse_u32(const char *s, uint32_t *v)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(s, &end, 0);
	if (!*s || *end || errno || x > UINT32_MAX)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

int main(int argc, char **argv)
{
	const char *words[16];
	struct filters f = { 0 };
	int nwords = 0, type = -1, ret, i;
	struct nl nl;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-j") || !strcmp(argv[i], "-json"))
			opt_json = true;
		else if (!strcmp(argv[i], "-p") || !strcmp(argv[i], "-pretty"))
			opt_pretty = true;
		else if (!strcmp(argv[i], "-d") || !strcmp(argv[i], "-details"))
			opt_details = true;
		else if (argv[i][0] == '-' && argv[i][1])
			usage();
		else if (nwords < 16)
			words[nwords++] = argv[i];
		else
			usage();
	}
	if (opt_pretty)
		opt_json = true;
	if (nwords < 1)
		usage();
	i = 1;
	if (i < nwords && (!strcmp(words[i], "show") || !strcmp(words[i], "list")))
		i++;

	nl_open(&nl);
	if (!strcmp(words[0], "dev")) {
		if (i < nwords)
			f.dev = words[i++];
		if (i != nwords)
			usage();
		nl_family(&nl);
		if (opt_json)
			json_open('[');
		ret = dump(&nl, XQP_RES_CMD_DEV_GET, -1, &f, dev_cb, NULL);
	} else if (!strcmp(words[0], "res")) {
		if (i < nwords) {
			for (type = 0; type <= XQP_RES_OBJ_MAX; type++)
				if (!strcmp(words[i], type_names[type]))
					break;
			if (type > XQP_RES_OBJ_MAX)
				type = -1;
			else
				i++;
		}
		for (; i < nwords; i += 2) {
			if (i + 1 >= nwords)
				usage();
			if (!strcmp(words[i], "dev") || !strcmp(words[i], "link"))
				f.dev = words[i + 1];
			else if (!strcmp(words[i], "qpn") && !parse_u32(words[i + 1], &f.qpn))
				f.has_qpn = true;
			else if (!strcmp(words[i], "pid") && !parse_u32(words[i + 1], &f.pid))
				f.has_pid = true;
			else
				usage();
		}
		if (f.has_qpn && type != XQP_RES_OBJ_QP)
			usage();
		nl_family(&nl);
		if (opt_json)
			json_open('[');
		if (type < 0)
			ret = res_summary(&nl, &f);
		else
			ret = dump(&nl, XQP_RES_CMD_RES_GET, type, &f, obj_cb, NULL);
	} else {
		usage();
	}
	if (ret)
		ret = fail(ret);
	if (opt_json) {
		json_close(']');
		putchar('\n');
	}
	close(nl.fd);
	return ret;
}
