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

void client_add(xqp_client *c, xqp_device *dev)
{
	void *data = c->add ? c->add(dev) : nullptr;
	dev->client_data[c->id] = xqp_is_err(data) ? nullptr : data;
}

void client_remove(xqp_client *c, xqp_device *dev)
{
	void *data = dev->client_data[c->id];

	dev->client_data[c->id] = nullptr;
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
	for (xqp_client *c : clients)
		if (c)
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
		if (clients[i])
			client_remove(clients[i], dev);
}

/**
 * xqp_register_client - register a client and add it to every device.
 * Return: 0, or -ENOSPC when XQP_MAX_CLIENTS are registered.
 */
extern "C" int xqp_register_client(struct xqp_client *client)
{
	RegistryGuard g;

	for (int i = 0; i < XQP_MAX_CLIENTS; i++) {
		if (clients[i])
			continue;
		client->id = i;
		clients[i] = client;
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
	clients[client->id] = nullptr;
}

extern "C" void *xqp_get_client_data(struct xqp_device *dev, struct xqp_client *client)
{
	return dev->client_data[client->id];
}
