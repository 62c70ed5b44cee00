// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * RFC 7306 between two siw QPs (both ends siw, the device's mpa/rfc7306
 * set to 1 by 87-kverbs; 0 is the default): Send and RDMA Write with immediate data, and the atomics
 * fetch-and-add and compare-and-swap, with their completions and the
 * memory they change checked; atomics from two connections at once on one
 * target; an atomic refused by the target's access rights.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "kverbs.h"

#define KV_IMM		0x1234abcdU
#define KV_ATOMIC_OFF	64	/* the target's offset in its MR */
#define KV_ATOMIC_N	16	/* fetch-and-adds in a row */
#define KV_ATOMIC_PAR	64	/* per connection, two at once */

/* Send or RDMA Write with immediate data; NULL when posting failed. */
static struct kv_wr *kv_post_imm(struct kv_pair *p, struct kv_side *s,
				 enum ib_wr_opcode op, u64 laddr, u32 lkey,
				 u32 len, u64 raddr, u32 rkey, u32 imm,
				 int flags)
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
			.send_flags = IB_SEND_SIGNALED | flags,
			.ex.imm_data = cpu_to_be32(imm),
		},
		.remote_addr = raddr,
		.rkey = rkey,
	};
	int err;

	err = ib_post_send(kv_qp(s), &wr.wr, &bad);
	if (!kv_expect(p->kv, !err, "%s: posting %s with immediate failed: %d",
		       s->name, op == IB_WR_SEND_WITH_IMM ? "a Send" :
		       "an RDMA Write", err))
		return NULL;
	return w;
}

