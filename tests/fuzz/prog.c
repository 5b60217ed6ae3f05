// SPDX-License-Identifier: GPL-2.0
/*
 * Programs: generation, mutation, the byte encoding of the corpus and of
 * the reproducers (16 bytes per op, nothing else: a file of N*16 bytes is a
 * program of N ops).
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

const char *const fz_kind_name[FZ_OP_COUNT] = {
	"open", "close", "get_context", "query_device", "query_port",
	"alloc_pd", "dealloc_pd", "create_ah", "destroy_ah",
	"reg_mr", "dereg_mr", "create_comp_channel", "create_cq",
	"resize_cq", "destroy_cq", "poll_cq", "req_notify_cq",
	"create_qp", "query_qp", "modify_qp", "destroy_qp",
	"post_send", "post_recv", "post_srq_recv",
	"create_srq", "create_xsrq", "modify_srq", "query_srq", "destroy_srq",
	"open_xrcd", "close_xrcd", "open_qp",
	"read_async", "read_comp", "close_aux", "raise_event", "inject",
	"raw", "fork", "kill", "race",
	"connect", "setup", "nl_res", "aux_fd", "hotplug", "verbs_ioctl", "link",
	"alloc_mw", "dealloc_mw", "attach_mcast", "detach_mcast",
};

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

void fz_srand(uint64_t seed)
{
	rng_state = seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;
	if (!rng_state)
		rng_state = 1;
}

uint64_t fz_rand(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

/*
 * Relative weights of the op kinds in generated ops: creation and use of
 * objects often (work requests and polls most: FZ_SETUP makes them count),
 * the process and file operations now and then.
 */
static const uint8_t weight[FZ_OP_COUNT] = {
	[FZ_OPEN] = 4, [FZ_CLOSE] = 2, [FZ_GET_CONTEXT] = 4, [FZ_QUERY_DEVICE] = 1,
	[FZ_QUERY_PORT] = 1, [FZ_ALLOC_PD] = 6, [FZ_DEALLOC_PD] = 3,
	[FZ_CREATE_AH] = 2, [FZ_DESTROY_AH] = 1, [FZ_REG_MR] = 4, [FZ_DEREG_MR] = 2,
	[FZ_CREATE_COMP_CHANNEL] = 2, [FZ_CREATE_CQ] = 6, [FZ_RESIZE_CQ] = 1,
	[FZ_DESTROY_CQ] = 2, [FZ_POLL_CQ] = 6, [FZ_REQ_NOTIFY_CQ] = 2,
	[FZ_CREATE_QP] = 8, [FZ_QUERY_QP] = 2, [FZ_MODIFY_QP] = 6, [FZ_DESTROY_QP] = 3,
	[FZ_POST_SEND] = 9, [FZ_POST_RECV] = 5, [FZ_POST_SRQ_RECV] = 4,
	[FZ_CREATE_SRQ] = 2, [FZ_CREATE_XSRQ] = 4, [FZ_MODIFY_SRQ] = 1,
	[FZ_QUERY_SRQ] = 1, [FZ_DESTROY_SRQ] = 2, [FZ_OPEN_XRCD] = 6,
	[FZ_CLOSE_XRCD] = 2, [FZ_OPEN_QP] = 6, [FZ_READ_ASYNC] = 2,
	[FZ_READ_COMP] = 2, [FZ_CLOSE_AUX] = 1, [FZ_RAISE_EVENT] = 2,
	[FZ_INJECT] = 1, [FZ_RAW] = 3, [FZ_FORK] = 2, [FZ_KILL] = 1, [FZ_RACE] = 1,
	[FZ_CONNECT] = 3, [FZ_SETUP] = 4, [FZ_NL_RES] = 2, [FZ_AUX_FD] = 2,
	[FZ_HOTPLUG] = 1, [FZ_VERBS_IOCTL] = 2, [FZ_ALLOC_MW] = 3, [FZ_DEALLOC_MW] = 1,
	[FZ_ATTACH_MCAST] = 2, [FZ_DETACH_MCAST] = 1,
};

int fz_hotplug = 1;
int fz_links = 1;

static unsigned int weight_of(unsigned int k)
{
	if (k == FZ_LINK)
		return (unsigned int)fz_links;
	return k == FZ_HOTPLUG && !fz_hotplug ? 0 : weight[k];
}

static uint8_t pick_kind(void)
{
	unsigned int total = 0, r, k;

	for (k = 0; k < FZ_OP_COUNT; k++)
		total += weight_of(k);
	r = fz_below(total);
	for (k = 0; k < FZ_OP_COUNT; k++) {
		if (r < weight_of(k))
			return (uint8_t)k;
		r -= weight_of(k);
	}
	return FZ_ALLOC_PD;
}

