// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * The MPA connection knobs: module parameters that give every new device
 * its defaults, and per device the same knobs in sysfs, under
 * /sys/class/infiniband/<dev>/mpa/, so that one siw device can talk to a
 * hardware RNIC with other settings than its neighbour uses for siw.
 *
 * A connection takes a copy of its device's knobs when it starts (connect,
 * or a listener accepting a TCP connection); a change applies to
 * connections started afterwards.
 */
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/sysfs.h>

#include "siw.h"

/* Defaults for new devices; each is checked like its sysfs twin. */
static struct siw_knobs siw_default_knobs = {
	.mpa_rev = 2,
	.mpa_crc = 0,
	.mpa_p2p = 0,
	/* As iw_cxgb4 asks for it by default, answer it by default. */
	.mpa_p2p_accept = 1,
	.mpa_rtr = SIW_RTR_ALL,
	.mpa_timeout_ms = 10000,
	/*
	 * On: only a peer that sets the same flag gets large FPDUs, so a
	 * hardware RNIC sees nothing new (protocol.rst).
	 */
	.mpa_gso = 1,
	.mpa_legacy_ird_ord = SIW_LEGACY_NEVER,
	/*
	 * Off: once on, a peer alone decides that a kernel QP receives
	 * Immediate Data, whether or not its ULP knows what that is; the
	 * administrator of a device whose kernel users post RFC 7306's verbs
	 * turns it on (security.rst). On, only a peer that sets the same
	 * flag (siw) gets them; with any other the verbs fail locally.
	 */
	.mpa_rfc7306 = 0,
	/*
	 * A peer that keeps its receive window closed (or stops
	 * acknowledging) fails the connection after a minute, instead of
	 * holding the QP's transmit for as long as it answers TCP's probes.
	 */
	.mpa_user_timeout_ms = 60000,
	/*
	 * A responder without peer-to-peer mode holds its first FPDU until
	 * the initiator's has arrived (RFC 5044 section 7.1.2, rule 4), for
	 * at most this long: an application whose server speaks first then
	 * starts late instead of never.
	 */
	.mpa_first_fpdu_wait_ms = 500,
};

/* Valid values of each knob. */
struct siw_knob_range {
	const char *name;
	size_t offset;
	int min, max;
};

#define SIW_KNOB(n, lo, hi) \
	{ #n, offsetof(struct siw_knobs, n), lo, hi }

static const struct siw_knob_range siw_knob_ranges[] = {
	SIW_KNOB(mpa_rev, 1, 2),
	SIW_KNOB(mpa_crc, 0, 2),
	SIW_KNOB(mpa_p2p, 0, 1),
	SIW_KNOB(mpa_p2p_accept, 0, 1),
	SIW_KNOB(mpa_rtr, 1, SIW_RTR_ALL),
	SIW_KNOB(mpa_timeout_ms, 100, 600000),
	SIW_KNOB(mpa_gso, 0, 1),
	SIW_KNOB(mpa_legacy_ird_ord, SIW_LEGACY_NEVER, SIW_LEGACY_ALWAYS),
	SIW_KNOB(mpa_rfc7306, 0, 1),
	SIW_KNOB(mpa_user_timeout_ms, 0, 3600000),
	SIW_KNOB(mpa_first_fpdu_wait_ms, 0, 60000),
};

static const struct siw_knob_range *siw_knob_find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(siw_knob_ranges); i++)
		if (!strcmp(siw_knob_ranges[i].name, name))
			return &siw_knob_ranges[i];
	return NULL;
}

static int siw_knob_parse(const struct siw_knob_range *r, const char *buf,
			  int *val)
{
	int v;

	if (kstrtoint(buf, 0, &v))
		return -EINVAL;
	if (v < r->min || v > r->max)
		return -EINVAL;
	*val = v;
	return 0;
}

static int *siw_knob_ptr(struct siw_knobs *k, const struct siw_knob_range *r)
{
	return (int *)((u8 *)k + r->offset);
}

/* --- module parameters ---------------------------------------------------- */

static int siw_param_set(const char *val, const struct kernel_param *kp)
{
	const struct siw_knob_range *r = siw_knob_find(kp->name);
	int v, err;

	if (!r)
		return -EINVAL;
	err = siw_knob_parse(r, val, &v);
	if (err)
		return err;
	WRITE_ONCE(*(int *)kp->arg, v);
	return 0;
}

