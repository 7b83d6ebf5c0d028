#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make bench-kernel [ARCH=x86_64|arm64]: the kernel unwinder's benchmark
# (sframe_unwind_demo bench=1: our walk against ORC / frame pointers on
# the same stacks, lookup cache warm and emptied) and the user callchain's
# (frame pointers against SFrame per sample), in the test kernel booted
# with sframe_only=bench:
#   - twice with QEMU's instruction-counting clock (-icount shift=0: guest
#     time is instructions executed, 1 ns each), so that a ratio is the
#     same from run to run and from machine to machine; on one CPU (with
#     -icount, QEMU 7.2 runs the vCPUs round-robin and the x86_64 kernel
#     hangs bringing up the second one); the benchmarks walk blocked tasks
#     and sample one process, which one CPU does as well;
#   - once on TCG's ordinary clock, -smp 2 as the boot tests (host time:
#     drifts by tens of percent with the host's load).
# Then one line per goal (Documentation/unwinder.rst): the icount ratios,
# the TCG one, the goal, met or not met (judged on the first icount run),
# the memory the unwinder keeps for speed, and the time until vmlinux's
# section is ready for lookups at boot (ms, and ms per MB).
# A benchmark, not a test: it fails only when a run gives no numbers.
# Logs: build/logs/bench-ARCH-{icount1,icount2,tcg}.log.
#
# PROFILE=1: instead, one icount run with QEMU's plugin
# tools/bench/insn-profile.c counting the instructions at each kernel
# address in each phase of the benchmark, then the functions that
# executed most of them per walk (tools/bench/insn-profile.py; the whole
# profile: build/logs/bench-ARCH-profile.txt).
set -euo pipefail

. "$(dirname "$0")/common.sh"
arch_setup "${1:-}"
A=$1
[ -f "$OUT/$IMAGE" ] || { echo "[bench $A] no kernel: make kernel ARCH=$A first"; exit 1; }
"$ROOT/scripts/initramfs.sh" "$A" >/dev/null
initrd=$KB/initramfs-$A.cpio.gz

# run NAME CPUS QEMU-OPTIONS...: boot, keep the console log
run() {
	local name=$1 log=$LOGS/bench-$A-$1.log
	SMP=$2 qemu_cmd "$A" "$initrd" "panic=-1 kunit.enable=0 sframe_only=bench${APPEND:+ $APPEND}"
	shift 2
	echo "[bench $A] $name: boot (log: ${log#"$ROOT"/})"
	timeout -k 5 900 "${QEMU[@]}" "$@" </dev/null 2>&1 | tr -d '\r' >"$log" || true
	grep -q 'sframe_unwind_demo: bench: arch_stack_walk:' "$log" ||
		{ echo "[bench $A] $name: no benchmark in the log"; exit 1; }
}
if [ -n "${PROFILE:-}" ]; then
	plugin=$ROOT/build/bench/insn-profile.so
	mkdir -p "${plugin%/*}"
	if [ ! -f "$plugin" ] || [ "$ROOT/tools/bench/insn-profile.c" -nt "$plugin" ] ||
	   [ "$ROOT/tools/bench/qemu-plugin-api.h" -nt "$plugin" ]; then
		gcc -O2 -Wall -Wextra -fPIC -shared -fvisibility=hidden \
			-o "$plugin" "$ROOT/tools/bench/insn-profile.c"
	fi
	prof=$LOGS/bench-$A-profile.txt
	# nokaslr: the addresses are vmlinux's
	APPEND=nokaslr run profile 1 -icount shift=0,sleep=off -plugin "$plugin,out=$prof"
	# walks per phase: stacks x rounds
	walks=$(sed -n 's/.*bench: \([0-9]*\) stacks x \([0-9]*\) rounds.*/\1 \2/p' \
		"$LOGS/bench-$A-profile.log" | awk '{ print $1 * $2; exit }')
	echo "[bench $A] instructions per walk (${walks:-?} walks per phase; [other]: modules, the benchmark's callback)"
	"$ROOT/tools/bench/insn-profile.py" --per "${walks:-1}" --phase 1,2,3 \
		"$prof" "$OUT/vmlinux"
	exit 0
fi
run icount1 1 -icount shift=0,sleep=off
run icount2 1 -icount shift=0,sleep=off
run tcg 2

# ratios LOG: "warm cold user boot_us boot_bytes" of one run
ratios() {
	awk '
	/sframe_unwind_demo: bench: arch_stack_walk: / { sub(/.*ratio /, ""); w = $1 + 0 }
	/sframe_unwind_demo: bench: arch_stack_walk, lookup cache emptied/ { sub(/.*ratio /, ""); c = $1 + 0 }
	/BENCH: user callchain: / { sub(/.*ratio /, ""); u = $1 + 0 }
	/sframe: vmlinux: SFrame v[0-9]+, .* indexed in [0-9]+ us/ {
		for (i = 1; i <= NF; i++) if ($i == "bytes:") b = $(i - 1)
		sub(/.*indexed in /, ""); t = $1 + 0
	}
	END { printf "%s %s %s %s %s\n", w, c, u, t, b }' "$1"
}
read -r w1 c1 u1 t1 b1 < <(ratios "$LOGS/bench-$A-icount1.log")
read -r w2 c2 u2 _ _ < <(ratios "$LOGS/bench-$A-icount2.log")
read -r w3 c3 u3 t3 _ < <(ratios "$LOGS/bench-$A-tcg.log")

