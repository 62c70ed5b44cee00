// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * The siw ib_device: creation on `rdma link add`, attributes, port state,
 * and release.
 */
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/idr.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/iw_cm.h>

#include "siw.h"

/* Numbers handed to the provider as siw_uresp_alloc_ctx.dev_id. */
static DEFINE_IDA(siw_dev_ida);

/*
 * Serialises siw_device_add(): the checks "name unused" and "netdev has no
 * siw device yet" and the registration that makes both true must not
 * interleave with another link add.
 */
static DEFINE_MUTEX(siw_add_mutex);

static int siw_query_device(struct ib_device *ibdev,
			    struct ib_device_attr *attr, struct ib_udata *udata)
{
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;

	memset(attr, 0, sizeof(*attr));
	attr->fw_ver = SIW_FW_VER;
	attr->sys_image_guid = ibdev->node_guid;
	attr->max_mr_size = SIW_MAX_MR_SIZE;
	attr->page_size_cap = PAGE_SIZE;
	attr->vendor_id = SIW_VENDOR_ID;
	attr->vendor_part_id = SIW_VENDOR_PART_ID;
	attr->hw_ver = 0;
	attr->max_qp = SIW_MAX_QP;
	attr->max_qp_wr = SIW_MAX_QP_WR;
	attr->max_send_sge = SIW_MAX_SGE;
	attr->max_recv_sge = SIW_MAX_SGE;
	attr->max_sge_rd = SIW_MAX_SGE_RD;
	attr->max_cq = SIW_MAX_CQ;
	attr->max_cqe = SIW_MAX_CQE;
	attr->max_mr = SIW_MAX_MR;
	attr->max_pd = SIW_MAX_PD;
	attr->max_qp_rd_atom = SIW_MAX_IRD_QP;
	attr->max_qp_init_rd_atom = SIW_MAX_ORD_QP;
	attr->max_res_rd_atom = SIW_MAX_QP * SIW_MAX_IRD_QP;
	attr->max_srq = SIW_MAX_SRQ;
	attr->max_srq_wr = SIW_MAX_SRQ_WR;
	attr->max_srq_sge = SIW_MAX_SGE;
	/*
	 * RFC 7306 atomics, with a siw peer (mpa_rfc7306; with any other the
	 * post fails, protocol.rst), atomic with respect to this device's
	 * other atomics, not to the CPU's (siw_tx_atomic_response()).
	 */
	attr->atomic_cap = READ_ONCE(to_siw_dev(ibdev)->knobs.mpa_rfc7306) ?
			   IB_ATOMIC_HCA : IB_ATOMIC_NONE;
	attr->max_pkeys = 1;
	/*
	 * Fast-register MRs (alloc_mr, map_mr_sg, IB_WR_REG_MR), local
	 * invalidate and Send with Invalidate: kernel ULPs (nvme-rdma,
	 * rpcrdma) refuse a device without them.
	 */
	attr->device_cap_flags = IB_DEVICE_MEM_MGT_EXTENSIONS;
	attr->max_fast_reg_page_list_len = SIW_MAX_FRMR_PAGES;
	/* `rdma link delete` may remove a siw device. */
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	/* iWARP has no address handles, multicast or memory windows (yet). */
	attr->max_ah = 0;
	attr->max_mw = 0;
	return 0;
}

int siw_port_active(struct net_device *netdev)
{
	return netif_running(netdev) && netif_carrier_ok(netdev);
}

static int siw_query_port(struct ib_device *ibdev, u32 port,
			  struct ib_port_attr *attr)
{
	struct siw_device *sdev = to_siw_dev(ibdev);
	struct net_device *netdev = sdev->netdev;
	int active = siw_port_active(netdev);

	/* ib_core has filled in what it derives itself; we own the rest. */
	attr->state = active ? IB_PORT_ACTIVE : IB_PORT_DOWN;
	attr->phys_state = active ? IB_PORT_PHYS_STATE_LINK_UP :
				    IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = ib_mtu_int_to_enum(READ_ONCE(netdev->mtu));
	attr->gid_tbl_len = SIW_GID_TBL_LEN;
	attr->pkey_tbl_len = 1;
	attr->port_cap_flags = IB_PORT_CM_SUP | IB_PORT_DEVICE_MGMT_SUP;
	attr->max_msg_sz = SIW_MAX_MSG_SIZE;
	attr->lid = 0;
	attr->sm_lid = 0;
	attr->lmc = 0;

	attr->active_speed = READ_ONCE(sdev->active_speed);
	attr->active_width = READ_ONCE(sdev->active_width);
	return 0;
}