/* One atomic, its 8-byte result into laddr; NULL when posting failed. */
static struct kv_wr *kv_post_atomic(struct kv_pair *p, struct kv_side *s,
				    enum ib_wr_opcode op, u64 laddr, u64 raddr,
				    u32 rkey, u64 compare_add, u64 swap)
{
	const struct ib_send_wr *bad = NULL;
	struct kv_wr *w = kv_wr_get(p, s);
	struct ib_sge sge = {
		.addr = laddr, .length = 8,
		.lkey = p->kv->pd->local_dma_lkey,
	};
	struct ib_atomic_wr wr = {
		.wr = {
			.wr_cqe = &w->cqe,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = op,
			.send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = raddr,
		.compare_add = compare_add,
		.swap = swap,
		.rkey = rkey,
	};
	int err;

	err = ib_post_send(kv_qp(s), &wr.wr, &bad);
	if (!kv_expect(p->kv, !err, "%s: posting an atomic failed: %d",
		       s->name, err))
		return NULL;
	return w;
}

/* The receive of an immediate: opcode, flag, value and length. */
static bool kv_expect_imm(struct kv_ctx *kv, struct kv_wr *rw,
			  enum ib_wc_opcode opcode, u32 imm, u32 len,
			  const char *what)
{
	if (!kv_expect_wc(kv, rw, IB_WC_SUCCESS, opcode, what))
		return false;
	return kv_expect(kv, rw->wc.wc_flags & IB_WC_WITH_IMM,
			 "%s: IB_WC_WITH_IMM not set (wc_flags 0x%x)", what,
			 rw->wc.wc_flags) &&
	       kv_expect(kv, be32_to_cpu(rw->wc.ex.imm_data) == imm,
			 "%s: immediate 0x%x, sent 0x%x", what,
			 be32_to_cpu(rw->wc.ex.imm_data), imm) &&
	       kv_expect(kv, rw->wc.byte_len == len,
			 "%s: byte_len %u, expected %u", what,
			 rw->wc.byte_len, len);
}

static void kv_case_send_imm(struct kv_ctx *kv, struct kv_buf *src,
			     struct kv_buf *dst)
{
	u32 lkey = kv->pd->local_dma_lkey;
	struct kv_wr *rw, *sw;
	struct kv_pair *p;
	long at;

	kv_begin(kv, "RFC 7306: Send with immediate (1000 bytes, then 0 bytes with solicited event): IB_WC_SEND at the sender; IB_WC_RECV with IB_WC_WITH_IMM, the immediate and byte_len at the receiver, data intact, one receive each");
	p = kv_pair_connect(kv, IB_POLL_WORKQUEUE, NULL);
	if (!kv_expect(kv, !IS_ERR(p), "connecting: %ld", PTR_ERR(p)))
		goto out;
	kv_fill(src->va, 1000, 0x21);
	memset(dst->va, 0, dst->len);
	rw = kv_post_recv(p, &p->srv, dst->dma, lkey, dst->len);
	sw = kv_post_imm(p, &p->cli, IB_WR_SEND_WITH_IMM, src->dma, lkey,
			 1000, 0, 0, KV_IMM, 0);
	if (!kv_expect_wc(kv, sw, IB_WC_SUCCESS, IB_WC_SEND,
			  "Send with immediate") ||
	    !kv_expect_imm(kv, rw, IB_WC_RECV, KV_IMM, 1000, "its receive"))
		goto out_pair;
	at = kv_pattern_diff(dst->va, 1000, 0x21);
	kv_expect(kv, at < 0, "received data differs at byte %ld", at);
	at = kv_const_diff(dst->va + 1000, dst->len - 1000, 0);
	kv_expect(kv, at < 0, "written past the 1000 bytes (+%ld)", at);

	rw = kv_post_recv(p, &p->srv, dst->dma, lkey, dst->len);
	sw = kv_post_imm(p, &p->cli, IB_WR_SEND_WITH_IMM, src->dma, lkey, 0,
			 0, 0, ~KV_IMM, IB_SEND_SOLICITED);
	if (kv_expect_wc(kv, sw, IB_WC_SUCCESS, IB_WC_SEND,
			 "zero-length Send with immediate"))
		kv_expect_imm(kv, rw, IB_WC_RECV, ~KV_IMM, 0,
			      "its receive");
out_pair:
	kv_pair_destroy(p);
out:
	kv_end(kv);
}

static void kv_case_write_imm(struct kv_ctx *kv, struct kv_buf *src,
			      struct kv_buf *dst, struct kv_buf *rbuf)
{
	u32 lkey = kv->pd->local_dma_lkey;
	u32 rkey = kv->pd->unsafe_global_rkey;
	struct kv_wr *rw, *sw;
	struct kv_pair *p;
	long at;

	kv_begin(kv, "RFC 7306: RDMA Write with immediate (3000 bytes at offset 100, then 0 bytes): the data lands; IB_WC_RDMA_WRITE at the writer; IB_WC_RECV_RDMA_WITH_IMM with the immediate and the Write's length at the target, the receive's buffer untouched");
	p = kv_pair_connect(kv, IB_POLL_WORKQUEUE, NULL);
	if (!kv_expect(kv, !IS_ERR(p), "connecting: %ld", PTR_ERR(p)))
		goto out;
	kv_fill(src->va, 3000, 0x37);
	memset(dst->va, 0, dst->len);
	memset(rbuf->va, 0, rbuf->len);
	rw = kv_post_recv(p, &p->srv, rbuf->dma, lkey, rbuf->len);
	sw = kv_post_imm(p, &p->cli, IB_WR_RDMA_WRITE_WITH_IMM, src->dma,
			 lkey, 3000, dst->dma + 100, rkey, KV_IMM + 1, 0);
	if (!kv_expect_wc(kv, sw, IB_WC_SUCCESS, IB_WC_RDMA_WRITE,
			  "RDMA Write with immediate") ||
	    !kv_expect_imm(kv, rw, IB_WC_RECV_RDMA_WITH_IMM, KV_IMM + 1, 3000,
			   "the target's receive"))
		goto out_pair;
	at = kv_pattern_diff(dst->va + 100, 3000, 0x37);
	kv_expect(kv, at < 0, "written data differs at byte %ld", at);
	at = kv_const_diff(dst->va, 100, 0);
	kv_expect(kv, at < 0, "written before the target (byte %ld)", at);
	at = kv_const_diff(dst->va + 3100, dst->len - 3100, 0);
	kv_expect(kv, at < 0, "written past the target (+%ld)", at);
	at = kv_const_diff(rbuf->va, rbuf->len, 0);
	kv_expect(kv, at < 0, "the receive's buffer was written (byte %ld)",
		  at);

	rw = kv_post_recv(p, &p->srv, rbuf->dma, lkey, rbuf->len);
	sw = kv_post_imm(p, &p->cli, IB_WR_RDMA_WRITE_WITH_IMM, src->dma,
			 lkey, 0, dst->dma, rkey, 7, 0);
	if (kv_expect_wc(kv, sw, IB_WC_SUCCESS, IB_WC_RDMA_WRITE,
			 "zero-length RDMA Write with immediate"))
		kv_expect_imm(kv, rw, IB_WC_RECV_RDMA_WITH_IMM, 7, 0,
			      "its receive");
out_pair:
	kv_pair_destroy(p);
out:
	kv_end(kv);
}

/* The target of the atomics in the server's MR f. */
static u64 *kv_atomic_target(struct kv_frmr *f)
{
	return (u64 *)((u8 *)page_address(f->block[0]) + f->sg[0].offset +
		       KV_ATOMIC_OFF);
}

#define KV_ACCESS_ATOMIC	(IB_ACCESS_LOCAL_WRITE | \
				 IB_ACCESS_REMOTE_ATOMIC | \
				 IB_ACCESS_REMOTE_READ)

