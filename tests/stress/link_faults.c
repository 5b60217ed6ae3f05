// SPDX-License-Identifier: GPL-2.0
/*
 * xqp-link-faults: links and GID changes under failure (scripts/fault-sweep,
 * docs/reliability.md "Failure sweeps"). In a guest with xqp.ko, xqp_soft.ko
 * and xqp_ibdev.ko loaded, on a veth pair of its own:
 *
 *   add      `rdma link add` with the task's fail-nth at 1, 2, ... (every
 *            allocation of ib_core's NEWLINK, of xqp_ibdev's and the soft
 *            device's making, of ib_core's clients adding the device: the
 *            MAD layer's QPs through xqp's kernel verbs) until a run reaches
 *            no N-th allocation. Each run: refused means nothing registered
 *            and a second, unarmed add succeeds; accepted means the device
 *            is there. Then `rdma link delete` of it the same way.
 *   gid_add  a linked device's GID op failed for an address's GID (debugfs
 *            inject "modify_gid"): ib_core leaves it out of its table, the
 *            next address's GID is there, and the first address has its
 *            GID once removed and added again unarmed.
 *
 * The console (no splat) and kmemleak judge the rest (scripts/vm).
 * Usage: xqp-link-faults [MAX | A-B] [add|gid]   (at most MAX runs of the
 * add sweep, spread over all of its allocations, default 100000; or A-B,
 * one piece of a whole sweep: fail-nth A to B, each in turn, until a run
 * reaches no allocation, printed as "end N"; one of the two sweeps only)
 * Prints "PASS name (...)" or "FAIL name: why" per sweep.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/fault_knobs.h"
#include "../lib/netlink.h"

#define LINK	"lfl0"
#define NETDEV	"lfv0"
#define PEER	"lfv1"
#define SYS	"/sys/class/infiniband/" LINK

static int fail_nth_fd = -1;

/* the N-th allocation of this task fails (0: none) */
static void arm(int n)
{
	char s[16];
	int k = snprintf(s, sizeof(s), "%d", n);

	if (pwrite(fail_nth_fd, s, (size_t)k, 0) != k && n)
		perror("fail-nth");
}

/* what is left of the armed count (0: the failure was reached); disarmed */
static long left(void)
{
	char s[16] = "";
	ssize_t k = pread(fail_nth_fd, s, sizeof(s) - 1, 0);

	arm(0);
	return k > 0 ? atol(s) : -1;
}

/* disarmed; 1 if the armed failure was reached */
static int disarm(void)
{
	return left() == 0;
}

#define COUNT_NTH	(1 << 30)

static int registered(void)
{
	return access(SYS, F_OK) == 0;
}

/* until @want is registered() or 10 s passed; the final state */
static int settle(int want)
{
	int i;

	for (i = 0; i < 100 && registered() != want; i++)
		usleep(100000);
	return registered();
}

/* @why into @buf (the first failure of a sweep wins) */
static void note(char *buf, size_t len, const char *fmt, int n, int err)
{
	if (!buf[0])
		snprintf(buf, len, fmt, n, err == NL_NO_ANSWER ? "no answer" : strerror(err));
}

/* the outcome of an armed request: refused (its errno), or taken; a lost
 * answer (NL_NO_ANSWER) is told by whether the device is there */
static int taken(int err, int want_registered)
{
	if (err == NL_NO_ANSWER)
		return settle(want_registered) == want_registered;
	return !err;
}

/*
 * A first add and delete armed at COUNT_NTH count the add's allocations
 * (T); then N runs 1, 2, ... when T is at most @max, else 1, 1 + S, ...
 * with S = T / (max - 1) + 1, so @max runs spread over the whole add, as
 * the acceptance sweep does. With @piece (one piece of a whole sweep), N
 * runs @first, @first + 1, ..., @max of them, or to the add's end.
 */
