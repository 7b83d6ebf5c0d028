#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Host tests of .sframe sections that hold several SFrame sections, as the
# module build makes them (scripts/sframe-concat.lds): objects
# compiled by the system gcc/gas 2.40, linked with `ld -r` like a
# composite module object and then like the final .ko link, and the result
# renamed to .sframe.  sframe-dump must print and validate every part,
# sframe-verify must read them all (coverage, arm64 checks, FDE indexes of
# --module-fixups across the parts), and damage between parts must be
# rejected.  The core's part iteration is tested byte by byte in
# test-malformed.c.  Called by run-host-tests.sh.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tools/testing/verify-lib.sh
H=build/host
DUMP=$H/sframe-dump-san
V=$H/sframe-verify-san
FX=tools/testing/fixtures
LDS=scripts/sframe-concat.lds
T=$H/parts
rm -rf $T
mkdir -p $T

# link_module PREFIX OUT OBJ...: the two relocatable links of a module
# with two or more objects, as the module build makes them: the composite object
# from all but the last OBJ, then the final link with the last one, then
# the rename back to .sframe.
link_module() {
	local p=$1 out=$2 last=${*: -1}
	shift 2
	${p}ld -r -T $LDS "${@:1:$#-1}" -o $out.composite.o &&
	${p}ld -r -T $LDS $out.composite.o "$last" -o $out.cat.o &&
	${p}objcopy --rename-section .sframe_cat=.sframe $out.cat.o $out
}

# num_fdes OBJ: "Num FDEs" of each SFrame section sframe-dump prints
num_fdes() { $DUMP "$1" | sed -n 's/^ *Num FDEs: //p' | tr '\n' ' '; }

# x86_64: three C objects (v1, as the test kernels' gas makes them)
CFLAGS="-O2 -fasynchronous-unwind-tables -fomit-frame-pointer -Wa,--gsframe"
objs=()
for src in chain many bigfunc; do
	gcc $CFLAGS -c $FX/src/$src.c -o $T/$src.o || fail "gcc -c $src.c"
	objs+=("$T/$src.o")
done
if link_module "" $T/x86.o "${objs[@]}"; then
	pass "ld -r -T sframe-concat.lds twice + objcopy --rename-section (x86_64, 3 objects)"
else
	fail "ld -r -T sframe-concat.lds twice + objcopy --rename-section (x86_64, 3 objects)"
fi
if readelf -SW $T/x86.o | grep -q ' \.rela\.sframe ' &&
   ! readelf -SW $T/x86.o | grep -q sframe_cat; then
	pass "the renamed section is .sframe with its .rela.sframe"
else
	fail "the renamed section is .sframe with its .rela.sframe"
fi
want=
for o in "${objs[@]}"; do want+="$(num_fdes $o)"; done
got=$(num_fdes $T/x86.o)
[ "$got" = "$want" ] && pass "sframe-dump prints one section per object, in link order (FDEs: $got)" ||
	fail "sframe-dump prints one section per object (FDEs: got '$got', want '$want')"
$DUMP $T/x86.o >$T/x86.dump 2>&1
n=$(grep -c '^Contents of the SFrame section .sframe' $T/x86.dump)
[ "$n" = 3 ] && pass "sframe-dump: three section titles" || fail "sframe-dump: $n section titles"
if grep -q '^Contents of the SFrame section .sframe \[part 2 at offset 0x[0-9a-f]*\]:$' $T/x86.dump; then
	pass "sframe-dump names the later parts with their offset"
else
	fail "sframe-dump names the later parts with their offset"
fi
ref=$(readelf --sframe $T/x86.o)
got=$(head -n "$(wc -l <<<"$ref")" $T/x86.dump)
[ "$got" = "$ref" ] && pass "sframe-dump's first part = readelf 2.40 (which prints only the first)" ||
	{ fail "sframe-dump's first part = readelf 2.40"; diff <(echo "$got") <(echo "$ref") | head -5 >&2; }
expect "sframe-dump --validate: every part valid" 0 \
	'x86.o \[part 2 at offset 0x[0-9a-f]+\]: valid SFrame v1 section' $DUMP --validate $T/x86.o
n=$($DUMP --validate $T/x86.o | grep -c ': valid SFrame')
[ "$n" = 3 ] && pass "sframe-dump --validate: one line per part" || fail "sframe-dump --validate: $n lines"
# Coverage is complete only if every part's start fields were relocated.
expect "sframe-verify reads every part: all text covered" 0 \
	'x86.o \(x86_64\): text [0-9]+ B in [0-9]+ symbols: sframe 100\.00%' $V --policy warn $T/x86.o
text() { $V --policy warn "$1" | sed -n 's/.*: text \([0-9]*\) B.*/\1/p'; }
a=$(text $T/x86.o) b=0
for o in "${objs[@]}"; do b=$((b + $(text $o))); done
[ "$a" = "$b" ] && pass "sframe-verify: the module's text = its objects' ($a B)" ||
	fail "sframe-verify: the module's text $a B, its objects' $b B"

