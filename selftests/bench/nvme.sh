#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# In the guest (run.sh bench nvme): NVMe over Fabrics throughput over
# three transports in one boot, against one nvmet subsystem whose
# namespace is a memory-backed null_blk of 256 MiB:
#   siw       nvme-rdma over siw on dummy netdev bsiw0 (192.0.2.70)
#   rxe       nvme-rdma over rdma_rxe on dummy netdev brxe0 (192.0.2.71)
#   tcp       nvme-tcp on dummy netdev btcp0 (192.0.2.72)
# Both ends are in this guest, so every transport runs over loopback.
# For each, fio runs sequential 128 KiB writes and reads (depth 16) and
# 4 KiB random reads (depth 32), REPS times with the transports' order
# rotated; the medians go to $SIW_OUT/bench-nvme.md, with guest CPU
# seconds (all CPUs, from /proc/stat) per GiB moved.
set -u
reps=${BENCH_REPS:-3}
secs=${BENCH_SECS:-10}
out=${SIW_OUT:-/tmp}
raw=/tmp/bench-nvme.raw
nqn=siw-bench
cfg=/sys/kernel/config/nvmet
sub=$cfg/subsystems/$nqn
nb=/sys/kernel/config/nullb/bnb
hostnqn=nqn.2014-08.org.nvmexpress:uuid:5157a2e1-0000-4000-8000-000000000002

die() { echo "bench nvme: $*" >&2; exit 1; }
log() { echo "bench nvme: $*" > /dev/console; echo "# $*"; }

teardown() {
	nvme disconnect -n "$nqn" >/dev/null 2>&1
	rm -f "$cfg"/ports/*/subsystems/"$nqn" 2>/dev/null
	rmdir "$sub/namespaces/1" "$sub" "$cfg"/ports/* "$nb" 2>/dev/null
	rdma link delete bsiw 2>/dev/null
	rdma link delete brxe 2>/dev/null
	for d in bsiw0 brxe0 btcp0; do ip link del "$d" 2>/dev/null; done
}
trap teardown EXIT

for m in siw rdma_rxe nvmet nvmet-rdma nvmet-tcp nvme-rdma nvme-tcp; do
	modprobe "$m" || die "modprobe $m failed"
done
modprobe null_blk nr_devices=0 || die "modprobe null_blk failed"
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
i=70
for d in bsiw0 brxe0 btcp0; do
	ip link add "$d" type dummy && ip addr add "192.0.2.$i/24" dev "$d" &&
		ip link set "$d" up || die "netdev $d"
	i=$((i + 1))
done
rdma link add bsiw type siw netdev bsiw0 || die "rdma link add bsiw (siw)"
rdma link add brxe type rxe netdev brxe0 || die "rdma link add brxe (rxe)"

mkdir "$nb" && echo 256 > "$nb/size" && echo 1 > "$nb/memory_backed" &&
	echo 1 > "$nb/power" || die "null_blk"
nbdev=/dev/bnb
[ -b "$nbdev" ] || nbdev=/dev/nullb$(cat "$nb/index")
mkdir "$sub" && echo 1 > "$sub/attr_allow_any_host" &&
	mkdir "$sub/namespaces/1" && echo "$nbdev" > "$sub/namespaces/1/device_path" &&
	echo 1 > "$sub/namespaces/1/enable" || die "nvmet subsystem"
port() { # N TYPE ADDR
	mkdir "$cfg/ports/$1" && echo "$2" > "$cfg/ports/$1/addr_trtype" &&
		echo ipv4 > "$cfg/ports/$1/addr_adrfam" &&
		echo "$3" > "$cfg/ports/$1/addr_traddr" &&
		echo 4420 > "$cfg/ports/$1/addr_trsvcid" &&
		ln -s "$sub" "$cfg/ports/$1/subsystems/$nqn"
}
port 1 rdma 192.0.2.70 && port 2 rdma 192.0.2.71 && port 3 tcp 192.0.2.72 ||
	die "nvmet ports"

ns_dev() {
	local b
	for b in /sys/block/nvme*n*; do
		case ${b##*/} in nvme*c*) continue ;; esac
		[ "$(cat "$b/size" 2>/dev/null)" = 524288 ] && echo "/dev/${b##*/}" && return
	done
}