static const struct kernel_param_ops siw_param_ops = {
	.set = siw_param_set,
	.get = param_get_int,
};

#define SIW_PARAM(n, desc) \
	module_param_cb(n, &siw_param_ops, &siw_default_knobs.n, 0644); \
	MODULE_PARM_DESC(n, desc)

SIW_PARAM(mpa_rev,
	  "MPA revision new devices speak: 1, or 2 (RFC 6581, default); per device: mpa/rev");
SIW_PARAM(mpa_crc,
	  "MPA CRC of new devices: 0 do not ask (a peer's request is honoured, default), 1 offer, 2 require; per device: mpa/crc");
SIW_PARAM(mpa_p2p,
	  "As initiator, ask for peer-to-peer mode with a ready-to-receive (RTR) message (MPA revision 2): 0 no (default), 1 yes; per device: mpa/p2p");
SIW_PARAM(mpa_p2p_accept,
	  "As responder, answer an initiator's peer-to-peer request: 1 yes, with an RTR type from mpa_rtr (default), 0 reply without it; per device: mpa/p2p_accept");
SIW_PARAM(mpa_rtr,
	  "RTR messages offered and accepted in peer-to-peer mode, a mask: 1 zero-length Send, 2 zero-length RDMA Write, 4 zero-length RDMA Read (default 7); per device: mpa/rtr");
SIW_PARAM(mpa_timeout_ms,
	  "Time a TCP connect plus MPA exchange may take, in ms (100-600000, default 10000); per device: mpa/timeout_ms");
SIW_PARAM(mpa_legacy_ird_ord,
	  "MPA revision 1: IRD and ORD as two 32-bit words first in the private data, as SMB Direct's iWARP peers send them ([MS-SMBD] 6.1): 0 never (default), 1 on TCP port 5445, 2 always; per device: mpa/legacy_ird_ord");
SIW_PARAM(mpa_rfc7306,
	  "Immediate Data and atomics (RFC 7306) with peers that say they take them, siw only (MPA revision 2), for kernel QPs whose users post them: 0 off (default), 1 on; per device: mpa/rfc7306");
SIW_PARAM(mpa_user_timeout_ms,
	  "TCP_USER_TIMEOUT of established connections, in ms: sent data unacknowledged, or the peer's receive window closed, for that long fails the connection (0-3600000, 0: TCP's own limits, which a peer answering window probes never meets; default 60000); per device: mpa/user_timeout_ms");
SIW_PARAM(mpa_first_fpdu_wait_ms,
	  "As responder without peer-to-peer mode, how long the QP's first FPDU waits for the initiator's (RFC 5044 section 7.1.2, rule 4), in ms (0-60000, 0: it does not wait; default 500); per device: mpa/first_fpdu_wait_ms");
SIW_PARAM(mpa_gso,
	  "FPDUs as large as a GSO packet when the peer says it takes them (upstream siw's flag, MPA revision 2): 0 off, 1 on (default); per device: mpa/gso");

void siw_knobs_init(struct siw_knobs *k)
{
	k->mpa_rev = READ_ONCE(siw_default_knobs.mpa_rev);
	k->mpa_crc = READ_ONCE(siw_default_knobs.mpa_crc);
	k->mpa_p2p = READ_ONCE(siw_default_knobs.mpa_p2p);
	k->mpa_p2p_accept = READ_ONCE(siw_default_knobs.mpa_p2p_accept);
	k->mpa_rtr = READ_ONCE(siw_default_knobs.mpa_rtr);
	k->mpa_timeout_ms = READ_ONCE(siw_default_knobs.mpa_timeout_ms);
	k->mpa_gso = READ_ONCE(siw_default_knobs.mpa_gso);
	k->mpa_legacy_ird_ord = READ_ONCE(siw_default_knobs.mpa_legacy_ird_ord);
	k->mpa_rfc7306 = READ_ONCE(siw_default_knobs.mpa_rfc7306);
	k->mpa_user_timeout_ms = READ_ONCE(siw_default_knobs.mpa_user_timeout_ms);
	k->mpa_first_fpdu_wait_ms =
		READ_ONCE(siw_default_knobs.mpa_first_fpdu_wait_ms);
}

