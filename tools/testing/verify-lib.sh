# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Helpers for the sframe-verify tests (sourced by run-verify-tests.sh and
# run-verify-kernel-tests.sh): the PASS/FAIL helpers of scripts/testlib.sh,
# and a reader of .sframe_annot.

# shellcheck source=scripts/testlib.sh
. scripts/testlib.sh

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

# modfix_dump FILE [be]: "FDE OFF LEN TYPE" (OFF in hex) per 16-byte
# struct sframe_annot_fixup of a --module-fixups file, read independently
# of sframe-verify; "reserved!=0" or "bad size" flag a malformed file.
modfix_dump() {
	python3 - "$1" "${2:-le}" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
bo = '>' if sys.argv[2] == 'be' else '<'
if len(d) % 16:
    print('bad size %d' % len(d))
for i in range(0, len(d) - len(d) % 16, 16):
    fde, off, ln, ty = struct.unpack_from(bo + 'IIHB', d, i)
    print('%d %x %d %d%s' % (fde, off, ln, ty,
                             '' if d[i + 11:i + 16] == bytes(5) else ' reserved!=0'))
PY
}

# fde_funcs OBJ: the function of each FDE of a relocatable object's
# .sframe, in section order: the target of the FDE's start relocation
# (.rela.sframe, one per FDE, by offset) matched with the FUNC symbols.
fde_funcs() {
	python3 - "$1" <<'PY'
import re, subprocess, sys
def readelf(*a):
    return subprocess.run(['readelf', '-W', *a, sys.argv[1]], capture_output=True,
                          text=True, check=True).stdout.splitlines()
secs, funcs, rel, on = {}, {}, [], False
for l in readelf('-S'):
    m = re.match(r'\s*\[\s*(\d+)\]\s+(\S+)', l)
    if m:
        secs[m.group(1)] = m.group(2)
for l in readelf('-s'):
    f = l.split()
    if len(f) == 8 and f[3] == 'FUNC' and f[6] in secs:
        funcs[(secs[f[6]], int(f[1], 16))] = f[7]
for l in readelf('-r'):
    if l.startswith('Relocation section'):
        on = "'.rela.sframe'" in l
        continue
    f = l.split()
    if on and len(f) >= 5 and re.fullmatch('[0-9a-f]+', f[0]):
        add = int(f[6], 16) * (-1 if f[5] == '-' else 1) if len(f) >= 7 else 0
        rel.append((int(f[0], 16), f[4], add))
for off, s, add in sorted(rel):
    print(funcs.get((s, add), '%s+%x' % (s, add)) if s.startswith('.') or add
          else s)
PY
}

# modfix_named FILE OBJ [be]: modfix_dump with each FDE's function:
# "FDE FUNC+0xOFF LEN TYPE".
modfix_named() {
	local funcs fde off len type rest
	mapfile -t funcs < <(fde_funcs "$2")
	modfix_dump "$1" "${3:-le}" | while read -r fde off len type rest; do
		echo "$fde ${funcs[$fde]:-?}+0x$off $len $type${rest:+ $rest}"
	done
}
