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
#define SIW_KNOB_DEFAULT(n, def, lo, hi, desc)	.mpa_##n = (def),
static struct siw_knobs siw_default_knobs = {
	SIW_KNOBS(SIW_KNOB_DEFAULT)
};

/* Valid values of each knob. */
struct siw_knob_range {
	const char *name;
	size_t offset;
	int min, max;
};

#define SIW_KNOB_RANGE(n, def, lo, hi, desc) \
	{ "mpa_" #n, offsetof(struct siw_knobs, mpa_##n), lo, hi },
static const struct siw_knob_range siw_knob_ranges[] = {
	SIW_KNOBS(SIW_KNOB_RANGE)
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

#define SIW_PARAM(n, def, lo, hi, desc) \
	module_param_cb(mpa_##n, &siw_param_ops, &siw_default_knobs.mpa_##n, \
			0644); \
	MODULE_PARM_DESC(mpa_##n, desc);
SIW_KNOBS(SIW_PARAM)

/* A copy of knobs *from, each read once. */
static void siw_knobs_copy(struct siw_knobs *k, const struct siw_knobs *from)
{
#define SIW_KNOB_COPY(n, def, lo, hi, desc) \
	k->mpa_##n = READ_ONCE(from->mpa_##n);
	SIW_KNOBS(SIW_KNOB_COPY)
#undef SIW_KNOB_COPY
}

void siw_knobs_init(struct siw_knobs *k)
{
	siw_knobs_copy(k, &siw_default_knobs);
}

void siw_knobs_get(struct siw_device *sdev, struct siw_knobs *k)
{
	siw_knobs_copy(k, &sdev->knobs);
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

#define SIW_KNOB_ATTR(n, def, lo, hi, desc) \
	static struct device_attribute siw_attr_##n = \
		__ATTR(n, 0644, siw_knob_show, siw_knob_store);
SIW_KNOBS(SIW_KNOB_ATTR)

#define SIW_KNOB_ATTR_PTR(n, def, lo, hi, desc)	&siw_attr_##n.attr,
static struct attribute *siw_knob_attrs[] = {
	SIW_KNOBS(SIW_KNOB_ATTR_PTR)
	NULL,
};

const struct attribute_group siw_knob_group = {
	.name = "mpa",
	.attrs = siw_knob_attrs,
};
