# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# Sourced by guest-run-tests.sh: the kmemleak check after the tests, on a
# kernel with kmemleak (the debug kernel; its automatic scan is off).
#
# kmemleak names each frame of a leaked object's allocation backtrace
# when the output is read. siw and the kverbs test module are unloaded by
# then (every test ends with modprobe -r siw), so their frames read as
# bare addresses ("0xffffffffc0a1b2c3"). While the tests run, a watcher
# records where each module was loaded (core and init text, from sysfs,
# on the module's uevent), and an address is looked up there.

kmemleak=/sys/kernel/debug/kmemleak
kmemleak_mods=/tmp/kmemleak-modules.$$
kmemleak_watch_pid=
# The modules whose leaks fail the run: siw, and the kverbs test module
# (selftests/kverbs/Kbuild).
kmemleak_ours='siw|siw_kverbs'

kmemleak_present() { [ -e "$kmemleak" ]; }

# kmemleak_record NAME: appends "NAME BASE CORESIZE INIT_TEXT" for a
# loaded module: where its core layout starts, its size, and where its
# init text was (sysfs keeps that address after the init code is freed).
# Builtins only: the watcher must be done before the module may go.
kmemleak_record() {
	local n addr base= size itext=- rest
	while read -r n _ _ _ _ addr rest; do
		[ "$n" = "$1" ] && base=$addr && break
	done < /proc/modules
	read -r size 2>/dev/null < "/sys/module/$1/coresize"
	read -r itext 2>/dev/null < "/sys/module/$1/sections/.init.text"
	[ -n "$base" ] && [ -n "$size" ] && echo "$1 $base $size ${itext:--}"
}

# kmemleak_watch: records every module loaded from now on (and those
# loaded already). The watcher runs in a session of its own, so that it
# ends as a group; it is listening once a synthetic uevent of a loaded
# module reaches it.
kmemleak_watch() {
	local probe i name
	: > "$kmemleak_mods"
	export -f kmemleak_record
	export kmemleak_mods
	setsid bash -c 'stdbuf -oL udevadm monitor --kernel --subsystem-match=module |
		while read -r _ action path _; do
			[ "$action" = add ] && kmemleak_record "${path#/module/}" >> "$kmemleak_mods"
		done' > /dev/null 2>&1 &
	kmemleak_watch_pid=$!
	probe=$(awk '$6 != "" { print $1; exit }' /proc/modules)
	for ((i = 0; i < 20; i++)); do
		echo add > "/sys/module/$probe/uevent"
		sleep 0.5
		grep -q "^$probe " "$kmemleak_mods" && break
	done
	grep -q "^$probe " "$kmemleak_mods" ||
		echo "# kmemleak: the module watcher does not answer; bare addresses will count as siw's"
	for name in $(awk '{ print $1 }' /proc/modules); do
		kmemleak_record "$name" >> "$kmemleak_mods"
	done
}

# kmemleak_ranges RECORDS: "NAME START END" of each recorded load's core
# layout and init text (its size from the module's file).
kmemleak_ranges() {
	local name base size itext isize ko
	sort -u "$1" | while read -r name base size itext; do
		printf '%s 0x%x 0x%x\n' "$name" "$base" $((base + size))
		[ "$itext" != - ] || continue
		ko=$(modinfo -n "$name" 2>/dev/null)
		[ -f "$ko" ] || ko=$SIW_DIR/selftests/kverbs/$name.ko
		isize=$(size -A "$ko" 2>/dev/null | awk '$1 == ".init.text" { print $2 }')
		[ "${isize:-0}" -gt 0 ] && printf '%s 0x%x 0x%x\n' "$name" "$itext" $((itext + isize))
	done
}

kmemleak_unwatch() {
	[ -n "$kmemleak_watch_pid" ] && kill -- -"$kmemleak_watch_pid" 2>/dev/null
	kmemleak_watch_pid=
}

# kmemleak_owner ADDR: the name of the module that held ADDR, from
# $kmemleak_ranges (several when the address was reused by later loads).
kmemleak_ranges_file=/tmp/kmemleak-ranges.$$
kmemleak_owner() {
	local a=$(($1)) name start end owners=
	while read -r name start end; do
		# Both sides are kernel addresses, negative as bash's signed
		# 64-bit numbers: their order is kept.
		if [ "$a" -ge $((start)) ] && [ "$a" -lt $((end)) ]; then
			case " $owners " in *" $name "*) ;; *) owners+=" $name" ;; esac
		fi
	done < "$kmemleak_ranges_file"
	echo "${owners# }"
}

# kmemleak_scan OUTFILE: two scans a few seconds apart, then the report
# into OUTFILE, judged by kmemleak_judge.
kmemleak_scan() {
	echo scan > "$kmemleak" || return 1
	# kmemleak reports only objects older than 5 s that a scan found
	# unreferenced; a second scan later drops those that were only in
	# flight (a pointer in a register, a list being rebuilt). The wait
	# is kmemleak's own rule, not a state to poll.
	sleep 5
	echo scan > "$kmemleak" || return 1
	cat "$kmemleak" > "$1" || return 1
	kmemleak_judge "$1"
}

# kmemleak_judge FILE: sorts the records of a kmemleak report into ours
# (a frame in siw or the test module) and the others. Sets
# kmemleak_ours_n, kmemleak_other_n and fills $kmemleak_ours_file and
# $kmemleak_other_file with the records, a bare address followed by the
# module that held it.
kmemleak_ours_file=/tmp/kmemleak-ours.$$
kmemleak_other_file=/tmp/kmemleak-other.$$
kmemleak_judge() {
	local line rec= ours=0 note sym
	kmemleak_ours_n=0 kmemleak_other_n=0
	: > "$kmemleak_ours_file"
	: > "$kmemleak_other_file"
	kmemleak_ranges "$kmemleak_mods" > "$kmemleak_ranges_file"
	while IFS= read -r line; do
		case "$line" in
		"unreferenced object "*)
			kmemleak_file_record "$rec" $ours
			rec=$line ours=0
			continue
			;;
		esac
		note=
		# Only backtrace frames: "    [<hashed>] symbol+0x1c/0x60 [module]".
		sym=
		[[ $line =~ ^\ +\[\<[0-9a-f]+\>\]\ (.*)$ ]] && sym=${BASH_REMATCH[1]}
		if [ -z "$sym" ]; then
			:
		elif [[ $sym =~ \[($kmemleak_ours)(\ [0-9a-f]+)?\]$ ]]; then
			ours=1
		elif [[ $sym =~ ^0x[0-9a-f]+$ ]]; then
			# A bare address: code unloaded since.
			note=$(kmemleak_owner "$sym")
			if [ -z "$note" ]; then
				note="no recorded module held it: counted as siw's"
				ours=1
			elif [[ " $note " =~ \ ($kmemleak_ours)\  ]]; then
				ours=1
			fi
			note=" (code unloaded since: $note)"
		fi
		rec+=$'\n'"$line$note"
	done < "$1"
	kmemleak_file_record "$rec" $ours
}

# kmemleak_file_record RECORD OURS: counts a record and keeps it.
kmemleak_file_record() {
	[ -n "$1" ] || return 0
	if [ "$2" = 1 ]; then
		kmemleak_ours_n=$((kmemleak_ours_n + 1))
		echo "$1" >> "$kmemleak_ours_file"
	else
		kmemleak_other_n=$((kmemleak_other_n + 1))
		echo "$1" >> "$kmemleak_other_file"
	fi
}
