/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/*
 * siw: software iWARP RNIC. Objects shared by every layer of the module.
 */
#ifndef SIW_H
#define SIW_H

#include <linux/netdevice.h>
#include <rdma/ib_verbs.h>
#include <rdma/siw-abi.h>

#include "stats.h"
#include "proto.h"
#include "knobs.h"

#define SIW_DRV_VERSION		"0.1.0"
/* The same version as query_device's fw_ver: major << 32 | minor << 16 | patch */
#define SIW_FW_VER		((0ULL << 32) | (1ULL << 16) | 0ULL)
#define SIW_VENDOR_ID		0x736977	/* "siw" */
#define SIW_VENDOR_PART_ID	1

/*
 * Capacities the device advertises in query_device. They are what the
 * object tables are sized for; verbs that create objects enforce them.
 */
#define SIW_MAX_QP		(16 * 1024)
#define SIW_MAX_QP_WR		(16 * 1024)
#define SIW_MAX_ORD_QP		128
#define SIW_MAX_IRD_QP		128
/* ORQ and IRQ entries a QP starts with, before a connection agrees its ORD, IRD. */
#define SIW_RD_QUEUE_START	4
/* A Read may scatter into as many SGEs as any work request (rx.c). */
#define SIW_MAX_SGE_RD		SIW_MAX_SGE
#define SIW_MAX_CQ		(16 * 1024)
#define SIW_MAX_CQE		(64 * 1024)
#define SIW_MAX_MR		(SIW_UOBJ_MAX_KEY + 1)
#define SIW_MAX_PD		(16 * 1024)
#define SIW_MAX_SRQ		(16 * 1024)
#define SIW_MAX_SRQ_WR		(16 * 1024)
#define SIW_MAX_CONTEXT		1024
#define SIW_MAX_MR_SIZE		(1ULL << 40)
#define SIW_MAX_MSG_SIZE	0x80000000U
#define SIW_MAX_FRMR_PAGES	(64 * 1024)
/* The port's GIDs: the MAC padded with zeroes, and its link-local form. */
#define SIW_GID_TBL_LEN		2
/* How long a Terminate may take to be acknowledged before we close. */
#define SIW_TERM_ACK_WAIT_MS	250


/*
 * One siw device: an ib_device bound to exactly one netdev.
 *
 * netdev holds a reference (dev_hold) from link creation until
 * dealloc_driver, so the pointer stays valid for the device's lifetime even
 * while the netdev itself is being unregistered.
 */
struct siw_device {
	struct ib_device base_dev;
	struct net_device *netdev;
	u32 dev_id;			/* reported to the provider */
	atomic_t num_ctx;		/* user contexts, bounded by SIW_MAX_CONTEXT */
	atomic_t num_pd;		/* PDs, bounded by SIW_MAX_PD */
	atomic_t num_cq;
	atomic_t num_qp;
	atomic_t num_srq;
	atomic_t num_mr;
	atomic_t next_cq_id;
	/* QP number -> struct siw_qp; lookups under its lock (siw_qp_lookup). */
	struct xarray qp_xa;
	u32 next_qpn;
	struct siw_mem *dma_mem;	/* the local DMA lkey's region */
	/* STag index -> struct siw_mem; RCU lookups. */
	struct xarray mem_xa;
	/*
	 * On lo only: the hardware address siw gave it (netdev.c), to be
	 * taken back when the device goes, and the entry on the list of
	 * such devices; all under RTNL.
	 */
	bool lo_addr_set;
	u8 lo_addr[ETH_ALEN];
	struct list_head lo_entry;
	/* Port speed as IB enums; written under RTNL, read locklessly. */
	u16 active_speed;
	u8 active_width;
	struct siw_knobs knobs;
	/*
	 * RFC 7306 Atomic Requests from any peer execute under it, one at a
	 * time, so they are atomic with respect to each other on this device
	 * (IB_ATOMIC_HCA). Taken by the transmit path (tx_lock held); a leaf.
	 */
	spinlock_t atomic_lock;
	/*
	 * Counters (stats.h): destroyed QPs' sums, under stats_lock (a leaf,
	 * see stats.c); the per-device ones, atomics.
	 */
	spinlock_t stats_lock;
	u64 stats_retired[SIW_STAT_QP_NUM];
	atomic64_t stats_dev[SIW_STAT_DEV_NUM];
};

struct siw_ucontext {
	struct ib_ucontext base_ucontext;
};

struct siw_pd {
	struct ib_pd base_pd;
};

static inline struct siw_device *to_siw_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct siw_device, base_dev);
}

static inline struct siw_pd *to_siw_pd(struct ib_pd *pd)
{
	return container_of(pd, struct siw_pd, base_pd);
}

/* device.c */
int siw_device_add(const char *ibdev_name, struct net_device *netdev);
void siw_port_event(struct siw_device *sdev, enum ib_event_type type);
int siw_port_active(struct net_device *netdev);
void siw_update_link_speed(struct siw_device *sdev);

/* knobs.c */
void siw_knobs_init(struct siw_knobs *k);
void siw_knobs_get(struct siw_device *sdev, struct siw_knobs *k);
extern const struct attribute_group siw_knob_group;

/* netdev.c */
void siw_netdev_lo_addr_set(struct siw_device *sdev);
void siw_netdev_lo_addr_clear(struct siw_device *sdev);
int siw_netdev_init(void);
void siw_netdev_exit(void);

/* verbs.c: ib_device_ops for the verbs themselves */
extern const struct ib_device_ops siw_verbs_ops;

/* cm.c: ib_device_ops for iw_cm */
extern const struct ib_device_ops siw_cm_ops;

#include "qp.h"
#include "mem.h"

#endif /* SIW_H */
