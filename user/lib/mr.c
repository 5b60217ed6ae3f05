// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * libxqpverbs: memory regions (REG_MR, DEREG_MR) and address handles
 * (CREATE_AH, DESTROY_AH).
 */
#define _GNU_SOURCE
#include <stdlib.h>

#include "priv.h"

struct xqpv_mr *xqpv_reg_mr_iova(struct xqpv_pd *pd, void *addr, size_t length,
			       uint64_t iova, int access)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct ib_uverbs_reg_mr cmd;
	struct xqpv_mr *mr;
	int err;

	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return fail_ptr(ENOMEM);
	memset(&cmd, 0, sizeof(cmd));
	cmd.start = RESP(addr);
	cmd.length = length;
	cmd.hca_va = iova;
	cmd.pd_handle = pd->handle;
	cmd.access_flags = (uint32_t)access;
	err = exec_resp(pd->context, IB_USER_VERBS_CMD_REG_MR, &cmd, &resp);
	if (err) {
		free(mr);
		return fail_ptr(err);
	}
	mr->context = pd->context;
	mr->pd = pd;
	mr->addr = addr;
	mr->length = length;
	mr->iova = iova;
	mr->handle = resp.mr_handle;
	mr->lkey = resp.lkey;
	mr->rkey = resp.rkey;
	return mr;
}

struct xqpv_mr *xqpv_reg_mr(struct xqpv_pd *pd, void *addr, size_t length, int access)
{
	return xqpv_reg_mr_iova(pd, addr, length, RESP(addr), access);
}

int xqpv_dereg_mr(struct xqpv_mr *mr)
{
	return xqpi_destroy_plain(mr->context, IB_USER_VERBS_CMD_DEREG_MR, mr->handle, mr);
}

struct xqpv_ah *xqpv_create_ah(struct xqpv_pd *pd, struct xqpv_ah_attr *attr)
{
	struct ib_uverbs_create_ah_resp resp;
	struct ib_uverbs_create_ah cmd;
	struct xqpv_ah *ah;
	int err;

	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return fail_ptr(ENOMEM);
	memset(&cmd, 0, sizeof(cmd));
	cmd.user_handle = RESP(ah);
	cmd.pd_handle = pd->handle;
	memcpy(cmd.attr.grh.dgid, attr->grh.dgid, sizeof(cmd.attr.grh.dgid));
	cmd.attr.grh.flow_label = attr->grh.flow_label;
	cmd.attr.grh.sgid_index = attr->grh.sgid_index;
	cmd.attr.grh.hop_limit = attr->grh.hop_limit;
	cmd.attr.grh.traffic_class = attr->grh.traffic_class;
	cmd.attr.dlid = attr->dlid;
	cmd.attr.sl = attr->sl;
	cmd.attr.src_path_bits = attr->src_path_bits;
	cmd.attr.static_rate = attr->static_rate;
	cmd.attr.is_global = attr->is_global;
	cmd.attr.port_num = attr->port_num;
	err = exec_resp(pd->context, IB_USER_VERBS_CMD_CREATE_AH, &cmd, &resp);
	if (err) {
		free(ah);
		return fail_ptr(err);
	}
	ah->context = pd->context;
	ah->pd = pd;
	ah->handle = resp.ah_handle;
	return ah;
}

int xqpv_destroy_ah(struct xqpv_ah *ah)
{
	return xqpi_destroy_plain(ah->context, IB_USER_VERBS_CMD_DESTROY_AH, ah->handle, ah);
}
