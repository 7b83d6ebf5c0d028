#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Host tests of the SFrame core and tools.  Prints one "PASS: ..." or
# "FAIL: ..." line per check (details on stderr); scripts/summary.sh makes
# the final "N passed, N failed" line.  Run through `make check-host`,
# which builds the ASan/UBSan binaries in build/host first.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
H=build/host
FX=tools/testing/fixtures
DUMP=$H/sframe-dump-san
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# shellcheck source=scripts/testlib.sh
. scripts/testlib.sh

# 1. The core is freestanding: only the memory functions a freestanding C
#    implementation may require are left undefined.
undef=$(nm -u $H/sframe-freestanding.o | awk '{print $2}' | grep -v -E '^(memcpy|memset|memmove|memcmp)$' || true)
if [ -z "$undef" ]; then pass "core builds -ffreestanding -nostdlib, no libc symbols"
else fail "core needs: $undef"; fi

# 2. Rows at every PC, re-encodings; malformed input on a subset.
mapfile -t all < <( (find $FX -name '*.sframe' | sed 's/\.sframe$//'; ls $FX/libsframe-data/*.meta | sed 's/\.meta$//') | sort)
# (the longest check, on one core: it runs alongside the rest, and its
# lines come last)
core_out=$(mktemp)
{ $H/test-core "${all[@]}" | grep -E '^(PASS|FAIL):' ||
	fail "test-core crashed"; } >"$core_out" &
core_pid=$!
$H/test-core --malformed $FX/x86_64/nofp/asm.o $FX/x86_64/nofp/prog \
	$FX/x86_64/v1-nofp/prog $FX/x86_64/v2-sc/prog $FX/aarch64/pacb/prog \
	$FX/aarch64/v2-pac/libfix.so $FX/s390x/fp/prog $FX/s390x/v2-fp/prog \
	$FX/libsframe-data/DATA-BE-V3 $FX/libsframe-data/DATA2 \
	| grep -E '^(PASS|FAIL):' || fail "test-core --malformed crashed"
$H/test-malformed $FX | grep -E '^(PASS|FAIL):' || fail "test-malformed crashed"
# The accessor layer: the core rebuilt with a failing accessor.
$H/test-accessor $FX/x86_64/nofp/prog $FX/x86_64/v1-nofp/prog $FX/x86_64/v2-nofp/libfix.so \
	$FX/aarch64/pac/libfix.so $FX/s390x/fp/prog | grep -E '^(PASS|FAIL):' || fail "test-accessor crashed"
# The one frame step the kernel and user unwinders share, also on this
# program's own stack (assembled with --gsframe).
$H/test-step | grep -E '^(PASS|FAIL):' || fail "test-step crashed"

# sframe-gen (issue 16): the CFI reader on hostile .eh_frame bytes, and its
# rows against gas's .sframe at every byte of every fixture: equal, except
# the x86_64 .plt.got stubs, whose rows ld 2.46 writes itself (CFA = SP +
# 16 where the stub, a jump, runs with SP + 8).
$H/test-cfi $FX/x86_64/nofp/prog $FX/aarch64/pac/libfix.so $FX/aarch64/pacb/chain.o \
	| grep -E '^(PASS|FAIL):' || fail "test-cfi crashed"
for f in $(find $FX/x86_64 $FX/aarch64 -type f \( -name prog -o -name prog-nopie \
	   -o -name libfix.so -o -name '*.o' \) | sort); do
	if ! out=$($H/sframe-gen-san --compare --max-report 100 "$f" 2>&1); then
		fail "sframe-gen --compare $f: $(echo "$out" | head -n 1)"
	elif echo "$out" | grep '^  differ:' | grep -vq ' (\.plt\.got): '; then
		fail "sframe-gen --compare $f: $(echo "$out" | grep '^  differ:' | grep -v ' (\.plt\.got): ' | head -n 1)"
	else
		pass "sframe-gen --compare $f: $(echo "$out" | grep ' functions: ' | sed 's/^[^:]*: //')"
	fi
	# and the section it writes, in each version: validated by the core,
	# equal to the CFI at every byte (sframe-gen checks both, exit 1)
	for v in 1 2 3; do
		check "sframe-gen --sframe-version $v $f" \
			$H/sframe-gen-san --sframe-version $v -o $H/gen.sframe "$f"
	done
done
# v3 holds every function of the hand-written CFI cases that gas 2.46
# writes: FLEX for the realigned (DRAP) frame and the RA in a register,
# the outermost frame, the signal frame; none left out, all equal to gas.
for f in $FX/x86_64/fp/asm.o $FX/x86_64/nofp/asm.o $FX/x86_64/sc/asm.o \
	 $FX/aarch64/fp/asm.o; do
	out=$($H/sframe-gen-san --sframe-version 3 -o $H/gen.sframe "$f" 2>&1)
	cmp=$($H/sframe-gen-san --compare "$f" 2>&1)
	if echo "$out" | grep -q '; 0 functions left out;' &&
	   echo "$cmp" | grep -q ' 0 only in v3 (FLEX) and without, 0 inexpressible; .*(100\.000%)'; then
		pass "sframe-gen v3, every function of ${f#$FX/}: $(echo "$out" | sed 's/^.*: \([0-9]* functions, [0-9]* rows\).*/\1/')"
	else
		fail "sframe-gen v3, every function of ${f#$FX/}: $out / $cmp"
	fi
done
# End to end: a program built without SFrame (clang; gcc without
# --gsframe), its object given SFrame by sframe-gen --object (v1, what ld
# 2.40 merges), linked by GNU ld into a PT_GNU_SFRAME program that runs;
# the linked .sframe must equal the program's CFI at every byte.  Big-endian
# AArch64 (no C library here): a program without libc (-DGEN_NOLIBC).
gen_e2e() {	# gen_e2e NAME CC CFLAGS LINKER
	local o=$H/gen-$1 out=
	if ! command -v "$2" >/dev/null || ! command -v "${4%% *}" >/dev/null; then
		fail "sframe-gen --object: $1: $2 or $4 missing"
		return
	fi
	if $2 $3 -O2 -fomit-frame-pointer -c tools/testing/gen-prog.c -o $o.o &&
	   $H/sframe-gen-san --object --sframe-version 1 -o $o-sf.o $o.o >/dev/null &&
	   $4 -o $o $o-sf.o && readelf -lW $o | grep -q GNU_SFRAME &&
	   out=$($H/sframe-gen-san --compare $o) &&
	   echo "$out" | grep -q ' [1-9][0-9]* with SFrame in the file, .*(100\.000%)'; then
		pass "sframe-gen --object: $1, linked by GNU ld: $(echo "$out" | sed 's/^[^:]*: //')"
	else
		fail "sframe-gen --object: $1, linked by GNU ld: ${out:-build, generation or link failed}"
	fi
}
gen_e2e clang-x86_64 clang "" gcc
gen_e2e gcc-x86_64 gcc "" gcc
gen_e2e clang-aarch64 clang --target=aarch64-linux-gnu aarch64-linux-gnu-gcc
gen_e2e gcc-aarch64-be aarch64-linux-gnu-gcc "-mbig-endian -DGEN_NOLIBC -fasynchronous-unwind-tables" \
	"aarch64-linux-gnu-gcc -mbig-endian -nostdlib -static"
gen_e2e clang-aarch64-be clang "--target=aarch64_be-linux-gnu -DGEN_NOLIBC -fasynchronous-unwind-tables" \
	"aarch64-linux-gnu-gcc -mbig-endian -nostdlib -static"

# sframe-gen --merge, as the kernel uses it when vmlinux is linked from
# vmlinux.o (IBT, LTO): GNU ld 2.40's `ld -r` merges the objects' .sframe
# but leaves its relocations at their offsets before the merge, which is
# no valid SFrame; linked with scripts/sframe-concat.lds and merged, the
# object holds one valid section, and the program linked from it has
# SFrame equal to its CFI at every byte.
merge_e2e() {
	local o=$H/merge i out=
	for i in 0 1 2 3; do
		gcc -O2 -fomit-frame-pointer -Wa,--gsframe -DPART=$i \
			-c tools/testing/merge-part.c -o $o-$i.o || break
	done
	if ! ld -r -o $o-plain.o $o-[0-3].o ||
	   ! ld -r -T scripts/sframe-concat.lds -o $o-cat.o $o-[0-3].o; then
		fail "sframe-gen --merge: test objects build and link"
		return
	fi
	check_fails "plain ld -r: merged .sframe with misplaced relocations is invalid" \
		$DUMP --validate $o-plain.o
	if $H/sframe-gen-san --merge -o $o-merged.o $o-cat.o >/dev/null &&
	   $DUMP --validate $o-merged.o | grep -q 'valid SFrame v1 section: 11 FDEs' &&
	   gcc -o $o-prog $o-merged.o && readelf -lW $o-prog | grep -q GNU_SFRAME &&
	   out=$($H/sframe-gen-san --compare $o-prog) &&
	   echo "$out" | grep -q ' 12 with SFrame in the file, .*(100\.000%)'; then
		pass "sframe-gen --merge: 4 objects' SFrame as one section, linked: $(echo "$out" | sed 's/^[^:]*: //')"
	else
		fail "sframe-gen --merge: 4 objects' SFrame as one section, linked: ${out:-merge, validation or link failed}"
	fi
	check_fails "sframe-gen --merge: an object without .sframe_cat is refused" \
		$H/sframe-gen-san --merge -o $o-bad.o $o-plain.o
}
merge_e2e

# 3. sframe-dump against readelf: 2.46 for v2/v3, 2.40 for v1.
for ref in $(find $FX -name '*.readelf.txt' -o -name '*.readelf240.txt' | sort); do
	grep -q 'Error' "$ref" && continue
	elf=${ref%.readelf*.txt}
	if $DUMP "$elf" 2>&1 | cmp -s - "$ref"; then
		pass "sframe-dump = readelf: ${elf#$FX/}"
	else
		fail "sframe-dump = readelf: ${elf#$FX/}"
		$DUMP "$elf" 2>&1 | diff - "$ref" | head -5 >&2
	fi
done
for ref in $FX/libsframe-data/*.dump.txt; do
	raw=${ref%.dump.txt}
	addr=$(sed -n 's/^sh_addr=//p' "$raw.meta")
	if $DUMP --raw --addr "$addr" "$raw" 2>&1 | cmp -s - "$ref"; then
		pass "sframe-dump --raw = libsframe dump: ${raw#$FX/}"
	else
		fail "sframe-dump --raw = libsframe dump: ${raw#$FX/}"
	fi
done

# 4. v1 sections against libsframe 2.40 at every PC.
$H/test-libsframe $FX/x86_64/v1-*/prog $FX/x86_64/v1-*/prog-nopie \
	$FX/x86_64/v1-*/libfix.so $FX/aarch64/v1-*/libpauth.so | grep -E '^(PASS|FAIL):' || fail "test-libsframe crashed"

# 5. Objects and programs compiled here by the system toolchains (binutils
#    2.40, SFrame v1): sframe-dump = system readelf, lookups = libsframe.
SYS=$H/syscc
for arch in x86_64 aarch64; do
	case $arch in
	x86_64) cc=gcc; readelf=readelf ;;
	aarch64) cc=aarch64-linux-gnu-gcc; readelf=aarch64-linux-gnu-readelf ;;
	esac
	out=$SYS/$arch
	mkdir -p "$out"
	ok=1
	for variant in nofp fp; do
		flags="-O2 -fasynchronous-unwind-tables -Wa,--gsframe"
		[ $variant = nofp ] && flags="$flags -fomit-frame-pointer" || flags="$flags -fno-omit-frame-pointer"
		objs=()
		for src in chain many frames bigfunc; do
			$cc $flags -c $FX/src/$src.c -o "$out/$variant-$src.o" || ok=0
			objs+=("$out/$variant-$src.o")
		done
		$cc $flags -o "$out/$variant-prog" "${objs[@]}" || ok=0
		$cc $flags -shared -fPIC -o "$out/$variant-lib.so" $FX/src/many.c $FX/src/frames.c || ok=0
	done
	if [ $ok = 0 ]; then fail "system $cc builds the test programs"; continue; fi
	pass "system $cc -Wa,--gsframe builds the test programs ($arch)"
	for f in "$out"/*.o "$out"/*-prog "$out"/*-lib.so; do
		ref=$($readelf --sframe "$f" 2>&1)
		got=$($DUMP "$f" 2>&1)
		if [ "$ref" = "$got" ]; then pass "sframe-dump = system readelf: $arch/${f##*/}"
		else fail "sframe-dump = system readelf: $arch/${f##*/}"; diff <(echo "$got") <(echo "$ref") | head -5 >&2; fi
		check "sframe-dump --validate: $arch/${f##*/}" $DUMP --validate "$f"
	done
	if [ $arch = x86_64 ]; then
		$H/test-libsframe "$out"/*-prog "$out"/*-lib.so | grep -E '^(PASS|FAIL):'
	fi
done

# 6. The tool on hostile files: exit 1 and one line on stderr, no crash.
BAD=$H/bad
rm -rf $BAD
mkdir -p $BAD
head -c 0 /dev/null > $BAD/empty
head -c 100 $FX/x86_64/nofp/prog > $BAD/elf-truncated
head -c 4096 /dev/urandom > $BAD/random
printf '\177ELF\002\001\001' > $BAD/elf-header-only
head -c 1000 $FX/x86_64/nofp/prog.sframe > $BAD/raw-truncated
cp $FX/x86_64/nofp/prog.sframe $BAD/raw-bad-version && printf '\x09' | dd of=$BAD/raw-bad-version bs=1 seek=2 conv=notrunc status=none
cp $FX/x86_64/nofp/prog $BAD/elf-tables-outside
printf '\xff\xff\xff\x7f' | dd of=$BAD/elf-tables-outside bs=1 seek=32 conv=notrunc status=none
printf '\xff\xff\xff\x7f' | dd of=$BAD/elf-tables-outside bs=1 seek=40 conv=notrunc status=none
for f in $BAD/*; do
	case ${f##*/} in raw-*) args=(--raw --addr 0x1000) ;; *) args=() ;; esac
	$DUMP "${args[@]}" "$f" >/dev/null 2>$H/bad.stderr
	rc=$?
	lines=$(wc -l < $H/bad.stderr)
	if [ $rc -eq 1 ] && [ "$lines" -eq 1 ]; then pass "sframe-dump rejects ${f##*/}: $(cat $H/bad.stderr)"
	else fail "sframe-dump on ${f##*/}: exit $rc, $lines stderr lines"; fi