static void random_op(struct fz_op *op)
{
	int i;

	/* actor 0 mostly: the others exist only after a fork */
	op->actor = fz_below(4) ? 0 : (uint8_t)fz_below(FZ_ACTORS);
	op->kind = pick_kind();
	op->file = (uint8_t)fz_below(FZ_FILES);
	if (fz_below(24) == 0)
		op->file |= 0x80;	/* fail an allocation in this command */
	for (i = 0; i < FZ_ARGS; i++) {
		/* small values mostly: they select among known objects */
		switch (fz_below(4)) {
		case 0: op->a[i] = (uint8_t)fz_rand(); break;
		default: op->a[i] = (uint8_t)fz_below(8); break;
		}
	}
}

void fz_generate(struct fz_prog *p, int nops)
{
	int i;

	if (nops > FZ_MAX_OPS)
		nops = FZ_MAX_OPS;
	memset(p, 0, sizeof(*p));
	for (i = 0; i < nops; i++)
		random_op(&p->op[i]);
	/* most programs start by opening a file and getting a context */
	if (nops >= 2 && fz_below(4)) {
		p->op[0] = (struct fz_op){ .actor = 0, .kind = FZ_OPEN, .file = 0 };
		p->op[1] = (struct fz_op){ .actor = 0, .kind = FZ_GET_CONTEXT, .file = 0 };
		/* half of them go on with a connected QP pair: the data path */
		if (nops >= 4 && fz_below(2)) {
			p->op[2].actor = 0;
			p->op[2].kind = FZ_SETUP;
			p->op[2].file = 0;
		}
	}
	p->n = nops;
}

static void insert_op(struct fz_prog *p, int at, const struct fz_op *op)
{
	if (p->n >= FZ_MAX_OPS)
		return;
	memmove(&p->op[at + 1], &p->op[at], (size_t)(p->n - at) * sizeof(*op));
	p->op[at] = *op;
	p->n++;
}

void fz_mutate(struct fz_prog *p, const struct fz_prog *other)
{
	int rounds = 1 + (int)fz_below(4), r;

	for (r = 0; r < rounds; r++) {
		struct fz_op op;
		int at = p->n ? (int)fz_below((uint32_t)p->n) : 0;

		switch (fz_below(9)) {
		case 0: /* insert a new op */
		case 1:
			random_op(&op);
			insert_op(p, p->n ? (int)fz_below((uint32_t)p->n + 1) : 0, &op);
			break;
		case 2: /* remove one */
			if (p->n > 1) {
				memmove(&p->op[at], &p->op[at + 1],
					(size_t)(p->n - at - 1) * sizeof(op));
				p->n--;
			}
			break;
		case 3: /* duplicate one */
			if (p->n)
				insert_op(p, at, &p->op[at]);
			break;
		case 4: /* change an argument byte */
		case 5:
			if (p->n) {
				uint8_t *b = &p->op[at].a[fz_below(FZ_ARGS)];
				*b = fz_below(2) ? (uint8_t)(*b + 1 - 2 * (int)fz_below(2))
						 : (uint8_t)fz_rand();
			}
			break;
		case 6: /* change the actor, file or kind */
			if (p->n) {
				switch (fz_below(3)) {
				case 0: p->op[at].actor = (uint8_t)fz_below(FZ_ACTORS); break;
				case 1: p->op[at].file = (uint8_t)fz_rand(); break;
				default: p->op[at].kind = pick_kind(); break;
				}
			}
			break;
		case 7: /* splice: a run of ops from another program */
			if (other && other->n) {
				int from = (int)fz_below((uint32_t)other->n);
				int len = 1 + (int)fz_below((uint32_t)(other->n - from));
				int i;

				for (i = 0; i < len; i++)
					insert_op(p, (at + i) % (p->n + 1), &other->op[from + i]);
			}
			break;
		default: /* swap two ops */
			if (p->n > 1) {
				int b = (int)fz_below((uint32_t)p->n);

				op = p->op[at];
				p->op[at] = p->op[b];
				p->op[b] = op;
			}
			break;
		}
	}
	if (!p->n) {
		random_op(&p->op[0]);
		p->n = 1;
	}
}

size_t fz_encode(const struct fz_prog *p, uint8_t *buf, size_t cap)
{
	size_t len = (size_t)p->n * sizeof(struct fz_op);

	if (len > cap)
		return 0;
	memcpy(buf, p->op, len);
	return len;
}

int fz_decode(struct fz_prog *p, const uint8_t *buf, size_t len)
{
	size_t n = len / sizeof(struct fz_op);

	if (n > FZ_MAX_OPS)
		n = FZ_MAX_OPS;
	memset(p, 0, sizeof(*p));
	memcpy(p->op, buf, n * sizeof(struct fz_op));
	p->n = (int)n;
	return n ? 0 : -1;
}

int fz_load_file(struct fz_prog *p, const char *path)
{
	uint8_t buf[FZ_MAX_OPS * sizeof(struct fz_op)];
	ssize_t len;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	len = read(fd, buf, sizeof(buf));
	close(fd);
	if (len <= 0)
		return -1;
	return fz_decode(p, buf, (size_t)len);
}
