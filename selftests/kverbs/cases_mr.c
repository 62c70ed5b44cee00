// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * Cases: fast-register MRs (alloc_mr, map_mr_sg, IB_WR_REG_MR) and their
 * invalidation: local, by the peer's Send with Invalidate, and by an RDMA
 * Read with local invalidate. The peer's accesses are checked byte by byte
 * in the MR's pages, guards around them included.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "kverbs.h"

void kv_frmr_free(struct kv_ctx *kv, struct kv_frmr *f)
{
	unsigned int i;

	if (!IS_ERR_OR_NULL(f->mr))
		ib_dereg_mr(f->mr);
	f->mr = NULL;
	if (f->mapped)
		ib_dma_unmap_sg(kv->dev, f->sg, f->nblocks, DMA_BIDIRECTIONAL);
	f->mapped = false;
	for (i = 0; i < f->nblocks; i++)
		if (f->block[i])
			__free_pages(f->block[i], f->order);
	f->nblocks = 0;
}

/*
 * An MR over len bytes in nblocks separate blocks of 2^order pages, the
 * first starting first_off bytes into its block, mapped with map_mr_sg at
 * page size PAGE_SIZE << order. Reports what failed.
 */
bool kv_frmr_create(struct kv_ctx *kv, struct kv_frmr *f,
		    unsigned int nblocks, unsigned int order,
		    size_t first_off, size_t len)
{
	const size_t blk = PAGE_SIZE << order;
	size_t left = len, off = first_off;
	unsigned int i;
	int n;

	memset(f, 0, sizeof(*f));
	f->order = order;
	f->len = len;
	sg_init_table(f->sg, nblocks);
	for (i = 0; i < nblocks; i++) {
		size_t piece = min(left, blk - off);

		f->block[i] = alloc_pages(GFP_KERNEL | __GFP_ZERO, order);
		if (!kv_expect(kv, f->block[i], "no memory for block %u", i))
			goto err;
		f->nblocks = i + 1;
		sg_set_page(&f->sg[i], f->block[i], piece, off);
		left -= piece;
		off = 0;
	}
	if (!kv_expect(kv, !left, "%zu bytes do not fit the blocks", len))
		goto err;
	n = ib_dma_map_sg(kv->dev, f->sg, nblocks, DMA_BIDIRECTIONAL);
	if (!kv_expect(kv, n == nblocks, "ib_dma_map_sg: %d", n))
		goto err;
	f->mapped = true;
	f->mr = ib_alloc_mr(kv->pd, IB_MR_TYPE_MEM_REG, nblocks);
	if (!kv_expect(kv, !IS_ERR(f->mr), "ib_alloc_mr: %ld",
		       PTR_ERR(f->mr)))
		goto err;
	n = ib_map_mr_sg(f->mr, f->sg, nblocks, NULL, blk);
	if (!kv_expect(kv, n == nblocks, "ib_map_mr_sg: %d of %u", n,
		       nblocks))
		goto err;
	kv_expect(kv, f->mr->iova == sg_dma_address(&f->sg[0]) &&
		  f->mr->length == len && f->mr->page_size == blk,
		  "after ib_map_mr_sg: iova %s, length %llu, page size %u",
		  f->mr->iova == sg_dma_address(&f->sg[0]) ? "right" : "wrong",
		  f->mr->length, f->mr->page_size);
	return true;

err:
	kv_frmr_free(kv, f);
	return false;
}

/* Copies n bytes between the MR's region at off and buf (to: into it). */
static void kv_frmr_copy(struct kv_frmr *f, size_t off, void *buf, size_t n,
			 bool to)
{
	u8 *p = buf;
	unsigned int i;

	for (i = 0; i < f->nblocks && n; i++) {
		size_t piece;
		u8 *at;

		if (off >= f->sg[i].length) {
			off -= f->sg[i].length;
			continue;
		}
		piece = min_t(size_t, n, f->sg[i].length - off);
		at = (u8 *)page_address(f->block[i]) + f->sg[i].offset + off;
		if (to)
			memcpy(at, p, piece);
		else
			memcpy(p, at, piece);
		p += piece;
		n -= piece;
		off = 0;
	}
}

/*
 * Checks [off, off + n) of the region against the pattern of seed, and
 * that the blocks' bytes outside the region are still zero.
 */
