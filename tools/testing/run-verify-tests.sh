#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Host tests of tools/sframe-verify that need no kernel build: coverage
# (asm without CFI, a trampoline, DRAP, annotations), arm64 FDE and
# frame-record checks, the exceptions file and policy, --write-fixups on a
# small linked ELF, --module-fixups on objects, and malformed input.  The ORC comparison needs objtool:
# run-verify-kernel-tests.sh.  Called by run-host-tests.sh.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tools/testing/verify-lib.sh
V=${VERIFY:-build/host/sframe-verify-san}
SRC=tools/testing/verify
T=build/host/verify
rm -rf $T
mkdir -p $T
X86FLAGS="-O2 -fomit-frame-pointer -mno-red-zone -fno-pic -mcmodel=kernel -fno-stack-protector -fcf-protection=none -fasynchronous-unwind-tables -Wa,--gsframe -Iinclude"

if ! gcc $X86FLAGS -c $SRC/x86-patterns.c -o $T/x86-c.o ||
   ! gcc -D__ASSEMBLY__ -Wa,--gsframe -Iinclude -c $SRC/x86-asm.S -o $T/x86-asm.o ||
   ! gcc -D__ASSEMBLY__ -Wa,--gsframe -c $SRC/x86-drap.S -o $T/x86-drap.o ||
   ! aarch64-linux-gnu-gcc -D__ASSEMBLY__ -Wa,--gsframe -Iinclude -c $SRC/a64-patterns.S -o $T/a64.o ||
   ! aarch64-linux-gnu-gcc -D__ASSEMBLY__ -Wa,--gsframe -c $SRC/a64-modfix.S -o $T/a64-modfix.o ||
   ! aarch64-linux-gnu-gcc -mbig-endian -D__ASSEMBLY__ -Wa,--gsframe -c $SRC/a64-modfix.S -o $T/a64-modfix-be.o; then
	fail "sframe-verify: test objects build"
	exit 0
fi
pass "sframe-verify: test objects build (gcc, aarch64-linux-gnu-gcc, --gsframe)"

# x86_64 coverage (no ORC in these objects)
if readelf --sframe $T/x86-c.o | grep -q 'Num FDEs: 4'; then
	pass "gas 2.40 drops the FDE of the DRAP function (4 FDEs for 5 functions)"
else
	fail "gas 2.40 drops the FDE of the DRAP function"
fi
expect "x86 DRAP function: uncovered, class drap, unknown -> exit 1" 1 \
	'uncovered: drap\+0x0\.\..*\[\.text drap\]: unknown' $V $T/x86-c.o
expect "x86 object without ORC: coverage only, 'no ORC'" 1 '; no ORC;' $V $T/x86-c.o
# gas dropped the object's only FDE: an empty .sframe (no FDE, no row);
# its realignment comes after the ftrace call and a call's arguments
expect "x86 object whose .sframe has no FDE: its function uncovered" 1 \
	'uncovered: drap_late\+0x0\.\.0x39 \(57 bytes\)' $V $T/x86-drap.o
expect "x86 DRAP realignment 34 bytes in: class drap" 1 \
	'uncovered: drap_late\+0x0\.\..*\[\.text drap\]: unknown' $V $T/x86-drap.o
expect "x86 asm without CFI: uncovered, unknown" 1 'uncovered: no_cfi\+0x0\.\.0x7 \(7 bytes\).*unknown' $V $T/x86-asm.o
expect "x86 trampoline (lone jmp): uncovered, unknown" 1 \
	'uncovered: __SCT__test_tramp\+0x0\.\.0x8 .*\[\.static_call\.text\]: unknown' $V $T/x86-asm.o
expect "x86 annotation (.rela.sframe_annot applied) covers asm without CFI" 1 \
	'annotations 3 B' $V $T/x86-asm.o
if $V $T/x86-asm.o 2>&1 | grep -q 'uncovered: annotated_entry'; then
	fail "x86 annotated asm is not reported"
else
	pass "x86 annotated asm is not reported"
fi
expect "--policy warn: unknown findings printed, exit 0" 0 'no_cfi.*unknown' \
	$V --policy warn $T/x86-asm.o

