// SPDX-License-Identifier: GPL-2.0
/*
 * Links and their netdev over netlink, for the test programs that change
 * them (the fuzzer's FZ_LINK, the link fault sweep): RDMA netlink's
 * NEWLINK / DELLINK as `rdma link` sends them, and rtnetlink's requests of
 * `ip link` and `ip addr`. Each returns 0, the errno the kernel answered, or
 * NL_NO_ANSWER.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/socket.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <rdma/rdma_netlink.h>

#include "netlink.h"

/* an attribute of @len bytes at @off of @buf, if it fits; the new end */
size_t nl_attr(uint8_t *buf, size_t off, size_t cap, uint16_t type, const void *data,
	       uint16_t len)
{
	struct nlattr *at = (struct nlattr *)(buf + off);

	if (off + NLA_ALIGN(NLA_HDRLEN + len) > cap)
		return off;
	at->nla_type = type;
	at->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy(buf + off + NLA_HDRLEN, data, len);
	memset(buf + off + NLA_HDRLEN + len, 0, NLA_ALIGN(len) - len);
	return off + NLA_ALIGN(NLA_HDRLEN + len);
}

/* a nested attribute: opened with its header, closed once its length is known */
static size_t nest_open(uint8_t *buf, size_t off, size_t cap, uint16_t type, size_t *at)
{
	*at = off;
	return nl_attr(buf, off, cap, type, buf, 0);
}

static void nest_close(uint8_t *buf, size_t at, size_t end)
{
	((struct nlattr *)(buf + at))->nla_len = (uint16_t)(end - at);
}

/* a netlink socket of @proto, bound; -1 with errno set */
int nl_open(int proto)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto), err;

	if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		err = errno;
		close(fd);
		errno = err;
		fd = -1;
	}
	return fd;
}

/*
 * One request of @proto with an ACK: 0 or the errno the kernel answered;
 * NL_NO_ANSWER when the answer was lost (the kernel could not allocate the
 * ACK: the socket then reports ENOBUFS), so whether the request took effect
 * is unknown.
 */
int nl_request(int proto, uint8_t *req, size_t len)
{
	uint8_t ans[4096] __attribute__((aligned(4)));
	struct nlmsghdr *n = (struct nlmsghdr *)req;
	int fd = nl_open(proto), ret = NL_NO_ANSWER;
	ssize_t got;

	if (fd < 0)
		return errno;
	n->nlmsg_len = (uint32_t)len;
	n->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	if (send(fd, req, len, 0) != (ssize_t)len) {
		ret = errno;
		goto out;
	}
	while ((got = recv(fd, ans, sizeof(ans), 0)) > 0) {
		for (n = (struct nlmsghdr *)ans; NLMSG_OK(n, (size_t)got); n = NLMSG_NEXT(n, got)) {
			if (n->nlmsg_type == NLMSG_ERROR) {
				ret = -((struct nlmsgerr *)NLMSG_DATA(n))->error;
				goto out;
			}
		}
	}
out:
	close(fd);
	return ret;
}

/* ---- RDMA netlink: the links (what `rdma link add/delete` sends) ------------ */

int rdma_link_add(const char *name, const char *netdev, const char *type)
{
	uint8_t req[256] __attribute__((aligned(4))) = { 0 };
	struct nlmsghdr *n = (struct nlmsghdr *)req;
	size_t len = NLMSG_HDRLEN;

	n->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_NEWLINK);
	len = nl_attr(req, len, sizeof(req), RDMA_NLDEV_ATTR_DEV_NAME, name, (uint16_t)(strlen(name) + 1));
	len = nl_attr(req, len, sizeof(req), RDMA_NLDEV_ATTR_LINK_TYPE, type, (uint16_t)(strlen(type) + 1));
	len = nl_attr(req, len, sizeof(req), RDMA_NLDEV_ATTR_NDEV_NAME, netdev,
		      (uint16_t)(strlen(netdev) + 1));
	return nl_request(NETLINK_RDMA, req, len);
}

/* the ib_device index of @name, from a dump of RDMA_NLDEV_CMD_GET (what
 * `rdma link delete` looks up too); -1 if there is none */
int rdma_link_index(const char *name)
{
	uint8_t ans[8192] __attribute__((aligned(4)));
	struct nlmsghdr req = {
		.nlmsg_len = NLMSG_HDRLEN,
		.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET),
		.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
	};
	int fd = nl_open(NETLINK_RDMA), found = -1, done = 0;
	ssize_t got;

	if (fd < 0)
		return -1;
	if (send(fd, &req, req.nlmsg_len, 0) < 0)
		done = 1;
	while (!done && (got = recv(fd, ans, sizeof(ans), 0)) > 0) {
		struct nlmsghdr *n;

		for (n = (struct nlmsghdr *)ans; NLMSG_OK(n, (size_t)got); n = NLMSG_NEXT(n, got)) {
			size_t off = NLMSG_HDRLEN;
			uint32_t index = 0;
			int named = 0;

			if (n->nlmsg_type == NLMSG_DONE || n->nlmsg_type == NLMSG_ERROR)
				done = 1;
			while (!done && off + NLA_HDRLEN <= n->nlmsg_len) {
				struct nlattr *at = (struct nlattr *)((uint8_t *)n + off);
				const void *data = (uint8_t *)at + NLA_HDRLEN;

				if (at->nla_len < NLA_HDRLEN || off + at->nla_len > n->nlmsg_len)
					break;
				if (at->nla_type == RDMA_NLDEV_ATTR_DEV_INDEX && at->nla_len >= NLA_HDRLEN + 4)
					memcpy(&index, data, 4);
				if (at->nla_type == RDMA_NLDEV_ATTR_DEV_NAME &&
				    !strncmp(data, name, at->nla_len - NLA_HDRLEN))
					named = 1;
				off += NLA_ALIGN(at->nla_len);
			}
			if (named)
				found = (int)index;
		}
	}
	close(fd);
	return found;
}

