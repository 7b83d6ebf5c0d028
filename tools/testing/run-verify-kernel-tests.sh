#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Tests of tools/sframe-verify that need ORC, i.e. objtool from an x86_64
# kernel build:
#
#   [KBUILDS="DIR..."] tools/testing/run-verify-kernel-tests.sh [OBJTOOL]
#
# (default: build/kbuild-x86_64/tools/objtool/objtool).  Each pattern where
# gas 2.40 SFrame is wrong in Linux 6.1 (inline-asm stack switch with and
# without its SP_INDIRECT annotation, pushf; pop, iret-to-self) plus plain
# wrong CFI is compiled here, given ORC by objtool as the kernel build does
# (objtool --orc, scripts/Makefile.lib), and must be caught, classified,
# and accepted when annotated or excepted; then --module-fixups on the
# objects (as modules) and --write-fixups on a small linked vmlinux-like
# ELF.  Prints PASS/FAIL lines; skips cleanly without objtool.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tools/testing/verify-lib.sh
OBJTOOL=${1:-build/kbuild-x86_64/tools/objtool/objtool}
V=${VERIFY:-tools/sframe-verify}
SRC=tools/testing/verify
T=build/host/verify-kernel
if [ ! -x "$OBJTOOL" ]; then
	echo "SKIP: sframe-verify ORC tests: no objtool at $OBJTOOL (build the x86_64 kernel first)"
	exit 0
fi
if [ ! -x "$V" ]; then
	make -s "$V" >/dev/null || { fail "sframe-verify ORC tests: $V builds"; exit 0; }
fi
rm -rf $T
mkdir -p $T

# orc OBJ: objtool --orc as the kernel build runs it.  Since Linux 6.4
# ORC has another entry format, which every kernel object announces with
# an .orc_header section (asm/orc_header.h, the hash of orc_types.h): the
# objects here get one when ORC_HEADER=1 (the objtool of such a kernel),
# so that the verifier reads them as it reads that kernel's vmlinux.
orc_header() {
	[ -z "${ORC_HEADER:-}" ] && return
	printf '\0\0\0\0' >$T/orc_header.bin &&
	objcopy --add-section .orc_header=$T/orc_header.bin "$1"
}
orc() {
	"$OBJTOOL" --orc "$1" && orc_header "$1"
}
X86FLAGS="-O2 -fomit-frame-pointer -mno-red-zone -fno-pic -mcmodel=kernel -fno-stack-protector -fcf-protection=none -fasynchronous-unwind-tables -Wa,--gsframe -Iinclude"
if ! gcc $X86FLAGS -c $SRC/x86-patterns.c -o $T/c.o ||
   ! gcc -D__ASSEMBLY__ -Wa,--gsframe -Iinclude -c $SRC/x86-asm.S -o $T/asm.o ||
   ! orc $T/c.o || ! orc $T/asm.o; then
	fail "sframe-verify ORC tests: objects build and objtool --orc runs"
	exit 0
fi
pass "sframe-verify ORC tests: objtool --orc on the test objects"

expect "ORC present: SFrame compared with ORC" 1 '; ORC: [0-9]+ B compared' $V $T/c.o
expect "stack switch without annotation: stack-switch, unknown" 1 \
	'wrong: stack_switch\+0x[0-9a-f]+\.\.0x[0-9a-f]+ .*stack-switch: ORC CFA=\*\(sp\)\+16.*SFrame CFA=sp\+16.*: unknown' $V $T/c.o
expect "stack switch with SFRAME_ANNOT_INLINE(SP_INDIRECT): known (annotated)" 1 \
	'wrong: stack_switch_annotated\+.*stack-switch.*known \(annotated\)' $V --verbose $T/c.o
expect "summary counts the annotated stack switch" 1 'stack-switch 12 B \[annotated 6\]' $V $T/c.o
expect "pushf; pop: class pushf-pop, SFrame 8 short" 1 \
	'wrong: pushf_pop\+0x[0-9a-f]+\.\.0x[0-9a-f]+ \(1 bytes\): pushf-pop: .*: unknown' $V $T/c.o
expect "iret-to-self: class iret-to-self" 1 'wrong: iret_to_self\+.*iret-to-self: .*: unknown' $V $T/c.o
expect "DRAP: uncovered (ORC only), class drap" 1 'uncovered: drap\+0x0\.\..*drap\]: unknown' $V $T/c.o
expect "plain wrong CFI: class unknown" 1 'wrong: wrong_cfi\+0x1\.\.0x[0-9a-f]+ .*: unknown: ORC CFA=sp\+16.*SFrame CFA=sp\+24' $V $T/asm.o
expect "--policy warn: exit 0 with unknown findings" 0 'pushf_pop.*unknown' $V --policy warn $T/c.o

