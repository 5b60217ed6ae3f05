// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit xqp_fault: the failure sweeps, in the kernel, over programs
 * of steps on fresh soft devices (fault_sweep.h): the scenarios of xqp_diff
 * (diff_scenarios.c), xqp's side (dx_xqp_exec: a fresh soft device each
 * run), and the data-path traffic programs (fault_sweep_traffic.c: two
 * soft devices of one subnet). This file is the engine - running, arming,
 * judging, the figures - and the scenarios' adapter.
 *
 * Allocation sweep: the program runs once clean, then again with the
 * task's fail-nth set to 1, 2, ... N (the N-th slab or page allocation the
 * task makes from the first step to the last fails, once) until a run
 * completes without reaching its N-th allocation. The soft device's own
 * creation is swept once, as the empty scenario device_only.
 *
 * Driver-op sweep: for every op of every soft device the clean run called,
 * for each of its calls and each errno of the set, the program runs again
 * with that call failing with that errno (xqp_soft_inject()). The fast
 * data-path ops are counted with xqp_soft_count_data_path() on.
 *
 * Every run must end clean: each step returns 0 or an errno; the first step
 * whose result differs from the clean run's returns the injected error
 * (-ENOMEM for an allocation) - a step that swallowed a failure and let a
 * later one fail instead is reported - and changed nothing: it left the
 * state the step before it left (objects, counts, shares, states, data);
 * once the injection is disarmed the
 * program's teardown destroys what is left and nothing may remain in the
 * driver; the console must stay free of splats and kmemleak clean
 * (scripts/fault-sweep checks those). A driver-op run whose armed call
 * never came is a failure too: the runs are deterministic, so the sweep
 * would be blind there.
 *
 * Work-queue check: the traffic programs once more with the work queue's
 * own fail-nth at 1 (fs_check_work()): what runs there allocates nothing.
 *
 * The teardown (destroy what is left, remove the devices) runs disarmed:
 * the scenarios' looks QPs up by opening them, and a forced failure there
 * would hide what it should find. Destroys inside the programs are swept.
 *
 * fault_sweep=0 (default, the KUnit stage of make check): every 16th
 * scenario; each op call fails once, with EIO, ENOMEM or EBUSY in turn;
 * the traffic programs' every 8th allocation and op call. 1
 * (scripts/fault-sweep): the same over every scenario and every traffic
 * allocation and op call. 2 (FAULT_SWEEP=full): all of them, each op call
 * with every errno below.
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "suite.h"
#include "diff_defs.h"
#include "fault_sweep.h"
#include "soft/soft.h"
#include "xqp/seam.h"

static unsigned int fault_sweep;
module_param(fault_sweep, uint, 0444);
MODULE_PARM_DESC(fault_sweep,
		 "xqp_fault sweeps: 0 every 16th scenario, every 8th traffic failure point (default); 1 all of them; 2 all, every errno for each op call");

/*
 * One part of a whole sweep (scripts/fault-sweep's full campaign): the
 * scenarios and traffic programs whose index is fault_part modulo
 * fault_parts (the device's own allocations go with part 0).
 */
static unsigned int fault_parts = 1;
module_param(fault_parts, uint, 0444);
MODULE_PARM_DESC(fault_parts, "xqp_fault: split the scenarios and programs into this many parts (default 1)");
static unsigned int fault_part;
module_param(fault_part, uint, 0444);
MODULE_PARM_DESC(fault_part, "xqp_fault: the part to run, 0 to fault_parts - 1");

/* Whether the program of index @i is in this run's part. */
static bool fs_in_part(size_t i)
{
	return fault_parts <= 1 || i % fault_parts == fault_part;
}

/* What a driver op may fail with; modes 0 and 1 take the first FS_ERRNOS_SLICE in turn. */
static const int fs_errnos[] = {
	EIO, ENOMEM, EBUSY, EINVAL, EAGAIN, EOPNOTSUPP, ENOSPC, EFAULT,
	EPERM, ENODEV, ETIMEDOUT, EINTR,
};
#define FS_ERRNOS_SLICE	3

/* A program that has not completed after this many failure points is a failure. */
#define FS_MAX_POINTS	4000
/* Failures reported per case; the rest are only counted. */
#define FS_MAX_REPORTS	5

struct fs_arm {
	bool alloc;		/* fail-nth, else a driver op (or the work queue's) */
	bool work;		/* the work queue's fail-nth (xqp_work_fail_nth()) */
	unsigned int nth;
	unsigned int dev;	/* which of the program's soft devices */
	enum xqp_soft_op op;
	int err;		/* positive */
	unsigned int after;	/* calls of op that succeed first */
};

