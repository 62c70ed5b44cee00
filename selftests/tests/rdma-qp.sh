# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# Sourced by lib.sh and mpa-expect.sh.
#
# rdma_qp_lines: `rdma -dd resource show qp`, one line per QP. iproute2
# 6.1 prints a QP's driver attributes (drv_mpa_rev...) on its line; newer
# releases (trixie's 6.15) continue them on indented lines, which are
# joined here so that a QP's attributes can be matched on its line.
rdma_qp_lines() {
	rdma -dd resource show qp 2>&1 | awk '
		/^[ \t]/ { line = line " " $0; next }
		{ if (line != "") print line; line = $0 }
		END { if (line != "") print line }' | tr -s ' \t' '  '
}
