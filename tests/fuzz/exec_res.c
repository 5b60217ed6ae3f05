// SPDX-License-Identifier: GPL-2.0
/* The executor: the xqp_res generic netlink family (FZ_NL_RES). */
#include "exec.h"

/* ---- the xqp_res generic netlink family ------------------------------------ */

/* the family's id from the generic netlink controller (0: not registered) */
int nl_resolve(void)
{
	uint8_t buf[1024] __attribute__((aligned(4)));
	struct nlmsghdr *n = (struct nlmsghdr *)buf;
	struct genlmsghdr *g = NLMSG_DATA(n);
	size_t len = NLMSG_HDRLEN + GENL_HDRLEN;
	int fd = nl_open(NETLINK_GENERIC), id = 0;
	ssize_t got;

	if (fd < 0)
		return 0;
	memset(buf, 0, sizeof(buf));
	len = nl_attr(buf, len, sizeof(buf), CTRL_ATTR_FAMILY_NAME, XQP_RES_GENL_NAME,
		      sizeof(XQP_RES_GENL_NAME));
	n->nlmsg_len = (uint32_t)len;
	n->nlmsg_type = GENL_ID_CTRL;
	n->nlmsg_flags = NLM_F_REQUEST;
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	if (send(fd, buf, len, 0) == (ssize_t)len &&
	    (got = recv(fd, buf, sizeof(buf), 0)) > (ssize_t)(NLMSG_HDRLEN + GENL_HDRLEN) &&
	    n->nlmsg_type == GENL_ID_CTRL) {
		size_t off = NLMSG_HDRLEN + GENL_HDRLEN;

		while (off + NLA_HDRLEN <= (size_t)got) {
			struct nlattr *at = (struct nlattr *)(buf + off);

			if (at->nla_len < NLA_HDRLEN)
				break;
			if ((at->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID)
				memcpy(&id, buf + off + NLA_HDRLEN, 2);
			off += NLA_ALIGN(at->nla_len);
		}
	}
	close(fd);
	return id & 0xffff;
}

/*
 * FZ_NL_RES: one request on the actor's socket, then some reads of the
 * answer. a[0] % 16 == 15: another message type; a[1]: flags (% 8 == 0:
 * no NLM_F_DUMP; bit 7: NLM_F_ACK); a[2]: the command (DEV_GET, RES_GET, or
 * any number); a[3]: the genl version; a[4] which attributes go in (bits
 * 0-5: TYPE, DEV_INDEX, DEV_NAME, FILTER_QPN, FILTER_PID, a junk one; RES_GET
 * gets TYPE unless bit 6); a[5]-a[9] their values; a[10]: the receive buffer's
 * size and how many reads (a dump left half read continues at the next
 * request's reads, or ends when the socket closes); a[11] % 16 == 15: a
 * fresh socket first.
 */
int nl_res(struct actor *ac, const struct fz_op *op)
{
	static const char *const names[4] = { "xqp_soft0", "xqp_soft1", "", "xqp_soft9" };
	static const uint32_t rbufs[4] = { 16384, 256, 4096, 32768 };
	static uint8_t rbuf[32768] __attribute__((aligned(8)));
	uint8_t req[512] __attribute__((aligned(4)));
	struct nlmsghdr *n = (struct nlmsghdr *)req;
	struct genlmsghdr *g = NLMSG_DATA(n);
	const uint8_t *a = op->a;
	size_t len = NLMSG_HDRLEN + GENL_HDRLEN;
	uint32_t v, reads = 1 + (a[10] >> 2) % 8, i;
	int attrs = a[4], cmdno = a[2] % 8 < 3 ? XQP_RES_CMD_DEV_GET :
				  a[2] % 8 < 7 ? XQP_RES_CMD_RES_GET : a[2] >> 3;
	int ret = 0;

	if (!nl_family)
		return ENOENT;
	if (ac->nl_fd >= 0 && a[11] % 16 == 15) {
		close(ac->nl_fd);
		ac->nl_fd = -1;
	}
	if (ac->nl_fd < 0 && (ac->nl_fd = nl_open(NETLINK_GENERIC)) < 0)
		return errno;
	memset(req, 0, sizeof(req));
	if (cmdno == XQP_RES_CMD_RES_GET && !(attrs & 0x40))
		attrs |= 1;
	if (attrs & 1) {
		v = a[5] % 8;	/* 6, 7: no such type */
		len = nl_attr(req, len, sizeof(req), XQP_RES_A_TYPE, &v, a[5] >= 0xf8 ? 2 : 4);
	}
	if (attrs & 2) {
		v = a[6] % 4;
		len = nl_attr(req, len, sizeof(req), XQP_RES_A_DEV_INDEX, &v, 4);
	}
	if (attrs & 4) {
		char name[80];

		if ((a[6] >> 2) % 8 == 7) {	/* too long, and without its NUL */
			memset(name, 'x', sizeof(name));
			len = nl_attr(req, len, sizeof(req), XQP_RES_A_DEV_NAME, name, sizeof(name));
		} else {
			snprintf(name, sizeof(name), "%s", names[(a[6] >> 2) % 4]);
			len = nl_attr(req, len, sizeof(req), XQP_RES_A_DEV_NAME, name,
				      (uint16_t)(strlen(name) + ((a[6] >> 5) & 1 ? 0 : 1)));
		}
	}
	if (attrs & 8) {
		v = pub_qpn(a[7]);
		len = nl_attr(req, len, sizeof(req), XQP_RES_A_FILTER_QPN, &v, 4);
	}
	if (attrs & 0x10) {
		v = a[8] % 4 == 3 ? a[8] : (uint32_t)shared->actor_pid[a[8] % FZ_ACTORS];
		len = nl_attr(req, len, sizeof(req), XQP_RES_A_FILTER_PID, &v, 4);
	}
	if (attrs & 0x20) {
		uint8_t junk[8];

		memset(junk, a[9], sizeof(junk));
		len = nl_attr(req, len, sizeof(req), (uint16_t)(a[9] % (XQP_RES_A_MAX + 4)), junk,
			      (uint16_t)(a[9] % 9));
	}
	n->nlmsg_len = (uint32_t)len;
	n->nlmsg_type = (uint16_t)(a[0] % 16 == 15 ? a[0] >> 4 : nl_family);
	n->nlmsg_flags = NLM_F_REQUEST | (a[1] % 8 ? NLM_F_DUMP : 0) | (a[1] & 0x80 ? NLM_F_ACK : 0);
	n->nlmsg_seq = a[1];
	g->cmd = (uint8_t)cmdno;
	g->version = (uint8_t)(a[3] % 8 ? XQP_RES_GENL_VERSION : a[3] >> 3);
	count();
	if (send(ac->nl_fd, req, len, 0) < 0)
		ret = errno;
	for (i = 0; i < reads; i++) {
		ssize_t got;
		int end = 0;

		count();
		got = recv(ac->nl_fd, rbuf, rbufs[a[10] % 4], MSG_DONTWAIT);
		if (got < 0)
			break;
		for (n = (struct nlmsghdr *)rbuf; NLMSG_OK(n, (size_t)got); n = NLMSG_NEXT(n, got)) {
			if (n->nlmsg_type == NLMSG_DONE)
				end = 1;
			if (n->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(n);

				end = 1;
				if (!ret && e->error)
					ret = -e->error;
			}
		}
		if (end)
			break;
	}
	return ret;
}