static bool kv_frmr_expect(struct kv_ctx *kv, struct kv_frmr *f, size_t off,
			   size_t n, u8 seed, const char *what)
{
	const size_t blk = PAGE_SIZE << f->order;
	struct scatterlist *last = &f->sg[f->nblocks - 1];
	u8 *copy = kmalloc(n, GFP_KERNEL);
	u8 *b0 = page_address(f->block[0]);
	u8 *bl = page_address(f->block[f->nblocks - 1]);
	size_t tail = last->offset + last->length;
	bool ok;
	long at;

	if (!kv_expect(kv, copy, "no memory"))
		return false;
	kv_frmr_copy(f, off, copy, n, false);
	at = kv_pattern_diff(copy, n, seed);
	kfree(copy);
	ok = kv_expect(kv, at < 0, "%s: region byte %zu differs", what,
		       off + at);
	at = kv_const_diff(b0, f->sg[0].offset, 0);
	ok &= kv_expect(kv, at < 0,
			"%s: written before the region (block byte %ld of %u)",
			what, at, f->sg[0].offset);
	at = kv_const_diff(bl + tail, blk - tail, 0);
	ok &= kv_expect(kv, at < 0, "%s: written past the region (+%ld)",
			what, at);
	return ok;
}

/* Checks that the region's blocks hold nothing but zeros. */
static bool kv_frmr_untouched(struct kv_ctx *kv, struct kv_frmr *f,
			      const char *what)
{
	const size_t blk = PAGE_SIZE << f->order;
	unsigned int i;
	long at;

	for (i = 0; i < f->nblocks; i++) {
		at = kv_const_diff(page_address(f->block[i]), blk, 0);
		if (!kv_expect(kv, at < 0, "%s: block %u written at byte %ld",
			       what, i, at))
			return false;
	}
	return true;
}

/* Fills [off, off + n) of the region with the pattern of seed. */
static bool kv_frmr_fill(struct kv_ctx *kv, struct kv_frmr *f, size_t off,
			 size_t n, u8 seed)
{
	u8 *tmp = kmalloc(n, GFP_KERNEL);

	if (!kv_expect(kv, tmp, "no memory"))
		return false;
	kv_fill(tmp, n, seed);
	kv_frmr_copy(f, off, tmp, n, true);
	kfree(tmp);
	return true;
}

/*
 * IB_WR_REG_MR of f on side s with access; with new_key, the MR gets the
 * next key (ib_inc_rkey) first. Expects success.
 */
bool kv_frmr_reg(struct kv_ctx *kv, struct kv_pair *p, struct kv_side *s,
		 struct kv_frmr *f, int access, bool new_key)
{
	const struct ib_send_wr *bad = NULL;
	struct kv_wr *w = kv_wr_get(p, s);
	struct ib_reg_wr wr = {
		.wr = {
			.wr_cqe = &w->cqe,
			.opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED,
		},
		.mr = f->mr,
		.access = access,
	};
	int err;

	if (new_key)
		ib_update_fast_reg_key(f->mr, ib_inc_rkey(f->mr->rkey));
	wr.key = f->mr->rkey;
	err = ib_post_send(kv_qp(s), &wr.wr, &bad);
	if (!kv_expect(kv, !err, "%s: posting IB_WR_REG_MR: %d", s->name, err))
		return false;
	return kv_expect_wc(kv, w, IB_WC_SUCCESS, IB_WC_REG_MR,
			    "IB_WR_REG_MR");
}

/* IB_WR_LOCAL_INV of rkey on side s; expects success. */
static bool kv_local_inv(struct kv_ctx *kv, struct kv_pair *p,
			 struct kv_side *s, u32 rkey)
{
	const struct ib_send_wr *bad = NULL;
	struct kv_wr *w = kv_wr_get(p, s);
	struct ib_send_wr wr = {
		.wr_cqe = &w->cqe,
		.opcode = IB_WR_LOCAL_INV,
		.send_flags = IB_SEND_SIGNALED,
		.ex.invalidate_rkey = rkey,
	};
	int err;

	err = ib_post_send(kv_qp(s), &wr, &bad);
	if (!kv_expect(kv, !err, "%s: posting IB_WR_LOCAL_INV: %d", s->name,
		       err))
		return false;
	return kv_expect_wc(kv, w, IB_WC_SUCCESS, IB_WC_LOCAL_INV,
			    "IB_WR_LOCAL_INV");
}

/*
 * The client's RDMA Write of len bytes (pattern of seed) to raddr/rkey,
 * then a Read of them back; expects both to succeed and the data read to
 * be the data written.
 */
