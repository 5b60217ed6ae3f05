// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * xqp-info: list the uverbs devices (xqp's and Linux's) and what they say
 * about themselves.   usage: xqp-info [DEVICE_PATH]
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "xqpverbs.h"

static int show(const char *path, const char *name, int is_xqp)
{
	struct xqpv_context *ctx = xqpv_open_device_path(path);
	struct xqpv_device_attr a;
	struct xqpv_port_attr p;

	printf("%s (%s, %s)\n", path, name, is_xqp ? "xqp" : "linux ib_uverbs");
	if (!ctx) {
		printf("  cannot open: %s\n", strerror(errno));
		return 1;
	}
	if (!xqpv_query_device(ctx, &a)) {
		printf("  node_guid %016llx  vendor 0x%x  ports %u  XRC %s\n",
		       (unsigned long long)a.node_guid, a.vendor_id, a.phys_port_cnt,
		       a.device_cap_flags & XQPV_DEVICE_XRC ? "yes" : "no");
		printf("  max_qp %d  max_qp_wr %d  max_sge %d  max_cq %d  max_cqe %d\n",
		       a.max_qp, a.max_qp_wr, a.max_sge, a.max_cq, a.max_cqe);
		printf("  max_pd %d  max_srq %d  max_srq_wr %d  max_pkeys %u\n",
		       a.max_pd, a.max_srq, a.max_srq_wr, a.max_pkeys);
		for (int i = 1; i <= a.phys_port_cnt; i++)
			if (!xqpv_query_port(ctx, (uint8_t)i, &p))
				printf("  port %d: state %d  phys_state %u  active_mtu %d  "
				       "width %u  speed %u  lid %u  sm_lid %u  link_layer %u\n",
				       i, p.state, p.phys_state, p.active_mtu, p.active_width,
				       p.active_speed, p.lid, p.sm_lid, p.link_layer);
	}
	xqpv_close_device(ctx);
	return 0;
}

int main(int argc, char **argv)
{
	struct xqpv_device **list;
	int n, rc = 0;

	if (argc > 1)
		return show(argv[1], argv[1], strstr(argv[1], "/xqp/") != NULL);
	list = xqpv_get_device_list(&n);
	if (!list) {
		perror("xqpv_get_device_list");
		return 1;
	}
	if (!n)
		printf("no uverbs devices\n");
	for (int i = 0; i < n; i++)
		rc |= show(list[i]->dev_path, list[i]->name, list[i]->is_xqp);
	xqpv_free_device_list(list);
	return rc;
}