# arm64: the verifier's own test objects; the --module-fixups FDE indexes
# count across the parts (part 0's FDEs first)
SRC=tools/testing/verify
if aarch64-linux-gnu-gcc -D__ASSEMBLY__ -Wa,--gsframe -Iinclude -c $SRC/a64-patterns.S -o $T/a64.o &&
   aarch64-linux-gnu-gcc -D__ASSEMBLY__ -Wa,--gsframe -c $SRC/a64-modfix.S -o $T/a64-modfix.o &&
   aarch64-linux-gnu-gcc $CFLAGS -c $FX/src/chain.c -o $T/a64-chain.o &&
   link_module aarch64-linux-gnu- $T/a64-mod.o $T/a64.o $T/a64-chain.o $T/a64-modfix.o; then
	pass "arm64 module of three objects links"
else
	fail "arm64 module of three objects links"
fi
n0=$(num_fdes $T/a64.o) n1=$(num_fdes $T/a64-chain.o)
base=$((n0 + n1))
$V --policy warn --module-fixups $T/a64.fix $T/a64.o >/dev/null 2>&1
$V --policy warn --module-fixups $T/a64-modfix.fix $T/a64-modfix.o >/dev/null 2>&1
want=$( { modfix_named $T/a64.fix $T/a64.o
	  modfix_named $T/a64-modfix.fix $T/a64-modfix.o |
		while read -r fde rest; do echo "$((fde + base)) $rest"; done; } )
expect "sframe-verify --module-fixups on the arm64 module: 8 entries" 0 \
	'fixups 8 needed, 8 written' $V --policy warn --module-fixups $T/a64-mod.fix $T/a64-mod.o
got=$(modfix_named $T/a64-mod.fix $T/a64-mod.o)
if [ "$got" = "$want" ]; then
	pass "--module-fixups: FDE indexes across the parts (part 2 starts at FDE $base)"
else
	fail "--module-fixups: FDE indexes across the parts"
	diff <(echo "$got") <(echo "$want") >&2
fi
# every FDE of every part matches its symbol: no fde-mismatch beyond the
# objects' own (a64.o's "mismatch" function)
a=$($V --policy warn $T/a64-mod.o | sed -n 's/.*; FDEs \([0-9]*\): fde-mismatch \([0-9]*\), orphan \([0-9]*\).*/\1 \2 \3/p')
[ "$a" = "$((n0 + n1 + $(num_fdes $T/a64-modfix.o))) 1 0" ] &&
	pass "sframe-verify (arm64): every FDE of every part checked against the symbols ($a)" ||
	fail "sframe-verify (arm64): FDEs, fde-mismatch, orphan: '$a'"

# damage between the parts: one line on stderr, exit 1 (dump) / 2 (verify)
sframe_off() {
	readelf -SW "$1" | sed 's/^ *\[ *[0-9]*\] *//' | awk '$1==".sframe"{print $4}'
}
# patch FILE OFFSET BYTE...: write bytes into FILE at .sframe + OFFSET
patch_sframe() {
	local f=$1 at=$((16#$(sframe_off $1) + $2))
	shift 2
	printf "$@" | dd of=$f bs=1 seek=$at conv=notrunc status=none
}
end0=$($DUMP --validate $T/x86.o | sed -n '1s/.*, \([0-9]*\) bytes$/\1/p')
off1=$(( (end0 + 7) / 8 * 8 ))
damaged() {
	local name=$1 f=$2 want=$3 rc
	$DUMP $f >/dev/null 2>$T/err
	rc=$?
	if [ $rc = 1 ] && [ "$(wc -l <$T/err)" = 1 ] && grep -q -- "$want" $T/err; then
		pass "sframe-dump: $name: $(cat $T/err)"
	else
		fail "sframe-dump: $name: exit $rc, $(cat $T/err)"
	fi
	$V $f >/dev/null 2>$T/err
	rc=$?
	if [ $rc = 2 ] && [ "$(wc -l <$T/err)" = 1 ] && grep -q -- "$want" $T/err; then
		pass "sframe-verify: $name: $(cat $T/err)"
	else
		fail "sframe-verify: $name: exit $rc, $(cat $T/err)"
	fi
}
if [ $off1 -gt $end0 ]; then
	cp $T/x86.o $T/bad-pad.o
	patch_sframe $T/bad-pad.o $end0 '\x01'
	damaged "non-zero padding after part 0" $T/bad-pad.o SFRAME_E_PADDING
else
	fail "part 0 of the x86_64 test module needs padding ($end0 bytes)"
fi
cp $T/x86.o $T/bad-magic.o
patch_sframe $T/bad-magic.o $off1 '\x00\x00'
damaged "part 1 without magic" $T/bad-magic.o SFRAME_E_PADDING
cp $T/x86.o $T/bad-version.o
patch_sframe $T/bad-version.o $((off1 + 2)) '\x09'
damaged "part 1 of version 9" $T/bad-version.o SFRAME_E_VERSION
exit 0
