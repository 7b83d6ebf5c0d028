#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# check-vmlinux-sframe.sh ARCH: GNU ld's merged .sframe of the test kernel
# is a valid, sorted section: our validator accepts it, and our full dump
# equals the system `readelf --sframe` (binutils 2.40 decodes v1).
set -uo pipefail
. "$(dirname "$0")/common.sh"
arch_setup "${1:-}"
name=$1${VARIANT:+-$VARIANT}
res=$RESULTS/vmlinux-sframe-$name.txt
dump=$ROOT/tools/sframe-dump
vmlinux=$OUT/vmlinux
readelf=readelf
[ "$1" = arm64 ] && readelf=aarch64-linux-gnu-readelf
: >"$res"
[ -x "$dump" ] || make -C "$ROOT" -s tools >/dev/null
if out=$("$dump" --validate "$vmlinux" 2>&1); then
	pass "vmlinux-sframe-$name: $out" >>"$res"
else
	fail "vmlinux-sframe-$name: validate: $out" >>"$res"
fi
flags=$("$readelf" --sframe "$vmlinux" 2>&1 | sed -n '/Flags:/p')
if grep -q SFRAME_F_FDE_SORTED <<<"$flags"; then
	pass "vmlinux-sframe-$name: readelf says FDE_SORTED" >>"$res"
else
	fail "vmlinux-sframe-$name: not flagged sorted" >>"$res"
fi
if cmp -s <("$dump" "$vmlinux" 2>&1) <("$readelf" --sframe "$vmlinux" 2>&1); then
	pass "vmlinux-sframe-$name: sframe-dump = $readelf --sframe" >>"$res"
else
	fail "vmlinux-sframe-$name: sframe-dump differs from $readelf --sframe" >>"$res"
fi
sed 's/^/  /' "$res"
! grep -q '^FAIL' "$res"