done
check "sframe-dump --validate rejects a truncated raw section" \
	bash -c "! $DUMP --validate --raw --addr 0 $BAD/raw-truncated"
check "sframe-dump --lookup finds main's row" \
	bash -c "$DUMP --lookup 0x10d3 $FX/x86_64/nofp/prog | grep -q 'CFA = sp+16; RA = \*(CFA-8)'"
check "sframe-dump --lookup reports a PC without FDE" \
	bash -c "! $DUMP --lookup 0x10 $FX/x86_64/nofp/prog | grep -q SFRAME_E_NO_FDE || true; $DUMP --lookup 0x10 $FX/x86_64/nofp/prog | grep -q SFRAME_E_NO_FDE"
check "kunit/sframe_fixtures.h is up to date with the fixtures" scripts/gen-kunit-fixtures.py --check

# 7. sframe-verify: coverage, arm64 checks, exceptions, fixups, malformed
#    input (the ORC comparison needs objtool: run-verify-kernel-tests.sh).
tools/testing/run-verify-tests.sh

# 8. A module's .sframe: one SFrame section per object linked (ld -r with
#    scripts/sframe-concat.lds, as the kernel build links modules).
tools/testing/run-parts-tests.sh

# 9. The final summary tags each failure and count with its kernel line,
#    given result files by the relative paths make check passes.
sum_t=$(mktemp -d)
mkdir -p "$sum_t/build/results" "$sum_t/build/6.12/results"
printf 'PASS: a\nFAIL: b\n' >"$sum_t/build/results/x.txt"
printf 'PASS: c\nFAIL: d\n' >"$sum_t/build/6.12/results/x.txt"
sum_out=$(cd "$sum_t" && "$OLDPWD/scripts/summary.sh" build/results/x.txt \
	build/6.12/results/x.txt 2>&1)
