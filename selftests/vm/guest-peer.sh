#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# timeout: 1200
#
# One guest of the two-VM topology; SIW_VM is 1 or 2. The guests are joined
# by QEMU stream networking over a Unix socket on the host:
#
#   guest 1 eth0 192.0.2.11/24 2001:db8::11/64 ---- guest 2 eth0 192.0.2.12/24 2001:db8::12/64
#
# Both bring up siw on eth0, check what they see of each other, and move
# RDMA traffic between them (rping, ib_write_bw over rdma_cm; NVMe over
# Fabrics, iSCSI over iSER and SRP from guest 2 to targets in guest 1). The
# guests meet at barriers: files in the output share they both mount.
. "$SIW_DIR/selftests/tests/lib.sh"
. "$SIW_DIR/selftests/tests/lio.sh"
. "$SIW_DIR/selftests/vm/peer-lib.sh"

# 12 cases in both guests, then NVMe: 3 in the target's, 12 in the
# host's; iSER: 5 and 19; SRP: 8 and 16; 3 at the end.
if [ "$me" = 1 ]; then
	plan 31
else
	plan 62
fi

peer_net_up
check "modprobe siw" modprobe siw
check "rdma link add siw0 on eth0" rdma link add siw0 type siw netdev eth0
check_wait "siw0 port active" 10 port_state_is siw0 PORT_ACTIVE
check "ibv_devinfo through the stock provider: iWARP" \
	sh -c "ibv_devinfo -d siw0 | grep -Eq 'transport:[[:space:]]+iWARP'"
barrier siw-up
check "traffic still flows with siw attached" ping -c3 -i0.2 -W2 "192.0.2.1$peer"

rdma_between "rping -V -C 100 between the guests" 240 \
	"rping -s -a 192.0.2.11 -V -C 100 -S 4096" \
	"rping -c -a 192.0.2.11 -V -C 100 -S 4096"
rdma_between "ib_write_bw -R between the guests" 240 \
	"ib_write_bw $PERFTEST -s 65536 -n 200" \
	"ib_write_bw $PERFTEST -s 65536 -n 200 192.0.2.11"

