// SPDX-License-Identifier: GPL-2.0
/*
 * The host's RoCE v2 wire (wire_host.h): drivers/soft/net.c's functions for
 * the host tests, fuzzer and benchmarks. A packet gets the IPv4 or IPv6
 * and UDP headers and the ICRC net.c would give it; a thread delivers it to
 * the linked device (in another namespace) that has its destination GID,
 * through soft_wire_rx() as the kernel's socket would.
 */
#include "wire_host.h"

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

extern "C" {
#include "soft/soft_priv.h"
}

namespace {

struct Packet {
	std::vector<uint8_t> bytes;	/* IP, UDP, BTH ... ICRC */
	int ipv6;
	const void *from_net;
};

constexpr int kMaxLinked = 64;

struct Wire {
	std::mutex m;
	std::condition_variable cv;
	std::deque<Packet> q;
	int busy = 0;			/* packets being delivered */
	xqp_soft *linked[kMaxLinked] = {};
	std::vector<std::pair<const net_device *, intptr_t>> ns;
	unsigned loss = 0, dup = 0, reorder = 0;
	int drop_opcode = -1;		/* xqp_host_wire_drop_one() */
	unsigned drop_skip = 0;
	std::mt19937 rng{1};
	std::thread t;
	bool started = false;
	std::atomic<uint64_t> sent{0}, delivered{0};
	std::atomic<int> mc_macs{0};	/* soft_net_mcast(): MACs taken, net */
};

Wire &wire()
{
	static Wire *w = new Wire;	/* lives to the end: its thread may */
	return *w;
}

intptr_t ns_of(Wire &w, const net_device *nd)
{
	for (auto &e : w.ns)
		if (e.first == nd)
			return e.second;
	return 0;
}

bool is_v4(const uint8_t *gid)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	return !std::memcmp(gid, mapped, 12);
}

/* The linked device with @dgid outside @from_net, or null. Caller holds w.m. */
xqp_soft *find(Wire &w, const uint8_t *dgid, const void *from_net)
{
	for (xqp_soft *s : w.linked)
		if (s && s->link->net != from_net && soft_link_has_gid(s, dgid))
			return s;
	return nullptr;
}

void deliver(Wire &w, Packet &p)
{
	const uint8_t *ip = p.bytes.data();
	uint32_t iplen = p.ipv6 ? SOFT_IPV6_BYTES : SOFT_IPV4_BYTES;
	uint8_t dgid[16];

	if (p.ipv6) {
		std::memcpy(dgid, ip + 24, 16);
	} else {
		std::memset(dgid, 0, 10);
		dgid[10] = dgid[11] = 0xff;
		std::memcpy(dgid + 12, ip + 16, 4);
	}
	xqp_rcu_read_lock();
	std::vector<xqp_soft *> dst;
	{
		std::lock_guard<std::mutex> l(w.m);
		if (xqp_gid_is_multicast(dgid)) {	/* every other namespace's device */
			for (xqp_soft *s : w.linked)
				if (s && s->link->net != p.from_net)
					dst.push_back(s);
		} else if (xqp_soft *s = find(w, dgid, p.from_net)) {
			dst.push_back(s);
		}
	}
	/* a device leaves the fabric (an RCU grace period) before it detaches */
	for (xqp_soft *d : dst) {
		unsigned long flags = xqp_irq_save();	/* softirq: nothing sleeps */
		soft_wire_rx(d, ip, p.ipv6, ip + iplen + SOFT_UDP_BYTES,
			     static_cast<uint32_t>(p.bytes.size()) - iplen - SOFT_UDP_BYTES);
		xqp_irq_restore(flags);
		w.delivered++;
	}
	xqp_rcu_read_unlock();
}

int bth_opcode(const Packet &p)
{
	return p.bytes[(p.ipv6 ? SOFT_IPV6_BYTES : SOFT_IPV4_BYTES) + SOFT_UDP_BYTES];
}

