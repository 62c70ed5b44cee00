// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * Connections and work requests for the cases: a listener on the test
 * address, client/server QP pairs connected to each other through
 * rdma_cm (loopback through siw), tracked work requests whose completions
 * arrive through ib_cqe done callbacks in any CQ polling context, and
 * mapped buffers with patterns.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/slab.h>
#include <net/net_namespace.h>

#include "kverbs.h"

const char *kv_poll_name(enum ib_poll_context ctx)
{
	switch (ctx) {
	case IB_POLL_DIRECT:
		return "IB_POLL_DIRECT";
	case IB_POLL_SOFTIRQ:
		return "IB_POLL_SOFTIRQ";
	case IB_POLL_WORKQUEUE:
		return "IB_POLL_WORKQUEUE";
	case IB_POLL_UNBOUND_WORKQUEUE:
		return "IB_POLL_UNBOUND_WORKQUEUE";
	}
	return "unknown poll context";
}

/* Buffers: kmalloc memory, mapped (siw maps virtually: dma is the VA). */
int kv_buf_alloc(struct kv_ctx *kv, struct kv_buf *b, size_t len)
{
	b->len = len;
	b->va = kzalloc(len, GFP_KERNEL);
	if (!b->va)
		return -ENOMEM;
	b->dma = ib_dma_map_single(kv->dev, b->va, len, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(kv->dev, b->dma)) {
		kfree(b->va);
		b->va = NULL;
		return -ENOMEM;
	}
	return 0;
}

void kv_buf_free(struct kv_ctx *kv, struct kv_buf *b)
{
	if (!b->va)
		return;
	ib_dma_unmap_single(kv->dev, b->dma, b->len, DMA_BIDIRECTIONAL);
	kfree(b->va);
	b->va = NULL;
}

static u8 kv_pattern_byte(size_t i, u8 seed)
{
	return seed ^ (u8)(i * 31 + (i >> 8) + 1);
}

void kv_fill(void *buf, size_t len, u8 seed)
{
	u8 *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = kv_pattern_byte(i, seed);
}

/* The first offset where buf differs from the pattern, or -1. */
long kv_pattern_diff(const void *buf, size_t len, u8 seed)
{
	const u8 *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != kv_pattern_byte(i, seed))
			return i;
	return -1;
}

/* The first offset where buf is not val, or -1. */
long kv_const_diff(const void *buf, size_t len, u8 val)
{
	const u8 *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != val)
			return i;
	return -1;
}

/* Work requests. */
static void kv_wr_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kv_wr *w = container_of(wc->wr_cqe, struct kv_wr, cqe);

	/* A second completion of one work request is counted, not kept. */
	if (atomic_inc_return(&w->times) == 1) {
		w->wc = *wc;
		w->seq = atomic_inc_return(&w->side->completions);
	}
	complete(&w->done);
}

struct kv_wr *kv_wr_get(struct kv_pair *p, struct kv_side *s)
{
	struct kv_wr *w;

	/* The cases know how many they post; running out is a test bug. */
	if (WARN_ON_ONCE(p->next_wr >= KV_MAX_WR))
		p->next_wr = KV_MAX_WR - 1;
	w = &p->wr[p->next_wr++];
	memset(&w->wc, 0, sizeof(w->wc));
	w->cqe.done = kv_wr_done;
	init_completion(&w->done);
	w->side = s;
	w->seq = 0;
	atomic_set(&w->times, 0);
	return w;
}

/* Polls a CQ of IB_POLL_DIRECT; the others deliver by themselves. */
void kv_process(struct kv_side *s)
{
	if (s->poll_ctx == IB_POLL_DIRECT)
		ib_process_cq_direct(s->cq, 64);
}

/* Waits until w completed. Returns false after ms without. */
bool kv_wait(struct kv_wr *w, unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	if (w->side->poll_ctx != IB_POLL_DIRECT)
		return wait_for_completion_timeout(&w->done,
						   msecs_to_jiffies(ms));
	for (;;) {
		kv_process(w->side);
		if (completion_done(&w->done))
			return true;
		if (time_after(jiffies, end))
			return false;
		usleep_range(500, 1000);
	}
}

