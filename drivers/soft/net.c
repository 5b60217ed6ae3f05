// SPDX-License-Identifier: GPL-2.0
/*
 * The RoCE v2 wire in the kernel: UDP tunnel sockets on port 4791, one
 * pair (IPv4, IPv6) for each network namespace that has a linked device,
 * opened with its first and closed with its last (or with the namespace).
 * Packets go out through the kernel's own route and neighbour lookup
 * (ip_local_out, ip6_local_out) and come in through the socket's
 * encapsulation hook, in softirq, for the freestanding transport
 * (wire_recv.c).
 *
 * soft-RoCE (rxe) binds the same port in the initial namespace: whichever
 * comes second there finds it taken. A linked device whose namespace's
 * port is taken keeps working inside this kernel and says so once in the
 * log; xqp_soft_wire_ready() and debugfs's "wire" tell.
 */
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/addrconf.h>
#include <net/route.h>
#include <net/udp_tunnel.h>
#include <net/net_namespace.h>
#include <linux/version.h>
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

#include "soft_priv.h"

/* The sockets of one namespace. */
struct soft_net_sock {
	struct list_head node;
	struct net *net;
	struct socket *sock4, *sock6;	/* NULL once the namespace went */
	int users;			/* linked devices attached */
};

static LIST_HEAD(soft_net_socks);
static DEFINE_MUTEX(soft_net_lock);

static int soft_net_rcv(struct sock *sk, struct sk_buff *skb)
{
	struct xqp_soft *soft;
	struct udphdr *uh;
	const u8 *ip;
	int ipv6;
	u32 len;

	/* our own multicast, looped back: the fabric delivered it (mcast.c) */
	if (skb->pkt_type == PACKET_LOOPBACK || skb_linearize(skb))
		goto drop;
	rcu_read_lock();
	soft = soft_fabric_by_netdev(skb->dev);
	if (!soft)
		goto unlock;
	ip = skb_network_header(skb);
	ipv6 = ip_hdr(skb)->version == 6;
	uh = udp_hdr(skb);
	len = ntohs(uh->len);
	/* RoCE v2 sends no IP options or IPv6 extension headers */
	if ((u8 *)uh != ip + (ipv6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr)) ||
	    len < sizeof(*uh) || (u8 *)uh + len > skb_tail_pointer(skb)) {
		SOFT_WIRE_COUNT(soft, rx_malformed);
		goto unlock;
	}
	soft_wire_rx(soft, ip, ipv6, (const u8 *)(uh + 1), len - sizeof(*uh));
unlock:
	rcu_read_unlock();
drop:
	consume_skb(skb);
	return 0;
}

static struct socket *soft_net_open(struct net *net, int ipv6)
{
	struct udp_port_cfg cfg = {
		.family = ipv6 ? AF_INET6 : AF_INET,
		.local_udp_port = htons(SOFT_ROCE_UDP_PORT),
		.ipv6_v6only = 1,
		/* as rxe: RoCE v2 over IPv6 may carry a zero UDP checksum */
		.use_udp6_rx_checksums = 0,
	};
	struct udp_tunnel_sock_cfg tnl = {
		.encap_type = 1,
		.encap_rcv = soft_net_rcv,
	};
	struct socket *sock;
	int err;

	err = udp_sock_create(net, &cfg, &sock);
	if (err)
		return ERR_PTR(err);
	setup_udp_tunnel_sock(net, sock, &tnl);
	return sock;
}

static void soft_net_close(struct soft_net_sock *s)
{
	if (s->sock6)
		udp_tunnel_sock_release(s->sock6);
	if (s->sock4)
		udp_tunnel_sock_release(s->sock4);
	s->sock4 = NULL;
	s->sock6 = NULL;
}

/* The namespace's sockets, opened now if none: an entry, NULL if the port is taken. */
static struct soft_net_sock *soft_net_get(struct net *net, int *err)
{
	struct soft_net_sock *s;
	struct socket *sock;