void run(Wire &w)
{
	std::unique_lock<std::mutex> l(w.m);
	for (;;) {
		w.cv.wait(l, [&] { return !w.q.empty(); });
		Packet p = std::move(w.q.front());
		w.q.pop_front();
		std::uniform_int_distribution<unsigned> pct(0, 99);
		if (w.loss && pct(w.rng) < w.loss)
			continue;
		if (w.drop_opcode >= 0 && bth_opcode(p) == w.drop_opcode && !w.drop_skip--) {
			w.drop_opcode = -1;
			continue;
		}
		if (w.reorder && !w.q.empty() && pct(w.rng) < w.reorder) {
			std::swap(p, w.q.front());	/* the next one goes first */
		}
		int copies = w.dup && pct(w.rng) < w.dup ? 2 : 1;
		w.busy++;
		l.unlock();
		for (int i = 0; i < copies; i++)
			deliver(w, p);
		l.lock();
		w.busy--;
		w.cv.notify_all();
	}
}

void push(Wire &w, Packet p)
{
	std::lock_guard<std::mutex> l(w.m);
	if (!w.started) {
		w.started = true;
		w.t = std::thread(run, std::ref(w));
		w.t.detach();
	}
	w.q.push_back(std::move(p));
	w.sent++;
	w.cv.notify_all();
}

/* The IP and UDP headers of a packet from @rt, @n bytes of UDP payload after. */
Packet headers(const soft_route *rt, uint32_t n)
{
	Packet p{};
	p.ipv6 = !is_v4(rt->dgid);
	uint32_t iplen = p.ipv6 ? SOFT_IPV6_BYTES : SOFT_IPV4_BYTES;
	p.bytes.assign(iplen + SOFT_UDP_BYTES + n, 0);
	uint8_t *ip = p.bytes.data(), *udp = ip + iplen;
	if (p.ipv6) {
		ip[0] = static_cast<uint8_t>(0x60 | rt->tclass >> 4);
		ip[1] = static_cast<uint8_t>(rt->tclass << 4 | (rt->flow_label >> 16 & 0xf));
		ip[2] = static_cast<uint8_t>(rt->flow_label >> 8);
		ip[3] = static_cast<uint8_t>(rt->flow_label);
		soft_put_be16(ip + 4, SOFT_UDP_BYTES + n);
		ip[6] = 17;
		ip[7] = rt->hop_limit;
		std::memcpy(ip + 8, rt->sgid, 16);
		std::memcpy(ip + 24, rt->dgid, 16);
	} else {
		ip[0] = 0x45;
		ip[1] = rt->tclass;
		soft_put_be16(ip + 2, iplen + SOFT_UDP_BYTES + n);
		ip[6] = 0x40;
		ip[8] = rt->hop_limit;
		ip[9] = 17;
		std::memcpy(ip + 12, rt->sgid + 12, 4);
		std::memcpy(ip + 16, rt->dgid + 12, 4);
	}
	soft_put_be16(udp, rt->sport);
	soft_put_be16(udp + 2, SOFT_ROCE_UDP_PORT);
	soft_put_be16(udp + 4, SOFT_UDP_BYTES + n);
	return p;
}

/* The ICRC of a packet whose UDP payload (BTH on) is its last @n bytes, in them. */
void set_icrc(Packet &p, uint32_t n)
{
	uint8_t *bth = p.bytes.data() + p.bytes.size() - n;
	xqp_u32 crc = soft_icrc_start(p.bytes.data(), p.ipv6, bth);

	crc = soft_icrc_add(crc, bth + SOFT_BTH_BYTES, n - SOFT_BTH_BYTES - SOFT_ICRC_BYTES);
	xqp_u32 v = soft_icrc_value(crc);
	for (int i = 0; i < 4; i++)
		bth[n - 4 + i] = static_cast<uint8_t>(v >> (8 * i));
}

struct HostPkt {
	std::vector<uint8_t> body;
};

} // namespace

void xqp_host_wire_set_ns(const net_device *netdev, int ns)
{
	Wire &w = wire();
	std::lock_guard<std::mutex> l(w.m);
	for (auto &e : w.ns)
		if (e.first == netdev) {
			e.second = ns;
			return;
		}
	w.ns.emplace_back(netdev, ns);
}

