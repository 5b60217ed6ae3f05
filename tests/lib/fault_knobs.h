/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's fault-injection knobs that a run arming its task's fail-nth
 * needs (xqp-acceptance -f and -n, the fuzzer's FZ_INJECT and failing ops),
 * kept in this one place for both. By default failslab and
 * fail_page_alloc leave alone every allocation that may sleep
 * (ignore-gfp-wait), so fail-nth would only ever reach GFP_ATOMIC ones;
 * these knobs make it reach GFP_KERNEL allocations and pages of any order,
 * and keep the console quiet about each failure. User (highmem) pages stay
 * exempt, as the kernel's default has them.
 */
#ifndef XQP_TESTS_FAULT_KNOBS_H
#define XQP_TESTS_FAULT_KNOBS_H

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define FAULT_KNOBS_DIR "/sys/kernel/debug/"

/* 0, or -1 with errno set */
static inline int fault_knob(const char *name, const char *value)
{
	int fd = open(name, O_WRONLY | O_CLOEXEC), err;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, value, strlen(value));
	err = errno;
	close(fd);
	errno = err;
	return n == (ssize_t)strlen(value) ? 0 : -1;
}

/*
 * Sets the knobs. Return: 0, or -1 with errno set when failslab's cannot be
 * written (debugfs not mounted, a kernel without failslab). fail_page_alloc
 * is optional: a kernel without it still gets failslab's.
 */
static inline int fault_knobs_set(void)
{
	if (fault_knob(FAULT_KNOBS_DIR "failslab/ignore-gfp-wait", "N") ||
	    fault_knob(FAULT_KNOBS_DIR "failslab/verbose", "0"))
		return -1;
	if (access(FAULT_KNOBS_DIR "fail_page_alloc", F_OK) == 0 &&
	    (fault_knob(FAULT_KNOBS_DIR "fail_page_alloc/ignore-gfp-wait", "N") ||
	     fault_knob(FAULT_KNOBS_DIR "fail_page_alloc/min-order", "0") ||
	     fault_knob(FAULT_KNOBS_DIR "fail_page_alloc/verbose", "0")))
		return -1;
	return 0;
}

#endif