int rdma_link_del(const char *name)
{
	uint8_t req[64] __attribute__((aligned(4))) = { 0 };
	struct nlmsghdr *n = (struct nlmsghdr *)req;
	int index = rdma_link_index(name);
	uint32_t v = (uint32_t)index;

	if (index < 0)
		return ENODEV;
	n->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_DELLINK);
	return nl_request(NETLINK_RDMA, req, nl_attr(req, NLMSG_HDRLEN, sizeof(req),
						  RDMA_NLDEV_ATTR_DEV_INDEX, &v, 4));
}

/* ---- rtnetlink: the netdev (what `ip link` and `ip addr` send) -------------- */

/* the veth pair @a / @b made (EEXIST when @a is there) */
int veth_add(const char *a, const char *b)
{
	uint8_t req[256] __attribute__((aligned(4))) = { 0 };
	struct nlmsghdr *n = (struct nlmsghdr *)req;
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	size_t len = NLMSG_SPACE(sizeof(ifi)), info, data, peer;

	n->nlmsg_type = RTM_NEWLINK;
	n->nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL;
	len = nl_attr(req, len, sizeof(req), IFLA_IFNAME, a, (uint16_t)(strlen(a) + 1));
	len = nest_open(req, len, sizeof(req), IFLA_LINKINFO, &info);
	len = nl_attr(req, len, sizeof(req), IFLA_INFO_KIND, "veth", 5);
	len = nest_open(req, len, sizeof(req), IFLA_INFO_DATA, &data);
	len = nest_open(req, len, sizeof(req), VETH_INFO_PEER, &peer);
	memcpy(req + len, &ifi, sizeof(ifi));
	len += NLMSG_ALIGN(sizeof(ifi));
	len = nl_attr(req, len, sizeof(req), IFLA_IFNAME, b, (uint16_t)(strlen(b) + 1));
	nest_close(req, peer, len);
	nest_close(req, data, len);
	nest_close(req, info, len);
	return nl_request(NETLINK_ROUTE, req, len);
}

/* RTM_NEWLINK on an existing netdev: @up (-1: leave), @mtu (0: leave) */
int netdev_set(const char *name, int up, uint32_t mtu)
{
	uint8_t req[128] __attribute__((aligned(4))) = { 0 };
	struct nlmsghdr *n = (struct nlmsghdr *)req;
	struct ifinfomsg *ifi = NLMSG_DATA(n);
	size_t len = NLMSG_SPACE(sizeof(*ifi));

	ifi->ifi_index = (int)if_nametoindex(name);
	if (!ifi->ifi_index)
		return ENODEV;
	n->nlmsg_type = RTM_NEWLINK;
	if (up >= 0) {
		ifi->ifi_change = IFF_UP;
		ifi->ifi_flags = up ? IFF_UP : 0;
	}
	if (mtu)
		len = nl_attr(req, len, sizeof(req), IFLA_MTU, &mtu, 4);
	return nl_request(NETLINK_ROUTE, req, len);
}

int netdev_del(const char *name)
{
	uint8_t req[64] __attribute__((aligned(4))) = { 0 };
	struct nlmsghdr *n = (struct nlmsghdr *)req;
	struct ifinfomsg *ifi = NLMSG_DATA(n);

	ifi->ifi_index = (int)if_nametoindex(name);
	if (!ifi->ifi_index)
		return ENODEV;
	n->nlmsg_type = RTM_DELLINK;
	return nl_request(NETLINK_ROUTE, req, NLMSG_SPACE(sizeof(*ifi)));
}

/* address @which (0-3 IPv4 10.99.W.H/24, 4-7 IPv6 fd99::W:H/64) added to or
 * removed from @name */
int netdev_addr(const char *name, int add, unsigned int which, uint8_t host)
{
	uint8_t req[128] __attribute__((aligned(4))) = { 0 };
	struct nlmsghdr *n = (struct nlmsghdr *)req;
	struct ifaddrmsg *ifa = NLMSG_DATA(n);
	size_t len = NLMSG_SPACE(sizeof(*ifa));
	uint8_t addr[16] = { 0 };
	uint16_t alen;

	ifa->ifa_index = if_nametoindex(name);
	if (!ifa->ifa_index)
		return ENODEV;
	if (which < 4) {
		ifa->ifa_family = AF_INET;
		ifa->ifa_prefixlen = 24;
		addr[0] = 10, addr[1] = 99, addr[2] = (uint8_t)which, addr[3] = host;
		alen = 4;
	} else {
		ifa->ifa_family = AF_INET6;
		ifa->ifa_prefixlen = 64;
		addr[0] = 0xfd, addr[1] = 0x99, addr[13] = (uint8_t)which, addr[15] = host;
		alen = 16;
	}
	n->nlmsg_type = add ? RTM_NEWADDR : RTM_DELADDR;
	n->nlmsg_flags = add ? NLM_F_CREATE | NLM_F_REPLACE : 0;
	len = nl_attr(req, len, sizeof(req), IFA_LOCAL, addr, alen);
	len = nl_attr(req, len, sizeof(req), IFA_ADDRESS, addr, alen);
	return nl_request(NETLINK_ROUTE, req, len);
}