/*
 * The port's speed and width, as near as IB's enumerations come to the
 * netdev's Ethernet speed. A netdev that reports no speed (lo, many virtual
 * NICs) counts as 1 Gb/s, the convention ib_core uses too.
 */
static const struct {
	u32 max_mbps;
	u16 speed;
	u8 width;
} siw_speed_map[] = {
	{ 2500, IB_SPEED_SDR, IB_WIDTH_1X },
	{ 5000, IB_SPEED_DDR, IB_WIDTH_1X },
	{ 10000, IB_SPEED_QDR, IB_WIDTH_1X },
	{ 14000, IB_SPEED_FDR, IB_WIDTH_1X },
	{ 25000, IB_SPEED_EDR, IB_WIDTH_1X },
	{ 40000, IB_SPEED_QDR, IB_WIDTH_4X },
	{ 50000, IB_SPEED_HDR, IB_WIDTH_1X },
	{ 100000, IB_SPEED_EDR, IB_WIDTH_4X },
	{ 200000, IB_SPEED_HDR, IB_WIDTH_4X },
	{ U32_MAX, IB_SPEED_NDR, IB_WIDTH_4X },
};

/*
 * Must hold RTNL. Reads the link speed through ethtool and caches it for
 * query_port, which must not take RTNL itself.
 */
void siw_update_link_speed(struct siw_device *sdev)
{
	struct ethtool_link_ksettings ks = {};
	u32 mbps = SPEED_1000;
	unsigned int i;

	ASSERT_RTNL();
	if (sdev->netdev->ethtool_ops &&
	    sdev->netdev->ethtool_ops->get_link_ksettings &&
	    !__ethtool_get_link_ksettings(sdev->netdev, &ks) &&
	    ks.base.speed != SPEED_UNKNOWN && ks.base.speed)
		mbps = ks.base.speed;

	for (i = 0; i < ARRAY_SIZE(siw_speed_map) - 1; i++)
		if (mbps <= siw_speed_map[i].max_mbps)
			break;
	WRITE_ONCE(sdev->active_speed, siw_speed_map[i].speed);
	WRITE_ONCE(sdev->active_width, siw_speed_map[i].width);
}

static int siw_get_port_immutable(struct ib_device *ibdev, u32 port,
				  struct ib_port_immutable *immutable)
{
	struct ib_port_attr attr;
	int err;

	err = ib_query_port(ibdev, port, &attr);
	if (err)
		return err;

	immutable->gid_tbl_len = attr.gid_tbl_len;
	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	immutable->core_cap_flags = RDMA_CORE_PORT_IWARP;
	return 0;
}

/*
 * Two GIDs, both derived from the netdev's MAC address.
 *
 * Index 0 is the MAC padded with zeroes: for an iWARP port, rdma_cm finds
 * the device of a bound address by looking that exact value up in the GID
 * cache (the first 16 bytes of the netdev's hardware address, see
 * rdma_addr_get_sgid()), and upstream siw and other iWARP drivers report
 * the same, so tools that read index 0 see what they always did.
 *
 * Index 1 is the IPv6 link-local address the MAC gives (fe80::/64 and the
 * modified EUI-64, RFC 4291 appendix A). Nothing in the iWARP data path
 * uses it; it exists because consumers written for RoCE and InfiniBand
 * treat a GID whose low 8 bytes are zero as unset (rdma-core's test suite
 * skips every traffic test on such a port), and siw's index 0 is exactly
 * that.
 */
static int siw_query_gid(struct ib_device *ibdev, u32 port, int idx,
			 union ib_gid *gid)
{
	struct siw_device *sdev = to_siw_dev(ibdev);
	u8 mac[ETH_ALEN] = {};

	if (idx < 0 || idx >= SIW_GID_TBL_LEN)
		return -EINVAL;
	memcpy(mac, sdev->netdev->dev_addr,
	       min_t(unsigned int, sdev->netdev->addr_len, ETH_ALEN));
	memset(gid, 0, sizeof(*gid));
	if (idx == 0) {
		memcpy(gid->raw, mac, ETH_ALEN);
		return 0;
	}
	gid->raw[0] = 0xfe;
	gid->raw[1] = 0x80;
	gid->raw[8] = mac[0] ^ 0x02;	/* the universal/local bit, inverted */
	gid->raw[9] = mac[1];
	gid->raw[10] = mac[2];
	gid->raw[11] = 0xff;
	gid->raw[12] = 0xfe;
	gid->raw[13] = mac[3];
	gid->raw[14] = mac[4];
	gid->raw[15] = mac[5];
	return 0;
}