const char *kv_wc_status(const struct kv_wr *w)
{
	return ib_wc_status_msg(w->wc.status);
}

/* Connection manager events of one side. */
static int kv_side_event(struct kv_side *s, struct rdma_cm_event *ev)
{
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
	case RDMA_CM_EVENT_ESTABLISHED:
		if (ev->event == RDMA_CM_EVENT_ESTABLISHED)
			s->established = true;
		s->cm_event = ev->event;
		s->cm_status = 0;
		complete(&s->cm_done);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
		pr_info("# %s: %s (status %d)\n", s->name,
			rdma_event_msg(ev->event), ev->status);
		s->cm_event = ev->event;
		s->cm_status = ev->status ? ev->status : -ECONNREFUSED;
		complete(&s->cm_done);
		break;
	default:
		break;
	}
	return 0;
}

static void kv_qp_event(struct ib_event *ev, void *ctx)
{
	struct kv_side *s = ctx;

	if (ev->event < BITS_PER_LONG)
		set_bit(ev->event, &s->qp_events);
}

static int kv_create_qp(struct kv_pair *p, struct kv_side *s)
{
	struct ib_qp_init_attr attr = {
		.event_handler = kv_qp_event,
		.qp_context = s,
		.send_cq = s->cq,
		.recv_cq = s->cq,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
		.cap = {
			.max_send_wr = p->opts.send_wr,
			.max_recv_wr = p->opts.recv_wr,
			.max_send_sge = p->opts.send_sge,
			.max_recv_sge = p->opts.recv_sge,
		},
	};

	return rdma_create_qp(s->id, p->kv->pd, &attr);
}

/*
 * A connect request: the server side of the pending pair. Runs in the
 * listener's event handler (it holds the new ID's handler lock, as
 * rdma_accept wants). A non-zero return makes rdma_cm destroy the ID.
 */
static int kv_connect_request(struct kv_ctx *kv, struct rdma_cm_id *id)
{
	struct rdma_conn_param param = {};
	struct kv_pair *p;
	int err;

	spin_lock(&kv->pending_lock);
	p = kv->pending;
	kv->pending = NULL;
	spin_unlock(&kv->pending_lock);
	if (!p) {
		pr_info("# a connect request nobody expected: refused\n");
		return -EINVAL;
	}
	id->context = &p->srv;
	p->srv.id = id;
	err = kv_create_qp(p, &p->srv);
	if (err)
		goto err_id;
	param.responder_resources = p->opts.responder_resources;
	param.initiator_depth = p->opts.initiator_depth;
	err = rdma_accept(id, &param);
	if (err)
		goto err_qp;
	return 0;

err_qp:
	rdma_destroy_qp(id);
err_id:
	pr_info("# server: accepting failed: %d\n", err);
	p->srv.id = NULL;
	p->srv.cm_status = err;
	complete(&p->srv.cm_done);
	return err;
}

/* The listener's handler; the IDs it spawns inherit it. */
static int kv_listen_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct kv_ctx *kv;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return kv_connect_request(id->context, id);
	kv = id->context;
	if (kv && id == kv->listen_id) {
		pr_info("# listener: %s\n", rdma_event_msg(ev->event));
		return 0;
	}
	return kv_side_event(id->context, ev);
}

static int kv_client_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	return kv_side_event(id->context, ev);
}

