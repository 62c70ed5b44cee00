#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# timeout: 1500
# NVMe over Fabrics over siw, target and host in this guest: kernel ULPs
# open their rdma_cm IDs in the initial network namespace, so siw sits on
# a dummy netdev there (192.0.2.50). nvmet exports a memory-backed
# null_blk (namespace 1, 32 MiB) and a file on tmpfs (namespace 2,
# 16 MiB, buffered: tmpfs has no O_DIRECT on 6.1). The host connects with
# `nvme connect -t rdma` and default, read and poll queues.
#
# Ten rounds of connect, a random pattern over both whole namespaces,
# read back and compare, disconnect; fio with verification on the
# default queues and on a poll queue; a round with CRC required and one
# with MPA revision 1 on both ends; the target's port removed while the
# host is connected (reconnect attempts, then recovery once it is back;
# and a disconnect while it is away); `rdma link delete` and `rmmod siw`
# while connected. Ends with nothing left behind.
. "$(dirname "$0")/lib.sh"
# 10 cases of set-up, 54 in the ten rounds, 52 after them.
plan 116
require nvme cmp dd fio
addr=192.0.2.50
nqn=siw-test
hostnqn=nqn.2014-08.org.nvmexpress:uuid:5157a2e1-0000-4000-8000-000000000001
cfg=/sys/kernel/config/nvmet
sub=$cfg/subsystems/$nqn
port=$cfg/ports/1
img=/tmp/nvme-ns2.img
nb=/sys/kernel/config/nullb/siwnb
mpa=/sys/class/infiniband/siw_nv/mpa

teardown() {
	kill $bg 2>/dev/null
	nvme disconnect -n "$nqn" >/dev/null 2>&1
	rm -f "$port/subsystems/$nqn" 2>/dev/null
	rmdir "$sub"/namespaces/* "$sub" "$port" 2>/dev/null
	rmdir "$nb" 2>/dev/null
	rdma link delete siw_nv 2>/dev/null
	ip link del siwnv0 2>/dev/null
	rm -f "$img" /tmp/nvme-pat.* /tmp/nvme-back.* /tmp/nvme-fio.*
}
at_exit teardown

load_siw
siw_on_dummy siwnv0 "$addr" siw_nv
check "modules nvmet, nvmet-rdma, nvme-rdma, null_blk" sh -c \
	"modprobe nvmet && modprobe nvmet-rdma && modprobe nvme-rdma && modprobe null_blk nr_devices=0"
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config

check "null_blk: a memory-backed device of 32 MiB" sh -c \
	"mkdir $nb && echo 32 > $nb/size && echo 1 > $nb/memory_backed && echo 1 > $nb/power"
# Named after its configfs directory on these kernels, nullbN before.
nbdev=/dev/siwnb
[ -b "$nbdev" ] || nbdev=/dev/nullb$(cat $nb/index 2>/dev/null)
check "null_blk device $nbdev exists" test -b "$nbdev"

check "nvmet: subsystem $nqn, any host" sh -c \
	"mkdir $sub && echo 1 > $sub/attr_allow_any_host"
check "nvmet: namespace 1 on $nbdev" sh -c \
	"mkdir $sub/namespaces/1 && echo $nbdev > $sub/namespaces/1/device_path && echo 1 > $sub/namespaces/1/enable"
check "nvmet: namespace 2 on a 16 MiB file in tmpfs (buffered)" sh -c \
	"truncate -s 16M $img && mkdir $sub/namespaces/2 && echo $img > $sub/namespaces/2/device_path && echo 1 > $sub/namespaces/2/buffered_io && echo 1 > $sub/namespaces/2/enable"
check "nvmet: port 1, rdma, $addr:4420" sh -c \
	"mkdir $port && echo rdma > $port/addr_trtype && echo ipv4 > $port/addr_adrfam && echo $addr > $port/addr_traddr && echo 4420 > $port/addr_trsvcid"
port_up() { ln -s "$sub" "$port/subsystems/$nqn"; }
port_down() { rm "$port/subsystems/$nqn"; }
check "nvmet: port 1 serves $nqn" port_up

# The host's block device of namespace N: the host numbers namespaces
# its own way, so they are told apart by size (32 MiB and 16 MiB; no
# other NVMe device is in this guest).
ns_dev() {
	local want b
	want=$([ "$1" = 1 ] && echo 65536 || echo 32768)
	for b in /sys/block/nvme*n*; do
		[ -e "$b" ] || continue
		# nvmeXcYnZ: a multipath member (hidden), not the device.
		case ${b##*/} in nvme*c*) continue ;; esac
		[ "$(cat "$b/size")" = "$want" ] && echo "/dev/${b##*/}" && return
	done
}
ns_ready() { [ -b "$(ns_dev 1)" ] && [ -b "$(ns_dev 2)" ]; }
no_controller() { [ -z "$(ns_dev 1)" ] && [ -z "$(ns_dev 2)" ] && [ -z "$(ctrl)" ]; }
# The host's controller of $nqn (nvmeN), and its state.
ctrl() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ -e "$c/subsysnqn" ] && [ "$(cat "$c/subsysnqn")" = "$nqn" ] &&
			echo "${c##*/}" && return
	done
}
ctrl_state_is() { [ "$(cat "/sys/class/nvme/$(ctrl)/state" 2>/dev/null)" = "$1" ]; }

