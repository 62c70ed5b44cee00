// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * Module entry points and the "siw" rdma link type.
 *
 * `rdma link add NAME type siw netdev IF` reaches siw_newlink() through
 * ib_core's netlink handler; `rdma link delete NAME` and unregistration of
 * the netdev both end in ib_core unregistering the device, which calls our
 * dealloc_driver (device.c).
 */
#include <linux/module.h>
#include <rdma/rdma_netlink.h>

#include "siw.h"
#include "cm.h"

static int siw_newlink(const char *ibdev_name, struct net_device *netdev)
{
	return siw_device_add(ibdev_name, netdev);
}

static struct rdma_link_ops siw_link_ops = {
	.type = "siw",
	.newlink = siw_newlink,
};

static int __init siw_init(void)
{
	int err;

	err = siw_cm_init();
	if (err)
		goto err_cm;
	err = siw_tx_init();
	if (err)
		goto err_tx;
	err = siw_mem_init();
	if (err)
		goto err_mem;
	err = siw_netdev_init();
	if (err)
		goto err_netdev;

	rdma_link_register(&siw_link_ops);
	pr_info("siw: software iWARP RNIC %s loaded\n", SIW_DRV_VERSION);
	return 0;

err_netdev:
	siw_mem_exit();
err_mem:
	siw_tx_exit();
err_tx:
	siw_cm_exit();
err_cm:
	return err;
}

static void __exit siw_exit(void)
{
	/* No new links from here on, then remove every existing one. */
	rdma_link_unregister(&siw_link_ops);
	ib_unregister_driver(RDMA_DRIVER_SIW);
	siw_netdev_exit();
	siw_mem_exit();
	siw_tx_exit();
	siw_cm_exit();
	pr_info("siw: unloaded\n");
}

module_init(siw_init);
module_exit(siw_exit);

MODULE_DESCRIPTION("Software iWARP RNIC (MPA/DDP/RDMAP over TCP)");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_VERSION(SIW_DRV_VERSION);
MODULE_ALIAS_RDMA_LINK("siw");