void xqp_host_wire_faults(unsigned loss, unsigned dup, unsigned reorder, unsigned seed)
{
	Wire &w = wire();
	std::lock_guard<std::mutex> l(w.m);
	w.loss = loss;
	w.dup = dup;
	w.reorder = reorder;
	w.rng.seed(seed);
}

void xqp_host_wire_drop_one(uint8_t opcode, unsigned skip)
{
	Wire &w = wire();
	std::lock_guard<std::mutex> l(w.m);
	w.drop_opcode = opcode;
	w.drop_skip = skip;
}

uint64_t xqp_host_wire_sent()
{
	return wire().sent.load();
}

uint64_t xqp_host_wire_delivered()
{
	return wire().delivered.load();
}

int xqp_host_wire_mcast_macs()
{
	return wire().mc_macs.load();
}

void xqp_host_wire_idle()
{
	Wire &w = wire();
	std::unique_lock<std::mutex> l(w.m);
	w.cv.wait(l, [&] { return w.q.empty() && !w.busy; });
}

void xqp_host_wire_inject(const net_device *netdev, const uint8_t sgid[16], const uint8_t dgid[16],
			  const uint8_t *bth, uint32_t len, bool icrc)
{
	Wire &w = wire();
	soft_route rt{};
	std::memcpy(rt.sgid, sgid, 16);
	std::memcpy(rt.dgid, dgid, 16);
	rt.hop_limit = 64;
	rt.sport = 0xc000;
	Packet p = headers(&rt, len);
	std::memcpy(p.bytes.data() + p.bytes.size() - len, bth, len);
	if (icrc)
		set_icrc(p, len);
	{
		std::lock_guard<std::mutex> l(w.m);
		p.from_net = reinterpret_cast<const void *>(ns_of(w, netdev) + 1000);	/* from outside */
	}
	push(w, std::move(p));
}

extern "C" {

int soft_net_attach(struct xqp_soft *soft)
{
	Wire &w = wire();
	std::lock_guard<std::mutex> l(w.m);
	soft->link->net = reinterpret_cast<void *>(ns_of(w, soft->link->netdev));
	for (xqp_soft *&s : w.linked)
		if (!s) {
			s = soft;
			soft->link->sock = &s;
			return 0;
		}
	return 0;	/* no room: in-kernel only, as a taken port */
}

void soft_net_detach(struct xqp_soft *soft)
{
	Wire &w = wire();
	std::lock_guard<std::mutex> l(w.m);
	for (xqp_soft *&s : w.linked)
		if (s == soft)
			s = nullptr;
	soft->link->sock = nullptr;
}

void *soft_net_alloc(struct xqp_soft *, xqp_u32 len, xqp_u8 **data)
{
	void *mem = xqp_zalloc(sizeof(HostPkt), XQP_GFP_ATOMIC);	/* fails on demand */
	if (!mem)
		return nullptr;
	xqp_free(mem);
	auto *p = new HostPkt;
	p->body.assign(len, 0);
	*data = p->body.data();
	return p;
}

int soft_net_mcast(struct xqp_soft *, const xqp_u8 *, int add)
{
	wire().mc_macs += add ? 1 : -1;
	return 0;
}

void soft_net_free(void *pkt)
{
	delete static_cast<HostPkt *>(pkt);
}

int soft_net_xmit(struct xqp_soft *soft, void *pkt, const struct soft_route *rt)
{
	auto *hp = static_cast<HostPkt *>(pkt);
	uint32_t n = static_cast<uint32_t>(hp->body.size());
	Packet p = headers(rt, n);
	uint32_t iplen = p.ipv6 ? SOFT_IPV6_BYTES : SOFT_IPV4_BYTES;
	uint8_t *bth = p.bytes.data() + iplen + SOFT_UDP_BYTES;

	std::memcpy(bth, hp->body.data(), n);
	delete hp;
	set_icrc(p, n);
	p.from_net = soft->link->net;
	push(wire(), std::move(p));
	return 0;
}

} // extern "C"
