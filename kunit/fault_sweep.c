// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit xqp_fault: issue 9's failure sweeps over the scenarios of xqp_diff
 * (diff_scenarios.c), xqp's side (dx_xqp_exec: a fresh soft device each run).
 *
 * Allocation sweep: the scenario runs once clean, then again with the task's
 * fail-nth set to 1, 2, ... N (the N-th slab or page allocation the task
 * makes from the first step to the last fails, once) until a run completes
 * without reaching its N-th allocation. The soft device's own creation is
 * swept once, as the empty scenario device_only.
 *
 * Driver-op sweep: for every op of the soft device the clean run called, for
 * each of its calls and each errno of the set, the scenario runs again with
 * that call failing with that errno (xqp_soft_inject()).
 *
 * Every run must end clean: each step returns 0 or an errno; the first step
 * whose result differs from the clean run's returns the injected error
 * (-ENOMEM for an allocation) - a step that swallowed a failure and let a
 * later one fail instead is reported; once the injection is disarmed the
 * executor destroys what is left and nothing may remain in the driver; the
 * console must stay free of splats and kmemleak clean (scripts/fault-sweep
 * checks those). A driver-op run whose armed call never came is a failure
 * too: the runs are deterministic, so the sweep would be blind there.
 *
 * The teardown (destroy what is left, remove the device) runs disarmed: it
 * looks QPs up by opening them, and a forced failure there would hide what
 * it should find. Destroys inside the scenarios are swept.
 *
 * fault_sweep=0 (default, the KUnit stage of make check): every 16th
 * scenario; each op call fails once, with EIO, ENOMEM or EBUSY in turn.
 * 1 (scripts/fault-sweep): the same over every scenario. 2
 * (FAULT_SWEEP=full): every scenario, each op call with every errno below.
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "diff_defs.h"
#include "fault_sweep.h"
#include "soft/soft.h"

static unsigned int fault_sweep;
module_param(fault_sweep, uint, 0444);
MODULE_PARM_DESC(fault_sweep,
		 "xqp_fault sweeps: 0 every 16th scenario (default); 1 every scenario; 2 every scenario, every errno for each op call");

/* What a driver op may fail with; modes 0 and 1 take the first FS_ERRNOS_SLICE in turn. */
static const int fs_errnos[] = {
	EIO, ENOMEM, EBUSY, EINVAL, EAGAIN, EOPNOTSUPP, ENOSPC, EFAULT,
	EPERM, ENODEV, ETIMEDOUT, EINTR,
};
#define FS_ERRNOS_SLICE	3

/* In enum xqp_soft_op order, for the reports. */
static const char *const fs_op_names[] = {
	"query_device", "query_port", "alloc_pd", "dealloc_pd",
	"create_cq", "destroy_cq", "alloc_xrcd", "dealloc_xrcd",
	"create_srq", "destroy_srq", "create_qp", "modify_qp",
	"query_qp", "destroy_qp", "reg_mr", "dereg_mr",
	"post_send", "post_recv", "post_srq_recv", "poll_cq",
	"req_notify_cq", "resize_cq", "modify_srq", "query_srq",
	"query_gid", "query_pkey",
};
static_assert(ARRAY_SIZE(fs_op_names) == XQP_SOFT_OP_COUNT);

/* A scenario that has not completed after this many failure points is a failure. */
#define FS_MAX_POINTS	4000
/* Failures reported per case; the rest are only counted. */
#define FS_MAX_REPORTS	5

struct fs_arm {
	bool alloc;		/* fail-nth, else a driver op */
	unsigned int nth;
	enum xqp_soft_op op;
	int err;		/* positive */
	unsigned int after;	/* calls of op that succeed first */
};

struct fs_run {
	int *rc;		/* per step */
	struct dx_obs *obs;	/* per step: what the executor observed after it */
	bool setup_failed;
	bool fired;		/* the armed failure happened */
	unsigned int left;	/* objects the teardown could not destroy */
	u64 calls[XQP_SOFT_OP_COUNT];	/* op calls made by the steps */
};

static struct {
	bool page_alloc;
	int knobs;		/* xqp_fs_knobs_set()'s result */
	unsigned int a_scen, a_points, a_failed, a_absorbed, a_device;
	unsigned int o_scen, o_runs, o_failed;
	u64 o_calls[XQP_SOFT_OP_COUNT];	/* calls failed, per op */
} fs_total;

