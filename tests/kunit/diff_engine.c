// SPDX-License-Identifier: GPL-2.0
/*
 * xqp_diff, the engine and the KUnit suite: each scenario of the table runs
 * on a fresh reference device (Linux's ib_core) and a fresh soft device
 * (xqp), step by step. After every step both sides are observed the same way
 * and compared category by category (diff_defs.h, DX_D_*):
 *  - a step without annotation must agree in every category, and return
 *    what the table expects;
 *  - an annotated step must differ in exactly the annotated categories and
 *    return, on each side, what the table expects: a documented divergence
 *    is asserted, never silent.
 * At the end of a scenario both sides destroy what is left and remove their
 * device; nothing may remain in either driver.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "suite.h"
#include "diff_defs.h"

const char *const dx_op_names[DX_OPS] = {
	[DX_END] = "end",
	[DX_ALLOC_XRCD] = "alloc_xrcd",
	[DX_DEALLOC_XRCD] = "dealloc_xrcd",
	[DX_ALLOC_PD] = "alloc_pd",
	[DX_DEALLOC_PD] = "dealloc_pd",
	[DX_CREATE_CQ] = "create_cq",
	[DX_DESTROY_CQ] = "destroy_cq",
	[DX_CREATE_TGT] = "create_tgt",
	[DX_CREATE_QP] = "create_qp",
	[DX_OPEN] = "open_qp",
	[DX_CLOSE] = "close_qp",
	[DX_CLOSE_REAL] = "close_qp(real)",
	[DX_DESTROY] = "destroy_qp",
	[DX_DESTROY_REAL] = "destroy_qp(real)",
	[DX_MODIFY] = "modify_qp",
	[DX_QUERY] = "query_qp",
	[DX_RAISE] = "raise_event",
	[DX_INJECT] = "inject",
	[DX_CREATE_SRQ] = "create_srq",
	[DX_DESTROY_SRQ] = "destroy_srq",
	[DX_REAP_LEAKED] = "reap_leaked",
	[DX_SIZES] = "sizes",
	[DX_QPN_CURSOR] = "qpn_cursor",
	[DX_RAISE_CQ_EVENT] = "raise_cq_event",
	[DX_RAISE_SRQ_EVENT] = "raise_srq_event",
};

static bool dx_ev_differ(const struct dx_ev *a, const struct dx_ev *b)
{
	return a->calls != b->calls || a->elem != b->elem ||
	       (a->calls && a->type != b->type);
}

static const char *const dx_cat_names[8] = {
	"rc", "out", "xrcd", "qp", "open", "events", "objects", "driver",
};

/* Totals over the suite, for the summary case. */
static struct {
	unsigned int scenarios, steps, div_steps, xq_only, lx_only, failed;
	unsigned int div_seen[DX_DIVS];
} dx_total;

static bool dx_have_linux;

static u8 dx_compare(const struct dx_obs *a, const struct dx_obs *b)
{
	u8 d = 0;
	int i;

	if (a->rc != b->rc)
		d |= DX_D_RC;
	if (a->nout != b->nout || memcmp(a->out, b->out, a->nout * sizeof(a->out[0])))
		d |= DX_D_OUT;
	if (a->xrcd_live != b->xrcd_live)
		d |= DX_D_XRCD;
	for (i = 0; i < DX_NX; i++)
		if ((a->xrcd_live & BIT(i)) && a->usecnt[i] != b->usecnt[i])
			d |= DX_D_XRCD;
	if (a->qp_live != b->qp_live)
		d |= DX_D_QP;
	for (i = 0; i < DX_NQ; i++)
		if ((a->qp_live & b->qp_live & BIT(i)) &&
		    (a->shares[i] != b->shares[i] || a->state[i] != b->state[i]))
			d |= DX_D_QP;
	if (a->open_bits != b->open_bits)
		d |= DX_D_OPEN;
	for (i = 0; i < DX_NQ; i++)
		if (dx_ev_differ(&a->ev[i], &b->ev[i]))
			d |= DX_D_EV;
	for (i = 0; i < DX_NC; i++)
		if (dx_ev_differ(&a->cq_ev[i], &b->cq_ev[i]))
			d |= DX_D_EV;
	for (i = 0; i < DX_NS; i++)
		if (dx_ev_differ(&a->srq_ev[i], &b->srq_ev[i]))
			d |= DX_D_EV;
	if (a->pd_live != b->pd_live || a->cq_live != b->cq_live || a->srq_live != b->srq_live)
		d |= DX_D_OBJ;
	if (memcmp(a->drv, b->drv, sizeof(a->drv)))
		d |= DX_D_DRV;
	return d;
}

