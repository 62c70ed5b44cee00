// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * Connection management for iw_cm: listening and connecting kernel TCP
 * sockets in the network namespace of the siw device's netdev, the MPA
 * request/reply exchange (RFC 5044, RFC 6581), accept and reject, the
 * hand-over of the socket to the QP, and the close of the connection.
 *
 * Socket callbacks run in softirq; they only queue work. All endpoint
 * changes happen in process context, on one ordered work queue or in the
 * iw_cm entry points, under the endpoint's mutex.
 */
#include <linux/module.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/ipv6.h>
#include <net/tcp.h>
#include <rdma/iw_cm.h>

#include "siw.h"
#include "cm.h"
#include "qp.h"
#include "trace.h"

/*
 * One ordered queue: CM work never runs concurrently with itself. The
 * locking does not rely on that (Documentation/architecture.rst, Locking):
 * an endpoint's state is guarded by its own mutex.
 */
static struct workqueue_struct *siw_cm_wq;

/*
 * Listening endpoints' mutexes are a lock class of their own: a child
 * endpoint takes its listener's lock while holding its own (to leave the
 * listener's list), never the other way round, and lockdep checks that
 * order only if it can tell the two kinds apart.
 */
static struct lock_class_key siw_cep_listener_key;

static void siw_cep_work(struct work_struct *work);
static void siw_cep_timeout(struct work_struct *work);

static atomic_t siw_cep_ids = ATOMIC_INIT(0);

#define SIW_CEP_NAME(name)	[SIW_CEP_##name] = #name,
static const char *const siw_cep_state_names[SIW_CEP_NUM_STATES] = {
	SIW_CEP_STATES(SIW_CEP_NAME, SIW_CEP_NAME)
};

const char *siw_cep_state_name(enum siw_cep_state s)
{
	if ((unsigned int)s >= ARRAY_SIZE(siw_cep_state_names))
		return "UNKNOWN";
	return siw_cep_state_names[s];
}

/*
 * Which states may follow each: a listener or an active endpoint starts
 * from IDLE, a child is born in AWAIT_REQUEST (siw_cep_accept_children);
 * every state but CLOSED may end in CLOSED, which is final.
 */
#define TO(s)	BIT(SIW_CEP_##s)
static const u8 siw_cep_next[SIW_CEP_NUM_STATES] = {
	[SIW_CEP_IDLE] = TO(LISTEN) | TO(CONNECTING) | TO(AWAIT_REQUEST) |
			 TO(CLOSED),
	[SIW_CEP_LISTEN] = TO(CLOSED),
	[SIW_CEP_CONNECTING] = TO(AWAIT_REPLY) | TO(CLOSED),
	[SIW_CEP_AWAIT_REPLY] = TO(ESTABLISHED) | TO(CLOSED),
	[SIW_CEP_AWAIT_REQUEST] = TO(REQUEST_DELIVERED) | TO(CLOSED),
	[SIW_CEP_REQUEST_DELIVERED] = TO(ESTABLISHED) | TO(CLOSED),
	[SIW_CEP_ESTABLISHED] = TO(CLOSED),
	[SIW_CEP_CLOSED] = 0,
};
#undef TO

/* A snapshot for reports (rdma resource): may be stale when read. */
enum siw_cep_state siw_cep_state_of(struct siw_cep *cep)
{
	return READ_ONCE(cep->state);
}

/* The socket's two ends, unlocked: for tracing, a snapshot will do. */
static void siw_sk_addrs(struct sock *sk, struct sockaddr_storage *l,
			 struct sockaddr_storage *r)
{
	const struct inet_sock *inet = inet_sk(sk);

	memset(l, 0, sizeof(*l));
	memset(r, 0, sizeof(*r));
	if (sk->sk_family == AF_INET) {
		struct sockaddr_in *l4 = (void *)l, *r4 = (void *)r;

		l4->sin_family = AF_INET;
		l4->sin_addr.s_addr = READ_ONCE(inet->inet_rcv_saddr);
		l4->sin_port = READ_ONCE(inet->inet_sport);
		r4->sin_family = AF_INET;
		r4->sin_addr.s_addr = READ_ONCE(inet->inet_daddr);
		r4->sin_port = READ_ONCE(inet->inet_dport);
#if IS_ENABLED(CONFIG_IPV6)
	} else if (sk->sk_family == AF_INET6) {
		struct sockaddr_in6 *l6 = (void *)l, *r6 = (void *)r;

		l6->sin6_family = AF_INET6;
		l6->sin6_addr = sk->sk_v6_rcv_saddr;
		l6->sin6_port = READ_ONCE(inet->inet_sport);
		r6->sin6_family = AF_INET6;
		r6->sin6_addr = sk->sk_v6_daddr;
		r6->sin6_port = READ_ONCE(inet->inet_dport);
#endif
	}
}

/* A state change, to the debug log and the siw_cep_state tracepoint. */
static void siw_cep_trace_state(struct siw_cep *cep, enum siw_cep_state new,
				struct sock *sk)
{
	pr_debug("siw: cep %u: %s -> %s\n", cep->id,
		 siw_cep_state_name(cep->state), siw_cep_state_name(new));
	if (trace_siw_cep_state_enabled()) {
		struct sockaddr_storage l, r;

		if (sk) {
			siw_sk_addrs(sk, &l, &r);
		} else {
			memset(&l, 0, sizeof(l));
			memset(&r, 0, sizeof(r));
		}
		/*
		 * Before the socket is bound or connected (a listener, an
		 * active side connecting): what the ULP asked for.
		 */
		if (cep->cm_id && !siw_trace_addr_known(&l))
			l = cep->cm_id->local_addr;
		if (cep->cm_id && !siw_trace_addr_known(&r))
			r = cep->cm_id->remote_addr;
		trace_siw_cep_state(cep,
				    cep->qp ? cep->qp->base_qp.qp_num : 0,
				    cep->state, new, &l, &r);
	}
}

/*
 * Every later state change goes through here, and must be one that
 * siw_cep_next[] allows: anything else is our bug. Must hold cep->lock.
 */
static void siw_cep_set_state(struct siw_cep *cep, enum siw_cep_state new)
{
	lockdep_assert_held(&cep->lock);
	WARN_ONCE(!(siw_cep_next[cep->state] & BIT(new)),
		  "siw: cep %u: no transition %s -> %s\n", cep->id,
		  siw_cep_state_name(cep->state), siw_cep_state_name(new));
	siw_cep_trace_state(cep, new, cep->sock ? cep->sock->sk : NULL);
	WRITE_ONCE(cep->state, new);
}

