// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * siw_kverbs: siw's kernel verbs tested from a kernel module.
 *
 * Loading the module runs every case against the siw device that owns
 * the address addr= (in the initial network namespace): a listener there,
 * and for each case one or more connections to itself through rdma_cm.
 * Each case prints a TAP line to the kernel log:
 *
 *   siw_kverbs: ok N - description
 *   siw_kverbs: not ok N - description: what went wrong first
 *
 * then the plan "1..N" and "N passed, M failed". Loading fails (-EIO)
 * when any case failed, and -ENODEV when the run could not start, so a
 * failure is seen even by a caller that reads no log. Once loaded the
 * module holds nothing; the counts stay readable as the parameters
 * passed and failed until it is removed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/inet.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "kverbs.h"

static char *dev = "siw_kv";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "name of the siw device that must own addr");

static char *addr = "192.0.2.60";
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "IPv4 address of the siw device's netdev");

static ushort port = 19875;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "TCP port the test listens on");

static bool victim;
module_param(victim, bool, 0444);
MODULE_PARM_DESC(victim, "serve kernel QPs to userspace/siw_hostile -k instead of running the cases (victim.c)");

static bool ext_off;
module_param(ext_off, bool, 0444);
MODULE_PARM_DESC(ext_off, "the device's mpa/rfc7306 is 0: run only the case that RFC 7306's posts fail");

static struct kv_ctx *victim_kv;

static int passed;
module_param(passed, int, 0444);
MODULE_PARM_DESC(passed, "cases passed in the run at load time");

static int failed;
module_param(failed, int, 0444);
MODULE_PARM_DESC(failed, "cases failed in the run at load time");

void kv_begin(struct kv_ctx *kv, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(kv->case_name, sizeof(kv->case_name), fmt, ap);
	va_end(ap);
	kv->case_failed = false;
	kv->case_detail[0] = 0;
}

/*
 * One check of the current case. The first failed check is the case's
 * detail; later ones are logged as comments. Returns cond.
 */
bool kv_expect(struct kv_ctx *kv, bool cond, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	if (cond)
		return true;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!kv->case_failed) {
		kv->case_failed = true;
		strscpy(kv->case_detail, msg, sizeof(kv->case_detail));
	} else {
		pr_info("# %s: also: %s\n", kv->case_name, msg);
	}
	return false;
}

void kv_end(struct kv_ctx *kv)
{
	kv->cases++;
	if (kv->case_failed) {
		kv->failed++;
		pr_info("not ok %d - %s: %s\n", kv->cases, kv->case_name,
			kv->case_detail);
	} else {
		kv->passed++;
		pr_info("ok %d - %s\n", kv->cases, kv->case_name);
	}
}

/*
 * The device, the listener and the PD every connection uses. The device
 * is the one rdma_cm binds addr to; it must be the siw device named dev.
 */
static int kv_setup(struct kv_ctx *kv)
{
	int err;

	spin_lock_init(&kv->pending_lock);
	kv->addr.sin_family = AF_INET;
	kv->addr.sin_port = htons(port);
	if (!in4_pton(addr, -1, (u8 *)&kv->addr.sin_addr.s_addr, -1, NULL)) {
		pr_err("setup: addr=%s is no IPv4 address\n", addr);
		return -EINVAL;
	}
	err = victim ? kv_victim_start(kv) : kv_listen(kv);
	if (err)
		return err;
	kv->dev = kv->listen_id->device;
	if (!kv->dev) {
		pr_err("setup: no RDMA device owns %pI4\n", &kv->addr.sin_addr);
		err = -ENODEV;
		goto err_listen;
	}
	if (kv->dev->ops.driver_id != RDMA_DRIVER_SIW ||
	    strcmp(dev_name(&kv->dev->dev), dev)) {
		pr_err("setup: %pI4 belongs to %s (driver %d), not to siw device %s\n",
		       &kv->addr.sin_addr, dev_name(&kv->dev->dev),
		       kv->dev->ops.driver_id, dev);
		err = -ENODEV;
		goto err_listen;
	}
	/* The unsafe global rkey: remote access to the peer's DMA buffers. */
	kv->pd = ib_alloc_pd(kv->dev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(kv->pd)) {
		err = PTR_ERR(kv->pd);
		pr_err("setup: ib_alloc_pd: %d\n", err);
		goto err_listen;
	}
	return 0;

err_listen:
	rdma_destroy_id(kv->listen_id);
	return err;
}

static void kv_teardown(struct kv_ctx *kv)
{
	ib_dealloc_pd(kv->pd);
	rdma_destroy_id(kv->listen_id);
}

static void kv_run(struct kv_ctx *kv)
{
	if (ext_off) {
		kv_cases_rfc7306_off(kv);
		return;
	}
	kv_cases_attrs(kv);
	kv_case_cq_ctx(kv, IB_POLL_DIRECT);
	kv_case_cq_ctx(kv, IB_POLL_SOFTIRQ);
	kv_case_cq_ctx(kv, IB_POLL_WORKQUEUE);
	kv_case_cq_ctx(kv, IB_POLL_UNBOUND_WORKQUEUE);
	kv_cases_frmr(kv);
	kv_cases_invalidate(kv);
	kv_cases_drain(kv);
	kv_cases_post_errors(kv);
	kv_cases_rd_atom(kv);
	kv_cases_rfc7306(kv);
}

static int __init kv_init(void)
{
	struct kv_ctx *kv;
	int err;

	kv = kzalloc(sizeof(*kv), GFP_KERNEL);
	if (!kv)
		return -ENOMEM;
	pr_info("# siw device %s, %s port %u\n", dev, addr, port);
	err = kv_setup(kv);
	if (err) {
		pr_info("Bail out! setup failed: %d\n", err);
		err = -ENODEV;
		goto out_free;
	}
	if (victim) {
		victim_kv = kv;
		return 0;
	}
	kv_run(kv);
	kv_teardown(kv);

	passed = kv->passed;
	failed = kv->failed;
	pr_info("1..%d\n", kv->cases);
	pr_info("%d passed, %d failed\n", passed, failed);
	err = failed ? -EIO : 0;
out_free:
	kfree(kv);
	return err;
}

static void __exit kv_exit(void)
{
	if (!victim_kv)
		return;
	kv_victim_stop(victim_kv);
	ib_dealloc_pd(victim_kv->pd);
	kfree(victim_kv);
}

module_init(kv_init);
module_exit(kv_exit);

MODULE_DESCRIPTION("siw kernel verbs tests");
MODULE_LICENSE("Dual BSD/GPL");
