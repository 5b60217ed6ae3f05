// SPDX-License-Identifier: GPL-2.0
/*
 * The soft device's rings (drivers/soft/soft_priv.h): first in, first out
 * across many wraps, and a head that stays below the slot count, so that
 * nothing changes when a free-running count would have passed 2^32 (the
 * slot counts are 2^k - 1, which do not divide 2^32: entries would alias).
 */
#include <gtest/gtest.h>

extern "C" {
#include "soft/soft_priv.h"
}

TEST(Ring, FifoAcrossWrapsWithTheHeadBelowTheSlots)
{
	for (xqp_u32 slots : {1u, 3u, 7u, 255u}) {
		soft_ring r = {};
		ASSERT_EQ(soft_ring_init(&r, slots, sizeof(xqp_u64)), 0);
		xqp_u64 next_in = 0, next_out = 0;
		for (int round = 0; round < 1000; round++) {
			xqp_u32 burst = 1 + static_cast<xqp_u32>(round) % slots;
			for (xqp_u32 i = 0; i < burst && r.count < r.slots; i++) {
				*static_cast<xqp_u64 *>(soft_ring_at(&r, r.head + r.count)) = next_in++;
				r.count++;
			}
			while (r.count) {
				ASSERT_EQ(*static_cast<xqp_u64 *>(soft_ring_at(&r, r.head)), next_out++);
				soft_ring_pop(&r);
				ASSERT_LT(r.head, r.slots);
			}
		}
		EXPECT_EQ(next_in, next_out);
		soft_ring_free(&r);
	}
}