static bool kv_write_read(struct kv_ctx *kv, struct kv_pair *p,
			  struct kv_buf *src, struct kv_buf *sink, u32 len,
			  u64 raddr, u32 rkey, u8 seed)
{
	u32 lkey = kv->pd->local_dma_lkey;
	struct kv_wr *w;
	long at;

	kv_fill(src->va, len, seed);
	memset(sink->va, 0, len);
	w = kv_post_rdma(p, &p->cli, IB_WR_RDMA_WRITE, src->dma, lkey, len,
			 raddr, rkey, 0);
	if (!kv_expect_wc(kv, w, IB_WC_SUCCESS, IB_WC_RDMA_WRITE,
			  "peer RDMA Write"))
		return false;
	w = kv_post_rdma(p, &p->cli, IB_WR_RDMA_READ, sink->dma, lkey, len,
			 raddr, rkey, 0);
	if (!kv_expect_wc(kv, w, IB_WC_SUCCESS, IB_WC_RDMA_READ,
			  "peer RDMA Read"))
		return false;
	if (!kv_expect(kv, w->wc.byte_len == len,
		       "Read byte_len %u, expected %u", w->wc.byte_len, len))
		return false;
	at = kv_pattern_diff(sink->va, len, seed);
	return kv_expect(kv, at < 0, "data read back differs at byte %ld",
			 at);
}

/*
 * The client's RDMA Write to raddr/rkey that the server must refuse,
 * followed by a Read of the server's DMA buffer rbuf that is allowed:
 * one of them completes with a remote access error (or the Read, not yet
 * sent when the Terminate came, is flushed and the writer's QP reports
 * the Terminate), the Read does not succeed, both QPs go to error and the
 * server's QP hears of it.
 */
static bool kv_write_refused(struct kv_ctx *kv, struct kv_pair *p,
			     struct kv_buf *src, struct kv_buf *sink,
			     struct kv_buf *rbuf, u32 len, u64 raddr, u32 rkey)
{
	u32 lkey = kv->pd->local_dma_lkey;
	struct kv_wr *ww, *rw;
	bool ok, heard;

	kv_fill(src->va, len, 0x5a);
	ww = kv_post_rdma(p, &p->cli, IB_WR_RDMA_WRITE, src->dma, lkey, len,
			  raddr, rkey, 0);
	rw = kv_post_rdma(p, &p->cli, IB_WR_RDMA_READ, sink->dma, lkey, 8,
			  rbuf->dma, kv->pd->unsafe_global_rkey, 0);
	if (!ww || !rw)
		return false;
	if (!kv_expect(kv, kv_wait(ww, KV_WAIT_MS) && kv_wait(rw, KV_WAIT_MS),
		       "the refused Write and the Read behind it did not both complete"))
		return false;
	pr_info("# refused Write: %s, Read behind it: %s\n",
		kv_wc_status(ww), kv_wc_status(rw));
	ok = kv_expect(kv, ww->wc.status == IB_WC_SUCCESS ||
		       ww->wc.status == IB_WC_REM_ACCESS_ERR,
		       "the refused Write: status %s", kv_wc_status(ww));
	ok &= kv_expect(kv, rw->wc.status != IB_WC_SUCCESS,
			"the Read behind the refused Write succeeded");
	/*
	 * The Terminate fails the Read only if the Read Request was already
	 * on its way; a Read still queued when the Terminate arrives is
	 * flushed. Either way the writer must have heard the Terminate: its
	 * QP reports IB_EVENT_QP_FATAL (a bare close raises no event).
	 */
	heard = kv_qp_event_seen(&p->cli, KV_WAIT_MS) &&
		test_bit(IB_EVENT_QP_FATAL, &p->cli.qp_events);
	ok &= kv_expect(kv, ww->wc.status == IB_WC_REM_ACCESS_ERR ||
			rw->wc.status == IB_WC_REM_ACCESS_ERR ||
			(rw->wc.status == IB_WC_WR_FLUSH_ERR && heard),
			"no remote access error at the writer and no Terminate heard (Write %s, Read %s)",
			kv_wc_status(ww), kv_wc_status(rw));
	ok &= kv_expect(kv, kv_qp_state_is(kv_qp(&p->cli), IB_QPS_ERR,
					   KV_WAIT_MS),
			"the writer's QP is not in error");
	ok &= kv_expect(kv, kv_qp_state_is(kv_qp(&p->srv), IB_QPS_ERR,
					   KV_WAIT_MS),
			"the target's QP is not in error");
	ok &= kv_expect(kv, kv_qp_event_seen(&p->srv, KV_WAIT_MS),
			"the target's QP had no async event");
	if (ok)
		pr_info("# QP events: writer 0x%lx, target 0x%lx\n",
			READ_ONCE(p->cli.qp_events),
			READ_ONCE(p->srv.qp_events));
	return ok;
}