int kv_listen(struct kv_ctx *kv)
{
	int err;

	kv->listen_id = rdma_create_id(&init_net, kv_listen_handler, kv,
				       RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(kv->listen_id)) {
		err = PTR_ERR(kv->listen_id);
		pr_err("setup: rdma_create_id: %d\n", err);
		return err;
	}
	err = rdma_bind_addr(kv->listen_id, (struct sockaddr *)&kv->addr);
	if (err) {
		pr_err("setup: rdma_bind_addr %pI4: %d\n", &kv->addr.sin_addr,
		       err);
		goto err_id;
	}
	err = rdma_listen(kv->listen_id, 8);
	if (err) {
		pr_err("setup: rdma_listen: %d\n", err);
		goto err_id;
	}
	return 0;

err_id:
	rdma_destroy_id(kv->listen_id);
	return err;
}

/* Waits for the side's awaited connection step to end in event. */
static int kv_cm_step(struct kv_side *s, enum rdma_cm_event_type event)
{
	if (!wait_for_completion_timeout(&s->cm_done,
					 msecs_to_jiffies(KV_WAIT_MS)))
		return -ETIMEDOUT;
	if (s->cm_status)
		return s->cm_status;
	return s->cm_event == event ? 0 : -EPROTO;
}

static void kv_side_init(struct kv_pair *p, struct kv_side *s,
			 const char *name, enum ib_poll_context ctx)
{
	s->name = name;
	s->pair = p;
	s->poll_ctx = ctx;
	init_completion(&s->cm_done);
	atomic_set(&s->completions, 0);
}

static void kv_side_destroy(struct kv_side *s)
{
	if (s->id) {
		if (s->id->qp)
			rdma_destroy_qp(s->id);
		rdma_destroy_id(s->id);
		s->id = NULL;
	}
	if (!IS_ERR_OR_NULL(s->cq))
		ib_free_cq(s->cq);
	s->cq = NULL;
}

/* Disconnects and frees a pair; every completion is delivered or gone. */
void kv_pair_destroy(struct kv_pair *p)
{
	if (p->cli.id && p->cli.established)
		rdma_disconnect(p->cli.id);
	if (p->srv.id && p->srv.established)
		rdma_disconnect(p->srv.id);
	kv_side_destroy(&p->cli);
	kv_side_destroy(&p->srv);
	kvfree(p->wr);
	kfree(p);
}

static void kv_opts_default(struct kv_pair_opts *o)
{
	if (!o->send_wr)
		o->send_wr = 32;
	if (!o->recv_wr)
		o->recv_wr = 32;
	if (!o->send_sge)
		o->send_sge = 2;
	if (!o->recv_sge)
		o->recv_sge = 2;
	if (!o->initiator_depth)
		o->initiator_depth = 16;
	if (!o->responder_resources)
		o->responder_resources = 16;
}

/*
 * A client QP connected to a server QP on the test address, both with one
 * CQ of poll context ctx. Returns the pair or an ERR_PTR; says why.
 */
