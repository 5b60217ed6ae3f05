// SPDX-License-Identifier: GPL-2.0
/*
 * xqp_bench.ko: xqp's core against Linux's ib_core, in the same kernel, on
 * software devices of their own (xqp_soft for xqp, xqp_refdev for ib_core).
 *
 * The run happens at load (module parameter run=1, the default) and is over
 * when insmod returns: every object is freed and every kthread joined
 * before the init function returns, so the module holds nothing while it
 * stays loaded; rmmod it afterwards. Parameters:
 *
 *   start      (write-only, in sysfs) writing 1 runs the benchmark again,
 *              with the load's parameters; load with run=0 to only run so.
 *   quick=1    the correctness pass: each metric once (one round) with small
 *              counts, every return value checked, the drivers' live objects
 *              and the XRCD's usecnt checked after each metric; timed values
 *              are printed but mean nothing.
 *   rounds=R   rounds per metric (default 5; quick: 1). Each round runs xqp
 *              and Linux back to back, in alternating order.
 *   only=a,b   run only the metrics whose names contain one of these.
 *   n_open= n_create= n_1m= n_walk= n_scale= n_fanout= n_event= shares=
 *              the counts (see the parameter descriptions).
 *
 * Output (printk, one line per metric):
 *   bench-kernel: <metric> xqp=<v> linux=<v> ratio=<r> range=<lo>-<hi> unit=<u>
 * xqp and linux are the medians over the rounds, ratio the median of the
 * per-round xqp/linux ratios and range their minimum and maximum. Then
 *   bench-kernel: N passed, N failed
 * with one check per metric (and one for the final teardown).
 * Lines "bench-kernel-info:" say what was measured (counts, sizes).
 */

#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/string.h>

#include "run.h"

static bool run = true;
module_param(run, bool, 0444);
MODULE_PARM_DESC(run, "run the benchmark at load (default 1)");
static bool quick;
module_param(quick, bool, 0444);
MODULE_PARM_DESC(quick, "correctness pass: one round, small counts (default 0)");
static unsigned int rounds;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "rounds per metric (default 5, quick 1)");
static char *only;
module_param(only, charp, 0444);
MODULE_PARM_DESC(only, "comma-separated substrings: run only the metrics matching one");

const struct bk_side *const bk_sides[BK_SIDES] = { &bk_side_xqp, &bk_side_linux };

/* ---- metric filter, counts ----------------------------------------------------- */

static bool bk_wanted(const char *metric)
{
	const char *p = only;
	char tok[32];

	if (!p || !*p)
		return true;
	while (*p) {
		size_t len = strcspn(p, ",");

		if (len && len < sizeof(tok)) {
			memcpy(tok, p, len);
			tok[len] = '\0';
			if (strstr(metric, tok))
				return true;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return false;
}

u32 bk_count(unsigned int param, u32 full, u32 small)
{
	return param ? param : (quick ? small : full);
}

/* ---- the run ------------------------------------------------------------------------------- */

static void bk_run_all(void)
{
	struct bk_run run = {};
	int side, err = 0, left;

	run.rounds = rounds ?: (quick ? 1 : 5);
	if (run.rounds > BK_MAX_ROUNDS)
		run.rounds = BK_MAX_ROUNDS;
	pr_info("bench-kernel-info: %s, %u rounds, %u online CPUs, xqp and linux alternating\n",
		quick ? "quick (correctness) pass" : "full run", run.rounds, num_online_cpus());
	for (side = 0; side < BK_SIDES; side++) {
		run.dev[side] = bk_sides[side]->dev_create();
		if (IS_ERR(run.dev[side])) {
			err = PTR_ERR(run.dev[side]);
			pr_err("bench-kernel: %s: no device: %d\n", bk_sides[side]->name, err);
			run.dev[side] = NULL;
			break;
		}
		bk_sides[side]->info();
	}
	if (!err) {
		if (bk_wanted("bytes_per_share"))
			bm_bytes_per_share(&run);
		if (bk_wanted("open_close"))
			bm_open_close(&run);
		if (bk_wanted("create_destroy"))
			bm_create_destroy(&run);
		if (bk_wanted("event_1024"))
			bm_event_1024(&run);
		if (bk_wanted("fanout_block"))
			bm_fanout_block(&run);
		if (bk_wanted("scale_distinct"))
			bm_scale(&run, false);
		if (bk_wanted("scale_same"))
			bm_scale(&run, true);
		if (bk_wanted("open_close_1m") || bk_wanted("bytes_per_qp"))
			bm_open_close_1m(&run, bk_wanted("open_close_1m"),
					 bk_wanted("bytes_per_qp"));
	}
	/* reverse order of creation; a device that could not be made fails here */
	for (side = BK_SIDES - 1; side >= 0; side--) {
		if (!run.dev[side])
			continue;
		left = bk_sides[side]->dev_destroy(run.dev[side]);
		if (left) {
			pr_err("bench-kernel: %s: teardown: %d\n", bk_sides[side]->name, left);
			err = err ?: -EBADE;
		}
	}
	if (err)
		run.failed++;
	else
		run.passed++;	/* the devices: made, and freed with nothing left */
	pr_info("bench-kernel: %u passed, %u failed\n", run.passed, run.failed);
}

/* One run at a time: at load, or each write of 1 to the start parameter. */
static DEFINE_MUTEX(bk_run_mutex);

static void bk_run_locked(void)
{
	mutex_lock(&bk_run_mutex);
	bk_run_all();
	mutex_unlock(&bk_run_mutex);
}

/*
 * Writing 1 to /sys/module/xqp_bench/parameters/start runs the benchmark
 * (the same run, with the load's parameters) and returns when it is over.
 * With run=0 at load, a tracer can be set up on the module's own functions
 * (scripts/bench-profile) before anything is timed.
 */
static int bk_start_set(const char *val, const struct kernel_param *kp)
{
	bool go;
	int err = kstrtobool(val, &go);

	if (err)
		return err;
	if (go)
		bk_run_locked();
	return 0;
}

static const struct kernel_param_ops bk_start_ops = {
	.set = bk_start_set,
};
module_param_cb(start, &bk_start_ops, NULL, 0200);
MODULE_PARM_DESC(start, "write 1: run the benchmark now (after loading with run=0)");

static int __init xqp_bench_init(void)
{
	if (run)
		bk_run_locked();
	return 0;
}

static void __exit xqp_bench_exit(void)
{
	/* nothing: the run freed everything and joined its threads */
}

module_init(xqp_bench_init);
module_exit(xqp_bench_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("xqp against Linux's ib_core, side by side, in the kernel");
