// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * Queue pairs: the object (creation with queues in shared memory,
 * destruction, lookup, binding to a connection), and its state machine
 * as ib_core and iw_cm drive it: modify_qp, connection up and down,
 * failure and Terminate, and the flush of both queues. The queues
 * themselves are sq.c and rq.c (srq.c); the transmitter tx.c, the
 * receiver rx.c.
 *
 * The kernel never trusts an element in shared memory twice: it copies
 * it before looking at it.
 */
#include <linux/capability.h>
#include <linux/log2.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include <net/tcp.h>

#include "siw.h"
#include "qp.h"
#include "mem.h"
#include "cm.h"
#include "trace.h"

#define SIW_QP_STATE_NAME(name)	[IB_QPS_##name] = #name,
static const char *const siw_qp_state_names[] = {
	SIW_QP_STATES(SIW_QP_STATE_NAME, SIW_QP_STATE_NAME)
};

const char *siw_qp_state_name(enum ib_qp_state s)
{
	if ((unsigned int)s >= ARRAY_SIZE(siw_qp_state_names) ||
	    !siw_qp_state_names[s])
		return "UNKNOWN";
	return siw_qp_state_names[s];
}

/*
 * Every state change goes through here, with its cause for the debug log
 * and the siw_qp_state tracepoint. Must hold the QP's state_lock.
 */
static void siw_qp_set_state(struct siw_qp *qp, enum ib_qp_state new,
			     const char *cause)
{
	lockdep_assert_held(&qp->state_lock);
	if (qp->state == new)
		return;
	pr_debug("siw: QP %u: %s -> %s (%s)\n", qp->base_qp.qp_num,
		 siw_qp_state_name(qp->state), siw_qp_state_name(new), cause);
	trace_siw_qp_state(qp, qp->state, new, cause);
	WRITE_ONCE(qp->state, new);
}

/*
 * The QP numbered qpn, with a reference, or NULL. Under the xarray's lock,
 * not RCU: ib_core frees a destroyed QP without a grace period, so the
 * reference must be taken before siw_destroy_qp's xa_erase() can return.
 * Process context (the connection manager's entry points).
 */
struct siw_qp *siw_qp_lookup(struct siw_device *sdev, u32 qpn)
{
	struct siw_qp *qp;

	xa_lock(&sdev->qp_xa);
	qp = xa_load(&sdev->qp_xa, qpn);
	if (qp && (qp->dying || !refcount_inc_not_zero(&qp->ref)))
		qp = NULL;
	xa_unlock(&sdev->qp_xa);
	return qp;
}

/*
 * Binds the QP to a connection endpoint (siw_accept, siw_connect). rdma_cm
 * takes the QP number from user space (ucma), and QP numbers are easy to
 * guess, so the number alone proves nothing: a user QP binds only for a
 * thread of the process that created it; a kernel QP only from a kernel
 * thread, or for a caller with CAP_NET_ADMIN (kernel ULPs that connect in
 * the context of a mount or a sysfs write run as root; ucma's callers are
 * the ones kept out). A QP binds to one endpoint at a time, and only
 * before it connected. Process context.
 */
int siw_qp_cm_bind(struct siw_qp *qp)
{
	unsigned long flags;
	int err = 0;

	if (qp->owner ? qp->owner != task_tgid(current) :
	    !(current->flags & PF_KTHREAD) && !capable(CAP_NET_ADMIN))
		return -EPERM;
	spin_lock_irqsave(&qp->state_lock, flags);
	if (qp->cm_bound || qp->connected)
		err = -EBUSY;
	else if (qp->state == IB_QPS_RESET || qp->state == IB_QPS_ERR ||
		 qp->state == IB_QPS_SQD)
		err = -EINVAL;
	else
		qp->cm_bound = true;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	return err;
}

/* The endpoint let go of the QP (cm.c). */
void siw_qp_cm_unbind(struct siw_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->state_lock, flags);
	qp->cm_bound = false;
	spin_unlock_irqrestore(&qp->state_lock, flags);
}