static void dx_cats(char *buf, size_t len, u8 mask)
{
	size_t n = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < 8; i++)
		if (mask & BIT(i))
			n += scnprintf(buf + n, len - n, "%s%s", n ? "," : "", dx_cat_names[i]);
	if (!n)
		scnprintf(buf, len, "none");
}

/* " (D1 D4)" for the divergences in @seen, or "". */
static void dx_div_list(char *buf, size_t len, u32 seen)
{
	size_t n = 0;
	int d;

	buf[0] = 0;
	for (d = 1; d < DX_DIVS; d++)
		if (seen & BIT(d))
			n += scnprintf(buf + n, len - n, "%sD%d", n ? " " : " (", d);
	if (n)
		scnprintf(buf + n, len - n, ")");
}

/* Prints what differs between the two observations, category by category. */
static void dx_explain(struct kunit *test, const struct dx_obs *l, const struct dx_obs *x,
		       u8 diff)
{
	int i;

	if (diff & DX_D_RC)
		kunit_info(test, "    rc: linux %d, xqp %d\n", l->rc, x->rc);
	if (diff & DX_D_OUT) {
		kunit_info(test, "    out: linux %d values, xqp %d\n", l->nout, x->nout);
		for (i = 0; i < max(l->nout, x->nout); i++)
			if (i >= l->nout || i >= x->nout || l->out[i] != x->out[i])
				kunit_info(test, "    out[%d]: linux %ld, xqp %ld\n", i,
					   i < l->nout ? l->out[i] : -1L,
					   i < x->nout ? x->out[i] : -1L);
	}
	if (diff & DX_D_XRCD)
		for (i = 0; i < DX_NX; i++)
			kunit_info(test, "    xrcd[%d]: linux %s/usecnt %u, xqp %s/usecnt %u\n", i,
				   l->xrcd_live & BIT(i) ? "live" : "-", l->usecnt[i],
				   x->xrcd_live & BIT(i) ? "live" : "-", x->usecnt[i]);
	if (diff & DX_D_QP)
		for (i = 0; i < DX_NQ; i++)
			if ((l->qp_live | x->qp_live) & BIT(i))
				kunit_info(test,
					   "    qp[%d]: linux %s shares %u state %d, xqp %s shares %u state %d\n",
					   i, l->qp_live & BIT(i) ? "live" : "-", l->shares[i],
					   l->state[i], x->qp_live & BIT(i) ? "live" : "-",
					   x->shares[i], x->state[i]);
	if (diff & DX_D_OPEN)
		kunit_info(test, "    openable (bit q*%d+x): linux %#x, xqp %#x\n", DX_NX,
			   l->open_bits, x->open_bits);
	if (diff & DX_D_EV)
		for (i = 0; i < DX_NQ; i++)
			if (l->ev[i].calls || x->ev[i].calls)
				kunit_info(test,
					   "    events of qp[%d]: linux %u (elem %d type %u), xqp %u (elem %d type %u)\n",
					   i, l->ev[i].calls, l->ev[i].elem, l->ev[i].type,
					   x->ev[i].calls, x->ev[i].elem, x->ev[i].type);
	if (diff & DX_D_EV)
		for (i = 0; i < DX_NC; i++)
			if (l->cq_ev[i].calls || x->cq_ev[i].calls)
				kunit_info(test,
					   "    events of cq[%d]: linux %u (elem %d type %u), xqp %u (elem %d type %u)\n",
					   i, l->cq_ev[i].calls, l->cq_ev[i].elem, l->cq_ev[i].type,
					   x->cq_ev[i].calls, x->cq_ev[i].elem, x->cq_ev[i].type);
	if (diff & DX_D_EV)
		for (i = 0; i < DX_NS; i++)
			if (l->srq_ev[i].calls || x->srq_ev[i].calls)
				kunit_info(test,
					   "    events of srq[%d]: linux %u (elem %d type %u), xqp %u (elem %d type %u)\n",
					   i, l->srq_ev[i].calls, l->srq_ev[i].elem, l->srq_ev[i].type,
					   x->srq_ev[i].calls, x->srq_ev[i].elem, x->srq_ev[i].type);
	if (diff & DX_D_OBJ)
		kunit_info(test, "    pd/cq/srq alive: linux %#x/%#x/%#x, xqp %#x/%#x/%#x\n",
			   l->pd_live, l->cq_live, l->srq_live, x->pd_live, x->cq_live,
			   x->srq_live);
	if (diff & DX_D_DRV)
		kunit_info(test,
			   "    driver pd/cq/xrcd/srq/qp: linux %u/%u/%u/%u/%u, xqp %u/%u/%u/%u/%u\n",
			   l->drv[0], l->drv[1], l->drv[2], l->drv[3], l->drv[4],
			   x->drv[0], x->drv[1], x->drv[2], x->drv[3], x->drv[4]);
}

