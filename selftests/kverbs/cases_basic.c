// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * Cases: device attributes, traffic in every CQ polling context with the
 * DMA lkey and the global rkey, immediate errors of post_send/post_recv,
 * ib_drain_*, and the IRD/ORD a connection gets.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/slab.h>

#include "kverbs.h"

/* Most SGEs a case puts in one work request. */
#define KV_SGE_MAX	16
/* Work requests a case posts to a QP without a connection at once. */
#define KV_LONE_WR	8

/* A QP without a connection, for what needs none. */
struct kv_lone {
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct ib_qp_cap cap;	/* what it got */
};

/* Work requests on lone QPs complete (flushed) here, uncounted. */
static void kv_lone_done(struct ib_cq *cq, struct ib_wc *wc)
{
}

static struct ib_cqe kv_lone_cqe = { .done = kv_lone_done };

static int kv_lone_create(struct kv_ctx *kv, struct kv_lone *l,
			  const struct ib_qp_cap *cap)
{
	struct ib_qp_init_attr attr = {
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
		.cap = *cap,
	};

	l->qp = NULL;
	l->cq = ib_alloc_cq(kv->dev, NULL, 64, 0, IB_POLL_WORKQUEUE);
	if (IS_ERR(l->cq))
		return PTR_ERR(l->cq);
	attr.send_cq = l->cq;
	attr.recv_cq = l->cq;
	l->qp = ib_create_qp(kv->pd, &attr);
	if (IS_ERR(l->qp)) {
		int err = PTR_ERR(l->qp);

		l->qp = NULL;
		ib_free_cq(l->cq);
		return err;
	}
	l->cap = attr.cap;
	return 0;
}

static void kv_lone_destroy(struct kv_lone *l)
{
	if (l->qp)
		ib_destroy_qp(l->qp);
	ib_free_cq(l->cq);
}

/* -> RESET, which an iWARP QP is not in after creation. */
static int kv_lone_reset(struct kv_lone *l)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RESET };

	return ib_modify_qp(l->qp, &attr, IB_QP_STATE);
}

/* The QP's state as query_qp reports it, or -errno. */
static int kv_lone_state(struct kv_lone *l)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;
	int err;

	err = ib_query_qp(l->qp, &attr, IB_QP_STATE, &init);
	return err ?: attr.qp_state;
}

/* INIT with access flags, as rdma_cm does for a connection's QP. */
static int kv_lone_init(struct kv_lone *l)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IB_ACCESS_REMOTE_WRITE |
				   IB_ACCESS_REMOTE_READ,
	};

	return ib_modify_qp(l->qp, &attr, IB_QP_STATE | IB_QP_PORT |
			    IB_QP_PKEY_INDEX | IB_QP_ACCESS_FLAGS);
}

void kv_cases_attrs(struct kv_ctx *kv)
{
	const struct ib_device_attr *a = &kv->dev->attrs;
	struct ib_qp_cap cap = {
		.max_send_wr = 4,
		.max_recv_wr = 4,
		.max_send_sge = a->max_send_sge,
		.max_recv_sge = a->max_recv_sge,
	};
	struct kv_lone l;
	struct ib_mr *mr;
	int err;

	pr_info("# attributes: cap_flags 0x%llx max_fast_reg_page_list_len %u max_sge_rd %d max_send_sge %d max_recv_sge %d max_qp_rd_atom %d max_qp_init_rd_atom %d max_mw %d atomic_cap %d\n",
		(unsigned long long)a->device_cap_flags,
		a->max_fast_reg_page_list_len, a->max_sge_rd, a->max_send_sge,
		a->max_recv_sge, a->max_qp_rd_atom, a->max_qp_init_rd_atom,
		a->max_mw, a->atomic_cap);

	kv_begin(kv, "attributes: memory management extensions, fast-register page list, max_sge_rd, IRD/ORD limits advertised, no memory windows claimed without max_mw");
	kv_expect(kv, a->device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS,
		  "IB_DEVICE_MEM_MGT_EXTENSIONS not set");
	kv_expect(kv, a->max_fast_reg_page_list_len > 0,
		  "max_fast_reg_page_list_len is 0");
	kv_expect(kv, a->max_sge_rd >= 1, "max_sge_rd is %d", a->max_sge_rd);
	kv_expect(kv, a->max_qp_rd_atom > 0 && a->max_qp_init_rd_atom > 0,
		  "max_qp_rd_atom %d, max_qp_init_rd_atom %d",
		  a->max_qp_rd_atom, a->max_qp_init_rd_atom);
	kv_expect(kv, a->max_send_sge >= 1 && a->max_send_sge < KV_SGE_MAX &&
		  a->max_recv_sge >= 1 && a->max_recv_sge < KV_SGE_MAX,
		  "max_send_sge %d, max_recv_sge %d", a->max_send_sge,
		  a->max_recv_sge);
	kv_expect(kv, a->max_mw || !(a->device_cap_flags &
				     (IB_DEVICE_MEM_WINDOW |
				      IB_DEVICE_MEM_WINDOW_TYPE_2A |
				      IB_DEVICE_MEM_WINDOW_TYPE_2B)),
		  "memory windows claimed with max_mw 0");
	kv_end(kv);

	kv_begin(kv, "attributes: a fast-register MR of max_fast_reg_page_list_len (%u) pages allocates, one page more and IB_MR_TYPE_SG_GAPS are refused",
		 a->max_fast_reg_page_list_len);
	mr = ib_alloc_mr(kv->pd, IB_MR_TYPE_MEM_REG,
			 a->max_fast_reg_page_list_len);
	if (kv_expect(kv, !IS_ERR(mr), "ib_alloc_mr(%u pages): %ld",
		      a->max_fast_reg_page_list_len, PTR_ERR(mr)))
		ib_dereg_mr(mr);
	mr = ib_alloc_mr(kv->pd, IB_MR_TYPE_MEM_REG,
			 a->max_fast_reg_page_list_len + 1);
	if (!kv_expect(kv, IS_ERR(mr), "ib_alloc_mr(%u pages) succeeded",
		       a->max_fast_reg_page_list_len + 1))
		ib_dereg_mr(mr);
	if (!(a->kernel_cap_flags & IBK_SG_GAPS_REG)) {
		mr = ib_alloc_mr(kv->pd, IB_MR_TYPE_SG_GAPS, 4);
		if (!kv_expect(kv, IS_ERR(mr),
			       "IB_MR_TYPE_SG_GAPS allocated, not advertised"))
			ib_dereg_mr(mr);
	}
	kv_end(kv);

	kv_begin(kv, "attributes: a QP with max_send_sge and max_recv_sge creates, one SGE more is refused");
	err = kv_lone_create(kv, &l, &cap);
	if (kv_expect(kv, !err, "QP with %d/%d SGEs: %d", cap.max_send_sge,
		      cap.max_recv_sge, err)) {
		kv_expect(kv, l.cap.max_send_sge >= a->max_send_sge &&
			  l.cap.max_recv_sge >= a->max_recv_sge,
			  "the QP got %u/%u SGEs", l.cap.max_send_sge,
			  l.cap.max_recv_sge);
		kv_lone_destroy(&l);
	}
	cap.max_send_sge++;
	err = kv_lone_create(kv, &l, &cap);
	if (!kv_expect(kv, err, "QP with max_send_sge + 1 created"))
		kv_lone_destroy(&l);
	cap.max_send_sge--;
	cap.max_recv_sge++;
	err = kv_lone_create(kv, &l, &cap);
	if (!kv_expect(kv, err, "QP with max_recv_sge + 1 created"))
		kv_lone_destroy(&l);
	kv_end(kv);
}