static struct siw_cep *siw_cep_alloc(struct siw_device *sdev, bool listener)
{
	struct siw_cep *cep = kzalloc(sizeof(*cep), GFP_KERNEL);

	if (!cep)
		return NULL;
	kref_init(&cep->ref);
	mutex_init(&cep->lock);
	if (listener)
		lockdep_set_class(&cep->lock, &siw_cep_listener_key);
	INIT_LIST_HEAD(&cep->children);
	INIT_LIST_HEAD(&cep->child_entry);
	INIT_WORK(&cep->work, siw_cep_work);
	INIT_DELAYED_WORK(&cep->timer, siw_cep_timeout);
	get_device(&sdev->base_dev.dev);
	cep->sdev = sdev;
	cep->id = atomic_inc_return(&siw_cep_ids);
	cep->state = SIW_CEP_IDLE;
	return cep;
}

static void siw_cep_release(struct kref *ref)
{
	struct siw_cep *cep = container_of(ref, struct siw_cep, ref);

	put_device(&cep->sdev->base_dev.dev);
	kfree(cep);
}

void siw_cep_put(struct siw_cep *cep)
{
	kref_put(&cep->ref, siw_cep_release);
}

static void siw_cep_get(struct siw_cep *cep)
{
	kref_get(&cep->ref);
}

/* Queues CM work for an event. Any context. */
void siw_cm_queue_event(struct siw_cep *cep, int ev)
{
	set_bit(ev, &cep->events);
	siw_cep_get(cep);
	if (!queue_work(siw_cm_wq, &cep->work))
		siw_cep_put(cep);
}

static u16 siw_sockaddr_port(const struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)a)->sin6_port);
	return ntohs(((const struct sockaddr_in *)a)->sin_port);
}

/*
 * Our side of the MPA negotiation, from the device's knobs of now. port:
 * the TCP port of the service (the listener's, or the one connected to).
 */
static void siw_cm_local_params(struct siw_cep *cep, u16 port)
{
	struct siw_mpa_params *p = &cep->params;
	struct siw_knobs k;

	siw_knobs_get(cep->sdev, &k);
	p->revision = k.mpa_rev == 1 ? SIW_MPA_REV_1 : SIW_MPA_REV_2;
	p->crc = k.mpa_crc == 2 ? SIW_MPA_CRC_REQUIRED :
		 k.mpa_crc == 1 ? SIW_MPA_CRC_OFFERED : SIW_MPA_CRC_OFF;
	p->p2p = k.mpa_p2p;
	p->p2p_accept = k.mpa_p2p_accept;
	p->rtr_types = k.mpa_rtr & SIW_RTR_ALL;
	p->ird = SIW_MAX_IRD_QP;
	p->ord = SIW_MAX_ORD_QP;
	p->max_ird = SIW_MAX_IRD_QP;
	p->gso = k.mpa_gso;
	p->ext = k.mpa_rfc7306;
	p->legacy = k.mpa_legacy_ird_ord == SIW_LEGACY_ALWAYS ||
		    (k.mpa_legacy_ird_ord == SIW_LEGACY_SMBD_PORT &&
		     port == SIW_SMBD_PORT);
	cep->timeout = msecs_to_jiffies(k.mpa_timeout_ms);
	cep->user_timeout_ms = k.mpa_user_timeout_ms;
	cep->first_fpdu_wait_ms = k.mpa_first_fpdu_wait_ms;
}

/*
 * The QP takes the connection over: from now on, sent data that stays
 * unacknowledged, or a receive window the peer keeps closed, fails the
 * connection after the device's mpa/user_timeout_ms (TCP_USER_TIMEOUT;
 * TCP's zero-window probes alone never give up on a peer that answers
 * them). Must hold cep->lock.
 */
static void siw_cep_set_user_timeout(struct siw_cep *cep)
{
	lockdep_assert_held(&cep->lock);
	if (cep->user_timeout_ms)
		tcp_sock_set_user_timeout(cep->sock->sk, cep->user_timeout_ms);
}

/* --- socket callbacks (softirq) ----------------------------------------- */

static struct siw_cep *siw_sk_cep(struct sock *sk)
{
	return sk->sk_user_data;
}

static void siw_cm_sk_data_ready(struct sock *sk)
{
	struct siw_cep *cep;

	read_lock_bh(&sk->sk_callback_lock);
	cep = siw_sk_cep(sk);
	if (cep)
		siw_cm_queue_event(cep, cep->state == SIW_CEP_LISTEN ?
				   SIW_CEP_EV_ACCEPT : SIW_CEP_EV_DATA);
	read_unlock_bh(&sk->sk_callback_lock);
}

static void siw_cm_sk_state_change(struct sock *sk)
{
	struct siw_cep *cep;

	read_lock_bh(&sk->sk_callback_lock);
	cep = siw_sk_cep(sk);
	if (cep)
		siw_cm_queue_event(cep, SIW_CEP_EV_STATE);
	read_unlock_bh(&sk->sk_callback_lock);
}

/* Takes the socket's callbacks over for the MPA phase. */
static void siw_cep_attach_socket(struct siw_cep *cep, struct socket *sock)
{
	struct sock *sk = sock->sk;

	cep->sock = sock;
	write_lock_bh(&sk->sk_callback_lock);
	cep->saved_data_ready = sk->sk_data_ready;
	cep->saved_state_change = sk->sk_state_change;
	cep->saved_write_space = sk->sk_write_space;
	sk->sk_user_data = cep;
	sk->sk_data_ready = siw_cm_sk_data_ready;
	sk->sk_state_change = siw_cm_sk_state_change;
	write_unlock_bh(&sk->sk_callback_lock);
}

/*
 * Stops the socket: no more bytes in or out, and its callbacks given
 * back. Must hold cep->lock.
 */
static void siw_cep_stop_socket(struct siw_cep *cep)
{
	struct socket *sock = cep->sock;
	struct sock *sk;

	lockdep_assert_held(&cep->lock);
	if (!sock || !cep->saved_data_ready)
		return;
	sk = sock->sk;
	if (cep->abrupt)
		sock_no_linger(sk);	/* close with a reset */
	kernel_sock_shutdown(sock, SHUT_RDWR);
	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = cep->saved_data_ready;
	sk->sk_state_change = cep->saved_state_change;
	sk->sk_write_space = cep->saved_write_space;
	write_unlock_bh(&sk->sk_callback_lock);
	cep->saved_data_ready = NULL;
	/*
	 * The shutdown called our state callback, which only queues work:
	 * wake, through the socket's own, anyone waiting on the socket, so
	 * that it sees the shutdown now rather than at the next ACK.
	 */
	sk->sk_state_change(sk);
}

