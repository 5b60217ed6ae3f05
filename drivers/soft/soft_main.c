// SPDX-License-Identifier: GPL-2.0
/*
 * xqp_soft.ko: the soft device driver module. Creates `devices` devices (one
 * subnet: xqp_soft0 has LID 1, xqp_soft1 LID 2, ...)
 * and, with selftest=1, runs the shared-QP self-test at load (the check used
 * on kernels without KUnit). Unloading it removes its devices, as unplugging
 * an adapter would.
 *
 * Test hook (debugfs, root only, nothing armed until written): each device
 * has /sys/kernel/debug/xqp_soft/<device>/inject. Writing "OP ERRNO [AFTER]"
 * (one command per write()) makes the (AFTER + 1)-th next call of the op
 * fail with -ERRNO, once (xqp_soft_inject()); ERRNO 0 disarms it. OP is the
 * op's name: query_device, query_port, alloc_pd, dealloc_pd, create_cq,
 * destroy_cq, alloc_xrcd, dealloc_xrcd, create_srq, destroy_srq, create_qp,
 * modify_qp, query_qp, destroy_qp, reg_mr, dereg_mr, post_send, post_recv,
 * post_srq_recv, poll_cq, req_notify_cq, resize_cq, modify_srq, query_srq,
 * query_gid, query_pkey (enum xqp_soft_op's order). Errors: EINVAL for
 * malformed input, an unknown op or an ERRNO past 4095; EFAULT. This is how
 * the acceptance suite makes the driver refuse a destroy from userspace.
 * Beside it, counts (read only) gives the device's live driver objects of
 * each kind, one "kind N" a line (pd cq xrcd srq qp mr): scripts/kill-rounds
 * reads it after each round; and qps (read only) each QP's transport state,
 * one line each (scripts/rdmacm-check shows it for a connection that hangs).
 * A device linked to a netdev (`rdma link add`) has the same directory,
 * named as its link.
 *
 * /sys/kernel/debug/xqp_soft/hotplug (root only): writing "remove N" removes
 * device xqp_softN as unloading the module would (its open files stay, and
 * answer EIO), "add N" makes it again (N < 8; a fresh device: new objects,
 * new LID). Errors: EINVAL for malformed input, ENOENT to remove a device
 * that is not there, EEXIST to add one that is, and what creating a device
 * returns. The fuzzer (tests/fuzz) removes and adds devices under load.
 */
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "soft/soft.h"
#include "../../platform/kernel/link_driver.h"
#include "soft/selftest.h"

#define XQP_MAX_SOFT 8

static unsigned int soft_devices = 1;
module_param_named(devices, soft_devices, uint, 0444);
MODULE_PARM_DESC(devices, "number of soft devices on the subnet (0-8, default 1)");

static bool selftest;
module_param(selftest, bool, 0444);
MODULE_PARM_DESC(selftest, "run the shared-QP self-test at load, narrating each step");

/* The devices and their debugfs directories, under soft_hotplug_lock. */
static DEFINE_MUTEX(soft_hotplug_lock);
static struct xqp_soft *xqp_softs[XQP_MAX_SOFT];
static struct dentry *soft_dirs[XQP_MAX_SOFT];

/* ---- debugfs: the fault-injection hook ---------------------------------- */

/* xqp_soft/ in debugfs, or an error pointer (debugfs absent: no hook). */
static struct dentry *soft_debugfs_root;

/* Longest valid input: "req_notify_cq 4095 4294967295\n" and some blanks. */
#define SOFT_HOOK_BUF	64

/* A hook's one-line input: copied into @buf (SOFT_HOOK_BUF bytes), stripped. */
static char *soft_hook_input(char *buf, const char __user *ubuf, size_t count)
{
	if (count == 0 || count >= SOFT_HOOK_BUF)
		return ERR_PTR(-EINVAL);
	if (copy_from_user(buf, ubuf, count))
		return ERR_PTR(-EFAULT);
	buf[count] = '\0';
	return strim(buf);
}

/*
 * The debugfs proxy (debugfs_create_file, not _unsafe) keeps this from
 * running once debugfs_remove() of the file has returned: the device the
 * file names is live.
 */
static ssize_t soft_inject_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct seq_file *m = file->private_data;	/* single_open()'s, listing the ops */
	struct xqp_soft *soft = m->private;
	char buf[SOFT_HOOK_BUF], *p = soft_hook_input(buf, ubuf, count), *op_s, *err_s, *after_s;
	unsigned int err, after = 0;
	int op;

	if (IS_ERR(p))
		return PTR_ERR(p);
	op_s = strsep(&p, " \t");
	err_s = p ? strsep(&p, " \t") : NULL;
	after_s = p ? skip_spaces(p) : NULL;
	if (!err_s || kstrtouint(err_s, 10, &err) || err > MAX_ERRNO)
		return -EINVAL;
	if (after_s && *after_s && kstrtouint(after_s, 10, &after))
		return -EINVAL;
	op = xqp_soft_op_lookup(op_s);
	if (op < 0)
		return op;
	xqp_soft_inject(soft, (enum xqp_soft_op)op, -(int)err, after);
	*ppos += count;
	return count;
}

