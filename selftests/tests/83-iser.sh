#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# timeout: 1200
# iSCSI Extensions for RDMA over siw, target and initiator in this guest:
# LIO's iSCSI target, configured through configfs, exports a RAM disk of
# its own (rd_mcp, 64 MiB) on a portal with iSER enabled (ib_isert);
# open-iscsi (iscsid and iscsiadm, from scripts/guest-pkgs.sh) discovers
# it and logs in with the iser transport (ib_iser). As for NVMe-oF, the
# kernel ULPs use the initial network namespace, so siw sits on a dummy
# netdev there (192.0.2.52).
#
# Rounds with MPA at its defaults, with CRC required and with MPA
# revision 1: log in, check the session is iSER and its QPs negotiated
# what was asked, a random pattern over the whole disk read back
# identical, log out, the disk gone. Ends with the target torn down and
# every module unloaded.
. "$(dirname "$0")/lib.sh"
plan 47
require iscsiadm iscsid cmp dd
addr=192.0.2.52
iqn=iqn.2026-12.org.example.siw:iser-test
ini=iqn.2026-12.org.example.siw:guest
cfg=/sys/kernel/config/target
rd=$cfg/core/rd_mcp_0/siwrd
tpg=$cfg/iscsi/$iqn/tpgt_1
portal=$tpg/np/$addr:3260
mpa=/sys/class/infiniband/siw_is/mpa
iscsid_pid=
tcpns=siw-iscsi-tcp
# target_core_mod loads its storage backends when it starts.
lio_modules="ib_iser ib_isert iscsi_target_mod target_core_user target_core_pscsi
	target_core_file target_core_iblock target_core_mod"