static void kv_case_atomics(struct kv_ctx *kv, struct kv_buf *res)
{
	const u64 start = 0x0102030405060708ULL, add = 0x100000001ULL;
	struct kv_wr *w[KV_ATOMIC_N];
	struct kv_frmr f = {};
	u64 *target, *got = (u64 *)res->va;
	struct kv_pair *p;
	u64 raddr;
	int i;

	kv_begin(kv, "RFC 7306: fetch-and-add x16 in a row and compare-and-swap (equal, then not): IB_WC_FETCH_ADD / IB_WC_COMP_SWAP, byte_len 8, each returns the value before it, the target ends as computed");
	p = kv_pair_connect(kv, IB_POLL_WORKQUEUE, NULL);
	if (!kv_expect(kv, !IS_ERR(p), "connecting: %ld", PTR_ERR(p)))
		goto out;
	if (!kv_frmr_create(kv, &f, 1, 0, 0, PAGE_SIZE) ||
	    !kv_frmr_reg(kv, p, &p->srv, &f, KV_ACCESS_ATOMIC, false))
		goto out_pair;
	target = kv_atomic_target(&f);
	WRITE_ONCE(*target, start);
	raddr = f.mr->iova + KV_ATOMIC_OFF;
	memset(res->va, 0xee, res->len);
	for (i = 0; i < KV_ATOMIC_N; i++)
		w[i] = kv_post_atomic(p, &p->cli, IB_WR_ATOMIC_FETCH_AND_ADD,
				      res->dma + 8 * i, raddr, f.mr->rkey,
				      add, 0);
	for (i = 0; i < KV_ATOMIC_N; i++) {
		if (!kv_expect_wc(kv, w[i], IB_WC_SUCCESS, IB_WC_FETCH_ADD,
				  "fetch-and-add"))
			goto out_mr;
		kv_expect(kv, w[i]->wc.byte_len == 8,
			  "fetch-and-add %d: byte_len %u", i,
			  w[i]->wc.byte_len);
		kv_expect(kv, got[i] == start + i * add,
			  "fetch-and-add %d returned 0x%llx, expected 0x%llx",
			  i, got[i], start + i * add);
	}
	kv_expect(kv, READ_ONCE(*target) == start + KV_ATOMIC_N * add,
		  "target after the adds: 0x%llx, expected 0x%llx",
		  READ_ONCE(*target), start + KV_ATOMIC_N * add);

	WRITE_ONCE(*target, start);
	w[0] = kv_post_atomic(p, &p->cli, IB_WR_ATOMIC_CMP_AND_SWP, res->dma,
			      raddr, f.mr->rkey, start, 0xfeedULL);
	if (!kv_expect_wc(kv, w[0], IB_WC_SUCCESS, IB_WC_COMP_SWAP,
			  "compare-and-swap, equal"))
		goto out_mr;
	kv_expect(kv, got[0] == start && READ_ONCE(*target) == 0xfeedULL,
		  "equal compare: returned 0x%llx, target 0x%llx", got[0],
		  READ_ONCE(*target));
	w[0] = kv_post_atomic(p, &p->cli, IB_WR_ATOMIC_CMP_AND_SWP,
			      res->dma + 8, raddr, f.mr->rkey, start, 0xbadULL);
	if (!kv_expect_wc(kv, w[0], IB_WC_SUCCESS, IB_WC_COMP_SWAP,
			  "compare-and-swap, not equal"))
		goto out_mr;
	kv_expect(kv, got[1] == 0xfeedULL && READ_ONCE(*target) == 0xfeedULL,
		  "unequal compare: returned 0x%llx, target 0x%llx", got[1],
		  READ_ONCE(*target));
out_mr:
	/* The QP goes first: nothing may still reach the MR's pages. */
	kv_pair_destroy(p);
	kv_frmr_free(kv, &f);
	kv_end(kv);
	return;
out_pair:
	kv_pair_destroy(p);
	kv_frmr_free(kv, &f);
out:
	kv_end(kv);
}

