#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# One guest of the two-VM topology; SIW_VM is 1 or 2. The guests are joined
# by QEMU stream networking over a Unix socket on the host:
#
#   guest 1 eth0 192.0.2.11/24 2001:db8::11/64 ---- guest 2 eth0 192.0.2.12/24 2001:db8::12/64
#
# Both bring up siw on eth0, check what they see of each other, and move
# RDMA traffic between them (rping, ib_write_bw over rdma_cm, NVMe over
# Fabrics from guest 2 to an nvmet target in guest 1). The
# guests meet at barriers: files in the output share they both mount.
. "$SIW_DIR/selftests/tests/lib.sh"

me=$SIW_VM
peer=$((3 - me))
share=$SIW_SHARE
# 12 cases in both guests, then NVMe: 3 in the target's, 12 in the
# host's; 3 at the end.
if [ "$me" = 1 ]; then
	plan 18
else
	plan 27
fi

# barrier NAME [SECS]: wait until the peer reached the same point. A peer
# that never comes fails its own run (it crashed or hung); here the
# cases that needed it fail.
barrier() {
	touch "$share/vm$me/barrier-$1"
	wait_for "${2:-120}" test -e "$share/vm$peer/barrier-$1" ||
		echo "# barrier $1: the other guest did not arrive"
}

check "virtio_net loads" modprobe virtio_net
check_wait "eth0 appears" 10 test -e /sys/class/net/eth0
check "eth0 addresses" sh -c "ip addr add 192.0.2.1$me/24 dev eth0 &&
	ip -6 addr add 2001:db8::1$me/64 dev eth0 nodad && ip link set eth0 up"
check_wait "IPv4 path to the peer" 60 ping -c1 -W1 "192.0.2.1$peer"
check_wait "IPv6 path to the peer" 30 ping -6 -c1 -W1 "2001:db8::1$peer"
check "modprobe siw" modprobe siw
check "rdma link add siw0 on eth0" rdma link add siw0 type siw netdev eth0
check_wait "siw0 port active" 10 port_state_is siw0 PORT_ACTIVE
check "ibv_devinfo through the stock provider: iWARP" \
	sh -c "ibv_devinfo -d siw0 | grep -Eq 'transport:[[:space:]]+iWARP'"
barrier siw-up
check "traffic still flows with siw attached" ping -c3 -i0.2 -W2 "192.0.2.1$peer"

# RDMA between the guests: guest 1 serves, guest 2 connects once the
# server listens (a new TCP listener: siw's kernel socket).
listeners() { ss -ltnH | wc -l; }
more_listeners() { [ "$(listeners)" -gt "$1" ]; }
rdma_between() { # NAME SECS SERVER_CMD CLIENT_CMD
	local log=/tmp/peer.$$.log rc before spid
	barrier "start-$1"
	if [ "$me" = 1 ]; then
		before=$(listeners)
		echo "+ server: $3"
		timeout "$2" $3 > "$log" 2>&1 &
		spid=$!
		wait_for 30 more_listeners "$before" ||
			echo "# the server is not listening after 30 s"
		barrier "listening-$1"
		wait $spid
		rc=$?
	else
		barrier "listening-$1"
		echo "+ client: $4"
		timeout "$2" $4 > "$log" 2>&1
		rc=$?
	fi
	if [ $rc = 0 ]; then
		ok "$1"
	else
		fail "$1" "$(tail -15 "$log")"
	fi
	barrier "end-$1"
}
rdma_between "rping -V -C 100 between the guests" 240 \
	"rping -s -a 192.0.2.11 -V -C 100 -S 4096" \
	"rping -c -a 192.0.2.11 -V -C 100 -S 4096"
rdma_between "ib_write_bw -R between the guests" 240 \
	"ib_write_bw -R -s 65536 -n 200" "ib_write_bw -R -s 65536 -n 200 192.0.2.11"

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
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
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

barrier traffic-done
check_wait "no QP, CQ, MR or PD is left" 30 no_siw_resources
check "rdma link delete siw0" rdma link delete siw0
check "modprobe -r siw" modprobe -r siw