static void sweep_add(int first, int max, int piece)
{
	char why[160] = "", how[64] = "", end[40] = "";
	int n, runs, refused = 0, del_refused = 0, lost = 0, done = 0, err, stride = 1;
	long total;

	arm(COUNT_NTH);
	err = rdma_link_add(LINK, NETDEV, "xqp");
	total = COUNT_NTH - left();
	if (err || rdma_link_del(LINK) || settle(0)) {
		printf("FAIL link_add_delete_fail_nth: the unarmed add and delete: %s\n", strerror(err));
		return;
	}
	if (piece)
		snprintf(how, sizeof(how), " of fail-nth %d-%d", first, first + max - 1);
	else if (max > 1 && total > max) {
		stride = (int)(total / (max - 1) + 1);
		snprintf(how, sizeof(how), " of %ld allocations, every %d", total, stride);
	}
	for (n = first, runs = 0; runs < max && !why[0]; n += stride, runs++) {
		int hit;

		arm(n);
		err = rdma_link_add(LINK, NETDEV, "xqp");
		hit = disarm();
		lost += err == NL_NO_ANSWER;
		if (!taken(err, 1)) {
			refused++;
			if (settle(0))
				note(why, sizeof(why), "run %d: add refused (%s) but the device is registered", n, err);
			else if ((err = rdma_link_add(LINK, NETDEV, "xqp")))
				note(why, sizeof(why), "run %d: the unarmed add after a refused one failed: %s", n, err);
		} else if (!registered()) {
			snprintf(why, sizeof(why), "run %d: add succeeded but nothing is registered", n);
		}
		if (why[0])
			break;
		/* the delete, armed at the same N */
		arm(n);
		err = rdma_link_del(LINK);
		disarm();
		lost += err == NL_NO_ANSWER;
		if (!taken(err, 0)) {
			del_refused++;
			if (!registered())
				note(why, sizeof(why), "run %d: delete refused (%s) but the device is gone", n, err);
			else if ((err = rdma_link_del(LINK)))
				note(why, sizeof(why), "run %d: the unarmed delete after a refused one failed: %s", n, err);
		}
		if (!why[0] && settle(0))
			snprintf(why, sizeof(why), "run %d: the device is still registered after its delete", n);
		if (!hit) {
			done = 1;
			runs++;
			break;
		}
	}
	if (done && piece)
		snprintf(end, sizeof(end), ", end %d", n);
	else if (done)
		snprintf(end, sizeof(end), ", the last reaching no allocation");
	if (!why[0] && !done && stride == 1 && !piece)
		snprintf(why, sizeof(why), "the add still reached an allocation at run %d (raise MAX)", n - 1);
	if (why[0])
		printf("FAIL link_add_delete_fail_nth: %s\n", why);
	else
		printf("PASS link_add_delete_fail_nth (%d runs%s: %d adds and %d deletes refused, %d answers lost, each clean%s)\n",
		       runs, how, refused, del_refused, lost, end);
}

/* how many of the link's GIDs are @hex (sysfs's form, as ib_core lists them) */
static int gids_of(const char *hex)
{
	char path[96], s[64];
	int i, n = 0;

	for (i = 0; i < 64; i++) {
		FILE *f;

		snprintf(path, sizeof(path), SYS "/ports/1/gids/%d", i);
		f = fopen(path, "r");
		if (!f)
			break;
		if (fgets(s, sizeof(s), f) && !strncmp(s, hex, strlen(hex)))
			n++;
		fclose(f);
	}
	return n;
}

/* the link's GID table as sysfs shows it, for a failure's report */
static void dump_gids(void)
{
	char path[96], s[64];
	int i;

	for (i = 0; i < 16; i++) {
		FILE *f;

		snprintf(path, sizeof(path), SYS "/ports/1/gids/%d", i);
		f = fopen(path, "r");
		if (!f)
			break;
		if (fgets(s, sizeof(s), f))
			printf("    gid %d: %s", i, s);
		fclose(f);
	}
	for (i = 0; i < 2; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "/sys/class/net/%s/operstate", i ? PEER : NETDEV);
		f = fopen(path, "r");
		if (f && fgets(s, sizeof(s), f))
			printf("    %s: %s", i ? PEER : NETDEV, s);
		if (f)
			fclose(f);
	}
}

/* until the link has @want GIDs @hex, or 10 s passed; how many it has */
static int gids_settle(const char *hex, int want)
{
	int i, n = gids_of(hex);

	for (i = 0; i < 100 && n != want; i++) {
		usleep(100000);
		n = gids_of(hex);
	}
	return n;
}