/*
 * Send/Receive with two SGEs on each side, an RDMA Write and an RDMA Read
 * through the PD's DMA lkey and its global rkey, on CQs of one polling
 * context; the completions arrive through the done callbacks (polled here
 * for IB_POLL_DIRECT).
 */
void kv_case_cq_ctx(struct kv_ctx *kv, enum ib_poll_context ctx)
{
	const u32 send_len = 3000, rdma_len = 5000, rdma_off = 100;
	struct kv_buf sbuf = {}, rbuf = {}, wsrc = {}, wdst = {}, rsink = {};
	const struct ib_recv_wr *rbad = NULL;
	const struct ib_send_wr *sbad = NULL;
	struct ib_sge ssge[2], rsge[2];
	struct kv_wr *sw, *rw, *ww, *dw;
	struct ib_recv_wr rwr = {};
	struct ib_send_wr swr = {};
	struct kv_pair *p;
	u32 lkey;
	long at;
	int err;

	kv_begin(kv, "CQ %s: Send/Recv of 2 SGEs with pd->local_dma_lkey, RDMA Write and Read with the PD's global rkey, each completion once through its done callback",
		 kv_poll_name(ctx));
	p = kv_pair_connect(kv, ctx, NULL);
	if (!kv_expect(kv, !IS_ERR(p), "connecting: %ld", PTR_ERR(p)))
		goto out;
	lkey = kv->pd->local_dma_lkey;
	err = kv_buf_alloc(kv, &sbuf, send_len) ?:
	      kv_buf_alloc(kv, &rbuf, 4096) ?:
	      kv_buf_alloc(kv, &wsrc, rdma_len) ?:
	      kv_buf_alloc(kv, &wdst, 8192) ?:
	      kv_buf_alloc(kv, &rsink, rdma_len);
	if (!kv_expect(kv, !err, "buffers: %d", err))
		goto out_free;

	/* Send/Receive, 2 SGEs each, cut in different places. */
	kv_fill(sbuf.va, send_len, 1);
	rw = kv_wr_get(p, &p->srv);
	rsge[0] = (struct ib_sge){ .addr = rbuf.dma, .length = 1000,
				   .lkey = lkey };
	rsge[1] = (struct ib_sge){ .addr = rbuf.dma + 1000, .length = 3096,
				   .lkey = lkey };
	rwr.wr_cqe = &rw->cqe;
	rwr.sg_list = rsge;
	rwr.num_sge = 2;
	err = ib_post_recv(kv_qp(&p->srv), &rwr, &rbad);
	if (!kv_expect(kv, !err, "server: ib_post_recv: %d", err))
		goto out_free;
	sw = kv_wr_get(p, &p->cli);
	ssge[0] = (struct ib_sge){ .addr = sbuf.dma, .length = 1500,
				   .lkey = lkey };
	ssge[1] = (struct ib_sge){ .addr = sbuf.dma + 1500, .length = 1500,
				   .lkey = lkey };
	swr.wr_cqe = &sw->cqe;
	swr.sg_list = ssge;
	swr.num_sge = 2;
	swr.opcode = IB_WR_SEND;
	swr.send_flags = IB_SEND_SIGNALED;
	err = ib_post_send(kv_qp(&p->cli), &swr, &sbad);
	if (!kv_expect(kv, !err, "client: ib_post_send: %d", err))
		goto out_free;
	if (!kv_expect_wc(kv, sw, IB_WC_SUCCESS, IB_WC_SEND, "client Send") ||
	    !kv_expect_wc(kv, rw, IB_WC_SUCCESS, IB_WC_RECV, "server Recv"))
		goto out_free;
	kv_expect(kv, rw->wc.byte_len == send_len,
		  "Recv byte_len %u, expected %u", rw->wc.byte_len, send_len);
	kv_expect(kv, !(rw->wc.wc_flags & (IB_WC_WITH_INVALIDATE |
					    IB_WC_WITH_IMM)),
		  "Recv wc_flags 0x%x on a plain Send", rw->wc.wc_flags);
	at = kv_pattern_diff(rbuf.va, send_len, 1);
	kv_expect(kv, at < 0, "received data differs at byte %ld", at);
	at = kv_const_diff(rbuf.va + send_len, rbuf.len - send_len, 0);
	kv_expect(kv, at < 0, "receive buffer written past the message, at %ld",
		  send_len + at);

	/* RDMA Write to the server's buffer at an offset, then Read it. */
	kv_fill(wsrc.va, rdma_len, 2);
	ww = kv_post_rdma(p, &p->cli, IB_WR_RDMA_WRITE, wsrc.dma, lkey,
			  rdma_len, wdst.dma + rdma_off,
			  kv->pd->unsafe_global_rkey, 0);
	if (!kv_expect_wc(kv, ww, IB_WC_SUCCESS, IB_WC_RDMA_WRITE,
			  "client RDMA Write"))
		goto out_free;
	dw = kv_post_rdma(p, &p->cli, IB_WR_RDMA_READ, rsink.dma, lkey,
			  rdma_len, wdst.dma + rdma_off,
			  kv->pd->unsafe_global_rkey, 0);
	if (!kv_expect_wc(kv, dw, IB_WC_SUCCESS, IB_WC_RDMA_READ,
			  "client RDMA Read"))
		goto out_free;
	kv_expect(kv, dw->wc.byte_len == rdma_len,
		  "Read byte_len %u, expected %u", dw->wc.byte_len, rdma_len);
	/* The Read's response follows the Write: it is placed by now. */
	at = kv_pattern_diff(wdst.va + rdma_off, rdma_len, 2);
	kv_expect(kv, at < 0, "written data differs at byte %ld", at);
	at = kv_const_diff(wdst.va, rdma_off, 0);
	kv_expect(kv, at < 0, "Write landed before its address, at %ld", at);
	at = kv_const_diff(wdst.va + rdma_off + rdma_len,
			   wdst.len - rdma_off - rdma_len, 0);
	kv_expect(kv, at < 0, "Write landed past its end, at +%ld", at);
	at = kv_pattern_diff(rsink.va, rdma_len, 2);
	kv_expect(kv, at < 0, "read data differs at byte %ld", at);
	kv_expect(kv, atomic_read(&p->cli.completions) == 3 &&
		  atomic_read(&p->srv.completions) == 1,
		  "completions: client %d (expected 3), server %d (expected 1)",
		  atomic_read(&p->cli.completions),
		  atomic_read(&p->srv.completions));
out_free:
	kv_buf_free(kv, &sbuf);
	kv_buf_free(kv, &rbuf);
	kv_buf_free(kv, &wsrc);
	kv_buf_free(kv, &wdst);
	kv_buf_free(kv, &rsink);
	kv_pair_destroy(p);
out:
	kv_end(kv);
}