# clang's CFI (x86-clang.S)
if gcc -D__ASSEMBLY__ -Wa,--gsframe -c $SRC/x86-clang.S -o $T/clang.o &&
   orc $T/clang.o; then
	expect "clang: prologue saves described late, BP unchanged: agree (5 B)" 1 \
		'agree [0-9.]+% \(BP saved, unchanged, not in the CFI yet: 5 B\)' $V $T/clang.o
	if $V $T/clang.o 2>&1 | grep -q 'wrong: late_save+'; then
		fail "clang: late_save has no finding"
	else
		pass "clang: late_save has no finding"
	fi
	expect "clang: BP written before its save is described: unknown" 1 \
		'wrong: late_save_bad\+0x1\.\.0x4 \(3 bytes\): unknown: ORC CFA=sp\+16 FP=\*\(CFA-16\), SFrame CFA=sp\+16 RA=\*\(CFA-8\) FP=same' \
		$V $T/clang.o
	expect "clang: argument push described one instruction late: class late-push" 1 \
		'wrong: late_push\+0x2\.\.0x5 \(3 bytes\): late-push: ORC CFA=sp\+24.*SFrame CFA=sp\+16' $V $T/clang.o
	expect "clang: epilogue add described after the branch: class late-add" 1 \
		'wrong: late_add\+0xc\.\.0x11 \(5 bytes\): late-add: ORC CFA=sp\+16.*SFrame CFA=sp\+32' $V $T/clang.o
	expect "clang: late-push, late-add accepted by scripts/sframe-verify-exceptions, late_save_bad not" 1 \
		'late-push 3, late-add 5, drap 0, unknown 3\)' $V --exceptions scripts/sframe-verify-exceptions $T/clang.o
else
	fail "sframe-verify ORC tests: x86-clang.S builds and objtool --orc runs"
fi

# an alternative pushing the flags (x86-alt.S), its .altinstructions in
# the format of the objtool's kernel (6.4+, with .orc_header: 14 bytes)
if gcc -D__ASSEMBLY__ ${ORC_HEADER:+-DALT_FT_FLAGS} -Wa,--gsframe \
	-c $SRC/x86-alt.S -o $T/alt.o &&
   "$OBJTOOL" --uaccess --orc $T/alt.o && orc_header $T/alt.o; then
	expect "alternative with pushf: class alt-pushf" 1 \
		'wrong: alt_pushf\+0x1\.\.0x2 \(1 bytes\): alt-pushf: ORC CFA=sp\+16.*SFrame CFA=sp\+8' \
		$V $T/alt.o
	expect "alternative with pushf: accepted by scripts/sframe-verify-exceptions" 0 \
		'alt-pushf 1, late-push 0, late-add 0, drap 0, unknown 0\)' \
		$V --exceptions scripts/sframe-verify-exceptions $T/alt.o
else
	fail "sframe-verify ORC tests: x86-alt.S builds and objtool --uaccess --orc runs"
fi

cat >$T/exc <<'EOT'
x86_64 missing class:drap DRAP (test)
x86_64 wrong class:pushf-pop pushf; pop (test)
x86_64 wrong class:iret-to-self sync_core (test)
x86_64 wrong class:stack-switch:stack_switch call_on_stack (test)
EOT
expect "exceptions accept the C patterns -> exit 0" 0 'unknown 0 B;.*unknown 0\)' $V --exceptions $T/exc $T/c.o
expect "class exceptions do not accept plain wrong CFI" 1 'wrong_cfi.*unknown' $V --exceptions $T/exc $T/asm.o
sed '/stack_switch/d' $T/exc >$T/exc2
expect "an unannotated stack switch is unknown without its exception" 1 \
	'wrong: stack_switch\+.*unknown' $V --exceptions $T/exc2 $T/c.o

# --module-fixups with ORC: the objects as modules, FDE-relative entries
expect "--module-fixups: stack switch, pushf-pop, iret-to-self (3 entries)" 0 \
	'fixups 3 needed, 3 written to' $V --policy warn --module-fixups $T/c.fix $T/c.o
got=$(modfix_named $T/c.fix $T/c.o)
fdes=$(fde_funcs $T/c.o | tr '\n' ' ')
# the pop after the pushf in pushf_pop, from the disassembly
read -r pop next < <(objdump -d --no-show-raw-insn $T/c.o |
	sed -n '/<pushf_pop>:/,/^$/p' |
	awk '$2 ~ /^pushfq?$/ { getline a; getline b; split(a, x, ":"); split(b, y, ":")
		if (a ~ /\tpop/) print x[1], y[1]; exit }')
base=$(sym $T/c.o pushf_pop)
if [ "$fdes" = "stack_switch stack_switch_annotated pushf_pop iret_to_self " ] && [ -n "${pop:-}" ]; then
	want="2 pushf_pop+0x$(printf %x $((16#$pop - 16#$base))) $((16#$next - 16#$pop)) 4"
	if grep -qx -- "$want" <<<"$got"; then
		pass "--module-fixups: pushf; pop -> FDE 2 (pushf_pop), the pop's offset and length ($want)"
	else
		fail "--module-fixups: pushf; pop: want '$want', got:"; echo "$got" >&2
	fi