struct fs_run {
	int *rc;		/* per step */
	u8 *obs;		/* per step: what it left (obs_size bytes each) */
	bool setup_failed;
	bool fired;		/* the armed failure happened */
	unsigned int left;	/* objects the teardown could not destroy */
	unsigned int nsofts;
	u64 calls[FS_MAX_SOFTS][XQP_SOFT_OP_COUNT];	/* op calls made by the steps */
};

/* One family's figures. */
struct fs_figures {
	unsigned int a_progs, a_points, a_failed, a_absorbed;
	unsigned int o_progs, o_runs, o_failed;
	u64 o_calls[XQP_SOFT_OP_COUNT];	/* calls failed, per op */
};

static struct {
	bool page_alloc;
	int knobs;		/* xqp_fs_knobs_set()'s result */
	unsigned int a_device;	/* failure points in the device's creation and removal */
	struct fs_figures fam[FS_FAMS];
} fs_total;

static const char *const fs_fam_names[FS_FAMS] = { "scenarios", "traffic" };

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

/* " (1 in 8)", for a quick sweep's report (one caller at a time: KUnit's). */
static const char *fs_stride_desc(unsigned int stride)
{
	static char buf[24];

	scnprintf(buf, sizeof(buf), " (1 in %u)", stride);
	return buf;
}

static void *fs_obs_at(const struct fs_prog *p, const u8 *obs, unsigned int i)
{
	return (void *)(obs + (size_t)i * p->obs_size);
}

/*
 * Step @i and what it left, seen with fail-nth paused: the observation's
 * own allocations neither fail nor count. Its driver calls (the
 * scenarios' query_qp) do count for the op sweep.
 */
static int fs_step(const struct fs_prog *p, void *ctx, unsigned int i, void *scratch,
		   void *keep)
{
	unsigned int nth;
	int rc;

	memset(scratch, 0, p->obs_size);
	rc = p->ops->run(p, ctx, i, scratch);
	if (rc == FS_RC_NOT_RUN) {
		memset(keep, 0, p->obs_size);
		return rc;
	}
	nth = fs_fail_nth_get();
	fs_fail_nth_set(0);
	p->ops->observe(p, ctx, i, scratch);
	fs_fail_nth_set(nth);
	memcpy(keep, scratch, p->obs_size);
	return rc;
}

static bool fs_op_arm(const struct fs_arm *arm)
{
	return arm && !arm->alloc && !arm->work;
}

/* One run of @p on fresh devices, with @arm armed (NULL: clean). */
static void fs_run_once(struct kunit *test, const struct fs_prog *p, const struct fs_arm *arm,
			void *scratch, struct fs_run *r)
{
	u64 base[FS_MAX_SOFTS][XQP_SOFT_OP_COUNT];
	struct xqp_soft *soft[FS_MAX_SOFTS] = {};
	bool alloc = arm && arm->alloc;
	unsigned int i, d;
	void *ctx;
	int op;

	r->setup_failed = false;
	r->fired = false;
	r->left = 0;
	r->nsofts = 0;
	memset(r->calls, 0, sizeof(r->calls));

	if (alloc && p->device_only)
		fs_fail_nth_set(arm->nth);
	ctx = p->ops->setup(test, p);
	if (ctx) {
		r->nsofts = p->ops->softs(ctx, soft);
		for (d = 0; d < r->nsofts; d++) {
			xqp_soft_count_data_path(soft[d], 1);
			for (op = 0; op < XQP_SOFT_OP_COUNT; op++)
				base[d][op] = xqp_soft_op_calls(soft[d], op);
		}
		if (alloc && !p->device_only)
			fs_fail_nth_set(arm->nth);
		if (arm && arm->work)
			xqp_work_fail_nth(arm->nth);
		if (fs_op_arm(arm) && arm->dev < r->nsofts)
			xqp_soft_inject(soft[arm->dev], arm->op, -arm->err, arm->after);
		for (i = 0; i < p->nsteps; i++)
			r->rc[i] = fs_step(p, ctx, i, scratch, fs_obs_at(p, r->obs, i));
		for (d = 0; d < r->nsofts; d++)
			for (op = 0; op < XQP_SOFT_OP_COUNT; op++)
				r->calls[d][op] = xqp_soft_op_calls(soft[d], op) - base[d][op];
	}
	/* device_only stays armed through the removal: it has no objects to find */
	if (alloc && (!p->device_only || !ctx)) {
		r->fired = fs_fail_nth_get() == 0;
		fs_fail_nth_set(0);
	}
	if (!ctx) {
		r->setup_failed = true;
		return;
	}
	if (fs_op_arm(arm) && arm->dev < r->nsofts) {
		r->fired = r->calls[arm->dev][arm->op] > arm->after;
		xqp_soft_inject(soft[arm->dev], arm->op, 0, 0);
	}
	if (arm && arm->work) {
		xqp_work_flush_all();
		r->fired = xqp_work_fail_fired();
		xqp_work_fail_nth(0);
	}
	r->left = p->ops->teardown(ctx, test);
	if (alloc && p->device_only) {
		r->fired = fs_fail_nth_get() == 0;
		fs_fail_nth_set(0);
	}
}

