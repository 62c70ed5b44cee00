#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# timeout: 1500
# NFS over RDMA over siw, server and client in this guest: knfsd exports
# a tmpfs and listens for RDMA on port 20049; the client mounts it with
# proto=rdma through siw on a dummy netdev of the initial namespace
# (192.0.2.51), as NFSv3 and as NFSv4.2. Files from 1 byte to 64 MiB are
# written, compared on the server's side, read back after a remount
# (so the data comes over the wire, not from the client's cache) and
# compared. Both versions again with CRC required and with MPA revision
# 1 on both ends; then the device is deleted under a mounted client,
# which reconnects once siw is back.
. "$(dirname "$0")/lib.sh"
# 10 cases of set-up, 13 per mount (6 mounts), 3 knobs, 12 at the end.
plan 103
require rpc.nfsd rpc.mountd exportfs rpcbind mount.nfs cmp dd
addr=192.0.2.51
export_dir=/tmp/nfs-export
mnt=/tmp/nfs-mnt
pat=/tmp/nfs-pat
mpa=/sys/class/infiniband/siw_nf/mpa
# Sizes around the inline threshold, the page, the chunk limits, and big.
sizes="1 1000 4095 4096 4097 65537 1048576 8388611 67108864"

nfs_down() {
	umount -f "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null
	rpc.nfsd 0 2>/dev/null
	exportfs -ua 2>/dev/null
	pkill -x rpc.mountd 2>/dev/null
	pkill -x rpcbind 2>/dev/null
	umount "$export_dir" /proc/fs/nfsd /var/lib/nfs/rpc_pipefs 2>/dev/null
}
teardown() {
	nfs_down
	rdma link delete siw_nf 2>/dev/null
	ip link del siwnf0 2>/dev/null
	rm -rf "$pat" "$mnt" "$export_dir"
}
at_exit teardown

load_siw
siw_on_dummy siwnf0 "$addr" siw_nf
check "modules nfsd, nfs, rpcrdma" sh -c "modprobe nfsd && modprobe nfs && modprobe rpcrdma"

# The server's state lives in /var/lib/nfs, a tmpfs in the guest.
mkdir -p /var/lib/nfs/rpc_pipefs /var/lib/nfs/v4recovery /var/lib/nfs/sm "$export_dir" "$mnt" "$pat"
touch /var/lib/nfs/etab /var/lib/nfs/rmtab
check "nfsd and rpc_pipefs filesystems" sh -c \
	"mount -t nfsd nfsd /proc/fs/nfsd && mount -t rpc_pipefs rpc_pipefs /var/lib/nfs/rpc_pipefs"
check "a tmpfs to export" mount -t tmpfs -o size=400M tmpfs "$export_dir"
check "rpcbind" rpcbind -w
check "export $export_dir to 192.0.2.0/24 (NFSv4 root)" \
	exportfs -o rw,no_root_squash,insecure,sync,fsid=0 "192.0.2.0/24:$export_dir"
check "rpc.mountd" rpc.mountd
# Short grace and lease: NFSv4 opens wait out the grace period, and no
# client has state to reclaim here.
check "knfsd: 4 threads, TCP 2049 and RDMA 20049, grace 10 s" \
	rpc.nfsd --grace-time 10 --lease-time 10 --rdma=20049 4
check "knfsd listens on rdma 20049" grep -qx 'rdma 20049' /proc/fs/nfsd/portlist

i=0
for s in $sizes; do
	head -c "$s" /dev/urandom > "$pat/f$i"
	i=$((i + 1))
done
nfiles=$i

# same_files A B: every pattern file is in directory B, identical.
same_files() {
	local i
	for ((i = 0; i < nfiles; i++)); do
		cmp "$1/f$i" "$2/f$i" || return 1
	done
}

# mount_rdma VERSION PATH
mount_rdma() {
	timeout 120 mount -t nfs -o "vers=$1,proto=rdma,port=20049,nolock" \
		"$addr:$2" "$mnt"
}
# The client's transport: the mount's options say rdma.
mounted_over_rdma() { grep " $mnt nfs" /proc/mounts | grep -q 'proto=rdma'; }

