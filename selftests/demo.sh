#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# The demo, run inside the guest by `make demo`: two network namespaces
# joined by a veth pair, siw attached to the veth on each side, and what
# stock rdma-core sees of the two RNICs.
. "$(dirname "$0")/tests/lib.sh"
at_exit cleanup_netns

say() { printf '\n\033[1m%s\033[0m\n' "$*"; }
show() { echo "\$ $*"; "$@"; }
# listens PORT: a server in $NS1 listens on TCP port PORT (siw's socket).
listens() { n1 ss -ltnH "sport = :$1" | grep -q .; }

say "1. Two network namespaces, $NS1 and $NS2, joined by a veth pair:"
echo "   $NS1: $IF1 192.0.2.1/24  <--->  $NS2: $IF2 192.0.2.2/24"
setup_veth_pair || exit 1
show ip netns exec "$NS1" ping -c1 -W2 192.0.2.2 || exit 1

say "2. Load siw, the software iWARP RNIC:"
show modprobe siw || exit 1

say "3. Attach siw to the veth in each namespace (rdma link add):"
show ip netns exec "$NS1" rdma link add siw_a type siw netdev "$IF1" || exit 1
show ip netns exec "$NS2" rdma link add siw_b type siw netdev "$IF2" || exit 1
show ip netns exec "$NS1" rdma link show

say "4. Stock rdma-core sees two iWARP RNICs through its siw provider:"
show ibv_devices
show ibv_devinfo -d siw_a || exit 1

say "5. RDMA traffic between the namespaces: rping (Send/Receive, RDMA Read and"
echo "   Write, every byte validated), then RDMA Write bandwidth with perftest."
echo "   siw's tracepoints record it (Documentation/debugging.rst)."
T=/sys/kernel/tracing
mountpoint -q $T || mount -t tracefs nodev $T 2>/dev/null
traced=0
if [ -w $T/events/siw/enable ]; then
	echo > $T/trace
	for e in siw_cep_state siw_cm_established siw_read_request siw_qp_state; do
		echo 1 > $T/events/siw/$e/enable
	done
	traced=1
fi
n1 timeout 60 rping -s -a 192.0.2.1 -V -C 10 -S 4096 > /tmp/demo-rping.log 2>&1 &
wait_for 20 listens 7174
show ip netns exec "$NS2" timeout 60 rping -c -a 192.0.2.1 -V -C 10 -S 4096 || exit 1
wait $! || exit 1
echo "rping: 10 round trips of 4 KiB, data validated on both sides"
n1 timeout 60 ib_write_bw -R -s 65536 -n 200 > /tmp/demo-bw.log 2>&1 &
wait_for 20 listens 18515
show ip netns exec "$NS2" timeout 60 ib_write_bw -R -s 65536 -n 200 192.0.2.1 |
	grep -A2 '#bytes' || exit 1
wait $! || exit 1

say "6. What siw saw: its counters (rdma statistic) and a few trace lines."
show rdma statistic show link siw_a/1 | fold -s -w 78
if [ $traced = 1 ]; then
	echo 0 > $T/events/siw/enable
	echo "\$ grep siw_ $T/trace (the rping connection, first lines)"
	grep -E 'siw_(cep_state|cm_established|read_request|qp_state):' $T/trace |
		sed 's/^ *//' | head -12
else
	echo "(no tracefs in this guest: trace lines skipped)"
fi

say "7. The port follows the netdev: take $IF1 down and up again."
show ip netns exec "$NS1" ip link set "$IF1" down
wait_for 5 port_state_is siw_a PORT_DOWN
echo "siw_a port: $(port_state siw_a)"
show ip netns exec "$NS1" ip link set "$IF1" up
wait_for 5 port_state_is siw_a PORT_ACTIVE
echo "siw_a port: $(port_state siw_a)"

say "8. Detach and unload:"
show rdma link delete siw_a
show rdma link delete siw_b
show modprobe -r siw
say "Done."