/* Stops and releases the socket. Must hold cep->lock. */
static void siw_cep_close_socket(struct siw_cep *cep)
{
	lockdep_assert_held(&cep->lock);
	if (!cep->sock)
		return;
	siw_cep_stop_socket(cep);
	sock_release(cep->sock);
	cep->sock = NULL;
}

/* --- events to iw_cm ---------------------------------------------------- */

/*
 * An IPv4 peer of a dual-stack [::] listener shows as ::ffff:a.b.c.d.
 * rdma_cm finds the netdev of a connection request by its local address
 * and knows no IPv4-mapped ones, so it would reject the request: hand it
 * the plain IPv4 address.
 */
static void siw_unmap_v4(struct sockaddr_storage *a)
{
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)a;
	struct sockaddr_in *a4 = (struct sockaddr_in *)a;
	__be32 v4;
	__be16 port;

	if (a->ss_family != AF_INET6 || !ipv6_addr_v4mapped(&a6->sin6_addr))
		return;
	v4 = a6->sin6_addr.s6_addr32[3];
	port = a6->sin6_port;
	memset(a, 0, sizeof(*a));
	a4->sin_family = AF_INET;
	a4->sin_port = port;
	a4->sin_addr.s_addr = v4;
}

static int siw_cm_event(struct siw_cep *cep, struct iw_cm_id *cm_id,
			enum iw_cm_event_type type, int status,
			const void *pdata, u16 pdata_len)
{
	struct iw_cm_event ev = {
		.event = type,
		.status = status,
		.private_data = (void *)pdata,
		.private_data_len = pdata_len,
	};

	if (type == IW_CM_EVENT_CONNECT_REQUEST) {
		ev.provider_data = cep;
		ev.ird = cep->peer_ird;
		ev.ord = cep->peer_ord;
	} else if (type == IW_CM_EVENT_CONNECT_REPLY ||
		   type == IW_CM_EVENT_ESTABLISHED) {
		ev.ird = cep->result.ird;
		ev.ord = cep->result.ord;
	}
	if (cep->sock) {
		kernel_getsockname(cep->sock, (struct sockaddr *)&ev.local_addr);
		kernel_getpeername(cep->sock, (struct sockaddr *)&ev.remote_addr);
		siw_unmap_v4(&ev.local_addr);
		siw_unmap_v4(&ev.remote_addr);
	}
	return cm_id->event_handler(cm_id, &ev);
}

/* Drops the endpoint's hold on its cm_id. Must hold cep->lock. */
static void siw_cep_drop_cm_id(struct siw_cep *cep)
{
	lockdep_assert_held(&cep->lock);
	if (!cep->cm_id)
		return;
	cep->cm_id->provider_data = NULL;
	cep->cm_id->rem_ref(cep->cm_id);
	cep->cm_id = NULL;
}

/* Drops the endpoint's reference on its QP. Must hold cep->lock. */
static void siw_cep_drop_qp(struct siw_cep *cep)
{
	lockdep_assert_held(&cep->lock);
	if (!cep->qp)
		return;
	siw_qp_cm_unbind(cep->qp);
	siw_qp_put(cep->qp);
	cep->qp = NULL;
}

/* Stops the MPA exchange's timer. Must hold cep->lock. */
static void siw_cep_stop_timer(struct siw_cep *cep)
{
	lockdep_assert_held(&cep->lock);
	if (cancel_delayed_work(&cep->timer))
		siw_cep_put(cep);	/* the timer's reference */
}

/* Ends a connection attempt or connection for good. Must hold cep->lock. */
static void siw_cep_teardown(struct siw_cep *cep)
{
	lockdep_assert_held(&cep->lock);
	if (cep->state == SIW_CEP_CLOSED)
		return;
	siw_cep_stop_timer(cep);
	/* The QP lets go of the socket only once it is quiet. */
	siw_cep_stop_socket(cep);
	if (cep->qp && cep->state == SIW_CEP_ESTABLISHED)
		siw_qp_disconnected(cep->qp);
	siw_cep_close_socket(cep);
	siw_cep_drop_qp(cep);
	siw_cep_drop_cm_id(cep);
	siw_cep_set_state(cep, SIW_CEP_CLOSED);
	cep->owner_put_pending = true;
}

/* Releases cep->lock, then the owner's reference if teardown ended it. */
static void siw_cep_unlock(struct siw_cep *cep)
{
	bool put;

	lockdep_assert_held(&cep->lock);
	put = cep->owner_put_pending;

	cep->owner_put_pending = false;
	mutex_unlock(&cep->lock);
	if (put)
		siw_cep_put(cep);
}

/* --- reading and writing MPA frames ------------------------------------- */

static int siw_send_all(struct socket *sock, const void *buf, size_t len)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	int n = kernel_sendmsg(sock, &msg, &iov, 1, len);

	return n == len ? 0 : n < 0 ? n : -EIO;
}

/*
 * Whether a revision 1 frame of this kind must carry the legacy IRD/ORD
 * words: a request, if we take them; a reply, only if our request, of
 * revision 1, carried them.
 */
static bool siw_cep_legacy(const struct siw_cep *cep, enum siw_mpa_kind kind)
{
	return cep->params.legacy &&
	       (kind == SIW_MPA_REQUEST ||
		cep->params.revision == SIW_MPA_REV_1);
}

/*
 * Reads the MPA request or reply into cep->mpa, never past its end: what
 * follows belongs to the QP. Returns 1 when the frame is complete, 0 when
 * more must arrive, or a negative error (-EPROTO: malformed).
 */
