/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit xqp_fault's failure sweeps (docs/reliability.md, "Failure sweeps").
 *
 * One engine (fault_sweep.c) runs, arms and judges programs: a program is
 * a fixed list of steps on fresh soft devices. The xqp_diff scenarios
 * (diff_scenarios.c, run by fault_sweep.c) and the data-path traffic
 * programs (fault_sweep_traffic.c) are both programs, judged by the same
 * rules:
 *  - a clean run first, the reference;
 *  - then one run per allocation the steps make (the task's fail-nth, the
 *    N-th allocation fails) and one per soft-device op call x errno
 *    (xqp_soft_inject());
 *  - every step returns 0, a negative errno, FS_RC_NOT_RUN or
 *    FS_RC_DEAD_SLOT; up to the first step whose result differs from the
 *    clean run, every step left what it left in the clean run (its
 *    observation); that first step returns the injected error (-ENOMEM for
 *    an allocation) and, where the program can tell (state_differs), left
 *    the state as the step before it left it: a failed call changes
 *    nothing;
 *  - once disarmed, the program's teardown destroys what is left and
 *    nothing may remain in the soft devices;
 *  - an armed op call that never came is a failure (runs are
 *    deterministic: that would be a blind spot).
 *
 * The fault-injection knobs the allocation sweep needs are set through
 * debugfs for the suite's run and restored after it
 * (fault_sweep_knobs.c): failslab and fail_page_alloc must not ignore
 * allocations that may sleep (GFP_KERNEL), or a task's fail-nth never
 * reaches xqp's allocations; each forced failure is not logged (verbose 0:
 * the log would be a stack dump per failure point); fail_page_alloc counts
 * order-0 pages too.
 */
#ifndef XQP_KUNIT_FAULT_SWEEP_H
#define XQP_KUNIT_FAULT_SWEEP_H

#include <kunit/test.h>
#include <linux/types.h>

#include "diff_defs.h"
#include "soft/soft.h"

/* Soft devices one program may use (the op sweep arms each in turn). */
#define FS_MAX_SOFTS	2

/* Results a step may give besides 0 and -errno (diff_defs.h's values). */
#define FS_RC_NOT_RUN	DX_RC_NOT_RUN	/* not this side's step: not observed */
#define FS_RC_DEAD_SLOT	DX_RC_DEAD_SLOT	/* what it needs is not there */

/* Which figures a program's runs add to (fs_summary). */
enum fs_family { FS_FAM_DIFF, FS_FAM_TRAFFIC, FS_FAMS };

/*
 * For obs_diff and state_differs: appends " NAME" to buf (n bytes used of
 * len) when FIELD differs between observations a and b.
 */
#define FS_OBS_PART(buf, len, n, a, b, name, field)				\
	do {									\
		if (memcmp(&(a)->field, &(b)->field, sizeof((a)->field)))	\
			(n) += scnprintf((buf) + (n), (len) - (n), " " name);	\
	} while (0)

struct fs_prog;

struct fs_prog_ops {
	/* Fresh devices, nothing armed; NULL (and a message) when impossible. */
	void *(*setup)(struct kunit *test, const struct fs_prog *p);
	/* The program's soft devices; returns how many (<= FS_MAX_SOFTS). */
	unsigned int (*softs)(void *ctx, struct xqp_soft **soft);
	/* Runs step @i, filling what it reports into @obs; returns its result. */
	int (*run)(const struct fs_prog *p, void *ctx, unsigned int i, void *obs);
	/* Fills the rest of @obs: what step @i left (fail-nth is paused). */
	void (*observe)(const struct fs_prog *p, void *ctx, unsigned int i, void *obs);
	/* Names the parts in which two observations differ, for a report. */
	void (*obs_diff)(char *buf, size_t len, const void *a, const void *b);
	/*
	 * Optional: do two observations show different state (objects,
	 * counts, data; not what the step reported)? Names the parts.
	 */
	bool (*state_differs)(char *buf, size_t len, const void *a, const void *b);
	/* Disarmed: destroys what is left, removes the devices; returns what remained. */
	unsigned int (*teardown)(void *ctx, struct kunit *test);
	const char *(*step_name)(const struct fs_prog *p, unsigned int i);
	/*
	 * Optional: checks the clean run itself (what a program expects of
	 * its own steps); false fails the sweep of @p. @obs: nsteps
	 * observations of obs_size bytes.
	 */
	bool (*clean_ok)(struct kunit *test, const struct fs_prog *p, const int *rc,
			 const void *obs);
};

struct fs_prog {
	const char *name;
	const struct fs_prog_ops *ops;
	const void *arg;		/* the scenario, the step list */
	unsigned int nsteps;
	size_t obs_size;		/* bytes of one step's observation */
	u64 obs_ops;			/* BIT_ULL(op) of ops the observation calls */
	bool device_only;		/* armed from setup through teardown */
	enum fs_family family;
};

/*
 * The two sweeps of one program: @stride 1 fails every allocation / every
 * op call; k > 1 only the 1st, (k+1)-th, ... (the KUnit stage's quick mode).
 */
void fs_sweep_alloc(struct kunit *test, const struct fs_prog *p, unsigned int stride);
void fs_sweep_ops(struct kunit *test, const struct fs_prog *p, unsigned int stride);
void fs_check_work(struct kunit *test, const struct fs_prog *p);

/* The traffic programs (fault_sweep_traffic.c). */
extern const struct fs_prog *const fs_traffic_progs[];
extern const unsigned int fs_traffic_nprogs;

/*
 * Sets the knobs; returns 0, or -ENOENT when one of failslab's is missing
 * (without them the sweep cannot run; nothing is changed then).
 * fail_page_alloc's are set when the kernel has them; *page_alloc says so.
 */
int xqp_fs_knobs_set(bool *page_alloc);
/* Puts back every knob xqp_fs_knobs_set() changed. */
void xqp_fs_knobs_restore(void);

#endif