/* Immediate errors on a QP without a connection. */
static void kv_cases_post_lone(struct kv_ctx *kv)
{
	const struct ib_qp_cap cap = {
		.max_send_wr = 4,
		.max_recv_wr = 4,
		.max_send_sge = 1,
		.max_recv_sge = 1,
		.max_inline_data = 0,
	};
	struct ib_send_wr swr[KV_LONE_WR] = {};
	struct ib_recv_wr rwr[KV_LONE_WR] = {};
	const struct ib_send_wr *sbad;
	const struct ib_recv_wr *rbad;
	struct kv_buf buf = {};
	struct ib_sge sge;
	struct kv_lone l;
	unsigned int i, n;
	int err;

	err = kv_buf_alloc(kv, &buf, 4096);
	if (err) {
		kv_begin(kv, "post errors: buffer");
		kv_expect(kv, false, "kv_buf_alloc: %d", err);
		kv_end(kv);
		return;
	}
	sge = (struct ib_sge){ .addr = buf.dma, .length = 64,
			       .lkey = kv->pd->local_dma_lkey };
	for (i = 0; i < KV_LONE_WR; i++) {
		swr[i].wr_cqe = &kv_lone_cqe;
		swr[i].sg_list = &sge;
		swr[i].num_sge = 1;
		swr[i].opcode = IB_WR_SEND;
		swr[i].send_flags = IB_SEND_SIGNALED;
		rwr[i].wr_cqe = &kv_lone_cqe;
		rwr[i].sg_list = &sge;
		rwr[i].num_sge = 1;
	}

	kv_begin(kv, "a new QP is in INIT (iWARP's Idle); moved to RESET, post_send and post_recv fail at once, bad_wr at the work request");
	err = kv_lone_create(kv, &l, &cap);
	if (!kv_expect(kv, !err, "creating the QP: %d", err))
		goto out_reset;
	err = kv_lone_state(&l);
	kv_expect(kv, err == IB_QPS_INIT,
		  "query_qp after creation: state %d, expected INIT (%d)",
		  err, IB_QPS_INIT);
	err = kv_lone_reset(&l);
	err = err ?: kv_lone_state(&l);
	if (!kv_expect(kv, err == IB_QPS_RESET,
		       "INIT -> RESET, then query_qp: %d, expected RESET (%d)",
		       err, IB_QPS_RESET))
		goto out_reset_qp;
	sbad = NULL;
	err = ib_post_send(l.qp, &swr[0], &sbad);
	kv_expect(kv, err < 0 && sbad == &swr[0],
		  "post_send in RESET returned %d, bad_wr %s", err,
		  sbad == &swr[0] ? "set" : "not set");
	rbad = NULL;
	err = ib_post_recv(l.qp, &rwr[0], &rbad);
	kv_expect(kv, err < 0 && rbad == &rwr[0],
		  "post_recv in RESET returned %d, bad_wr %s", err,
		  rbad == &rwr[0] ? "set" : "not set");
out_reset_qp:
	kv_lone_destroy(&l);
out_reset:
	kv_end(kv);

	kv_begin(kv, "post_send: an unknown opcode and inline data over max_inline_data fail -EINVAL, an atomic on a QP that is not connected to a siw peer -EOPNOTSUPP, with bad_wr at them; the WR before runs");
	err = kv_lone_create(kv, &l, &cap);
	if (!kv_expect(kv, !err, "creating the QP: %d", err))
		goto out_opcode;
	err = kv_lone_init(&l);
	if (!kv_expect(kv, !err, "-> INIT: %d", err))
		goto out_opcode_qp;
	swr[0].next = &swr[1];
	swr[1].opcode = 0x7e;	/* no such work request */
	swr[1].next = &swr[2];
	sbad = NULL;
	err = ib_post_send(l.qp, &swr[0], &sbad);
	kv_expect(kv, err == -EINVAL && sbad == &swr[1],
		  "opcode 0x7e: post_send returned %d, bad_wr at %ld", err,
		  sbad ? (long)(sbad - swr) : -1L);
	swr[0].next = NULL;
	swr[1].next = NULL;
	swr[1].opcode = IB_WR_SEND;
	{
		struct ib_atomic_wr awr = {
			.wr = {
				.wr_cqe = &kv_lone_cqe,
				.sg_list = &sge,
				.num_sge = 1,
				.opcode = IB_WR_ATOMIC_CMP_AND_SWP,
			},
			.remote_addr = buf.dma,
			.rkey = kv->pd->unsafe_global_rkey,
		};

		sbad = NULL;
		err = ib_post_send(l.qp, &awr.wr, &sbad);
		kv_expect(kv, err == -EOPNOTSUPP && sbad == &awr.wr,
			  "compare and swap: post_send returned %d", err);
	}
	swr[2].send_flags = IB_SEND_SIGNALED | IB_SEND_INLINE;
	sge.length = l.cap.max_inline_data + 1;
	sbad = NULL;
	err = ib_post_send(l.qp, &swr[2], &sbad);
	kv_expect(kv, err == -EINVAL && sbad == &swr[2],
		  "inline of max_inline_data (%u) + 1 bytes: post_send returned %d",
		  l.cap.max_inline_data, err);
	swr[2].send_flags = IB_SEND_SIGNALED;
	sge.length = 64;
out_opcode_qp:
	kv_lone_destroy(&l);
out_opcode:
	kv_end(kv);

	kv_begin(kv, "post_send/post_recv: queue overflow fails -ENOMEM at the first work request that does not fit");
	err = kv_lone_create(kv, &l, &cap);
	if (!kv_expect(kv, !err, "creating the QP: %d", err))
		goto out_overflow;
	err = kv_lone_init(&l);
	if (!kv_expect(kv, !err, "-> INIT: %d", err))
		goto out_overflow_qp;
	/* Without a connection nothing leaves the send queue. */
	n = min_t(u32, l.cap.max_send_wr, KV_LONE_WR - 1);
	if (!kv_expect(kv, n == l.cap.max_send_wr,
		       "max_send_wr %u too large for the test",
		       l.cap.max_send_wr))
		goto out_overflow_qp;
	for (i = 0; i < n; i++)
		swr[i].next = &swr[i + 1];
	sbad = NULL;
	err = ib_post_send(l.qp, &swr[0], &sbad);
	kv_expect(kv, err == -ENOMEM && sbad == &swr[n],
		  "%u + 1 sends into a send queue of %u: returned %d, bad_wr at %ld",
		  n, n, err, sbad ? (long)(sbad - swr) : -1L);
	for (i = 0; i < n; i++)
		swr[i].next = NULL;
	sbad = NULL;
	err = ib_post_send(l.qp, &swr[0], &sbad);
	kv_expect(kv, err == -ENOMEM && sbad == &swr[0],
		  "one more send into the full queue: returned %d", err);
	n = min_t(u32, l.cap.max_recv_wr, KV_LONE_WR - 1);
	if (!kv_expect(kv, n == l.cap.max_recv_wr,
		       "max_recv_wr %u too large for the test",
		       l.cap.max_recv_wr))
		goto out_overflow_qp;
	for (i = 0; i < n; i++)
		rwr[i].next = &rwr[i + 1];
	rbad = NULL;
	err = ib_post_recv(l.qp, &rwr[0], &rbad);
	kv_expect(kv, err == -ENOMEM && rbad == &rwr[n],
		  "%u + 1 receives into a receive queue of %u: returned %d, bad_wr at %ld",
		  n, n, err, rbad ? (long)(rbad - rwr) : -1L);
	for (i = 0; i < n; i++)
		rwr[i].next = NULL;
out_overflow_qp:
	kv_lone_destroy(&l);
out_overflow:
	kv_end(kv);
	kv_buf_free(kv, &buf);
}

