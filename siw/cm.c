// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * iw_cm entry points: listen, connect, accept, reject.
 *
 * Connection management (MPA over kernel TCP sockets) comes with the data
 * path. Until then every request is refused with -EOPNOTSUPP; rdma_cm
 * reports that to its caller. The entry points must exist: iw_cm calls
 * them without checking, e.g. for every wildcard listener when a device
 * appears.
 */
#include <rdma/iw_cm.h>

#include "siw.h"

static int siw_connect(struct iw_cm_id *id, struct iw_cm_conn_param *param)
{
	return -EOPNOTSUPP;
}

static int siw_accept(struct iw_cm_id *id, struct iw_cm_conn_param *param)
{
	return -EOPNOTSUPP;
}

static int siw_reject(struct iw_cm_id *id, const void *pdata, u8 pdata_len)
{
	return -EOPNOTSUPP;
}

static int siw_create_listen(struct iw_cm_id *id, int backlog)
{
	return -EOPNOTSUPP;
}

static int siw_destroy_listen(struct iw_cm_id *id)
{
	return 0;
}

static void siw_qp_get_ref(struct ib_qp *qp)
{
}

static void siw_qp_put_ref(struct ib_qp *qp)
{
}

/* No QP exists yet, so no QP number resolves. */
static struct ib_qp *siw_get_qp(struct ib_device *ibdev, int qpn)
{
	return NULL;
}

const struct ib_device_ops siw_cm_ops = {
	.iw_accept = siw_accept,
	.iw_add_ref = siw_qp_get_ref,
	.iw_connect = siw_connect,
	.iw_create_listen = siw_create_listen,
	.iw_destroy_listen = siw_destroy_listen,
	.iw_get_qp = siw_get_qp,
	.iw_reject = siw_reject,
	.iw_rem_ref = siw_qp_put_ref,
};