static int siw_query_pkey(struct ib_device *ibdev, u32 port, u16 idx,
			  u16 *pkey)
{
	if (idx != 0)
		return -EINVAL;
	*pkey = 0xffff;	/* iWARP has no partitions: the default key */
	return 0;
}

static void siw_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	snprintf(str, IB_FW_VERSION_NAME_MAX, "%s", SIW_DRV_VERSION);
}

/*
 * Last call ib_core makes into the driver for a device, after it has been
 * unregistered and every user is gone.
 */
static void siw_dealloc_driver(struct ib_device *ibdev)
{
	struct siw_device *sdev = to_siw_dev(ibdev);

	WARN_ON(atomic_read(&sdev->num_pd) || atomic_read(&sdev->num_ctx));
	WARN_ON(!xa_empty(&sdev->qp_xa));
	xa_destroy(&sdev->qp_xa);
	/* Regions whose release was queued may still need the device. */
	siw_mem_flush();
	siw_mem_table_destroy(sdev);
	if (sdev->dma_mem)
		siw_mem_put(sdev->dma_mem);
	siw_netdev_lo_addr_clear(sdev);
	dev_put(sdev->netdev);
	ida_free(&siw_dev_ida, sdev->dev_id);
}

static const struct ib_device_ops siw_device_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_SIW,
	.uverbs_abi_ver = SIW_ABI_VERSION,
	/*
	 * ib_core asks new drivers for netlink instead, but rdma's netlink
	 * has no driver-specific device settings; sysfs is where the MPA
	 * knobs can live per device.
	 */
	.device_group = &siw_knob_group,

	.dealloc_driver = siw_dealloc_driver,
	.get_dev_fw_str = siw_get_dev_fw_str,
	.get_port_immutable = siw_get_port_immutable,
	.query_device = siw_query_device,
	.query_gid = siw_query_gid,
	.query_pkey = siw_query_pkey,
	.query_port = siw_query_port,
	.alloc_hw_port_stats = siw_alloc_hw_port_stats,
	.get_hw_stats = siw_get_hw_stats,
};

void siw_port_event(struct siw_device *sdev, enum ib_event_type type)
{
	struct ib_event event = {
		.device = &sdev->base_dev,
		.event = type,
		.element.port_num = 1,
	};

	ib_dispatch_event(&event);
}

/* EUI-64 from the MAC; a made-up, locally administered one without a MAC. */
static void siw_set_node_guid(struct siw_device *sdev)
{
	const unsigned char *mac = sdev->netdev->dev_addr;
	u8 eui[8];

	if (sdev->netdev->addr_len == ETH_ALEN && !is_zero_ether_addr(mac)) {
		addrconf_addr_eui48(eui, mac);
	} else {
		u8 synth[ETH_ALEN] = { 0x02, 's', 'i', 'w', 0, 0 };

		synth[4] = sdev->dev_id >> 8;
		synth[5] = sdev->dev_id;
		addrconf_addr_eui48(eui, synth);
	}
	memcpy(&sdev->base_dev.node_guid, eui, sizeof(eui));
}

/*
 * Returns true when netdev has started unregistering. Taken under RTNL, so
 * that either the NETDEV_UNREGISTER notifier runs after this point and sees
 * our device, or we see the netdev going away here.
 */
static bool siw_netdev_gone(struct net_device *netdev)
{
	bool gone;

	rtnl_lock();
	gone = netdev->reg_state != NETREG_REGISTERED;
	rtnl_unlock();
	return gone;
}

/* -EEXIST if the name or the netdev has an RDMA device already. */
static int siw_link_free(const char *ibdev_name, struct net_device *netdev)
{
	struct ib_device *other;

	if (siw_ib_name_taken(ibdev_name)) {
		pr_warn("siw: cannot add link %s: an RDMA device of that name exists\n",
			ibdev_name);
		return -EEXIST;
	}
	other = ib_device_get_by_netdev(netdev, RDMA_DRIVER_SIW);
	if (other) {
		pr_warn("siw: cannot add link %s: netdev %s already has siw device %s\n",
			ibdev_name, netdev->name, dev_name(&other->dev));
		ib_device_put(other);
		return -EEXIST;
	}
	return 0;
}

