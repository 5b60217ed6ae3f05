// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * xqp-demo: three processes share one XRC target QP through the uverbs
 * char device. The creator leaves, the QP survives, async events reach each
 * opener on its own share, and the last close frees the QP. Each process
 * narrates what it does.
 *
 *   xqp-demo [DEVICE_PATH]     (default /dev/xqp/uverbs0)
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xqpverbs.h"

static const char *dev = "/dev/xqp/uverbs0";
static const char *domain_file = "/tmp/xqp-demo-domain";
static const char *me = "main";

static void say(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	n = snprintf(line, sizeof(line), "  [%-8s pid %5d] ", me, getpid());
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	printf("%s\n", line);
	fflush(stdout);
}

static void die(const char *what)
{
	say("%s: %s", what, strerror(errno));
	exit(1);
}

static const char *state_name(int s)
{
	static const char *const n[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };

	return s >= 0 && s <= 6 ? n[s] : "?";
}

/* One actor: a process that obeys numbered steps sent over a pipe. */
struct actor {
	const char *name;
	int cmd[2], ack[2];
	pid_t pid;
	struct xqpv_context *ctx;
	struct xqpv_xrcd *xrcd;
	struct xqpv_qp *qp;
	uint32_t qpn;
};

enum step {
	S_CREATE = 1,	/* create the QP, bring it to INIT, report its number */
	S_OPEN,		/* open the QP whose number follows */
	S_LEAVE,	/* exit without cleaning up */
	S_QUERY,
	S_RAISE,	/* raise an async event (test hook) */
	S_WAIT_EVENT,
	S_TO_RTR,
	S_DESTROY,
	S_EXIT,
};

static void send_u32(int fd, uint32_t v)
{
	if (write(fd, &v, sizeof(v)) != sizeof(v))
		exit(1);
}

static uint32_t recv_u32(int fd)
{
	uint32_t v;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		exit(0);	/* main went away */
	return v;
}

static void join_domain(struct actor *a, int oflags)
{
	struct xqpv_xrcd_init_attr ia = {
		.comp_mask = XQPV_XRCD_INIT_ATTR_FD | XQPV_XRCD_INIT_ATTR_OFLAGS,
		.oflags = oflags,
	};
	int fd;

	a->ctx = xqpv_open_device_path(dev);
	if (!a->ctx)
		die("open device");
	fd = open(domain_file, O_RDONLY | O_CREAT, 0600);
	if (fd < 0)
		die("open domain file");
	ia.fd = fd;
	a->xrcd = xqpv_open_xrcd(a->ctx, &ia);
	if (!a->xrcd)
		die("open XRC domain");
	close(fd);
	say("opened %s and joined the XRC domain of %s", dev, domain_file);
}

static void actor_main(struct actor *a)
{
	me = a->name;
	for (;;) {
		uint32_t step = recv_u32(a->cmd[0]), reply = 0;
		struct xqpv_qp_attr attr;
		struct xqpv_async_event ev;

		switch (step) {
		case S_CREATE: {
			struct xqpv_qp_init_attr_ex qa = {
				.qp_type = XQPV_QPT_XRC_RECV,
				.comp_mask = XQPV_QP_INIT_ATTR_XRCD,
			};

			join_domain(a, O_CREAT);
			qa.xrcd = a->xrcd;
			a->qp = xqpv_create_qp_ex(a->ctx, &qa);
			if (!a->qp)
				die("create XRC target QP");
			memset(&attr, 0, sizeof(attr));
			attr.qp_state = XQPV_QPS_INIT;
			attr.port_num = 1;
			attr.qp_access_flags = XQPV_ACCESS_REMOTE_WRITE;
			if (xqpv_modify_qp(a->qp, &attr, XQPV_QP_STATE | XQPV_QP_PKEY_INDEX |
					  XQPV_QP_PORT | XQPV_QP_ACCESS_FLAGS))
				die("modify to INIT");
			say("created XRC target QP 0x%06x and moved it to INIT", a->qp->qp_num);
			say("sends the QP number to the others over a pipe");
			reply = a->qp->qp_num;
			break;
		}
		case S_OPEN: {
			struct xqpv_qp_open_attr oa = {
				.comp_mask = XQPV_QP_OPEN_ATTR_NUM | XQPV_QP_OPEN_ATTR_XRCD |
					     XQPV_QP_OPEN_ATTR_TYPE,
				.qp_type = XQPV_QPT_XRC_RECV,
			};

			oa.qp_num = recv_u32(a->cmd[0]);
			join_domain(a, 0);
			oa.xrcd = a->xrcd;
			a->qp = xqpv_open_qp(a->ctx, &oa);
			if (!a->qp)
				die("open QP");
			say("opened QP 0x%06x by its number: a share of its own, equal to the creator's",
			    a->qp->qp_num);
			break;
		}
		case S_LEAVE:
			say("leaves without destroying anything: exit() closes its file, the kernel");
			say("closes its share; the QP stays, the others still hold it");
			send_u32(a->ack[1], 0);
			exit(0);
		case S_QUERY:
			if (xqpv_query_qp(a->qp, &attr, XQPV_QP_STATE, NULL))
				die("query");
			say("queries QP 0x%06x through its own share: it is alive, state %s",
			    a->qp->qp_num, state_name(attr.qp_state));
			break;
		case S_RAISE:
			say("asks the device to report 'communication established' on the QP");
			say("(a test hook, as hardware would report it)");
			if (xqpv_raise_qp_event(a->qp, XQPV_EVENT_COMM_EST))
				say("  no event hook on this device (%s): skipping events",
				    strerror(errno));
			break;
		case S_WAIT_EVENT: {
			struct pollfd p = { .fd = a->ctx->async_fd, .events = POLLIN };

			if (poll(&p, 1, 3000) != 1) {
				say("no event arrived");
				break;
			}
			if (xqpv_get_async_event(a->ctx, &ev))
				die("get event");
			say("got event '%s' on %s", xqpv_event_type_str(ev.event_type),
			    ev.element.qp == a->qp ? "its own share" : "someone else's share?!");
			xqpv_ack_async_event(&ev);
			break;
		}
		case S_TO_RTR:
			memset(&attr, 0, sizeof(attr));
			attr.qp_state = XQPV_QPS_RTR;
			attr.path_mtu = XQPV_MTU_1024;
			attr.dest_qp_num = 0x42;
			attr.max_dest_rd_atomic = 1;
			attr.min_rnr_timer = 12;
			attr.ah_attr.dlid = 1;
			attr.ah_attr.port_num = 1;
			if (xqpv_modify_qp(a->qp, &attr, XQPV_QP_STATE | XQPV_QP_AV | XQPV_QP_PATH_MTU |
					  XQPV_QP_DEST_QPN | XQPV_QP_RQ_PSN |
					  XQPV_QP_MAX_DEST_RD_ATOMIC | XQPV_QP_MIN_RNR_TIMER))
				die("modify to RTR");
			say("moves the QP to RTR through its share (one real QP for everyone)");
			break;
		case S_DESTROY: {
			uint32_t qpn = a->qp->qp_num;

			if (xqpv_destroy_qp(a->qp))
				die("destroy");
			a->qp = NULL;
			say("destroys its share of QP 0x%06x", qpn);
			break;
		}
		case S_EXIT:
			xqpv_close_xrcd(a->xrcd);
			xqpv_close_device(a->ctx);
			say("closes its XRC domain and device, and exits");
			send_u32(a->ack[1], 0);
			exit(0);
		}
		send_u32(a->ack[1], reply);
	}
}