static void siw_qp_free_tx(struct siw_qp *qp)
{
	kvfree(qp->sq_state);
	kvfree(qp->sq_ext);
	kfree(qp->orq);
	kfree(qp->irq);
	kfree(qp->tx_hdr);
	kfree(qp->tx_trailer);
	kfree(qp->tx_kv);
	kfree(qp->tx_msg);
	siw_tx_bounce_free(qp);
}

static int siw_qp_check_caps(struct siw_device *sdev,
			     struct ib_qp_init_attr *attr)
{
	struct ib_qp_cap *cap = &attr->cap;

	if (attr->qp_type != IB_QPT_RC)
		return -EOPNOTSUPP;
	if (attr->create_flags)
		return -EOPNOTSUPP;
	if (!cap->max_send_wr || cap->max_send_wr > SIW_MAX_QP_WR ||
	    cap->max_recv_wr > SIW_MAX_QP_WR ||
	    cap->max_send_sge > SIW_MAX_SGE || cap->max_recv_sge > SIW_MAX_SGE ||
	    cap->max_inline_data > SIW_MAX_INLINE)
		return -EINVAL;
	if (!attr->srq && !cap->max_recv_wr)
		return -EINVAL;
	if (!attr->send_cq || !attr->recv_cq)
		return -EINVAL;
	return 0;
}

/* The new QP's fields, from what the consumer asked for. */
static void siw_qp_init(struct siw_qp *qp, struct siw_device *sdev,
			const struct ib_qp_init_attr *attr, bool user)
{
	qp->sdev = sdev;
	refcount_set(&qp->ref, 1);
	init_completion(&qp->released);
	spin_lock_init(&qp->state_lock);
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->rq_lock);
	spin_lock_init(&qp->orq_lock);
	spin_lock_init(&qp->irq_lock);
	spin_lock_init(&qp->place_lock);
	siw_tx_bitlock_init(&qp->tx_lock);
	INIT_WORK(&qp->tx_work, siw_tx_work);
	INIT_DELAYED_WORK(&qp->tx_hold_work, siw_tx_hold_expired);
	/*
	 * iWARP's verbs have no RESET: a new QP is Idle, where work
	 * requests may be posted but are not processed until the connection
	 * is up, and ib_core's name for Idle is INIT (rdma-core's test suite
	 * checks exactly that for an RNIC). RESET is still reachable
	 * through modify_qp, and refuses posts there.
	 */
	qp->state = IB_QPS_INIT;
	qp->user = user;
	/* Who may bind it to a connection (siw_qp_cm_bind). */
	if (user)
		qp->owner = get_pid(task_tgid(current));
	/*
	 * The stock provider computes "the slot before" as
	 * (put - 1) % depth on a 32-bit counter: only a power-of-two depth
	 * makes that right when the counter wraps.
	 */
	qp->num_sqe = roundup_pow_of_two(attr->cap.max_send_wr);
	qp->max_send_sge = max_t(u32, attr->cap.max_send_sge, 1);
	qp->max_recv_sge = max_t(u32, attr->cap.max_recv_sge, 1);
	qp->max_inline = SIW_MAX_INLINE;
	qp->sq_sig_all = attr->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->ird = SIW_MAX_IRD_QP;
	qp->ord = SIW_MAX_ORD_QP;
	qp->scq = to_siw_cq(attr->send_cq);
	qp->rcq = to_siw_cq(attr->recv_cq);
	if (attr->srq)
		qp->srq = to_siw_srq(attr->srq);
	else
		qp->num_rqe = roundup_pow_of_two(attr->cap.max_recv_wr);
}

