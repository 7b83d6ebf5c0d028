#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Install what the kernel harness needs (idempotent): kernel sources,
# compilers (gcc; clang, lld and LLVM for VARIANT=clang), QEMU, busybox
# for both arches, lint tools, the C libraries of both arches for the
# user-space tests (scripts/build-user.sh), and the real tools the
# kernel's livepatch selftests need in the initramfs (scripts/initramfs.sh):
# the host's for x86_64, Debian's arm64 packages unpacked into
# build/klp-tools-arm64/; Debian's perf tool (linux-perf) for the perf
# tests: the host's /usr/bin/perf for x86_64, linux-perf:arm64 and every
# arm64 library it needs unpacked into build/perf-arm64/; and Debian's
# bpftrace the same way (build/bpftrace-arm64/), with squashfs-tools for
# the disk it comes on (scripts/initramfs.sh).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BB_ARM64=$ROOT/build/busybox-arm64
KLP_ARM64=$ROOT/build/klp-tools-arm64
PERF_ARM64=$ROOT/build/perf-arm64
BPFTRACE_ARM64=$ROOT/build/bpftrace-arm64
# bash, kmod (modprobe, modinfo), coreutils (comm, date, mktemp, stat,
# timeout), diffutils (diff), procps (sysctl), util-linux (dmesg), libc-bin
# (getconf: 6.12's test-syscall.sh) and the libraries
# they need (scripts/initramfs.sh checks every DT_NEEDED; libc comes from
# libc6-arm64-cross)
KLP_PKGS=(bash-static kmod coreutils diffutils procps util-linux libc-bin
	  liblzma5 libzstd1 libssl3 libselinux1 libpcre2-8-0 libtinfo6)

PKGS="linux-source-6.1 linux-source-6.12 gcc gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu
      make qemu-system-x86 qemu-system-arm busybox-static sparse shellcheck ccache flex
      bison libelf-dev bc cpio kmod libssl-dev xz-utils python3 perl
      libc6-dev libc6-dev-arm64-cross linux-perf bpftrace squashfs-tools clang lld
      python3-docutils
      llvm ${KLP_PKGS[*]}"

missing=
for p in $PKGS; do
	dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "[deps] installing:$missing"
	# apt's notes (debconf's among them) go to a log, shown on failure
	log=$(mktemp)
	{ apt-get update -qq &&
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing; } >"$log" 2>&1 ||
		{ tail -n 20 "$log"; rm -f "$log"; exit 1; }
	rm -f "$log"
fi

# unpack_arm64 DIR PKG...: download the arm64 packages and unpack them
# into DIR; fetch_arm64 DIR PKG...: the same into an emptied DIR.
updated=
unpack_arm64() {
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
	mkdir -p "$dir"
	for deb in "$tmp"/*_arm64.deb; do
		dpkg-deb -x "$deb" "$dir"
		# which package each file came from (tool_arm64 below)
		dpkg-deb -c "$deb" | awk -v p="$(dpkg-deb -f "$deb" Package)" \
			'{ print p, $6 }' >>"$dir/.files"
	done
	rm -rf "$tmp"
}
fetch_arm64() {
	rm -rf "$1"
	unpack_arm64 "$@"
}

# An arm64 tool of Debian's and the libraries it needs (DT_NEEDED,
# recursive), unpacked into its own directory: linux-perf (perf) into
# build/perf-arm64, bpftrace into build/bpftrace-arm64.  The C library,
# libgcc_s and libstdc++ come from the cross toolchain
# (/usr/aarch64-linux-gnu/lib, the user tests' loader and libc too), every
# other library from the arm64 package that has it: a round fetches the
# library dependencies (Depends in section libs) of each fetched package
# that holds a file the closure uses, until no DT_NEEDED is missing.
TOOL_SKIP=" libc6 libgcc-s1 libstdc++6 "

# tool_closure DIR BIN: "used FILE" for each file of the closure (DIR/BIN,
# its libraries), "missing SONAME" for each library not found.
tool_closure() {
	local dir=$1 todo=("$1/$2") seen=" " obj lib d f
	local libdirs=("$dir/lib/aarch64-linux-gnu" "$dir/usr/lib/aarch64-linux-gnu"
		       /usr/aarch64-linux-gnu/lib)
	while [ ${#todo[@]} -gt 0 ]; do
		obj=${todo[0]}
		todo=("${todo[@]:1}")
		echo "used $obj"
		for lib in $(readelf -dW "$obj" 2>/dev/null |
			     sed -n 's/.*(NEEDED).*Shared library: \[\(.*\)\]/\1/p'); do
			[[ $seen != *" $lib "* ]] || continue
			seen+="$lib "
			f=
			for d in "${libdirs[@]}"; do
				[ -e "$d/$lib" ] && { f=$(readlink -f "$d/$lib"); break; }
			done
			if [ -n "$f" ]; then
				todo+=("$f")
			else
				echo "missing $lib"
			fi
		done
	done
}

# tool_arm64 DIR PKG BIN: PKG:arm64 and what BIN needs, in DIR.
tool_arm64() {
	local dir=$1 pkg=$2 bin=$3 closure pkgs=("$2") have=" " used p next
	if [ -x "$dir/$bin" ] && [ -f "$dir/.packages" ] &&
	   ! grep -q '^missing ' <<<"$(tool_closure "$dir" "$bin")"; then
		return 0
	fi
	echo "[deps] fetching $pkg:arm64 and the arm64 libraries it needs into ${dir#"$ROOT"/}"
	rm -rf "$dir"
	while [ ${#pkgs[@]} -gt 0 ]; do
		unpack_arm64 "$dir" "${pkgs[@]}"
		have+="${pkgs[*]} "
		closure=$(tool_closure "$dir" "$bin")
		grep -q '^missing ' <<<"$closure" || break
		# the packages holding a file the closure uses
		mapfile -t used < <(sed -n 's|^used '"$dir"'/|./|p' <<<"$closure" |
		       awk 'NR == FNR { u[$1] = 1; next } ($2 in u) { print $1 }' \
			   - "$dir/.files" | sort -u)
		# their dependencies in section libs (not perl, python3 and
		# their modules: the tools run no scripts here)
		next=()
		for p in $(apt-cache depends --important "${used[@]/%/:arm64}" |
			   sed -n 's/^ *\(Pre\)\{0,1\}Depends: \([^<>: ]*\)\(:arm64\)\{0,1\}$/\2/p' |
			   sort -u); do
			if [[ $have != *" $p "* && $TOOL_SKIP != *" $p "* ]]; then
				next+=("$p")
			fi
		done
		[ ${#next[@]} -eq 0 ] ||
			mapfile -t next < <(apt-cache show --no-all-versions "${next[@]/%/:arm64}" |
				awk '$1 == "Package:" { p = $2 }
				     $1 == "Section:" && $2 ~ /^(libs|oldlibs)$/ { print p }' | sort -u)
		pkgs=("${next[@]}")
	done
	if grep -q '^missing ' <<<"$closure"; then
		echo "[deps] $pkg:arm64: no arm64 package found for:" \
			"$(sed -n 's/^missing //p' <<<"$closure" | tr '\n' ' ')" >&2
		exit 1
	fi
	echo "$have" | xargs -n1 | sort >"$dir/.packages"
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
tool_arm64 "$PERF_ARM64" linux-perf usr/bin/perf
tool_arm64 "$BPFTRACE_ARM64" bpftrace usr/bin/bpftrace
echo "[deps] ok"
