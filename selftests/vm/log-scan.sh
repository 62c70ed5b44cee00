# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# Sourced by run.sh (the console log, on the host) and guest-run-tests.sh
# (each test's slice of dmesg, in the guest): one scan of a kernel log
# for trouble, with the patterns of bad-log.patterns and the exceptions
# of log-allow.patterns beside this file.
log_scan_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# patterns FILE: the file's regular expressions joined into one.
log_patterns() {
	grep -Ev '^[[:space:]]*(#|$)' "$1" | paste -sd'|'
}
log_bad=$(log_patterns "$log_scan_dir/bad-log.patterns")
log_allow=$(log_patterns "$log_scan_dir/log-allow.patterns")

# log_allowed FILE: the lines the allow-list takes out.
log_allowed() {
	grep -E "$log_allow" "$1"
}

# log_trouble FILE: succeeds when FILE holds kernel trouble, and prints
# each report with the lines around it (at most 80).
log_trouble() {
	grep -Ev "$log_allow" "$1" | grep -Eq "$log_bad" || return 1
	grep -Ev "$log_allow" "$1" | grep -E -B2 -A25 "$log_bad" | head -80
}
