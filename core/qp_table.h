/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An XRCD's qp_num -> real QP table: a three-level radix over the 24-bit
 * qp_num (8 bits a level, 256 slots a node). Lookups are lock-free under
 * RCU; writers are serialized by the XRCD's table mutex. Interior nodes are
 * allocated on first use and freed only when the table dies, so re-storing a
 * number that was just erased cannot fail.
 */
#ifndef XQP_QP_TABLE_H
#define XQP_QP_TABLE_H

#include "util/atomic.h"

namespace xqp {

struct RealQp;

class QpTable : Pinned {
public:
	static constexpr u32 kBits = 8;
	static constexpr u32 kFanout = 1u << kBits;
	static constexpr u32 kMaxQpNum = (1u << 24) - 1;

	QpTable() = default;
	~QpTable();

	/* RCU read side or writer. Returns null when absent. */
	RealQp *lookup(u32 qp_num) const;

	/*
	 * Writer only. Stores @qp at @qp_num: -EINVAL for a number over 24 bits,
	 * -EBUSY when the slot is taken, -ENOMEM when a node cannot be allocated.
	 */
	int insert(u32 qp_num, RealQp *qp);
	/* Writer only: empties a slot that holds @qp. */
	void erase(u32 qp_num, RealQp *qp);
	/* RCU read side or writer: the QP of the lowest number >= @from, or null. */
	RealQp *next_from(u32 from) const;
	/* Writer only: number of stored QPs. */
	u32 count() const { return count_; }
	/* Writer only: calls f(RealQp *) for every stored QP, in qp_num order. */
	template <typename F> void for_each(F f) const;

	/* Bytes held by interior nodes (for benchmarks and reports). */
	size_t node_bytes() const { return nodes_ * sizeof(Leaf); }

private:
	struct Leaf : Allocated {
		RealQp *slot[kFanout];
	};
	struct Mid : Allocated {
		Leaf *leaf[kFanout];
	};
	RealQp **slot_for(u32 qp_num, bool create, int *err);

	Mid *root_[kFanout] = {};
	u32 count_ = 0;
	u32 nodes_ = 0;
};

template <typename F> void QpTable::for_each(F f) const
{
	for (u32 i = 0; i < kFanout; i++) {
		Mid *mid = root_[i];
		if (!mid)
			continue;
		for (u32 j = 0; j < kFanout; j++) {
			Leaf *leaf = mid->leaf[j];
			if (!leaf)
				continue;
			for (u32 k = 0; k < kFanout; k++)
				if (leaf->slot[k])
					f(leaf->slot[k]);
		}
	}
}

} // namespace xqp

#endif
