/* SPDX-License-Identifier: GPL-2.0 */
/* Links and their netdev over netlink (netlink.c). */
#ifndef XQP_TESTS_NETLINK_H
#define XQP_TESTS_NETLINK_H

#include <stddef.h>
#include <stdint.h>

size_t nl_attr(uint8_t *buf, size_t off, size_t cap, uint16_t type, const void *data,
	       uint16_t len);
int nl_open(int proto);
/* nl_request()'s "no answer came": the outcome is unknown */
#define NL_NO_ANSWER	(-1)
int nl_request(int proto, uint8_t *req, size_t len);

int rdma_link_add(const char *name, const char *netdev, const char *type);
int rdma_link_index(const char *name);
int rdma_link_del(const char *name);

int veth_add(const char *a, const char *b);
int netdev_set(const char *name, int up, uint32_t mtu);
int netdev_del(const char *name);
int netdev_addr(const char *name, int add, unsigned int which, uint8_t host);

#endif