/* The transmitter's per-QP state: slot states, ORQ, IRQ and buffers. */
static int siw_qp_alloc_tx(struct siw_qp *qp)
{
	qp->sq_state = kvcalloc(qp->num_sqe, sizeof(*qp->sq_state),
				GFP_KERNEL);
	/* Only kernel consumers can post what needs it (RFC 7306). */
	if (!qp->user) {
		qp->sq_ext = kvcalloc(qp->num_sqe, sizeof(*qp->sq_ext),
				      GFP_KERNEL);
		if (!qp->sq_ext)
			return -ENOMEM;
	}
	/* siw_qp_connected() grows them to the ORD and IRD agreed. */
	qp->orq_size = SIW_RD_QUEUE_START;
	qp->orq = kcalloc(qp->orq_size, sizeof(*qp->orq), GFP_KERNEL);
	qp->irq_size = SIW_RD_QUEUE_START;
	qp->irq = kcalloc(qp->irq_size, sizeof(*qp->irq), GFP_KERNEL);
	qp->tx_hdr = kcalloc(SIW_TX_BATCH, SIW_FPDU_HDR_MAX, GFP_KERNEL);
	qp->tx_trailer = kcalloc(SIW_TX_BATCH, SIW_TX_TRAILER_MAX, GFP_KERNEL);
	qp->tx_kv = kcalloc(SIW_TX_KV_MAX, sizeof(*qp->tx_kv), GFP_KERNEL);
	qp->tx_msg = siw_tx_msg_alloc();
	if (!qp->sq_state || !qp->orq || !qp->irq || !qp->tx_hdr ||
	    !qp->tx_trailer || !qp->tx_kv || !qp->tx_msg)
		return -ENOMEM;
	return 0;
}

