// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * Following the netdev a siw device is bound to: port state on up/down and
 * carrier changes, and removal of the siw device when the netdev goes away;
 * and the hardware address siw gives lo.
 *
 * The notifier is registered globally, so it sees netdevs of every network
 * namespace: a siw device on a veth inside a namespace is followed exactly
 * like one on a netdev of the initial namespace.
 */
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>

#include "siw.h"

/*
 * siw on the loopback device.
 *
 * rdma_cm treats 127.0.0.0/8 and ::1 like the wildcard address: a client
 * connecting to one takes the first RDMA device whose port is up and
 * reads its GID 0 from the core's GID cache (cma_bind_loopback()), and a
 * listener hands an incoming connection to the device whose GID is lo's
 * hardware address (cma_iw_acquire_dev()). An iWARP device's GID 0 is its
 * netdev's hardware address, and lo's is all zeroes: the core never
 * stores a zero GID (add_modify_gid() turns it into an empty slot), so
 * neither could find a device.
 *
 * So while a siw device sits on lo, lo gets a random locally administered
 * unicast address (NET_ADDR_RANDOM), which is also that device's GID 0.
 * Random, because rdma_cm searches the devices of every namespace, and
 * each namespace's lo would otherwise carry the same one. The cost, in
 * Documentation/protocol.rst: frames on lo carry it, and a frame written
 * onto lo by hand (AF_PACKET) with another destination is dropped.
 *
 * siw_lo_owners lists the devices that set an address, under RTNL. A new
 * device on a lo whose old device is still going away takes the address
 * over, so that the old one does not zero it under the new one's GID.
 */
static LIST_HEAD(siw_lo_owners);

void siw_netdev_lo_addr_set(struct siw_device *sdev)
{
	struct net_device *nd = sdev->netdev;
	struct siw_device *old;
	u8 addr[ETH_ALEN];

	ASSERT_RTNL();
	if (!(nd->flags & IFF_LOOPBACK) || nd->addr_len != ETH_ALEN)
		return;
	list_for_each_entry(old, &siw_lo_owners, lo_entry) {
		if (old->netdev == nd) {
			list_del(&old->lo_entry);
			old->lo_addr_set = false;
			ether_addr_copy(sdev->lo_addr, old->lo_addr);
			goto own;
		}
	}
	if (!is_zero_ether_addr(nd->dev_addr))
		return;		/* somebody else's */
	eth_random_addr(addr);
	if (siw_pre_changeaddr_notify(nd, addr, NULL))
		return;
	dev_addr_set(nd, addr);
	nd->addr_assign_type = NET_ADDR_RANDOM;
	ether_addr_copy(sdev->lo_addr, addr);
	call_netdevice_notifiers(NETDEV_CHANGEADDR, nd);
	pr_info("siw: %s has the address %pM while siw is on it (rdma_cm finds devices by it)\n",
		nd->name, addr);
own:
	sdev->lo_addr_set = true;
	list_add(&sdev->lo_entry, &siw_lo_owners);
}

/* Takes the address back, unless it changed meanwhile; not under RTNL. */
void siw_netdev_lo_addr_clear(struct siw_device *sdev)
{
	struct net_device *nd = sdev->netdev;
	static const u8 zero[ETH_ALEN];

	if (!(nd->flags & IFF_LOOPBACK))
		return;		/* lo stays lo: no RTNL for other devices */
	rtnl_lock();
	if (!sdev->lo_addr_set)
		goto out;
	list_del(&sdev->lo_entry);
	sdev->lo_addr_set = false;
	if (nd->reg_state == NETREG_REGISTERED &&
	    ether_addr_equal(nd->dev_addr, sdev->lo_addr) &&
	    !siw_pre_changeaddr_notify(nd, zero, NULL)) {
		dev_addr_set(nd, zero);
		nd->addr_assign_type = NET_ADDR_PERM;
		call_netdevice_notifiers(NETDEV_CHANGEADDR, nd);
	}
out:
	rtnl_unlock();
}

/* Called with RTNL held. */
static int siw_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *netdev = netdev_notifier_info_to_dev(ptr);
	struct ib_device *ibdev;
	struct siw_device *sdev;

	ASSERT_RTNL();

	ibdev = ib_device_get_by_netdev(netdev, RDMA_DRIVER_SIW);
	if (!ibdev)
		return NOTIFY_DONE;
	sdev = to_siw_dev(ibdev);

	switch (event) {
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		siw_update_link_speed(sdev);
		siw_port_event(sdev, siw_port_active(netdev) ?
			       IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR);
		break;
	case NETDEV_CHANGEADDR:
		siw_port_event(sdev, IB_EVENT_GID_CHANGE);
		break;
	case NETDEV_UNREGISTER:
		/*
		 * Unregistering the ib_device cannot happen under RTNL: hand
		 * it to ib_core's work queue. The netdev's unregistration
		 * waits for our reference, dropped in dealloc_driver.
		 */
		ib_unregister_device_queued(ibdev);
		break;
	default:
		/* MTU changes need no event: query_port reads the netdev. */
		break;
	}

	ib_device_put(ibdev);
	return NOTIFY_DONE;
}

static struct notifier_block siw_netdev_notifier = {
	.notifier_call = siw_netdev_event,
};

int siw_netdev_init(void)
{
	return register_netdevice_notifier(&siw_netdev_notifier);
}

void siw_netdev_exit(void)
{
	unregister_netdevice_notifier(&siw_netdev_notifier);
}