teardown() {
	iscsiadm -m node -T "$iqn" -u >/dev/null 2>&1
	iscsiadm -m node -o delete >/dev/null 2>&1
	[ -n "$iscsid_pid" ] && kill "$iscsid_pid" 2>/dev/null
	lio_teardown
	unload_modules $lio_modules >/dev/null 2>&1
	rdma link delete siw_is 2>/dev/null
	ip link del siwis0 2>/dev/null
	rm -f /tmp/iser-pat /tmp/iser-pat.back
}
lio_teardown() {
	echo 0 > "$tpg/enable" 2>/dev/null
	rm -f "$tpg"/lun/lun_0/* 2>/dev/null
	rmdir "$tpg/lun/lun_0" "$portal" "$tpg" "$cfg/iscsi/$iqn" "$cfg/iscsi" 2>/dev/null
	rmdir "$rd" "$cfg/core/rd_mcp_0" 2>/dev/null
	ip netns del "$tcpns" 2>/dev/null
}
at_exit teardown

load_siw
siw_on_dummy siwis0 "$addr" siw_is
# No udev in the guest: the SCSI disk driver is loaded by hand.
check "modules target_core_mod, iscsi_target_mod, ib_isert, ib_iser, sd_mod" sh -c \
	"modprobe target_core_mod && modprobe iscsi_target_mod && modprobe ib_isert && modprobe ib_iser && modprobe sd_mod"
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config

check "LIO: a RAM disk of 64 MiB (rd_mcp)" sh -c \
	"mkdir -p $rd && echo rd_pages=16384 > $rd/control && echo 1 > $rd/enable"
check "LIO: target $iqn, portal group 1, LUN 0 on the RAM disk" sh -c \
	"mkdir -p $tpg/lun/lun_0 && ln -s $rd $tpg/lun/lun_0/siwrd"
check "LIO: any initiator, no authentication, writable" sh -c "
	echo 0 > $tpg/attrib/authentication &&
	echo 1 > $tpg/attrib/generate_node_acls &&
	echo 1 > $tpg/attrib/cache_dynamic_acls &&
	echo 0 > $tpg/attrib/demo_mode_write_protect"
# A LIO portal always listens on TCP first, and its iSER side then asks
# rdma_cm to listen at the same address and port. On siw, as on any
# iWARP device without TCP offload, both are TCP listeners in one port
# space: the second fails (isert: "rdma_listen() failed: -98"). LIO
# opens the TCP socket in the network namespace of the process that
# makes the portal (with IP_FREEBIND), so the portal is made from an
# empty namespace and its TCP side listens there, out of the way;
# isert's rdma_cm ID lives in the initial namespace, where siw is.
check "a namespace for the portal's TCP side ($tcpns)" ip netns add "$tcpns"
# nsenter, not `ip netns exec`: that one mounts a sysfs of its own, where
# configfs is not mounted.
check "LIO: portal $addr:3260, made from $tcpns" \
	nsenter --net="/run/netns/$tcpns" mkdir "$portal"
check "LIO: iSER enabled on the portal" sh -c \
	"echo 1 > $portal/iser && grep -qx 1 $portal/iser"
check "LIO: the portal group is enabled" sh -c "echo 1 > $tpg/enable"

# iscsid keeps its state under /etc/iscsi and /run: both are writable in
# the guest (a tmpfs over /etc, see guest-init.sh).
check "open-iscsi: initiator name $ini, iscsid running" sh -c "
	mkdir -p /etc/iscsi /run/lock/iscsi && echo InitiatorName=$ini > /etc/iscsi/initiatorname.iscsi &&
	(setsid iscsid -f > /tmp/iscsid.log 2>&1 &) && sleep 1 && pidof iscsid"
iscsid_pid=$(pidof iscsid)
# SendTargets discovery runs over TCP, and the target's TCP side is in
# $tcpns: the node is recorded by hand, on open-iscsi's iser interface.
check "a node record for $iqn at $addr:3260 on the iser interface" \
	iscsiadm -m node -o new -T "$iqn" -p "$addr:3260,1" -I iser
check "the node uses the iser transport" sh -c \
	"iscsiadm -m node -T '$iqn' -p '$addr:3260' | grep -qx 'iface.transport_name = iser'"

disk() { lio_rd_disk; }
disk_ready() { [ -b "$(disk)" ]; }
no_disk() { [ -z "$(disk)" ]; }

negotiated() { mpa_negotiated siw_is "$1" "$2"; }

round() { # DESC REV CRC
	check "$1: login" timeout $((60 * SIW_TIMEOUT_SCALE)) \
		iscsiadm -m node -T "$iqn" -p "$addr:3260" --login
	check_wait "$1: the disk appears" 30 disk_ready
	check "$1: the session is iSER" sh -c "iscsiadm -m session | grep -q '^iser: .* $iqn'"
	check "$1: its QPs negotiated MPA revision $2, CRC $3" negotiated "$2" "$3"
	dd if=/dev/urandom of=/tmp/iser-pat bs=1M count=64 status=none
	check "$1: 64 MiB of random data written (direct) and read back identical" \
		disk_roundtrip /tmp/iser-pat "$(disk)"
	check "$1: logout" timeout $((60 * SIW_TIMEOUT_SCALE)) \
		iscsiadm -m node -T "$iqn" -p "$addr:3260" --logout
	check_wait "$1: the disk is gone" 30 no_disk
	check_wait "$1: no QP of siw_is is left" 30 sh -c \
		"! rdma resource show qp | grep -q '^link siw_is/'"
}

round "MPA defaults" 2 0
check "CRC required on siw_is" sh -c "echo 2 > $mpa/crc"
round "CRC required" 2 1
check "MPA revision 1 on siw_is (CRC offered)" sh -c "echo 1 > $mpa/crc && echo 1 > $mpa/rev"
round "MPA revision 1" 1 1
check "MPA revision 2, CRC off again" sh -c "echo 2 > $mpa/rev && echo 0 > $mpa/crc"

check "the node record is deleted" iscsiadm -m node -o delete
check "iscsid stops" sh -c "kill $iscsid_pid && sleep 1 && ! pidof iscsid"
iscsid_pid=
check "LIO: the target is torn down" sh -c "
	echo 0 > $tpg/enable && rm $tpg/lun/lun_0/siwrd && rmdir $tpg/lun/lun_0 &&
	rmdir $portal && rmdir $tpg && rmdir $cfg/iscsi/$iqn && rmdir $cfg/iscsi &&
	rmdir $rd && rmdir $cfg/core/rd_mcp_0 && ip netns del $tcpns"
check "modules ib_iser, ib_isert, iscsi_target_mod, the LIO backends, target_core_mod unload" \
	unload_modules $lio_modules
check "rdma link delete siw_is" rdma link delete siw_is
check "rmmod siw" modprobe -r siw
check "ip link del siwis0" ip link del siwis0
