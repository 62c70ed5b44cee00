/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/*
 * The one place that knows about kernel versions. Force-included into every
 * file of the module (see Kbuild); the rest of the code uses the names
 * defined here and never tests LINUX_VERSION_CODE itself.
 *
 * Supported: Debian bookworm's 6.1, bookworm-backports' and trixie's
 * 6.12, and sid's 7.2. Each difference is found by a probe of the target
 * tree's headers (Kbuild: SIW_HAVE_*), not by its version number, since a
 * distribution may backport.
 */
#ifndef SIW_COMPAT_H
#define SIW_COMPAT_H

#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "siw needs Linux 6.1 or newer"
#endif

#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

/*
 * create_cq receives the uverbs attribute bundle instead of the udata on
 * newer kernels (6.12 has it, 6.1 not). SIW_CREATE_CQ_UDATA_T is the type
 * of the last argument; siw_create_cq_udata() gives the udata either way.
 */
#ifdef SIW_HAVE_CREATE_CQ_ATTR_BUNDLE
#define SIW_CREATE_CQ_UDATA_T struct uverbs_attr_bundle
static inline struct ib_udata *
siw_create_cq_udata(struct uverbs_attr_bundle *attrs)
{
	return attrs ? &attrs->driver_udata : NULL;
}
#else
#define SIW_CREATE_CQ_UDATA_T struct ib_udata
static inline struct ib_udata *siw_create_cq_udata(struct ib_udata *udata)
{
	return udata;
}
#endif

/*
 * A ubuf_info (zero-copy transmit) names its completion callback through
 * an ops table on newer kernels (6.12), directly on older ones (6.1).
 * SIW_DEFINE_UBUF_OPS(name, fn) defines what siw_ubuf_set_ops(uarg,
 * name) installs.
 */
#include <linux/skbuff.h>
#ifdef SIW_HAVE_UBUF_INFO_OPS
#define SIW_DEFINE_UBUF_OPS(name, fn) \
	static const struct ubuf_info_ops name = { .complete = (fn) }
#define siw_ubuf_set_ops(uarg, name) ((uarg)->ops = &(name))
#else
#define SIW_DEFINE_UBUF_OPS(name, fn) \
	static void (*const name)(struct sk_buff *, struct ubuf_info *, bool) = (fn)
#define siw_ubuf_set_ops(uarg, name) ((uarg)->callback = (name))
#endif

/*
 * A tracepoint's string field: __assign_str() took the source as its
 * second argument until 6.10, then found it in __string() alone.
 */
#ifdef SIW_HAVE_ASSIGN_STR_1ARG
#define siw_assign_str(dst, src) __assign_str(dst)
#else
#define siw_assign_str(dst, src) __assign_str(dst, src)
#endif

/*
 * Pages handed to a socket by reference, the stack taking its own page
 * references: MSG_SPLICE_PAGES with a bio_vec iterator since 6.5, one
 * page at a time before. @locked: from the receive softirq, under the
 * socket's spinlock with no process owning it (tcp_sendmsg_locked's
 * callers own the socket or hold that lock); otherwise the socket is
 * locked here. Returns the bytes the socket took.
 */
#include <linux/net.h>
#include <linux/socket.h>
#include <linux/uio.h>
#include <net/tcp.h>
#ifdef SIW_HAVE_MSG_SPLICE_PAGES
static inline int siw_send_pages(struct socket *sock, struct bio_vec *bv,
				 unsigned int n, size_t len, int flags,
				 bool locked)
{
	struct msghdr msg = { .msg_flags = flags | MSG_SPLICE_PAGES };

	iov_iter_bvec(&msg.msg_iter, ITER_SOURCE, bv, n, len);
	return locked ? tcp_sendmsg_locked(sock->sk, &msg, len) :
			sock_sendmsg(sock, &msg);
}
#else
static inline int siw_send_pages(struct socket *sock, struct bio_vec *bv,
				 unsigned int n, size_t len, int flags,
				 bool locked)
{
	int sent = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		int f = i + 1 < n ? flags | MSG_MORE | MSG_SENDPAGE_NOTLAST :
				    flags;
		int r = locked ?
			do_tcp_sendpages(sock->sk, bv[i].bv_page,
					 bv[i].bv_offset, bv[i].bv_len, f) :
			kernel_sendpage(sock, bv[i].bv_page, bv[i].bv_offset,
					bv[i].bv_len, f);

		if (r < 0)
			return sent ? sent : r;
		sent += r;
		if (r != bv[i].bv_len)
			break;
	}
	return sent;
}
#endif

