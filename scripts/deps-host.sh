#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Install what the host builds need (idempotent): compilers, the aarch64
# cross toolchain, binutils-dev (libsframe 2.40, the v1 reference), clang
# and its runtime for libFuzzer, valgrind (make bench-host counts
# instructions with callgrind).
set -euo pipefail
pkgs=(gcc make binutils binutils-dev gcc-aarch64-linux-gnu
      binutils-aarch64-linux-gnu libc6-dev-arm64-cross clang libclang-rt-14-dev
      valgrind)
missing=()
for p in "${pkgs[@]}"; do
	dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "[deps] installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	# apt's notes (debconf's among them) go to a log, shown on failure
	log=$(mktemp)
	{ apt-get update -qq &&
	  apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1 ||
		{ tail -n 20 "$log"; rm -f "$log"; exit 1; }
	rm -f "$log"
fi