	list_for_each_entry(s, &soft_net_socks, node) {
		if (s->net == net && s->sock4) {
			s->users++;
			return s;
		}
	}
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s) {
		*err = -ENOMEM;
		return NULL;
	}
	sock = soft_net_open(net, 0);
	if (IS_ERR(sock)) {
		*err = PTR_ERR(sock) == -EADDRINUSE ? 0 : (int)PTR_ERR(sock);
		kfree(s);
		return NULL;
	}
	s->sock4 = sock;
	sock = soft_net_open(net, 1);
	s->sock6 = IS_ERR(sock) ? NULL : sock;	/* IPv6 off: IPv4 only */
	s->net = net;
	s->users = 1;
	list_add(&s->node, &soft_net_socks);
	return s;
}

int soft_net_attach(struct xqp_soft *soft)
{
	struct soft_link *link = soft->link;
	struct net *net = dev_net(link->netdev);
	struct soft_net_sock *s;
	int err = 0;

	mutex_lock(&soft_net_lock);
	s = soft_net_get(net, &err);
	mutex_unlock(&soft_net_lock);
	link->net = net;
	link->sock = s;
	if (!s && !err)
		pr_info("xqp: UDP port %d is taken in %s's namespace (soft-RoCE?): it reaches devices of this kernel only\n",
			SOFT_ROCE_UDP_PORT, netdev_name(link->netdev));
	return err;
}

void soft_net_detach(struct xqp_soft *soft)
{
	struct soft_net_sock *s = soft->link->sock;

	if (!s)
		return;
	mutex_lock(&soft_net_lock);
	if (!--s->users) {
		list_del(&s->node);
		soft_net_close(s);
		kfree(s);
	}
	mutex_unlock(&soft_net_lock);
	soft->link->sock = NULL;
}

