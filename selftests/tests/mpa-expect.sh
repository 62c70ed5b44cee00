#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# mpa-expect.sh REV CRC RTR [GSO]: called by siw_conn_test -x while one
# connection between siw_a and siw_b is up. Succeeds when both ends' QPs
# report, through `rdma resource show qp -dd`, MPA revision REV, CRC CRC
# (0 or 1) and peer-to-peer RTR type RTR (none, send, write or read);
# with GSO, whether GSO-sized FPDUs were negotiated (0 or 1) and a MULPDU
# to match: above 60000 bytes with it, an MSS's worth (the veth's MTU is
# 1500) without. With MPA_EXPECT_IRDORD="A_IRD A_ORD B_IRD B_ORD" in the
# environment, also the IRD and ORD of siw_a's and of siw_b's QP.
want_rev=$1 want_crc=$2 want_rtr=$3 want_gso=${4:-}
read -r a_ird a_ord b_ird b_ord <<< "${MPA_EXPECT_IRDORD:-}"
declare -A irdord=([siw_a]="$a_ird $a_ord" [siw_b]="$b_ird $b_ord")
. "$(dirname "$0")/rdma-qp.sh"
out=$(rdma_qp_lines)
echo "$out" | sed 's/^/# /'
ok=0
for dev in siw_a siw_b; do
	line=$(echo "$out" | grep "^link $dev/1 " | grep ' state RTS ')
	if [ "$(echo "$line" | grep -c .)" != 1 ]; then
		echo "# mpa-expect: want one QP in RTS on $dev"
		ok=1
		continue
	fi
	kvs=("drv_mpa_rev $want_rev" "drv_mpa_crc $want_crc" "drv_mpa_rtr $want_rtr")
	[ -n "$want_gso" ] && kvs+=("drv_mpa_gso $want_gso")
	if [ -n "${MPA_EXPECT_IRDORD:-}" ]; then
		read -r ird ord <<< "${irdord[$dev]}"
		kvs+=("drv_ird $ird" "drv_ord $ord")
	fi
	for kv in "${kvs[@]}"; do
		if ! echo "$line" | grep -qE " $kv( |$)"; then
			echo "# mpa-expect: $dev: want '$kv'"
			ok=1
		fi
	done
	[ -n "$want_gso" ] || continue
	mulpdu=$(echo "$line" | sed -n 's/.* drv_mulpdu \([0-9]*\).*/\1/p')
	if [ -z "$mulpdu" ] ||
	   { [ "$want_gso" = 1 ] && [ "$mulpdu" -le 60000 ]; } ||
	   { [ "$want_gso" = 0 ] && [ "$mulpdu" -gt 1460 ]; }; then
		echo "# mpa-expect: $dev: MULPDU '$mulpdu' does not fit GSO $want_gso"
		ok=1
	fi
done
exit $ok
