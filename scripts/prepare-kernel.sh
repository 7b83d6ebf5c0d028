#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Prepare a kernel tree of line KVER (6.1 or 6.12) for in-tree builds of
# sframe-unwind: extract /usr/src/linux-source-$KVER.tar.xz into KB/linux
# (build/linux, build/6.12/linux), apply scripts/patches/$KVER/*.patch
# exactly (no fuzz, no offset guessing beyond patch's own) and link
# KB/linux/sframe-unwind -> repo root.  A patch that does not apply
# stops the preparation with the file and hunk.
#
# KDIR=/path uses an existing tree instead of extracting one.
set -euo pipefail

. "$(dirname "$0")/common.sh"
TARBALL=/usr/src/linux-source-$KVER.tar.xz
PATCHES=("$ROOT"/scripts/patches/"$KVER"/*.patch)
tag="[prepare $KVER]"

patch_hash=$(cat "${PATCHES[@]}" | sha256sum | cut -d' ' -f1)

apply_patches() {
	local p n=0 out
	for p in "${PATCHES[@]}"; do
		if patch -d "$1" -p1 -R --dry-run -s -f --fuzz=0 <"$p" >/dev/null 2>&1; then
			continue	# already applied
		fi
		# --dry-run first: a patch that fails leaves the tree untouched
		if ! out=$(patch -d "$1" -p1 -f --fuzz=0 --dry-run <"$p" 2>&1); then
			echo "$tag ${p#"$ROOT"/} does not apply to ${1#"$ROOT"/}:"
			# each failed hunk with its file
			awk '/^(checking|patching) file / { f = $3 }
			     /FAILED at/ { print "  " f ": " $0; next }
			     /can.t find file|No file to patch|malformed/ { print "  " $0 }' \
				<<<"$out" | head -20
			return 1
		fi
		patch -d "$1" -p1 -s -f --fuzz=0 --no-backup-if-mismatch <"$p" >/dev/null
		n=$((n + 1))
	done
	echo "$tag $n of ${#PATCHES[@]} patches applied (scripts/patches/$KVER)"
}

[ -f "$TARBALL" ] || { echo "$tag no $TARBALL: scripts/deps.sh installs linux-source-$KVER"; exit 1; }

if [ -n "${KDIR:-}" ]; then
	tree=$(cd "$KDIR" && pwd)
	apply_patches "$tree"
else
	tree=$KSRC
	stamp=$KB/.linux-patches.sha256
	if [ ! -f "$tree/Makefile" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$patch_hash" ]; then
		echo "$tag extract $TARBALL -> ${tree#"$ROOT"/}"
		rm -rf "$tree" "$stamp"
		mkdir -p "$tree"
		tar -xJf "$TARBALL" -C "$tree" --strip-components=1
		apply_patches "$tree"
		echo "$patch_hash" >"$stamp"
	fi
fi

ln -sfn "$ROOT" "$tree/sframe-unwind"
echo "$tag tree ready: ${tree#"$ROOT"/}"