# busy_jiffies: all CPUs' non-idle time so far, in USER_HZ ticks.
busy_ticks() { awk '/^cpu /{ print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }

run_fio() { # TRANSPORT JOB RW BS DEPTH DEV
	local t0 t1 j
	t0=$(busy_ticks)
	j=$(fio --name="$2" --filename="$6" --direct=1 --ioengine=libaio \
		--rw="$3" --bs="$4" --iodepth="$5" --size=256M --runtime="$secs" \
		--time_based --output-format=json 2>/dev/null) || return 1
	t1=$(busy_ticks)
	echo "$j" | python3 -c '
import json, sys
t, job, ticks, hz = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
j = json.load(sys.stdin)["jobs"][0]
d = j["read"] if j["read"]["io_bytes"] else j["write"]
print(t, job, d["bw_bytes"], d["iops"], d["io_bytes"], ticks / hz)
' "$1" "$2" $((t1 - t0)) "$(getconf CLK_TCK)" >> "$raw"
}

: > "$raw"
order=(siw rxe tcp)
for ((r = 0; r < reps; r++)); do
	for ((k = 0; k < 3; k++)); do
		t=${order[$(((r + k) % 3))]}
		case $t in
		siw) args=(-t rdma -a 192.0.2.70) ;;
		rxe) args=(-t rdma -a 192.0.2.71) ;;
		tcp) args=(-t tcp -a 192.0.2.72) ;;
		esac
		log "round $((r + 1))/$reps: $t"
		timeout 120 nvme connect "${args[@]}" -s 4420 -n "$nqn" \
			--hostnqn "$hostnqn" >/dev/null || die "nvme connect over $t failed"
		for _ in $(seq 100); do [ -b "$(ns_dev)" ] && break; sleep 0.3; done
		dev=$(ns_dev)
		[ -b "$dev" ] || die "no namespace over $t"
		run_fio "$t" write128k write 128k 16 "$dev" &&
			run_fio "$t" read128k read 128k 16 "$dev" &&
			run_fio "$t" randread4k randread 4k 32 "$dev" ||
			die "fio over $t failed"
		timeout 60 nvme disconnect -n "$nqn" >/dev/null || die "disconnect $t"
		for _ in $(seq 100); do [ -z "$(ns_dev)" ] && break; sleep 0.3; done
	done
done

python3 - "$raw" "$reps" "$secs" > "$out/bench-nvme.md" <<'EOF'
import statistics, sys
from collections import defaultdict
raw, reps, secs = sys.argv[1], sys.argv[2], sys.argv[3]
bw, iops, cpu = defaultdict(list), defaultdict(list), defaultdict(list)
for line in open(raw):
    t, job, b, i, n, c = line.split()
    bw[t, job].append(float(b))
    iops[t, job].append(float(i))
    cpu[t, job].append(float(c) / (float(n) / 2**30) if float(n) else 0)
med = statistics.median
print(f"NVMe over Fabrics, one guest (loopback), null_blk in memory; fio "
      f"{secs} s per job, median of {reps}.\n")
print("| job | transport | MiB/s | IOPS | CPU s/GiB | siw / tcp | siw / rxe |")
print("|---|---|---|---|---|---|---|")
for job in ("write128k", "read128k", "randread4k"):
    for t in ("siw", "rxe", "tcp"):
        if (t, job) not in bw:
            continue
        m = med(bw[t, job])
        row = f"| {job} | {t} | {m / 2**20:.1f} | {med(iops[t, job]):.0f} | {med(cpu[t, job]):.1f} |"
        if t == "siw":
            r = [med(bw[s, job]) for s in ("tcp", "rxe") if (s, job) in bw]
            row += "".join(f" {m / x:.2f} |" if x else " - |" for x in r)
        else:
            row += " | |"
        print(row)
EOF
cat "$out/bench-nvme.md"