/* The ib_device's attributes, as an RNIC on netdev. */
static void siw_device_attrs(struct siw_device *sdev, struct net_device *netdev)
{
	sdev->base_dev.node_type = RDMA_NODE_RNIC;
	/*
	 * On a NIC, siw's device sits under the NIC's bus device in sysfs,
	 * as a hardware RNIC's would: /sys/class/infiniband/<dev>/device/net
	 * then names the netdev, which is how rdma-core's tests and
	 * ibdev2netdev-style tools find a device's IP address. A virtual
	 * netdev (veth, dummy, lo) has no such device, and siw none either.
	 * The netdev's unregistration waits for our reference, so the bus
	 * device outlives the ib_device.
	 */
	sdev->base_dev.dev.parent = netdev->dev.parent;
	sdev->base_dev.phys_port_cnt = 1;
	/*
	 * Completions are delivered from whichever context finished the
	 * work (receive softirq, transmit worker), so a vector is only a
	 * hint to us; but kernel ULPs size their queue count by this
	 * (nvme-rdma uses min(CPUs, vectors) I/O queues), so offer one
	 * per CPU as a hardware RNIC with per-CPU interrupts would.
	 */
	sdev->base_dev.num_comp_vectors = num_possible_cpus();
	sdev->base_dev.local_dma_lkey = 0;
	/*
	 * The provider's doorbell is the legacy post_send command, which
	 * ib_core offers only to drivers that ask for it.
	 */
	sdev->base_dev.uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND);
	/* iw_cm: no port mapper; our sockets use the real addresses. */
	sdev->base_dev.iw_driver_flags = IW_F_NO_PORT_MAP;
	memcpy(sdev->base_dev.iw_ifname, netdev->name, IFNAMSIZ);
	memcpy(sdev->base_dev.node_desc, SIW_NODE_DESC_COMMON,
	       sizeof(SIW_NODE_DESC_COMMON));
	siw_set_node_guid(sdev);
	siw_knobs_init(&sdev->knobs);
	rtnl_lock();
	siw_update_link_speed(sdev);
	siw_netdev_lo_addr_set(sdev);
	rtnl_unlock();

}

int siw_device_add(const char *ibdev_name, struct net_device *netdev)
{
	struct siw_device *sdev;
	int err;

	mutex_lock(&siw_add_mutex);
	err = siw_link_free(ibdev_name, netdev);
	if (err)
		goto err_unlock;

	sdev = ib_alloc_device(siw_device, base_dev);
	if (!sdev) {
		err = -ENOMEM;
		goto err_unlock;
	}

	err = ida_alloc(&siw_dev_ida, GFP_KERNEL);
	if (err < 0)
		goto err_dealloc_device;
	sdev->dev_id = err;

	dev_hold(netdev);
	sdev->netdev = netdev;
	xa_init_flags(&sdev->qp_xa, XA_FLAGS_ALLOC1);
	spin_lock_init(&sdev->stats_lock);
	spin_lock_init(&sdev->atomic_lock);
	siw_mem_table_init(sdev);

	siw_device_attrs(sdev, netdev);
	ib_set_device_ops(&sdev->base_dev, &siw_device_ops);
	ib_set_device_ops(&sdev->base_dev, &siw_verbs_ops);
	ib_set_device_ops(&sdev->base_dev, &siw_cm_ops);

	/* From here on failures unwind through dealloc_driver. */
	sdev->dma_mem = siw_dma_mem_alloc();
	if (!sdev->dma_mem) {
		err = -ENOMEM;
		goto err_dealloc_device;
	}

	/*
	 * From here on ib_dealloc_device() undoes everything above through
	 * our dealloc_driver: the netdev reference and the id.
	 */
	err = ib_device_set_netdev(&sdev->base_dev, netdev, 1);
	if (err)
		goto err_dealloc_device;

	err = ib_register_device(&sdev->base_dev, ibdev_name, NULL);
	/* The name was taken meanwhile, or could not be looked up before. */
	if (err == -ENFILE) {
		pr_warn("siw: cannot add link %s: an RDMA device of that name exists\n",
			ibdev_name);
		err = -EEXIST;
		goto err_dealloc_device;
	}
	if (err) {
		pr_warn("siw: registering %s on %s failed: %d\n", ibdev_name,
			netdev->name, err);
		goto err_dealloc_device;
	}

	if (siw_netdev_gone(netdev)) {
		pr_warn("siw: netdev %s went away while %s was added\n",
			netdev->name, ibdev_name);
		/* Registered: unregistration frees the device. */
		ib_unregister_device(&sdev->base_dev);
		err = -ENODEV;
		goto err_unlock;
	}

	mutex_unlock(&siw_add_mutex);
	pr_info("siw: added %s on %s\n", ibdev_name, netdev->name);
	return 0;

err_dealloc_device:
	ib_dealloc_device(&sdev->base_dev);
err_unlock:
	mutex_unlock(&siw_add_mutex);
	return err;
}
