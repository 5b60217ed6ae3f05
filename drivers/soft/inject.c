// SPDX-License-Identifier: GPL-2.0
/*
 * xqp_soft: fault injection and call counts, per op of struct
 * xqp_device_ops (the table XQP_SOFT_OPS in soft.h). Atomics only: any
 * context, no lock.
 */
#include "soft_priv.h"

static const char *const soft_op_names[XQP_SOFT_OP_COUNT] = {
#define SOFT_OP_NAME(NAME, name) [XQP_SOFT_OP_##NAME] = #name,
	XQP_SOFT_OPS(SOFT_OP_NAME)
#undef SOFT_OP_NAME
};

/**
 * xqp_soft_op_name - an op's name, as the inject knob takes it.
 * @op: the op.
 *
 * Return: "create_qp" for XQP_SOFT_OP_CREATE_QP, ...; NULL for no op.
 */
const char *xqp_soft_op_name(enum xqp_soft_op op)
{
	return (unsigned int)op < XQP_SOFT_OP_COUNT ? soft_op_names[op] : (const char *)0;
}

static int soft_str_eq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

/**
 * xqp_soft_op_lookup - the op of a name.
 * @name: "create_qp", ...
 *
 * Return: the op, or -EINVAL if no op has that name.
 */
int xqp_soft_op_lookup(const char *name)
{
	int op;

	for (op = 0; op < XQP_SOFT_OP_COUNT; op++)
		if (soft_str_eq(soft_op_names[op], name))
			return op;
	return -XQP_EINVAL;
}

/* The injected error if this call of @op is the one armed, else 0. */
static int soft_inject_fires(struct xqp_soft *soft, enum xqp_soft_op op)
{
	struct soft_inject *inj = &soft->inject[op];

	if (__atomic_load_n(&inj->countdown, __ATOMIC_ACQUIRE) <= 0)
		return 0;
	if (__atomic_sub_fetch(&inj->countdown, 1, __ATOMIC_ACQ_REL) != 0)
		return 0;
	return __atomic_load_n(&inj->err, __ATOMIC_RELAXED);
}

/*
 * Every op starts here: counts the call and returns the injected error if
 * this is the call xqp_soft_inject() armed, else 0.
 */
int soft_enter(struct xqp_soft *soft, enum xqp_soft_op op)
{
	__atomic_fetch_add(&soft->calls[op], 1, __ATOMIC_RELAXED);
	return soft_inject_fires(soft, op);
}

/* soft_enter() for an op on @obj: -EINVAL for an object of another device. */
int soft_enter_obj(struct xqp_soft *soft, enum xqp_soft_op op, const void *obj)
{
	int err = soft_enter(soft, op);

	if (err)
		return err;
	return soft_owns(soft, obj) ? 0 : -XQP_EINVAL;
}

/*
 * soft_enter() for the ops of the fast path (posting, polling, arming a
 * CQ): while nothing is armed and counting is off it only loads two
 * fields that tests write, so posters and pollers on different CPUs write
 * nothing device-wide here.
 */
int soft_enter_data_path(struct xqp_soft *soft, enum xqp_soft_op op)
{
	if (__atomic_load_n(&soft->count_data_path, __ATOMIC_RELAXED))
		__atomic_fetch_add(&soft->calls[op], 1, __ATOMIC_RELAXED);
	return soft_inject_fires(soft, op);
}

/**
 * xqp_soft_inject - make one future call of an op fail.
 * @soft: the soft device.
 * @op: which op.
 * @err: the negative errno the call returns; 0 disarms a pending injection.
 * @after: how many calls of @op succeed first; the (@after + 1)-th fails.
 *
 * One shot: the call after the failing one behaves normally again. The
 * failing call changes nothing (a failing destroy leaves its object intact).
 * Re-arming replaces a pending injection of the same op.
 *
 * Context: any.
 */
void xqp_soft_inject(struct xqp_soft *soft, enum xqp_soft_op op, int err,
		     unsigned int after)
{
	struct soft_inject *inj;
	int countdown;

	if (XQP_WARN_ON((unsigned int)op >= XQP_SOFT_OP_COUNT))
		return;
	inj = &soft->inject[op];
	countdown = after >= 0x7fffffffU ? 0x7fffffff : (int)after + 1;
	__atomic_store_n(&inj->countdown, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&inj->err, err, __ATOMIC_RELAXED);
	if (err)
		__atomic_store_n(&inj->countdown, countdown, __ATOMIC_RELEASE);
}

/**
 * xqp_soft_op_calls - how many times an op has been called.
 * @soft: the soft device.
 * @op: which op.
 *
 * Counts every call since the device was created, failed ones included;
 * for post_send, post_recv, post_srq_recv, poll_cq and req_notify_cq only
 * the calls made while xqp_soft_count_data_path() was on.
 *
 * Context: any.
 * Return: the count.
 */
xqp_u64 xqp_soft_op_calls(struct xqp_soft *soft, enum xqp_soft_op op)
{
	if (XQP_WARN_ON((unsigned int)op >= XQP_SOFT_OP_COUNT))
		return 0;
	return __atomic_load_n(&soft->calls[op], __ATOMIC_RELAXED);
}

/**
 * xqp_soft_count_data_path - count the fast data-path ops' calls too.
 * @soft: the soft device.
 * @on: nonzero to count post_send, post_recv, post_srq_recv, poll_cq and
 *	req_notify_cq calls from now on, 0 to stop (the default: a device is
 *	created with it off, so its fast path writes no device-wide counter).
 *
 * Every other op is always counted. Injection works either way.
 *
 * Context: any.
 */
void xqp_soft_count_data_path(struct xqp_soft *soft, int on)
{
	__atomic_store_n(&soft->count_data_path, !!on, __ATOMIC_RELAXED);
}
