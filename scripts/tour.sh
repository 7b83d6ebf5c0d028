#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make run [ARCH=x86_64|arm64]: a short tour of the test kernel under QEMU
# (-smp 2), as one screen: our reliable stack traces next to the
# architecture's own unwinder (a blocked kthread, a timer interrupt), a
# livepatch transition that waits for tasks parked in the patched
# functions and completes when they leave, the benchmark lines, and perf
# user call chains from SFrame.  The whole console goes to
# build/logs/run-ARCH.log.  INTERACTIVE=1 gives a shell in the VM instead.
set -euo pipefail

. "$(dirname "$0")/common.sh"
arch_setup "${1:-}"
A=$1
log=$LOGS/run-$A.log
if [ -n "${INTERACTIVE:-}" ]; then
	exec "$ROOT/scripts/qemu-test.sh" "$A"
fi
[ -f "$OUT/$IMAGE" ] || { echo "[run] no kernel: make kernel ARCH=$A"; exit 1; }
"$ROOT/scripts/initramfs.sh" "$A" >/dev/null
qemu_cmd "$A" "$KB/initramfs-$A.cpio.gz" \
	"panic=-1 kunit.enable=0 sframe_tour ${QEMU_APPEND:-}"
echo "[run] booting the $A test kernel under QEMU (-smp ${SMP:-2}, TCG; about 3 minutes) ..."
start=$(date +%s)
timeout -k 5 "${TIMEOUT:-900}" "${QEMU[@]}" </dev/null 2>&1 | tr -d '\r' >"$log" || true
echo "[run] VM ran $(( $(date +%s) - start )) s; console log: ${log#"$ROOT"/}"

section() { printf '\n== %s\n' "$1"; }
strip() { sed -E 's/^\[ *[0-9.]+\] //'; }

section "Reliable stack traces: SFrame next to the architecture's unwinder (sframe_unwind_demo show=1)"
grep -E 'sframe_unwind_demo: (blocked task|timer interrupt|  )' "$log" | strip |
	sed 's/^sframe_unwind_demo: /  /'
section "A livepatch transition on our reliable walks (qemu/livepatch-consistency.sh)"
sed -n 's/^livepatch-consistency: trace: /  /p; s/^livepatch-consistency: \(.*transition.*\)/  \1/p' "$log"
grep -E '^FAIL: livepatch-consistency: ' "$log" | sed 's/^/  /' || true
echo "  $(grep -c '^PASS: livepatch-consistency: ' "$log") checks passed, $(grep -c '^FAIL: livepatch-consistency: ' "$log") failed: both tasks held the transition (livepatch: \"is sleeping on function\"), it completed once they left; a livepatch relocation into read-only text; an unknown symbol refused"
section "Benchmarks (ratios against the anchor measured in the same run)"
sed -n 's/^BENCH: /  /p' "$log"
section "perf user call chains from SFrame (/usr/test samplers)"
grep -E '^(PASS|FAIL): user unwind' "$log" | sed 's/^/  /'
echo
n_fail=$(grep -c '^FAIL: ' "$log" || true)
if grep -q '^init: power off' "$log"; then
	echo "[run] done: $n_fail failed checks (full console: ${log#"$ROOT"/})"
else
	echo "[run] the VM did not finish (timeout or panic): see ${log#"$ROOT"/}"
	exit 1
fi