static int inject(const char *what)
{
	int fd = open("/sys/kernel/debug/xqp_soft/" LINK "/inject", O_WRONLY | O_CLOEXEC), ok;

	if (fd < 0)
		return errno;
	ok = write(fd, what, strlen(what)) == (ssize_t)strlen(what);
	close(fd);
	return ok ? 0 : errno;
}

/*
 * The GID of 10.99.1.1 (RoCE v2, as rxe's: one GID an address) with the
 * device's GID op failed, then fd99::5:1's unarmed: ib_core's GID work is
 * one ordered queue, so once the second GID is there the first one's add
 * has run.
 */
static void sweep_gid(void)
{
	static const char v4[] = "0000:0000:0000:0000:0000:ffff:0a63:0101";
	static const char v6[] = "fd99:0000:0000:0000:0000:0000:0005:0001";
	char why[200] = "";
	int err, n;

	if ((err = rdma_link_add(LINK, NETDEV, "xqp"))) {
		printf("FAIL gid_add_failed: rdma link add: %s\n", strerror(err));
		return;
	}
	/* the GIDs of the addresses already there (10.99.0.1, the IPv6
	 * link-local one) come from ib_core's work queue: none of them may
	 * take the armed failure */
	if (gids_settle("0000:0000:0000:0000:0000:ffff:0a63:0001", 1) != 1)
		snprintf(why, sizeof(why), "10.99.0.1 has no GID on the new link");
	else if ((err = inject("modify_gid 12")))
		snprintf(why, sizeof(why), "inject: %s", strerror(err));
	else if ((err = netdev_addr(NETDEV, 1, 1, 1)) || (err = netdev_addr(NETDEV, 1, 5, 1)))
		snprintf(why, sizeof(why), "address add: %s", strerror(err));
	else if (gids_settle(v6, 1) != 1)
		snprintf(why, sizeof(why), "fd99::5:1, added after the failed GID, has no GID");
	else if ((n = gids_of(v4)))
		snprintf(why, sizeof(why), "10.99.1.1, whose GID add failed, has %d GIDs", n);
	else if ((err = netdev_addr(NETDEV, 0, 1, 1)) || (err = netdev_addr(NETDEV, 1, 1, 1)))
		snprintf(why, sizeof(why), "10.99.1.1 removed and added again: %s", strerror(err));
	else if ((n = gids_settle(v4, 1)) != 1)
		snprintf(why, sizeof(why), "10.99.1.1 added again unarmed: %d GIDs, not 1", n);
	if (why[0])
		dump_gids();
	inject("modify_gid 0");
	netdev_addr(NETDEV, 0, 1, 1);
	netdev_addr(NETDEV, 0, 5, 1);
	if ((err = rdma_link_del(LINK)) && !why[0])
		snprintf(why, sizeof(why), "rdma link delete: %s", strerror(err));
	settle(0);
	if (why[0])
		printf("FAIL gid_add_failed: %s\n", why);
	else
		printf("PASS gid_add_failed (an address whose GID add failed has none, the next address's is there, and it has its GID once added again)\n");
}

int main(int argc, char **argv)
{
	int max = argc > 1 ? atoi(argv[1]) : 100000, first = 1, last = 0, piece = 0, err;
	const char *only = argc > 2 ? argv[2] : "";

	if (argc > 1 && strchr(argv[1], '-')) {
		if (sscanf(argv[1], "%d-%d", &first, &last) != 2 || first < 1 || last < first) {
			fprintf(stderr, "xqp-link-faults: a piece is A-B, 1 <= A <= B\n");
			return 2;
		}
		max = last - first + 1;
		piece = 1;
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	fail_nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (fail_nth_fd < 0 || fault_knobs_set()) {
		printf("FAIL link_faults_setup: fail-nth or the fault knobs: %s\n", strerror(errno));
		return 1;
	}
	if ((err = veth_add(NETDEV, PEER)) || (err = netdev_set(NETDEV, 1, 0)) ||
	    (err = netdev_set(PEER, 1, 0)) || (err = netdev_addr(NETDEV, 1, 0, 1))) {
		printf("FAIL link_faults_setup: the veth pair: %s\n", strerror(err));
		return 1;
	}
	if (strcmp(only, "gid"))
		sweep_add(first, max, piece);
	if (strcmp(only, "add"))
		sweep_gid();
	netdev_del(NETDEV);
	return 0;
}
