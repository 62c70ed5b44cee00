#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# timeout: 1200
# The SCSI RDMA Protocol over siw, target and initiator in this guest:
# LIO's SRP target (ib_srpt), configured through configfs, exports a RAM
# disk of its own (rd_mcp, 64 MiB) and listens on rdma_cm port 5555; the
# SRP initiator (ib_srp) logs in over rdma_cm through its add_target
# file. siw sits on a dummy netdev in the initial network namespace
# (192.0.2.53), where the kernel ULPs open their rdma_cm IDs.
#
# Rounds with MPA at its defaults, with CRC required and with MPA
# revision 1: log in, check the QPs negotiated what was asked, a random
# pattern over the whole disk read back identical, log out, the disk
# gone. Ends with the target torn down and every module unloaded.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lio.sh"
plan 38
require cmp dd
addr=192.0.2.53
cmport=5555
rd=$lio/core/rd_mcp_1/siwrd
srpt=$lio/srpt
mpa=/sys/class/infiniband/siw_sr/mpa
tport=
# target_core_mod loads its storage backends when it starts.
lio_modules="ib_srp ib_srpt target_core_user target_core_pscsi target_core_file
	target_core_iblock target_core_mod"

teardown() {
	srp_logout
	lio_teardown
	unload_modules $lio_modules >/dev/null 2>&1
	rdma link delete siw_sr 2>/dev/null
	ip link del siwsr0 2>/dev/null
	rm -f /tmp/srp-pat /tmp/srp-pat.back
}
lio_teardown() {
	[ -n "$tport" ] || return 0
	local t=$srpt/$tport/$tport
	echo 0 > "$t/enable" 2>/dev/null
	rm -f "$t"/acls/*/lun_0/lun_0 2>/dev/null
	rmdir "$t"/acls/*/lun_0 "$t"/acls/* 2>/dev/null
	rm -f "$t"/lun/lun_0/siwrd 2>/dev/null
	rmdir "$t/lun/lun_0" "$t" "$srpt/$tport" "$srpt" 2>/dev/null
	rmdir "$rd" "$lio/core/rd_mcp_1" 2>/dev/null
}
at_exit teardown

load_siw
siw_on_dummy siwsr0 "$addr" siw_sr
# No udev in the guest: the SCSI disk driver is loaded by hand.
check "modules target_core_mod, ib_srpt, ib_srp, sd_mod" sh -c \
	"modprobe target_core_mod && modprobe ib_srpt && modprobe ib_srp && modprobe sd_mod"
lio_configfs

# ib_srpt names an RDMA port's target after its GID 0 ("0x" and the 32
# hex digits): siw's is the netdev's MAC followed by zeroes.
gid=$(gid0 siw_sr 2>/dev/null)
tport=0x${gid//:/}
t=$srpt/$tport/$tport
check "LIO: a RAM disk of 64 MiB (rd_mcp)" lio_ramdisk "$rd" 16384
check "LIO: SRP target on rdma_cm port $cmport" srpt_cm_port "$cmport"
check "LIO: SRP target port $tport of siw_sr, LUN 0 on the RAM disk" lio_lun "$t" "$rd"
# A target port named after its GID looks an initiator up by its SRP
# port ID: the login's initiator_ext, then the low half of the
# initiator's GID 0 (zero for siw). With the GID's high half as
# initiator_ext, as blktests does, the ID is "0x" and the initiator's
# GID 0; here initiator and target share siw_sr.
ini=$tport
check "LIO: an ACL for initiator $ini with LUN 0" srpt_acl "$t" "$ini"
check "LIO: the target port is enabled" sh -c "echo 1 > $t/enable"

negotiated() { mpa_negotiated siw_sr "$1" "$2"; }

ioc=$(srpt_guid 2>/dev/null)
login_params="id_ext=$ioc,ioc_guid=$ioc,initiator_ext=${tport:2:16},dest=$addr:$cmport"
round() { # DESC REV CRC
	check "$1: login through ib_srp's add_target ($login_params)" \
		srp_login siw_sr "$login_params"
	check_wait "$1: the disk appears" 30 lio_disk_ready
	check "$1: its QPs negotiated MPA revision $2, CRC $3" negotiated "$2" "$3"
	dd if=/dev/urandom of=/tmp/srp-pat bs=1M count=64 status=none
	check "$1: 64 MiB of random data written (direct) and read back identical" \
		disk_roundtrip /tmp/srp-pat "$(lio_rd_disk)"
	check "$1: logout (the remote port deleted)" srp_logout
	check_wait "$1: the disk is gone" 30 lio_no_disk
	check_wait "$1: no QP of the initiator (ib_srp) is left" 30 sh -c \
		"! rdma resource show qp | grep '^link siw_sr/' | grep -q ' comm \[ib_srp\]'"
}

round "MPA defaults" 2 0
check "CRC required on siw_sr" sh -c "echo 2 > $mpa/crc"
round "CRC required" 2 1
check "MPA revision 1 on siw_sr (CRC offered)" sh -c "echo 1 > $mpa/crc && echo 1 > $mpa/rev"
round "MPA revision 1" 1 1
check "MPA revision 2, CRC off again" sh -c "echo 2 > $mpa/rev && echo 0 > $mpa/crc"

check "LIO: the target is torn down" srp_target_down "$t" "$ini" "$rd"
tport=
# ib_srpt releases an rdma_cm channel after DISCONNECTED only on
# TIMEWAIT_EXIT, an InfiniBand CM event that rdma_cm never reports for
# iWARP: the target's QPs of the three logins stay (disconnected) until
# the target port is disabled, as on any iWARP device.
check_wait "no QP of siw_sr is left once the target port is gone" 30 no_qp_on siw_sr
check "modules ib_srp, ib_srpt, the LIO backends, target_core_mod unload" \
	unload_modules $lio_modules
check "rdma link delete siw_sr" rdma link delete siw_sr
check "rmmod siw" modprobe -r siw
check "ip link del siwsr0" ip link del siwsr0