/* The send queue and, without an SRQ, the receive queue. */
static int siw_qp_alloc_queues(struct siw_qp *qp)
{
	qp->sendq = siw_queue_alloc(qp->num_sqe * sizeof(struct siw_sqe));
	if (!qp->sendq)
		return -ENOMEM;
	if (qp->srq)
		return 0;
	qp->recvq = siw_queue_alloc(qp->num_rqe * sizeof(struct siw_rqe));
	if (!qp->recvq) {
		vfree(qp->sendq);
		qp->sendq = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Lets go of the queues; a mapped one's memory is its mapping entry's. */
static void siw_qp_free_queues(struct siw_qp *qp)
{
	if (qp->rq_umap)
		siw_queue_unmap(qp->rq_umap);
	else
		vfree(qp->recvq);
	if (qp->sq_umap)
		siw_queue_unmap(qp->sq_umap);
	else
		vfree(qp->sendq);
}

/* Maps a user QP's queues and tells its provider where they are. */
static int siw_qp_map_user(struct siw_qp *qp, struct ib_udata *udata)
{
	struct siw_uresp_create_qp uresp = {};
	int err;

	uresp.qp_id = qp->base_qp.qp_num;
	uresp.num_sqe = qp->num_sqe;
	uresp.num_rqe = qp->num_rqe;
	/*
	 * The stock provider refuses SIW_INVAL_UOBJ_KEY even for the
	 * receive queue of a QP on an SRQ, which it never maps.
	 */
	uresp.rq_key = 0;
	err = siw_queue_map(udata, qp->sendq,
			    qp->num_sqe * sizeof(struct siw_sqe), &qp->sq_umap,
			    &uresp.sq_key);
	if (err)
		return err;
	if (qp->recvq) {
		err = siw_queue_map(udata, qp->recvq,
				    qp->num_rqe * sizeof(struct siw_rqe),
				    &qp->rq_umap, &uresp.rq_key);
		if (err)
			return err;
	}
	return ib_copy_to_udata(udata, &uresp, sizeof(uresp));
}

int siw_create_qp(struct ib_qp *base_qp, struct ib_qp_init_attr *attr,
		  struct ib_udata *udata)
{
	struct siw_device *sdev = to_siw_dev(base_qp->device);
	struct siw_qp *qp = to_siw_qp(base_qp);
	u32 qpn;
	int err;

	err = siw_qp_check_caps(sdev, attr);
	if (err)
		return err;
	if (udata && udata->outlen < sizeof(struct siw_uresp_create_qp))
		return -EINVAL;
	if (atomic_inc_return(&sdev->num_qp) > SIW_MAX_QP) {
		err = -ENOMEM;
		goto err_count;
	}
	siw_qp_init(qp, sdev, attr, !!udata);
	err = siw_qp_alloc_tx(qp);
	if (err)
		goto err_free_tx;
	err = siw_qp_alloc_queues(qp);
	if (err)
		goto err_free_tx;

	/*
	 * The number is reserved now and the QP published only once it is
	 * whole, its queues mapped and the answer copied out: a lookup by
	 * number (iw_cm, ucma) never finds one that may still fail and be
	 * freed.
	 */
	err = xa_alloc_cyclic(&sdev->qp_xa, &qpn, NULL, XA_LIMIT(1, SIW_MAX_QP),
			      &sdev->next_qpn, GFP_KERNEL);
	if (err < 0)
		goto err_free_queues;
	base_qp->qp_num = qpn;
	if (udata) {
		err = siw_qp_map_user(qp, udata);
		if (err)
			goto err_erase;
	}

	attr->cap.max_send_wr = qp->num_sqe;
	attr->cap.max_recv_wr = qp->num_rqe;
	attr->cap.max_send_sge = qp->max_send_sge;
	attr->cap.max_recv_sge = qp->max_recv_sge;
	attr->cap.max_inline_data = qp->max_inline;
	xa_store(&sdev->qp_xa, qpn, qp, GFP_KERNEL);
	return 0;

err_erase:
	xa_erase(&sdev->qp_xa, qpn);
err_free_queues:
	siw_qp_free_queues(qp);
err_free_tx:
	siw_qp_free_tx(qp);
err_count:
	atomic_dec(&sdev->num_qp);
	put_pid(qp->owner);
	qp->owner = NULL;
	return err;
}

int siw_destroy_qp(struct ib_qp *base_qp, struct ib_udata *udata)
{
	struct siw_qp *qp = to_siw_qp(base_qp);
	struct siw_device *sdev = qp->sdev;

	siw_qp_fatal(qp, 0);
	/*
	 * No new lookup finds it from here on; it stays in the xarray, and
	 * its counters in the device's sums, until they move to the retired
	 * sum below, in one step for readers (siw_get_hw_stats).
	 */
	xa_lock(&sdev->qp_xa);
	qp->dying = true;
	xa_unlock(&sdev->qp_xa);
	/* Wait for the connection manager and the data path to let go. */
	siw_tx_hold_stop(qp);
	siw_tx_quiesce(qp);
	siw_zc_qp_release(qp);
	siw_qp_put(qp);
	wait_for_completion(&qp->released);
	xa_lock(&sdev->qp_xa);
	__xa_erase(&sdev->qp_xa, base_qp->qp_num);
	siw_stats_qp_retire(qp);
	xa_unlock(&sdev->qp_xa);
	siw_qp_free_tx(qp);
	siw_qp_free_queues(qp);
	atomic_dec(&sdev->num_qp);
	put_pid(qp->owner);
	return 0;
}

/*
 * Begins a piece of placement by the receive path: false, and nothing
 * held, once a flush stopped it. Must not sleep until siw_qp_place_end().
 */
bool siw_qp_place_begin(struct siw_qp *qp, unsigned long *flags)
	__acquires(&qp->place_lock)
{
	spin_lock_irqsave(&qp->place_lock, *flags);
	if (!qp->place_stopped)
		return true;
	spin_unlock_irqrestore(&qp->place_lock, *flags);
	return false;
}

void siw_qp_place_end(struct siw_qp *qp, unsigned long flags)
	__releases(&qp->place_lock)
{
	spin_unlock_irqrestore(&qp->place_lock, flags);
}

/* The receive path places nothing more; none of its placement is in flight. */
static void siw_qp_stop_placement(struct siw_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->place_lock, flags);
	WRITE_ONCE(qp->place_stopped, true);
	spin_unlock_irqrestore(&qp->place_lock, flags);
}

/*
 * Completes every posted work request as flushed. Placement stops first:
 * a Read or receive half placed completes only once no byte of its
 * response is on its way into the buffer.
 */
void siw_qp_flush(struct siw_qp *qp)
{
	unsigned long flags;

	siw_qp_stop_placement(qp);

	spin_lock_irqsave(&qp->sq_lock, flags);
	siw_sq_flush(qp);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	siw_cq_notify(qp->scq);

	spin_lock_irqsave(&qp->rq_lock, flags);
	siw_rq_flush(qp);
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	siw_cq_notify(qp->rcq);
}

/*
 * Moves the QP to error and flushes its queues: its connection closes
 * (siw_cep_established_close). Any context.
 */
void siw_qp_to_error(struct siw_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->state_lock, flags);
	siw_qp_set_state(qp, IB_QPS_ERR, "closed");
	spin_unlock_irqrestore(&qp->state_lock, flags);
	siw_qp_flush(qp);
}

