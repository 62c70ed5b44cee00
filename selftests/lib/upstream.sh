# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# Sourced where upstream siw (scripts/upstream-siw-src.sh, built out of
# tree for the guest's kernel) is loaded in a guest: the interoperability
# run (guest-interop.sh) and the scale benchmark (bench/scale.sh).

# upstream_load KO: upstream siw's dependencies by modprobe, then the
# module itself by its path (it is named siw too: modprobe would find
# this siw in the guest's module tree).
upstream_load() {
	local d
	for d in $(modinfo -F depends "$1" | tr , ' '); do
		modprobe "$d" || return 1
	done
	insmod "$1"
}