/* Table sanity: what an annotation may say. */
static bool dx_step_well_formed(struct kunit *test, const struct dx_scenario *sc, int i,
				const struct dx_step *s)
{
	if (s->op >= DX_OPS) {
		KUNIT_FAIL(test, "%s step %d: bad op %u", sc->name, i, s->op);
		return false;
	}
	if (s->div >= DX_DIVS || (s->side != DX_BOTH && !s->div) ||
	    (!s->div && (s->dmask || s->xrc))) {
		KUNIT_FAIL(test, "%s step %d (%s): one-sided or differing without a divergence",
			   sc->name, i, dx_op_names[s->op]);
		return false;
	}
	/* An annotation that claims no difference is only for per-side recovery. */
	if (s->div && !s->dmask && s->op != DX_REAP_LEAKED) {
		KUNIT_FAIL(test, "%s step %d (%s): annotated but expected to agree",
			   sc->name, i, dx_op_names[s->op]);
		return false;
	}
	return true;
}

static void dx_run_scenario(struct kunit *test)
{
	const struct dx_scenario *sc = test->param_value;
	const struct dx_exec *lx = &dx_linux_exec, *xq = &dx_xqp_exec;
	struct dx_obs *lo, *xo;
	void *lctx, *xctx;
	unsigned int steps = 0, divs = 0, bad = 0, left;
	u32 seen = 0;
	char want[64], got[64];
	int i;

	if (!dx_have_linux)
		kunit_skip(test, "xqp_refdev.ko is not loaded: no reference device");

	lo = kunit_kzalloc(test, sizeof(*lo), GFP_KERNEL);
	xo = kunit_kzalloc(test, sizeof(*xo), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, lo);
	KUNIT_ASSERT_NOT_NULL(test, xo);
	lctx = lx->setup(test);
	KUNIT_ASSERT_NOT_NULL_MSG(test, lctx, "no reference device");
	xctx = xq->setup(test);
	if (!xctx) {
		lx->teardown(lctx, test);
		KUNIT_FAIL(test, "no soft device");
		return;
	}
	/* The setup is observed too: two empty devices. */
	lx->observe(lctx, lo);
	xq->observe(xctx, xo);
	KUNIT_EXPECT_EQ(test, dx_compare(lo, xo), 0);

	for (i = 0; sc->steps[i].op != DX_END; i++) {
		const struct dx_step *s = &sc->steps[i];
		int want_lx, want_xq;
		u8 diff;

		if (!dx_step_well_formed(test, sc, i, s)) {
			bad++;
			break;
		}
		memset(lo, 0, sizeof(*lo));
		memset(xo, 0, sizeof(*xo));
		lo->rc = s->side == DX_XQ_ONLY ? DX_RC_NOT_RUN : lx->run(lctx, s, lo);
		xo->rc = s->side == DX_LX_ONLY ? DX_RC_NOT_RUN : xq->run(xctx, s, xo);
		lx->observe(lctx, lo);
		xq->observe(xctx, xo);
		diff = dx_compare(lo, xo);

		want_lx = s->side == DX_XQ_ONLY ? DX_RC_NOT_RUN : s->rc;
		want_xq = s->side == DX_LX_ONLY ? DX_RC_NOT_RUN : s->div ? s->xrc : s->rc;
		steps++;
		if (s->div) {
			divs++;
			seen |= BIT(s->div);
			dx_total.div_seen[s->div]++;
			if (s->side == DX_XQ_ONLY)
				dx_total.xq_only++;
			if (s->side == DX_LX_ONLY)
				dx_total.lx_only++;
		}
		if (s->op == DX_SIZES && lo->nout && xo->nout)
			kunit_info(test, "xqp_diff: one opened share: Linux %ld bytes (struct ib_qp), xqp %ld bytes\n",
				   lo->out[0], xo->out[0]);
		if (s->op == DX_SIZES && lo->nout && xo->nout && xo->out[0] >= lo->out[0]) {
			KUNIT_FAIL(test, "%s step %d: an xqp share (%ld bytes) is not smaller than Linux's (%ld)",
				   sc->name, i, xo->out[0], lo->out[0]);
			bad++;
		}
		if (diff == s->dmask && lo->rc == want_lx && xo->rc == want_xq)
			continue;

		bad++;
		dx_cats(want, sizeof(want), s->dmask);
		dx_cats(got, sizeof(got), diff);
		KUNIT_FAIL(test,
			   "%s step %d (%s q%d x%d): %s%s; expected differences {%s}, got {%s}; rc linux %d (want %d), xqp %d (want %d)",
			   sc->name, i, dx_op_names[s->op], s->q, s->x,
			   s->div ? "documented divergence " : "must agree",
			   s->div ? dx_div_names[s->div] : "", want, got,
			   lo->rc, want_lx, xo->rc, want_xq);
		dx_explain(test, lo, xo, diff | s->dmask);
	}

	left = lx->teardown(lctx, test);
	KUNIT_EXPECT_EQ_MSG(test, left, 0, "%s: Linux side left objects behind", sc->name);
	left = xq->teardown(xctx, test);
	KUNIT_EXPECT_EQ_MSG(test, left, 0, "%s: xqp side left objects behind", sc->name);

	dx_total.scenarios++;
	dx_total.steps += steps;
	dx_total.div_steps += divs;
	if (bad)
		dx_total.failed++;
	dx_div_list(got, sizeof(got), seen);
	kunit_info(test, "xqp_diff: %-36s %2u steps, %u divergent%s%s\n", sc->name, steps,
		   divs, got, bad ? " FAILED" : "");
}

