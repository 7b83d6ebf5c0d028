#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# show-vmlinux.sh ARCH: what the SFrame core makes of the test kernel's
# .sframe, seen from the host with tools/sframe-dump: the verdict of the
# full validator, then the rule at the entry, the middle and the last
# byte of a few well-known kernel functions.
set -euo pipefail
. "$(dirname "$0")/common.sh"
arch_setup "${1:-}"
vmlinux=$OUT/vmlinux
dump=$ROOT/tools/sframe-dump
[ -f "$vmlinux" ] || { echo "[show] no $vmlinux: make kernel ARCH=$1"; exit 1; }
echo "[show] sframe-dump --validate ${vmlinux#"$ROOT"/}:"
"$dump" --validate "$vmlinux" | sed 's/^/  /'
nm="nm"
[ "$1" = arm64 ] && nm=aarch64-linux-gnu-nm
for fn in schedule do_exit vfs_read; do
	line=$("$nm" -S "$vmlinux" | awk -v f="$fn" '$4 == f && ($3 == "T" || $3 == "t") { print $1, $2; exit }' || true)
	[ -n "$line" ] || continue
	read -r addr size <<<"$line"
	a=$((16#$addr)); s=$((16#$size))
	echo "[show] $fn ($s bytes):"
	entry=$a	# arm64 + ftrace: the FDE starts after two patchable NOPs
	[ "$1" = arm64 ] && [ "$s" -gt 8 ] && entry=$((a + 8))
	"$dump" --lookup $entry --lookup $((a + s / 2)) \
		--lookup $((a + s - 1)) "$vmlinux" | sed 's/^/  /'
done