struct kv_pair *kv_pair_connect(struct kv_ctx *kv, enum ib_poll_context ctx,
				const struct kv_pair_opts *opts)
{
	struct sockaddr_in src = kv->addr;
	struct rdma_conn_param param = {};
	const char *step;
	struct kv_pair *p;
	bool taken;
	int ncqe, err;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return ERR_PTR(-ENOMEM);
	p->wr = kvcalloc(KV_MAX_WR, sizeof(*p->wr), GFP_KERNEL);
	if (!p->wr) {
		kfree(p);
		return ERR_PTR(-ENOMEM);
	}
	p->kv = kv;
	if (opts)
		p->opts = *opts;
	kv_opts_default(&p->opts);
	kv_side_init(p, &p->cli, "client", ctx);
	kv_side_init(p, &p->srv, "server", ctx);

	/* Room for every work request and ib_drain's own. */
	ncqe = p->opts.send_wr + p->opts.recv_wr + 8;
	step = "ib_alloc_cq";
	p->cli.cq = ib_alloc_cq(kv->dev, NULL, ncqe, 0, ctx);
	if (IS_ERR(p->cli.cq)) {
		err = PTR_ERR(p->cli.cq);
		goto err_destroy;
	}
	p->srv.cq = ib_alloc_cq(kv->dev, NULL, ncqe, 0, ctx);
	if (IS_ERR(p->srv.cq)) {
		err = PTR_ERR(p->srv.cq);
		goto err_destroy;
	}

	step = "rdma_create_id";
	p->cli.id = rdma_create_id(&init_net, kv_client_handler, &p->cli,
				   RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(p->cli.id)) {
		err = PTR_ERR(p->cli.id);
		p->cli.id = NULL;
		goto err_destroy;
	}
	step = "rdma_resolve_addr";
	src.sin_port = 0;
	err = rdma_resolve_addr(p->cli.id, (struct sockaddr *)&src,
				(struct sockaddr *)&kv->addr, KV_WAIT_MS);
	if (!err)
		err = kv_cm_step(&p->cli, RDMA_CM_EVENT_ADDR_RESOLVED);
	if (err)
		goto err_destroy;
	step = "rdma_resolve_route";
	reinit_completion(&p->cli.cm_done);
	err = rdma_resolve_route(p->cli.id, KV_WAIT_MS);
	if (!err)
		err = kv_cm_step(&p->cli, RDMA_CM_EVENT_ROUTE_RESOLVED);
	if (err)
		goto err_destroy;
	step = "rdma_create_qp";
	err = kv_create_qp(p, &p->cli);
	if (err)
		goto err_destroy;

	step = "rdma_connect";
	reinit_completion(&p->cli.cm_done);
	spin_lock(&kv->pending_lock);
	kv->pending = p;
	spin_unlock(&kv->pending_lock);
	param.initiator_depth = p->opts.initiator_depth;
	param.responder_resources = p->opts.responder_resources;
	param.retry_count = 7;
	err = rdma_connect(p->cli.id, &param);
	if (!err)
		err = kv_cm_step(&p->cli, RDMA_CM_EVENT_ESTABLISHED);
	if (err)
		goto err_pending;
	step = "server established";
	err = kv_cm_step(&p->srv, RDMA_CM_EVENT_ESTABLISHED);
	if (err)
		goto err_pending;
	return p;

err_pending:
	spin_lock(&kv->pending_lock);
	taken = kv->pending != p;
	kv->pending = NULL;
	spin_unlock(&kv->pending_lock);
	/* The server side is being set up: let it finish first. */
	if (taken)
		wait_for_completion_timeout(&p->srv.cm_done,
					    msecs_to_jiffies(KV_WAIT_MS));
err_destroy:
	pr_info("# connecting a %s pair: %s: %d\n", kv_poll_name(ctx), step,
		err);
	kv_pair_destroy(p);
	return ERR_PTR(err);
}

/* Polls the QP's state until it is state; false after ms. */
bool kv_qp_state_is(struct ib_qp *qp, enum ib_qp_state state,
		    unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;

	for (;;) {
		if (!ib_query_qp(qp, &attr, IB_QP_STATE, &init) &&
		    attr.qp_state == state)
			return true;
		if (time_after(jiffies, end))
			return false;
		msleep(20);
	}
}

/* Waits until the side's QP had any async event; false after ms. */
bool kv_qp_event_seen(struct kv_side *s, unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	while (!READ_ONCE(s->qp_events)) {
		if (time_after(jiffies, end))
			return false;
		msleep(20);
	}
	return true;
}

/*
 * Posts one signalled RDMA Write, Read or Read with local invalidate of
 * one SGE. Returns the tracked work request, or NULL when the post failed
 * (a failed check of the current case).
 */
struct kv_wr *kv_post_rdma(struct kv_pair *p, struct kv_side *s,
			   enum ib_wr_opcode op, u64 laddr, u32 lkey, u32 len,
			   u64 raddr, u32 rkey, u32 inv_rkey)
{
	const struct ib_send_wr *bad = NULL;
	struct kv_wr *w = kv_wr_get(p, s);
	struct ib_sge sge = { .addr = laddr, .length = len, .lkey = lkey };
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_cqe = &w->cqe,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = op,
			.send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = raddr,
		.rkey = rkey,
	};
	int err;

	if (op == IB_WR_RDMA_READ_WITH_INV)
		wr.wr.ex.invalidate_rkey = inv_rkey;
	err = ib_post_send(kv_qp(s), &wr.wr, &bad);
	if (!kv_expect(p->kv, !err, "%s: posting %s failed: %d", s->name,
		       op == IB_WR_RDMA_WRITE ? "an RDMA Write" : "an RDMA Read",
		       err))
		return NULL;
	return w;
}

