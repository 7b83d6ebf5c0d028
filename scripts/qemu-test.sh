#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Boot build/kbuild-ARCH under QEMU (TCG) with the smoke initramfs and
# print one PASS/FAIL line per check; the console log goes to
# build/logs/qemu-ARCH.log, the results are appended to
# build/results/qemu-ARCH.txt. TIMEOUT=seconds (default 180).
set -euo pipefail

. "$(dirname "$0")/common.sh"
arch_setup "${1:-}"
A=$1
name=$A${VARIANT:+-$VARIANT}
log=$LOGS/qemu-$name.log
res=$RESULTS/qemu-$name.txt
timeout=${TIMEOUT:-180}
args="panic=-1 kunit.enable=0 ${QEMU_APPEND:-}"

"$ROOT/scripts/initramfs.sh" "$A"
case $A in
x86_64)	qemu=(qemu-system-x86_64 -bios qboot.rom
	      -append "console=ttyS0 $args") ;;
arm64)	qemu=(qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on
	      -append "console=ttyAMA0 $args") ;;
esac
qemu+=(-m 512 -nographic -no-reboot -kernel "$OUT/$IMAGE"
       -initrd "$ROOT/build/initramfs-$name.cpio.gz")

echo "[qemu $name] boot (log: ${log#"$ROOT"/}, timeout ${timeout}s)"
start=$(date +%s.%N)
rc=0
timeout -k 5 "$timeout" "${qemu[@]}" </dev/null >"$log.raw" 2>&1 || rc=$?
tr -d '\r' <"$log.raw" >"$log" && rm -f "$log.raw"
secs=$(echo "$(date +%s.%N) - $start" | bc)
init_at=$(sed -n 's/^\[ *\([0-9.]*\)\] Run \/init as init process.*/\1/p' "$log")
printf '[qemu %s] VM ran %.1f s (exit %s; 124 = timeout), /init at %s s kernel time\n' \
	"$name" "$secs" "$rc" "${init_at:-?}"

verdict() {	# verdict NAME COMMAND...: PASS or FAIL line
	if "${@:2}"; then echo "PASS: $1"; else echo "FAIL: $1"; fi
}
results=$(
	verdict "boot reached /init" grep -q '^init: reached /init' "$log"
	grep -E '^(PASS|FAIL): ' "$log" || true
	verdict "no oops/WARN/BUG/KASAN in console log" \
		sh -c '! grep -E "Oops|BUG:|WARNING:|KASAN|Call Trace|Kernel panic" "$1"' - "$log"
	verdict "clean poweroff" grep -qE 'reboot: (Power down|Restarting system)' "$log"
	[ "$rc" = 0 ] || echo "FAIL: qemu exit status"
)
results=$(echo "$results" | sed -E "s/^(PASS|FAIL): /\1: qemu-$name: /")
echo "$results" | tee -a "$res"
! grep -q '^FAIL' <<<"$results"