static int siw_cep_read_mpa(struct siw_cep *cep, enum siw_mpa_kind kind,
			    struct siw_mpa_info *info)
{
	lockdep_assert_held(&cep->lock);
	for (;;) {
		struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
		enum siw_mpa_err perr;
		struct kvec iov;
		u32 need;
		int n;

		perr = siw_mpa_parse(cep->mpa, cep->mpa_have, kind,
				     siw_cep_legacy(cep, kind) ?
				     SIW_MPA_PARSE_LEGACY : 0, info);
		if (perr == SIW_MPA_OK) {
			trace_siw_mpa_frame(cep, false, info);
			return 1;
		}
		if (perr == SIW_MPA_E_SHORT_HDR)
			need = SIW_MPA_RR_HDR_LEN;
		else if (perr == SIW_MPA_E_SHORT_PD)
			need = SIW_MPA_RR_HDR_LEN +
			       siw_get_be16(cep->mpa + SIW_MPA_KEY_LEN + 2);
		else
			return -EPROTO;
		if (need > sizeof(cep->mpa) || need <= cep->mpa_have)
			return -EPROTO;

		iov.iov_base = cep->mpa + cep->mpa_have;
		iov.iov_len = need - cep->mpa_have;
		n = kernel_recvmsg(cep->sock, &msg, &iov, 1, iov.iov_len,
				   MSG_DONTWAIT);
		if (n == -EAGAIN)
			return 0;
		if (n < 0)
			return n;
		if (n == 0)
			return -ECONNRESET;
		cep->mpa_have += n;
	}
}

static int siw_cep_send_mpa(struct siw_cep *cep, struct siw_mpa_info *info,
			    const void *pdata, u16 pdata_len)
{
	u8 frame[SIW_MPA_RR_MAX];
	size_t len;

	info->ulp_pd = pdata;
	info->ulp_pd_len = pdata_len;
	if (siw_mpa_build(info, frame, sizeof(frame), &len) != SIW_MPA_OK)
		return -EINVAL;
	trace_siw_mpa_frame(cep, true, info);
	return siw_send_all(cep->sock, frame, len);
}

/* --- passive side -------------------------------------------------------- */

/* Takes the listener's pending connections. Must hold lcep->lock. */
static void siw_cep_accept_children(struct siw_cep *lcep)
{
	lockdep_assert_held(&lcep->lock);
	for (;;) {
		struct socket *newsock;
		struct siw_cep *cep;

		if (!lcep->sock ||
		    kernel_accept(lcep->sock, &newsock, O_NONBLOCK))
			return;
		cep = siw_cep_alloc(lcep->sdev, false);
		if (!cep) {
			sock_release(newsock);
			continue;
		}
		tcp_sock_set_nodelay(newsock->sk);
		/* Unlocked: nobody else sees the child before it is listed. */
		siw_cep_trace_state(cep, SIW_CEP_AWAIT_REQUEST, newsock->sk);
		cep->state = SIW_CEP_AWAIT_REQUEST;
		siw_cep_get(lcep);
		cep->listener = lcep;
		/* The owner reference is iw_cm's once delivered; the list's: */
		siw_cep_get(cep);
		list_add_tail(&cep->child_entry, &lcep->children);
		siw_cm_local_params(cep, siw_sockaddr_port(&lcep->cm_id->m_local_addr));
		siw_cep_attach_socket(cep, newsock);
		siw_cep_get(cep);
		queue_delayed_work(siw_cm_wq, &cep->timer, cep->timeout);
		/* Bytes may have arrived before our callbacks. */
		siw_cm_queue_event(cep, SIW_CEP_EV_DATA);
	}
}

/* A failed connection attempt, by its status, in the device's counters. */
static void siw_cm_count_failure(struct siw_cep *cep, int status)
{
	siw_dev_stat_inc(cep->sdev, status == -ECONNREFUSED ?
			 SIW_STAT_CONN_REJECTED : status == -ETIMEDOUT ?
			 SIW_STAT_CONN_TIMEOUT : SIW_STAT_CONN_RESET);
}

/* An established connection, by its MPA revision and CRC mode. */
static void siw_cm_count_established(struct siw_cep *cep)
{
	siw_dev_stat_inc(cep->sdev, SIW_STAT_CONN_ESTABLISHED);
	siw_dev_stat_inc(cep->sdev, cep->result.revision == 1 ?
			 SIW_STAT_MPA_REV1 : SIW_STAT_MPA_REV2);
	siw_dev_stat_inc(cep->sdev, cep->result.crc ?
			 SIW_STAT_MPA_CRC_ON : SIW_STAT_MPA_CRC_OFF);
}

/*
 * A child that will not become a connection, for the reason given as an
 * errno (-ECONNREFUSED, -ETIMEDOUT, -ECONNRESET). Must hold cep->lock.
 */
static void siw_cep_child_abort(struct siw_cep *cep, int why)
{
	struct siw_cep *lcep = cep->listener;

	lockdep_assert_held(&cep->lock);
	siw_cm_count_failure(cep, why);
	pr_debug("siw: cep %u: incoming connection abandoned in %s\n",
		 cep->id, siw_cep_state_name(cep->state));
	cep->abrupt = true;
	siw_cep_teardown(cep);
	if (lcep) {
		/* Child, then listener: the one order (cm.c's lock classes). */
		mutex_lock(&lcep->lock);
		if (!list_empty(&cep->child_entry)) {
			list_del_init(&cep->child_entry);
			/* The list's reference; the caller holds another. */
			siw_cep_put(cep);
		}
		mutex_unlock(&lcep->lock);
		cep->listener = NULL;
		siw_cep_put(lcep);
	}
}

/* Passive side: read and answer the MPA request. Must hold cep->lock. */
static void siw_cep_got_request(struct siw_cep *cep)
{
	struct siw_mpa_info req, rep;
	int err;

	lockdep_assert_held(&cep->lock);
	err = siw_cep_read_mpa(cep, SIW_MPA_REQUEST, &req);
	if (err == 0)
		return;
	if (err < 0) {
		pr_info_ratelimited("siw: %s: malformed or failed MPA request (%d), closing\n",
				    dev_name(&cep->sdev->base_dev.dev), err);
		siw_cep_child_abort(cep, -ECONNRESET);
		return;
	}
	siw_cep_stop_timer(cep);
	if (req.markers)
		pr_info_ratelimited("siw: peer asks for markers; refused in the reply\n");
	siw_mpa_respond(&cep->params, &req, &cep->result);
	if (cep->result.verdict != SIW_MPA_ACCEPT) {
		pr_info_ratelimited("siw: MPA request refused: %s\n",
				    siw_mpa_reason_name(cep->result.reason));
		if (cep->result.verdict == SIW_MPA_REJECT) {
			siw_mpa_reply_init(&cep->result, &rep);
			rep.reject = true;
			siw_cep_send_mpa(cep, &rep, NULL, 0);
		}
		siw_cep_child_abort(cep, -ECONNREFUSED);
		return;
	}
	cep->peer_ird = req.enhanced || req.legacy ?
			min_t(u16, req.ird, 255) : SIW_MAX_IRD_QP;
	cep->peer_ord = req.enhanced || req.legacy ?
			min_t(u16, req.ord, 255) : SIW_MAX_ORD_QP;

	/*
	 * Delivered by siw_cep_deliver_request() once the child's lock is
	 * released: a kernel ULP accepts or rejects from inside the event.
	 */
	cep->req_pd = req.ulp_pd;
	cep->req_pd_len = req.ulp_pd_len;
	siw_cep_set_state(cep, SIW_CEP_REQUEST_DELIVERED);
	cep->deliver_request = true;
}

