#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# timeout: 900
# NVMe over Fabrics over siw, target and host in this guest: kernel ULPs
# open their rdma_cm IDs in the initial network namespace, so siw sits on
# a dummy netdev there (192.0.2.50). nvmet exports a null_blk device
# (namespace 1) and a file on tmpfs (namespace 2, buffered: tmpfs has no
# O_DIRECT on 6.1); `nvme connect -t rdma` with two I/O queues; a random
# pattern is written over the whole file namespace and read back, and a
# pattern of 16 MiB is written to and read from null_blk (memory backed);
# three connect/verify/disconnect rounds. Ends with nothing left behind
# and siw unloadable.
. "$(dirname "$0")/lib.sh"
require nvme cmp dd
addr=192.0.2.50
nqn=siw-test
hostnqn=nqn.2014-08.org.nvmexpress:uuid:5157a2e1-0000-4000-8000-000000000001
cfg=/sys/kernel/config/nvmet
sub=$cfg/subsystems/$nqn
port=$cfg/ports/1
img=/tmp/nvme-ns2.img

teardown() {
	nvme disconnect -n "$nqn" >/dev/null 2>&1
	rm -f "$port/subsystems/$nqn" 2>/dev/null
	rmdir "$sub"/namespaces/* "$sub" "$port" 2>/dev/null
	rmdir /sys/kernel/config/nullb/siwnb 2>/dev/null
	rdma link delete siw_nv 2>/dev/null
	ip link del siwnv0 2>/dev/null
	rm -f "$img" /tmp/nvme-pat.* /tmp/nvme-back.*
}
trap teardown EXIT

load_siw
check "dummy netdev siwnv0 with $addr" sh -c \
	"ip link add siwnv0 type dummy && ip addr add $addr/24 dev siwnv0 && ip link set siwnv0 up"
check "rdma link add siw_nv on siwnv0" rdma link add siw_nv type siw netdev siwnv0
check "modules nvmet, nvmet-rdma, nvme-rdma, null_blk" sh -c \
	"modprobe nvmet && modprobe nvmet-rdma && modprobe nvme-rdma && modprobe null_blk nr_devices=0"
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config

# A memory-backed null_blk of 64 MiB (configfs), so data reads back.
nb=/sys/kernel/config/nullb/siwnb
check "null_blk: a memory-backed device of 64 MiB" sh -c \
	"mkdir $nb && echo 64 > $nb/size && echo 1 > $nb/memory_backed && echo 1 > $nb/power"
# Named after its configfs directory on these kernels, nullbN before.
nbdev=/dev/siwnb
[ -b "$nbdev" ] || nbdev=/dev/nullb$(cat $nb/index 2>/dev/null)
check "null_blk device $nbdev exists" test -b "$nbdev"

check "nvmet: subsystem $nqn, any host" sh -c \
	"mkdir $sub && echo 1 > $sub/attr_allow_any_host"
check "nvmet: namespace 1 on $nbdev" sh -c \
	"mkdir $sub/namespaces/1 && echo $nbdev > $sub/namespaces/1/device_path && echo 1 > $sub/namespaces/1/enable"
check "nvmet: namespace 2 on a 32 MiB file in tmpfs (buffered)" sh -c \
	"truncate -s 32M $img && mkdir $sub/namespaces/2 && echo $img > $sub/namespaces/2/device_path && echo 1 > $sub/namespaces/2/buffered_io && echo 1 > $sub/namespaces/2/enable"
check "nvmet: port 1, rdma, $addr:4420" sh -c \
	"mkdir $port && echo rdma > $port/addr_trtype && echo ipv4 > $port/addr_adrfam && echo $addr > $port/addr_traddr && echo 4420 > $port/addr_trsvcid && ln -s $sub $port/subsystems/$nqn"

# The host's block device of namespace N: the host numbers namespaces
# its own way, so they are told apart by size (64 MiB and 32 MiB; no
# other NVMe device is in this guest).
ns_dev() {
	local want b
	want=$([ "$1" = 1 ] && echo 131072 || echo 65536)
	for b in /sys/block/nvme*n*; do
		[ -e "$b" ] || continue
		# nvmeXcYnZ: a multipath member (hidden), not the device.
		case ${b##*/} in nvme*c*) continue ;; esac
		[ "$(cat "$b/size")" = "$want" ] && echo "/dev/${b##*/}" && return
	done
}
ns_ready() { [ -b "$(ns_dev 1)" ] && [ -b "$(ns_dev 2)" ]; }
no_controller() { [ -z "$(ns_dev 1)" ] && [ -z "$(ns_dev 2)" ]; }

dd if=/dev/urandom of=/tmp/nvme-pat.2 bs=1M count=32 status=none
dd if=/dev/urandom of=/tmp/nvme-pat.1 bs=1M count=16 status=none
for round in 1 2 3; do
	check "round $round: nvme connect -t rdma (2 I/O queues)" \
		timeout 120 nvme connect -t rdma -a "$addr" -s 4420 -n "$nqn" \
		-i 2 --hostnqn "$hostnqn"
	check_wait "round $round: both namespaces appear" 30 ns_ready
	d1=$(ns_dev 1) d2=$(ns_dev 2)
	check "round $round: the whole file namespace written (32 MiB, direct)" \
		timeout 300 dd if=/tmp/nvme-pat.2 of="$d2" bs=1M oflag=direct status=none
	check "round $round: and read back identical" sh -c \
		"timeout 300 dd if=$d2 of=/tmp/nvme-back.2 bs=1M iflag=direct status=none && cmp /tmp/nvme-pat.2 /tmp/nvme-back.2"
	check "round $round: 16 MiB to null_blk and back identical" sh -c \
		"timeout 300 dd if=/tmp/nvme-pat.1 of=$d1 bs=64k oflag=direct status=none && timeout 300 dd if=$d1 of=/tmp/nvme-back.1 bs=64k count=256 iflag=direct status=none && cmp /tmp/nvme-pat.1 /tmp/nvme-back.1"
	rm -f /tmp/nvme-back.*
	check "round $round: nvme disconnect" timeout 60 nvme disconnect -n "$nqn"
	check_wait "round $round: the controller is gone" 30 no_controller
done

teardown
check_wait "no QP, CQ, MR or PD is left" 20 no_siw_resources
check "modprobe -r nvme-rdma nvmet-rdma nvmet null_blk" \
	modprobe -r nvme-rdma nvmet-rdma nvmet null_blk
check "modprobe -r siw" modprobe -r siw
