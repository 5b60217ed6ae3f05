// SPDX-License-Identifier: GPL-2.0
/*
 * xqp_diff, the slots: what a scenario holds, kept the same way for both
 * executors (diff_defs.h, struct dx_slots). An executor stores its API's
 * pointers through these helpers and reads them back; which slot a step
 * may use, which qpn it names, which events arrived where, is decided here
 * once for Linux and xqp alike.
 */
#include <linux/kernel.h>
#include <linux/string.h>

#include "diff_defs.h"

void dx_slots_init(struct dx_slots *sl)
{
	int i;

	memset(sl, 0, sizeof(*sl));
	for (i = 0; i < DX_NQ; i++) {
		sl->qp_ctx[i] = (struct dx_evctx){ .sl = sl, .kind = DX_K_QP, .slot = i };
		sl->ev[i].elem = -1;
	}
	for (i = 0; i < DX_NC; i++) {
		sl->cq_ctx[i] = (struct dx_evctx){ .sl = sl, .kind = DX_K_CQ, .slot = i };
		sl->cq_ev[i].elem = -1;
	}
	for (i = 0; i < DX_NS; i++) {
		sl->srq_ctx[i] = (struct dx_evctx){ .sl = sl, .kind = DX_K_SRQ, .slot = i };
		sl->srq_ev[i].elem = -1;
	}
}

/* Is slot @i of @arr (@n slots) in range and holding (@held) or free? */
static bool dx_slot_is(void *const *arr, int n, int i, bool held)
{
	return i >= 0 && i < n && !!arr[i] == held;
}

#define DX_LIVE(arr, i)	dx_slot_is((arr), ARRAY_SIZE(arr), (i), true)
#define DX_FREE(arr, i)	dx_slot_is((arr), ARRAY_SIZE(arr), (i), false)

int dx_slots_check(const struct dx_slots *sl, const struct dx_step *s)
{
	bool ok;

	switch (s->op) {
	case DX_ALLOC_XRCD:
		ok = DX_FREE(sl->xrcd, s->x);
		break;
	case DX_DEALLOC_XRCD:
		ok = DX_LIVE(sl->xrcd, s->x);
		break;
	case DX_ALLOC_PD:
		ok = DX_FREE(sl->pd, s->p);
		break;
	case DX_DEALLOC_PD:
		ok = DX_LIVE(sl->pd, s->p);
		break;
	case DX_CREATE_CQ:
		ok = DX_FREE(sl->cq, s->c);
		break;
	case DX_DESTROY_CQ:
		ok = DX_LIVE(sl->cq, s->c);
		break;
	case DX_CREATE_TGT:
		ok = DX_FREE(sl->qp, s->q) && (s->x < 0 || DX_LIVE(sl->xrcd, s->x));
		break;
	case DX_CREATE_QP:
		ok = DX_FREE(sl->qp, s->q) && DX_LIVE(sl->pd, s->p) &&
		     DX_LIVE(sl->cq, s->c) && (s->s < 0 || DX_LIVE(sl->srq, s->s));
		break;
	case DX_OPEN:
		ok = DX_FREE(sl->qp, s->q) && DX_LIVE(sl->xrcd, s->x);
		break;
	case DX_CLOSE:
	case DX_DESTROY:
	case DX_MODIFY:
	case DX_QUERY:
		ok = DX_LIVE(sl->qp, s->q);
		break;
	case DX_CLOSE_REAL:
	case DX_DESTROY_REAL:
		ok = DX_LIVE(sl->real, s->q);
		break;
	case DX_CREATE_SRQ:
		ok = DX_FREE(sl->srq, s->s) && DX_LIVE(sl->pd, s->p);
		/* XRC (x != -1): its CQ and XRCD, where the step names them */
		if (ok && s->x != -1)
			ok = (s->c < 0 || DX_LIVE(sl->cq, s->c)) &&
			     (s->x < 0 || DX_LIVE(sl->xrcd, s->x));
		break;
	case DX_DESTROY_SRQ:
		ok = DX_LIVE(sl->srq, s->s);
		break;
	case DX_RAISE_CQ_EVENT:
		ok = DX_LIVE(sl->cq, s->c) || DX_LIVE(sl->cq_gone, s->c);
		break;
	case DX_RAISE_SRQ_EVENT:
		ok = s->s >= 0 && s->s < DX_NS && (sl->srq_made & BIT(s->s));
		break;
	default:		/* no slot, or the executor's own rule (DX_REAP_LEAKED) */
		ok = true;
		break;
	}
	return ok ? 0 : DX_RC_DEAD_SLOT;
}

