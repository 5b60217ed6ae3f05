// SPDX-License-Identifier: GPL-2.0
/*
 * Copying command structs in and responses out, with ib_uverbs' rules
 * (uverbs_request() / uverbs_response() in uverbs_cmd.c):
 *  - a request shorter than the kernel's struct is zero-extended (the
 *    header check already refused one shorter than the command's minimum);
 *    bytes past the struct must be zero (and at most 64 KiB - 1 of them),
 *    else -EOPNOTSUPP;
 *  - a response is truncated to the user's buffer, and a longer buffer is
 *    zero-filled, so no uninitialised byte ever reaches the user;
 *  - a fault either way is -EFAULT.
 */
#include <linux/string.h>
#include <linux/uaccess.h>

#include "uverbs.h"

/**
 * xqp_cmd_user_cleared - ib_is_buffer_cleared(): are @len user bytes zero?
 * @p: the bytes.
 * @len: how many; more than 64 KiB - 1 are never "cleared", as in Linux.
 *
 * Return: 0 if they are all zero, -EOPNOTSUPP otherwise (unreadable is not
 * cleared either).
 */
int xqp_cmd_user_cleared(const void __user *p, size_t len)
{
	const u8 __user *up = p;
	u8 chunk[64];

	if (len > USHRT_MAX)
		return -EOPNOTSUPP;
	while (len) {
		size_t n = min(len, sizeof(chunk));

		if (copy_from_user(chunk, up, n) || memchr_inv(chunk, 0, n))
			return -EOPNOTSUPP;
		up += n;
		len -= n;
	}
	return 0;
}

int xqp_cmd_request(struct xqp_cmd *cmd, void *req, size_t req_len)
{
	if (copy_from_user(req, cmd->inbuf, min(cmd->inlen, req_len)))
		return -EFAULT;
	if (cmd->inlen < req_len)
		memset(req + cmd->inlen, 0, req_len - cmd->inlen);
	else if (cmd->inlen > req_len)
		return xqp_cmd_user_cleared(cmd->inbuf + req_len,
					    cmd->inlen - req_len);
	return 0;
}

/**
 * xqp_cmd_request_obj - the request, then the object its handle names.
 * @req, @req_len: as for xqp_cmd_request().
 * @handle: the handle field inside @req (read once the request is in).
 * @type, @mode: the object's type and how to lock it (xqp_uobj_get()).
 *
 * Return: the object, to be put with @mode; or ERR_PTR(the request's or the
 * lookup's error).
 */
struct xqp_uobj *xqp_cmd_request_obj(struct xqp_cmd *cmd, void *req, size_t req_len,
				     const u32 *handle, enum xqp_uobj_type type,
				     enum xqp_lookup_mode mode)
{
	int ret = xqp_cmd_request(cmd, req, req_len);

	if (ret)
		return ERR_PTR(ret);
	return xqp_uobj_get(cmd->ufile, type, *handle, mode);
}

int xqp_cmd_response(struct xqp_cmd *cmd, const void *resp, size_t resp_len)
{
	if (copy_to_user(cmd->outbuf, resp, min(cmd->outlen, resp_len)))
		return -EFAULT;
	if (resp_len < cmd->outlen &&
	    clear_user(cmd->outbuf + resp_len, cmd->outlen - resp_len))
		return -EFAULT;
	return 0;
}

/* ib_uverbs_get_ucontext(): -EINVAL before GET_CONTEXT. */
int xqp_cmd_need_context(struct xqp_cmd *cmd)
{
	return smp_load_acquire(&cmd->ufile->has_context) ? 0 : -EINVAL;
}