/*
 * Hands a child with a complete MPA request to iw_cm. Called without the
 * child's lock; the listener's lock keeps its cm_id.
 */
static void siw_cep_deliver_request(struct siw_cep *cep, struct siw_cep *lcep)
{
	int err = -ECONNRESET;

	mutex_lock(&lcep->lock);
	if (!list_empty(&cep->child_entry) && lcep->cm_id &&
	    lcep->state == SIW_CEP_LISTEN) {
		list_del_init(&cep->child_entry);
		/* The list's reference; the work holds another. */
		siw_cep_put(cep);
		err = siw_cm_event(cep, lcep->cm_id,
				   IW_CM_EVENT_CONNECT_REQUEST, 0,
				   cep->req_pd, cep->req_pd_len);
	}
	mutex_unlock(&lcep->lock);
	pr_debug("siw: connect request delivered: %d\n", err);

	mutex_lock(&cep->lock);
	if (cep->listener == lcep) {
		cep->listener = NULL;
		siw_cep_put(lcep);
	}
	siw_cep_put(lcep);	/* the caller's reference */
	/* iw_cm did not take it: end it, the owner reference goes too. */
	if (err) {
		siw_cm_count_failure(cep, err);
		cep->abrupt = true;
		siw_cep_teardown(cep);
	}
	siw_cep_unlock(cep);
}

int siw_accept(struct iw_cm_id *cm_id, struct iw_cm_conn_param *param)
{
	struct siw_cep *cep = cm_id->provider_data;
	struct siw_device *sdev = to_siw_dev(cm_id->device);
	struct siw_mpa_info rep;
	struct siw_qp *qp;
	int err;

	if (!cep)
		return -EINVAL;
	mutex_lock(&cep->lock);
	if (cep->state != SIW_CEP_REQUEST_DELIVERED) {
		err = -ECONNRESET;
		goto out_unlock;
	}
	qp = siw_qp_lookup(sdev, param->qpn);
	err = qp ? siw_qp_cm_bind(qp) : -EINVAL;
	if (err) {
		if (qp)
			siw_qp_put(qp);
		/*
		 * After a failed accept iw_cm neither reports events nor lets
		 * the ULP reject (its state is idle): the attempt ends here,
		 * or the endpoint and its socket would stay behind.
		 */
		cm_id->add_ref(cm_id);
		cep->cm_id = cm_id;
		goto err_teardown;
	}
	cep->qp = qp;
	cm_id->add_ref(cm_id);
	cep->cm_id = cm_id;
	/* The stock user provider has no RFC 7306 verbs (protocol.rst). */
	if (qp->user)
		cep->result.ext = false;

	if (param->ird < cep->result.ird)
		cep->result.ird = param->ird;
	if (param->ord < cep->result.ord)
		cep->result.ord = param->ord;
	siw_mpa_reply_init(&cep->result, &rep);
	err = siw_cep_send_mpa(cep, &rep, param->private_data,
			       param->private_data_len);
	if (err)
		goto err_teardown;
	siw_cep_set_user_timeout(cep);
	err = siw_qp_connected(qp, cep, cep->sock, &cep->result, false);
	if (err)
		goto err_teardown;
	trace_siw_cm_established(cep, qp->base_qp.qp_num, &cep->result,
				 qp->mulpdu);
	siw_cep_set_state(cep, SIW_CEP_ESTABLISHED);
	siw_cm_count_established(cep);
	siw_cm_event(cep, cm_id, IW_CM_EVENT_ESTABLISHED, 0, NULL, 0);
	mutex_unlock(&cep->lock);
	return 0;

err_teardown:
	siw_cm_count_failure(cep, err);
	cep->abrupt = true;
	siw_cep_teardown(cep);
out_unlock:
	siw_cep_unlock(cep);
	return err;
}

int siw_reject(struct iw_cm_id *cm_id, const void *pdata, u8 pdata_len)
{
	struct siw_cep *cep = cm_id->provider_data;
	struct siw_mpa_info rep;

	if (!cep)
		return -EINVAL;
	pr_debug("siw: cep %u: reject requested by iw_cm\n", cep->id);
	mutex_lock(&cep->lock);
	if (cep->state == SIW_CEP_REQUEST_DELIVERED && cep->sock) {
		siw_dev_stat_inc(cep->sdev, SIW_STAT_CONN_REJECTED);
		siw_mpa_reply_init(&cep->result, &rep);
		rep.reject = true;
		siw_cep_send_mpa(cep, &rep, pdata, pdata_len);
	}
	siw_cep_teardown(cep);
	cm_id->provider_data = NULL;
	siw_cep_unlock(cep);
	return 0;
}

/* --- active side --------------------------------------------------------- */

/* The active side's attempt failed: tell iw_cm. Must hold cep->lock. */
static void siw_cep_connect_failed(struct siw_cep *cep, int status,
				   const void *pdata, u16 pdata_len)
{
	struct iw_cm_id *cm_id = cep->cm_id;

	lockdep_assert_held(&cep->lock);
	pr_debug("siw: cep %u: connection attempt failed in %s: %d\n",
		 cep->id, siw_cep_state_name(cep->state), status);
	siw_cm_count_failure(cep, status);
	cep->abrupt = true;
	if (cm_id)
		siw_cm_event(cep, cm_id, IW_CM_EVENT_CONNECT_REPLY, status,
			     pdata, pdata_len);
	siw_cep_teardown(cep);
}

/* Active side: TCP is connected, send the MPA request. Must hold cep->lock. */
static void siw_cep_tcp_connected(struct siw_cep *cep)
{
	struct sock *sk = cep->sock->sk;
	struct siw_mpa_info req;

	lockdep_assert_held(&cep->lock);
	if (sk->sk_state != TCP_ESTABLISHED) {
		if (sk->sk_state == TCP_CLOSE)
			siw_cep_connect_failed(cep, sk->sk_err ? -sk->sk_err :
					       -ECONNREFUSED, NULL, 0);
		return;
	}
	siw_mpa_request_init(&cep->params, &req);
	if (siw_cep_send_mpa(cep, &req, cep->pd, cep->pd_len)) {
		siw_cep_connect_failed(cep, -ECONNRESET, NULL, 0);
		return;
	}
	siw_cep_set_state(cep, SIW_CEP_AWAIT_REPLY);
}