/* The buffers of a case: client source and sink, a server DMA buffer. */
struct kv_bufs {
	struct kv_buf src;
	struct kv_buf sink;
	struct kv_buf rbuf;
};

static bool kv_bufs_alloc(struct kv_ctx *kv, struct kv_bufs *b)
{
	int err;

	memset(b, 0, sizeof(*b));
	err = kv_buf_alloc(kv, &b->src, 16384) ?:
	      kv_buf_alloc(kv, &b->sink, 16384) ?:
	      kv_buf_alloc(kv, &b->rbuf, 16384);
	return kv_expect(kv, !err, "buffers: %d", err);
}

static void kv_bufs_free(struct kv_ctx *kv, struct kv_bufs *b)
{
	kv_buf_free(kv, &b->src);
	kv_buf_free(kv, &b->sink);
	kv_buf_free(kv, &b->rbuf);
}

#define KV_ACCESS_RW	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ)

/* The server sends bytes [off, off + n) of its MR f; the client checks. */
static void kv_frmr_send(struct kv_ctx *kv, struct kv_pair *p,
			 struct kv_bufs *b, struct kv_frmr *f, u32 off, u32 n)
{
	struct kv_wr *rw, *sw;
	u8 *want;

	memset(b->sink.va, 0, n);
	rw = kv_post_recv(p, &p->cli, b->sink.dma, kv->pd->local_dma_lkey,
			  b->sink.len);
	sw = kv_post_send(p, &p->srv, f->mr->iova + off, f->mr->lkey, n, 0);
	if (!kv_expect_wc(kv, sw, IB_WC_SUCCESS, IB_WC_SEND,
			  "Send from the MR") ||
	    !kv_expect_wc(kv, rw, IB_WC_SUCCESS, IB_WC_RECV,
			  "its receive"))
		return;
	kv_expect(kv, rw->wc.byte_len == n, "received %u bytes, sent %u",
		  rw->wc.byte_len, n);
	want = kmalloc(n, GFP_KERNEL);
	if (!kv_expect(kv, want, "no memory"))
		return;
	kv_frmr_copy(f, off, want, n, false);
	kv_expect(kv, !memcmp(want, b->sink.va, n),
		  "the Send did not carry the MR's bytes at offset %u", off);
	kfree(want);
}