/* "allocation 7" / "create_qp call 2 -> -16" / "dev 1 poll_cq call 3 -> -5", for reports. */
static void fs_describe(char *buf, size_t len, const struct fs_prog *p, const struct fs_arm *arm,
			unsigned int nsofts)
{
	if (arm->alloc)
		scnprintf(buf, len, "allocation %u", arm->nth);
	else if (nsofts > 1)
		scnprintf(buf, len, "dev %u %s call %u -> -%d", arm->dev, xqp_soft_op_name(arm->op),
			  arm->after + 1, arm->err);
	else
		scnprintf(buf, len, "%s call %u -> -%d", xqp_soft_op_name(arm->op), arm->after + 1,
			  arm->err);
}

/*
 * The step @i that reported the injected failure left the state the last
 * observed step before it left (a program without state_differs, a first
 * step, or a failure the observation itself may see: not judged).
 */
static bool fs_changed_nothing(struct kunit *test, const struct fs_prog *p,
			       const struct fs_run *r, const struct fs_arm *arm, unsigned int i,
			       const char *what, unsigned int *reports)
{
	char parts[128];
	unsigned int k;

	if (!p->ops->state_differs || (!arm->alloc && (p->obs_ops & BIT_ULL(arm->op))))
		return true;
	for (k = i; k-- > 0;) {
		if (r->rc[k] == FS_RC_NOT_RUN)
			continue;
		if (!p->ops->state_differs(parts, sizeof(parts), fs_obs_at(p, r->obs, k),
					   fs_obs_at(p, r->obs, i)))
			return true;
		if ((*reports)++ < FS_MAX_REPORTS)
			KUNIT_FAIL(test, "%s, %s: step %u (%s) failed with %d but changed:%s",
				   p->name, what, i, p->ops->step_name(p, i), r->rc[i], parts);
		return false;
	}
	return true;
}

/* Judges run @r against the clean run; false (and a report) when it was not clean. */
static bool fs_check(struct kunit *test, const struct fs_prog *p, const struct fs_run *clean,
		     const struct fs_run *r, const struct fs_arm *arm, unsigned int *reports)
{
	int want = arm->alloc ? -ENOMEM : -arm->err;
	bool ok = true, first = true;
	char what[64];
	unsigned int i;

	fs_describe(what, sizeof(what), p, arm, clean->nsofts);
	if (r->setup_failed)
		return true;	/* the devices never came: kmemleak judges that */
	/*
	 * Until the first step that reports the failure, every step must have
	 * left what it left in the clean run: one that returned as if nothing
	 * had happened but did less swallowed the failure. A failed op the
	 * observation itself calls (the scenarios' query_qp) shows there
	 * first (it reports that state as an error).
	 */
	for (i = 0; i < p->nsteps && r->rc[i] == clean->rc[i]; i++) {
		const void *a = fs_obs_at(p, r->obs, i), *b = fs_obs_at(p, clean->obs, i);
		char parts[128];

		if (!arm->alloc && (p->obs_ops & BIT_ULL(arm->op)))
			break;
		if (!memcmp(a, b, p->obs_size))
			continue;
		p->ops->obs_diff(parts, sizeof(parts), a, b);
		if ((*reports)++ < FS_MAX_REPORTS)
			KUNIT_FAIL(test,
				   "%s, %s: step %u (%s) returned %d as in the clean run but left something else:%s",
				   p->name, what, i, p->ops->step_name(p, i), r->rc[i], parts);
		ok = false;
		break;
	}
	for (i = 0; i < p->nsteps; i++) {
		int rc = r->rc[i];
		const char *step = p->ops->step_name(p, i);

		if (rc != 0 && rc != FS_RC_DEAD_SLOT && rc != FS_RC_NOT_RUN &&
		    (rc > 0 || rc < -MAX_ERRNO)) {
			if ((*reports)++ < FS_MAX_REPORTS)
				KUNIT_FAIL(test, "%s, %s: step %u (%s) returned %d, not an errno",
					   p->name, what, i, step, rc);
			ok = false;
		}
		if (first && rc != clean->rc[i]) {
			first = false;
			if (rc != want) {
				if ((*reports)++ < FS_MAX_REPORTS)
					KUNIT_FAIL(test,
						   "%s, %s: step %u (%s) is the first to differ from the clean run and returns %d (clean %d), not %d",
						   p->name, what, i, step, rc, clean->rc[i], want);
				ok = false;
			} else if (!fs_changed_nothing(test, p, r, arm, i, what, reports)) {
				ok = false;
			}
		}
	}
	if (r->left) {
		if ((*reports)++ < FS_MAX_REPORTS)
			KUNIT_FAIL(test, "%s, %s: %u objects left behind", p->name, what, r->left);
		ok = false;
	}
	return ok;
}