/* Active side: read and check the MPA reply. Must hold cep->lock. */
static void siw_cep_got_reply(struct siw_cep *cep)
{
	struct siw_mpa_info rep;
	int err;

	lockdep_assert_held(&cep->lock);
	err = siw_cep_read_mpa(cep, SIW_MPA_REPLY, &rep);
	if (err == 0)
		return;
	if (err < 0) {
		pr_info_ratelimited("siw: malformed or failed MPA reply (%d)\n",
				    err);
		siw_cep_connect_failed(cep, -ECONNRESET, NULL, 0);
		return;
	}
	if (rep.reject) {
		siw_cep_connect_failed(cep, -ECONNREFUSED, rep.ulp_pd,
				       rep.ulp_pd_len);
		return;
	}
	siw_mpa_check_reply(&cep->params, &rep, &cep->result);
	if (cep->result.verdict != SIW_MPA_ACCEPT) {
		pr_info_ratelimited("siw: MPA reply not acceptable: %s\n",
				    siw_mpa_reason_name(cep->result.reason));
		siw_cep_connect_failed(cep, -ECONNREFUSED, NULL, 0);
		return;
	}
	siw_cep_stop_timer(cep);
	siw_cep_set_user_timeout(cep);
	err = siw_qp_connected(cep->qp, cep, cep->sock, &cep->result, true);
	if (err) {
		siw_cep_connect_failed(cep, err, NULL, 0);
		return;
	}
	trace_siw_cm_established(cep, cep->qp->base_qp.qp_num,
				 &cep->result, cep->qp->mulpdu);
	siw_cep_set_state(cep, SIW_CEP_ESTABLISHED);
	siw_cm_count_established(cep);
	siw_cm_event(cep, cep->cm_id, IW_CM_EVENT_CONNECT_REPLY, 0,
		     rep.ulp_pd, rep.ulp_pd_len);
}

static int siw_sockaddr_len(const struct sockaddr_storage *a)
{
	return a->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
					  sizeof(struct sockaddr_in);
}

/* How siw_create_socket() binds. */
enum {
	/*
	 * An IPv6 socket that must not take IPv4 too. It has to be set
	 * before the bind, or [::]:P collides with an IPv4 listener on
	 * 0.0.0.0:P (rdma_cm users such as knfsd listen on both, the IPv6
	 * one AF-only).
	 */
	SIW_SOCK_V6ONLY = 1 << 0,
	/*
	 * A wildcard address means the wildcard of this device's netdev
	 * only. rdma_cm listens on every RDMA device for a wildcard; two
	 * siw devices in one namespace would otherwise both bind 0.0.0.0:P
	 * and the second would fail with EADDRINUSE. Local connections to
	 * the netdev's addresses still match: the kernel routes them over
	 * loopback but gives them the address's device as input interface.
	 */
	SIW_SOCK_DEV_WILDCARD = 1 << 1,
};

static bool siw_addr_is_loopback(const struct sockaddr_storage *a)
{
	const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)a;
	const struct sockaddr_in *a4 = (const struct sockaddr_in *)a;

	if (a->ss_family == AF_INET6)
		return ipv6_addr_loopback(&a6->sin6_addr);
	return ipv4_is_loopback(a4->sin_addr.s_addr);
}

static bool siw_addr_is_wildcard(const struct sockaddr_storage *a)
{
	const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)a;
	const struct sockaddr_in *a4 = (const struct sockaddr_in *)a;

	if (a->ss_family == AF_INET6)
		return ipv6_addr_any(&a6->sin6_addr);
	return a4->sin_addr.s_addr == htonl(INADDR_ANY);
}

/* A TCP socket bound to @laddr in the netdev's namespace, as @how says. */
static int siw_create_socket(struct siw_device *sdev,
			     const struct sockaddr_storage *laddr,
			     unsigned int how, struct socket **sockp)
{
	struct socket *sock;
	int err;

	err = sock_create_kern(dev_net(sdev->netdev), laddr->ss_family,
			       SOCK_STREAM, IPPROTO_TCP, &sock);
	if (err)
		return err;
	sock_set_reuseaddr(sock->sk);
	if ((how & SIW_SOCK_V6ONLY) && laddr->ss_family == AF_INET6)
		ip6_sock_set_v6only(sock->sk);
	if ((how & SIW_SOCK_DEV_WILDCARD) && siw_addr_is_wildcard(laddr)) {
		err = sock_bindtoindex(sock->sk, sdev->netdev->ifindex, true);
		if (err)
			goto err_release;
	}

	err = kernel_bind(sock, siw_sockaddr_arg(laddr),
			  siw_sockaddr_len(laddr));
	if (err)
		goto err_release;
	*sockp = sock;
	return 0;

err_release:
	sock_release(sock);
	return err;
}

