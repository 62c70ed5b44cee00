# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# The steps of the SCSI-over-RDMA tests, each written once: LIO targets
# made through configfs (a RAM disk, iSCSI with iSER, SRP), and their
# initiators (open-iscsi over iser, ib_srp). Sourced after lib.sh by
# 83-iser.sh, 84-srp.sh and the two-guest run (selftests/vm/guest-peer.sh);
# each step is a command that succeeds or fails, for check to make a case
# of, alone or chained with others.

lio=/sys/kernel/config/target

# lio_configfs: configfs mounted (it can be only once its module is loaded).
lio_configfs() {
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
}

# lio_ramdisk RD PAGES: a LIO RAM disk (rd_mcp) of PAGES pages at RD
# ($lio/core/rd_mcp_N/NAME), enabled.
lio_ramdisk() {
	mkdir -p "$1" && echo "rd_pages=$2" > "$1/control" && echo 1 > "$1/enable"
}

# lio_lun TPG RD: LUN 0 of the portal group (or SRP target port) TPG on
# the RAM disk RD, linked by the disk's name.
lio_lun() {
	mkdir -p "$1/lun/lun_0" && ln -s "$2" "$1/lun/lun_0/${2##*/}"
}

# Whether the SCSI disk a LIO RAM disk appears as (lib.sh's lio_rd_disk)
# is there.
lio_disk_ready() { [ -b "$(lio_rd_disk)" ]; }
lio_no_disk() { [ -z "$(lio_rd_disk)" ]; }

# no_qp_on DEV: the RDMA device DEV has no QP left.
no_qp_on() { ! rdma resource show qp | grep -q "^link $1/"; }

# iSCSI with iSER.

# iscsi_open TPG: the portal group takes any initiator, without
# authentication, and lets it write.
iscsi_open() {
	echo 0 > "$1/attrib/authentication" &&
	echo 1 > "$1/attrib/generate_node_acls" &&
	echo 1 > "$1/attrib/cache_dynamic_acls" &&
	echo 0 > "$1/attrib/demo_mode_write_protect"
}

# A LIO portal always listens on TCP first, and its iSER side then asks
# rdma_cm to listen at the same address and port. On siw, as on any
# iWARP device without TCP offload, both are TCP listeners in one port
# space: the second fails (isert: "rdma_listen() failed: -98"). LIO
# opens the TCP socket in the network namespace of the process that
# makes the portal (with IP_FREEBIND), so the portal is made from an
# empty namespace NS (ip netns add NS) and its TCP side listens there,
# out of the way; isert's rdma_cm ID lives in the initial namespace,
# where siw is.
# iser_portal NS PORTAL: the portal made from NS. nsenter, not `ip netns
# exec`: that one mounts a sysfs of its own, where configfs is not
# mounted.
iser_portal() { nsenter --net="/run/netns/$1" mkdir "$2"; }

# iser_portal_on PORTAL: iSER enabled on the portal.
iser_portal_on() { echo 1 > "$1/iser" && grep -qx 1 "$1/iser"; }

# iser_target_down TPG PORTAL RD NS: the target made above taken apart,
# step by step, each one checked.
iser_target_down() {
	local tpg=$1 portal=$2 rd=$3 ns=$4
	local iqn=${tpg%/*}
	echo 0 > "$tpg/enable" && rm "$tpg/lun/lun_0/${rd##*/}" &&
	rmdir "$tpg/lun/lun_0" && rmdir "$portal" && rmdir "$tpg" &&
	rmdir "$iqn" && rmdir "${iqn%/*}" && rmdir "$rd" && rmdir "${rd%/*}" &&
	ip netns del "$ns"
}