static const void *dx_gen_scenario(const void *prev, char *desc)
{
	const struct dx_scenario *sc = prev ? (const struct dx_scenario *)prev + 1 : dx_scenarios;

	if (sc >= dx_scenarios + dx_nscenarios)
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", sc->name);
	return sc;
}

/* Every scenario ran, every documented divergence was asserted. */
static void dx_summary(struct kunit *test)
{
	unsigned int ndiv = 0;
	int d;

	if (!dx_have_linux)
		kunit_skip(test, "xqp_refdev.ko is not loaded: no reference device");
	for (d = 1; d < DX_DIVS; d++) {
		if (dx_total.div_seen[d])
			ndiv++;
		KUNIT_EXPECT_GT_MSG(test, dx_total.div_seen[d], 0,
				    "divergence %s is documented but never asserted",
				    dx_div_names[d]);
		kunit_info(test, "xqp_diff: %-32s asserted at %u steps\n", dx_div_names[d],
			   dx_total.div_seen[d]);
	}
	KUNIT_EXPECT_EQ(test, dx_total.scenarios, dx_nscenarios);
	KUNIT_EXPECT_GE(test, dx_nscenarios, 40);
	KUNIT_EXPECT_EQ(test, dx_total.failed, 0);
	kunit_info(test,
		   "xqp_diff: %u scenarios, %u steps, %u documented divergences (%u divergent steps, %u xqp-only, %u Linux-only)\n",
		   dx_total.scenarios, dx_total.steps, ndiv, dx_total.div_steps,
		   dx_total.xq_only, dx_total.lx_only);
}

static int dx_suite_init(struct kunit_suite *suite)
{
	memset(&dx_total, 0, sizeof(dx_total));
	dx_have_linux = dx_linux_get_api() == 0;
	return 0;
}

static void dx_suite_exit(struct kunit_suite *suite)
{
	if (dx_have_linux)
		dx_linux_release_api();
	dx_have_linux = false;
}

XQP_KUNIT_SUITE(dx_suite, "xqp_diff", XQP_SUITE_FIXTURE(dx_suite_init, dx_suite_exit),
		KUNIT_CASE_PARAM(dx_run_scenario, dx_gen_scenario),
		KUNIT_CASE(dx_summary));