/* The task's fail-nth (a kernel without fault injection: none, the probe fails). */
static void fs_fail_nth_set(unsigned int n)
{
#ifdef CONFIG_FAULT_INJECTION
	current->fail_nth = n;
#endif
}

static unsigned int fs_fail_nth_get(void)
{
#ifdef CONFIG_FAULT_INJECTION
	return current->fail_nth;
#else
	return 1;
#endif
}

/* Errnos per op call: all of them in mode 2; else one, the set's in turn. */
static unsigned int fs_nerrnos(void)
{
	return fault_sweep >= 2 ? ARRAY_SIZE(fs_errnos) : 1;
}

static unsigned int fs_nsteps(const struct dx_scenario *sc)
{
	unsigned int n = 0;

	while (sc->steps[n].op != DX_END)
		n++;
	return n;
}

/*
 * The soft device's creation is the same in every scenario: its allocations
 * are swept once, in this empty scenario; the others arm after it.
 */
static const struct dx_step fs_no_steps[] = { { .op = DX_END } };
static const struct dx_scenario fs_device_only = {
	"device_only", "creating and removing a soft device", fs_no_steps,
};

/*
 * What the step left (objects, counts, states, events, what is openable),
 * seen with fail-nth paused: the observation's own allocations neither
 * fail nor count. Its driver calls (query_qp) do count for the op sweep.
 */
static void fs_observe(void *ctx, struct dx_obs *o, struct dx_obs *keep)
{
	unsigned int nth = fs_fail_nth_get();

	fs_fail_nth_set(0);
	dx_xqp_exec.observe(ctx, o);
	fs_fail_nth_set(nth);
	o->rc = 0;
	*keep = *o;
}

/* One run of @sc on a fresh soft device, with @arm armed (NULL: clean). */
static void fs_run_once(struct kunit *test, const struct dx_scenario *sc,
			const struct fs_arm *arm, struct dx_obs *o, struct fs_run *r)
{
	const struct dx_exec *xq = &dx_xqp_exec;
	u64 base[XQP_SOFT_OP_COUNT];
	struct xqp_soft *soft = NULL;
	void *ctx;
	int i;

	r->setup_failed = false;
	r->fired = false;
	r->left = 0;
	memset(r->calls, 0, sizeof(r->calls));

	if (arm && arm->alloc && sc == &fs_device_only)
		fs_fail_nth_set(arm->nth);
	ctx = xq->setup(test);
	if (ctx) {
		soft = dx_xqp_soft(ctx);
		for (i = 0; i < XQP_SOFT_OP_COUNT; i++)
			base[i] = xqp_soft_op_calls(soft, i);
		if (arm && arm->alloc && sc != &fs_device_only)
			fs_fail_nth_set(arm->nth);
		if (arm && !arm->alloc)
			xqp_soft_inject(soft, arm->op, -arm->err, arm->after);
		for (i = 0; sc->steps[i].op != DX_END; i++) {
			const struct dx_step *s = &sc->steps[i];

			if (s->side == DX_LX_ONLY) {
				r->rc[i] = DX_RC_NOT_RUN;
				continue;
			}
			memset(o, 0, sizeof(*o));
			r->rc[i] = xq->run(ctx, s, o);
			fs_observe(ctx, o, &r->obs[i]);
		}
		for (i = 0; i < XQP_SOFT_OP_COUNT; i++)
			r->calls[i] = xqp_soft_op_calls(soft, i) - base[i];
	}
	/* device_only stays armed through the removal: it has no objects to find */
	if (arm && arm->alloc && (sc != &fs_device_only || !ctx)) {
		r->fired = fs_fail_nth_get() == 0;
		fs_fail_nth_set(0);
	}
	if (!ctx) {
		r->setup_failed = true;
		return;
	}
	if (arm && !arm->alloc) {
		r->fired = r->calls[arm->op] > arm->after;
		xqp_soft_inject(soft, arm->op, 0, 0);
	}
	r->left = xq->teardown(ctx, test);
	if (arm && arm->alloc && sc == &fs_device_only) {
		r->fired = fs_fail_nth_get() == 0;
		fs_fail_nth_set(0);
	}
}

/* "alloc 7" / "create_qp call 2 -EBUSY", for reports. */
static void fs_describe(char *buf, size_t len, const struct fs_arm *arm)
{
	if (arm->alloc)
		scnprintf(buf, len, "allocation %u", arm->nth);
	else
		scnprintf(buf, len, "%s call %u -> -%d", fs_op_names[arm->op], arm->after + 1,
			  arm->err);
}

