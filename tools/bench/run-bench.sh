#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# run-bench.sh BENCH: PC-to-rule lookups/s, ours vs libsframe 2.40, on
#  - a large program built here (20,000 generated functions, gcc -O2
#    -Wa,--gsframe: SFrame v1 from the system binutils 2.40), and
#  - the x86_64 test kernel's own vmlinux, when it has been built.
# A benchmark, not a test: it prints numbers and ratios, and one line per
# goal of issue 14 ("goal: ... met" or "not met"): wall time on both ELF
# files, instructions counted by callgrind on the large program.
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
# Instructions (callgrind): the same for the same binary and input whatever
# the machine is doing.  Inclusive cost of each measured loop (two rounds
# each, the same PCs: ROUNDS 2), 100,000 lookups on the large program.
if ! command -v valgrind >/dev/null || ! command -v callgrind_annotate >/dev/null; then
	echo "[bench] callgrind: valgrind not installed (apt-get install valgrind)"
	exit 0
fi
cg=$out/callgrind.out
echo "== instructions (callgrind) on $out/big, 100000 lookups"
valgrind -q --tool=callgrind --callgrind-out-file=$cg "$bench" $out/big 100000 2 >/dev/null
callgrind_annotate --inclusive=yes --threshold=100 $cg 2>/dev/null |
awk '
	function num(s) { gsub(",", "", s); return s + 0 }
	/bench_plain/ && !p { p = num($1) }
	/bench_index/ && !x { x = num($1) }
	/bench_rows/ && !r { r = num($1) }
	/bench_libsframe/ && !l { l = num($1) }
	END {
		if (!p || !x || !r || !l) { print "[bench] callgrind: a measured loop is missing"; exit 1 }
		printf "instructions per lookup: sframe core, no index %.0f; block index %.0f; decoded rows %.0f; libsframe 2.40 %.0f\n", \
			p / 200000, x / 200000, r / 200000, l / 200000
		printf "goal: instructions with the index (decoded rows): %.2fx fewer than libsframe (goal >= 8x): %s\n", \
			l / r, (l / r >= 8 ? "met" : "not met")
		printf "goal: instructions without an index: %.2fx fewer than libsframe (goal >= 2x): %s\n", \
			l / p, (l / p >= 2 ? "met" : "not met")
	}'