# negotiated REV CRC: every siw_nf QP in RTS (client and server sides)
# reports this MPA revision and CRC use.
negotiated() { mpa_negotiated siw_nf "$1" "$2"; }

# run_version DESC VERSION PATH REV CRC
run_version() {
	local d=$1 v=$2 p=$3
	rm -rf "${export_dir:?}"/*
	check "$d: mount -o vers=$v,proto=rdma,port=20049" mount_rdma "$v" "$p"
	check "$d: the mount is over RDMA" mounted_over_rdma
	check "$d: the QPs negotiated MPA revision $4, CRC $5" negotiated "$4" "$5"
	check "$d: $nfiles files of 1 B to 64 MiB written" \
		timeout 600 sh -c "cp $pat/f* $mnt/ && sync"
	check "$d: the server holds them, identical" same_files "$pat" "$export_dir"
	check "$d: umount" timeout 120 umount "$mnt"
	check "$d: mount again (empty client cache)" mount_rdma "$v" "$p"
	check "$d: read back over RDMA, identical" same_files "$pat" "$mnt"
	check "$d: 1 MiB written into the middle of a file" timeout 120 \
		dd if="$pat/f6" of="$mnt/f7" bs=4096 seek=3 conv=notrunc,fsync status=none
	check "$d: umount" timeout 120 umount "$mnt"
	check "$d: mount again" mount_rdma "$v" "$p"
	check "$d: the file reads back with the new middle and its old start" sh -c \
		"cmp -n 1048576 -i 0:12288 $pat/f6 $mnt/f7 && cmp -n 12288 $pat/f7 $mnt/f7"
	check "$d: umount" timeout 120 umount "$mnt"
}

variants() { # PREFIX REV CRC
	run_version "$1NFSv3" 3 "$export_dir" "$2" "$3"
	run_version "$1NFSv4.2" 4.2 / "$2" "$3"
}

variants "" 2 0
check "CRC required on siw_nf" sh -c "echo 2 > $mpa/crc"
variants "CRC required: " 2 1
check "MPA revision 1 on siw_nf (CRC offered)" sh -c "echo 1 > $mpa/crc && echo 1 > $mpa/rev"
variants "MPA revision 1: " 1 1
check "MPA revision 2, CRC off again" sh -c "echo 2 > $mpa/rev && echo 0 > $mpa/crc"

# The device goes away under a mounted client and a listening server:
# the transport's users let go of it and nothing hangs. The client keeps
# the mount and reconnects once a device serves the address again (knfsd
# lost its RDMA listener with the device: it is opened again).
nfs_listening() { grep -qx 'rdma 20049' /proc/fs/nfsd/portlist; }
check "link delete: mount NFSv4.2 over RDMA" mount_rdma 4.2 /
check "link delete: a file read" timeout 120 cmp "$pat/f5" "$mnt/f5"
check "link delete: rdma link delete siw_nf while mounted" timeout 120 rdma link delete siw_nf
check_wait "link delete: no QP, CQ, MR or PD is left" 30 no_siw_resources
check "link delete: rdma link add siw_nf again" rdma link add siw_nf type siw netdev siwnf0
nfs_listening || echo 'rdma 20049' > /proc/fs/nfsd/portlist
check "link delete: knfsd listens on rdma 20049 again" nfs_listening
check "link delete: the client reconnects; a file not read before reads back" \
	timeout 180 cmp "$pat/f3" "$mnt/f3"
check "link delete: and a new file written and read back" timeout 180 sh -c \
	"cp $pat/f4 $mnt/new && sync && cmp $pat/f4 $export_dir/new"
check "link delete: umount" timeout 120 umount "$mnt"
check "link delete: knfsd stops" timeout 120 rpc.nfsd 0
check_wait "link delete: no QP, CQ, MR or PD is left at the end" 30 no_siw_resources

teardown
check "modprobe -r siw" modprobe -r siw