/*
 * Reads and atomics share the ORD and come back in order: Read, atomic,
 * Read, atomic, Read on one QP, posted at once.
 */
static void kv_case_atomics_reads(struct kv_ctx *kv, struct kv_buf *res,
				  struct kv_buf *dst)
{
	u32 lkey = kv->pd->local_dma_lkey;
	struct kv_frmr f = {};
	struct kv_wr *w[5];
	struct kv_pair *p;
	u64 *target, *got = (u64 *)res->va;
	u8 *page;
	long at;
	int i;

	kv_begin(kv, "RFC 7306: Read, fetch-and-add, Read, compare-and-swap, Read posted at once on one QP: each completes in order, the Reads carry the data, the atomics their values");
	p = kv_pair_connect(kv, IB_POLL_WORKQUEUE, NULL);
	if (!kv_expect(kv, !IS_ERR(p), "connecting: %ld", PTR_ERR(p)))
		goto out;
	if (!kv_frmr_create(kv, &f, 1, 0, 0, PAGE_SIZE) ||
	    !kv_frmr_reg(kv, p, &p->srv, &f, KV_ACCESS_ATOMIC, false))
		goto out_pair;
	page = page_address(f.block[0]);
	kv_fill(page + 1024, 1024, 0x45);
	target = kv_atomic_target(&f);
	WRITE_ONCE(*target, 10);
	memset(dst->va, 0, dst->len);
	memset(res->va, 0, 16);
	w[0] = kv_post_rdma(p, &p->cli, IB_WR_RDMA_READ, dst->dma, lkey, 1024,
			    f.mr->iova + 1024, f.mr->rkey, 0);
	w[1] = kv_post_atomic(p, &p->cli, IB_WR_ATOMIC_FETCH_AND_ADD,
			      res->dma, f.mr->iova + KV_ATOMIC_OFF, f.mr->rkey,
			      5, 0);
	w[2] = kv_post_rdma(p, &p->cli, IB_WR_RDMA_READ, dst->dma + 1024,
			    lkey, 1024, f.mr->iova + 1024, f.mr->rkey, 0);
	w[3] = kv_post_atomic(p, &p->cli, IB_WR_ATOMIC_CMP_AND_SWP,
			      res->dma + 8, f.mr->iova + KV_ATOMIC_OFF,
			      f.mr->rkey, 15, 99);
	w[4] = kv_post_rdma(p, &p->cli, IB_WR_RDMA_READ, dst->dma + 2048,
			    lkey, 1024, f.mr->iova + 1024, f.mr->rkey, 0);
	for (i = 0; i < 5; i++) {
		bool atomic = i == 1 || i == 3;

		if (!kv_expect_wc(kv, w[i], IB_WC_SUCCESS,
				  i == 1 ? IB_WC_FETCH_ADD :
				  i == 3 ? IB_WC_COMP_SWAP : IB_WC_RDMA_READ,
				  atomic ? "atomic" : "Read"))
			goto out_pair;
		kv_expect(kv, w[i]->seq == i + 1,
			  "work request %d completed as #%d", i, w[i]->seq);
	}
	for (i = 0; i < 3; i++) {
		at = kv_pattern_diff(dst->va + 1024 * i, 1024, 0x45);
		kv_expect(kv, at < 0, "Read %d differs at byte %ld", i, at);
	}
	kv_expect(kv, got[0] == 10 && got[1] == 15 && READ_ONCE(*target) == 99,
		  "fetch-and-add returned %llu, compare-and-swap %llu, target %llu (want 10, 15, 99)",
		  got[0], got[1], READ_ONCE(*target));
out_pair:
	kv_pair_destroy(p);
	kv_frmr_free(kv, &f);
out:
	kv_end(kv);
}