void kv_cases_frmr(struct kv_ctx *kv)
{
	const size_t len3 = 2 * PAGE_SIZE - 512 + 1000;
	const size_t len8k = (2 * PAGE_SIZE - 5000) + 6000;
	struct kv_frmr f = {};
	struct kv_pair *p;
	struct kv_bufs b;
	struct kv_wr *w;
	long at;

	kv_begin(kv, "fast-register: ib_map_mr_sg over 3 pages with the first SGE at offset 512, IB_WR_REG_MR with remote read/write; the peer's Writes and Reads land at the MR's offsets; a Send from the MR carries its bytes");
	if (!kv_bufs_alloc(kv, &b))
		goto out_f1;
	p = kv_pair_connect(kv, IB_POLL_WORKQUEUE, NULL);
	if (!kv_expect(kv, !IS_ERR(p), "connecting: %ld", PTR_ERR(p)))
		goto out_f1_bufs;
	if (!kv_frmr_create(kv, &f, 3, 0, 512, len3))
		goto out_f1_pair;
	if (kv_frmr_reg(kv, p, &p->srv, &f, KV_ACCESS_RW, false) &&
	    kv_write_read(kv, p, &b.src, &b.sink, len3, f.mr->iova,
			  f.mr->rkey, 11) &&
	    kv_frmr_expect(kv, &f, 0, len3, 11, "whole region") &&
	    kv_write_read(kv, p, &b.src, &b.sink, 300, f.mr->iova + 4000,
			  f.mr->rkey, 12) &&
	    kv_frmr_expect(kv, &f, 4000, 300, 12, "300 bytes at 4000"))
		kv_frmr_send(kv, p, &b, &f, 3000, 2000);
out_f1_pair:
	kv_pair_destroy(p);
	kv_frmr_free(kv, &f);
out_f1_bufs:
	kv_bufs_free(kv, &b);
out_f1:
	kv_end(kv);

	kv_begin(kv, "fast-register: page size 8 KiB given to ib_map_mr_sg (two 8 KiB blocks, the first SGE at offset 5000); the peer's Writes and Reads land at the MR's offsets");
	if (!kv_bufs_alloc(kv, &b))
		goto out_f2;
	p = kv_pair_connect(kv, IB_POLL_WORKQUEUE, NULL);
	if (!kv_expect(kv, !IS_ERR(p), "connecting: %ld", PTR_ERR(p)))
		goto out_f2_bufs;
	if (!kv_frmr_create(kv, &f, 2, 1, 5000, len8k))
		goto out_f2_pair;
	if (kv_frmr_reg(kv, p, &p->srv, &f, KV_ACCESS_RW, false) &&
	    kv_write_read(kv, p, &b.src, &b.sink, len8k, f.mr->iova,
			  f.mr->rkey, 13) &&
	    kv_frmr_expect(kv, &f, 0, len8k, 13, "whole region") &&
	    kv_write_read(kv, p, &b.src, &b.sink, 500, f.mr->iova + 3000,
			  f.mr->rkey, 14))
		kv_frmr_expect(kv, &f, 3000, 500, 14, "500 bytes at 3000");
out_f2_pair:
	kv_pair_destroy(p);
	kv_frmr_free(kv, &f);
out_f2_bufs:
	kv_bufs_free(kv, &b);
out_f2:
	kv_end(kv);

	kv_begin(kv, "fast-register: remote read only: the peer's Read works, its Write is refused (remote access error at the writer, both QPs in error, the MR's memory untouched)");
	if (!kv_bufs_alloc(kv, &b))
		goto out_f3;
	p = kv_pair_connect(kv, IB_POLL_WORKQUEUE, NULL);
	if (!kv_expect(kv, !IS_ERR(p), "connecting: %ld", PTR_ERR(p)))
		goto out_f3_bufs;
	if (!kv_frmr_create(kv, &f, 1, 0, 256, 1024) ||
	    !kv_frmr_fill(kv, &f, 0, 1024, 15) ||
	    !kv_frmr_reg(kv, p, &p->srv, &f, IB_ACCESS_REMOTE_READ, false))
		goto out_f3_pair;
	w = kv_post_rdma(p, &p->cli, IB_WR_RDMA_READ, b.sink.dma,
			 kv->pd->local_dma_lkey, 1024, f.mr->iova, f.mr->rkey,
			 0);
	if (!kv_expect_wc(kv, w, IB_WC_SUCCESS, IB_WC_RDMA_READ, "peer Read"))
		goto out_f3_pair;
	at = kv_pattern_diff(b.sink.va, 1024, 15);
	kv_expect(kv, at < 0, "data read differs at byte %ld", at);
	kv_write_refused(kv, p, &b.src, &b.sink, &b.rbuf, 512, f.mr->iova,
			 f.mr->rkey);
	kv_frmr_expect(kv, &f, 0, 1024, 15, "after the refused Write");
out_f3_pair:
	kv_pair_destroy(p);
	kv_frmr_free(kv, &f);
out_f3_bufs:
	kv_bufs_free(kv, &b);
out_f3:
	kv_end(kv);
}

/* Local invalidation, then registration again with the next key. */
static void kv_cases_local_inv(struct kv_ctx *kv, struct kv_bufs *b)
{
	struct kv_frmr f = {};
	struct kv_pair *p;
	bool have = false;
	u32 old = 0;

	kv_begin(kv, "local invalidate: IB_WR_LOCAL_INV completes (IB_WC_LOCAL_INV); the peer's Write with the invalidated rkey is refused (remote access error, QPs in error), the MR's memory untouched");
	p = kv_pair_connect(kv, IB_POLL_UNBOUND_WORKQUEUE, NULL);
	if (!kv_expect(kv, !IS_ERR(p), "connecting: %ld", PTR_ERR(p)))
		goto out_inv;
	if (kv_frmr_create(kv, &f, 2, 0, 100, 5000) &&
	    kv_frmr_reg(kv, p, &p->srv, &f, KV_ACCESS_RW, false) &&
	    kv_write_read(kv, p, &b->src, &b->sink, 5000, f.mr->iova,
			  f.mr->rkey, 21) &&
	    kv_frmr_expect(kv, &f, 0, 5000, 21, "before invalidation") &&
	    kv_local_inv(kv, p, &p->srv, f.mr->rkey)) {
		have = true;
		kv_write_refused(kv, p, &b->src, &b->sink, &b->rbuf, 256,
				 f.mr->iova, f.mr->rkey);
		kv_frmr_expect(kv, &f, 0, 5000, 21, "after the refused Write");
	}
	kv_pair_destroy(p);
out_inv:
	kv_end(kv);

	kv_begin(kv, "re-registration: IB_WR_REG_MR with the key from ib_inc_rkey after the invalidation; the peer's Write and Read with the new rkey work, with the old rkey they are refused");
	if (!kv_expect(kv, have, "no invalidated MR from the case before"))
		goto out_rereg;
	p = kv_pair_connect(kv, IB_POLL_UNBOUND_WORKQUEUE, NULL);
	if (!kv_expect(kv, !IS_ERR(p), "connecting: %ld", PTR_ERR(p)))
		goto out_rereg;
	old = f.mr->rkey;
	if (kv_frmr_reg(kv, p, &p->srv, &f, KV_ACCESS_RW, true) &&
	    kv_expect(kv, f.mr->rkey != old &&
		      (f.mr->rkey & ~0xffU) == (old & ~0xffU),
		      "rkey 0x%x after ib_inc_rkey of 0x%x", f.mr->rkey, old) &&
	    kv_write_read(kv, p, &b->src, &b->sink, 5000, f.mr->iova,
			  f.mr->rkey, 22) &&
	    kv_frmr_expect(kv, &f, 0, 5000, 22, "with the new rkey")) {
		kv_write_refused(kv, p, &b->src, &b->sink, &b->rbuf, 256,
				 f.mr->iova, old);
		kv_frmr_expect(kv, &f, 0, 5000, 22, "after the old rkey");
	}
	kv_pair_destroy(p);
out_rereg:
	kv_end(kv);
	kv_frmr_free(kv, &f);
}

