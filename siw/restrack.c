// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * What `rdma resource show qp -dd` shows of a siw QP beyond ib_core's
 * own fields: its connection endpoint, what the MPA exchange negotiated,
 * and its counters (stats.h).
 */
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>

#include "siw.h"
#include "qp.h"
#include "cm.h"
#include "stats.h"

/*
 * For `rdma resource show qp -dd`: the connection endpoint (its id, as in
 * the tracepoints, and state) of every QP; for a connected one, what the
 * MPA exchange negotiated (revision, CRC, the RTR type of peer-to-peer
 * mode, IRD and ORD, GSO-sized FPDUs and the FPDU size) and its counters.
 */
int siw_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *base_qp)
{
	struct siw_qp *qp = to_siw_qp(base_qp);
	static const char * const rtr_name[] = {
		[0] = "none",
		[SIW_RTR_SEND] = "send",
		[SIW_RTR_WRITE] = "write",
		[SIW_RTR_READ] = "read",
	};
	struct nlattr *nest;
	unsigned long flags;
	const char *cep_state;
	bool connected;
	u32 cep_id;
	int i;
	u8 rev, rtr;
	u32 ird, ord, mulpdu;
	bool crc, gso, ext;

	spin_lock_irqsave(&qp->state_lock, flags);
	connected = qp->connected;
	/* The QP holds a reference on its endpoint while connected. */
	cep_state = connected && qp->cep ?
		    siw_cep_state_name(siw_cep_state_of(qp->cep)) : "none";
	cep_id = connected && qp->cep ? qp->cep->id : 0;
	rev = qp->mpa_rev;
	crc = qp->crc;
	gso = qp->gso;
	ext = qp->ext;
	mulpdu = qp->mulpdu;
	rtr = qp->rtr;
	ird = qp->ird;
	ord = qp->ord;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	nest = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!nest)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_string(msg, "cep_state", cep_state) ||
	    rdma_nl_put_driver_u32(msg, "cep_id", cep_id))
		goto err_cancel;
	if (!connected)
		goto out;
	if (rtr >= ARRAY_SIZE(rtr_name) || !rtr_name[rtr])
		rtr = 0;
	if (rdma_nl_put_driver_u32(msg, "mpa_rev", rev) ||
	    rdma_nl_put_driver_u32(msg, "mpa_crc", crc) ||
	    rdma_nl_put_driver_string(msg, "mpa_rtr", rtr_name[rtr]) ||
	    rdma_nl_put_driver_u32(msg, "ird", ird) ||
	    rdma_nl_put_driver_u32(msg, "ord", ord) ||
	    rdma_nl_put_driver_u32(msg, "mpa_gso", gso) ||
	    rdma_nl_put_driver_u32(msg, "rfc7306", ext) ||
	    rdma_nl_put_driver_u32(msg, "mulpdu", mulpdu) ||
	    rdma_nl_put_driver_u64(msg, "tx_zc_msgs",
				   READ_ONCE(qp->tx_zc_msgs)) ||
	    rdma_nl_put_driver_u64(msg, "tx_db_read_resps",
				   READ_ONCE(qp->tx_db_read_resps)))
		goto err_cancel;
	for (i = 0; i < SIW_STAT_QP_NUM; i++)
		if (rdma_nl_put_driver_u64(msg, siw_stat_name(i),
					   siw_qp_stat_read(qp, i)))
			goto err_cancel;
out:
	nla_nest_end(msg, nest);
	return 0;

err_cancel:
	nla_nest_cancel(msg, nest);
	return -EMSGSIZE;
}
