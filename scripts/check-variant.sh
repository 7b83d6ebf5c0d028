#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/check-variant.sh VARIANT ARCH: a test kernel variant, built,
# verified, booted and tested like make check's, for the slower proofs
# that are not part of make check:
#
#   defconfig  make check-defconfig ARCH=...: the architecture's defconfig
#              plus our options (qemu/configs/defconfig{,-ARCH}.config:
#              unwinder, verifier in fail mode, user unwinding, livepatch
#              where the arch has it, KUnit); an arm64 defconfig takes about
#              an hour on 2 cores
#   gen        make check-gen ARCH=...: the test kernel with SFrame
#              generated from CFI by sframe-gen (qemu/configs/gen.config,
#              CONFIG_SFRAME_UNWIND_GEN) instead of the assembler's
#   clang      make check-clang ARCH=...: that kernel built by clang 14
#              with LLVM=1 (clang, its integrated assembler, lld, the
#              LLVM binutils), which write no SFrame: all of it comes
#              from sframe-gen (qemu/configs/clang.config)
#   lockdep    make check-lockdep ARCH=...: the test kernel with lockdep,
#              PROVE_RCU, DEBUG_ATOMIC_SLEEP and DEBUG_PREEMPT, plus ext4
#              and loop (qemu/configs/lockdep.config)
#   kcsan      make check-kcsan: the x86_64 test kernel with KCSAN
#              (qemu/configs/kcsan.config); churn and the user tests
#   kasan      make check-kasan ARCH=...: the test kernel with KASAN and
#              lockdep, as make check DEEP=1 runs it for the kernel lines
#              and arches it covers (DEEP_KASAN)
#
# KVER=6.1|6.12 picks the kernel line, as everywhere.
#
# The kernel must build, verify with 0 unknown findings, boot under QEMU
# with -smp 2, load every module it built, and pass our KUnit suites and
# boot tests.  One progress line per stage; the numbers of the run go to
# build/results/VARIANT-ARCH.numbers, the PASS/FAIL lines to
# build/results/*-ARCH-VARIANT.txt; ends with "N passed, N failed".
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
V=${1:-}
A=${2:-}
case $V:$A in
defconfig:*|gen:*|clang:*|lockdep:*|kasan:*|kcsan:x86_64) ;;
kcsan:*) echo "$(basename "$0"): KCSAN: x86_64 only (arm64 6.1 has no KCSAN)" >&2; exit 2 ;;
*) echo "usage: $(basename "$0") defconfig|gen|clang|lockdep|kasan|kcsan x86_64|arm64" >&2; exit 2 ;;
esac
export VARIANT=$V
. "$ROOT/scripts/common.sh"
arch_setup "$A"
name=$A-$V
num=$RESULTS/$V-$A.numbers
rm -f "$RESULTS"/*-"$name".txt "$num"
stages=$RESULTS/stages-$name.txt
: >"$stages"

STAGE_TAG="$V $A"
STAGE_FILE=$stages
STAGE_PREFIX="$V-$A: "

numbers() {
	local v=$OUT/vmlinux t s orc fdes
	{
		echo "build (the last build-kernel.sh run, incremental or not): $(cat "$OUT/.build-time")"
		t=$(size -A "$v" | awk '$1 == ".text" { print $2 }')
		s=$(size -A "$v" | awk '$1 == ".sframe" { print $2 }')
		echo "vmlinux .text $t B, .sframe $s B ($(echo "scale=1; 100 * $s / $t" | bc)% of .text)"
		orc=$(size -A "$v" | awk '$1 ~ /^\.orc_/ { n += $2 } END { print n + 0 }')
		[ "$orc" = 0 ] || echo "ORC tables (.orc_unwind_ip + .orc_unwind + .orc_lookup) $orc B"
		fdes=$("$ROOT/tools/sframe-dump" "$v" 2>/dev/null |
		       sed -n 's/^ *Num FDEs: //p; s/^ *Num FREs: //p' | paste -sd' ')
		echo "FDEs FREs: $fdes"
		grep -h '^sframe-verify: vmlinux' "$LOGS/kernel-$name.log" | tail -1
		echo "modules: $(grep -cE '\.k?o$' "$OUT/modules.order" 2>/dev/null || true)"
		grep -h 'sframe: vmlinux: SFrame' "$LOGS/qemu-$name.log" 2>/dev/null |
			sed 's/^\[[ 0-9.]*\] /boot: /' | tail -1
	} >"$num"
	sed "s/^/[$V $A] /" "$num"
}

quiet() { "$@" >/dev/null; }
stage deps quiet "$ROOT/scripts/deps.sh" &&
stage prepare quiet "$ROOT/scripts/prepare-kernel.sh" &&
make -s -C "$ROOT" tools >/dev/null &&
stage build "$ROOT/scripts/build-kernel.sh" "$A" &&
stage verify "$ROOT/scripts/verify-kernel.sh" "$A"
# Boot tests also when the verifier stage found something: the kernel is
# still usable, and the results are worth having.
if [ -f "$OUT/$IMAGE" ]; then
	stage kunit env QEMU_MEM=2048 TIMEOUT=1800 "$ROOT/scripts/kunit.sh" "$A"
	if [ "$V" = kcsan ]; then
		stage qemu-test env QEMU_MEM=2048 TIMEOUT=2400 \
			QEMU_APPEND=sframe_only=churn,user,costly,hostile-mt \
			"$ROOT/scripts/qemu-test.sh" "$A"
	else
		stage qemu-test env QEMU_MEM=2048 TIMEOUT=2400 "$ROOT/scripts/qemu-test.sh" "$A"
	fi
	numbers
fi
"$ROOT/scripts/summary.sh" "$stages" "$RESULTS"/*-"$name".txt