/*
 * ib_map_mr_sg on an MR that is still registered, as ULPs do: SRP and
 * NVMe-oF post IB_WR_LOCAL_INV and map the next I/O's pages at once,
 * relying on the send queue's order (the invalidation, then the new
 * IB_WR_REG_MR) rather than waiting for the invalidation to complete.
 * The mapping must succeed and change nothing until the registration
 * that follows it: the registered region keeps its pages.
 */
static void kv_case_remap(struct kv_ctx *kv, struct kv_bufs *b)
{
	struct kv_frmr f = {}, g = {};
	struct kv_pair *p;
	u64 old_iova;
	u32 old_key;
	int n;

	kv_begin(kv, "remapping a registered MR: ib_map_mr_sg onto other pages succeeds while the MR is valid; the peer's Write and Read still reach the registered pages; after IB_WR_LOCAL_INV and IB_WR_REG_MR they reach the new ones");
	p = kv_pair_connect(kv, IB_POLL_WORKQUEUE, NULL);
	if (!kv_expect(kv, !IS_ERR(p), "connecting: %ld", PTR_ERR(p)))
		goto out;
	if (!kv_frmr_create(kv, &f, 2, 0, 64, 5000) ||
	    !kv_frmr_create(kv, &g, 2, 0, 200, 6000) ||
	    !kv_frmr_reg(kv, p, &p->srv, &f, KV_ACCESS_RW, false) ||
	    !kv_write_read(kv, p, &b->src, &b->sink, 5000, f.mr->iova,
			   f.mr->rkey, 41) ||
	    !kv_frmr_expect(kv, &f, 0, 5000, 41, "before the remapping"))
		goto out_pair;
	old_iova = f.mr->iova;
	old_key = f.mr->rkey;
	n = ib_map_mr_sg(f.mr, g.sg, g.nblocks, NULL, PAGE_SIZE);
	if (!kv_expect(kv, n == g.nblocks,
		       "ib_map_mr_sg on the registered MR: %d, expected %u",
		       n, g.nblocks))
		goto out_pair;
	if (!kv_write_read(kv, p, &b->src, &b->sink, 5000, old_iova, old_key,
			   42) ||
	    !kv_frmr_expect(kv, &f, 0, 5000, 42, "registered pages after the remapping") ||
	    !kv_frmr_untouched(kv, &g, "new pages before their registration"))
		goto out_pair;
	if (kv_local_inv(kv, p, &p->srv, old_key) &&
	    kv_frmr_reg(kv, p, &p->srv, &f, KV_ACCESS_RW, true) &&
	    kv_write_read(kv, p, &b->src, &b->sink, 6000, f.mr->iova,
			  f.mr->rkey, 43)) {
		kv_frmr_expect(kv, &g, 0, 6000, 43, "new pages after the registration");
		kv_frmr_expect(kv, &f, 0, 5000, 42, "old pages after the registration");
	}
out_pair:
	kv_pair_destroy(p);
out:
	kv_frmr_free(kv, &f);
	kv_frmr_free(kv, &g);
	kv_end(kv);
}

