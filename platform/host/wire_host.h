/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host's RoCE v2 wire (platform/host/wire_host.cpp), where the kernel
 * has drivers/soft/net.c: linked devices whose netdevs are in different
 * namespaces reach each other through it; in one namespace (the default:
 * every netdev in namespace 0) they use the in-kernel fabric. A thread
 * delivers the packets, losing, duplicating and reordering them on demand.
 */
#ifndef XQP_WIRE_HOST_H
#define XQP_WIRE_HOST_H

#include <cstdint>

struct net_device;

/* Puts @netdev (a linked device's, before it is linked) in namespace @ns. */
void xqp_host_wire_set_ns(const net_device *netdev, int ns);
/* Percent of packets lost, duplicated, held back behind the next; @seed. */
void xqp_host_wire_faults(unsigned loss, unsigned dup, unsigned reorder, unsigned seed);
/* Loses one packet: the one after the next @skip with BTH opcode @opcode. */
void xqp_host_wire_drop_one(uint8_t opcode, unsigned skip);
/* Packets handed to the wire, and delivered, since the start. */
uint64_t xqp_host_wire_sent();
uint64_t xqp_host_wire_delivered();
/* Multicast MACs the linked devices' netdevs take (added less removed). */
int xqp_host_wire_mcast_macs();
/* Sends raw UDP payload bytes to the device on @netdev (tests' bad packets; @icrc: its ICRC set right). */
void xqp_host_wire_inject(const net_device *netdev, const uint8_t sgid[16], const uint8_t dgid[16],
			  const uint8_t *bth, uint32_t len,
			  bool icrc = false);
/* Waits until nothing is queued on the wire. */
void xqp_host_wire_idle();

#endif
