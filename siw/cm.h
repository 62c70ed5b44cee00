/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/*
 * Connection management: an endpoint ("cep") per listening socket and per
 * connection, the MPA exchange, and the hand-over of the socket to a QP.
 */
#ifndef SIW_CM_H
#define SIW_CM_H

#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>
#include <net/sock.h>
#include <rdma/iw_cm.h>

#include "proto.h"

/*
 * A connection endpoint's states, once: X(NAME), XL() for the last (a
 * tracepoint's symbol list must not end in a comma). The enum, the names
 * and the tracepoints' names come from here; which state may follow
 * which is siw_cep_next[] in cm.c.
 *
 *   CONNECTING         active: TCP connect under way
 *   AWAIT_REPLY        active: MPA request sent
 *   AWAIT_REQUEST      passive: accepted, no MPA request yet
 *   REQUEST_DELIVERED  passive: waiting for accept/reject
 *   ESTABLISHED        the QP owns the byte stream
 */
#define SIW_CEP_STATES(X, XL)	\
	X(IDLE)			\
	X(LISTEN)		\
	X(CONNECTING)		\
	X(AWAIT_REPLY)		\
	X(AWAIT_REQUEST)	\
	X(REQUEST_DELIVERED)	\
	X(ESTABLISHED)		\
	XL(CLOSED)

#define SIW_CEP_ENUM_ENTRY(name)	SIW_CEP_##name,
enum siw_cep_state {
	SIW_CEP_STATES(SIW_CEP_ENUM_ENTRY, SIW_CEP_ENUM_ENTRY)
	SIW_CEP_NUM_STATES
};
#undef SIW_CEP_ENUM_ENTRY

/*
 * Socket events, turned into work for the CM's ordered work queue and
 * handled in this order (siw_cep_work, siw_cep_handler[]).
 */
enum siw_cep_event {
	SIW_CEP_EV_ACCEPT,	/* listener: connections to accept */
	SIW_CEP_EV_DATA,	/* bytes to read (MPA phase) */
	SIW_CEP_EV_STATE,	/* TCP state changed */
	SIW_CEP_EV_TIMEOUT,	/* the MPA exchange took too long */
	SIW_CEP_EV_CLOSE,	/* the QP went down: close the connection */
	SIW_CEP_EV_NUM
};

struct siw_cep {
	struct kref ref;
	u32 id;				/* for logs and tracepoints */
	/*
	 * Serialises everything that changes the endpoint: the CM work and
	 * the iw_cm entry points. Never taken in softirq. Listeners' locks
	 * are a lock class of their own; a child's is taken before its
	 * listener's, never after (Documentation/architecture.rst, Locking).
	 */
	struct mutex lock;
	enum siw_cep_state state;
	/*
	 * A reference to the device's struct device (get_device) for the
	 * endpoint's whole life: the teardown traces and counts through sdev
	 * after the QP and cm_id, which also pin the device, are let go.
	 */
	struct siw_device *sdev;
	struct iw_cm_id *cm_id;		/* with a reference (add_ref) */
	struct socket *sock;
	struct siw_qp *qp;		/* with a reference */
	bool abrupt;			/* close with a reset */
	bool peer_closed;
	/*
	 * Teardown ended the owner's association (iw_cm's, or the
	 * listener's): its reference is dropped once the lock is released.
	 */
	bool owner_put_pending;
	/* A complete MPA request waits to be delivered to iw_cm. */
	bool deliver_request;
	const u8 *req_pd;		/* the request's ULP private data */
	u16 req_pd_len;

	/* Listener: children not yet delivered to iw_cm. Under lock. */
	struct list_head children;
	struct list_head child_entry;
	struct siw_cep *listener;	/* child: with a reference */

	unsigned long events;		/* SIW_CEP_EV_* bits, atomic */
	struct work_struct work;
	struct delayed_work timer;

	/* The MPA frame being read, and what was negotiated. */
	u8 mpa[SIW_MPA_RR_MAX];
	u32 mpa_have;
	struct siw_mpa_params params;
	struct siw_mpa_result result;
	unsigned long timeout;		/* for the MPA exchange, in jiffies */
	u32 user_timeout_ms;		/* TCP_USER_TIMEOUT once connected */
	u32 first_fpdu_wait_ms;		/* responder: siw_qp_connected() */
	u16 peer_ird, peer_ord;
	u8 pd[SIW_MPA_PD_MAX];		/* our private data (active side) */
	u16 pd_len;

	/* The socket's callbacks before we took it over. */
	void (*saved_data_ready)(struct sock *sk);
	void (*saved_state_change)(struct sock *sk);
	void (*saved_write_space)(struct sock *sk);
};

int siw_cm_init(void);
void siw_cm_exit(void);
void siw_cep_put(struct siw_cep *cep);
void siw_cm_queue_event(struct siw_cep *cep, int ev);
void siw_cm_qp_down(struct siw_cep *cep, bool abrupt);
const char *siw_cep_state_name(enum siw_cep_state s);
enum siw_cep_state siw_cep_state_of(struct siw_cep *cep);

/* iw_cm entry points */
int siw_accept(struct iw_cm_id *cm_id, struct iw_cm_conn_param *param);
int siw_reject(struct iw_cm_id *cm_id, const void *pdata, u8 pdata_len);
int siw_connect(struct iw_cm_id *cm_id, struct iw_cm_conn_param *param);
int siw_create_listen(struct iw_cm_id *cm_id, int backlog);
int siw_destroy_listen(struct iw_cm_id *cm_id);

#endif /* SIW_CM_H */