/* Send with Invalidate: the receiver's MR goes invalid. */
static void kv_case_send_inv(struct kv_ctx *kv, struct kv_bufs *b)
{
	struct kv_wr *rw, *sw;
	struct kv_frmr f = {};
	struct kv_pair *p;
	long at;

	kv_begin(kv, "send with invalidate: the receiver's completion has IB_WC_WITH_INVALIDATE and the rkey in ex.invalidate_rkey; the peer's Write with that rkey is then refused");
	p = kv_pair_connect(kv, IB_POLL_SOFTIRQ, NULL);
	if (!kv_expect(kv, !IS_ERR(p), "connecting: %ld", PTR_ERR(p)))
		goto out;
	if (!kv_frmr_create(kv, &f, 1, 0, 0, 4096) ||
	    !kv_frmr_reg(kv, p, &p->srv, &f, KV_ACCESS_RW, false) ||
	    !kv_write_read(kv, p, &b->src, &b->sink, 4096, f.mr->iova,
			   f.mr->rkey, 23))
		goto out_pair;
	memset(b->rbuf.va, 0, b->rbuf.len);
	rw = kv_post_recv(p, &p->srv, b->rbuf.dma, kv->pd->local_dma_lkey,
			  4096);
	kv_fill(b->src.va, 100, 24);
	sw = kv_post_send(p, &p->cli, b->src.dma, kv->pd->local_dma_lkey, 100,
			  f.mr->rkey);
	if (!kv_expect_wc(kv, sw, IB_WC_SUCCESS, IB_WC_SEND,
			  "Send with Invalidate") ||
	    !kv_expect_wc(kv, rw, IB_WC_SUCCESS, IB_WC_RECV, "its receive"))
		goto out_pair;
	kv_expect(kv, rw->wc.byte_len == 100, "byte_len %u, expected 100",
		  rw->wc.byte_len);
	kv_expect(kv, rw->wc.wc_flags & IB_WC_WITH_INVALIDATE,
		  "wc_flags 0x%x without IB_WC_WITH_INVALIDATE",
		  rw->wc.wc_flags);
	kv_expect(kv, rw->wc.ex.invalidate_rkey == f.mr->rkey,
		  "ex.invalidate_rkey 0x%x, expected 0x%x",
		  rw->wc.ex.invalidate_rkey, f.mr->rkey);
	at = kv_pattern_diff(b->rbuf.va, 100, 24);
	kv_expect(kv, at < 0, "received data differs at byte %ld", at);
	kv_write_refused(kv, p, &b->src, &b->sink, &b->rbuf, 256, f.mr->iova,
			 f.mr->rkey);
	kv_frmr_expect(kv, &f, 0, 4096, 23, "after the refused Write");
out_pair:
	kv_pair_destroy(p);
	kv_frmr_free(kv, &f);
out:
	kv_end(kv);
}

