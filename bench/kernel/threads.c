// SPDX-License-Identifier: GPL-2.0
/* xqp_bench: groups of kthreads, each bound to a CPU, started together. */
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/kthread.h>

#include "run.h"

/* ---- kthreads ----------------------------------------------------------------- */

static int bk_worker_fn(void *arg)
{
	struct bk_worker *w = arg;
	struct bk_group *g = w->g;

	wait_event_interruptible(g->wq, READ_ONCE(g->go) || kthread_should_stop());
	w->err = -EINTR;
	if (READ_ONCE(g->go) && !kthread_should_stop())
		w->err = w->fn(w);
	complete(&w->done);
	/* stay until joined by kthread_stop() */
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/* Stops and joins the first @n workers (created, maybe never started). */
static void bk_group_stop(struct bk_group *g, u32 n)
{
	while (n--)
		kthread_stop(g->w[n].task);
}

/*
 * Starts @g->nt workers, worker i bound to @cpus[i], waits for all of them
 * to finish, joins them. Return: 0, or the error of creating a thread
 * (nothing is left running then). The workers' own results are in w[].err.
 */
int bk_group_run(struct bk_group *g, const int *cpus)
{
	u32 i;

	init_waitqueue_head(&g->wq);
	atomic_set(&g->arrived, 0);
	for (i = 0; i < g->nt; i++) {
		struct bk_worker *w = &g->w[i];

		w->g = g;
		init_completion(&w->done);
		w->task = kthread_create(bk_worker_fn, w, "xqp_bench/%u", i);
		if (IS_ERR(w->task)) {
			int err = PTR_ERR(w->task);

			bk_group_stop(g, i);
			return err;
		}
		kthread_bind(w->task, cpus[i]);
	}
	for (i = 0; i < g->nt; i++)
		wake_up_process(g->w[i].task);
	WRITE_ONCE(g->go, true);
	wake_up_all(&g->wq);
	for (i = 0; i < g->nt; i++) {
		/* killable: the hung-task detector leaves such waits alone */
		if (wait_for_completion_killable(&g->w[i].done)) {
			WRITE_ONCE(g->abort, true);
			WRITE_ONCE(g->stop_events, true);
			wait_for_completion(&g->w[i].done);
		}
	}
	bk_group_stop(g, g->nt);
	return 0;
}

int bk_group_err(const struct bk_group *g)
{
	u32 i;

	for (i = 0; i < g->nt; i++)
		if (g->w[i].err)
			return g->w[i].err;
	return 0;
}

/* The online CPUs, at most @max; returns how many. */
u32 bk_cpus(int *cpus, u32 max)
{
	u32 n = 0;
	int cpu;

	for_each_online_cpu(cpu) {
		if (n == max)
			break;
		cpus[n++] = cpu;
	}
	return n;
}