/* Which parts of two observations differ ("xrcd qp events"), for a report. */
static void fs_obs_diff(char *buf, size_t len, const struct dx_obs *a, const struct dx_obs *b)
{
	size_t n = 0;

	buf[0] = '\0';
#define FS_PART(name, field)							\
	do {									\
		if (memcmp(&a->field, &b->field, sizeof(a->field)))		\
			n += scnprintf(buf + n, len - n, " " name);		\
	} while (0)
	FS_PART("out", out);
	FS_PART("xrcds", xrcd_live);
	FS_PART("usecnt", usecnt);
	FS_PART("pd", pd_live);
	FS_PART("cq", cq_live);
	FS_PART("srq", srq_live);
	FS_PART("qps", qp_live);
	FS_PART("handles", handles);
	FS_PART("states", state);
	FS_PART("openable", open_bits);
	FS_PART("qp-events", ev);
	FS_PART("cq-events", cq_ev);
	FS_PART("srq-events", srq_ev);
	FS_PART("driver-objects", drv);
#undef FS_PART
}

/* Judges run @r against the clean run; false (and a report) when it was not clean. */
static bool fs_check(struct kunit *test, const struct dx_scenario *sc, const struct fs_run *clean,
		     const struct fs_run *r, const struct fs_arm *arm, unsigned int *reports)
{
	int want = arm->alloc ? -ENOMEM : -arm->err;
	bool ok = true, first = true;
	char what[48];
	int i;

	fs_describe(what, sizeof(what), arm);
	if (r->setup_failed)
		return true;	/* the device never came: kmemleak judges that */
	/*
	 * Until the first step that reports the failure, every step must have
	 * left what it left in the clean run: one that returned as if nothing
	 * had happened but did less swallowed the failure. A failed query_qp
	 * may be one the observation made (it reports that state as an error).
	 */
	for (i = 0; sc->steps[i].op != DX_END && r->rc[i] == clean->rc[i]; i++) {
		char parts[128];

		if (!arm->alloc && arm->op == XQP_SOFT_OP_QUERY_QP)
			break;
		if (!memcmp(&r->obs[i], &clean->obs[i], sizeof(r->obs[i])))
			continue;
		fs_obs_diff(parts, sizeof(parts), &r->obs[i], &clean->obs[i]);
		if ((*reports)++ < FS_MAX_REPORTS)
			KUNIT_FAIL(test,
				   "%s, %s: step %d (%s) returned %d as in the clean run but left something else:%s",
				   sc->name, what, i, dx_op_names[sc->steps[i].op], r->rc[i], parts);
		ok = false;
		break;
	}
	for (i = 0; sc->steps[i].op != DX_END; i++) {
		int rc = r->rc[i];
		const char *op = dx_op_names[sc->steps[i].op];

		if (rc != 0 && rc != DX_RC_DEAD_SLOT && rc != DX_RC_NOT_RUN &&
		    (rc > 0 || rc < -MAX_ERRNO)) {
			if ((*reports)++ < FS_MAX_REPORTS)
				KUNIT_FAIL(test, "%s, %s: step %d (%s) returned %d, not an errno",
					   sc->name, what, i, op, rc);
			ok = false;
		}
		if (first && rc != clean->rc[i]) {
			first = false;
			if (rc != want) {
				if ((*reports)++ < FS_MAX_REPORTS)
					KUNIT_FAIL(test,
						   "%s, %s: step %d (%s) is the first to differ from the clean run and returns %d (clean %d), not %d",
						   sc->name, what, i, op, rc, clean->rc[i], want);
				ok = false;
			}
		}
	}
	if (r->left) {
		if ((*reports)++ < FS_MAX_REPORTS)
			KUNIT_FAIL(test, "%s, %s: %u objects left behind", sc->name, what, r->left);
		ok = false;
	}
	return ok;
}

/* Allocates a run's per-step arrays (outside any armed window). */
static bool fs_run_alloc(struct kunit *test, const struct dx_scenario *sc, struct fs_run *r)
{
	r->rc = kunit_kcalloc(test, fs_nsteps(sc) + 1, sizeof(int), GFP_KERNEL);
	r->obs = kunit_kcalloc(test, fs_nsteps(sc) + 1, sizeof(struct dx_obs), GFP_KERNEL);
	return r->rc && r->obs;
}

