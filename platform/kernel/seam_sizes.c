// SPDX-License-Identifier: GPL-2.0
/*
 * Sizes of the kernel lock types, for the opaque storage in xqp/seam.h.
 * Compiled to assembly at build time and turned into xqp/seam_sizes.h
 * (the asm-offsets technique).
 */
#include <linux/kbuild.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#define WORDS(t) ((sizeof(t) + sizeof(long) - 1) / sizeof(long))

int main(void)
{
	DEFINE(XQP_SPINLOCK_BYTES, sizeof(spinlock_t));
	DEFINE(XQP_SPINLOCK_ALIGN, __alignof__(spinlock_t));
	DEFINE(XQP_MUTEX_WORDS, WORDS(struct mutex));
	DEFINE(XQP_WORK_WORDS, WORDS(struct delayed_work));
	DEFINE(XQP_WAITQ_WORDS, WORDS(wait_queue_head_t) + WORDS(spinlock_t));
	return 0;
}