/*
 * The QP failed: error state, flushed queues, the async event (0: none)
 * and the end of the connection. Any context.
 */
void siw_qp_fatal(struct siw_qp *qp, enum ib_event_type event)
{
	struct siw_cep *cep;
	unsigned long flags;
	bool was_error;

	pr_debug("siw: QP %u: fatal, event %s\n", qp->base_qp.qp_num,
		 event ? ib_event_msg(event) : "none");
	spin_lock_irqsave(&qp->state_lock, flags);
	was_error = qp->state == IB_QPS_ERR;
	siw_qp_set_state(qp, IB_QPS_ERR,
			 READ_ONCE(qp->term_code) != SIW_TERM_OK ?
			 "terminate" : "fatal");
	/* The connection may end meanwhile: hold the endpoint. */
	cep = qp->connected ? qp->cep : NULL;
	if (cep)
		kref_get(&cep->ref);
	spin_unlock_irqrestore(&qp->state_lock, flags);
	siw_qp_flush(qp);
	if (!was_error && event && qp->base_qp.event_handler) {
		struct ib_event ev = {
			.device = qp->base_qp.device,
			.element.qp = &qp->base_qp,
			.event = event,
		};

		qp->base_qp.event_handler(&ev, qp->base_qp.qp_context);
	}
	if (cep && READ_ONCE(qp->term_code) == SIW_TERM_OK)
		siw_cm_qp_down(cep, true);
	if (cep)
		siw_cep_put(cep);
}

/*
 * A protocol violation: send a Terminate carrying code and the offending
 * header (hdr_len bytes from its MPA length field; 0 if untrusted), then
 * close. Any context.
 */
void siw_qp_terminate(struct siw_qp *qp, enum siw_term_code code,
		      const u8 *hdr, u32 hdr_len)
{
	unsigned long flags;
	bool first = false;
	enum ib_event_type event;

	spin_lock_irqsave(&qp->state_lock, flags);
	if (qp->term_code == SIW_TERM_OK && qp->connected) {
		qp->term_code = code;
		hdr_len = min_t(u32, hdr_len, sizeof(qp->term_hdr));
		if (hdr_len)
			memcpy(qp->term_hdr, hdr, hdr_len);
		qp->term_hdr_len = hdr_len;
		first = true;
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);
	event = siw_term_etype(code) == 1 && siw_term_layer(code) != 2 ?
		IB_EVENT_QP_ACCESS_ERR : IB_EVENT_QP_FATAL;
	siw_qp_fatal(qp, event);
	if (first)
		siw_tx_queue_run(qp);	/* sends it, then closes */
}