/*
 * Too many SGEs: the work request is refused with -EINVAL and bad_wr at
 * it; the one before it runs, the one after it is never posted.
 */
static void kv_cases_post_sges(struct kv_ctx *kv)
{
	struct ib_sge sge[KV_SGE_MAX];
	struct ib_send_wr *sbad_wr;
	struct ib_recv_wr *rbad_wr;
	const struct ib_send_wr *sbad;
	const struct ib_recv_wr *rbad;
	struct ib_rdma_wr wr[3] = {};
	struct ib_recv_wr rwr[3] = {};
	struct ib_qp_init_attr init;
	struct ib_qp_attr qattr;
	struct kv_wr *w[3], *rd, *snd;
	struct kv_buf src = {}, dst = {}, sink = {}, rbuf = {};
	struct ib_sge one;
	struct kv_pair *p;
	u32 lkey, rkey, max_send, max_recv, rd_max;
	unsigned int i;
	long at;
	int err;

	kv_begin(kv, "post_send: a work request with max_send_sge + 1 SGEs fails -EINVAL with bad_wr at it; the one before runs, the one after is not posted");
	p = kv_pair_connect(kv, IB_POLL_WORKQUEUE, NULL);
	if (!kv_expect(kv, !IS_ERR(p), "connecting: %ld", PTR_ERR(p))) {
		kv_end(kv);
		kv_begin(kv, "post_send: RDMA Read with max_sge_rd + 1 SGEs fails -EINVAL with bad_wr at it");
		kv_expect(kv, false, "no connection");
		kv_end(kv);
		kv_begin(kv, "post_recv: a work request with max_recv_sge + 1 SGEs fails -EINVAL with bad_wr at it; nothing after it is posted");
		kv_expect(kv, false, "no connection");
		kv_end(kv);
		return;
	}
	lkey = kv->pd->local_dma_lkey;
	rkey = kv->pd->unsafe_global_rkey;
	err = ib_query_qp(kv_qp(&p->cli), &qattr, 0, &init);
	max_send = init.cap.max_send_sge;
	err = err ?: ib_query_qp(kv_qp(&p->srv), &qattr, 0, &init);
	max_recv = init.cap.max_recv_sge;
	err = err ?: kv_buf_alloc(kv, &src, 4096) ?:
	      kv_buf_alloc(kv, &dst, 4096) ?:
	      kv_buf_alloc(kv, &sink, 4096) ?:
	      kv_buf_alloc(kv, &rbuf, 4096);
	if (!kv_expect(kv, !err, "query_qp and buffers: %d", err) ||
	    !kv_expect(kv, max_send < KV_SGE_MAX && max_recv < KV_SGE_MAX,
		       "QP SGE limits %u/%u too large for the test", max_send,
		       max_recv))
		goto out_sges;
	kv_fill(src.va, 4096, 3);
	for (i = 0; i < KV_SGE_MAX; i++)
		sge[i] = (struct ib_sge){ .addr = src.dma + i * 8, .length = 8,
					  .lkey = lkey };
	for (i = 0; i < 3; i++) {
		w[i] = kv_wr_get(p, &p->cli);
		wr[i].wr.wr_cqe = &w[i]->cqe;
		wr[i].wr.opcode = IB_WR_RDMA_WRITE;
		wr[i].wr.send_flags = IB_SEND_SIGNALED;
		wr[i].wr.sg_list = &sge[0];
		wr[i].wr.num_sge = 1;
		wr[i].remote_addr = dst.dma + i * 1024;
		wr[i].rkey = rkey;
		if (i < 2)
			wr[i].wr.next = &wr[i + 1].wr;
	}
	wr[1].wr.num_sge = max_send + 1;
	sbad = NULL;
	err = ib_post_send(kv_qp(&p->cli), &wr[0].wr, &sbad);
	sbad_wr = &wr[1].wr;
	kv_expect(kv, err == -EINVAL && sbad == sbad_wr,
		  "returned %d, bad_wr %s", err,
		  sbad == sbad_wr ? "at it" : "elsewhere");
	if (!kv_expect_wc(kv, w[0], IB_WC_SUCCESS, IB_WC_RDMA_WRITE,
			  "the Write before it"))
		goto out_sges;
	/* A Read behind the Writes: once it is back, they are placed. */
	rd = kv_post_rdma(p, &p->cli, IB_WR_RDMA_READ, sink.dma, lkey, 4096,
			  dst.dma, rkey, 0);
	if (!kv_expect_wc(kv, rd, IB_WC_SUCCESS, IB_WC_RDMA_READ,
			  "a Read behind them"))
		goto out_sges;
	at = kv_pattern_diff(dst.va, 8, 3);
	kv_expect(kv, at < 0, "the first Write's data differs at %ld", at);
	at = kv_const_diff(dst.va + 8, 4096 - 8, 0);
	kv_expect(kv, at < 0, "data of a refused Write landed at %ld", 8 + at);
	kv_expect_quiet(kv, w[1], "the refused Write");
	kv_expect_quiet(kv, w[2], "the Write after the refused one");
	kv_end(kv);

	kv_begin(kv, "post_send: RDMA Read with max_sge_rd + 1 SGEs fails -EINVAL with bad_wr at it");
	rd = kv_wr_get(p, &p->cli);
	wr[0].wr.wr_cqe = &rd->cqe;
	wr[0].wr.next = NULL;
	wr[0].wr.opcode = IB_WR_RDMA_READ;
	wr[0].wr.sg_list = &sge[0];
	wr[0].wr.num_sge = kv->dev->attrs.max_sge_rd + 1;
	wr[0].remote_addr = dst.dma;
	sbad = NULL;
	err = ib_post_send(kv_qp(&p->cli), &wr[0].wr, &sbad);
	sbad_wr = &wr[0].wr;
	kv_expect(kv, err == -EINVAL && sbad == sbad_wr,
		  "%d SGEs: returned %d, bad_wr %s",
		  kv->dev->attrs.max_sge_rd + 1, err,
		  sbad == sbad_wr ? "at it" : "elsewhere");
	kv_expect_quiet(kv, rd, "the refused Read");
	kv_end(kv);

	/*
	 * A Read scattered over 1, 2 and as many SGEs as the QP takes for a
	 * Read (the lower of max_sge_rd and its max_send_sge) of odd sizes
	 * at odd offsets of the sink, with gaps between them: each SGE gets
	 * its piece of the source, the gaps stay untouched.
	 */
	kv_begin(kv, "post_send: RDMA Read into 1, 2 and min(max_sge_rd, max_send_sge) SGEs of odd sizes and offsets; each SGE holds its piece, nothing lands between them");
	rd_max = min_t(u32, kv->dev->attrs.max_sge_rd, max_send);
	kv_expect(kv, kv->dev->attrs.max_sge_rd == kv->dev->attrs.max_send_sge &&
		  rd_max >= 2 && rd_max < KV_SGE_MAX,
		  "max_sge_rd %u, max_send_sge %u, the QP's %u",
		  kv->dev->attrs.max_sge_rd, kv->dev->attrs.max_send_sge,
		  max_send);
	kv_fill(dst.va, 4096, 9);
	for (i = 1; i <= rd_max && i < KV_SGE_MAX;
	     i = i == 2 && rd_max > 2 ? rd_max : i + 1) {
		u32 n = i, k, len = 0, at_sink = 3;
		const struct ib_send_wr *bad = NULL;
		struct ib_rdma_wr rw = {};

		memset(sink.va, 0xee, 4096);
		for (k = 0; k < n; k++) {
			u32 piece = 97 + 211 * k;

			sge[k] = (struct ib_sge){ .addr = sink.dma + at_sink,
						  .length = piece,
						  .lkey = lkey };
			at_sink += piece + 5 + k;	/* a gap after each */
			len += piece;
		}
		rd = kv_wr_get(p, &p->cli);
		rw.wr.wr_cqe = &rd->cqe;
		rw.wr.opcode = IB_WR_RDMA_READ;
		rw.wr.send_flags = IB_SEND_SIGNALED;
		rw.wr.sg_list = &sge[0];
		rw.wr.num_sge = n;
		rw.remote_addr = dst.dma + 13;
		rw.rkey = rkey;
		err = ib_post_send(kv_qp(&p->cli), &rw.wr, &bad);
		if (!kv_expect(kv, !err, "%u SGEs: post_send %d", n, err) ||
		    !kv_expect_wc(kv, rd, IB_WC_SUCCESS, IB_WC_RDMA_READ,
				  "the Read"))
			break;
		kv_expect(kv, rd->wc.byte_len == len,
			  "%u SGEs: byte_len %u, want %u", n, rd->wc.byte_len,
			  len);
		at_sink = 3;
		len = 0;
		for (k = 0; k < n; k++) {
			u32 piece = 97 + 211 * k;
			u8 *got = (u8 *)sink.va + at_sink;
			u8 *want = (u8 *)dst.va + 13 + len;

			kv_expect(kv, !memcmp(got, want, piece),
				  "%u SGEs: SGE %u differs from the source", n,
				  k);
			at = kv_const_diff(got + piece, 5 + k, 0xee);
			kv_expect(kv, at < 0,
				  "%u SGEs: the gap after SGE %u written at %ld",
				  n, k, at);
			at_sink += piece + 5 + k;
			len += piece;
		}
		at = kv_const_diff(sink.va, 3, 0xee);
		kv_expect(kv, at < 0, "%u SGEs: written before the first SGE",
			  n);
	}
	kv_end(kv);

	kv_begin(kv, "post_recv: a work request with max_recv_sge + 1 SGEs fails -EINVAL with bad_wr at it; nothing after it is posted");
	one = (struct ib_sge){ .addr = rbuf.dma, .length = 4096,
			       .lkey = lkey };
	for (i = 0; i < 3; i++) {
		w[i] = kv_wr_get(p, &p->srv);
		rwr[i].wr_cqe = &w[i]->cqe;
		rwr[i].sg_list = &one;
		rwr[i].num_sge = 1;
		if (i < 2)
			rwr[i].next = &rwr[i + 1];
	}
	rwr[1].sg_list = sge;
	rwr[1].num_sge = max_recv + 1;
	rbad = NULL;
	err = ib_post_recv(kv_qp(&p->srv), &rwr[0], &rbad);
	rbad_wr = &rwr[1];
	kv_expect(kv, err == -EINVAL && rbad == rbad_wr,
		  "returned %d, bad_wr %s", err,
		  rbad == rbad_wr ? "at it" : "elsewhere");
	snd = kv_post_send(p, &p->cli, src.dma, lkey, 100, 0);
	if (kv_expect_wc(kv, snd, IB_WC_SUCCESS, IB_WC_SEND, "client Send") &&
	    kv_expect_wc(kv, w[0], IB_WC_SUCCESS, IB_WC_RECV,
			 "the receive before it")) {
		kv_expect(kv, w[0]->wc.byte_len == 100,
			  "byte_len %u, expected 100", w[0]->wc.byte_len);
		/* Flushes whatever is still posted: nothing of ours. */
		ib_drain_rq(kv_qp(&p->srv));
		kv_expect_quiet(kv, w[1], "the refused receive");
		kv_expect_quiet(kv, w[2], "the receive after the refused one");
	}
out_sges:
	kv_end(kv);
	kv_buf_free(kv, &src);
	kv_buf_free(kv, &dst);
	kv_buf_free(kv, &sink);
	kv_buf_free(kv, &rbuf);
	kv_pair_destroy(p);
}

