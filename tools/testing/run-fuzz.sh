#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# run-fuzz.sh FUZZER SECONDS: run the inputs that once failed
# (tools/testing/fuzz-regressions/), seed a corpus from every fixture
# section (with an 8-byte address prefix, see fuzz-sframe.c), run libFuzzer
# for SECONDS, and print execs/s, total execs and findings.
set -euo pipefail
cd "$(dirname "$0")/../.."
fuzzer=$1
seconds=$2
corpus=build/fuzz/corpus
art=build/fuzz/artifacts
mkdir -p "$corpus" "$art"
for f in $(find tools/testing/fixtures -name '*.sframe') tools/testing/fixtures/libsframe-data/DATA*[!.a-z]; do
	[ -f "$f" ] || continue
	meta=${f%.sframe}.meta
	addr=$(sed -n 's/^sh_addr=//p' "$meta" 2>/dev/null || echo 0)
	name=$corpus/seed-$(echo "$f" | md5sum | cut -c1-12)
	python3 -c "import struct,sys; sys.stdout.buffer.write(struct.pack('<Q', int('${addr:-0}', 0)))" > "$name"
	cat "$f" >> "$name"
done
# inputs that once failed (tools/testing/fuzz-regressions/NAME: what broke)
cp tools/testing/fuzz-regressions/* "$corpus"/ 2>/dev/null || true
if ! "$fuzzer" -runs=0 tools/testing/fuzz-regressions >build/fuzz/regressions.log 2>&1; then
	echo "[fuzz] a regression input fails again: build/fuzz/regressions.log"
	exit 1
fi
echo "[fuzz] $(ls "$corpus" | wc -l) corpus entries; running ${seconds}s"
log=build/fuzz/fuzz.log
set +e
"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1 -artifact_prefix="$art/" "$corpus" > "$log" 2>&1
rc=$?
set -e
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
findings=$(ls "$art" | wc -l)
echo "[fuzz] $execs execs, $speed execs/s, $findings findings (exit $rc); log: $log"
[ "$rc" -eq 0 ] && [ "$findings" -eq 0 ]