/* The clean run every other is judged against; false if there is none. */
static bool fs_clean_run(struct kunit *test, const struct dx_scenario *sc, struct dx_obs *o,
			 struct fs_run *clean)
{
	fs_run_once(test, sc, NULL, o, clean);
	KUNIT_EXPECT_FALSE_MSG(test, clean->setup_failed, "%s: no soft device", sc->name);
	KUNIT_EXPECT_EQ_MSG(test, clean->left, 0, "%s: the clean run left objects", sc->name);
	return !clean->setup_failed && !clean->left;
}

static void fs_alloc_sweep(struct kunit *test)
{
	const struct dx_scenario *sc = test->param_value;
	struct fs_run clean = {}, r = {};
	struct fs_arm arm = { .alloc = true };
	unsigned int points = 0, bad = 0, reports = 0, absorbed = 0;
	struct dx_obs *o;
	void *probe;
	int i;

	if (fs_total.knobs)
		KUNIT_FAIL(test, "failslab's debugfs knobs could not be set: %d", fs_total.knobs);
	if (fs_total.knobs)
		return;
	o = kunit_kzalloc(test, sizeof(*o), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, o && fs_run_alloc(test, sc, &clean) && fs_run_alloc(test, sc, &r));

	/* fail-nth reaches GFP_KERNEL allocations, or this sweep sees nothing. */
	fs_fail_nth_set(1);
	probe = kmalloc(64, GFP_KERNEL);
	fs_fail_nth_set(0);
	kfree(probe);
	KUNIT_ASSERT_NULL_MSG(test, probe, "fail-nth did not fail a GFP_KERNEL allocation");

	if (!fs_clean_run(test, sc, o, &clean))
		return;
	for (arm.nth = 1; arm.nth <= FS_MAX_POINTS; arm.nth++) {
		fs_run_once(test, sc, &arm, o, &r);
		if (!r.fired)
			break;
		points++;
		if (!r.setup_failed && !memcmp(r.rc, clean.rc, fs_nsteps(sc) * sizeof(int)))
			absorbed++;
		if (!fs_check(test, sc, &clean, &r, &arm, &reports))
			bad++;
		cond_resched();
	}
	KUNIT_EXPECT_LE_MSG(test, arm.nth, FS_MAX_POINTS, "%s: still failing after %u points",
			    sc->name, FS_MAX_POINTS);
	/* The run that reached no N-th allocation is the clean run again. */
	for (i = 0; i < fs_nsteps(sc) && arm.nth <= FS_MAX_POINTS; i++)
		KUNIT_EXPECT_EQ_MSG(test, r.rc[i], clean.rc[i],
				    "%s step %d: the last run, nothing failed, differs from the first",
				    sc->name, i);
	KUNIT_EXPECT_EQ(test, bad, 0);
	fs_total.a_scen++;
	fs_total.a_points += points;
	fs_total.a_failed += bad;
	fs_total.a_absorbed += absorbed;
	if (sc == &fs_device_only)
		fs_total.a_device = points;
	kunit_info(test, "xqp_fault: alloc %-36s %4u failure points (%u absorbed)%s\n",
		   sc->name, points, absorbed, bad ? " FAILED" : "");
}

static void fs_op_sweep(struct kunit *test)
{
	const struct dx_scenario *sc = test->param_value;
	struct fs_run clean = {}, r = {};
	struct fs_arm arm = { .alloc = false };
	unsigned int runs = 0, bad = 0, reports = 0, e;
	u64 k;
	struct dx_obs *o;
	int op;

	o = kunit_kzalloc(test, sizeof(*o), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, o && fs_run_alloc(test, sc, &clean) && fs_run_alloc(test, sc, &r));
	if (!fs_clean_run(test, sc, o, &clean))
		return;

	for (op = 0; op < XQP_SOFT_OP_COUNT; op++) {
		for (k = 0; k < clean.calls[op]; k++) {
			for (e = 0; e < fs_nerrnos(); e++) {
				char what[48];

				arm.op = op;
				arm.after = k;
				/* one errno per call, in turn, unless every one is asked for */
				arm.err = fault_sweep >= 2 ? fs_errnos[e] :
					  fs_errnos[(fs_total.o_runs + runs) % FS_ERRNOS_SLICE];
				fs_run_once(test, sc, &arm, o, &r);
				runs++;
				if (!r.fired) {
					fs_describe(what, sizeof(what), &arm);
					if (reports++ < FS_MAX_REPORTS)
						KUNIT_FAIL(test, "%s, %s: the call never came (%llu of %llu calls)",
							   sc->name, what, r.calls[op], clean.calls[op]);
					bad++;
				} else if (!fs_check(test, sc, &clean, &r, &arm, &reports)) {
					bad++;
				}
				cond_resched();
			}
			fs_total.o_calls[op]++;
		}
	}
	KUNIT_EXPECT_EQ(test, bad, 0);
	fs_total.o_scen++;
	fs_total.o_runs += runs;
	fs_total.o_failed += bad;
	kunit_info(test, "xqp_fault: ops   %-36s %4u runs (%u errnos)%s\n", sc->name, runs,
		   fs_nerrnos(), bad ? " FAILED" : "");
}