/*
 * The MPA exchange succeeded with result res: the QP takes the socket
 * over and goes to RTS. A responder sends no FPDU before the initiator's
 * first has arrived (RFC 5044 section 7.1.2, rule 4: an initiator may
 * refuse bytes that follow the MPA reply at once, as upstream siw's
 * does). In peer-to-peer mode that FPDU is the RTR, which the initiator
 * promised; otherwise the hold ends after the endpoint's
 * first_fpdu_wait_ms, since an application may have its server speak
 * first. Called by the connection manager in process context, endpoint
 * locked.
 */
int siw_qp_connected(struct siw_qp *qp, struct siw_cep *cep,
		     struct socket *sock, const struct siw_mpa_result *res,
		     bool initiator)
{
	u32 ord = clamp_t(u32, res->ord, 1, SIW_MAX_ORD_QP);
	u32 ird = clamp_t(u32, res->ird, 1, SIW_MAX_IRD_QP);
	struct siw_orq_entry *orq = NULL;
	struct siw_irq_entry *irq = NULL;
	struct sock *sk = sock->sk;
	unsigned long flags;
	bool timed_hold;
	u32 i;

	pr_debug("siw: QP %u: connected in %s\n", qp->base_qp.qp_num,
		 siw_qp_state_name(qp->state));
	/*
	 * ORQ and IRQ as deep as agreed: at 128 each they would take 48 KiB
	 * of pages per QP. Nothing reads them before the QP is connected
	 * (the transmitter waits for the socket, the receive path is not
	 * hooked yet), so they are swapped below with the indices reset.
	 */
	if (ord > qp->orq_size) {
		orq = kcalloc(ord, sizeof(*orq), GFP_KERNEL);
		if (!orq)
			return -ENOMEM;
	}
	if (ird > qp->irq_size) {
		irq = kcalloc(ird, sizeof(*irq), GFP_KERNEL);
		if (!irq) {
			kfree(orq);
			return -ENOMEM;
		}
	}
	spin_lock_irqsave(&qp->state_lock, flags);
	if (qp->connected || qp->state == IB_QPS_ERR ||
	    qp->state == IB_QPS_RESET || qp->state == IB_QPS_SQD) {
		spin_unlock_irqrestore(&qp->state_lock, flags);
		kfree(orq);
		kfree(irq);
		return -EINVAL;
	}
	if (orq) {
		swap(qp->orq, orq);
		qp->orq_size = ord;
	}
	if (irq) {
		swap(qp->irq, irq);
		qp->irq_size = ird;
	}
	qp->crc = res->crc;
	qp->mpa_rev = res->revision;
	qp->rtr = res->p2p ? res->rtr : 0;
	/* The rings hold at least that many now. */
	qp->ird = ird;
	qp->ord = ord;
	qp->gso = res->gso;
	WRITE_ONCE(qp->ext, res->ext);
	if (res->gso)
		qp->mulpdu = siw_mpa_mulpdu(siw_gso_emss(tcp_sk(sk)->mss_cache,
							 READ_ONCE(sk->sk_gso_max_size),
							 READ_ONCE(sk->sk_gso_max_segs),
							 MAX_TCP_HEADER));
	else
		qp->mulpdu = siw_mpa_mulpdu(tcp_sk(sk)->mss_cache);
	for (i = 0; i < SIW_QN_NUM; i++)
		qp->tx_msn[i] = SIW_MSN_FIRST;
	qp->orq_get = qp->orq_put = 0;
	qp->orq_done_bytes = 0;
	qp->irq_get = qp->irq_put = 0;
	qp->term_code = SIW_TERM_OK;
	qp->term_sent = false;
	qp->sq_failed = false;
	siw_rx_reset(qp);
	/* Under state_lock: a flush that follows stops it again. */
	spin_lock(&qp->place_lock);
	qp->place_stopped = false;
	spin_unlock(&qp->place_lock);
	qp->rtr_send = initiator ? qp->rtr : 0;
	qp->rx.state.rtr_await = initiator ? 0 : qp->rtr;
	/* p2p: held until the RTR; otherwise at most first_fpdu_wait_ms. */
	timed_hold = !initiator && !qp->rtr && cep->first_fpdu_wait_ms;
	qp->tx_held = (!initiator && qp->rtr) || timed_hold;
	kref_get(&cep->ref);
	qp->cep = cep;
	qp->sock = sock;
	siw_qp_set_state(qp, IB_QPS_RTS, "connected");
	qp->connected = true;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	/* The first, shallower queues, if they were replaced. */
	kfree(orq);
	kfree(irq);
	/* Armed before receive starts, which may end the hold at once. */
	if (timed_hold)
		siw_tx_hold_arm(qp, cep->first_fpdu_wait_ms);

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_data_ready = siw_rx_data_ready;
	sk->sk_write_space = siw_tx_write_space;
	write_unlock_bh(&sk->sk_callback_lock);

	/* What arrived with or after the MPA frame, and what was posted. */
	siw_rx_read(qp);
	siw_tx_queue_run(qp);
	return 0;
}

