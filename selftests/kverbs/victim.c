// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * Victim mode (victim=1): instead of running the cases, the module serves
 * kernel QPs to a hostile peer (userspace/siw_hostile -k), so that RFC
 * 7306's messages, which siw negotiates for kernel QPs only, can be sent
 * malformed to a connection that negotiated them.
 *
 * Each connection gets a QP, KV_VICTIM_RECVS receives, and a fast-register
 * MR over one page with remote atomic, read and write access, whose 8
 * bytes at KV_VICTIM_OFF hold KV_VICTIM_START. Once connected, the victim
 * registers the MR and sends one Send of 40 bytes, ten big-endian words:
 * the MR's rkey, address (2) and length; the PD's global rkey (no atomic
 * access), the page's address under it (2), the target's offset in the
 * page; the target's first value (2); then a second fast-register MR of
 * KV_VICTIM_BIG bytes (4 blocks) with remote read access only, filled
 * with KV_VICTIM_BIG_BYTE: its rkey, address (2) and length. It logs its
 * receive completions, and on unload, per connection, the QP's async
 * events and the target's value, for the test to compare with what the
 * peer expected.
 *
 * A receive that invalidated the big MR (a peer's Send with Invalidate)
 * makes the victim poison its pages with KV_VICTIM_POISON and free them
 * at once, as a ULP may once the invalidation completed: any byte siw
 * still read from them afterwards, for a Read Response, would be freed
 * memory (KASAN, with make check DEBUG=1) or the poison (the peer
 * checks).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>

#include "kverbs.h"

#define KV_VICTIM_RECVS		4
#define KV_VICTIM_RECV_LEN	256
#define KV_VICTIM_OFF		64
#define KV_VICTIM_START		0x1000ULL
#define KV_VICTIM_MAX		64
#define KV_VICTIM_BIG_ORDER	6
#define KV_VICTIM_BIG		(4 * (PAGE_SIZE << KV_VICTIM_BIG_ORDER))
#define KV_VICTIM_BIG_BYTE	0x5a
#define KV_VICTIM_POISON	0xee
#define KV_VICTIM_ANNOUNCE	56

struct kv_victim_conn {
	int num;
	struct rdma_cm_id *id;
	struct ib_cq *cq;
	struct kv_frmr f;
	struct kv_frmr big;	/* remote read only; freed when invalidated */
	struct kv_buf rbuf;	/* the receives */
	struct kv_buf sbuf;	/* the announcement */
	struct ib_cqe recv_cqe, send_cqe, reg_cqe, reg_big_cqe;
	struct work_struct ready;
	unsigned long qp_events;
	bool established;
};

static struct {
	struct kv_ctx *kv;
	/* conns, n, stopping; taken in the connection manager's handler. */
	struct mutex lock;
	bool stopping;		/* unloading: no more work is queued */
	struct kv_victim_conn *conns[KV_VICTIM_MAX];
	int n;
} victim;

static void kv_victim_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kv_victim_conn *c = cq->cq_context;

	pr_info("# victim %d: receive %s opcode %d wc_flags 0x%x imm 0x%x byte_len %u\n",
		c->num, ib_wc_status_msg(wc->status), wc->opcode,
		wc->wc_flags, be32_to_cpu(wc->ex.imm_data), wc->byte_len);
	if (wc->status == IB_WC_SUCCESS &&
	    (wc->wc_flags & IB_WC_WITH_INVALIDATE) && c->big.nblocks &&
	    wc->ex.invalidate_rkey == c->big.mr->rkey) {
		unsigned int i;

		for (i = 0; i < c->big.nblocks; i++)
			memset(page_address(c->big.block[i]), KV_VICTIM_POISON,
			       PAGE_SIZE << c->big.order);
		kv_frmr_free(victim.kv, &c->big);
		pr_info("# victim %d: the big MR was invalidated by the peer: poisoned and freed\n",
			c->num);
	}
}

static void kv_victim_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kv_victim_conn *c = cq->cq_context;

	if (wc->status != IB_WC_SUCCESS)
		pr_info("# victim %d: send queue: %s\n", c->num,
			ib_wc_status_msg(wc->status));
}

static void kv_victim_qp_event(struct ib_event *ev, void *ctx)
{
	struct kv_victim_conn *c = ctx;

	if (ev->event < BITS_PER_LONG)
		set_bit(ev->event, &c->qp_events);
}

