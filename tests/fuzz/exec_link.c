// SPDX-License-Identifier: GPL-2.0
/*
 * The executor: links and their netdev (FZ_LINK). What `rdma link` and `ip`
 * do to a linked xqp device, over the same netlink requests: an xqp link
 * added or deleted (RDMA_NLDEV_CMD_NEWLINK / DELLINK), the veth pair under
 * it deleted or made again, addresses added and removed (ib_core's RoCE GID
 * management then adds and deletes GIDs), carrier and MTU changed.
 *
 * The pair is fzv0 / fzv1; links are named fzl0 and fzl1. After a program
 * that ran FZ_LINK the manager puts back what it changed (link_restore():
 * no links, the pair made again, both ends up at MTU 1500), so each
 * program starts from the same state. A link opened by FZ_OPEN is uverbs2
 * (the first device made after the two soft ones).
 */
#include "exec.h"

static const char *const netdevs[3] = { "fzv0", "fzv1", "fznone" };
static const char *const links[2] = { "fzl0", "fzl1" };

/* what a program changed, so link_restore() undoes only that (shared->linked) */
enum { CH_LINK = 1, CH_PAIR = 2, CH_ADDR = 4, CH_STATE = 8 };

static void changed(unsigned int what)
{
	__atomic_fetch_or(&shared->linked, what, __ATOMIC_RELAXED);
}

/*
 * FZ_LINK: a[0] % 8 the change: 0, 1 a link added (a[1] & 1 its name,
 * a[2] % 3 its netdev, the third one missing; a[3] % 8 == 7 the type rxe
 * is not, "xqpx"), 2 a link deleted, 3 an address added (a[2] % 2 the
 * netdev, a[4] % 8 which, a[5] the host part), 4 one removed, 5 carrier
 * (a[6] & 1: up), 6 the MTU (a[7] % 8 of a table, some refused), 7 the
 * pair deleted (a[1] % 4 == 0) or made again.
 */
int link_op(const struct fz_op *op)
{
	static const uint32_t mtus[8] = { 1500, 1280, 4200, 9000, 576, 68, 1024, 2048 };
	const uint8_t *a = op->a;
	const char *dev = netdevs[a[2] % 2];

	count();
	switch (a[0] % 8) {
	case 0:
	case 1:
		changed(CH_LINK);
		return rdma_link_add(links[a[1] & 1], netdevs[a[2] % 3], a[3] % 8 == 7 ? "xqpx" : "xqp");
	case 2:
		return rdma_link_del(links[a[1] & 1]);
	case 3:
	case 4:
		changed(CH_ADDR);
		return netdev_addr(dev, a[0] % 8 == 3, a[4] % 8, a[5]);
	case 5:
		changed(CH_STATE);
		return netdev_set(dev, a[6] & 1, 0);
	case 6:
		changed(CH_STATE);
		return netdev_set(dev, -1, mtus[a[7] % 8]);
	default:
		changed(CH_PAIR);
		return a[1] % 4 ? veth_add(netdevs[0], netdevs[1]) : netdev_del(netdevs[0]);
	}
}

/*
 * The pair as every program starts with it: no link on it, no address of
 * the ops' (the pair made again), both ends up at MTU 1500. @what: the
 * changes of the program (every one at the start).
 */
void link_restore(unsigned int what)
{
	unsigned int i;

	if (what & CH_LINK)
		for (i = 0; i < 2; i++)
			rdma_link_del(links[i]);
	if (what & (CH_PAIR | CH_ADDR)) {
		netdev_del(netdevs[0]);	/* its peer goes with it */
		veth_add(netdevs[0], netdevs[1]);
	}
	if (what & (CH_PAIR | CH_ADDR | CH_STATE))
		for (i = 0; i < 2; i++)
			netdev_set(netdevs[i], 1, 1500);
}