# annotation extents
if gcc -D__ASSEMBLY__ -Iinclude -c $SRC/x86-span.S -o $T/x86-span.o; then
	expect "annotation running into the next symbol: unknown, exit 1" 1 \
		'annotation spans symbols: span_a\+0x0\.\.0x4 \(4 bytes\): annotation of type 2 ends in span_b: unknown' \
		$V $T/x86-span.o
	if $V $T/x86-span.o 2>&1 | grep -q 'span_a+0x2\.\.0x3'; then
		fail "SFRAME_ANNOT end-1, end: no finding (1 byte)"
	else
		pass "SFRAME_ANNOT end-1, end: no finding (1 byte)"
	fi
else
	fail "annotation extent test object builds"
fi

# call padding (x86-padding.S): __pfx_ nops are class call-padding
if gcc -D__ASSEMBLY__ -Wa,--gsframe -c $SRC/x86-padding.S -o $T/x86-padding.o; then
	expect "call padding: __pfx_ nops, class call-padding" 1 \
		'uncovered: __pfx_padded\+0x0\.\.0x10 \(16 bytes\): \[\.text call-padding\]: unknown' \
		$V $T/x86-padding.o
	expect "call padding: a __pfx_ symbol with other bytes is no padding" 1 \
		'uncovered: __pfx_not_padding\+0x0\.\.0x10 \(16 bytes\): \[\.text\]: unknown' \
		$V $T/x86-padding.o
	expect "call padding: accepted by scripts/sframe-verify-exceptions, the other not" 1 \
		'exceptions 16 B, unknown 16 B' \
		$V --exceptions scripts/sframe-verify-exceptions $T/x86-padding.o
else
	fail "call padding test object builds"
fi

cat >$T/exc-x86 <<'EOT'
# test exceptions
x86_64 missing no_cfi asm without CFI (test)
x86_64 missing section:.static_call.text static_call trampolines (test)
x86_64 missing class:drap gas drops DRAP FDEs (test)
arm64 missing no_cfi never matches on x86_64
EOT
expect "x86 exceptions (name, section:, class:drap) accept every gap -> exit 0" 0 \
	'unknown 0 B' $V --exceptions $T/exc-x86 $T/x86-c.o $T/x86-asm.o
expect "--verbose: known findings with the exception's reason" 0 \
	'uncovered: __SCT__test_tramp.*known \(exception: static_call trampolines \(test\)\)' \
	$V --verbose --exceptions $T/exc-x86 $T/x86-asm.o
expect "--quiet: only the summary" 0 '^sframe-verify: .*x86-asm.o \(x86_64\)' \
	$V --quiet --exceptions $T/exc-x86 $T/x86-asm.o
n=$($V --quiet --exceptions $T/exc-x86 $T/x86-asm.o | wc -l)
[ "$n" = 1 ] && pass "--quiet prints one line when all is known" ||
	fail "--quiet prints one line when all is known ($n)"
cat >$T/exc-wrongarch <<'EOT'
arm64 missing no_cfi wrong architecture
EOT
expect "an exception for another arch does not apply" 1 'no_cfi.*unknown' \
	$V --exceptions $T/exc-wrongarch $T/x86-asm.o

# arm64
expect "arm64 ftrace NOP pair recognised" 1 \
	'uncovered: good\+0x0\.\.0x8 \(8 bytes\): \[\.text ftrace-nop\]' $V $T/a64.o
expect "arm64 FDE not matching its symbol: fde-mismatch" 1 \
	'wrong: mismatch\+0x4\.\.0x8 .*fde-mismatch.*unknown' $V $T/a64.o
expect "arm64 frame record with RA not at FP + 8" 1 \
	'wrong: bad_record\+0x4\.\.0x8 .*frame-record: FP saved, RA not at the FP slot \+ 8' $V $T/a64.o
