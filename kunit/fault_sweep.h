/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fault-injection settings the allocation sweep (kunit/fault_sweep.c)
 * needs, set through debugfs for the suite's run and restored after it:
 * failslab and fail_page_alloc must not ignore allocations that may sleep
 * (GFP_KERNEL), or a task's fail-nth never reaches xqp's allocations; each
 * forced failure is not logged (verbose 0: the log would be a stack dump
 * per failure point); fail_page_alloc counts order-0 pages too.
 */
#ifndef XQP_KUNIT_FAULT_SWEEP_H
#define XQP_KUNIT_FAULT_SWEEP_H

#include <linux/types.h>

/*
 * Sets the knobs; returns 0, or -ENOENT when one of failslab's is missing
 * (without them the sweep cannot run; nothing is changed then).
 * fail_page_alloc's are set when the kernel has them; *page_alloc says so.
 */
int xqp_fs_knobs_set(bool *page_alloc);
/* Puts back every knob xqp_fs_knobs_set() changed. */
void xqp_fs_knobs_restore(void);

#endif