void *soft_net_alloc(struct xqp_soft *soft, xqp_u32 len, xqp_u8 **data)
{
	struct net_device *ndev = soft->link->netdev;
	unsigned int head = LL_RESERVED_SPACE(ndev) + sizeof(struct ipv6hdr) +
			    sizeof(struct udphdr);
	struct sk_buff *skb;

	skb = alloc_skb(head + len + ndev->needed_tailroom, GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_reserve(skb, head);
	*data = skb_put(skb, len);
	return skb;
}

void soft_net_free(void *pkt)
{
	kfree_skb(pkt);
}

/* The UDP header before the BTH at skb->data; then the ICRC once @ip is built. */
static void soft_net_udp(struct sk_buff *skb, const struct soft_route *rt)
{
	struct udphdr *uh = skb_push(skb, sizeof(*uh));

	skb_reset_transport_header(skb);
	uh->source = htons(rt->sport);
	uh->dest = htons(SOFT_ROCE_UDP_PORT);
	uh->len = htons(skb->len);
	uh->check = 0;
}

static void soft_net_icrc(struct sk_buff *skb, int ipv6)
{
	u8 *ip = skb_network_header(skb);
	u8 *bth = skb_transport_header(skb) + sizeof(struct udphdr);
	u32 n = skb_tail_pointer(skb) - bth;
	u32 crc = soft_icrc_start(ip, ipv6, bth);

	crc = soft_icrc_add(crc, bth + SOFT_BTH_BYTES, n - SOFT_BTH_BYTES - SOFT_ICRC_BYTES);
	put_unaligned_le32(soft_icrc_value(crc), bth + n - SOFT_ICRC_BYTES);
}

static int soft_net_xmit4(struct net *net, struct net_device *ndev, struct sk_buff *skb,
			  const struct soft_route *rt)
{
	struct flowi4 fl = {
		.flowi4_oif = ndev->ifindex,
		.flowi4_proto = IPPROTO_UDP,
		.flowi4_tos = rt->tclass & IPTOS_TOS_MASK,
	};
	struct rtable *rtb;
	struct iphdr *iph;
	int err;

	memcpy(&fl.saddr, rt->sgid + 12, 4);
	memcpy(&fl.daddr, rt->dgid + 12, 4);
	rtb = ip_route_output_key(net, &fl);
	if (IS_ERR(rtb)) {
		kfree_skb(skb);
		return PTR_ERR(rtb);
	}
	skb_dst_set(skb, &rtb->dst);
	soft_net_udp(skb, rt);
	iph = skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph->version = 4;
	iph->ihl = 5;
	iph->tos = rt->tclass;
	iph->tot_len = htons(skb->len);
	iph->frag_off = htons(IP_DF);
	iph->ttl = rt->hop_limit;
	iph->protocol = IPPROTO_UDP;
	iph->saddr = fl.saddr;
	iph->daddr = fl.daddr;
	iph->check = 0;
	ip_select_ident(net, skb, NULL);
	soft_net_icrc(skb, 0);
	skb->protocol = htons(ETH_P_IP);
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	err = ip_local_out(net, NULL, skb);
	return net_xmit_eval(err);	/* a macro: its argument twice */
}

static int soft_net_xmit6(struct net *net, struct net_device *ndev, struct sk_buff *skb,
			  struct socket *sock6, const struct soft_route *rt)
{
	struct flowi6 fl6 = {
		.flowi6_oif = ndev->ifindex,
		.flowi6_proto = IPPROTO_UDP,
	};
	struct dst_entry *dst;
	struct ipv6hdr *ip6h;
	int err;

	if (!sock6) {
		kfree_skb(skb);
		return -EAFNOSUPPORT;
	}
	memcpy(&fl6.saddr, rt->sgid, 16);
	memcpy(&fl6.daddr, rt->dgid, 16);
	dst = ipv6_stub->ipv6_dst_lookup_flow(net, sock6->sk, &fl6, NULL);
	if (IS_ERR(dst)) {
		kfree_skb(skb);
		return PTR_ERR(dst);
	}
	skb_dst_set(skb, dst);
	soft_net_udp(skb, rt);
	ip6h = skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6_flow_hdr(ip6h, rt->tclass, htonl(rt->flow_label & 0xfffff));
	ip6h->payload_len = htons(skb->len - sizeof(*ip6h));
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = rt->hop_limit;
	ip6h->saddr = fl6.saddr;
	ip6h->daddr = fl6.daddr;
	soft_net_icrc(skb, 1);
	skb->protocol = htons(ETH_P_IPV6);
	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
	err = ip6_local_out(net, NULL, skb);
	return net_xmit_eval(err);
}

int soft_net_xmit(struct xqp_soft *soft, void *pkt, const struct soft_route *rt)
{
	struct soft_link *link = soft->link;
	struct net_device *ndev = link->netdev;
	struct soft_net_sock *s = link->sock;
	struct net *net = dev_net(ndev);

	if (!s || !s->sock4) {
		kfree_skb(pkt);
		return -ENETDOWN;
	}
	if (ipv6_addr_v4mapped((const struct in6_addr *)rt->dgid))
		return soft_net_xmit4(net, ndev, pkt, rt);
	return soft_net_xmit6(net, ndev, pkt, s->sock6, rt);
}

int soft_net_mcast(struct xqp_soft *soft, const xqp_u8 mgid[16], int add)
{
	struct net_device *ndev = soft->link->netdev;
	const struct in6_addr *a = (const struct in6_addr *)mgid;
	u8 mac[ETH_ALEN];

	if (ipv6_addr_v4mapped(a))
		ip_eth_mc_map(a->s6_addr32[3], mac);
	else
		ipv6_eth_mc_map(a, mac);
	return add ? dev_mc_add(ndev, mac) : dev_mc_del(ndev, mac);
}

/* A namespace goes: its sockets close now; its devices go with their netdevs. */
static void __net_exit soft_net_exit(struct net *net)
{
	struct soft_net_sock *s;

	mutex_lock(&soft_net_lock);
	list_for_each_entry(s, &soft_net_socks, node)
		if (s->net == net)
			soft_net_close(s);
	mutex_unlock(&soft_net_lock);
}

static struct pernet_operations soft_net_ops = {
	.exit = soft_net_exit,
};

int soft_net_init(void)
{
	return register_pernet_subsys(&soft_net_ops);
}

void soft_net_fini(void)
{
	unregister_pernet_subsys(&soft_net_ops);
}