/* RDMA Read with local invalidate. */
static void kv_cases_read_inv(struct kv_ctx *kv, struct kv_bufs *b)
{
	u32 lkey = kv->pd->local_dma_lkey;
	struct kv_frmr f = {}, g = {};
	struct kv_pair *p;
	struct kv_wr *w;
	bool good;
	u32 old;

	kv_begin(kv, "read with invalidate: IB_WR_RDMA_READ_WITH_INV places the data in the fast-register sink at its offset (IB_WC_RDMA_READ, byte_len); the MR is invalid afterwards (IB_WR_REG_MR on it succeeds, a Read into it works again)");
	p = kv_pair_connect(kv, IB_POLL_WORKQUEUE, NULL);
	if (!kv_expect(kv, !IS_ERR(p), "connecting: %ld", PTR_ERR(p))) {
		kv_end(kv);
		goto out_other;
	}
	if (!kv_frmr_create(kv, &f, 2, 0, 300, 5000) ||
	    !kv_frmr_reg(kv, p, &p->cli, &f, IB_ACCESS_LOCAL_WRITE, false))
		goto out_sink;
	kv_fill(b->rbuf.va, 5000, 25);
	w = kv_post_rdma(p, &p->cli, IB_WR_RDMA_READ_WITH_INV, f.mr->iova,
			 f.mr->lkey, 5000, b->rbuf.dma,
			 kv->pd->unsafe_global_rkey, f.mr->lkey);
	if (!kv_expect_wc(kv, w, IB_WC_SUCCESS, IB_WC_RDMA_READ,
			  "Read with invalidate") ||
	    !kv_expect(kv, w->wc.byte_len == 5000,
		       "byte_len %u, expected 5000", w->wc.byte_len) ||
	    !kv_frmr_expect(kv, &f, 0, 5000, 25, "read into the MR"))
		goto out_sink;
	if (!kv_frmr_reg(kv, p, &p->cli, &f, IB_ACCESS_LOCAL_WRITE, true))
		goto out_sink;
	kv_fill(b->rbuf.va, 5000, 26);
	w = kv_post_rdma(p, &p->cli, IB_WR_RDMA_READ, f.mr->iova, f.mr->lkey,
			 5000, b->rbuf.dma, kv->pd->unsafe_global_rkey, 0);
	if (kv_expect_wc(kv, w, IB_WC_SUCCESS, IB_WC_RDMA_READ,
			 "Read after registering again"))
		kv_frmr_expect(kv, &f, 0, 5000, 26, "read again");
out_sink:
	kv_end(kv);

	/*
	 * ib_core's rdma_rw sets ex.invalidate_rkey when it builds the
	 * chain and increments the MR's key when it posts it: the Read
	 * names the key from before the registration, and it is the sink
	 * that must be invalidated.
	 */
	kv_begin(kv, "read with invalidate as rdma_rw posts it (sink registered with ib_inc_rkey's key, ex.invalidate_rkey the key before): data in the sink, the sink's MR invalid afterwards (IB_WR_REG_MR on it succeeds)");
	if (!kv_frmr_create(kv, &g, 1, 0, 64, 2000))
		goto out_other_pair;
	old = g.mr->lkey;
	if (!kv_frmr_reg(kv, p, &p->cli, &g, IB_ACCESS_LOCAL_WRITE, true))
		goto out_other_pair;
	kv_fill(b->rbuf.va, 2000, 27);
	w = kv_post_rdma(p, &p->cli, IB_WR_RDMA_READ_WITH_INV, g.mr->iova,
			 g.mr->lkey, 2000, b->rbuf.dma,
			 kv->pd->unsafe_global_rkey, old);
	if (!kv_expect_wc(kv, w, IB_WC_SUCCESS, IB_WC_RDMA_READ,
			  "Read with invalidate") ||
	    !kv_frmr_expect(kv, &g, 0, 2000, 27, "read into the MR"))
		goto out_other_pair;
	kv_frmr_reg(kv, p, &p->cli, &g, IB_ACCESS_LOCAL_WRITE, true);
out_other_pair:
	good = !kv->case_failed;
	kv_end(kv);

	kv_begin(kv, "read with invalidate into a sink that cannot be invalidated (pd->local_dma_lkey) fails the Read (not success) and the QP goes to error");
	/* On a healthy QP only: a QP in error fails any Read. */
	if (!kv_expect(kv, good, "the case before failed") ||
	    !kv_expect(kv, kv_qp_state_is(kv_qp(&p->cli), IB_QPS_RTS, 0),
		       "the QP is not in RTS before the Read"))
		goto out_bad;
	w = kv_post_rdma(p, &p->cli, IB_WR_RDMA_READ_WITH_INV, b->sink.dma,
			 lkey, 1000, b->rbuf.dma, kv->pd->unsafe_global_rkey,
			 lkey);
	if (!kv_expect(kv, w && kv_wait(w, KV_WAIT_MS),
		       "the Read did not complete"))
		goto out_bad;
	pr_info("# Read invalidating the DMA lkey: %s\n", kv_wc_status(w));
	kv_expect(kv, w->wc.status != IB_WC_SUCCESS,
		  "the Read invalidating the DMA lkey succeeded");
	kv_expect(kv, kv_qp_state_is(kv_qp(&p->cli), IB_QPS_ERR, KV_WAIT_MS),
		  "the QP is not in error");
out_bad:
	kv_end(kv);
	kv_pair_destroy(p);
	kv_frmr_free(kv, &f);
	kv_frmr_free(kv, &g);
	return;
out_other:
	kv_begin(kv, "read with invalidate as rdma_rw posts it (sink registered with ib_inc_rkey's key, ex.invalidate_rkey the key before): data in the sink, the sink's MR invalid afterwards (IB_WR_REG_MR on it succeeds)");
	kv_expect(kv, false, "no connection");
	kv_end(kv);
	kv_begin(kv, "read with invalidate into a sink that cannot be invalidated (pd->local_dma_lkey) fails the Read (not success) and the QP goes to error");
	kv_expect(kv, false, "no connection");
	kv_end(kv);
}

void kv_cases_invalidate(struct kv_ctx *kv)
{
	struct kv_bufs b;

	/* A case of its own only when it fails. */
	kv_begin(kv, "invalidation: buffers for the cases");
	if (!kv_bufs_alloc(kv, &b)) {
		kv_end(kv);
		return;
	}
	kv_cases_local_inv(kv, &b);
	kv_case_remap(kv, &b);
	kv_case_send_inv(kv, &b);
	kv_cases_read_inv(kv, &b);
	kv_bufs_free(kv, &b);
}