/* Reading the knob lists the ops it takes, one name a line (soft.h's table). */
static int soft_inject_show(struct seq_file *m, void *unused)
{
	int op;

	for (op = 0; op < XQP_SOFT_OP_COUNT; op++)
		seq_printf(m, "%s\n", xqp_soft_op_name(op));
	return 0;
}

static int soft_inject_open(struct inode *inode, struct file *file)
{
	return single_open(file, soft_inject_show, inode->i_private);
}

static const struct file_operations soft_inject_fops = {
	.owner = THIS_MODULE,
	.open = soft_inject_open,
	.read = seq_read,
	.write = soft_inject_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/* counts (read only): the device's live driver objects, one "kind N" a line. */
static int soft_counts_show(struct seq_file *m, void *unused)
{
	struct xqp_soft_counts c;

	xqp_soft_counts(m->private, &c);
	seq_printf(m, "pd %u\ncq %u\nxrcd %u\nsrq %u\nqp %u\nmr %u\nmw %u\nmcast_grp %u\nmcast_attach %u\n",
		   c.pd, c.cq, c.xrcd, c.srq, c.qp, c.mr, c.mw, c.mcast_grp, c.mcast_attach);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(soft_counts);

/*
 * qps (read only): each QP's transport state, one line each, for a look at
 * a connection that stopped: number, type, state, peer, PSNs, queued WQEs,
 * the send queue's runner, unpolled completions and CQ overruns.
 */
static int soft_qps_show(struct seq_file *m, void *unused)
{
	struct xqp_soft_qp_state s;
	xqp_u32 n;

	for (n = 0; xqp_soft_qp_state(m->private, n, &s); n = s.qp_num + 1) {
		seq_printf(m, "qpn %u type %u state %u dqpn %u sq_psn %u rq_psn %u sq %u rq %u "
			   "running %u wait %u started %u rnr_left %d retry_left %d "
			   "scq %u/%llu rcq %u/%llu\n",
			   s.qp_num, s.type, s.state, s.dest_qp_num, s.sq_psn, s.rq_psn,
			   s.sq_count, s.rq_count, s.sq_running, s.head_wait, s.head_started,
			   s.rnr_left, s.retry_left, s.send_cq_count,
			   (unsigned long long)s.send_cq_overruns, s.recv_cq_count,
			   (unsigned long long)s.recv_cq_overruns);
		if (s.on_wire)
			seq_printf(m, "  wire tx_psn %u una %u max_psn %u tx_idx %u tx_off %u rd_out %u timer %u rnr_wait %u epsn %u msg %#x busy %u nak_sent %u\n",
				   s.tx_psn, s.una, s.max_psn, s.tx_idx, s.tx_off, s.rd_out,
				   s.timer_on, s.rnr_wait, s.epsn, s.resp_msg, s.resp_busy,
				   s.resp_nak_sent);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(soft_qps);

/*
 * wire (read only): a linked device's RoCE v2 counts, one "name N" a line,
 * after "ready 0|1" (its namespace's UDP socket is open).
 */
static int soft_wire_show(struct seq_file *m, void *unused)
{
	const char *names[32];
	xqp_u64 values[32];
	int i, n = xqp_soft_port_stats(m->private, 1, names, values, ARRAY_SIZE(names));

	seq_printf(m, "ready %d\n", xqp_soft_wire_ready(m->private));
	for (i = 0; i < n && i < (int)ARRAY_SIZE(names); i++)
		seq_printf(m, "%s %llu\n", names[i], (unsigned long long)values[i]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(soft_wire);

/* Failures are not fatal: without debugfs the hook is simply absent. */
static struct dentry *soft_debugfs_add(struct xqp_soft *soft, const char *name)
{
	struct dentry *dir;

	if (IS_ERR_OR_NULL(soft_debugfs_root))
		return NULL;
	dir = debugfs_create_dir(name, soft_debugfs_root);
	debugfs_create_file("inject", 0600, dir, soft, &soft_inject_fops);
	debugfs_create_file("counts", 0400, dir, soft, &soft_counts_fops);
	debugfs_create_file("qps", 0400, dir, soft, &soft_qps_fops);
	debugfs_create_file("wire", 0400, dir, soft, &soft_wire_fops);
	return dir;
}

/* Device @i: made with its debugfs directory. Caller holds soft_hotplug_lock. */
static int soft_add(unsigned int i)
{
	char name[16];
	struct xqp_soft *soft;

	snprintf(name, sizeof(name), "xqp_soft%u", i);
	soft = xqp_soft_create(name, NULL);
	if (IS_ERR(soft))
		return PTR_ERR(soft);
	xqp_softs[i] = soft;
	soft_dirs[i] = soft_debugfs_add(soft, name);
	return 0;
}

/*
 * Device @i removed: its hooks first (debugfs_remove() waits for a write
 * in progress), then the device. Caller holds soft_hotplug_lock.
 */
static void soft_remove(unsigned int i)
{
	debugfs_remove(soft_dirs[i]);
	soft_dirs[i] = NULL;
	xqp_soft_destroy(xqp_softs[i]);
	xqp_softs[i] = NULL;
}

/* hotplug: "remove N" or "add N" (see the top of this file). */
static ssize_t soft_hotplug_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	char buf[SOFT_HOOK_BUF], *p = soft_hook_input(buf, ubuf, count), *verb;
	unsigned int i;
	int ret = 0;

	if (IS_ERR(p))
		return PTR_ERR(p);
	verb = strsep(&p, " \t");
	if (!p || kstrtouint(skip_spaces(p), 10, &i) || i >= XQP_MAX_SOFT)
		return -EINVAL;
	mutex_lock(&soft_hotplug_lock);
	if (strcmp(verb, "remove") && strcmp(verb, "add"))
		ret = -EINVAL;
	else if (verb[0] == 'a')
		ret = xqp_softs[i] ? -EEXIST : soft_add(i);
	else if (!xqp_softs[i])
		ret = -ENOENT;
	else
		soft_remove(i);
	mutex_unlock(&soft_hotplug_lock);
	if (ret)
		return ret;
	*ppos += count;
	return count;
}

static const struct file_operations soft_hotplug_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = soft_hotplug_write,
	.llseek = noop_llseek,
};

/*
 * Every device there is removed. The whole tree goes first: once that
 * returns, no hook write is running or can start, and the devices'
 * directories are gone with it.
 */
static void xqp_destroy_softs(void)
{
	unsigned int i;

	debugfs_remove(soft_debugfs_root);
	soft_debugfs_root = NULL;
	mutex_lock(&soft_hotplug_lock);
	for (i = XQP_MAX_SOFT; i--;) {
		soft_dirs[i] = NULL;
		if (xqp_softs[i])
			soft_remove(i);
	}
	mutex_unlock(&soft_hotplug_lock);
}

/* ---- linked devices, for xqp_ibdev's links (platform/kernel/link_driver.h) ---- */

/* What a link holds: its device and the device's debugfs directory. */
struct soft_linked {
	struct xqp_soft *soft;
	struct dentry *dir;
};

static void *soft_link_create(const char *name, struct net_device *ndev, int up,
			      enum xqp_mtu mtu)
{
	struct soft_linked *l = kzalloc(sizeof(*l), GFP_KERNEL);
	struct xqp_soft *soft;

	if (!l)
		return ERR_PTR(-ENOMEM);
	soft = xqp_soft_create_linked(name, ndev, up, mtu);
	if (IS_ERR(soft)) {
		kfree(l);
		return soft;
	}
	l->soft = soft;
	l->dir = soft_debugfs_add(soft, name);
	return l;
}

static int soft_link_update(void *link_dev, int up, enum xqp_mtu mtu)
{
	struct soft_linked *l = link_dev;

	return xqp_soft_link_update(l->soft, up, mtu);
}

/* Hooks first, as soft_remove(); xqp_soft_exit() unregisters the links before the tree goes. */
static void soft_link_destroy(void *link_dev)
{
	struct soft_linked *l = link_dev;

	debugfs_remove(l->dir);
	xqp_soft_destroy(l->soft);
	kfree(l);
}

static const struct xqp_link_driver soft_link_driver = {
	.owner = THIS_MODULE,
	.create = soft_link_create,
	.update = soft_link_update,
	.destroy = soft_link_destroy,
};

static int __init xqp_soft_init(void)
{
	unsigned int i;
	int ret = 0;

	if (soft_devices > XQP_MAX_SOFT)
		return -EINVAL;
	ret = soft_net_init();
	if (ret)
		return ret;
	soft_debugfs_root = debugfs_create_dir("xqp_soft", NULL);
	if (!IS_ERR_OR_NULL(soft_debugfs_root))
		debugfs_create_file("hotplug", 0200, soft_debugfs_root, NULL,
				    &soft_hotplug_fops);
	mutex_lock(&soft_hotplug_lock);
	for (i = 0; i < soft_devices && !ret; i++)
		ret = soft_add(i);
	mutex_unlock(&soft_hotplug_lock);
	if (ret)
		goto err_softs;
	if (selftest) {
		ret = xqp_selftest_run();
		if (ret)
			goto err_softs;
	}
	ret = xqp_link_driver_register(&soft_link_driver);
	if (ret)
		goto err_softs;
	pr_info("xqp_soft: %u device(s)\n", soft_devices);
	return 0;

err_softs:
	xqp_destroy_softs();
	soft_net_fini();
	return ret;
}

static void __exit xqp_soft_exit(void)
{
	xqp_link_driver_unregister(&soft_link_driver);	/* no link holds a device */
	xqp_destroy_softs();
	soft_net_fini();
}

module_init(xqp_soft_init);
module_exit(xqp_soft_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("xqp soft device: a software XRC-capable device for xqp");