void kv_cases_post_errors(struct kv_ctx *kv)
{
	kv_cases_post_lone(kv);
	kv_cases_post_sges(kv);
}

/* A work request posted to a QP in error completes at once, flushed. */
static void kv_expect_flushed_at_once(struct kv_ctx *kv, struct kv_wr *w,
				      const char *what)
{
	if (!w)
		return;
	kv_expect(kv, kv_wait(w, 2000), "%s: not completed within 2 s", what);
	kv_expect(kv, w->wc.status == IB_WC_WR_FLUSH_ERR,
		  "%s: status %s, expected WR flushed", what, kv_wc_status(w));
}

void kv_cases_drain(struct kv_ctx *kv)
{
	const unsigned int nrecv = 4, nwrite = 8, wlen = 65536;
	struct kv_buf src = {}, dst = {}, rbuf = {};
	struct kv_wr *rw[4], *ww[8], *w;
	struct kv_pair *p = NULL;
	bool flushed = false;
	unsigned int i;
	u32 lkey;
	int err;

	lkey = kv->pd->local_dma_lkey;
	err = kv_buf_alloc(kv, &src, wlen) ?: kv_buf_alloc(kv, &dst, wlen) ?:
	      kv_buf_alloc(kv, &rbuf, 4096);

	kv_begin(kv, "ib_drain_rq with %u receives posted: returns, each receive completes once flushed, a receive posted after completes at once flushed",
		 nrecv);
	if (!kv_expect(kv, !err, "buffers: %d", err))
		goto out_rq;
	p = kv_pair_connect(kv, IB_POLL_SOFTIRQ, NULL);
	if (!kv_expect(kv, !IS_ERR(p), "connecting: %ld", PTR_ERR(p))) {
		p = NULL;
		goto out_rq;
	}
	for (i = 0; i < nrecv; i++) {
		rw[i] = kv_post_recv(p, &p->srv, rbuf.dma, lkey, 4096);
		if (!rw[i])
			goto out_rq;
	}
	ib_drain_rq(kv_qp(&p->srv));
	for (i = 0; i < nrecv; i++) {
		kv_expect(kv, completion_done(&rw[i]->done) &&
			  atomic_read(&rw[i]->times) == 1 &&
			  rw[i]->wc.status == IB_WC_WR_FLUSH_ERR,
			  "receive %u: completed %d times, status %s", i,
			  atomic_read(&rw[i]->times), kv_wc_status(rw[i]));
	}
	kv_expect(kv, kv_qp_state_is(kv_qp(&p->srv), IB_QPS_ERR, 0),
		  "the QP is not in error after ib_drain_rq");
	w = kv_post_recv(p, &p->srv, rbuf.dma, lkey, 4096);
	kv_expect_flushed_at_once(kv, w, "a receive posted after");
out_rq:
	kv_end(kv);
	if (p)
		kv_pair_destroy(p);
	p = NULL;

	kv_begin(kv, "ib_drain_sq with %u RDMA Writes of %u bytes in flight: returns, each completes once, in order, successes before flushes; a Send posted after completes at once flushed",
		 nwrite, wlen);
	if (!kv_expect(kv, !err, "buffers: %d", err))
		goto out_sq;
	p = kv_pair_connect(kv, IB_POLL_WORKQUEUE, NULL);
	if (!kv_expect(kv, !IS_ERR(p), "connecting: %ld", PTR_ERR(p))) {
		p = NULL;
		goto out_sq;
	}
	for (i = 0; i < nrecv; i++) {
		rw[i] = kv_post_recv(p, &p->srv, rbuf.dma, lkey, 4096);
		if (!rw[i])
			goto out_sq;
	}
	for (i = 0; i < nwrite; i++) {
		ww[i] = kv_post_rdma(p, &p->cli, IB_WR_RDMA_WRITE, src.dma,
				     lkey, wlen, dst.dma,
				     kv->pd->unsafe_global_rkey, 0);
		if (!ww[i])
			goto out_sq;
	}
	ib_drain_sq(kv_qp(&p->cli));
	for (i = 0; i < nwrite; i++) {
		struct kv_wr *x = ww[i];

		if (!kv_expect(kv, completion_done(&x->done) &&
			       atomic_read(&x->times) == 1,
			       "Write %u: completed %d times", i,
			       atomic_read(&x->times)))
			continue;
		kv_expect(kv, x->seq == i + 1,
			  "Write %u completed as number %d", i, x->seq);
		if (x->wc.status == IB_WC_WR_FLUSH_ERR)
			flushed = true;
		else
			kv_expect(kv, x->wc.status == IB_WC_SUCCESS && !flushed,
				  "Write %u: status %s%s", i, kv_wc_status(x),
				  flushed ? " after a flushed one" : "");
	}
	w = kv_post_send(p, &p->cli, src.dma, lkey, 64, 0);
	kv_expect_flushed_at_once(kv, w, "a Send posted after");
out_sq:
	kv_end(kv);

	kv_begin(kv, "ib_drain_qp with %u receives posted: returns, each receive completes once flushed; a Send and a receive posted after complete at once flushed",
		 nrecv);
	if (!kv_expect(kv, p, "no connection"))
		goto out_qp;
	ib_drain_qp(kv_qp(&p->srv));
	for (i = 0; i < nrecv; i++) {
		kv_expect(kv, completion_done(&rw[i]->done) &&
			  atomic_read(&rw[i]->times) == 1 &&
			  rw[i]->wc.status == IB_WC_WR_FLUSH_ERR,
			  "receive %u: completed %d times, status %s", i,
			  atomic_read(&rw[i]->times), kv_wc_status(rw[i]));
	}
	w = kv_post_send(p, &p->srv, src.dma, lkey, 64, 0);
	kv_expect_flushed_at_once(kv, w, "a Send posted after");
	w = kv_post_recv(p, &p->srv, rbuf.dma, lkey, 4096);
	kv_expect_flushed_at_once(kv, w, "a receive posted after");
out_qp:
	kv_end(kv);
	if (p)
		kv_pair_destroy(p);
	kv_buf_free(kv, &src);
	kv_buf_free(kv, &dst);
	kv_buf_free(kv, &rbuf);
}

