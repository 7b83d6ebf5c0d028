#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Smoke checks run by /init inside the test VM (busybox sh).
# One line per check: "PASS: name" or "FAIL: name".

check() {
	name=$1
	shift
	if "$@" >/tmp/check.out 2>&1; then
		echo "PASS: $name"
	else
		echo "FAIL: $name"
		sed 's/^/    /' /tmp/check.out
	fi
}

echo "PASS: kernel booted"
check "kallsyms has __start_sframe" grep -q ' __start_sframe$' /proc/kallsyms
# The SFrame core validated and indexed vmlinux's .sframe at boot.
check "vmlinux .sframe valid" sh -c 'dmesg | grep -E "sframe: vmlinux: SFrame v[0-9]+, [0-9]+ FDEs.*: valid"'

for ko in /lib/modules-test/*.ko; do
	[ -e "$ko" ] || continue
	mod=$(basename "$ko" .ko)
	check "insmod $mod" insmod "$ko"
	check "rmmod $mod" rmmod "$mod"
	check "$mod: module .sframe not rejected" sh -c "! dmesg | grep -q '$mod: .sframe rejected'"
done

# Anything that looks like a kernel splat fails the run.
check "dmesg clean" sh -c '! dmesg | grep -E "Oops|BUG:|WARNING:|KASAN|Call Trace"'