# NVMe over Fabrics between the guests: guest 1 exports a memory-backed
# null_blk of 32 MiB through nvmet on siw0, guest 2 connects with
# nvme-rdma, writes a random pattern over the whole namespace, reads it
# back, compares, and disconnects; two rounds.
nqn=siw-twovm
cfg=/sys/kernel/config/nvmet
nvme_target_down() {
	rm -f "$cfg/ports/1/subsystems/$nqn"
	rmdir "$cfg/subsystems/$nqn/namespaces/1" "$cfg/subsystems/$nqn" \
		"$cfg/ports/1" /sys/kernel/config/nullb/tv 2>/dev/null
	true
}
nvme_ns() { # the host's block device of the 32 MiB namespace
	local b
	for b in /sys/block/nvme*n*; do
		case ${b##*/} in nvme*c*) continue ;; esac
		[ "$(cat "$b/size" 2>/dev/null)" = 65536 ] && echo "/dev/${b##*/}" && return
	done
}
nvme_ns_ready() { [ -b "$(nvme_ns)" ]; }
nvme_ns_gone() { [ -z "$(nvme_ns)" ]; }
if [ "$me" = 1 ]; then
	lio_configfs
	check "nvmet target on siw0: null_blk of 32 MiB at 192.0.2.11:4420" sh -c "
		modprobe nvmet-rdma && modprobe null_blk nr_devices=0 &&
		mkdir /sys/kernel/config/nullb/tv && cd /sys/kernel/config/nullb/tv &&
		echo 32 > size && echo 1 > memory_backed && echo 1 > power &&
		dev=/dev/tv && { [ -b \$dev ] || dev=/dev/nullb\$(cat index); } &&
		mkdir $cfg/subsystems/$nqn && echo 1 > $cfg/subsystems/$nqn/attr_allow_any_host &&
		mkdir $cfg/subsystems/$nqn/namespaces/1 &&
		echo \$dev > $cfg/subsystems/$nqn/namespaces/1/device_path &&
		echo 1 > $cfg/subsystems/$nqn/namespaces/1/enable &&
		mkdir $cfg/ports/1 && cd $cfg/ports/1 && echo rdma > addr_trtype &&
		echo ipv4 > addr_adrfam && echo 192.0.2.11 > addr_traddr &&
		echo 4420 > addr_trsvcid && ln -s $cfg/subsystems/$nqn subsystems/$nqn"
	barrier nvme-target-up
	barrier nvme-host-done 900
	nvme_target_down
	check "nvmet target removed" sh -c "! ls $cfg/ports/1 >/dev/null 2>&1"
	check "modprobe -r nvmet-rdma nvmet null_blk" modprobe -r nvmet-rdma nvmet null_blk
else
	barrier nvme-target-up
	check "modprobe nvme-rdma" modprobe nvme-rdma
	dd if=/dev/urandom of=/tmp/tv-pat bs=1M count=32 status=none
	for round in 1 2; do
		check "NVMe round $round: nvme connect -t rdma to the other guest" \
			timeout 120 nvme connect -t rdma -a 192.0.2.11 -s 4420 -n "$nqn" -i 2
		check_wait "NVMe round $round: the namespace appears" 30 nvme_ns_ready
		check "NVMe round $round: 32 MiB pattern written, read back identical" sh -c "
			timeout 300 dd if=/tmp/tv-pat of=$(nvme_ns) bs=64k oflag=direct status=none &&
			timeout 300 dd if=$(nvme_ns) of=/tmp/tv-back bs=1M iflag=direct status=none &&
			cmp /tmp/tv-pat /tmp/tv-back"
		rm -f /tmp/tv-back
		check "NVMe round $round: nvme disconnect" timeout 60 nvme disconnect -n "$nqn"
		check_wait "NVMe round $round: the controller is gone" 30 nvme_ns_gone
	done
	rm -f /tmp/tv-pat
	barrier nvme-host-done
	check "modprobe -r nvme-rdma" modprobe -r nvme-rdma
fi

# iSCSI over iSER between the guests: guest 1 is the target (LIO with
# ib_isert, a RAM disk of 32 MiB), guest 2 logs in with open-iscsi's iser
# transport (ib_iser). Two rounds, the second with CRC required on guest
# 2's side only; in each, both guests check what their QPs negotiated.
# The portal's TCP side is made from an empty namespace, out of the way
# of isert's listener at the same address and port (lio.sh, iser_portal).
iqn=iqn.2026-12.org.example.siw:twovm
ini=iqn.2026-12.org.example.siw:guest2
ird=$lio/core/rd_mcp_0/tvi
tpg=$lio/iscsi/$iqn/tpgt_1
portal=$tpg/np/192.0.2.11:3260
tcpns=siw-iscsi-tcp
mpa=/sys/class/infiniband/siw0/mpa
# Guest 2 holds the session open while both guests check their QPs.
both_negotiated() { # ROUND REV CRC
	barrier "$1-up"
	check "$1: this guest's QPs negotiated MPA revision $2, CRC $3" \
		mpa_negotiated siw0 "$2" "$3" 1
	barrier "$1-checked"
}
iser_target() {
	modprobe target_core_mod && modprobe iscsi_target_mod && modprobe ib_isert &&
	lio_ramdisk "$ird" 8192 && lio_lun "$tpg" "$ird" && iscsi_open "$tpg" &&
	ip netns add "$tcpns" && iser_portal "$tcpns" "$portal" &&
	iser_portal_on "$portal" && echo 1 > "$tpg/enable"
}
iser_initiator() {
	modprobe ib_iser && modprobe sd_mod && iscsid_start "$ini" &&
	iser_node "$iqn" 192.0.2.11
}
iser_initiator_down() {
	echo 0 > "$mpa/crc" && iscsiadm -m node -o delete && iscsid_stop
}
if [ "$me" = 1 ]; then
	lio_configfs
	check "LIO iSER target $iqn: RAM disk of 32 MiB, portal 192.0.2.11:3260" iser_target
	barrier iser-target-up
	both_negotiated "iSER round 1" 2 0
	both_negotiated "iSER round 2" 2 1
	barrier iser-host-done 900
	check_wait "iSER: no QP of the target (isert) is left" 30 no_qp_on siw0
	check "LIO iSER target torn down" iser_target_down "$tpg" "$portal" "$ird" "$tcpns"
else
	barrier iser-target-up
	check "open-iscsi: iscsid running, node $iqn at 192.0.2.11 on the iser interface" \
		iser_initiator
	dd if=/dev/urandom of=/tmp/tv-pat bs=1M count=32 status=none
	for round in 1 2; do
		r="iSER round $round"
		[ $round = 2 ] && check "CRC required on this guest's siw0 only" sh -c "echo 2 > $mpa/crc"
		check "$r: login to the other guest" iser_login "$iqn" 192.0.2.11
		check_wait "$r: the disk appears" 30 lio_disk_ready
		check "$r: the session is iSER" iser_session "$iqn"
		both_negotiated "$r" 2 $((round - 1))
		check "$r: 32 MiB pattern written (direct), read back identical" \
			disk_roundtrip /tmp/tv-pat "$(lio_rd_disk)"
		check "$r: logout" iser_logout "$iqn" 192.0.2.11
		check_wait "$r: the disk is gone" 30 lio_no_disk
		check_wait "$r: no QP of the initiator is left" 30 no_qp_on siw0
	done
	check "CRC off again, node deleted, iscsid stopped" iser_initiator_down
	barrier iser-host-done
fi

# SRP between the guests: guest 1 runs ib_srpt (a RAM disk of 32 MiB,
# rdma_cm port 5555), guest 2 logs in through ib_srp's add_target. Two
# rounds, the second with MPA revision 1 on the target's side only. The
# target port is named after guest 1's GID 0; the initiator's ACL after
# its SRP port ID, guest 2's GID 0 when initiator_ext is its high half
# (as in 84-srp.sh). Each guest tells the other what it needs through the
# share.
srd=$lio/core/rd_mcp_1/tvs
srp_target() {
	modprobe ib_srpt && lio_ramdisk "$srd" 8192 && srpt_cm_port 5555 &&
	lio_lun "$t" "$srd" && srpt_acl "$t" "$sini" && echo 1 > "$t/enable" &&
	srpt_guid > "$share/vm1/srpt-guid"
}
if [ "$me" = 1 ]; then
	tport=0x$(gid0 siw0 | tr -d :)
	t=$lio/srpt/$tport/$tport
	barrier srp-initiator-gid
	sini=0x$(tr -d : < "$share/vm2/gid0")
	check "LIO SRP target $tport: RAM disk of 32 MiB, ACL for $sini, rdma_cm port 5555" \
		srp_target
	barrier srp-target-up
	both_negotiated "SRP round 1" 2 0
	barrier srp-round-1-done
	check "MPA revision 1 on this guest's siw0 only" sh -c "echo 1 > $mpa/rev"
	barrier srp-rev1
	both_negotiated "SRP round 2" 1 0
	barrier srp-host-done 900
	check "MPA revision 2 again" sh -c "echo 2 > $mpa/rev"
	# ib_srpt keeps a disconnected channel's QP until its target port is
	# disabled (it waits for an InfiniBand CM event, see 84-srp.sh).
	check "LIO SRP target torn down" srp_target_down "$t" "$sini" "$srd"
	check_wait "SRP: no QP of the target is left" 30 no_qp_on siw0
	check "modprobe -r ib_srpt ib_isert iscsi_target_mod and the LIO backends" \
		unload_modules ib_srpt ib_isert iscsi_target_mod target_core_user \
		target_core_pscsi target_core_file target_core_iblock target_core_mod
else
	gid0 siw0 > "$share/vm2/gid0"
	barrier srp-initiator-gid
	barrier srp-target-up
	sguid=$(cat "$share/vm1/srpt-guid")
	mygid=$(gid0 siw0 | tr -d :)
	login="id_ext=$sguid,ioc_guid=$sguid,initiator_ext=${mygid:0:16},dest=192.0.2.11:5555"
	check "modprobe ib_srp" modprobe ib_srp
	for round in 1 2; do
		r="SRP round $round"
		[ $round = 2 ] && barrier srp-rev1
		check "$r: login through add_target ($login)" srp_login siw0 "$login"
		check_wait "$r: the disk appears" 30 lio_disk_ready
		both_negotiated "$r" $((3 - round)) 0
		check "$r: 32 MiB pattern written (direct), read back identical" \
			disk_roundtrip /tmp/tv-pat "$(lio_rd_disk)"
		check "$r: logout (the remote port deleted)" srp_logout
		check_wait "$r: the disk is gone" 30 lio_no_disk
		check_wait "$r: no QP of the initiator is left" 30 no_qp_on siw0
		[ $round = 1 ] && barrier srp-round-1-done
	done
	rm -f /tmp/tv-pat
	barrier srp-host-done
	check "modprobe -r ib_srp ib_iser" modprobe -r ib_srp ib_iser
fi

barrier traffic-done
check_wait "no QP, CQ, MR or PD is left" 30 no_siw_resources
check "rdma link delete siw0" rdma link delete siw0
check "modprobe -r siw" modprobe -r siw