/* Posts one receive of one SGE; NULL when that failed. */
struct kv_wr *kv_post_recv(struct kv_pair *p, struct kv_side *s, u64 addr,
			   u32 lkey, u32 len)
{
	const struct ib_recv_wr *bad = NULL;
	struct kv_wr *w = kv_wr_get(p, s);
	struct ib_sge sge = { .addr = addr, .length = len, .lkey = lkey };
	struct ib_recv_wr wr = {
		.wr_cqe = &w->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};
	int err;

	err = ib_post_recv(kv_qp(s), &wr, &bad);
	if (!kv_expect(p->kv, !err, "%s: posting a receive failed: %d",
		       s->name, err))
		return NULL;
	return w;
}

/* Posts one signalled Send (with invalidate when inv_rkey); NULL if failed. */
struct kv_wr *kv_post_send(struct kv_pair *p, struct kv_side *s, u64 addr,
			   u32 lkey, u32 len, u32 inv_rkey)
{
	const struct ib_send_wr *bad = NULL;
	struct kv_wr *w = kv_wr_get(p, s);
	struct ib_sge sge = { .addr = addr, .length = len, .lkey = lkey };
	struct ib_send_wr wr = {
		.wr_cqe = &w->cqe,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = inv_rkey ? IB_WR_SEND_WITH_INV : IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
		.ex.invalidate_rkey = inv_rkey,
	};
	int err;

	err = ib_post_send(kv_qp(s), &wr, &bad);
	if (!kv_expect(p->kv, !err, "%s: posting a Send failed: %d", s->name,
		       err))
		return NULL;
	return w;
}

/*
 * Waits for w and checks its status, and for a successful completion its
 * opcode (undefined in error completions), its QP, and that it completed
 * once. what names it in the report.
 */
bool kv_expect_wc(struct kv_ctx *kv, struct kv_wr *w,
		  enum ib_wc_status status, enum ib_wc_opcode opcode,
		  const char *what)
{
	if (!w)
		return false;
	if (!kv_expect(kv, kv_wait(w, KV_WAIT_MS),
		       "%s: no completion within %u ms", what, KV_WAIT_MS))
		return false;
	if (!kv_expect(kv, w->wc.status == status,
		       "%s: status %s (vendor error %u), expected %s", what,
		       kv_wc_status(w), w->wc.vendor_err,
		       ib_wc_status_msg(status)))
		return false;
	if (!kv_expect(kv, w->wc.qp == kv_qp(w->side),
		       "%s: wc.qp is not the %s QP", what, w->side->name))
		return false;
	if (status == IB_WC_SUCCESS &&
	    !kv_expect(kv, w->wc.opcode == opcode,
		       "%s: opcode %d, expected %d", what, w->wc.opcode,
		       opcode))
		return false;
	return kv_expect(kv, atomic_read(&w->times) == 1,
			 "%s: completed %d times", what,
			 atomic_read(&w->times));
}

/* Checks that w has not completed (it must never), after a quiet time. */
bool kv_expect_quiet(struct kv_ctx *kv, struct kv_wr *w, const char *what)
{
	unsigned long end = jiffies + msecs_to_jiffies(KV_QUIET_MS);

	do {
		kv_process(w->side);
		msleep(20);
	} while (time_before(jiffies, end));
	return kv_expect(kv, !atomic_read(&w->times),
			 "%s completed (status %s), but was never posted",
			 what, kv_wc_status(w));
}
