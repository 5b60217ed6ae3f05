// SPDX-License-Identifier: GPL-2.0
/*
 * The registry of devices and clients (ib_register_client's counterpart).
 * Its lock is the core's only global one, taken when devices or clients come
 * and go, never by a verb.
 */
#include "objects.h"

using namespace xqp;

namespace {

constinit xqp_client *clients[XQP_MAX_CLIENTS] = {};
constinit xqp_device *devices = nullptr;

class [[nodiscard]] RegistryGuard {
public:
	RegistryGuard() { xqp_registry_lock(); }
	~RegistryGuard() { xqp_registry_unlock(); }
	RegistryGuard(const RegistryGuard &) = delete;
	RegistryGuard &operator=(const RegistryGuard &) = delete;
};

/* clients[] is written under the registry lock, read by events without it. */
xqp_client *client_at(int i)
{
	return __atomic_load_n(&clients[i], __ATOMIC_ACQUIRE);
}

void set_client_at(int i, xqp_client *c)
{
	__atomic_store_n(&clients[i], c, __ATOMIC_RELEASE);
}

/* Registry lock held; add() runs without the device's clients mutex. */
void client_add(xqp_client *c, xqp_device *dev)
{
	void *data = c->add ? c->add(dev) : nullptr;

	dev->clients.lock()->data[c->id] = xqp_is_err(data) ? nullptr : data;
}

/* Registry lock held; once cleared, no event reaches the client. */
void client_remove(xqp_client *c, xqp_device *dev)
{
	void *data;
	{
		auto slots = dev->clients.lock();
		data = slots->data[c->id];
		slots->data[c->id] = nullptr;
	}
	if (data && c->remove)
		c->remove(dev, data);
}

} // namespace

/* Called by xqp_register_device() once the device is complete. */
void xqp::registry_add(xqp_device *dev)
{
	RegistryGuard g;

	dev->next_registered = devices;
	devices = dev;
	for (int i = 0; i < XQP_MAX_CLIENTS; i++)
		if (xqp_client *c = client_at(i))
			client_add(c, dev);
}

/* Called by xqp_unregister_device() before the device is torn down. */
void xqp::registry_remove(xqp_device *dev)
{
	RegistryGuard g;

	for (xqp_device **p = &devices; *p; p = &(*p)->next_registered) {
		if (*p == dev) {
			*p = dev->next_registered;
			break;
		}
	}
	for (int i = XQP_MAX_CLIENTS - 1; i >= 0; i--)
		if (xqp_client *c = client_at(i))
			client_remove(c, dev);
}

/**
 * xqp_register_client - register a client and add it to every device.
 * Return: 0, or -ENOSPC when XQP_MAX_CLIENTS are registered.
 */
extern "C" int xqp_register_client(struct xqp_client *client)
{
	RegistryGuard g;

	for (int i = 0; i < XQP_MAX_CLIENTS; i++) {
		if (client_at(i))
			continue;
		client->id = i;
		set_client_at(i, client);
		for (xqp_device *d = devices; d; d = d->next_registered)
			client_add(client, d);
		return 0;
	}
	return -XQP_ENOSPC;
}

/** xqp_unregister_client - remove a client from every device and forget it. */
extern "C" void xqp_unregister_client(struct xqp_client *client)
{
	RegistryGuard g;

	for (xqp_device *d = devices; d; d = d->next_registered)
		client_remove(client, d);
	set_client_at(client->id, nullptr);
}

extern "C" void *xqp_get_client_data(struct xqp_device *dev, struct xqp_client *client)
{
	return dev->clients.lock()->data[client->id];
}

/**
 * xqp_device_event - a device event (port state, GID table) to every client.
 * @dev: the device, registered.
 * @type: XQP_EVENT_PORT_ACTIVE, _PORT_ERR, _GID_CHANGE, _LID_CHANGE,
 *	  _PKEY_CHANGE, _SM_CHANGE or _CLIENT_REREGISTER (ib_dispatch_event()'s
 *	  port events).
 * @port: the port it concerns.
 *
 * Each client's event() hook runs once, in client order, under the
 * device's clients mutex (so no client of the device goes meanwhile), not
 * the registry lock: a driver may raise one while a client's add() is in
 * progress, or under the RTNL (ibdev's add() takes it, and ib_core calls
 * ibdev's GID ops under it).
 *
 * Context: may sleep; not from a client's event() hook.
 */
extern "C" void xqp_device_event(struct xqp_device *dev, enum xqp_event_type type,
				 xqp_u32 port)
{
	xqp_event ev = {};
	auto slots = dev->clients.lock();

	ev.device = dev;
	ev.element.port_num = port;
	ev.event = type;
	for (int i = 0; i < XQP_MAX_CLIENTS; i++) {
		xqp_client *c = client_at(i);

		if (c && c->event && slots->data[i])
			c->event(dev, slots->data[i], &ev);
	}
}
