# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# perftest's options, for the tests and the benchmarks alike (sourced by
# selftests/tests/lib.sh and selftests/bench/*.sh).
#
# -R: perftest connects over rdma_cm (iWARP has no other way).
# -F: perftest measures the CPU's clock rate for its report, and where the
# samples scatter (an emulated guest on a loaded host) it gives up with
# exit status 1 after a transfer that succeeded ("Correlation coefficient
# r^2 < 0.9", then "Can't produce a report"); with -F it reports anyway.
# A case checks the transfer's outcome, every completion successful,
# which perftest's exit status says.
PERFTEST="-R -F"