static void start(struct actor *a)
{
	if (pipe(a->cmd) || pipe(a->ack))
		die("pipe");
	fflush(stdout);
	a->pid = fork();
	if (a->pid < 0)
		die("fork");
	if (a->pid == 0)
		actor_main(a);
}

static uint32_t step(struct actor *a, uint32_t s)
{
	send_u32(a->cmd[1], s);
	return recv_u32(a->ack[0]);
}

static uint32_t step_arg(struct actor *a, uint32_t s, uint32_t arg)
{
	send_u32(a->cmd[1], s);
	send_u32(a->cmd[1], arg);
	return recv_u32(a->ack[0]);
}

static void headline(const char *s)
{
	printf("\n%s\n", s);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct actor creator = { .name = "creator" }, o1 = { .name = "opener-1" },
		     o2 = { .name = "opener-2" };
	struct xqpv_context *ctx;
	uint32_t qpn;
	int st;

	if (argc > 1)
		dev = argv[1];
	printf("xqp demo: processes sharing one XRC target QP through %s\n", dev);
	unlink(domain_file);

	headline("1. The creator makes a shareable QP in an XRC domain keyed by a file.");
	start(&creator);
	qpn = step(&creator, S_CREATE);

	headline("2. Two other processes join the domain and open the QP by its number.");
	start(&o1);
	start(&o2);
	step_arg(&o1, S_OPEN, qpn);
	step_arg(&o2, S_OPEN, qpn);

	headline("3. The creator leaves. The QP does not go with it.");
	step(&creator, S_LEAVE);
	waitpid(creator.pid, &st, 0);
	step(&o1, S_QUERY);
	step(&o2, S_QUERY);

	headline("4. An async event on the QP reaches every opener, on its own share.");
	step(&o1, S_RAISE);
	step(&o1, S_WAIT_EVENT);
	step(&o2, S_WAIT_EVENT);

	headline("5. Any share drives the one real QP.");
	step(&o1, S_TO_RTR);
	step(&o2, S_QUERY);

	headline("6. Handles go one by one; the last one frees the QP.");
	step(&o1, S_DESTROY);
	step(&o2, S_QUERY);
	step(&o2, S_DESTROY);
	{
		struct xqpv_xrcd_init_attr ia = {
			.comp_mask = XQPV_XRCD_INIT_ATTR_FD | XQPV_XRCD_INIT_ATTR_OFLAGS,
		};
		struct xqpv_qp_open_attr oa = {
			.comp_mask = XQPV_QP_OPEN_ATTR_NUM | XQPV_QP_OPEN_ATTR_XRCD |
				     XQPV_QP_OPEN_ATTR_TYPE,
			.qp_num = qpn, .qp_type = XQPV_QPT_XRC_RECV,
		};
		struct xqpv_qp *qp;
		int fd = open(domain_file, O_RDONLY);

		ctx = xqpv_open_device_path(dev);
		ia.fd = fd;
		oa.xrcd = ctx ? xqpv_open_xrcd(ctx, &ia) : NULL;
		qp = oa.xrcd ? xqpv_open_qp(ctx, &oa) : NULL;
		if (qp)
			say("QP 0x%06x can still be opened?! (unexpected)", qpn);
		else
			say("tries to open QP 0x%06x again: %s - it is gone", qpn, strerror(errno));
		if (fd >= 0)
			close(fd);
		if (ctx)
			xqpv_close_device(ctx);
	}
	step(&o1, S_EXIT);
	step(&o2, S_EXIT);
	waitpid(o1.pid, &st, 0);
	waitpid(o2.pid, &st, 0);
	unlink(domain_file);
	printf("\nDone: the QP outlived its creator, every opener saw the event, and the\n"
	       "last share freed it.\n");
	return 0;
}
