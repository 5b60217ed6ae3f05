// SPDX-License-Identifier: GPL-2.0
/* xqp_bench: results, one line per metric, and the rounds that fill them. */
#include <linux/math64.h>
#include <linux/printk.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/time64.h>

#include "run.h"

/* ---- results ---------------------------------------------------------------- */

static int bk_cmp_s64(const void *a, const void *b)
{
	s64 x = *(const s64 *)a, y = *(const s64 *)b;

	return x < y ? -1 : x > y;
}

static s64 bk_median(const s64 *v, u32 n)
{
	s64 s[BK_MAX_ROUNDS];

	if (!n)
		return 0;
	memcpy(s, v, n * sizeof(*s));
	sort(s, n, sizeof(*s), bk_cmp_s64, NULL);
	return n & 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* @v (thousandths) as text with @dec decimals, rounded. */
static const char *bk_fmt(char *buf, size_t len, s64 v, unsigned int dec)
{
	static const s64 scale[] = { 1000, 100, 10, 1 };
	s64 div = scale[min(dec, 3U)], q;
	bool neg = v < 0;
	u64 a = neg ? -v : v;

	a = div64_u64(a + div / 2, div);	/* in units of 10^-dec */
	q = 1;
	for (unsigned int i = 0; i < dec; i++)
		q *= 10;
	if (dec)
		snprintf(buf, len, "%s%llu.%0*llu", neg ? "-" : "", div64_u64(a, q), dec,
			 a - div64_u64(a, q) * q);
	else
		snprintf(buf, len, "%s%llu", neg ? "-" : "", a);
	return buf;
}

void bk_print(const struct bk_series *s)
{
	s64 ratio[BK_MAX_ROUNDS], lo = 0, hi = 0;
	char bx[32], bl[32], br[32], blo[32], bhi[32];
	u32 r, nr = 0;

	for (r = 0; r < s->n; r++) {
		s64 x = s->v[0][r], l = s->v[1][r];

		ratio[nr] = l > 0 ? div64_s64(x * 1000, l) : 0;
		if (!nr || ratio[nr] < lo)
			lo = ratio[nr];
		if (!nr || ratio[nr] > hi)
			hi = ratio[nr];
		nr++;
	}
	pr_info("bench-kernel: %s xqp=%s linux=%s ratio=%s range=%s-%s unit=%s\n",
		s->name, bk_fmt(bx, sizeof(bx), bk_median(s->v[0], s->n), s->decimals),
		bk_fmt(bl, sizeof(bl), bk_median(s->v[1], s->n), s->decimals),
		bk_fmt(br, sizeof(br), bk_median(ratio, nr), 3),
		bk_fmt(blo, sizeof(blo), lo, 3), bk_fmt(bhi, sizeof(bhi), hi, 3), s->unit);
}

/* Thousandths of a ns per op. */
s64 bk_ns_per_op(u64 ns, u64 ops)
{
	return ops ? (s64)div64_u64(ns * 1000, ops) : 0;
}

/* Thousandths of ops/s. */
s64 bk_ops_per_s(u64 ops, u64 ns)
{
	return ns ? (s64)div64_u64(ops * NSEC_PER_SEC, ns) * 1000 : 0;
}

/*
 * Runs @fn for each round and side, the sides in alternating order (xqp
 * first in even rounds): what one round measures of the two ran back to
 * back, under the same host load.
 */
int bk_rounds(struct bk_run *run, u32 nrounds,
		     int (*fn)(struct bk_run *run, int side, u32 round, void *arg),
		     void *arg)
{
	u32 r;
	int k, s, err;

	for (r = 0; r < nrounds; r++) {
		for (k = 0; k < BK_SIDES; k++) {
			s = (r & 1) ? BK_SIDES - 1 - k : k;
			err = fn(run, s, r, arg);
			if (err) {
				pr_err("bench-kernel: %s, round %u: %d\n", bk_sides[s]->name, r, err);
				return err;
			}
		}
	}
	return 0;
}

/* Both drivers hold no QP and both XRCDs no user: what every metric leaves. */
static int bk_clean(struct bk_run *run, const char *metric)
{
	int s, bad = 0;

	for (s = 0; s < BK_SIDES; s++) {
		u32 qps = bk_sides[s]->live_qps(run->dev[s]);
		u32 use = bk_sides[s]->xrcd_usecnt(run->dev[s]);

		if (qps || use) {
			pr_err("bench-kernel: %s: %s left %u driver QPs, XRCD usecnt %u\n",
			       metric, bk_sides[s]->name, qps, use);
			bad = -EBADE;
		}
	}
	return bad;
}

void bk_verdict(struct bk_run *run, const char *metric, int err)
{
	if (!err)
		err = bk_clean(run, metric);
	if (err) {
		pr_err("bench-kernel: %s FAILED (%d)\n", metric, err);
		run->failed++;
	} else {
		run->passed++;
	}
}