# I/O queues: one default queue per CPU (siw offers a completion vector
# per CPU), one read queue, one poll queue (a CQ polled directly).
cpus=$(nproc)
want_queues=$((1 + cpus + 2))
connect() { # DESC [nvme connect options...]
	local desc=$1
	shift
	check "$desc: nvme connect -t rdma ($cpus default, 1 read, 1 poll queue)" \
		timeout 120 nvme connect -t rdma -a "$addr" -s 4420 -n "$nqn" \
		-i "$cpus" -W 1 -P 1 --hostnqn "$hostnqn" "$@"
	check_wait "$desc: both namespaces appear" 30 ns_ready
}
disconnect() { # DESC
	check "$1: nvme disconnect" timeout 60 nvme disconnect -n "$nqn"
	check_wait "$1: the controller is gone" 30 no_controller
}

# pattern_rw DESC: a fresh random pattern over both whole namespaces,
# read back and compared.
pattern_rw() {
	local d1 d2
	d1=$(ns_dev 1) d2=$(ns_dev 2)
	dd if=/dev/urandom of=/tmp/nvme-pat.1 bs=1M count=32 status=none
	dd if=/dev/urandom of=/tmp/nvme-pat.2 bs=1M count=16 status=none
	check "$1: whole namespaces written (32 + 16 MiB, direct) and read back identical" sh -c "
		timeout 300 dd if=/tmp/nvme-pat.1 of=$d1 bs=64k oflag=direct status=none &&
		timeout 300 dd if=/tmp/nvme-pat.2 of=$d2 bs=1M oflag=direct status=none &&
		timeout 300 dd if=$d1 of=/tmp/nvme-back.1 bs=1M iflag=direct status=none &&
		timeout 300 dd if=$d2 of=/tmp/nvme-back.2 bs=128k iflag=direct status=none &&
		cmp /tmp/nvme-pat.1 /tmp/nvme-back.1 && cmp /tmp/nvme-pat.2 /tmp/nvme-back.2"
	rm -f /tmp/nvme-back.*
}

# unchanged DESC: namespace 1 still holds the last pattern.
unchanged() {
	check "$1: namespace 1 still holds its pattern" sh -c "
		timeout 300 dd if=$(ns_dev 1) of=/tmp/nvme-back.1 bs=1M iflag=direct status=none &&
		cmp /tmp/nvme-pat.1 /tmp/nvme-back.1"
	rm -f /tmp/nvme-back.*
}

# negotiated REV CRC: every QP of siw_nv in RTS, both ends of each
# queue's connection, reports this MPA revision and CRC use.
negotiated() { mpa_negotiated siw_nv "$1" "$2" $((2 * want_queues)); }

for round in 1 2 3 4 5 6 7 8 9 10; do
	connect "round $round"
	if [ $round = 1 ]; then
		check "round 1: $want_queues queues (admin, $cpus default, read, poll)" \
			sh -c "[ \"\$(cat /sys/class/nvme/$(ctrl)/queue_count)\" = $want_queues ]"
		check "round 1: every QP negotiated MPA revision 2 without CRC" negotiated 2 0
		check "round 1: fio random writes with crc32c verification (libaio, depth 16)" \
			timeout 300 fio --name=verify --filename="$(ns_dev 1)" --direct=1 \
			--ioengine=libaio --iodepth=16 --rw=randwrite --bsrange=4k-128k \
			--size=100% --verify=crc32c --verify_fatal=1 --output=/tmp/nvme-fio.1
		check "round 1: fio verified writes through the poll queue (pvsync2 hipri)" \
			timeout 300 fio --name=poll --filename="$(ns_dev 2)" --direct=1 \
			--ioengine=pvsync2 --hipri --rw=randwrite --bs=16k \
			--size=100% --verify=crc32c --verify_fatal=1 --output=/tmp/nvme-fio.2
		[ -s /tmp/nvme-fio.1 ] && sed 's/^/# /' /tmp/nvme-fio.1 | grep -E 'READ|WRITE|err='
	fi
	pattern_rw "round $round"
	disconnect "round $round"