/*
 * The connection is gone; the socket's callbacks are no longer ours.
 * Called by the connection manager in process context.
 */
void siw_qp_disconnected(struct siw_qp *qp)
{
	struct siw_cep *cep;
	unsigned long flags;

	pr_debug("siw: QP %u: disconnected\n", qp->base_qp.qp_num);
	spin_lock_irqsave(&qp->state_lock, flags);
	cep = qp->cep;
	qp->connected = false;
	qp->cep = NULL;
	siw_qp_set_state(qp, IB_QPS_ERR, "disconnected");
	spin_unlock_irqrestore(&qp->state_lock, flags);
	siw_tx_hold_stop(qp);

	/*
	 * A transmit run that is running (in tx_work or inline in a
	 * doorbell) may be in the middle of a message and still uses
	 * qp->sock: the socket pointer goes only once it has finished. Runs
	 * started later see the QP disconnected and send nothing.
	 */
	siw_tx_quiesce(qp);
	spin_lock_irqsave(&qp->state_lock, flags);
	/* The socket's retransmissions stay counted once it is gone. */
	if (qp->sock && qp->sock->sk)
		siw_qp_stat_add(qp, SIW_STAT_RETRANS_BYTES,
				READ_ONCE(tcp_sk(qp->sock->sk)->bytes_retrans));
	qp->sock = NULL;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	siw_rx_release(qp);
	siw_qp_flush(qp);
	if (cep)
		siw_cep_put(cep);
}

/* The states modify_qp may move a QP to, by the state it is in. */
#define FROM(s)	BIT(IB_QPS_##s)
static const u8 siw_qp_modify_from[IB_QPS_ERR + 1] = {
	[IB_QPS_RESET] = FROM(RESET) | FROM(INIT) | FROM(ERR),
	[IB_QPS_INIT] = FROM(RESET) | FROM(INIT),
	[IB_QPS_RTR] = FROM(INIT) | FROM(RTR),
	[IB_QPS_RTS] = FROM(INIT) | FROM(RTR) | FROM(RTS),
	[IB_QPS_SQD] = FROM(RTS) | FROM(SQD),
	[IB_QPS_SQE] = 0,
	[IB_QPS_ERR] = FROM(RESET) | FROM(INIT) | FROM(RTR) | FROM(RTS) |
		       FROM(SQD) | FROM(SQE) | FROM(ERR),
};
#undef FROM

static bool siw_state_change_ok(enum ib_qp_state cur, enum ib_qp_state next)
{
	return (unsigned int)next < ARRAY_SIZE(siw_qp_modify_from) &&
	       (unsigned int)cur < ARRAY_SIZE(siw_qp_modify_from) &&
	       (siw_qp_modify_from[next] & BIT(cur));
}