static int kv_u64_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static void kv_case_atomics_two(struct kv_ctx *kv, struct kv_buf *res)
{
	struct kv_pair_opts opts = { .send_wr = 2 * KV_ATOMIC_PAR };
	struct kv_pair *p[2] = {};
	struct kv_frmr f = {};
	u64 *got = (u64 *)res->va, *target;
	struct kv_wr **w;
	int i, j, n = 2 * KV_ATOMIC_PAR;

	kv_begin(kv, "RFC 7306: 2 connections x 64 fetch-and-add of 1 on one target at once: the target ends 128 higher and the 128 values returned are each value once");
	w = kcalloc(n, sizeof(*w), GFP_KERNEL);
	if (!kv_expect(kv, w, "no memory"))
		goto out;
	for (i = 0; i < 2; i++) {
		p[i] = kv_pair_connect(kv, IB_POLL_WORKQUEUE, &opts);
		if (!kv_expect(kv, !IS_ERR(p[i]), "connecting: %ld",
			       PTR_ERR(p[i]))) {
			p[i] = NULL;
			goto out_pairs;
		}
	}
	/* Registered through the first connection's QP; same PD for both. */
	if (!kv_frmr_create(kv, &f, 1, 0, 0, PAGE_SIZE) ||
	    !kv_frmr_reg(kv, p[0], &p[0]->srv, &f, KV_ACCESS_ATOMIC, false))
		goto out_pairs;
	target = kv_atomic_target(&f);
	WRITE_ONCE(*target, 1000);
	for (i = 0; i < KV_ATOMIC_PAR; i++)
		for (j = 0; j < 2; j++)
			w[2 * i + j] = kv_post_atomic(p[j], &p[j]->cli,
						      IB_WR_ATOMIC_FETCH_AND_ADD,
						      res->dma + 8 * (2 * i + j),
						      f.mr->iova + KV_ATOMIC_OFF,
						      f.mr->rkey, 1, 0);
	for (i = 0; i < n; i++)
		if (!kv_expect_wc(kv, w[i], IB_WC_SUCCESS, IB_WC_FETCH_ADD,
				  "fetch-and-add"))
			goto out_pairs;
	kv_expect(kv, READ_ONCE(*target) == 1000 + n,
		  "target 0x%llx, expected %d", READ_ONCE(*target), 1000 + n);
	sort(got, n, sizeof(*got), kv_u64_cmp, NULL);
	for (i = 0; i < n; i++)
		if (!kv_expect(kv, got[i] == 1000 + i,
			       "the returned values are not 1000..%d once each (sorted, #%d is %llu)",
			       1000 + n - 1, i, got[i]))
			break;
out_pairs:
	for (i = 0; i < 2; i++)
		if (p[i])
			kv_pair_destroy(p[i]);
	kv_frmr_free(kv, &f);
	kfree(w);
out:
	kv_end(kv);
}