/* Allocates a run's per-step arrays (outside any armed window). */
static bool fs_run_alloc(struct kunit *test, const struct fs_prog *p, struct fs_run *r)
{
	r->rc = kunit_kcalloc(test, p->nsteps + 1, sizeof(int), GFP_KERNEL);
	r->obs = kunit_kcalloc(test, p->nsteps + 1, p->obs_size, GFP_KERNEL);
	return r->rc && r->obs;
}

/* The clean run every other is judged against; false if there is none. */
static bool fs_clean_run(struct kunit *test, const struct fs_prog *p, void *scratch,
			 struct fs_run *clean)
{
	fs_run_once(test, p, NULL, scratch, clean);
	KUNIT_EXPECT_FALSE_MSG(test, clean->setup_failed, "%s: no soft device", p->name);
	KUNIT_EXPECT_EQ_MSG(test, clean->left, 0, "%s: the clean run left objects", p->name);
	if (clean->setup_failed || clean->left)
		return false;
	return !p->ops->clean_ok || p->ops->clean_ok(test, p, clean->rc, clean->obs);
}

/* A run's scratch observation and the two runs' arrays; false if out of memory. */
static bool fs_prepare(struct kunit *test, const struct fs_prog *p, void **scratch,
		       struct fs_run *clean, struct fs_run *r)
{
	*scratch = kunit_kzalloc(test, p->obs_size, GFP_KERNEL);
	return *scratch && fs_run_alloc(test, p, clean) && fs_run_alloc(test, p, r);
}

void fs_sweep_alloc(struct kunit *test, const struct fs_prog *p, unsigned int stride)
{
	struct fs_figures *fig = &fs_total.fam[p->family];
	struct fs_run clean = {}, r = {};
	struct fs_arm arm = { .alloc = true };
	unsigned int points = 0, bad = 0, reports = 0, absorbed = 0, i;
	void *scratch, *probe;

	KUNIT_ASSERT_EQ_MSG(test, fs_total.knobs, 0, "failslab's debugfs knobs could not be set");
	KUNIT_ASSERT_TRUE(test, fs_prepare(test, p, &scratch, &clean, &r));

	/* fail-nth reaches GFP_KERNEL allocations, or this sweep sees nothing. */
	fs_fail_nth_set(1);
	probe = kmalloc(64, GFP_KERNEL);
	fs_fail_nth_set(0);
	kfree(probe);
	KUNIT_ASSERT_NULL_MSG(test, probe, "fail-nth did not fail a GFP_KERNEL allocation");

	if (!fs_clean_run(test, p, scratch, &clean))
		return;
	for (arm.nth = 1; arm.nth <= FS_MAX_POINTS; arm.nth += stride) {
		fs_run_once(test, p, &arm, scratch, &r);
		if (!r.fired)
			break;
		points++;
		if (!r.setup_failed && !memcmp(r.rc, clean.rc, p->nsteps * sizeof(int)))
			absorbed++;
		if (!fs_check(test, p, &clean, &r, &arm, &reports))
			bad++;
		cond_resched();
	}
	KUNIT_EXPECT_LE_MSG(test, arm.nth, FS_MAX_POINTS, "%s: still failing after %u points",
			    p->name, FS_MAX_POINTS);
	/* The run that reached no N-th allocation is the clean run again. */
	for (i = 0; i < p->nsteps && arm.nth <= FS_MAX_POINTS; i++)
		KUNIT_EXPECT_EQ_MSG(test, r.rc[i], clean.rc[i],
				    "%s step %u: the last run, nothing failed, differs from the first",
				    p->name, i);
	KUNIT_EXPECT_EQ(test, bad, 0);
	fig->a_progs++;
	fig->a_points += points;
	fig->a_failed += bad;
	fig->a_absorbed += absorbed;
	if (p->device_only)
		fs_total.a_device = points;
	kunit_info(test, "xqp_fault: alloc %-36s %4u failure points (%u absorbed)%s%s\n",
		   p->name, points, absorbed, stride > 1 ? fs_stride_desc(stride) : "",
		   bad ? " FAILED" : "");
}

