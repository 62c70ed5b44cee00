#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# irdord-expect.sh REV A_IRD A_ORD B_IRD B_ORD: called by siw_conn_test -x
# while one connection between siw_a and siw_b is up. Succeeds when the
# QPs report, through `rdma resource show qp -dd`, MPA revision REV on both
# and the IRD and ORD given for siw_a and for siw_b.
rev=$1
declare -A want=([siw_a]="$2 $3" [siw_b]="$4 $5")
out=$(rdma -dd resource show qp 2>&1)
echo "$out" | sed 's/^/# /'
ok=0
for dev in siw_a siw_b; do
	line=$(echo "$out" | grep "^link $dev/1 " | grep ' state RTS ')
	if [ "$(echo "$line" | grep -c .)" != 1 ]; then
		echo "# irdord-expect: want one QP in RTS on $dev"
		ok=1
		continue
	fi
	set -- ${want[$dev]}
	for kv in "drv_mpa_rev $rev" "drv_ird $1" "drv_ord $2"; do
		if ! echo "$line" | grep -qE " $kv( |$)"; then
			echo "# irdord-expect: $dev: want '$kv'"
			ok=1
		fi
	done
done
exit $ok