static void kv_case_atomic_refused(struct kv_ctx *kv, struct kv_buf *res)
{
	struct kv_frmr f = {};
	struct kv_pair *p;
	struct kv_wr *w;
	u64 *target;

	kv_begin(kv, "RFC 7306: an atomic on memory without remote atomic access (remote read/write only) completes with IB_WC_REM_ACCESS_ERR, both QPs go to error, the target unchanged; a misaligned target or no result buffer fails at post with -EINVAL");
	p = kv_pair_connect(kv, IB_POLL_WORKQUEUE, NULL);
	if (!kv_expect(kv, !IS_ERR(p), "connecting: %ld", PTR_ERR(p)))
		goto out;
	if (!kv_frmr_create(kv, &f, 1, 0, 0, PAGE_SIZE) ||
	    !kv_frmr_reg(kv, p, &p->srv, &f,
			 IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
			 IB_ACCESS_REMOTE_WRITE, false))
		goto out_pair;
	target = kv_atomic_target(&f);
	WRITE_ONCE(*target, 42);
	{
		const struct ib_send_wr *bad = NULL;
		struct ib_sge sge = {
			.addr = res->dma, .length = 8,
			.lkey = kv->pd->local_dma_lkey,
		};
		struct ib_atomic_wr awr = {
			.wr = {
				.sg_list = &sge, .num_sge = 1,
				.opcode = IB_WR_ATOMIC_FETCH_AND_ADD,
			},
			.remote_addr = f.mr->iova + KV_ATOMIC_OFF + 4,
			.rkey = f.mr->rkey,
			.compare_add = 1,
		};
		int err = ib_post_send(kv_qp(&p->cli), &awr.wr, &bad);

		kv_expect(kv, err == -EINVAL && bad == &awr.wr,
			  "misaligned target: post_send returned %d", err);
		awr.remote_addr -= 4;
		awr.wr.num_sge = 0;
		bad = NULL;
		err = ib_post_send(kv_qp(&p->cli), &awr.wr, &bad);
		kv_expect(kv, err == -EINVAL && bad == &awr.wr,
			  "no result buffer: post_send returned %d", err);
	}
	w = kv_post_atomic(p, &p->cli, IB_WR_ATOMIC_FETCH_AND_ADD, res->dma,
			   f.mr->iova + KV_ATOMIC_OFF, f.mr->rkey, 1, 0);
	kv_expect_wc(kv, w, IB_WC_REM_ACCESS_ERR, IB_WC_FETCH_ADD,
		     "the refused fetch-and-add");
	kv_expect(kv, kv_qp_state_is(kv_qp(&p->cli), IB_QPS_ERR, KV_WAIT_MS),
		  "the requester's QP is not in error");
	kv_expect(kv, kv_qp_state_is(kv_qp(&p->srv), IB_QPS_ERR, KV_WAIT_MS),
		  "the target's QP is not in error");
	kv_expect(kv, READ_ONCE(*target) == 42, "the target changed: %llu",
		  READ_ONCE(*target));
out_pair:
	kv_pair_destroy(p);
	kv_frmr_free(kv, &f);
out:
	kv_end(kv);
}

void kv_cases_rfc7306(struct kv_ctx *kv)
{
	struct kv_buf src = {}, dst = {}, rbuf = {}, res = {};
	int err;

	kv_begin(kv, "RFC 7306: atomic_cap is IB_ATOMIC_HCA (mpa/rfc7306 on)");
	kv_expect(kv, kv->dev->attrs.atomic_cap == IB_ATOMIC_HCA,
		  "atomic_cap %d", kv->dev->attrs.atomic_cap);
	kv_end(kv);

	err = kv_buf_alloc(kv, &src, 8192) ?:
	      kv_buf_alloc(kv, &dst, 8192) ?:
	      kv_buf_alloc(kv, &rbuf, 4096) ?:
	      kv_buf_alloc(kv, &res, 8 * 2 * KV_ATOMIC_PAR);
	if (err) {
		kv_begin(kv, "RFC 7306: buffers");
		kv_expect(kv, false, "buffers: %d", err);
		kv_end(kv);
		goto out;
	}
	kv_case_send_imm(kv, &src, &dst);
	kv_case_write_imm(kv, &src, &dst, &rbuf);
	kv_case_atomics(kv, &res);
	kv_case_atomics_reads(kv, &res, &dst);
	kv_case_atomics_two(kv, &res);
	kv_case_atomic_refused(kv, &res);
out:
	kv_buf_free(kv, &src);
	kv_buf_free(kv, &dst);
	kv_buf_free(kv, &rbuf);
	kv_buf_free(kv, &res);
}