/* A work item that allocates, to show the work queue's fail-nth reaches one. */
struct fs_work_probe {
	struct xqp_work work;	/* first */
	void *got;
};

static void fs_work_probe_fn(struct xqp_work *work)
{
	struct fs_work_probe *probe = (struct fs_work_probe *)work;

	probe->got = kmalloc(32, GFP_KERNEL);
}

static bool fs_work_hook_fails_one(struct kunit *test)
{
	struct fs_work_probe *probe = kunit_kzalloc(test, sizeof(*probe), GFP_KERNEL);
	bool fired;

	if (!probe)
		return false;
	probe->got = probe;
	xqp_work_init(&probe->work, fs_work_probe_fn);
	xqp_work_fail_nth(1);
	xqp_work_queue(&probe->work, 0);
	xqp_work_flush_all();
	xqp_work_cancel_sync(&probe->work);
	fired = xqp_work_fail_fired();
	xqp_work_fail_nth(0);
	kfree(probe->got == probe ? NULL : probe->got);
	return fired && !probe->got;
}

/*
 * What runs on the work queue (retries after an RNR NAK or an ACK timeout,
 * posts made with IRQs off, their completions and events) is out of the
 * reach of the task's fail-nth. In a kernel client's program it allocates
 * nothing (the handlers it calls are the client's): the program runs once
 * more with the work queue's own fail-nth at 1 (xqp_work_fail_nth()), which
 * must never fire, and the run must be the clean run. An allocation added
 * to that path fails here first; it then needs a sweep judging its failure.
 */
void fs_check_work(struct kunit *test, const struct fs_prog *p)
{
	struct fs_arm arm = { .work = true, .nth = 1 };
	struct fs_run clean = {}, r = {};
	char parts[128];
	unsigned int i;
	void *scratch;

	KUNIT_ASSERT_EQ_MSG(test, fs_total.knobs, 0, "failslab's debugfs knobs could not be set");
	KUNIT_ASSERT_TRUE(test, fs_prepare(test, p, &scratch, &clean, &r));
	KUNIT_ASSERT_TRUE_MSG(test, fs_work_hook_fails_one(test),
			      "the work queue's fail-nth did not fail a work item's allocation");
	if (!fs_clean_run(test, p, scratch, &clean))
		return;
	fs_run_once(test, p, &arm, scratch, &r);
	KUNIT_EXPECT_FALSE_MSG(test, r.setup_failed, "%s: no soft device", p->name);
	KUNIT_EXPECT_FALSE_MSG(test, r.fired, "%s: deferred work made an allocation", p->name);
	for (i = 0; i < p->nsteps && !r.setup_failed; i++) {
		const void *a = fs_obs_at(p, r.obs, i), *b = fs_obs_at(p, clean.obs, i);

		if (r.rc[i] == clean.rc[i] && !memcmp(a, b, p->obs_size))
			continue;
		p->ops->obs_diff(parts, sizeof(parts), a, b);
		KUNIT_FAIL(test, "%s, work armed: step %u (%s) returned %d (clean %d), left:%s",
			   p->name, i, p->ops->step_name(p, i), r.rc[i], clean.rc[i], parts);
		break;
	}
	KUNIT_EXPECT_EQ_MSG(test, r.left, 0, "%s, work armed: objects left", p->name);
	kunit_info(test, "xqp_fault: work  %-36s no allocation on the work queue%s\n", p->name,
		   r.fired ? " FAILED" : "");
}

