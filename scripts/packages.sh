# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# Sourced by deps.sh, guest-pkgs.sh and selftests/prepare.sh: the Debian
# packages building and testing siw needs, by where they go. The names
# are the same in bookworm, trixie and sid.

# What builds the module, the kernel-verbs test module and the test
# programs (userspace/): on the host for bookworm, in a release's tree
# (scripts/chroot.sh) for the others.
siw_build_packages=(
	build-essential kmod libibverbs-dev librdmacm-dev
)

# What the guests run that is safe to install on a host: the RDMA stack
# and its tools, NVMe, NFS, capture and load generators.
siw_guest_packages=(
	iproute2 iputils-ping ethtool procps kmod
	rdma-core ibverbs-utils ibverbs-providers rdmacm-utils perftest
	tcpdump nvme-cli fio nfs-kernel-server linux-perf busybox-static
	gawk e2fsprogs gnuplot-nox bsdextrautils
)

# What the guests run that must not be installed on a host (it would
# start iscsid, multipathd and device-mapper there): for bookworm
# unpacked beside the host's tree (guest-pkgs.sh), installed in a
# release's tree for the others (no daemon starts in it).
siw_guest_only_packages=(
	python3-pyverbs open-iscsi multipath-tools sg3-utils xfsprogs
)

# In a release's tree only: DKMS, which builds the module the guests load
# there (`make install`, as a user of that release runs it).
siw_dkms_packages=(dkms)
