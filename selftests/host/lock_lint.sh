#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# lock_lint.sh [SIW_DIR]: two rules of siw's locking model that a stock
# kernel cannot check at run time, checked on the source. Prints KTAP.
#
# 1. Every lock declared in a structure (spinlock_t, struct mutex,
#    rwlock_t, struct rw_semaphore, siw's struct siw_tx_bitlock) is
#    initialised somewhere in siw/*.c.
#    A zeroed spinlock happens to work on a stock kernel; on a lockdep
#    kernel it is a "non-static key" report that turns lockdep off (the
#    CQ's poll_lock was such a lock).
# 2. A function whose comment says "Must hold" asserts it: its body has a
#    lockdep_assert_held() or ASSERT_RTNL(), so no rule lives only in a
#    comment.
set -uo pipefail

. "$(dirname "$0")/../lib/ktap.sh"
dir=${1:-$(cd "$(dirname "$0")/../../siw" && pwd)}
ktap_header

# Rule 1: name FILE:LINE of each lock member.
locks=$(grep -nE '^[[:space:]]+(spinlock_t|struct mutex|rwlock_t|struct rw_semaphore|struct siw_tx_bitlock)[[:space:]]+[a-z_0-9]+;' \
	"$dir"/*.h "$dir"/*.c | sed -E 's/^([^:]+):([0-9]+):.*[[:space:]]([a-z_0-9]+);.*/\3 \1:\2/')
[ -n "$locks" ] || ktap_fail "lock members found in $dir" "none: is the path right?"
while read -r name where; do
	[ -n "$name" ] || continue
	if grep -qE "(spin_lock_init|mutex_init|rwlock_init|init_rwsem|siw_tx_bitlock_init)\(&[a-z_0-9>.-]*\b$name\)" "$dir"/*.c; then
		ktap_pass "lock $name ($(basename "${where%:*}")) is initialised"
	else
		ktap_fail "lock $name ($(basename "${where%:*}")) is initialised" \
			"declared at $where; no *_init(&...$name) in $dir/*.c"
	fi
done <<< "$locks"

# Rule 2: for each "Must hold" in a comment before a function, the body of
# the function that follows must assert it.
for f in "$dir"/*.c "$dir"/*.h; do
	while IFS=$'\t' read -r line func good; do
		ktap_result "$good" "$(basename "$f"):$line: $func asserts what its comment says it must hold" \
			"the comment says \"Must hold\"; the body has no lockdep_assert_held()/ASSERT_RTNL()"
	done < <(awk '
		# A "Must hold" in a comment outside any function arms the check.
		depth == 0 && /^(\/\*| \*)/ && tolower($0) ~ /must hold/ {
			armed = 1; where = NR
		}
		depth == 0 && armed && /^[a-z].*\(/ && !name {
			name = $0
			sub(/\(.*/, "", name)
			sub(/.*[ *]/, "", name)
		}
		/^{/ { depth = 1; body = ""; next }
		depth == 1 && /^}/ {
			if (armed)
				printf "%d\t%s\t%d\n", where, name,
				       (body ~ /lockdep_assert_held|ASSERT_RTNL/) ? 1 : 0
			depth = 0; armed = 0; name = ""
			next
		}
		depth == 1 { body = body $0 "\n" }
	' "$f")
done

ktap_finished
