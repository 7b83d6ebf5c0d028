#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Install what the kernel harness needs (idempotent): kernel sources,
# compilers, QEMU, busybox for both arches, lint tools, the C libraries
# of both arches for the user-space tests (scripts/build-user.sh).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BB_ARM64=$ROOT/build/busybox-arm64

PKGS="linux-source-6.1 gcc gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu
      make qemu-system-x86 qemu-system-arm busybox-static sparse ccache flex
      bison libelf-dev bc cpio kmod libssl-dev xz-utils python3 perl
      libc6-dev libc6-dev-arm64-cross"

missing=
for p in $PKGS; do
	dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "[deps] installing:$missing"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi

# Static arm64 busybox for the arm64 initramfs, unpacked into build/.
if [ ! -x "$BB_ARM64/bin/busybox" ]; then
	echo "[deps] fetching busybox-static:arm64"
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		dpkg --add-architecture arm64
	fi
	apt-get update -qq
	tmp=$(mktemp -d)
	chmod 755 "$tmp"	# apt downloads as user _apt
	(cd "$tmp" && apt-get download -qq busybox-static:arm64)
	mkdir -p "$BB_ARM64"
	dpkg-deb -x "$tmp"/busybox-static_*_arm64.deb "$BB_ARM64"
	rm -rf "$tmp"
fi
echo "[deps] ok"