void fs_sweep_ops(struct kunit *test, const struct fs_prog *p, unsigned int stride)
{
	struct fs_figures *fig = &fs_total.fam[p->family];
	struct fs_run clean = {}, r = {};
	struct fs_arm arm = { .alloc = false };
	unsigned int runs = 0, bad = 0, reports = 0, e, d, n = 0;
	void *scratch;
	u64 k;
	int op;

	KUNIT_ASSERT_TRUE(test, fs_prepare(test, p, &scratch, &clean, &r));
	if (!fs_clean_run(test, p, scratch, &clean))
		return;

	for (d = 0; d < clean.nsofts; d++) {
		for (op = 0; op < XQP_SOFT_OP_COUNT; op++) {
			for (k = 0; k < clean.calls[d][op]; k++) {
				if (n++ % stride)
					continue;
				for (e = 0; e < fs_nerrnos(); e++) {
					char what[64];

					arm.dev = d;
					arm.op = op;
					arm.after = k;
					/* one errno per call, in turn, unless every one is asked for */
					arm.err = fault_sweep >= 2 ? fs_errnos[e] :
						  fs_errnos[(fig->o_runs + runs) % FS_ERRNOS_SLICE];
					fs_run_once(test, p, &arm, scratch, &r);
					runs++;
					if (!r.fired) {
						fs_describe(what, sizeof(what), p, &arm, clean.nsofts);
						if (reports++ < FS_MAX_REPORTS)
							KUNIT_FAIL(test, "%s, %s: the call never came (%llu of %llu calls)",
								   p->name, what, r.calls[d][op],
								   clean.calls[d][op]);
						bad++;
					} else if (!fs_check(test, p, &clean, &r, &arm, &reports)) {
						bad++;
					}
					cond_resched();
				}
				fig->o_calls[op]++;
			}
		}
	}
	KUNIT_EXPECT_EQ(test, bad, 0);
	fig->o_progs++;
	fig->o_runs += runs;
	fig->o_failed += bad;
	kunit_info(test, "xqp_fault: ops   %-36s %4u runs (%u errnos)%s%s\n", p->name, runs,
		   fs_nerrnos(), stride > 1 ? fs_stride_desc(stride) : "", bad ? " FAILED" : "");
}

/* ---- the xqp_diff scenarios as programs --------------------------------- */

/*
 * The soft device's creation is the same in every scenario: its allocations
 * are swept once, in this empty scenario; the others arm after it.
 */
static const struct dx_step fs_no_steps[] = { { .op = DX_END } };
static const struct dx_scenario fs_device_only = {
	"device_only", "creating and removing a soft device", fs_no_steps,
};

static void *fs_dx_setup(struct kunit *test, const struct fs_prog *p)
{
	return dx_xqp_exec.setup(test);
}

static unsigned int fs_dx_softs(void *ctx, struct xqp_soft **soft)
{
	soft[0] = dx_xqp_soft(ctx);
	return 1;
}

static const struct dx_step *fs_dx_step_of(const struct fs_prog *p, unsigned int i)
{
	return &((const struct dx_scenario *)p->arg)->steps[i];
}

static int fs_dx_run(const struct fs_prog *p, void *ctx, unsigned int i, void *obs)
{
	const struct dx_step *s = fs_dx_step_of(p, i);

	if (s->side == DX_LX_ONLY)
		return FS_RC_NOT_RUN;
	return dx_xqp_exec.run(ctx, s, obs);
}

/* What the step left: objects, counts, states, events, what is openable. */
static void fs_dx_observe(const struct fs_prog *p, void *ctx, unsigned int i, void *obs)
{
	struct dx_obs *o = obs;

	dx_xqp_exec.observe(ctx, o);
	o->rc = 0;
}

/* The state parts: not what the step reported, nor the events during it. */
static bool fs_dx_state_differs(char *buf, size_t len, const void *pa, const void *pb)
{
	const struct dx_obs *a = pa, *b = pb;
	size_t n = 0;

	buf[0] = '\0';
	FS_OBS_PART(buf, len, n, a, b, "xrcds", xrcd_live);
	FS_OBS_PART(buf, len, n, a, b, "usecnt", usecnt);
	FS_OBS_PART(buf, len, n, a, b, "pd", pd_live);
	FS_OBS_PART(buf, len, n, a, b, "cq", cq_live);
	FS_OBS_PART(buf, len, n, a, b, "srq", srq_live);
	FS_OBS_PART(buf, len, n, a, b, "qps", qp_live);
	FS_OBS_PART(buf, len, n, a, b, "shares", shares);
	FS_OBS_PART(buf, len, n, a, b, "states", state);
	FS_OBS_PART(buf, len, n, a, b, "openable", open_bits);
	FS_OBS_PART(buf, len, n, a, b, "driver-objects", drv);
	return n;
}