/* Connected: register the MR, then announce it (in send queue order). */
static void kv_victim_ready(struct work_struct *work)
{
	struct kv_victim_conn *c = container_of(work, struct kv_victim_conn,
						ready);
	struct kv_ctx *kv = victim.kv;
	const struct ib_send_wr *bad;
	struct ib_reg_wr reg = {
		.wr = {
			.wr_cqe = &c->reg_cqe,
			.opcode = IB_WR_REG_MR,
		},
		.mr = c->f.mr,
		.key = c->f.mr->rkey,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_ATOMIC |
			  IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE,
	};
	struct ib_reg_wr reg_big = {
		.wr = {
			.wr_cqe = &c->reg_big_cqe,
			.opcode = IB_WR_REG_MR,
		},
		.mr = c->big.mr,
		.key = c->big.mr->rkey,
		.access = IB_ACCESS_REMOTE_READ,
	};
	struct ib_sge sge = {
		.addr = c->sbuf.dma, .length = KV_VICTIM_ANNOUNCE,
		.lkey = kv->pd->local_dma_lkey,
	};
	struct ib_send_wr send = {
		.wr_cqe = &c->send_cqe,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	__be32 *w = (__be32 *)c->sbuf.va;
	u64 page_dma = sg_dma_address(&c->f.sg[0]);
	int err;

	w[0] = cpu_to_be32(c->f.mr->rkey);
	w[1] = cpu_to_be32(c->f.mr->iova >> 32);
	w[2] = cpu_to_be32((u32)c->f.mr->iova);
	w[3] = cpu_to_be32(PAGE_SIZE);
	w[4] = cpu_to_be32(kv->pd->unsafe_global_rkey);
	w[5] = cpu_to_be32(page_dma >> 32);
	w[6] = cpu_to_be32((u32)page_dma);
	w[7] = cpu_to_be32(KV_VICTIM_OFF);
	w[8] = cpu_to_be32(KV_VICTIM_START >> 32);
	w[9] = cpu_to_be32((u32)KV_VICTIM_START);
	w[10] = cpu_to_be32(c->big.mr->rkey);
	w[11] = cpu_to_be32(c->big.mr->iova >> 32);
	w[12] = cpu_to_be32((u32)c->big.mr->iova);
	w[13] = cpu_to_be32(KV_VICTIM_BIG);
	reg.wr.next = &reg_big.wr;
	reg_big.wr.next = &send;
	err = ib_post_send(c->id->qp, &reg.wr, &bad);
	pr_info("# victim %d: connected; MR rkey 0x%x registered and announced (%d)\n",
		c->num, c->f.mr->rkey, err);
}

static void kv_victim_free(struct kv_victim_conn *c)
{
	struct kv_ctx *kv = victim.kv;

	if (c->id) {
		if (c->id->qp)
			rdma_destroy_qp(c->id);
		rdma_destroy_id(c->id);
	}
	if (c->cq)
		ib_free_cq(c->cq);
	kv_frmr_free(kv, &c->f);
	if (c->big.nblocks)
		kv_frmr_free(kv, &c->big);
	kv_buf_free(kv, &c->rbuf);
	kv_buf_free(kv, &c->sbuf);
	kfree(c);
}

/* A connect request: QP, MR, receives, accept. In the listener's handler. */
static int kv_victim_request(struct rdma_cm_id *id)
{
	struct kv_ctx *kv = victim.kv;
	struct rdma_conn_param param = {
		.responder_resources = 4, .initiator_depth = 4,
	};
	struct ib_qp_init_attr attr = {
		.event_handler = kv_victim_qp_event,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
		.cap = {
			.max_send_wr = 8, .max_recv_wr = KV_VICTIM_RECVS,
			.max_send_sge = 1, .max_recv_sge = 1,
		},
	};
	struct kv_victim_conn *c;
	int err, i;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	mutex_lock(&victim.lock);
	if (victim.n == KV_VICTIM_MAX) {
		mutex_unlock(&victim.lock);
		kfree(c);
		return -ENOSPC;
	}
	c->num = victim.n;
	victim.conns[victim.n++] = c;
	mutex_unlock(&victim.lock);
	INIT_WORK(&c->ready, kv_victim_ready);
	c->recv_cqe.done = kv_victim_recv_done;
	c->send_cqe.done = kv_victim_send_done;
	c->reg_cqe.done = kv_victim_send_done;
	c->reg_big_cqe.done = kv_victim_send_done;
	id->context = c;

	/* The kv_* helpers report through a case; here there is none. */
	kv_begin(kv, "victim %d", c->num);
	err = -ENOMEM;
	if (kv_buf_alloc(kv, &c->rbuf, KV_VICTIM_RECVS * KV_VICTIM_RECV_LEN) ||
	    kv_buf_alloc(kv, &c->sbuf, 64) ||
	    !kv_frmr_create(kv, &c->f, 1, 0, 0, PAGE_SIZE) ||
	    !kv_frmr_create(kv, &c->big, 4, KV_VICTIM_BIG_ORDER, 0,
			    KV_VICTIM_BIG))
		goto err;
	for (i = 0; i < c->big.nblocks; i++)
		memset(page_address(c->big.block[i]), KV_VICTIM_BIG_BYTE,
		       PAGE_SIZE << c->big.order);
	*(u64 *)((u8 *)page_address(c->f.block[0]) + KV_VICTIM_OFF) =
		KV_VICTIM_START;
	c->cq = ib_alloc_cq(kv->dev, c, 16, 0, IB_POLL_WORKQUEUE);
	if (IS_ERR(c->cq)) {
		err = PTR_ERR(c->cq);
		c->cq = NULL;
		goto err;
	}
	attr.qp_context = c;
	attr.send_cq = c->cq;
	attr.recv_cq = c->cq;
	err = rdma_create_qp(id, kv->pd, &attr);
	if (err)
		goto err;
	for (i = 0; i < KV_VICTIM_RECVS; i++) {
		struct ib_sge sge = {
			.addr = c->rbuf.dma + i * KV_VICTIM_RECV_LEN,
			.length = KV_VICTIM_RECV_LEN,
			.lkey = kv->pd->local_dma_lkey,
		};
		struct ib_recv_wr wr = {
			.wr_cqe = &c->recv_cqe, .sg_list = &sge, .num_sge = 1,
		};
		const struct ib_recv_wr *bad;

		err = ib_post_recv(id->qp, &wr, &bad);
		if (err)
			goto err_qp;
	}
	err = rdma_accept(id, &param);
	if (err)
		goto err_qp;
	c->id = id;
	kv->case_failed = false;
	return 0;

err_qp:
	rdma_destroy_qp(id);
err:
	pr_info("# victim %d: accepting failed: %d\n", c->num, err);
	/* rdma_cm destroys the ID on our non-zero return. */
	c->id = NULL;
	kv->case_failed = false;
	return err;
}

static int kv_victim_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct kv_victim_conn *c = id->context;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return kv_victim_request(id);
	if (id == victim.kv->listen_id)
		return 0;
	if (ev->event == RDMA_CM_EVENT_ESTABLISHED) {
		c->established = true;
		mutex_lock(&victim.lock);
		if (!victim.stopping)
			schedule_work(&c->ready);
		mutex_unlock(&victim.lock);
	} else {
		pr_info("# victim %d: %s (%d)\n", c->num,
			rdma_event_msg(ev->event), ev->status);
	}
	return 0;
}

