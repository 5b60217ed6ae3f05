// SPDX-License-Identifier: GPL-2.0
/* The XRCD's qp_num radix table; see qp_table.h. */
#include "qp_table.h"

namespace xqp {

static_assert(sizeof(void *) * QpTable::kFanout == 2048, "2 KiB nodes");

QpTable::~QpTable()
{
	XQP_WARN_ON(count_ != 0);
	for (u32 i = 0; i < kFanout; i++) {
		Mid *mid = root_[i];
		if (!mid)
			continue;
		for (u32 j = 0; j < kFanout; j++)
			delete mid->leaf[j];
		delete mid;
	}
}

RealQp *QpTable::lookup(u32 qp_num) const
{
	if (qp_num > kMaxQpNum)
		return nullptr;
	Mid *mid = rcu_deref(root_[qp_num >> 16]);
	if (!mid)
		return nullptr;
	Leaf *leaf = rcu_deref(mid->leaf[(qp_num >> 8) & 0xff]);
	if (!leaf)
		return nullptr;
	return rcu_deref(leaf->slot[qp_num & 0xff]);
}

RealQp **QpTable::slot_for(u32 qp_num, bool create, int *err)
{
	Mid *&mid = root_[qp_num >> 16];
	if (!mid) {
		if (!create)
			return nullptr;
		Mid *m = new (Gfp::account()) Mid;
		if (!m) {
			*err = -XQP_ENOMEM;
			return nullptr;
		}
		nodes_ += sizeof(Mid) / sizeof(Leaf);
		rcu_assign(mid, m);
	}
	Leaf *&leaf = mid->leaf[(qp_num >> 8) & 0xff];
	if (!leaf) {
		if (!create)
			return nullptr;
		Leaf *l = new (Gfp::account()) Leaf;
		if (!l) {
			*err = -XQP_ENOMEM;
			return nullptr;
		}
		nodes_++;
		rcu_assign(leaf, l);
	}
	return &leaf->slot[qp_num & 0xff];
}

int QpTable::insert(u32 qp_num, RealQp *qp)
{
	int err = 0;

	if (qp_num > kMaxQpNum)
		return -XQP_EINVAL;
	RealQp **slot = slot_for(qp_num, true, &err);
	if (!slot)
		return err;
	if (*slot)
		return -XQP_EBUSY;
	rcu_assign(*slot, qp);
	count_++;
	return 0;
}

void QpTable::erase(u32 qp_num, RealQp *qp)
{
	int err = 0;
	RealQp **slot = qp_num <= kMaxQpNum ? slot_for(qp_num, false, &err) : nullptr;

	if (XQP_WARN_ON(!slot || *slot != qp))
		return;
	rcu_assign(*slot, static_cast<RealQp *>(nullptr));
	count_--;
}

} // namespace xqp