expect "arm64 CFA below SP" 1 'wrong: cfa_below_sp\+0x4\.\.0x8 .*CFA below SP' $V $T/a64.o
expect "arm64 asm without CFI: uncovered" 1 'uncovered: a64_no_cfi\+0x0\.\.0x8 ' $V $T/a64.o
expect "arm64 annotation (R_AARCH64_PREL32) covers asm without CFI" 1 'annotations 8 B' $V $T/a64.o
# rows that go stale (a64-stale.S): clang 14's CFI, inline asm writing x30
if aarch64-linux-gnu-gcc -D__ASSEMBLY__ -Wa,--gsframe -c $SRC/a64-stale.S -o $T/a64-stale.o; then
	expect "arm64 stale rule: SP written in the prologue before its CFI" 1 \
		'wrong: clang_like\+0x4\.\.0xc \(8 bytes\): stale-rule: SP written at \+0x0 with no new row: CFA=sp\+0' \
		$V $T/a64-stale.o
	expect "arm64 stale rule: x29 loaded in an epilogue without CFI (to its ret)" 1 \
		'wrong: clang_like\+0x14\.\.0x1c \(8 bytes\): stale-rule: x29 written at \+0x10 with no new row: CFA=fp\+16' \
		$V $T/a64-stale.o
	expect "arm64 stale rule: x30 written while the RA is in it" 1 \
		'wrong: lr_clobber\+0x8\.\.0x10 \(8 bytes\): stale-rule: x30 written at \+0x4' $V $T/a64-stale.o
	if $V $T/a64-stale.o 2>&1 | grep -q 'gcc_like'; then
		fail "arm64 stale rule: asynchronous CFI (gcc's) has no finding"
	else
		pass "arm64 stale rule: asynchronous CFI (gcc's) has no finding"
	fi
	expect "arm64 stale rule: fixups for the 3 ranges; accepted by sframe-verify-exceptions" 0 \
		'stale-rule 3 rows, unknown 0; .*fixups 3 needed, 3 written' \
		$V --exceptions scripts/sframe-verify-exceptions --module-fixups $T/a64-stale.fix $T/a64-stale.o
else
	fail "sframe-verify: a64-stale.S builds"
fi
if $V --verbose $T/a64.o | grep -qE 'good\+0x([1-9]|8)|a64_annotated'; then
	fail "arm64: the correct and the annotated function have no other finding"
else
	pass "arm64: the correct and the annotated function have no other finding"
fi
cat >$T/exc-a64 <<'EOT'
arm64 missing class:ftrace-nop ftrace NOPs (test)
arm64 missing mismatch partial FDE (test)
arm64 missing a64_no_cfi asm (test)
arm64 wrong class:fde-mismatch:mismatch test
arm64 wrong class:frame-record:bad_record test
arm64 wrong class:frame-record:cfa_below_sp test
EOT
expect "arm64 exceptions accept every finding -> exit 0" 0 'unknown 0 B;.*unknown 0;' \
	$V --exceptions $T/exc-a64 $T/a64.o
sed '/bad_record/d' $T/exc-a64 >$T/exc-a64-2
expect "class:CLASS:GLOB is specific to its symbols" 1 'bad_record.*unknown' \
	$V --exceptions $T/exc-a64-2 $T/a64.o

# --write-fixups on a small vmlinux-like ELF (fixups.lds)
LDS="-T $SRC/fixups.lds --defsym BASE=0x400000 -e 0"
aarch64-linux-gnu-ld $LDS --defsym NSLOTS=4 $T/a64.o -o $T/a64.elf &&
aarch64-linux-gnu-ld $LDS --defsym NSLOTS=1 $T/a64.o -o $T/a64-small.elf ||
	fail "fixups test ELF links"
cp $T/a64.elf $T/a64-fix.elf
expect "--write-fixups: 2 entries into 4 free slots" 0 'fixups 2 needed, 2 written, 2/4 slots free' \
	$V --policy warn --write-fixups $T/a64-fix.elf