int kv_victim_start(struct kv_ctx *kv)
{
	int err;

	mutex_init(&victim.lock);
	victim.kv = kv;
	kv->listen_id = rdma_create_id(&init_net, kv_victim_handler, NULL,
				       RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(kv->listen_id))
		return PTR_ERR(kv->listen_id);
	err = rdma_bind_addr(kv->listen_id, (struct sockaddr *)&kv->addr);
	if (!err)
		err = rdma_listen(kv->listen_id, 8);
	if (err) {
		rdma_destroy_id(kv->listen_id);
		return err;
	}
	pr_info("# victim: listening on %pI4 port %u\n", &kv->addr.sin_addr,
		ntohs(kv->addr.sin_port));
	return 0;
}

/* Unload: what each connection saw, then everything goes. */
void kv_victim_stop(struct kv_ctx *kv)
{
	int i;

	rdma_destroy_id(kv->listen_id);
	/* After this no handler queues the work; none queued survives it. */
	mutex_lock(&victim.lock);
	victim.stopping = true;
	mutex_unlock(&victim.lock);
	for (i = 0; i < victim.n; i++)
		cancel_work_sync(&victim.conns[i]->ready);
	for (i = 0; i < victim.n; i++) {
		struct kv_victim_conn *c = victim.conns[i];

		if (c->f.nblocks)
			pr_info("# victim %d: established %d qp_error %d target 0x%llx\n",
				c->num, c->established,
				test_bit(IB_EVENT_QP_FATAL, &c->qp_events) ||
				test_bit(IB_EVENT_QP_ACCESS_ERR,
					 &c->qp_events),
				*(u64 *)((u8 *)page_address(c->f.block[0]) +
					 KV_VICTIM_OFF));
		kv_victim_free(c);
	}
	victim.n = 0;
}
