#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# timeout: 900
# siw's kernel verbs, exercised from a kernel module: loading
# selftests/kverbs/siw_kverbs.ko (built by prepare with siw.ko) runs its
# cases against siw_kv, a siw device on a dummy netdev in the initial
# namespace (192.0.2.60), where rdma_cm connects the module's QPs to each
# other: every CQ polling context, the DMA lkey and global rkey,
# fast-register MRs, local invalidate, Send with Invalidate, Read with
# local invalidate, ib_drain_*, immediate post errors, IRD/ORD, the
# device attributes, and RFC 7306 (immediate data, atomics) between its
# QPs, with the device's mpa/rfc7306 set to 1; then, with it at 0 (the
# default), the module again with
# ext_off=1: only the case that RFC 7306's posts fail locally
# (-EOPNOTSUPP) while the connection works. The module prints one TAP line per case to the
# kernel log; they are shown as a subtest, and one case here passes when
# all of them did. A missing plan or summary, a count that does not add
# up, or a load that succeeds although a case failed (or fails although
# none did) fails too.
. "$(dirname "$0")/lib.sh"
plan 20
addr=192.0.2.60
ko=$SIW_DIR/selftests/kverbs/siw_kverbs.ko

teardown() {
	rmmod siw_kverbs 2>/dev/null
	rdma link delete siw_kv 2>/dev/null
	ip link del siwkv0 2>/dev/null
}
at_exit teardown

if [ ! -f "$ko" ]; then
	fail "the test module is built" "$ko missing: prepare builds it (make kverbs)"
	exit 1
fi
load_siw
# RFC 7306 is off by default (its administrator turns it on for kernel
# users that post its verbs). ib_core reads atomic_cap once, when the
# device is added: the module's default for new devices is set first.
check "mpa_rfc7306 is 0 by default; set to 1 for the devices added next" sh -c \
	'[ "$(cat /sys/module/siw/parameters/mpa_rfc7306)" = 0 ] && echo 1 > /sys/module/siw/parameters/mpa_rfc7306'
check "dummy netdev siwkv0 with $addr" sh -c \
	"ip link add siwkv0 type dummy && ip addr add $addr/24 dev siwkv0 && ip link set siwkv0 up"
check "rdma link add siw_kv on siwkv0" rdma link add siw_kv type siw netdev siwkv0
check "modprobe rdma_cm" modprobe rdma_cm

# run_module WHAT ARGS...: load the module with ARGS, turn its TAP lines
# into 6 cases (WHAT names them), unload it.
run_module() {
	local what=$1 before rc log cases failed mplan summary bad line passed
	shift
	before=$(dmesg | wc -l)
	echo "+ insmod $ko dev=siw_kv addr=$addr $*"
	insmod "$ko" dev=siw_kv addr="$addr" "$@"
	rc=$?
	echo "+ insmod exit status $rc"
	# The module's lines, without the timestamp and the prefix.
	log=$(dmesg | tail -n +"$((before + 1))" | sed -n 's/^\[[^]]*\] siw_kverbs: //p')

	cases=0 failed=0 mplan= summary= bad=
	while IFS= read -r line; do
		case "$line" in
		"ok "*)
			cases=$((cases + 1))
			;;
		"not ok "*)
			cases=$((cases + 1))
			failed=$((failed + 1))
			bad+="$line"$'\n'
			;;
		"1.."*)
			mplan=${line#1..}
			;;
		*" passed, "*" failed")
			summary=$line
			;;
		esac
		echo "    $line"
	done <<< "$log"

	passed=$((cases - failed))
	if [ "$cases" -gt 0 ] && [ "$failed" = 0 ]; then
		ok "$what: the module's cases: all $cases passed"
	else
		fail "$what: the module's cases: all passed" "$cases cases, $failed failed" "$bad"
	fi
	if [ -n "$mplan" ] && [ "$mplan" = "$cases" ] && [ "$cases" -gt 0 ]; then
		ok "$what: the module's plan (1..$mplan) matches its $cases case lines"
	else
		fail "$what: the module's plan matches its case lines" \
			"plan '${mplan:-missing}', $cases case lines"
	fi
	if [ "$summary" = "$passed passed, $failed failed" ]; then
		ok "$what: the module's summary: $summary"
	else
		fail "$what: the module's summary matches its case lines" \
			"summary '${summary:-missing}', lines: $passed passed, $failed failed"
	fi
	if { [ "$failed" = 0 ] && [ "$rc" = 0 ]; } ||
	   { [ "$failed" != 0 ] && [ "$rc" != 0 ]; }; then
		ok "$what: insmod's status ($rc) agrees with the cases ($failed failed)"
	else
		fail "$what: insmod's status agrees with the cases" "status $rc, $failed failed"
	fi
	if [ "$rc" = 0 ]; then
		check "$what: the module's counts: passed $passed, failed 0" sh -c \
			"[ \$(cat /sys/module/siw_kverbs/parameters/passed) = $passed ] && [ \$(cat /sys/module/siw_kverbs/parameters/failed) = 0 ]"
		check "$what: rmmod siw_kverbs" rmmod siw_kverbs
	else
		fail "$what: the module's counts in sysfs" "insmod failed: the module is not loaded"
		fail "$what: rmmod siw_kverbs" "insmod failed: the module is not loaded"
	fi
}

check "mpa/rfc7306 of siw_kv is 1" sh -c \
	'[ "$(cat /sys/class/infiniband/siw_kv/mpa/rfc7306)" = 1 ]'
run_module "mpa/rfc7306 1"
# RFC 7306 switched off on the device: posts fail locally.
check "mpa/rfc7306 of siw_kv set to 0" sh -c 'echo 0 > /sys/class/infiniband/siw_kv/mpa/rfc7306'
run_module "with mpa/rfc7306 0" ext_off=1

teardown
check_wait "no QP, CQ, MR or PD is left" 20 no_siw_resources
check "modprobe -r siw" modprobe -r siw
