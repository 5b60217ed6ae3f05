// SPDX-License-Identifier: GPL-2.0
/*
 * xqp_fault's fault-injection knobs (fault_sweep.h). Each is a debugfs file
 * made by debugfs_create_bool/_ulong/_u32 over the variable it shows, which
 * debugfs keeps as the file's inode's i_private: the suite looks the file
 * up by name and sets that variable, as a write to the file would (debugfs
 * files cannot be read or written with kernel_read()/kernel_write()). The
 * old values are kept and put back at the end of the suite.
 */
#include <linux/debugfs.h>
#include <linux/dcache.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kernel.h>

#include "fault_sweep.h"

enum fs_type { FS_BOOL, FS_ULONG, FS_U32 };

struct fs_knob {
	const char *dir, *name;
	enum fs_type type;
	unsigned long want;
	bool page_alloc;	/* fail_page_alloc's: absent without CONFIG_FAIL_PAGE_ALLOC */
	void *var;		/* set while changed */
	unsigned long old;
};

static struct fs_knob fs_knobs[] = {
	{ "failslab", "ignore-gfp-wait", FS_BOOL, 0, false },
	{ "failslab", "verbose", FS_ULONG, 0, false },
	{ "fail_page_alloc", "ignore-gfp-wait", FS_BOOL, 0, true },
	{ "fail_page_alloc", "min-order", FS_U32, 0, true },
	{ "fail_page_alloc", "verbose", FS_ULONG, 0, true },
};

/* The variable behind debugfs file @dir/@name, or NULL. */
static void *fs_knob_var(const char *dir, const char *name)
{
	struct dentry *d, *f;
	void *var = NULL;

	d = debugfs_lookup(dir, NULL);
	if (IS_ERR_OR_NULL(d))
		return NULL;
	f = debugfs_lookup(name, d);
	if (!IS_ERR_OR_NULL(f)) {
		if (d_really_is_positive(f))
			var = d_inode(f)->i_private;
		dput(f);
	}
	dput(d);
	return var;
}

static unsigned long fs_knob_get(const struct fs_knob *k)
{
	switch (k->type) {
	case FS_BOOL:
		return *(bool *)k->var;
	case FS_ULONG:
		return *(unsigned long *)k->var;
	default:
		return *(u32 *)k->var;
	}
}

static void fs_knob_put(const struct fs_knob *k, unsigned long v)
{
	switch (k->type) {
	case FS_BOOL:
		WRITE_ONCE(*(bool *)k->var, !!v);
		break;
	case FS_ULONG:
		WRITE_ONCE(*(unsigned long *)k->var, v);
		break;
	default:
		WRITE_ONCE(*(u32 *)k->var, (u32)v);
		break;
	}
}

int xqp_fs_knobs_set(bool *page_alloc)
{
	struct fs_knob *k;

	*page_alloc = fs_knob_var("fail_page_alloc", "ignore-gfp-wait") != NULL;
	for (k = fs_knobs; k < fs_knobs + ARRAY_SIZE(fs_knobs); k++) {
		if (k->page_alloc && !*page_alloc)
			continue;
		k->var = fs_knob_var(k->dir, k->name);
		if (!k->var) {
			pr_err("xqp_fault: no debugfs file %s/%s\n", k->dir, k->name);
			xqp_fs_knobs_restore();
			return -ENOENT;
		}
		k->old = fs_knob_get(k);
		fs_knob_put(k, k->want);
	}
	return 0;
}

void xqp_fs_knobs_restore(void)
{
	struct fs_knob *k;

	for (k = fs_knobs + ARRAY_SIZE(fs_knobs); k-- > fs_knobs;) {
		if (!k->var)
			continue;
		fs_knob_put(k, k->old);
		k->var = NULL;
	}
}