br=$(sym $T/a64.elf bad_record) cb=$(sym $T/a64.elf cfa_below_sp) an=$(sym $T/a64.elf a64_annotated)
want=$(printf '%x 4 4\n%x 4 4\n%x 8 2\n' $((16#$br + 4)) $((16#$cb + 4)) $((16#$an)) | sort)
got=$(annot_dump $T/a64-fix.elf)
if [ "$got" = "$want" ]; then
	pass "--write-fixups: UNRELIABLE entries at the wrong rows, table sorted by address"
else
	fail "--write-fixups: table"; diff <(echo "$got") <(echo "$want") >&2
fi
cp $T/a64-fix.elf $T/a64-fix2.elf
expect "--write-fixups twice: nothing new" 0 'fixups 0 needed, 0 written, 2/4 slots free' \
	$V --policy warn --write-fixups $T/a64-fix2.elf
cmp -s $T/a64-fix.elf $T/a64-fix2.elf && pass "--write-fixups is idempotent (file unchanged)" ||
	fail "--write-fixups is idempotent"
cp $T/a64-small.elf $T/a64-small-fix.elf
expect "--write-fixups: too few slots -> exit 1 naming the count" 1 \
	'2 UNRELIABLE entries needed, 1 free slots of 1' \
	$V --policy warn --write-fixups $T/a64-small-fix.elf
cmp -s $T/a64-small.elf $T/a64-small-fix.elf && pass "--write-fixups leaves the file alone when slots are short" ||
	fail "--write-fixups leaves the file alone when slots are short"
expect "--write-fixups on a .o: exit 2" 2 'no fixup area' \
	$V --policy warn --write-fixups $T/a64.o
expect "without --write-fixups the needed slots are counted" 1 'fixups 2 needed, 0 written, 4/4 slots free' \
	$V $T/a64.elf

# --module-fixups on objects (modules): FDE-relative entries in a file
expect "--module-fixups: 6 entries (second FDE, other section, across FDEs, > 65535 B)" 0 \
	'fixups 6 needed, 6 written to build/host/verify/a64-modfix.fix$' \
	$V --policy warn --module-fixups $T/a64-modfix.fix $T/a64-modfix.o
want='1 mf_second+0x4 4 4
2 mf_cold+0x4 4 4
3 mf_cross_a+0x4 4 4
4 mf_cross_b+0x0 8 4
5 mf_big+0x4 65535 4
5 mf_big+0x10003 4465 4'
got=$(modfix_named $T/a64-modfix.fix $T/a64-modfix.o)
if [ "$got" = "$want" ]; then
	pass "--module-fixups: FDE index in section order, offset, split at FDE ends and 65535 B, sorted"
else
	fail "--module-fixups: entries"; diff <(echo "$got") <(echo "$want") >&2
fi
expect "--module-fixups: big-endian object" 0 'fixups 6 needed, 6 written' \
	$V --policy warn --module-fixups $T/a64-modfix-be.fix $T/a64-modfix-be.o
got=$(modfix_named $T/a64-modfix-be.fix $T/a64-modfix-be.o be)
[ "$got" = "$want" ] && pass "--module-fixups: entries in the object's byte order (big-endian)" ||
	fail "--module-fixups: big-endian entries: $got"
# the build's two objcopy steps (Documentation/verifier.rst): an aligned
# allocated section holding FILE; the verifier still reads the object
cp $T/a64-modfix.o $T/a64-modfix-sec.o
aarch64-linux-gnu-objcopy --add-section .sframe_fixup=$T/a64-modfix.fix \
	--set-section-flags .sframe_fixup=alloc,data,contents $T/a64-modfix-sec.o &&
aarch64-linux-gnu-objcopy --set-section-alignment .sframe_fixup=4 $T/a64-modfix-sec.o &&
aarch64-linux-gnu-objcopy -O binary --only-section .sframe_fixup $T/a64-modfix-sec.o $T/a64-modfix-sec.bin
if readelf -SW $T/a64-modfix-sec.o | grep -qE '\.sframe_fixup +PROGBITS .* WA +0 +0 +4$' &&
   cmp -s $T/a64-modfix.fix $T/a64-modfix-sec.bin; then
	pass "--module-fixups: objcopy adds FILE as .sframe_fixup (alloc, 4-byte aligned)"
else
	fail "--module-fixups: objcopy adds FILE as .sframe_fixup (alloc, 4-byte aligned)"
fi
expect "--module-fixups: an object with .sframe_fixup verifies the same" 0 'fixups 6 needed, 6 written' \
	$V --policy warn --module-fixups $T/a64-modfix-sec.fix $T/a64-modfix-sec.o
cmp -s $T/a64-modfix.fix $T/a64-modfix-sec.fix && pass "--module-fixups: same FILE with .sframe_fixup present" ||
	fail "--module-fixups: same FILE with .sframe_fixup present"
want='2 bad_record+0x4 4 4
3 cfa_below_sp+0x4 4 4'
$V --policy warn --module-fixups $T/a64.fix $T/a64.o >/dev/null 2>&1
got=$(modfix_named $T/a64.fix $T/a64.o)
[ "$got" = "$want" ] && pass "--module-fixups: frame-record rows, not the annotated asm" ||
	fail "--module-fixups: a64.o entries: $got"
echo stale >$T/x86.fix
expect "--module-fixups: no findings -> 0 entries" 0 'fixups 0 needed, 0 written to' \
	$V --policy warn --module-fixups $T/x86.fix $T/x86-c.o
[ -f $T/x86.fix ] && [ ! -s $T/x86.fix ] && pass "--module-fixups: no findings -> empty FILE" ||
	fail "--module-fixups: no findings -> empty FILE"
expect "--module-fixups: exit status of the verification (1: unknown findings), FILE written" 1 \
	'fixups 2 needed, 2 written' $V --module-fixups $T/a64-1.fix $T/a64.o
cmp -s $T/a64.fix $T/a64-1.fix && pass "--module-fixups: FILE written with unknown findings" ||
	fail "--module-fixups: FILE written with unknown findings"
# usage errors: exit 2, one line on stderr, no stale FILE left
modfix_usage() {
	local name=$1 pat=$2 rc
	shift 2
	echo stale >$T/usage.fix
	"$@" >$T/out 2>$T/err
	rc=$?
	if [ $rc = 2 ] && [ "$(wc -l <$T/err)" = 1 ] && [ ! -s $T/out ] &&
	   grep -qE -- "$pat" $T/err; then
		pass "$name: exit 2, one line: $(cat $T/err)"
	else
		fail "$name: exit $rc, $(wc -l <$T/err) stderr lines"
		cat $T/err >&2
	fi
}
modfix_usage "--module-fixups on a linked ELF" 'a64.elf: --module-fixups needs a module or object' \
	$V --policy warn --module-fixups $T/usage.fix $T/a64.elf
[ ! -e $T/usage.fix ] && pass "--module-fixups: no stale FILE after a failed run" ||
	fail "--module-fixups: no stale FILE after a failed run"
modfix_usage "--module-fixups with two inputs" 'one input ELF expected, got 2' \
	$V --module-fixups $T/usage.fix $T/a64.o $T/x86-c.o
cp $T/a64.o $T/a64-self.o
modfix_usage "--module-fixups FILE = the input" 'is the input ELF' \
	$V --module-fixups $T/a64-self.o $T/a64-self.o
cmp -s $T/a64.o $T/a64-self.o && pass "--module-fixups leaves its input alone" ||
	fail "--module-fixups leaves its input alone"

# malformed input: exit 2, one line on stderr
cp $T/x86-c.o $T/bad-sframe.o
off=$(readelf -SW $T/bad-sframe.o | sed 's/^ *\[ *[0-9]*\] *//' | awk '$1==".sframe"{print $4}')
printf '\x09' | dd of=$T/bad-sframe.o bs=1 seek=$((16#$off + 2)) conv=notrunc status=none
head -c 200 $T/x86-c.o >$T/truncated.o
printf 'not an elf' >$T/not-elf
for f in bad-sframe.o truncated.o not-elf; do
	$V $T/$f >/dev/null 2>$T/err
	rc=$?
	if [ $rc = 2 ] && [ "$(wc -l <$T/err)" = 1 ]; then
		pass "malformed $f: exit 2, one line: $(cat $T/err)"
	else
		fail "malformed $f: exit $rc, $(wc -l <$T/err) stderr lines"
	fi
done
printf 'x86_64 missing\n' >$T/exc-bad
expect "malformed exceptions file: exit 2" 2 'exc-bad: line 1' $V --exceptions $T/exc-bad $T/x86-c.o
expect "bad option: exit 2" 2 'bad option' $V --policy maybe $T/x86-c.o
expect "--module-fixups without FILE: exit 2" 2 'bad option --module-fixups' $V --module-fixups
exit 0
