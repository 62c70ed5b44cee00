// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * Following the netdev a siw device is bound to: port state on up/down and
 * carrier changes, and removal of the siw device when the netdev goes away.
 *
 * The notifier is registered globally, so it sees netdevs of every network
 * namespace: a siw device on a veth inside a namespace is followed exactly
 * like one on a netdev of the initial namespace.
 */
#include <linux/netdevice.h>

#include "siw.h"

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
