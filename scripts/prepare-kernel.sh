#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Prepare a Linux 6.1 tree for in-tree builds of sframe-unwind:
# extract /usr/src/linux-source-6.1.tar.xz into build/linux, apply
# scripts/patches/*.patch and link build/linux/sframe-unwind -> repo root.
#
# KDIR=/path uses an existing tree instead of extracting one.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TARBALL=/usr/src/linux-source-6.1.tar.xz
PATCHES=("$ROOT"/scripts/patches/*.patch)

patch_hash=$(cat "${PATCHES[@]}" | sha256sum | cut -d' ' -f1)

apply_patches() {
	local p n=0
	for p in "${PATCHES[@]}"; do
		if patch -d "$1" -p1 -R --dry-run -s -f <"$p" >/dev/null 2>&1; then
			continue	# already applied
		fi
		patch -d "$1" -p1 -s -f <"$p" ||
			{ echo "[prepare] $(basename "$p") does not apply"; return 1; }
		n=$((n + 1))
	done
	echo "[prepare] $n of ${#PATCHES[@]} patches applied (scripts/patches)"
}

if [ -n "${KDIR:-}" ]; then
	tree=$(cd "$KDIR" && pwd)
	apply_patches "$tree"
else
	tree=$ROOT/build/linux
	stamp=$ROOT/build/.linux-patches.sha256
	if [ ! -f "$tree/Makefile" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$patch_hash" ]; then
		echo "[prepare] extract $TARBALL -> build/linux"
		rm -rf "$tree" "$stamp"
		mkdir -p "$tree"
		tar -xJf "$TARBALL" -C "$tree" --strip-components=1
		apply_patches "$tree"
		echo "$patch_hash" >"$stamp"
	fi
fi

ln -sfn "$ROOT" "$tree/sframe-unwind"
echo "[prepare] tree ready: $tree"