done

knob() { echo "$2" > "$mpa/$1"; }
check "CRC required on siw_nv" knob crc 2
connect "CRC required"
check "CRC required: every QP negotiated CRC" negotiated 2 1
pattern_rw "CRC required"
disconnect "CRC required"
check "MPA revision 1 on siw_nv (CRC offered)" sh -c "echo 1 > $mpa/crc && echo 1 > $mpa/rev"
connect "MPA revision 1"
check "MPA revision 1: every QP negotiated revision 1" negotiated 1 1
pattern_rw "MPA revision 1"
disconnect "MPA revision 1"
check "MPA revision 2, CRC off again" sh -c "echo 2 > $mpa/rev && echo 0 > $mpa/crc"

# The port goes away under a connected host: the host sees the queues
# end, tries to reconnect every second, and is live again once the port
# is back; I/O queued meanwhile completes.
connect "port removal" --reconnect-delay=1 --ctrl-loss-tmo=120
check "port removal: port 1 stops serving $nqn" port_down
check_wait "port removal: the host is reconnecting" 60 ctrl_state_is connecting
check_wait "port removal: reconnect attempts are refused" 30 sh -c \
	"dmesg | grep -Eq 'nvme nvme[0-9]+: Failed reconnect attempt'"
check "port removal: port 1 serves $nqn again" port_up
check_wait "port removal: the host is live again" 60 ctrl_state_is live
check_wait "port removal: both namespaces are back" 30 ns_ready
unchanged "port removal"
pattern_rw "port removal"
disconnect "port removal"

connect "disconnect while away" --reconnect-delay=1 --ctrl-loss-tmo=120
check "disconnect while away: port 1 stops serving $nqn" port_down
check_wait "disconnect while away: the host is reconnecting" 60 ctrl_state_is connecting
disconnect "disconnect while away"
check "disconnect while away: port 1 serves $nqn again" port_up

# The device goes away under connected ULPs: nvme-rdma deletes its
# controller, nvmet-rdma its queues and listener; I/O in flight ends in
# errors, nothing hangs.
bg=
# nvme_reads: reads completed on every NVMe block device (the namespace's
# multipath node and its path: which one counts them depends on the
# kernel).
nvme_reads() { cat /sys/block/nvme*/stat 2>/dev/null | awk '{ n += $1 } END { print n + 0 }'; }
reads_moving() { [ "$(nvme_reads)" -gt "$1" ]; }
reader() { # DESC: background reads of namespace 1 until they fail
	local before
	before=$(nvme_reads)
	(while dd if="$(ns_dev 1)" of=/dev/null bs=64k iflag=direct status=none; do :; done) \
		>/dev/null 2>&1 &
	bg=$!
	check_wait "$1: reads are in flight" 30 reads_moving "$before"
}
reader_ended() { ! kill -0 "$bg" 2>/dev/null; }
connect "rdma link delete"
reader "rdma link delete"
check "rdma link delete: siw_nv removed while connected, reads in flight" \
	timeout 120 rdma link delete siw_nv
check_wait "rdma link delete: the controller is gone" 60 no_controller
check_wait "rdma link delete: the reads ended" 60 reader_ended
check_wait "rdma link delete: no QP, CQ, MR or PD is left" 30 no_siw_resources

# nvmet-rdma lost its listener with the device: recreate siw_nv, enable
# the port again and connect again.
check "rdma link add siw_nv again" rdma link add siw_nv type siw netdev siwnv0
check "port 1 enabled again on the new siw_nv" sh -c \
	"rm $port/subsystems/$nqn && ln -s $sub $port/subsystems/$nqn"
connect "after link delete" --reconnect-delay=1
unchanged "after link delete"
reader "rmmod siw"
check "rmmod siw: siw unloaded while connected, reads in flight" \
	timeout 120 modprobe -r siw
check_wait "rmmod siw: the controller is gone" 60 no_controller
check_wait "rmmod siw: the reads ended" 60 reader_ended
check "rmmod siw: siw is gone" sh -c "! lsmod | grep -q '^siw '"
bg=

teardown
check "modprobe -r nvme-rdma nvmet-rdma nvmet null_blk" \
	modprobe -r nvme-rdma nvmet-rdma nvmet null_blk