if [ "$A" = x86_64 ]; then
	ref=ORC gw=0.5 gc=0.8
else
	ref="frame pointers" gw=1.25 gc=1.5
fi
# goal WHAT ICOUNT1 ICOUNT2 TCG GOAL UNIT
goal() {
	awk -v what="$1" -v a="$2" -v b="$3" -v t="$4" -v g="$5" -v unit="$6" 'BEGIN {
		printf "goal: %s: %.2f%s (icount: %.2f, %.2f; TCG clock: %.2f) (goal <= %s%s): %s\n",
			what, a, unit, a, b, t, g, unit, (a <= g ? "met" : "not met")
	}'
}
# report: the goal, memory and boot lines (also kept for make results)
report() {
	goal "$A kernel walk, lookup cache warm, against $ref" "$w1" "$w2" "$w3" $gw x
	goal "$A kernel walk, lookup cache cold, against $ref" "$c1" "$c2" "$c3" $gc x
	goal "$A user callchain per sample, against frame pointers" "$u1" "$u2" "$u3" 1.25 x
	# Memory: everything the unwinder keeps for vmlinux (the kernel's
	# "unwind data" line: section, its index, rows, rules, return sites,
	# annotation index; plus the per-CPU lookup caches), against ORC's
	# tables in the same vmlinux (x86_64; arm64's frame records need none).
	mem=$(sed -n 's/.*sframe: vmlinux: unwind data: \(.*\): \([0-9]*\) bytes in all, \([0-9]*\) per MB of text; lookup caches \([0-9]*\) bytes per CPU, \([0-9]*\) CPUs.*/\2 \3 \4 \5 \1/p' \
		"$LOGS/bench-$A-icount1.log")
	rows_us=$(sed -n 's/.*sframe: vmlinux: decoded rows: .* bytes (built in \([0-9]*\) us.*/\1/p' \
		"$LOGS/bench-$A-icount1.log")
	orc=0
	if [ "$A" = x86_64 ]; then
		for sz in $(readelf -SW "$OUT/vmlinux" |
			    awk '$2 ~ /^\.orc_(unwind|unwind_ip|lookup)$/ { print $6 }'); do
			orc=$((orc + 16#$sz))
		done
	fi
	read -r etext stext < <(nm "$OUT/vmlinux" |
		awk '$3 == "_etext" { e = $1 } $3 == "_stext" { s = $1 }
		     END { print (e == "" ? 0 : e), (s == "" ? 0 : s) }')
	text=$(( 16#$etext - 16#$stext ))
	awk -v m="${mem:-0 0 0 0 none}" -v orc="$orc" -v text="$text" \
	    -v us="${rows_us:-0}" -v a="$A" 'BEGIN {
		n = split(m, x, " ")
		parts = ""
		for (i = 5; i <= n; i++)
			parts = parts (i > 5 ? " " : "") x[i]
		all = x[1] + x[3] * x[4]
		printf "memory: %s vmlinux unwind data %d bytes (%s; %d per MB of text), lookup caches %d bytes x %d CPUs: %d bytes; rows built in %.1f ms off the boot path (icount)\n",
			a, x[1], parts, x[2], x[3], x[4], all, us / 1000
		if (orc > 0)
			printf "goal: %s unwinder memory in all, against ORC tables %d bytes (%d per MB of text): %.2fx (goal <= 1x): %s\n",
				a, orc, (text > 0 ? orc * 1048576 / text : 0), all / orc,
				(all <= orc ? "met" : "not met")
	}'
	awk -v us="$t1" -v tus="$t3" -v b="$b1" -v a="$A" 'BEGIN {
		mb = b / 1048576
		printf "goal: %s vmlinux .sframe ready at boot (%.2f MB): %.1f ms, %.2f ms/MB (icount; TCG clock: %.1f ms) (goal <= 10 ms/MB): %s\n",
			a, mb, us / 1000, (mb > 0 ? us / 1000 / mb : 0), tus / 1000,
			(mb > 0 && us / 1000 / mb <= 10 ? "met" : "not met")
	}'
	# what registering a module's SFrame adds to loading it (smoke.sh)
	sed -n 's/.*BENCH: module load: \(.*\)/\1/p' "$LOGS/bench-$A-icount1.log" |
	awk -v a="$A" '{
		p = match($0, /\([0-9.]+%\)/) ? substr($0, RSTART + 1, RLENGTH - 3) : 100
		printf "goal: %s module load: %s (icount): %s\n", a, $0,
			(p + 0 <= 5 ? "met" : "not met")
	}'
}
echo "[bench $A] results (icount runs 1 and 2, TCG clock)"
report | tee "$RESULTS/bench-goals-$A${VARIANT:+-$VARIANT}.txt"
