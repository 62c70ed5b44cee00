#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# mpa-expect.sh REV CRC RTR: called by siw_conn_test -x while one
# connection between siw_a and siw_b is up. Succeeds when both ends' QPs
# report, through `rdma resource show qp -dd`, MPA revision REV, CRC CRC
# (0 or 1) and peer-to-peer RTR type RTR (none, send, write or read).
want_rev=$1 want_crc=$2 want_rtr=$3
out=$(rdma -dd resource show qp 2>&1)
echo "$out" | sed 's/^/# /'
ok=0
for dev in siw_a siw_b; do
	line=$(echo "$out" | grep "^link $dev/1 " | grep ' state RTS ')
	if [ "$(echo "$line" | grep -c .)" != 1 ]; then
		echo "# mpa-expect: want one QP in RTS on $dev"
		ok=1
		continue
	fi
	for kv in "drv_mpa_rev $want_rev" "drv_mpa_crc $want_crc" "drv_mpa_rtr $want_rtr"; do
		if ! echo "$line" | grep -q " $kv "; then
			echo "# mpa-expect: $dev: want '$kv'"
			ok=1
		fi
	done
done
exit $ok
