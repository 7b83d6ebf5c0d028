#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Install what the kernel harness needs (idempotent): kernel sources,
# compilers, QEMU, busybox for both arches, lint tools, the C libraries
# of both arches for the user-space tests (scripts/build-user.sh), and the
# real tools the kernel's livepatch selftests need in the initramfs
# (scripts/initramfs.sh): the host's for x86_64, Debian's arm64 packages
# unpacked into build/klp-tools-arm64/.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BB_ARM64=$ROOT/build/busybox-arm64
KLP_ARM64=$ROOT/build/klp-tools-arm64
# bash, kmod (modprobe, modinfo), coreutils (comm, mktemp, stat, timeout),
# diffutils (diff), procps (sysctl), util-linux (dmesg) and the libraries
# they need (scripts/initramfs.sh checks every DT_NEEDED; libc comes from
# libc6-arm64-cross)
KLP_PKGS=(bash-static kmod coreutils diffutils procps util-linux
	  liblzma5 libzstd1 libssl3 libselinux1 libpcre2-8-0 libtinfo6)

PKGS="linux-source-6.1 gcc gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu
      make qemu-system-x86 qemu-system-arm busybox-static sparse ccache flex
      bison libelf-dev bc cpio kmod libssl-dev xz-utils python3 perl
      libc6-dev libc6-dev-arm64-cross ${KLP_PKGS[*]}"

missing=
for p in $PKGS; do
	dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "[deps] installing:$missing"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi

# fetch_arm64 DIR PKG...: download the arm64 packages and unpack them
# into DIR (emptied first).
updated=
fetch_arm64() {
	local dir=$1 tmp deb
	shift
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		dpkg --add-architecture arm64
		updated=
	fi
	[ -n "$updated" ] || apt-get update -qq
	updated=1
	tmp=$(mktemp -d)
	# apt downloads as user _apt (as root, with a warning, without it)
	chmod 755 "$tmp"
	chown _apt "$tmp" 2>/dev/null || true
	(cd "$tmp" && apt-get download -qq "${@/%/:arm64}")
	rm -rf "$dir"
	mkdir -p "$dir"
	for deb in "$tmp"/*_arm64.deb; do
		dpkg-deb -x "$deb" "$dir"
	done
	rm -rf "$tmp"
}

# Static arm64 busybox for the arm64 initramfs, unpacked into build/.
if [ ! -x "$BB_ARM64/bin/busybox" ]; then
	echo "[deps] fetching busybox-static:arm64"
	fetch_arm64 "$BB_ARM64" busybox-static
fi

# The livepatch selftests' tools for the arm64 initramfs; .packages
# records what was unpacked (fetched again when the list changes).
if [ "$(cat "$KLP_ARM64/.packages" 2>/dev/null)" != "${KLP_PKGS[*]}" ] ||
   [ ! -x "$KLP_ARM64/bin/bash-static" ] || [ ! -x "$KLP_ARM64/bin/kmod" ]; then
	echo "[deps] fetching the livepatch selftests' tools (arm64): ${KLP_PKGS[*]}"
	fetch_arm64 "$KLP_ARM64" "${KLP_PKGS[@]}"
	echo "${KLP_PKGS[*]}" >"$KLP_ARM64/.packages"
fi
echo "[deps] ok"
