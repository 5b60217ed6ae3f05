// SPDX-License-Identifier: GPL-2.0
/* The executor: driver op failures (the soft device's inject knob) and hotplug. */
#include "exec.h"

/* ---- driver op failures (the soft device's inject file) --------------------- */

/*
 * The soft device's op names, as its inject knob lists them when read (one
 * a line; drivers/soft/soft.h's table is the one source): ops the device
 * grows are picked up; an op number is taken modulo the count.
 */
#define MAX_SOFT_OPS	64
static char soft_op_buf[2048];
static const char *soft_ops[MAX_SOFT_OPS];
int n_soft_ops;

void inject_discover(void)
{
	int fd = open("/sys/kernel/debug/xqp_soft/xqp_soft0/inject", O_RDONLY | O_CLOEXEC);
	ssize_t len = 0, r;
	char *p, *line;

	if (fd < 0)
		return;
	while (len < (ssize_t)sizeof(soft_op_buf) - 1 &&
	       (r = read(fd, soft_op_buf + len, sizeof(soft_op_buf) - 1 - (size_t)len)) > 0)
		len += r;
	close(fd);
	soft_op_buf[len] = '\0';
	for (p = soft_op_buf; n_soft_ops < MAX_SOFT_OPS && (line = strsep(&p, "\n"));)
		if (*line)
			soft_ops[n_soft_ops++] = line;
}

void inject(const struct fz_op *op)
{
	static const int errs[] = { 16, 5, 12, 22, 11, 14, 28, 1 };
	char path[96], line[64];
	int fd, k;

	if (!n_soft_ops)
		return;
	snprintf(path, sizeof(path), "/sys/kernel/debug/xqp_soft/xqp_soft%d/inject", op->a[0] % 2);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	k = snprintf(line, sizeof(line), "%s %d %d", soft_ops[op->a[1] % n_soft_ops],
		     errs[op->a[2] % 8], op->a[3] % 4);
	count();
	__atomic_store_n(&shared->injected, 1, __ATOMIC_RELAXED);
	(void)!write(fd, line, (size_t)k);
	close(fd);
}

void exec_disarm(void)
{
	char path[96], line[64];
	int d, i, fd, k;

	for (d = 0; d < 2; d++) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/xqp_soft/xqp_soft%d/inject", d);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		for (i = 0; i < n_soft_ops; i++) {
			k = snprintf(line, sizeof(line), "%s 0", soft_ops[i]);
			(void)!write(fd, line, (size_t)k);
		}
		close(fd);
	}
}

/*
 * FZ_HOTPLUG: the second soft device removed, as unplugging it would (the
 * files on it stay and answer EIO; its QPs' peers see them go), or made
 * again (a fresh device; uverbs1 again once no file holds the old one).
 * The first device stays, so the rest of a program still has one; after a
 * program that ran this, the manager makes the second one again.
 */
void hotplug_write(const char *what)
{
	int fd = open("/sys/kernel/debug/xqp_soft/hotplug", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	(void)!write(fd, what, strlen(what));
	close(fd);
}

void hotplug(const struct fz_op *op)
{
	count();
	__atomic_store_n(&shared->hotplugged, 1, __ATOMIC_RELAXED);
	hotplug_write(op->a[0] % 4 ? "remove 1" : "add 1");
}
