// SPDX-License-Identifier: GPL-2.0
/* Clients hear of devices coming and going (ib_register_client's rules). */
#include <vector>

#include "fixture.h"

namespace {

struct Seen {
	std::vector<xqp_device *> added, removed;
	int marker = 0;
};
Seen *seen;

void *on_add(xqp_device *dev)
{
	seen->added.push_back(dev);
	return &seen->marker;
}

void on_remove(xqp_device *dev, void *data)
{
	EXPECT_EQ(data, &seen->marker);
	/* objects are still there: a client destroys what its users hold */
	EXPECT_FALSE(xqp_is_err(dev));
	seen->removed.push_back(dev);
}

} // namespace

TEST_F(Core, ClientsHearOfDevicesBothWays)
{
	Seen s;
	seen = &s;
	xqp_client c = {};
	c.name = "test";
	c.add = on_add;
	c.remove = on_remove;

	ASSERT_EQ(xqp_register_client(&c), 0);
	ASSERT_EQ(s.added.size(), 1u);			/* the fixture's device */
	EXPECT_EQ(s.added[0], dev());
	EXPECT_EQ(xqp_get_client_data(dev(), &c), &s.marker);

	xqp_soft *second = xqp_soft_create("xqp_soft_second", nullptr);
	ASSERT_FALSE(xqp_is_err(second));
	ASSERT_EQ(s.added.size(), 2u);			/* a device added later */
	EXPECT_EQ(s.added[1], xqp_soft_device(second));
	xqp_device *second_dev = xqp_soft_device(second);
	xqp_soft_destroy(second);
	ASSERT_EQ(s.removed.size(), 1u);		/* removed before teardown */
	EXPECT_EQ(s.removed[0], second_dev);

	xqp_unregister_client(&c);
	ASSERT_EQ(s.removed.size(), 2u);		/* and from the rest at unregister */
	EXPECT_EQ(s.removed[1], dev());
	remove_device();
	EXPECT_EQ(s.removed.size(), 2u);		/* no longer told */
	seen = nullptr;
}

TEST_F(Core, ClientSlotsAreBounded)
{
	xqp_client c[XQP_MAX_CLIENTS + 1] = {};
	int registered = 0;
	for (auto &one : c) {
		one.name = "many";
		if (xqp_register_client(&one) == 0)
			registered++;
		else
			EXPECT_EQ(xqp_register_client(&one), -XQP_ENOSPC);
	}
	EXPECT_EQ(registered, XQP_MAX_CLIENTS);
	for (int i = 0; i < XQP_MAX_CLIENTS; i++)
		xqp_unregister_client(&c[i]);
}
