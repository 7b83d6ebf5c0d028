#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# run-bench.sh BENCH: PC-to-rule lookups/s, ours vs libsframe 2.40, on
#  - a large program built here (20,000 generated functions, gcc -O2
#    -Wa,--gsframe: SFrame v1 from the system binutils 2.40), and
#  - the x86_64 test kernel's own vmlinux, when it has been built.
# A benchmark, not a test: it prints numbers and ratios.
set -euo pipefail
cd "$(dirname "$0")/../.."
bench=$1
out=build/bench
mkdir -p $out
if [ ! -f $out/big ] || [ tools/bench/gen-big.py -nt $out/big ]; then
	echo "[bench] building a 20,000-function program with -Wa,--gsframe"
	python3 tools/bench/gen-big.py 20000 > $out/big.c
	gcc -O2 -fasynchronous-unwind-tables -fomit-frame-pointer -Wa,--gsframe \
		-o $out/big $out/big.c
fi
for elf in $out/big build/kbuild-x86_64/vmlinux; do
	[ -f "$elf" ] || continue
	echo "== $elf"
	"$bench" "$elf" 2000000
	echo
done
echo "[bench] instruction counts (callgrind, deterministic): run"
echo "        valgrind --tool=callgrind $bench ELF 100000"