int siw_connect(struct iw_cm_id *cm_id, struct iw_cm_conn_param *param)
{
	struct siw_device *sdev = to_siw_dev(cm_id->device);
	struct siw_cep *cep;
	struct socket *sock;
	struct siw_qp *qp;
	int err;

	if (param->private_data_len > SIW_MPA_PD_MAX - SIW_MPA_V2_CTRL_LEN)
		return -EINVAL;
	qp = siw_qp_lookup(sdev, param->qpn);
	if (!qp)
		return -EINVAL;
	err = siw_qp_cm_bind(qp);
	if (err) {
		siw_qp_put(qp);
		return err;
	}
	cep = siw_cep_alloc(sdev, false);
	if (!cep) {
		siw_qp_cm_unbind(qp);
		siw_qp_put(qp);
		return -ENOMEM;
	}
	mutex_lock(&cep->lock);
	cep->qp = qp;
	siw_cm_local_params(cep, siw_sockaddr_port(&cm_id->m_remote_addr));
	if (qp->user)
		cep->params.ext = false;
	if (siw_cep_legacy(cep, SIW_MPA_REPLY) &&
	    param->private_data_len > SIW_MPA_PD_MAX - SIW_MPA_LEGACY_LEN) {
		err = -EINVAL;
		goto err_teardown;
	}
	cep->params.ird = min_t(u32, param->ird, SIW_MAX_IRD_QP);
	cep->params.ord = min_t(u32, param->ord, SIW_MAX_ORD_QP);
	memcpy(cep->pd, param->private_data, param->private_data_len);
	cep->pd_len = param->private_data_len;
	cm_id->add_ref(cm_id);
	cep->cm_id = cm_id;
	cm_id->provider_data = cep;

	err = siw_create_socket(sdev, &cm_id->m_local_addr, 0, &sock);
	if (err == -EADDRINUSE) {
		/*
		 * rdma_cm picked the source port from its own port space and
		 * knows nothing of plain TCP sockets: one of those (say, in
		 * TIME_WAIT, bound without SO_REUSEADDR) may hold it. Any
		 * port will do for an active connection; rdma_cm learns the
		 * one used from the connect reply's local address.
		 */
		struct sockaddr_storage any = cm_id->m_local_addr;

		if (any.ss_family == AF_INET6)
			((struct sockaddr_in6 *)&any)->sin6_port = 0;
		else
			((struct sockaddr_in *)&any)->sin_port = 0;
		pr_debug("siw: source port in use, connecting from another\n");
		err = siw_create_socket(sdev, &any, 0, &sock);
	}
	if (err)
		goto err_teardown;
	tcp_sock_set_nodelay(sock->sk);
	siw_cep_attach_socket(cep, sock);
	siw_cep_set_state(cep, SIW_CEP_CONNECTING);
	siw_cep_get(cep);
	queue_delayed_work(siw_cm_wq, &cep->timer, cep->timeout);
	err = kernel_connect(sock, siw_sockaddr_arg(&cm_id->m_remote_addr),
			     siw_sockaddr_len(&cm_id->m_remote_addr),
			     O_NONBLOCK);
	if (err && err != -EINPROGRESS)
		goto err_teardown;
	/* Connected at once (loopback): the state callback may have run. */
	siw_cm_queue_event(cep, SIW_CEP_EV_STATE);
	mutex_unlock(&cep->lock);
	return 0;

err_teardown:
	siw_cm_count_failure(cep, err);
	cep->abrupt = true;
	siw_cep_teardown(cep);
	siw_cep_unlock(cep);
	return err;
}

/* --- listening ----------------------------------------------------------- */

int siw_create_listen(struct iw_cm_id *cm_id, int backlog)
{
	struct siw_device *sdev = to_siw_dev(cm_id->device);
	struct siw_cep *cep;
	struct socket *sock;
	int err;

	cep = siw_cep_alloc(sdev, true);
	if (!cep)
		return -ENOMEM;
	/*
	 * A loopback address (127.0.0.0/8, ::1): rdma_cm treats it like a
	 * wildcard and listens on every RDMA device, but its connections
	 * all arrive on lo, and rdma_cm gives each to the device whose GID
	 * is lo's hardware address: the siw device on lo (netdev.c). Only
	 * that one listens; the others keep a listener without a socket,
	 * as rdma_cm fails the whole listen if one device refuses.
	 */
	if (siw_addr_is_loopback(&cm_id->m_local_addr) &&
	    !(sdev->netdev->flags & IFF_LOOPBACK)) {
		sock = NULL;
		goto listening;
	}
	err = siw_create_socket(sdev, &cm_id->m_local_addr,
				SIW_SOCK_DEV_WILDCARD |
				(cm_id->afonly ? SIW_SOCK_V6ONLY : 0), &sock);
	if (err)
		goto err_free;
	err = kernel_listen(sock, backlog);
	if (err) {
		sock_release(sock);
		goto err_free;
	}
listening:
	mutex_lock(&cep->lock);
	cm_id->add_ref(cm_id);
	cep->cm_id = cm_id;
	cm_id->provider_data = cep;
	siw_cep_set_state(cep, SIW_CEP_LISTEN);	/* traced with cm_id's address */
	if (sock)
		siw_cep_attach_socket(cep, sock);
	mutex_unlock(&cep->lock);
	/* Connections may be waiting already. */
	siw_cm_queue_event(cep, SIW_CEP_EV_ACCEPT);
	return 0;

err_free:
	siw_cep_put(cep);
	return err;
}

int siw_destroy_listen(struct iw_cm_id *cm_id)
{
	struct siw_cep *cep = cm_id->provider_data;
	struct siw_cep *child;

	if (!cep)
		return 0;
	mutex_lock(&cep->lock);
	siw_cep_teardown(cep);
	siw_cep_get(cep);	/* keep it for the children below */
	siw_cep_unlock(cep);

	/*
	 * Children still in their MPA exchange go away with the listener.
	 * Each leaves the list under the listener's lock, as in
	 * siw_cep_child_abort(), which may run for another child meanwhile;
	 * the closed listener gains no new ones.
	 */
	for (;;) {
		mutex_lock(&cep->lock);
		child = list_first_entry_or_null(&cep->children,
						 struct siw_cep, child_entry);
		if (child)
			list_del_init(&child->child_entry);
		mutex_unlock(&cep->lock);
		if (!child)
			break;
		/* The list's reference is ours now. */
		mutex_lock(&child->lock);
		child->abrupt = true;
		siw_cep_teardown(child);
		if (child->listener) {
			child->listener = NULL;
			siw_cep_put(cep);
		}
		siw_cep_unlock(child);
		siw_cep_put(child);
	}
	siw_cep_put(cep);
	return 0;
}

/* --- closing ------------------------------------------------------------- */

/*
 * The connection of an established endpoint ends: the peer closed or reset
 * it, or our QP went to error. iw_cm hears DISCONNECT (for a peer's close)
 * and then CLOSE, after which it owns nothing of ours. Must hold lock.
 */
static void siw_cep_established_close(struct siw_cep *cep)
{
	struct iw_cm_id *cm_id = cep->cm_id;

	lockdep_assert_held(&cep->lock);
	if (cep->state != SIW_CEP_ESTABLISHED)
		return;
	pr_debug("siw: QP %u: connection closes (peer closed %d)\n",
		 cep->qp ? cep->qp->base_qp.qp_num : 0, cep->peer_closed);
	if (cep->qp)
		siw_qp_to_error(cep->qp);
	if (cm_id && cep->peer_closed)
		siw_cm_event(cep, cm_id, IW_CM_EVENT_DISCONNECT, 0, NULL, 0);
	if (cm_id)
		siw_cm_event(cep, cm_id, IW_CM_EVENT_CLOSE, 0, NULL, 0);
	siw_cep_teardown(cep);
}

/* --- the work function --------------------------------------------------- */