/* Which parts of two observations differ ("xrcds qp-events"), for a report. */
static void fs_dx_obs_diff(char *buf, size_t len, const void *pa, const void *pb)
{
	const struct dx_obs *a = pa, *b = pb;
	size_t n;

	fs_dx_state_differs(buf, len, pa, pb);
	n = strlen(buf);
	FS_OBS_PART(buf, len, n, a, b, "out", out);
	FS_OBS_PART(buf, len, n, a, b, "qp-events", ev);
	FS_OBS_PART(buf, len, n, a, b, "cq-events", cq_ev);
	FS_OBS_PART(buf, len, n, a, b, "srq-events", srq_ev);
}

static unsigned int fs_dx_teardown(void *ctx, struct kunit *test)
{
	return dx_xqp_exec.teardown(ctx, test);
}

static const char *fs_dx_step_name(const struct fs_prog *p, unsigned int i)
{
	return dx_op_names[fs_dx_step_of(p, i)->op];
}

static const struct fs_prog_ops fs_dx_ops = {
	.setup = fs_dx_setup,
	.softs = fs_dx_softs,
	.run = fs_dx_run,
	.observe = fs_dx_observe,
	.obs_diff = fs_dx_obs_diff,
	.state_differs = fs_dx_state_differs,
	.teardown = fs_dx_teardown,
	.step_name = fs_dx_step_name,
};

/* Scenario @sc as a program (the observation's query_qp shows its failures). */
static void fs_dx_prog(struct fs_prog *p, const struct dx_scenario *sc)
{
	unsigned int n = 0;

	while (sc->steps[n].op != DX_END)
		n++;
	*p = (struct fs_prog){
		.name = sc->name,
		.ops = &fs_dx_ops,
		.arg = sc,
		.nsteps = n,
		.obs_size = sizeof(struct dx_obs),
		.obs_ops = BIT_ULL(XQP_SOFT_OP_QUERY_QP),
		.device_only = sc == &fs_device_only,
		.family = FS_FAM_DIFF,
	};
}

static void fs_alloc_sweep(struct kunit *test)
{
	struct fs_prog p;

	fs_dx_prog(&p, test->param_value);
	fs_sweep_alloc(test, &p, 1);
}

static void fs_op_sweep(struct kunit *test)
{
	struct fs_prog p;

	fs_dx_prog(&p, test->param_value);
	fs_sweep_ops(test, &p, 1);
}

/* Every FS_STRIDE_CHECK-th scenario in mode 0, all of them otherwise. */
#define FS_STRIDE_CHECK	16

