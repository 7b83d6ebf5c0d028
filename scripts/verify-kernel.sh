#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run sframe-verify (as built by the kernel build, the same binary that
# link-vmlinux.sh and Makefile.modfinal ran) on the test kernel of ARCH and
# its modules, print vmlinux's summary (and any module's that fails; all
# of them in build/logs/verify-ARCH.log), and on x86_64 run the verifier's ORC
# tests with that build's objtool.  Writes PASS/FAIL lines to
# build/results/verify-ARCH.txt.
set -uo pipefail

. "$(dirname "$0")/common.sh"
arch_setup "${1:-}"
A=$1
name=$A${VARIANT:+-$VARIANT}
res=$RESULTS/verify-$name.txt
log=$LOGS/verify-$name.log
: >"$res"
: >"$log"
V=$OUT/sframe-unwind/tools/sframe-verify
EXC=$ROOT/scripts/sframe-verify-exceptions

if [ ! -x "$V" ]; then
	fail "verify-$name: $V was not built (CONFIG_SFRAME_UNWIND_VERIFY)" | tee -a "$res"
	exit 1
fi
rc=0
# (the build's modules; modinst/ holds copies the last initramfs installed)
for f in "$OUT/vmlinux" $(find "$OUT" -path "$OUT/modinst" -prune -o -name '*.ko' -print | sort); do
	rel=${f#"$OUT"/}
	# every summary in the log; on the terminal vmlinux's and failures
	if out=$("$V" --quiet --exceptions "$EXC" "$f" 2>&1); then
		pass "verify-$name: $rel" >>"$res"
		[ "$rel" != vmlinux ] || echo "$out" | sed "s|^|[verify $name] |"
	else
		fail "verify-$name: $rel" >>"$res"
		echo "$out" | sed "s|^|[verify $name] |"
		rc=1
	fi
	echo "$out" >>"$log"
done
# The fixups written at link time must be in vmlinux, sorted, and complete:
# a second --write-fixups has nothing left to add.
cp "$OUT/vmlinux" "$OUT/vmlinux.verify-copy"
if out=$("$V" --quiet --exceptions "$EXC" --write-fixups "$OUT/vmlinux.verify-copy" 2>&1) &&
   cmp -s "$OUT/vmlinux" "$OUT/vmlinux.verify-copy"; then
	pass "verify-$name: vmlinux fixups complete (rewrite is a no-op)" >>"$res"
else
	fail "verify-$name: vmlinux fixups complete (rewrite is a no-op)" >>"$res"
	echo "$out"
	rc=1
fi
rm -f "$OUT/vmlinux.verify-copy"
if [ "$A" = x86_64 ] && [ -z "${VARIANT:-}" ]; then
	# (ORC's 6.4+ format: the test objects get an .orc_header)
	orc_header=
	[ ! -f "$KSRC/arch/x86/include/asm/orc_header.h" ] || orc_header=1
	KBUILDS=${OUT#"$ROOT"/} VERIFY=$V ORC_HEADER=$orc_header \
		"$ROOT/tools/testing/run-verify-kernel-tests.sh" \
		"$OUT/tools/objtool/objtool" >"$LOGS/verify-orc-tests.log" 2>&1
	grep -E '^(PASS|FAIL)' "$LOGS/verify-orc-tests.log" >>"$res"
	grep -q '^FAIL' "$LOGS/verify-orc-tests.log" && rc=1
fi
echo "[verify $name] $(grep -c '^PASS' "$res") passed, $(grep -c '^FAIL' "$res") failed (summaries of vmlinux and every module: ${log#"$ROOT"/})"
exit $rc
