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
. "$(dirname "$0")/lio.sh"
plan 47
require iscsiadm iscsid cmp dd
addr=192.0.2.52
iqn=iqn.2026-12.org.example.siw:iser-test
ini=iqn.2026-12.org.example.siw:guest
rd=$lio/core/rd_mcp_0/siwrd
tpg=$lio/iscsi/$iqn/tpgt_1
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
	rmdir "$tpg/lun/lun_0" "$portal" "$tpg" "$lio/iscsi/$iqn" "$lio/iscsi" 2>/dev/null
	rmdir "$rd" "$lio/core/rd_mcp_0" 2>/dev/null
	ip netns del "$tcpns" 2>/dev/null
}
at_exit teardown

load_siw
siw_on_dummy siwis0 "$addr" siw_is
# No udev in the guest: the SCSI disk driver is loaded by hand.
check "modules target_core_mod, iscsi_target_mod, ib_isert, ib_iser, sd_mod" sh -c \
	"modprobe target_core_mod && modprobe iscsi_target_mod && modprobe ib_isert && modprobe ib_iser && modprobe sd_mod"
lio_configfs

check "LIO: a RAM disk of 64 MiB (rd_mcp)" lio_ramdisk "$rd" 16384
check "LIO: target $iqn, portal group 1, LUN 0 on the RAM disk" lio_lun "$tpg" "$rd"
check "LIO: any initiator, no authentication, writable" iscsi_open "$tpg"
# The portal's TCP side in a namespace of its own (lio.sh, iser_portal).
check "a namespace for the portal's TCP side ($tcpns)" ip netns add "$tcpns"
check "LIO: portal $addr:3260, made from $tcpns" iser_portal "$tcpns" "$portal"
check "LIO: iSER enabled on the portal" iser_portal_on "$portal"
check "LIO: the portal group is enabled" sh -c "echo 1 > $tpg/enable"

check "open-iscsi: initiator name $ini, iscsid running" iscsid_start "$ini"
iscsid_pid=$(pidof iscsid)
check "a node record for $iqn at $addr:3260 on the iser interface" \
	iser_node "$iqn" "$addr"
check "the node uses the iser transport" sh -c \
	"iscsiadm -m node -T '$iqn' -p '$addr:3260' | grep -qx 'iface.transport_name = iser'"

negotiated() { mpa_negotiated siw_is "$1" "$2"; }

round() { # DESC REV CRC
	check "$1: login" iser_login "$iqn" "$addr"
	check_wait "$1: the disk appears" 30 lio_disk_ready
	check "$1: the session is iSER" iser_session "$iqn"
	check "$1: its QPs negotiated MPA revision $2, CRC $3" negotiated "$2" "$3"
	dd if=/dev/urandom of=/tmp/iser-pat bs=1M count=64 status=none
	check "$1: 64 MiB of random data written (direct) and read back identical" \
		disk_roundtrip /tmp/iser-pat "$(lio_rd_disk)"
	check "$1: logout" iser_logout "$iqn" "$addr"
	check_wait "$1: the disk is gone" 30 lio_no_disk
	check_wait "$1: no QP of siw_is is left" 30 no_qp_on siw_is
}

round "MPA defaults" 2 0
check "CRC required on siw_is" sh -c "echo 2 > $mpa/crc"
round "CRC required" 2 1
check "MPA revision 1 on siw_is (CRC offered)" sh -c "echo 1 > $mpa/crc && echo 1 > $mpa/rev"
round "MPA revision 1" 1 1
check "MPA revision 2, CRC off again" sh -c "echo 2 > $mpa/rev && echo 0 > $mpa/crc"

check "the node record is deleted" iscsiadm -m node -o delete
check "iscsid stops" iscsid_stop
iscsid_pid=
check "LIO: the target is torn down" iser_target_down "$tpg" "$portal" "$rd" "$tcpns"
check "modules ib_iser, ib_isert, iscsi_target_mod, the LIO backends, target_core_mod unload" \
	unload_modules $lio_modules
check "rdma link delete siw_is" rdma link delete siw_is
check "rmmod siw" modprobe -r siw
check "ip link del siwis0" ip link del siwis0
