# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# Sourced by the benchmarks that hold many QPs and ask what they cost
# (bench/scale.sh in one guest, bench/twovm.sh between two): one sample
# of the memory figures, and the difference of two samples.

meminfo_kb() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }

# tcp_sockets [NS...]: TCP sockets in use in the namespaces named (siw's
# are kernel sockets, counted too), or in the caller's own.
tcp_sockets() {
	local n=0 ns
	[ $# -gt 0 ] || set -- ""
	for ns; do
		n=$((n + $(${ns:+ip netns exec "$ns"} awk '$1 == "TCP:" { print $3 }' /proc/net/sockstat)))
	done
	echo $n
}

# mem_sample [NS...]: "slab vmalloc used sockets": Slab and VmallocUsed
# in KiB, MemTotal less MemAvailable in KiB, tcp_sockets NS....
mem_sample() {
	echo "$(meminfo_kb Slab) $(meminfo_kb VmallocUsed)" \
		"$(($(meminfo_kb MemTotal) - $(meminfo_kb MemAvailable))) $(tcp_sockets "$@")"
}

# mem_delta BEFORE AFTER: the two samples' difference, field by field.
mem_delta() {
	awk -v a="$1" -v b="$2" 'BEGIN { n = split(a, x); split(b, y)
		for (i = 1; i <= n; i++) printf "%d ", y[i] - x[i]; print "" }'
}