# iscsid_start INITIATOR: open-iscsi's daemon running, as initiator name
# INITIATOR. It keeps its state under /etc/iscsi and /run: both are
# writable in the guest (a tmpfs over /etc, see guest-init.sh).
iscsid_running() { pidof iscsid > /dev/null; }
iscsid_gone() { ! pidof iscsid > /dev/null; }
iscsid_start() {
	mkdir -p /etc/iscsi /run/lock/iscsi &&
	echo "InitiatorName=$1" > /etc/iscsi/initiatorname.iscsi &&
	(setsid iscsid -f > /tmp/iscsid.log 2>&1 &) &&
	wait_for 10 iscsid_running && pidof iscsid
}

# iscsid_stop: the daemon killed and gone.
iscsid_stop() {
	local pid
	# Every iscsid there is.
	# shellcheck disable=SC2086
	pid=$(pidof iscsid) && kill $pid && wait_for 10 iscsid_gone
}

# iser_node IQN ADDR: a node record for target IQN at ADDR:3260 on
# open-iscsi's iser interface (SendTargets discovery would run over
# TCP, whose side of the portal is out of reach in its namespace).
iser_node() { iscsiadm -m node -o new -T "$1" -p "$2:3260,1" -I iser; }

# iser_login IQN ADDR, iser_logout IQN ADDR
iser_login() {
	timeout $((60 * SIW_TIMEOUT_SCALE)) iscsiadm -m node -T "$1" -p "$2:3260" --login
}
iser_logout() {
	timeout $((60 * SIW_TIMEOUT_SCALE)) iscsiadm -m node -T "$1" -p "$2:3260" --logout
}

# iser_session IQN: the session with IQN runs over iSER.
iser_session() { iscsiadm -m session | grep -q "^iser: .* $1"; }

# SRP.

# srpt_cm_port PORT: ib_srpt listens on rdma_cm port PORT.
srpt_cm_port() {
	mkdir -p "$lio/srpt" && echo "$1" > "$lio/srpt/discovery_auth/rdma_cm_port"
}

# srpt_acl T INI: an ACL on target port T for initiator port INI, with
# LUN 0.
srpt_acl() {
	mkdir -p "$1/acls/$2/lun_0" && ln -s "$1/lun/lun_0" "$1/acls/$2/lun_0/lun_0"
}

# srp_target_down T INI RD: the SRP target port T ($lio/srpt/P/P), its
# ACL for INI and the RAM disk RD taken apart, step by step.
srp_target_down() {
	local t=$1 ini=$2 rd=$3
	echo 0 > "$t/enable" && rm "$t/acls/$ini/lun_0/lun_0" &&
	rmdir "$t/acls/$ini/lun_0" && rmdir "$t/acls/$ini" &&
	rm "$t/lun/lun_0/${rd##*/}" && rmdir "$t/lun/lun_0" && rmdir "$t" &&
	rmdir "${t%/*}" && rmdir "$lio/srpt" && rmdir "$rd" && rmdir "${rd%/*}"
}

# gid0 DEV: GID 0 of DEV's port 1 (siw's: the netdev's MAC, then zeroes).
gid0() { cat "/sys/class/infiniband/$1/ports/1/gids/0"; }

# srpt_guid: ib_srpt's service GUID, its target's id_ext and ioc_guid.
srpt_guid() { cat /sys/module/ib_srpt/parameters/srpt_service_guid; }

# srp_login DEV PARAMS: ib_srp logs in through DEV's add_target; when it
# fails, the kernel's lines since (ib_srp and ib_srpt say there why a
# login was refused).
srp_login() {
	local n
	n=$(dmesg | wc -l)
	echo "$2" > "/sys/class/infiniband_srp/srp-$1-1/add_target" && return 0
	dmesg | tail -n +$((n + 1)) | tail -20
	return 1
}

# srp_logout: every SRP remote port deleted (the logout); fails when
# there was none.
srp_logout() {
	local p found=1
	for p in /sys/class/srp_remote_ports/port-*/delete; do
		[ -e "$p" ] || continue
		echo 1 > "$p" || return 1
		found=0
	done
	return $found
}