void siw_knobs_get(struct siw_device *sdev, struct siw_knobs *k)
{
	k->mpa_rev = READ_ONCE(sdev->knobs.mpa_rev);
	k->mpa_crc = READ_ONCE(sdev->knobs.mpa_crc);
	k->mpa_p2p = READ_ONCE(sdev->knobs.mpa_p2p);
	k->mpa_p2p_accept = READ_ONCE(sdev->knobs.mpa_p2p_accept);
	k->mpa_rtr = READ_ONCE(sdev->knobs.mpa_rtr);
	k->mpa_timeout_ms = READ_ONCE(sdev->knobs.mpa_timeout_ms);
	k->mpa_gso = READ_ONCE(sdev->knobs.mpa_gso);
	k->mpa_legacy_ird_ord = READ_ONCE(sdev->knobs.mpa_legacy_ird_ord);
	k->mpa_rfc7306 = READ_ONCE(sdev->knobs.mpa_rfc7306);
	k->mpa_user_timeout_ms = READ_ONCE(sdev->knobs.mpa_user_timeout_ms);
	k->mpa_first_fpdu_wait_ms = READ_ONCE(sdev->knobs.mpa_first_fpdu_wait_ms);
}

/* --- sysfs: /sys/class/infiniband/<dev>/mpa/ ------------------------------ */

/* The knob behind an attribute: its file name without the "mpa_" prefix. */
static const struct siw_knob_range *siw_attr_knob(struct device_attribute *a)
{
	char name[32];

	snprintf(name, sizeof(name), "mpa_%s", a->attr.name);
	return siw_knob_find(name);
}

static ssize_t siw_knob_show(struct device *dev, struct device_attribute *a,
			     char *buf)
{
	struct siw_device *sdev =
		rdma_device_to_drv_device(dev, struct siw_device, base_dev);
	const struct siw_knob_range *r = siw_attr_knob(a);

	if (!r)
		return -EINVAL;
	return sysfs_emit(buf, "%d\n", READ_ONCE(*siw_knob_ptr(&sdev->knobs, r)));
}

static ssize_t siw_knob_store(struct device *dev, struct device_attribute *a,
			      const char *buf, size_t count)
{
	struct siw_device *sdev =
		rdma_device_to_drv_device(dev, struct siw_device, base_dev);
	const struct siw_knob_range *r = siw_attr_knob(a);
	int v, err;

	if (!r)
		return -EINVAL;
	err = siw_knob_parse(r, buf, &v);
	if (err)
		return err;
	WRITE_ONCE(*siw_knob_ptr(&sdev->knobs, r), v);
	return count;
}

#define SIW_KNOB_ATTR(n) \
	static struct device_attribute siw_attr_##n = \
		__ATTR(n, 0644, siw_knob_show, siw_knob_store)

SIW_KNOB_ATTR(rev);
SIW_KNOB_ATTR(crc);
SIW_KNOB_ATTR(p2p);
SIW_KNOB_ATTR(p2p_accept);
SIW_KNOB_ATTR(rtr);
SIW_KNOB_ATTR(timeout_ms);
SIW_KNOB_ATTR(gso);
SIW_KNOB_ATTR(legacy_ird_ord);
SIW_KNOB_ATTR(rfc7306);
SIW_KNOB_ATTR(user_timeout_ms);
SIW_KNOB_ATTR(first_fpdu_wait_ms);

static struct attribute *siw_knob_attrs[] = {
	&siw_attr_rev.attr,
	&siw_attr_crc.attr,
	&siw_attr_p2p.attr,
	&siw_attr_p2p_accept.attr,
	&siw_attr_rtr.attr,
	&siw_attr_timeout_ms.attr,
	&siw_attr_gso.attr,
	&siw_attr_legacy_ird_ord.attr,
	&siw_attr_rfc7306.attr,
	&siw_attr_user_timeout_ms.attr,
	&siw_attr_first_fpdu_wait_ms.attr,
	NULL,
};

const struct attribute_group siw_knob_group = {
	.name = "mpa",
	.attrs = siw_knob_attrs,
};