/*
 * Pinning a user's memory: ib_umem_get() until 7.x, then ib_umem_get_va()
 * beside the variants that take a uverbs attribute.
 */
#include <rdma/ib_umem.h>
#ifdef SIW_HAVE_IB_UMEM_GET_VA
#define siw_umem_get(dev, addr, len, access) \
	ib_umem_get_va(dev, addr, len, access)
#else
#define siw_umem_get(dev, addr, len, access) \
	ib_umem_get(dev, addr, len, access)
#endif

/*
 * Is an RDMA device of this name registered? ib_device_get_by_name() is
 * gone in 7.x; there ib_register_device() itself refuses a name in use
 * (-ENFILE), and siw_device_add() reports that the same way.
 */
static inline bool siw_ib_name_taken(const char *name)
{
#ifdef SIW_HAVE_IB_DEVICE_GET_BY_NAME
	struct ib_device *other = ib_device_get_by_name(name,
							RDMA_DRIVER_UNKNOWN);

	if (other) {
		ib_device_put(other);
		return true;
	}
#endif
	return false;
}

/*
 * reg_user_mr gained a DMA handle argument (7.x); siw takes none.
 * SIW_REG_USER_MR_DMAH is that parameter with its comma, or nothing.
 */
#ifdef SIW_HAVE_REG_USER_MR_DMAH
#define SIW_REG_USER_MR_DMAH struct ib_dmah *dmah,
#define siw_reg_user_mr_dmah(dmah) (dmah)
#else
#define SIW_REG_USER_MR_DMAH
#define siw_reg_user_mr_dmah(dmah) NULL
#endif

/*
 * A socket sent on from softirq: its allocations must not sleep, and its
 * page fragment must be the socket's own, not that of the task the
 * softirq interrupted (sk_use_task_frag, 6.2 and 6.1's stable releases;
 * before, sk_page_frag() chose by sk_allocation alone). Under the
 * socket's spinlock, with no process owning it.
 */
struct siw_sock_saved {
	gfp_t allocation;
	bool use_task_frag;
};

static inline void siw_sock_atomic_begin(struct sock *sk,
					 struct siw_sock_saved *s)
{
	s->allocation = sk->sk_allocation;
	sk->sk_allocation = GFP_ATOMIC;
#ifdef SIW_HAVE_SK_USE_TASK_FRAG
	s->use_task_frag = sk->sk_use_task_frag;
	sk->sk_use_task_frag = false;
#endif
}

static inline void siw_sock_atomic_end(struct sock *sk,
				       const struct siw_sock_saved *s)
{
	sk->sk_allocation = s->allocation;
#ifdef SIW_HAVE_SK_USE_TASK_FRAG
	sk->sk_use_task_frag = s->use_task_frag;
#endif
}

/* kernel_bind()/kernel_connect() take a struct sockaddr_unsized * (7.x). */
#ifdef SIW_HAVE_SOCKADDR_UNSIZED
#define siw_sockaddr_arg(p) ((struct sockaddr_unsized *)(p))
#else
#define siw_sockaddr_arg(p) ((struct sockaddr *)(p))
#endif

/*
 * Asking whether lo's address may change (siw gives lo one while it is on
 * it: netdev.c). dev_pre_changeaddr_notify() became
 * netif_pre_changeaddr_notify() in 7.x, exported only to the namespace
 * NETDEV_INTERNAL, which a driver has no business importing. There siw
 * asks nobody: the veto is for devices stacked on the one whose address
 * changes, and nothing stacks on lo.
 */
#ifdef SIW_HAVE_NETIF_PRE_CHANGEADDR_NOTIFY
#define siw_pre_changeaddr_notify(dev, addr, extack) 0
#else
#define siw_pre_changeaddr_notify(dev, addr, extack) \
	dev_pre_changeaddr_notify(dev, addr, extack)
#endif

#endif /* SIW_COMPAT_H */