/*
 * SIW_CEP_EV_STATE outside CONNECTING: true if the peer closed or reset
 * the connection, which is then noted. Must hold cep->lock.
 */
static bool siw_cep_peer_gone(struct siw_cep *cep)
{
	lockdep_assert_held(&cep->lock);
	if (!cep->sock || cep->sock->sk->sk_state == TCP_ESTABLISHED)
		return false;
	cep->peer_closed = true;
	return true;
}

static void siw_cep_note_peer_gone(struct siw_cep *cep)
{
	siw_cep_peer_gone(cep);
}

static void siw_cep_established_peer_gone(struct siw_cep *cep)
{
	if (siw_cep_peer_gone(cep))
		siw_cep_established_close(cep);
}

static void siw_cep_reply_peer_gone(struct siw_cep *cep)
{
	if (!siw_cep_peer_gone(cep))
		return;
	/* A complete reply may still wait unread. */
	siw_cep_got_reply(cep);
	if (cep->state == SIW_CEP_AWAIT_REPLY)
		siw_cep_connect_failed(cep, -ECONNRESET, NULL, 0);
}

static void siw_cep_request_peer_gone(struct siw_cep *cep)
{
	if (siw_cep_peer_gone(cep))
		siw_cep_child_abort(cep, -ECONNRESET);
}

static void siw_cep_connect_timed_out(struct siw_cep *cep)
{
	siw_cep_connect_failed(cep, -ETIMEDOUT, NULL, 0);
}

static void siw_cep_request_timed_out(struct siw_cep *cep)
{
	siw_cep_child_abort(cep, -ETIMEDOUT);
}

/*
 * What each event does in each state; nothing where there is no entry.
 * Bytes come before the TCP state: a reject reply is followed at once by
 * the close.
 */
static void (*const siw_cep_handler[SIW_CEP_EV_NUM][SIW_CEP_NUM_STATES])
	(struct siw_cep *cep) = {
	[SIW_CEP_EV_ACCEPT] = {
		[SIW_CEP_LISTEN] = siw_cep_accept_children,
	},
	[SIW_CEP_EV_DATA] = {
		[SIW_CEP_AWAIT_REQUEST] = siw_cep_got_request,
		[SIW_CEP_AWAIT_REPLY] = siw_cep_got_reply,
	},
	[SIW_CEP_EV_STATE] = {
		[SIW_CEP_IDLE] = siw_cep_note_peer_gone,
		[SIW_CEP_LISTEN] = siw_cep_note_peer_gone,
		[SIW_CEP_CONNECTING] = siw_cep_tcp_connected,
		[SIW_CEP_AWAIT_REPLY] = siw_cep_reply_peer_gone,
		[SIW_CEP_AWAIT_REQUEST] = siw_cep_request_peer_gone,
		[SIW_CEP_REQUEST_DELIVERED] = siw_cep_note_peer_gone,
		[SIW_CEP_ESTABLISHED] = siw_cep_established_peer_gone,
		[SIW_CEP_CLOSED] = siw_cep_note_peer_gone,
	},
	[SIW_CEP_EV_TIMEOUT] = {
		[SIW_CEP_CONNECTING] = siw_cep_connect_timed_out,
		[SIW_CEP_AWAIT_REPLY] = siw_cep_connect_timed_out,
		[SIW_CEP_AWAIT_REQUEST] = siw_cep_request_timed_out,
	},
	/* The QP went down; before it connected there is nothing to close. */
	[SIW_CEP_EV_CLOSE] = {
		[SIW_CEP_ESTABLISHED] = siw_cep_established_close,
	},
};

static void siw_cep_work(struct work_struct *work)
{
	struct siw_cep *cep = container_of(work, struct siw_cep, work);
	struct siw_cep *lcep;
	int ev;

	mutex_lock(&cep->lock);
	for (ev = 0; ev < SIW_CEP_EV_NUM; ev++) {
		void (*handle)(struct siw_cep *cep);

		if (!test_and_clear_bit(ev, &cep->events))
			continue;
		handle = siw_cep_handler[ev][cep->state];
		if (handle)
			handle(cep);
	}
	lcep = NULL;
	if (cep->deliver_request && cep->listener &&
	    cep->state == SIW_CEP_REQUEST_DELIVERED) {
		lcep = cep->listener;
		siw_cep_get(lcep);
	}
	cep->deliver_request = false;
	siw_cep_unlock(cep);
	if (lcep)
		siw_cep_deliver_request(cep, lcep);
	siw_cep_put(cep);	/* the work's reference */
}

static void siw_cep_timeout(struct work_struct *work)
{
	struct siw_cep *cep = container_of(to_delayed_work(work),
					   struct siw_cep, timer);

	siw_cm_queue_event(cep, SIW_CEP_EV_TIMEOUT);
	siw_cep_put(cep);	/* the timer's reference */
}

/* Called by the QP when it leaves RTS: the connection must end. */
void siw_cm_qp_down(struct siw_cep *cep, bool abrupt)
{
	if (abrupt)
		cep->abrupt = true;
	siw_cm_queue_event(cep, SIW_CEP_EV_CLOSE);
}

/*
 * iw_cm's reference: the one siw_get_qp() took for it if there is one
 * left, else a new one.
 */
static void siw_qp_get_ref(struct ib_qp *base_qp)
{
	struct siw_qp *qp = to_siw_qp(base_qp);

	if (atomic_dec_if_positive(&qp->cm_lookup_refs) < 0)
		siw_qp_get(qp);
}

static void siw_qp_put_ref(struct ib_qp *qp)
{
	siw_qp_put(to_siw_qp(qp));
}

static struct ib_qp *siw_get_qp(struct ib_device *ibdev, int qpn)
{
	struct siw_qp *qp = siw_qp_lookup(to_siw_dev(ibdev), qpn);

	if (!qp)
		return NULL;
	/*
	 * The lookup's reference stays, for iw_cm: it calls iw_add_ref
	 * right after this, under its lock, and that takes this reference
	 * over (siw_qp_get_ref). Dropped here, it could be the QP's last,
	 * with destroy_qp on another CPU freeing the QP before iw_add_ref.
	 */
	atomic_inc(&qp->cm_lookup_refs);
	return &qp->base_qp;
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

int siw_cm_init(void)
{
	siw_cm_wq = alloc_ordered_workqueue("siw_cm", WQ_MEM_RECLAIM);
	return siw_cm_wq ? 0 : -ENOMEM;
}

void siw_cm_exit(void)
{
	destroy_workqueue(siw_cm_wq);
}