/*
 * IRD/ORD: a connection asking for the device's limits gets them, and that
 * many Reads may be outstanding at once; one asking for more connects
 * with no more than the limits.
 */
void kv_cases_rd_atom(struct kv_ctx *kv)
{
	const struct ib_device_attr *a = &kv->dev->attrs;
	struct kv_pair_opts o = {};
	struct kv_buf src = {}, sink = {};
	struct ib_qp_init_attr init;
	struct ib_qp_attr qa, sa;
	struct kv_wr **w = NULL;
	const u32 len = 32;
	struct kv_pair *p;
	unsigned int i, n;
	long at;
	int err;

	o.initiator_depth = min(a->max_qp_init_rd_atom, 255);
	o.responder_resources = min(a->max_qp_rd_atom, 255);
	n = min_t(unsigned int, o.initiator_depth, KV_MAX_WR);
	o.send_wr = n;
	kv_begin(kv, "IRD/ORD: connecting with max_qp_init_rd_atom (%d) and max_qp_rd_atom (%d) gets them; that many RDMA Reads at once all complete with their data",
		 a->max_qp_init_rd_atom, a->max_qp_rd_atom);
	p = kv_pair_connect(kv, IB_POLL_WORKQUEUE, &o);
	if (!kv_expect(kv, !IS_ERR(p), "connecting: %ld", PTR_ERR(p)))
		goto out_max;
	err = ib_query_qp(kv_qp(&p->cli), &qa,
			  IB_QP_MAX_QP_RD_ATOMIC | IB_QP_MAX_DEST_RD_ATOMIC,
			  &init) ?:
	      ib_query_qp(kv_qp(&p->srv), &sa,
			  IB_QP_MAX_QP_RD_ATOMIC | IB_QP_MAX_DEST_RD_ATOMIC,
			  &init);
	if (!kv_expect(kv, !err, "ib_query_qp: %d", err))
		goto out_max_pair;
	pr_info("# client ORD %u IRD %u, server ORD %u IRD %u\n",
		qa.max_rd_atomic, qa.max_dest_rd_atomic, sa.max_rd_atomic,
		sa.max_dest_rd_atomic);
	kv_expect(kv, qa.max_rd_atomic == o.initiator_depth &&
		  sa.max_dest_rd_atomic == o.responder_resources,
		  "client ORD %u (asked %u), server IRD %u (asked %u)",
		  qa.max_rd_atomic, o.initiator_depth, sa.max_dest_rd_atomic,
		  o.responder_resources);
	w = kcalloc(n, sizeof(*w), GFP_KERNEL);
	err = w ? 0 : -ENOMEM;
	err = err ?: kv_buf_alloc(kv, &src, n * len) ?:
	      kv_buf_alloc(kv, &sink, n * len);
	if (!kv_expect(kv, !err, "buffers: %d", err))
		goto out_max_free;
	kv_fill(src.va, n * len, 7);
	for (i = 0; i < n; i++) {
		w[i] = kv_post_rdma(p, &p->cli, IB_WR_RDMA_READ,
				    sink.dma + i * len,
				    kv->pd->local_dma_lkey, len,
				    src.dma + i * len,
				    kv->pd->unsafe_global_rkey, 0);
		if (!w[i])
			goto out_max_free;
	}
	for (i = 0; i < n; i++) {
		if (!kv_expect_wc(kv, w[i], IB_WC_SUCCESS, IB_WC_RDMA_READ,
				  "a Read"))
			break;
		if (!kv_expect(kv, w[i]->seq == i + 1,
			       "Read %u completed as number %d", i, w[i]->seq))
			break;
	}
	at = kv_pattern_diff(sink.va, n * len, 7);
	kv_expect(kv, at < 0, "read data differs at byte %ld", at);
out_max_free:
	kfree(w);
	kv_buf_free(kv, &src);
	kv_buf_free(kv, &sink);
out_max_pair:
	kv_pair_destroy(p);
out_max:
	kv_end(kv);

	kv_begin(kv, "IRD/ORD: connecting with 255 and 255 (above the limits) connects with no more than max_qp_init_rd_atom and max_qp_rd_atom");
	o = (struct kv_pair_opts){ .initiator_depth = 255,
				   .responder_resources = 255 };
	p = kv_pair_connect(kv, IB_POLL_WORKQUEUE, &o);
	if (!kv_expect(kv, !IS_ERR(p), "connecting: %ld", PTR_ERR(p)))
		goto out_over;
	err = ib_query_qp(kv_qp(&p->cli), &qa,
			  IB_QP_MAX_QP_RD_ATOMIC | IB_QP_MAX_DEST_RD_ATOMIC,
			  &init) ?:
	      ib_query_qp(kv_qp(&p->srv), &sa,
			  IB_QP_MAX_QP_RD_ATOMIC | IB_QP_MAX_DEST_RD_ATOMIC,
			  &init);
	if (kv_expect(kv, !err, "ib_query_qp: %d", err)) {
		kv_expect(kv, qa.max_rd_atomic >= 1 &&
			  qa.max_rd_atomic <= a->max_qp_init_rd_atom &&
			  sa.max_rd_atomic >= 1 &&
			  sa.max_rd_atomic <= a->max_qp_init_rd_atom,
			  "ORD client %u server %u, limit %d",
			  qa.max_rd_atomic, sa.max_rd_atomic,
			  a->max_qp_init_rd_atom);
		kv_expect(kv, qa.max_dest_rd_atomic >= 1 &&
			  qa.max_dest_rd_atomic <= a->max_qp_rd_atom &&
			  sa.max_dest_rd_atomic >= 1 &&
			  sa.max_dest_rd_atomic <= a->max_qp_rd_atom,
			  "IRD client %u server %u, limit %d",
			  qa.max_dest_rd_atomic, sa.max_dest_rd_atomic,
			  a->max_qp_rd_atom);
	}
	kv_pair_destroy(p);
out_over:
	kv_end(kv);
}
