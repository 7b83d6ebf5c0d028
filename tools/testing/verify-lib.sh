# SPDX-License-Identifier: GPL-2.0-only
#
# Helpers for the sframe-verify tests (sourced by run-verify-tests.sh and
# run-verify-kernel-tests.sh): PASS/FAIL lines, exit-code expectations.

pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; }

# expect NAME RC PATTERN COMMAND...: COMMAND exits with RC and its
# stdout+stderr matches the extended regex PATTERN ("" matches anything).
expect() {
	local name=$1 want=$2 pat=$3 out rc
	shift 3
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" = "$want" ] && { [ -z "$pat" ] || grep -qE -- "$pat" <<<"$out"; }; then
		pass "$name"
	else
		fail "$name (exit $rc, want $want; pattern '$pat')"
		echo "$out" | head -20 >&2
	fi
}

# annot_dump FILE: "TARGET LEN TYPE" per used slot of .sframe_annot (hex
# target), in table order, read independently of sframe-verify.
annot_dump() {
	local line addr off size
	line=$(readelf -SW "$1" | sed 's/^ *\[ *[0-9]*\] *//' | awk '$1==".sframe_annot"')
	addr=$((16#$(awk '{print $3}' <<<"$line")))
	off=$((16#$(awk '{print $4}' <<<"$line")))
	size=$((16#$(awk '{print $5}' <<<"$line")))
	python3 - "$1" "$addr" "$off" "$size" <<'PY'
import struct, sys
f, addr, off, size = sys.argv[1], *map(int, sys.argv[2:])
d = open(f, 'rb').read()[off:off + size]
for i in range(0, size, 16):
    pc, ln, ty = struct.unpack_from('<iHB', d, i)
    if ty:
        print('%x %d %d' % ((addr + i + pc) & (2**64 - 1), ln, ty))
PY
}

# sym FILE NAME: address of a symbol, in hex without 0x
sym() { nm "$1" | awk -v n="$2" '$3 == n { print $1; exit }'; }