else
	fail "--module-fixups: FDEs of c.o ($fdes) or the pushf; pop (${pop:-none}) not found"
fi
if [ "$(awk '{ sub(/\+.*/, "", $2); print $1, $2, $4 }' <<<"$got" | tr '\n' ' ')" = \
     "0 stack_switch 4 2 pushf_pop 4 3 iret_to_self 4 " ]; then
	pass "--module-fixups: UNRELIABLE entries in FDEs 0, 2, 3, not in the annotated stack switch"
else
	fail "--module-fixups: entries: $got"
fi
expect "--module-fixups: wrong CFI in the only FDE of an asm object" 0 'fixups 1 needed, 1 written to' \
	$V --policy warn --module-fixups $T/asm.fix $T/asm.o
got=$(modfix_named $T/asm.fix $T/asm.o)
[ "$got" = "0 wrong_cfi+0x1 4 4" ] && pass "--module-fixups: wrong_cfi -> FDE 0, +0x1, 4 bytes" ||
	fail "--module-fixups: wrong_cfi: $got"
expect "--module-fixups: excepted findings still get entries (exit 0)" 0 \
	'unknown 0 B;.*fixups 3 needed, 3 written to' \
	$V --exceptions $T/exc --module-fixups $T/c-exc.fix $T/c.o
cmp -s $T/c.fix $T/c-exc.fix && pass "--module-fixups: same FILE with and without exceptions" ||
	fail "--module-fixups: same FILE with and without exceptions"

# --write-fixups with ORC: every wrong, unannotated range gets an entry
LDS="-T $SRC/fixups.lds --defsym BASE=0xffffffff81000000 -e 0"
if ! ld $LDS --defsym NSLOTS=8 $T/c.o $T/asm.o -o $T/vmlinux; then
	fail "vmlinux-like test ELF links"
	exit 0
fi
expect "linked ELF: ORC and SFrame found after ld" 1 'ORC: [0-9]+ B compared' $V $T/vmlinux
cp $T/vmlinux $T/vmlinux.fix
expect "--write-fixups: stack switch, pushf-pop, iret-to-self, wrong CFI (4 entries)" 0 \
	'fixups 4 needed, 4 written, 4/8 slots free' $V --policy warn --write-fixups $T/vmlinux.fix
got=$(annot_dump $T/vmlinux.fix | awk '$3 == 4 { print $1 }' | while read -r a; do
	nm -n $T/vmlinux | awk -v a="$a" '$1 <= a { s = $3 } END { print s }'; done | sort | tr '\n' ' ')
want="iret_to_self pushf_pop stack_switch wrong_cfi "
[ "$got" = "$want" ] && pass "--write-fixups: UNRELIABLE entries in the right functions ($got)" ||
	fail "--write-fixups: entries in '$got', want '$want'"
if annot_dump $T/vmlinux.fix | awk '{print $1}' | sort -c 2>/dev/null; then
	pass "--write-fixups: table sorted by address"
else
	fail "--write-fixups: table sorted by address"
fi
cp $T/vmlinux.fix $T/vmlinux.fix2
expect "--write-fixups again: nothing to add" 0 'fixups 0 needed, 0 written, 4/8 slots free' \
	$V --policy warn --write-fixups $T/vmlinux.fix2
cmp -s $T/vmlinux.fix $T/vmlinux.fix2 && pass "--write-fixups is idempotent with ORC" ||
	fail "--write-fixups is idempotent with ORC"

# Real kernels, when built: no unknown finding with the checked-in
# exceptions.  KBUILDS: their build directories (scripts/verify-kernel.sh
# passes its own, of its kernel line), by default both arches' 6.1 ones;
# not modinst/, which holds the copies an initramfs installed.
for d in ${KBUILDS:-build/kbuild-x86_64 build/kbuild-arm64}; do
	[ -d "$d" ] || continue
	for k in "$d/vmlinux" $(find "$d" -path "$d/modinst" -prune -o -name '*.ko' -print | sort); do
		[ -f "$k" ] || continue
		expect "sframe-verify $k: no unknown findings" 0 '' \
			$V --quiet --exceptions scripts/sframe-verify-exceptions "$k"
		case $k in *.ko)
			rm -f $T/ko.fix
			expect "sframe-verify --module-fixups $k: FILE written" 0 'fixups [0-9]+ needed, [0-9]+ written to' \
				$V --quiet --exceptions scripts/sframe-verify-exceptions --module-fixups $T/ko.fix "$k"
			[ -f $T/ko.fix ] || fail "sframe-verify --module-fixups $k: $T/ko.fix exists"
		esac
	done
done
exit 0
