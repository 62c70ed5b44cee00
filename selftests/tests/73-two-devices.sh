#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# timeout: 900
# Two siw devices in one network namespace. rdma_cm listens on every RDMA
# device for a wildcard address, so each siw device must take the wildcard
# for its own netdev only: if both bound 0.0.0.0:P, the second listen would
# fail with EADDRINUSE. Servers on 0.0.0.0 and :: must be reachable through
# either device, the connection must land on the device whose netdev holds
# the address, and listens on each device's own address may share a port.
. "$(dirname "$0")/lib.sh"
plan 23
require rping ib_write_bw rdma ip

cleanup() {
	rdma link delete siw_m0 2>/dev/null
	rdma link delete siw_m1 2>/dev/null
	ip link del siwm0 2>/dev/null
	ip link del siwm1 2>/dev/null
	true
}
at_exit cleanup

load_siw
A4=(192.0.2.17 192.0.2.33)
A6=(2001:db8:1::1 2001:db8:2::1)
for i in 0 1; do
	check "dummy netdev siwm$i with ${A4[i]}/28 and ${A6[i]}/64" \
		sh -c "ip link add siwm$i type dummy && ip addr add ${A4[i]}/28 dev siwm$i && ip -6 addr add ${A6[i]}/64 dev siwm$i nodad && ip link set siwm$i up"
	check "rdma link add siw_m$i on siwm$i" \
		rdma link add siw_m$i type siw netdev siwm$i
done

# Wildcard servers, each reached through each device. rping's server on ::
# is dual-stack (rdma_cm's default), so IPv4 clients reach it too.
for i in 0 1; do
	client_server "rping server on 0.0.0.0, client to siwm$i's ${A4[i]}" 120 \
		"rping -s -a 0.0.0.0 -V -C 10 -S 4096" \
		"rping -c -a ${A4[i]} -V -C 10 -S 4096" - -
	client_server "rping server on ::, client to siwm$i's ${A6[i]}" 120 \
		"rping -s -a :: -V -C 10 -S 4096" \
		"rping -c -a ${A6[i]} -V -C 10 -S 4096" - -
	client_server "rping server on :: (dual-stack), IPv4 client to ${A4[i]}" 120 \
		"rping -s -a :: -V -C 10 -S 4096" \
		"rping -c -a ${A4[i]} -V -C 10 -S 4096" - -
done

# The connection lands on the device of the address the client dialled:
# while ib_write_bw runs, the server's connected cm_id (source address
# the dialled one, port 18515) must be on that device.
for i in 0 1; do
	echo "+ ib_write_bw -R -D 4 server on 0.0.0.0, client to ${A4[i]}"
	timeout 120 ib_write_bw $PERFTEST -D 4 >/tmp/bw-srv.$$ 2>&1 &
	spid=$!
	wait_for 20 sh -c "rdma resource show cm_id | grep -q 'LISTEN.*:18515 '"
	timeout 120 ib_write_bw $PERFTEST -D 4 "${A4[i]}" >/tmp/bw-cli.$$ 2>&1 &
	cpid=$!
	check_wait "the server's connection to ${A4[i]} is on siw_m$i" 30 \
		sh -c "rdma resource show cm_id | grep -v LISTEN | grep -q '^link siw_m$i/1 .*src-addr ${A4[i]}:18515 '"
	if wait $cpid && wait $spid; then
		ok "ib_write_bw -R to ${A4[i]}: both ends exit 0"
	else
		fail "ib_write_bw -R to ${A4[i]}: both ends exit 0" \
			"$(tail -5 /tmp/bw-srv.$$)" "$(tail -5 /tmp/bw-cli.$$)"
	fi
	rm -f /tmp/bw-srv.$$ /tmp/bw-cli.$$
done

# Two listens on one port, one per device address, at the same time.
port=7471
logs=()
pids=()
for i in 0 1; do
	logs[i]=/tmp/rping-m$i.$$.log
	echo "+ rping -s -a ${A4[i]} -p $port -V -C 10 &"
	timeout 120 rping -s -a "${A4[i]}" -p $port -V -C 10 >"${logs[i]}" 2>&1 &
	pids[i]=$!
done
check_wait "both servers listen on port $port" 20 \
	sh -c "[ \$(ss -ltnH 'sport = :$port' | wc -l) -ge 2 ]"
for i in 0 1; do
	check "rping client to ${A4[i]}:$port" \
		timeout 120 rping -c -a "${A4[i]}" -p $port -V -C 10
done
for i in 0 1; do
	if wait "${pids[i]}"; then
		ok "rping server on ${A4[i]}:$port exits 0"
	else
		fail "rping server on ${A4[i]}:$port exits 0" "$(tail -5 "${logs[i]}")"
	fi
	rm -f "${logs[i]}"
done

# A wildcard listen survives the other device going away.
check "rdma link delete siw_m1" rdma link delete siw_m1
client_server "with siw_m1 gone: rping server on 0.0.0.0, client to ${A4[0]}" 120 \
	"rping -s -a 0.0.0.0 -V -C 10 -S 4096" \
	"rping -c -a ${A4[0]} -V -C 10 -S 4096" - -
check "rdma link delete siw_m0" rdma link delete siw_m0
check "no siw QP, CQ, MR or PD left" no_siw_resources
