# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# Sourced by the guest benchmarks that measure between two endpoints
# (perf.sh, profile.sh): builds the two paths and gives the helpers that
# run a server and its client on one of them. The caller sets bench_name
# (for messages) before sourcing. Paths:
#   veth  two namespaces joined by veth pairs, MTU 1500:
#           bveth-a 192.0.2.1/25   <->  bveth-b 192.0.2.2/25    siw, TCP
#           rveth-a 192.0.2.129/25 <->  rveth-b 192.0.2.130/25  rxe
#   lo    one host: dummy netdevs in the initial namespace,
#           bsiw0 192.0.2.70 (siw and TCP), brxe0 192.0.2.71 (rxe)
# (rdma_rxe of 6.1 does not work across namespaces: rxe_veth=0 then.)
# A function's path is $topo (veth or lo); port the TCP/rdma_cm port.
. "$SIW_DIR/selftests/lib/perftest.sh"
NS1=bench-a NS2=bench-b
tcpb=$SIW_DIR/userspace/tcp_bench
cmb=$SIW_DIR/userspace/cm_bench

die() { echo "bench $bench_name: $*" >&2; exit 1; }
log() { echo "bench $bench_name: $*" > /dev/console; echo "# $*"; }

# The programs a benchmark runs. One killed by its timeout can leave them
# running (perf, under SIGTERM, first writes its data), holding the
# namespaces and the devices the links below name.
bench_progs='ib_(write|read|send)_(bw|lat)|tcp_bench|cm_bench|qp_scale|perf'

teardown() {
	local deadline=$((SECONDS + 10))
	pkill -9 -x "$bench_progs" 2>/dev/null
	while pgrep -x "$bench_progs" > /dev/null && [ $SECONDS -lt $deadline ]; do
		sleep 0.2
	done
	rdma link delete bsiw 2>/dev/null
	rdma link delete brxe 2>/dev/null
	for d in bsiw0 brxe0; do ip link del "$d" 2>/dev/null; done
	ip netns del $NS1 2>/dev/null
	ip netns del $NS2 2>/dev/null
	true
}
trap teardown EXIT
# What a benchmark killed before its trap ran (a timeout) left behind.
teardown

for c in ib_write_bw ib_read_bw ib_send_bw ib_write_lat ib_send_lat \
	ib_read_lat rdma python3; do
	command -v "$c" >/dev/null || die "$c is not installed"
done
for c in "$tcpb" "$cmb"; do
	[ -x "$c" ] || die "$c not built (make -C userspace)"
done
for m in siw rdma_rxe; do modprobe "$m" || die "modprobe $m failed"; done

ip netns add $NS1 && ip netns add $NS2 || die "namespaces"
ip -n $NS1 link set lo up && ip -n $NS2 link set lo up
pair() { # A B ADDR_A ADDR_B
	ip link add "$1" netns $NS1 type veth peer name "$2" netns $NS2 &&
		ip -n $NS1 addr add "$3" dev "$1" && ip -n $NS2 addr add "$4" dev "$2" &&
		ip -n $NS1 link set "$1" up && ip -n $NS2 link set "$2" up
}
pair bveth-a bveth-b 192.0.2.1/25 192.0.2.2/25 || die "veth pair for siw"
pair rveth-a rveth-b 192.0.2.129/25 192.0.2.130/25 || die "veth pair for rxe"
ip netns exec $NS1 rdma link add bsiw_a type siw netdev bveth-a &&
	ip netns exec $NS2 rdma link add bsiw_b type siw netdev bveth-b ||
	die "siw on the veth pair"
rxe_veth=1
ip netns exec $NS1 rdma link add brxe_a type rxe netdev rveth-a &&
	ip netns exec $NS2 rdma link add brxe_b type rxe netdev rveth-b ||
	rxe_veth=0
for d in bsiw0 brxe0; do
	ip link add "$d" type dummy && ip link set "$d" up || die "netdev $d"
done
ip addr add 192.0.2.70/24 dev bsiw0 && ip addr add 192.0.2.71/32 dev brxe0 ||
	die "addresses"
rdma link add bsiw type siw netdev bsiw0 || die "rdma link add bsiw (siw)"
rdma link add brxe type rxe netdev brxe0 || die "rdma link add brxe (rxe)"