static const void *fs_gen(const void *prev, char *desc, bool device_only)
{
	unsigned int stride = fault_sweep ? 1 : FS_STRIDE_CHECK;
	const struct dx_scenario *sc;
	size_t i;

	/* (indices, not pointers: a stride may step past the array's end) */
	if (!prev && device_only && fs_in_part(0))
		sc = &fs_device_only;
	else {
		if (!prev || prev == &fs_device_only)
			i = 0;
		else
			i = (size_t)((const struct dx_scenario *)prev - dx_scenarios) + stride;
		while (i < dx_nscenarios && !fs_in_part(i))
			i += stride;
		if (i >= dx_nscenarios)
			return NULL;
		sc = &dx_scenarios[i];
	}
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

/* ---- the traffic programs ------------------------------------------------ */

/* In mode 0, every FS_TRAFFIC_STRIDE_CHECK-th allocation and op call. */
#define FS_TRAFFIC_STRIDE_CHECK	8

static unsigned int fs_traffic_stride(void)
{
	return fault_sweep ? 1 : FS_TRAFFIC_STRIDE_CHECK;
}

static const void *fs_gen_traffic(const void *prev, char *desc)
{
	const struct fs_prog *const *pp = prev;

	pp = pp ? pp + 1 : fs_traffic_progs;
	while (pp < fs_traffic_progs + fs_traffic_nprogs &&
	       !fs_in_part((size_t)(pp - fs_traffic_progs)))
		pp++;
	if (pp >= fs_traffic_progs + fs_traffic_nprogs)
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", (*pp)->name);
	return pp;
}

static void fs_traffic_alloc_sweep(struct kunit *test)
{
	const struct fs_prog *const *pp = test->param_value;

	fs_sweep_alloc(test, *pp, fs_traffic_stride());
}

static void fs_traffic_op_sweep(struct kunit *test)
{
	const struct fs_prog *const *pp = test->param_value;

	fs_sweep_ops(test, *pp, fs_traffic_stride());
}

static void fs_traffic_work_check(struct kunit *test)
{
	const struct fs_prog *const *pp = test->param_value;

	fs_check_work(test, *pp);
}

/* ---- the figures ---------------------------------------------------------- */

/* The figures of both sweeps; every op the programs reach was failed. */
static void fs_summary(struct kunit *test)
{
	const struct fs_figures *dx = &fs_total.fam[FS_FAM_DIFF];
	const struct fs_figures *tr = &fs_total.fam[FS_FAM_TRAFFIC];
	unsigned int reached[FS_FAMS] = {}, calls[FS_FAMS] = {}, all = 0, f;
	unsigned int failed = 0, points = 0, runs = 0;
	char unreached[256];
	size_t n = 0;
	int op;

	unreached[0] = '\0';
	for (op = 0; op < XQP_SOFT_OP_COUNT; op++) {
		u64 sum = 0;

		for (f = 0; f < FS_FAMS; f++) {
			if (fs_total.fam[f].o_calls[op]) {
				reached[f]++;
				calls[f] += fs_total.fam[f].o_calls[op];
			}
			sum += fs_total.fam[f].o_calls[op];
		}
		if (sum)
			all++;
		else
			n += scnprintf(unreached + n, sizeof(unreached) - n, " %s", xqp_soft_op_name(op));
	}
	kunit_info(test, "xqp_fault: allocation sweep: %u scenarios, %u failure points (%u in the device's creation and removal, %u absorbed), %u failed; page allocator %s\n",
		   dx->a_progs, dx->a_points, fs_total.a_device, dx->a_absorbed,
		   dx->a_failed, fs_total.page_alloc ? "swept too" : "not in this kernel");
	kunit_info(test, "xqp_fault: driver-op sweep: %u scenarios, %u ops, %u op calls x %u errno%s = %u runs, %u failed\n",
		   dx->o_progs, reached[FS_FAM_DIFF], calls[FS_FAM_DIFF], fs_nerrnos(),
		   fault_sweep >= 2 ? "s" : " (EIO, ENOMEM, EBUSY in turn)", dx->o_runs,
		   dx->o_failed);
	kunit_info(test, "xqp_fault: traffic allocation sweep: %u programs, %u failure points (1 in %u; %u absorbed), %u failed\n",
		   tr->a_progs, tr->a_points, fs_traffic_stride(), tr->a_absorbed, tr->a_failed);
	kunit_info(test, "xqp_fault: traffic driver-op sweep: %u programs, %u ops, %u op calls (1 in %u) x %u errno%s = %u runs, %u failed\n",
		   tr->o_progs, reached[FS_FAM_TRAFFIC], calls[FS_FAM_TRAFFIC],
		   fs_traffic_stride(), fs_nerrnos(),
		   fault_sweep >= 2 ? "s" : " (EIO, ENOMEM, EBUSY in turn)", tr->o_runs,
		   tr->o_failed);
	for (op = 0; op < XQP_SOFT_OP_COUNT; op++)
		if (dx->o_calls[op] || tr->o_calls[op])
			kunit_info(test, "xqp_fault:   %-13s %llu calls failed in turn (scenarios %llu, traffic %llu)\n",
				   xqp_soft_op_name(op), dx->o_calls[op] + tr->o_calls[op],
				   dx->o_calls[op], tr->o_calls[op]);
	kunit_info(test, "xqp_fault: %u of %u ops failed; ops neither the scenarios nor the traffic programs call:%s\n",
		   all, XQP_SOFT_OP_COUNT, n ? unreached : " none");
	for (f = 0; f < FS_FAMS; f++) {
		failed += fs_total.fam[f].a_failed + fs_total.fam[f].o_failed;
		points += fs_total.fam[f].a_points;
		runs += fs_total.fam[f].o_runs;
	}
	KUNIT_EXPECT_GT(test, points, 0);
	KUNIT_EXPECT_GT(test, runs, 0);
	KUNIT_EXPECT_GT_MSG(test, tr->a_points, 0, "the %s programs were not swept",
			    fs_fam_names[FS_FAM_TRAFFIC]);
	KUNIT_EXPECT_EQ(test, failed, 0);
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

XQP_KUNIT_SUITE(fs_suite, "xqp_fault", XQP_SUITE_FIXTURE(fs_suite_init, fs_suite_exit),
		KUNIT_CASE_PARAM(fs_alloc_sweep, fs_gen_alloc),
		KUNIT_CASE_PARAM(fs_op_sweep, fs_gen_ops),
		KUNIT_CASE_PARAM(fs_traffic_alloc_sweep, fs_gen_traffic),
		KUNIT_CASE_PARAM(fs_traffic_op_sweep, fs_gen_traffic),
		KUNIT_CASE_PARAM(fs_traffic_work_check, fs_gen_traffic),
		KUNIT_CASE(fs_summary));