rm -rf "$sum_t"
if grep -q '^  \[6.12\] FAIL: d$' <<<"$sum_out" &&
   grep -q '^Linux 6.12: 1 passed, 1 failed$' <<<"$sum_out"; then
	pass "summary: each line's results tagged with its kernel line"
else
	fail "summary: each line's results tagged with its kernel line"
	echo "$sum_out" >&2
fi

# 9, continued: build/RESULTS.md names the command that wrote each file,
#    and says that the boot tests' benchmark lines (qemu-test.sh) are host
#    time, not -icount: their "goal" figures are not make bench-kernel's.
res_t=$(mktemp -d)
mkdir -p "$res_t/scripts" "$res_t/build/results"
cp scripts/results.sh "$res_t/scripts/"
echo 'sframe_unwind_demo: bench: arch_stack_walk: ratio 2.00 (goal <= 1.25)' \
	>"$res_t/build/results/bench-boot-x86_64.txt"
echo 'goal: x86_64 warm walk: 0.41x ORC (goal <= 0.50): met' \
	>"$res_t/build/results/bench-goals-x86_64.txt"
"$res_t/scripts/results.sh" >/dev/null 2>&1
res_doc=$(cat "$res_t/build/RESULTS.md" 2>/dev/null)
rm -rf "$res_t"
if grep -A3 '^### results/bench-boot-x86_64.txt' <<<"$res_doc" |
	grep -q '^- command: `make qemu-test ARCH=x86_64`' &&
   grep -A6 '^### results/bench-boot-x86_64.txt' <<<"$res_doc" |
	grep -q 'not -icount' &&
   grep -A3 '^### results/bench-goals-x86_64.txt' <<<"$res_doc" |
	grep -q '^- command: `make bench-kernel ARCH=x86_64`'; then
	pass "results: the boot tests' benchmark lines are not make bench-kernel's"
else
	fail "results: the boot tests' benchmark lines are not make bench-kernel's"
	echo "$res_doc" >&2
fi

# 10. make check's time budget: which DEEP stages run, which are skipped
#     and how, the cap on guests' timeouts.
tools/testing/run-check-budget-tests.sh

# 2, continued: test-core's rows at every PC
wait "$core_pid"
cat "$core_out"
rm -f "$core_out"
exit 0