# addr TOPO TRANSPORT: the server's address; sx/cx: how server and client
# run on $topo.
addr() {
	case $1/$2 in
	veth/rxe) echo 192.0.2.129 ;;
	veth/*) echo 192.0.2.1 ;;	# siw, siw-worker, siw-mss, tcp
	lo/rxe) echo 192.0.2.71 ;;
	lo/*) echo 192.0.2.70 ;;
	esac
}
sx() { if [ "$topo" = veth ]; then ip netns exec $NS1 "$@"; else "$@"; fi; }
cx() { if [ "$topo" = veth ]; then ip netns exec $NS2 "$@"; else "$@"; fi; }

# listening [PORT]: a TCP listener (tcp_bench, siw's kernel socket) or an
# rdma_cm one (rxe) on PORT (default $port) in the server's namespace.
port=18515
listening() {
	local p=${1:-$port}
	sx ss -ltnH "sport = :$p" | grep -q . ||
		sx rdma resource show cm_id 2>/dev/null | grep -q "LISTEN.*:$p "
}

# Does TRANSPORT carry rdma_cm traffic on $topo? (rxe on 6.1's veth: no.)
# The client starts once rping's server listens (port 7174), or has
# ended, or after 30 s.
rdma_works() {
	local a i spid
	a=$(addr "$topo" "$1")
	sx timeout 30 rping -s -a "$a" -C 3 >/dev/null 2>&1 &
	spid=$!
	for ((i = 0; i < 300; i++)); do
		listening 7174 || ! kill -0 $spid 2>/dev/null && break
		sleep 0.1
	done
	cx timeout 20 rping -c -a "$a" -C 3 >/dev/null 2>&1
	local rc=$?
	wait
	return $rc
}

# bench_pair SERVER... -- CLIENT...: runs both, prints the client's
# output (the figure); fails when either fails. The client starts once
# the server listens. The tests' client_server (lib.sh) is the same pair
# made a KTAP case; a benchmark wants the output and one retry instead.
bench_pair() {
	local srv=() cli=() slog=/tmp/bench-srv.log rc src i
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	local attempt
	# A failed run is run once more (a perftest server that was still
	# going away, say); what fails twice is reported.
	for attempt in 1 2; do
		sx timeout 120 "${srv[@]}" > "$slog" 2>&1 &
		local spid=$!
		for ((i = 0; i < 300; i++)); do
			listening && break
			sleep 0.1
		done
		cx timeout 120 "${cli[@]}" 2>/tmp/bench-cli.err
		rc=$?
		wait $spid
		src=$?
		[ $rc = 0 ] && [ $src = 0 ] && break
		echo "bench $bench_name: attempt $attempt failed ($rc/$src): ${cli[*]}" >&2
		cat /tmp/bench-cli.err "$slog" >&2
		# The next server may start once this one's listener is gone.
		for ((i = 0; i < 100; i++)); do
			listening || break
			sleep 0.1
		done
	done
	if [ $rc != 0 ] || [ $src != 0 ]; then
		return 1
	fi
}

# cm_connect_rate TRANSPORT N: cm_bench's rdma_cm connect step for N
# connections opened at once, on $topo, $port; prints connections/s.
cm_connect_rate() {
	local line
	line=$(bench_pair "$cmb" -s -a "$(addr "$topo" "$1")" -p $port -n "$2" -- \
		"$cmb" -c "$(addr "$topo" "$1")" -p $port -n "$2") || return 1
	echo "$line" | sed -n 's/.*conn_per_s=\([0-9.]*\).*/\1/p'
}

# tcp_connect_rate N: tcp_bench's N non-blocking connects on $topo,
# $port, each done when the server's accept has sent a byte; prints
# connections/s.
tcp_connect_rate() {
	local line
	line=$(bench_pair "$tcpb" -s -p $port -- \
		"$tcpb" -c "$(addr "$topo" tcp)" -p $port -m connect -n "$1") || return 1
	echo "$line" | sed -n 's/.*conn_per_s=\([0-9.]*\).*/\1/p'
}

# perftest_iters TOTAL QPS: perftest's -n (messages per QP) for TOTAL
# messages over QPS QPs, at least 20. perftest counts a signalled
# completion as cq_mod (100) messages, so with several QPs and a count
# that is not a multiple of 100 its total overshoots while one QP still
# waits for its last completion, and it stops polling: a hang that is
# perftest's. Several QPs therefore get a multiple of 100.
perftest_iters() {
	local n=$(($1 / $2))
	[ "$2" = 1 ] || n=$(((n + 99) / 100 * 100))
	[ $n -ge 20 ] || n=20
	echo $n
}