/* Every FS_STRIDE_CHECK-th scenario in mode 0, all of them otherwise. */
#define FS_STRIDE_CHECK	16

static const void *fs_gen(const void *prev, char *desc, bool device_only)
{
	unsigned int stride = fault_sweep ? 1 : FS_STRIDE_CHECK;
	const struct dx_scenario *sc;

	if (!prev)
		sc = device_only ? &fs_device_only : dx_scenarios;
	else if (prev == &fs_device_only)
		sc = dx_scenarios;
	else
		sc = (const struct dx_scenario *)prev + stride;
	if (sc != &fs_device_only && sc >= dx_scenarios + dx_nscenarios)
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", sc->name);
	return sc;
}

/* The allocation sweep starts with the device's own allocations. */
static const void *fs_gen_alloc(const void *prev, char *desc)
{
	return fs_gen(prev, desc, true);
}

static const void *fs_gen_ops(const void *prev, char *desc)
{
	return fs_gen(prev, desc, false);
}

/* The figures of both sweeps; every op the table reaches was failed. */
static void fs_summary(struct kunit *test)
{
	unsigned int reached = 0, calls = 0;
	char unreached[160];
	size_t n = 0;
	int op;

	unreached[0] = '\0';
	for (op = 0; op < XQP_SOFT_OP_COUNT; op++) {
		if (fs_total.o_calls[op]) {
			reached++;
			calls += fs_total.o_calls[op];
		} else {
			n += scnprintf(unreached + n, sizeof(unreached) - n, " %s", fs_op_names[op]);
		}
	}
	kunit_info(test, "xqp_fault: allocation sweep: %u scenarios, %u failure points (%u in the device's creation and removal, %u absorbed), %u failed; page allocator %s\n",
		   fs_total.a_scen, fs_total.a_points, fs_total.a_device, fs_total.a_absorbed,
		   fs_total.a_failed, fs_total.page_alloc ? "swept too" : "not in this kernel");
	kunit_info(test, "xqp_fault: driver-op sweep: %u scenarios, %u ops, %u op calls x %u errno%s = %u runs, %u failed\n",
		   fs_total.o_scen, reached, calls, fs_nerrnos(),
		   fault_sweep >= 2 ? "s" : " (EIO, ENOMEM, EBUSY in turn)", fs_total.o_runs,
		   fs_total.o_failed);
	for (op = 0; op < XQP_SOFT_OP_COUNT; op++)
		if (fs_total.o_calls[op])
			kunit_info(test, "xqp_fault:   %-13s %llu calls failed in turn\n",
				   fs_op_names[op], fs_total.o_calls[op]);
	kunit_info(test, "xqp_fault: ops the scenarios never call:%s\n", n ? unreached : " none");
	KUNIT_EXPECT_GT(test, fs_total.a_points, 0);
	KUNIT_EXPECT_GT(test, fs_total.o_runs, 0);
	KUNIT_EXPECT_EQ(test, fs_total.a_failed + fs_total.o_failed, 0);
}

static int fs_suite_init(struct kunit_suite *suite)
{
	memset(&fs_total, 0, sizeof(fs_total));
	fs_total.knobs = xqp_fs_knobs_set(&fs_total.page_alloc);
	return 0;
}

static void fs_suite_exit(struct kunit_suite *suite)
{
	if (!fs_total.knobs)
		xqp_fs_knobs_restore();
}

static struct kunit_case fs_cases[] = {
	KUNIT_CASE_PARAM(fs_alloc_sweep, fs_gen_alloc),
	KUNIT_CASE_PARAM(fs_op_sweep, fs_gen_ops),
	KUNIT_CASE(fs_summary),
	{}
};

static struct kunit_suite fs_suite = {
	.name = "xqp_fault",
	.suite_init = fs_suite_init,
	.suite_exit = fs_suite_exit,
	.test_cases = fs_cases,
};
kunit_test_suite(fs_suite);