/*
 * The device's mpa/rfc7306 is 0 (87-kverbs sets it, ext_off=1): the
 * connection does not negotiate RFC 7306, and its posts fail at once.
 */
void kv_cases_rfc7306_off(struct kv_ctx *kv)
{
	static const enum ib_wr_opcode ops[] = {
		IB_WR_SEND_WITH_IMM, IB_WR_RDMA_WRITE_WITH_IMM,
		IB_WR_ATOMIC_FETCH_AND_ADD, IB_WR_ATOMIC_CMP_AND_SWP,
	};
	struct kv_buf b = {};
	struct kv_wr *rw, *sw;
	struct kv_pair *p;
	unsigned int i;

	kv_begin(kv, "mpa/rfc7306 0: Send and RDMA Write with immediate, fetch-and-add and compare-and-swap fail at post with -EOPNOTSUPP and bad_wr at them; nothing is sent (no completion, the peer's receive stays posted); a Send afterwards arrives");
	if (!kv_expect(kv, !kv_buf_alloc(kv, &b, 4096), "no memory"))
		goto out;
	p = kv_pair_connect(kv, IB_POLL_WORKQUEUE, NULL);
	if (!kv_expect(kv, !IS_ERR(p), "connecting: %ld", PTR_ERR(p)))
		goto out_buf;
	rw = kv_post_recv(p, &p->srv, b.dma + 2048, kv->pd->local_dma_lkey,
			  2048);
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		const struct ib_send_wr *bad = NULL;
		struct ib_sge sge = {
			.addr = b.dma, .length = 8,
			.lkey = kv->pd->local_dma_lkey,
		};
		struct ib_atomic_wr wr = {
			.wr = {
				.sg_list = &sge, .num_sge = 1,
				.opcode = ops[i],
				.send_flags = IB_SEND_SIGNALED,
			},
			.remote_addr = b.dma,
			.rkey = kv->pd->unsafe_global_rkey,
		};
		int err;

		/* ib_atomic_wr and ib_rdma_wr both begin with the WR. */
		err = ib_post_send(kv_qp(&p->cli), &wr.wr, &bad);
		kv_expect(kv, err == -EOPNOTSUPP && bad == &wr.wr,
			  "opcode %d: post_send returned %d", ops[i], err);
	}
	msleep(KV_QUIET_MS);
	kv_expect(kv, !atomic_read(&p->cli.completions) &&
		  !atomic_read(&p->srv.completions),
		  "completions appeared: %d at the client, %d at the server",
		  atomic_read(&p->cli.completions),
		  atomic_read(&p->srv.completions));
	kv_fill(b.va, 100, 0x61);
	sw = kv_post_send(p, &p->cli, b.dma, kv->pd->local_dma_lkey, 100, 0);
	if (kv_expect_wc(kv, sw, IB_WC_SUCCESS, IB_WC_SEND, "the Send") &&
	    kv_expect_wc(kv, rw, IB_WC_SUCCESS, IB_WC_RECV, "its receive"))
		kv_expect(kv, rw->wc.byte_len == 100 && !rw->wc.wc_flags,
			  "the receive: %u bytes, wc_flags 0x%x",
			  rw->wc.byte_len, rw->wc.wc_flags);
	kv_pair_destroy(p);
out_buf:
	kv_buf_free(kv, &b);
out:
	kv_end(kv);
}
