#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Boot build/kbuild-ARCH under QEMU (TCG) with the smoke initramfs and
# print one PASS/FAIL line per check (and the SKIP lines, which
# scripts/summary.sh does not count); the console log goes to
# build/logs/qemu-ARCH.log, the results are written to
# build/results/qemu-ARCH.txt. TIMEOUT=seconds (default 900, debug kernels
# 1800, each plus the churn test's length; no later than make check's
# CHECK_BUDGET).
# INTERACTIVE=1: console on the terminal and a shell after the smoke
# checks (exit it to power off), then the console lines about sframe.
set -euo pipefail

. "$(dirname "$0")/common.sh"
arch_setup "${1:-}"
A=$1
name=$A${VARIANT:+-$VARIANT}
log=$LOGS/qemu-$name.log
res=$RESULTS/qemu-$name.txt
# The churn test's length (qemu/smoke.sh): 60 s, 120 s on the debug kernels
# (VARIANT) under DEEP=1; CHURN_SECONDS=N.
if [ -n "${CHURN_SECONDS:-}" ]; then
	churn=$CHURN_SECONDS
elif [ -n "${DEEP:-}" ] && [ -n "${VARIANT:-}" ]; then
	churn=120
else
	churn=60
fi
# A guard against a hung guest, not a goal: the slowest, 6.12 arm64 on one
# TCG thread, runs about 700 s (KASAN about 1,250 s, as CI runs it)
# besides churn.
timeout=${TIMEOUT:-$(( $([ -n "${VARIANT:-}" ] && echo 1800 || echo 900) + churn ))}
timeout=$(deadline_cap "$timeout")
# The KASAN kernels save a stack at every page allocation (page_owner).
[ "${VARIANT:-}" = kasan ] && owner=page_owner=on || owner=
# rdshell: /init starts a shell (only when we have a terminal)
[ -n "${INTERACTIVE:-}" ] && [ -t 0 ] && shell=rdshell || shell=
"$ROOT/scripts/initramfs.sh" "$A"
qemu_cmd "$A" "$KB/initramfs-$name.cpio.gz" \
	"panic=-1 kunit.enable=0 sframe_churn_seconds=$churn ${DEEP:+sframe_deep} $owner $shell ${QEMU_APPEND:-}"

if [ -n "${INTERACTIVE:-}" ]; then
	echo "[qemu $name] interactive boot (log: ${log#"$ROOT"/}; Ctrl-A X quits)"
	if [ -t 0 ]; then
		"${QEMU[@]}" | tee "$log"
	else
		timeout -k 5 "$timeout" "${QEMU[@]}" </dev/null | tee "$log" || true
	fi
	echo "[qemu $name] console lines about sframe:"
	grep -i sframe "$log" | tr -d '\r' || echo "  (none)"
	exit 0
fi

echo "[qemu $name] boot (log: ${log#"$ROOT"/}, timeout ${timeout}s)"
start=$(date +%s.%N)
rc=0
timeout -k 5 "$timeout" "${QEMU[@]}" </dev/null >"$log.raw" 2>&1 || rc=$?
tr -d '\r' <"$log.raw" >"$log" && rm -f "$log.raw"
secs=$(echo "$(date +%s.%N) - $start" | bc)
init_at=$(sed -n 's/^\[ *\([0-9.]*\)\] Run \/init as init process.*/\1/p' "$log")
printf '[qemu %s] VM ran %.1f s (exit %s; 124 = timeout), /init at %s s kernel time\n' \
	"$name" "$secs" "$rc" "${init_at:-?}"

SPLAT='Oops|BUG:|WARNING:|KASAN|Call [Tt]race|Kernel panic|Out of memory'
results=$(
	check "boot reached /init" grep -q '^init: reached /init' "$log"
	# each check's line, and the indented details under a FAIL
	awk '/^(PASS|FAIL|SKIP): / { print; det = /^FAIL/ ? 20 : 0; next }
	     det && /^    / { print; det--; next } { det = 0 }' "$log"
	# The first splat's lines go under the FAIL: a CI log keeps the
	# results, not the console log.
	splat=$(grep -nE -m1 "$SPLAT" "$log" | cut -d: -f1)
	if [ -z "$splat" ]; then
		echo "PASS: no oops/WARN/BUG/KASAN/OOM in console log"
	else
		echo "FAIL: no oops/WARN/BUG/KASAN/OOM in console log (line $splat)"
		sed -n "$((splat > 8 ? splat - 8 : 1)),$((splat + 40))p" "$log" | sed 's/^/    /'
	fi
	if grep -qE 'reboot: (Power down|Restarting system)' "$log"; then
		echo "PASS: clean poweroff"
	else
		echo "FAIL: clean poweroff (the console log ends:)"
		tail -n 25 "$log" | sed 's/^/    /'
	fi
	# a timeout names the last smoke stage that started (mark in
	# qemu/smoke.sh)
	if [ "$rc" = 124 ]; then
		at=$(sed -n 's/^smoke: \([^:]*\): [0-9.]* s up.*/\1/p' "$log" | tail -n 1)
		echo "FAIL: qemu exit status: timed out after ${timeout} s, the last stage started: ${at:-none}"
		grep '^smoke: .* s up' "$log" | sed 's/^/    /'
	elif [ "$rc" != 0 ]; then
		echo "FAIL: qemu exit status $rc"
	fi
)
results=$(sed -E "s/^(PASS|FAIL|SKIP): /\1: qemu-$name: /" <<<"$results")
# The in-kernel benchmark (sframe_unwind_demo bench=1): printed, not
# judged.  Host time under TCG, next to whatever else the host runs: make
# bench-kernel (-icount) measures the goals.
if grep -q '^BENCH: ' "$log"; then
	sed -n 's/^BENCH: //p' "$log" | tee "$RESULTS/bench-boot-$name.txt" |
		sed "s/^/[qemu $name] /"
fi
# This run's results only: an earlier run's FAIL must not linger.
tee "$res" <<<"$results"
! grep -q '^FAIL' <<<"$results"