int siw_modify_qp(struct ib_qp *base_qp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata)
{
	struct siw_qp *qp = to_siw_qp(base_qp);
	struct siw_cep *cep;
	enum ib_qp_state next;
	unsigned long flags;
	int err = 0;

	if (mask & ~(IB_QP_STATE | IB_QP_ACCESS_FLAGS | IB_QP_PORT |
		     IB_QP_MAX_QP_RD_ATOMIC | IB_QP_MAX_DEST_RD_ATOMIC |
		     IB_QP_PKEY_INDEX | IB_QP_CUR_STATE))
		return -EOPNOTSUPP;
	if ((mask & IB_QP_PORT) && attr->port_num != 1)
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > SIW_MAX_ORD_QP)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > SIW_MAX_IRD_QP)
		return -EINVAL;

	pr_debug("siw: QP %u: modify mask 0x%x in %s, to %s\n",
		 base_qp->qp_num, mask, siw_qp_state_name(qp->state),
		 (mask & IB_QP_STATE) ?
		 siw_qp_state_name(attr->qp_state) : "(same)");
	spin_lock_irqsave(&qp->state_lock, flags);
	next = (mask & IB_QP_STATE) ? attr->qp_state : qp->state;
	/*
	 * librdmacm's rdma_disconnect() moves an iWARP QP to SQD before it
	 * asks iw_cm to close. When the peer closed first, the QP is in ERR
	 * already: the close asked for has happened, and the QP stays there.
	 */
	if (next == IB_QPS_SQD && qp->state == IB_QPS_ERR)
		next = IB_QPS_ERR;
	if ((mask & IB_QP_CUR_STATE) && attr->cur_qp_state != qp->state) {
		err = -EINVAL;
		goto out_unlock;
	}
	if (!siw_state_change_ok(qp->state, next)) {
		err = -EINVAL;
		goto out_unlock;
	}
	if (mask & IB_QP_ACCESS_FLAGS)
		qp->access = attr->qp_access_flags;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->ord = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->ird = attr->max_dest_rd_atomic;
	siw_qp_set_state(qp, next, "modify_qp");
	cep = qp->connected ? qp->cep : NULL;
	if (cep)
		kref_get(&cep->ref);
	spin_unlock_irqrestore(&qp->state_lock, flags);

	if (next == IB_QPS_ERR)
		siw_qp_flush(qp);
	/* iw_cm's disconnect: SQD is graceful, ERR abortive. */
	if (cep && (next == IB_QPS_ERR || next == IB_QPS_SQD))
		siw_cm_qp_down(cep, next == IB_QPS_ERR);
	if (cep)
		siw_cep_put(cep);
	return 0;

out_unlock:
	spin_unlock_irqrestore(&qp->state_lock, flags);
	return err;
}

int siw_query_qp(struct ib_qp *base_qp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init_attr)
{
	struct siw_qp *qp = to_siw_qp(base_qp);
	unsigned long flags;

	memset(attr, 0, sizeof(*attr));
	memset(init_attr, 0, sizeof(*init_attr));
	spin_lock_irqsave(&qp->state_lock, flags);
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->qp_access_flags = qp->access;
	attr->max_rd_atomic = qp->ord;
	attr->max_dest_rd_atomic = qp->ird;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	attr->path_mtu = IB_MTU_1024;
	attr->port_num = 1;
	attr->cap.max_send_wr = qp->num_sqe;
	attr->cap.max_recv_wr = qp->num_rqe;
	attr->cap.max_send_sge = qp->max_send_sge;
	attr->cap.max_recv_sge = qp->max_recv_sge;
	attr->cap.max_inline_data = qp->max_inline;

	init_attr->qp_type = IB_QPT_RC;
	init_attr->send_cq = &qp->scq->base_cq;
	init_attr->recv_cq = &qp->rcq->base_cq;
	init_attr->srq = qp->srq ? &qp->srq->base_srq : NULL;
	init_attr->cap = attr->cap;
	init_attr->sq_sig_type = qp->sq_sig_all ? IB_SIGNAL_ALL_WR :
						  IB_SIGNAL_REQ_WR;
	return 0;
}
