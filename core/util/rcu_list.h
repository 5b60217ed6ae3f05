/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Intrusive circular doubly-linked list whose readers may walk it under RCU
 * while one writer (serialized by the owner's lock) adds and removes nodes:
 * the list_add_rcu()/list_del_rcu() protocol. A removed node keeps its next
 * pointer so readers already on it can move on; free it after a grace period.
 */
#ifndef XQP_UTIL_RCU_LIST_H
#define XQP_UTIL_RCU_LIST_H

#include "util/atomic.h"

namespace xqp {

struct ListNode {
	ListNode *next;
	ListNode *prev;
};

class RcuList : Pinned {
public:
	RcuList() { head_.next = head_.prev = &head_; }

	bool empty() const { return rcu_deref(head_.next) == &head_; }

	/* Writer side (owner's lock held). */
	void add_head(ListNode *n)
	{
		ListNode *first = head_.next;
		n->next = first;
		n->prev = &head_;
		rcu_assign(head_.next, n);	/* publish after n is complete */
		first->prev = n;
	}

	static void del(ListNode *n)
	{
		rcu_assign(n->prev->next, n->next);
		n->next->prev = n->prev;
		n->prev = nullptr;	/* n->next stays valid for readers */
	}

	static bool linked(const ListNode *n) { return n->prev != nullptr; }

	/* Reader side (RCU read lock or the owner's lock held). */
	template <typename F> void for_each(F f) const
	{
		for (ListNode *n = rcu_deref(head_.next); n != &head_;
		     n = rcu_deref(n->next))
			f(n);
	}

private:
	ListNode head_;
};

} // namespace xqp

#endif