u32 dx_slots_qpn(const struct dx_slots *sl, int src)
{
	if (src >= 0 && src < DX_NQ && (sl->qpn_valid & BIT(src)))
		return sl->qpn[src];
	return dx_literal_qpn(src < 0 ? src : DX_QPN_BOGUS);
}

bool dx_slots_qpn_reused(const struct dx_slots *sl, int q, u32 qpn)
{
	int i;

	for (i = 0; i < DX_NQ; i++)
		if (i != q && (sl->qpn_valid & BIT(i)) && sl->qpn[i] == qpn)
			return true;
	return false;
}

void dx_slots_put_qp(struct dx_slots *sl, int q, void *qp, void *real, u32 qpn)
{
	sl->qp[q] = qp;
	sl->real[q] = real;
	sl->qpn[q] = qpn;
	sl->qpn_valid |= BIT(q);
}

void dx_slots_forget_real(struct dx_slots *sl, void *real)
{
	int i;

	for (i = 0; i < DX_NQ; i++) {
		if (sl->real[i] == real)
			sl->real[i] = NULL;
		if (sl->qp[i] == real)
			sl->qp[i] = NULL;
	}
}

void dx_slots_put_srq(struct dx_slots *sl, int s, void *srq, u32 srqn)
{
	sl->srq[s] = srq;
	sl->srqn[s] = srqn;
	sl->srq_made |= BIT(s);
}

void dx_slots_cq_gone(struct dx_slots *sl, int c)
{
	sl->cq_gone[c] = sl->cq[c];
	sl->cq[c] = NULL;
}

void dx_slots_srq_gone(struct dx_slots *sl, int s)
{
	sl->srq_gone[s] = sl->srq[s];
	sl->srq[s] = NULL;
}

void *dx_slots_evctx(struct dx_slots *sl, enum dx_kind kind, int slot)
{
	switch (kind) {
	case DX_K_CQ:
		return &sl->cq_ctx[slot];
	case DX_K_SRQ:
		return &sl->srq_ctx[slot];
	default:
		return &sl->qp_ctx[slot];
	}
}

/*
 * One more call, its type, and which slot of its kind @element is (-2 when
 * none is): for an XRC_TGT QP's shares, which share Linux and xqp say the
 * event is about.
 */
void dx_slots_event(void *context, const void *element, unsigned int type)
{
	struct dx_evctx *ec = context;
	struct dx_slots *sl = ec->sl;
	void *const *slots;
	struct dx_ev *rec;
	int i, n;

	switch (ec->kind) {
	case DX_K_CQ:
		rec = &sl->cq_ev[ec->slot];
		slots = sl->cq;
		n = DX_NC;
		break;
	case DX_K_SRQ:
		rec = &sl->srq_ev[ec->slot];
		slots = sl->srq;
		n = DX_NS;
		break;
	default:
		rec = &sl->ev[ec->slot];
		slots = sl->qp;
		n = DX_NQ;
		break;
	}
	rec->elem = -2;
	for (i = 0; i < n; i++)
		if (slots[i] && slots[i] == element)
			rec->elem = i;
	rec->calls++;
	rec->type = type;
}

void dx_slots_observe(struct dx_slots *sl, struct dx_obs *o)
{
	int i;

	for (i = 0; i < DX_NX; i++)
		if (sl->xrcd[i])
			o->xrcd_live |= BIT(i);
	for (i = 0; i < DX_NP; i++)
		if (sl->pd[i])
			o->pd_live |= BIT(i);
	for (i = 0; i < DX_NC; i++)
		if (sl->cq[i])
			o->cq_live |= BIT(i);
	for (i = 0; i < DX_NS; i++)
		if (sl->srq[i])
			o->srq_live |= BIT(i);
	for (i = 0; i < DX_NQ; i++)
		if (sl->qp[i])
			o->qp_live |= BIT(i);
	for (i = 0; i < DX_NQ; i++) {
		o->ev[i] = sl->ev[i];
		sl->ev[i] = (struct dx_ev){ .elem = -1 };
	}
	for (i = 0; i < DX_NC; i++) {
		o->cq_ev[i] = sl->cq_ev[i];
		sl->cq_ev[i] = (struct dx_ev){ .elem = -1 };
	}
	for (i = 0; i < DX_NS; i++) {
		o->srq_ev[i] = sl->srq_ev[i];
		sl->srq_ev[i] = (struct dx_ev){ .elem = -1 };
	}
}
