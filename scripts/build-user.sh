#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the user-space unwinding tests (qemu/user/) for ARCH into
# build/user-ARCH/, skipping the build when nothing changed:
#   chain-sframe-static  -O2 -fomit-frame-pointer, SFrame, static
#   chain-sframe-dyn     the same, dynamic, with libchain.so (SFrame too)
#   chain-nosframe       -O2 -fomit-frame-pointer, no SFrame, static
#   chain-fp             -O2 frame pointers (leaf functions too), no SFrame,
#                        static
#   sframe-hostile       -O2 -fomit-frame-pointer, SFrame, static, threads, .sframe
#                        outside the text segment (-z separate-code): forges
#                        its own .sframe and stack under perf (hostile/,
#                        with the SFrame core lib/sframe/)
#   chain-work-static    the chain as a plain program for the perf tool
#                        (workload.c: no sampling, runs for -t seconds),
#                        SFrame, static
#   chain-work-dyn       the same, dynamic, with libchain.so
#   chain-work-threads   the same with 4 threads (w_thread -> w_outer ...),
#                        SFrame, static
#   churn                -O2 -fomit-frame-pointer, SFrame, static, threads:
#                        the load of the churn test (churn.c)
#   sframe-costly        -O2 frame pointers, SFrame, static non-PIE with its
#                        text at 0x10000000: spins under perf at the bottom
#                        of 100 frames with its own .sframe or a forged,
#                        well-formed but costly one (costly.c, with the
#                        SFrame core lib/sframe/)
#   chain-clang-static   the sampler built by clang -O2 -fomit-frame-pointer
#                        (no SFrame of its own), SFrame from each object's
#                        CFI by tools/sframe-gen --object, static
#   chain-work-clang     chain-work-static built the same way by clang, for
#                        Debian's perf
#   sframe-remap         dynamic, SFrame: dlopen()s libremap-a.so and
#   libremap-[ab].so     libremap-b.so (one source, two frame sizes, the same
#                        layout) in turn at the same address while perf
#                        samples it: no cached answer outlives its mapping
#                        (remap.c)
#   sframe-mapdio        -O2 -fomit-frame-pointer, SFrame, static: maps
#   libspin-sframe.so    libspin-sframe.so (-fomit-frame-pointer, SFrame,
#                        -nostdlib, no relocations, entry point spin_entry)
#                        PROT_EXEC through an O_DIRECT descriptor on ext4
#                        like a loader and checks perf's chains through it
#                        (mapdio.c, spinlib.c)
#   sframe-modload       loads and unloads a module N times: finit_module()'s
#                        time and its SFrame registration's (modload.c)
#   sframe-maps          static, SFrame: maps its own text again and checks
#                        debugfs sframe/user_maps after each change (maps.c)
#   sframe-rows          static, SFrame: maps librows-sframe.so (-nostdlib,
#   librows-sframe.so    SFrame) twice, the second copy after the first,
#                        with the first's last function forged to run over
#                        the second: no cached row answers for the other
#                        copy (rows.c, rowslib.c)
# and sysroot/: the dynamic loader and the libraries the dynamic build
# needs, at the paths the target looks for them (for the initramfs).
# Checks that the SFrame builds have a PT_GNU_SFRAME segment and the
# others none, that sframe-hostile's is in a non-executable PT_LOAD, and
# that libspin-sframe.so needs no loader (no relocations, no DT_NEEDED).
set -euo pipefail

. "$(dirname "$0")/common.sh"
case "${1:-}" in
x86_64)	CC=gcc
	CLANG=clang
	LIBC=libc6-dev
	LIBDIR=/lib/x86_64-linux-gnu
	MACHINE="Advanced Micro Devices X86-64" ;;
arm64)	CC=aarch64-linux-gnu-gcc
	CLANG="clang --target=aarch64-linux-gnu"
	LIBC=libc6-dev-arm64-cross
	LIBDIR=/usr/aarch64-linux-gnu/lib
	MACHINE=AArch64 ;;
*)	echo "usage: $(basename "$0") x86_64|arm64" >&2; exit 2 ;;
esac
A=$1
SRC=$ROOT/qemu/user
OUTU=$ROOT/build/user-$A

# Compilers and C libraries (static and shared) for both arches.
for p in gcc libc6-dev gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu \
	 libc6-dev-arm64-cross; do
	dpkg -s "$p" >/dev/null 2>&1 || { "$ROOT/scripts/deps.sh"; break; }
done

CFLAGS="-O2 -g -std=gnu11 -Wall -Wextra -Werror -fasynchronous-unwind-tables"
OMIT="-fomit-frame-pointer"
# (x86_64 gcc 12 keeps no frame pointer in a leaf that does not touch the
# stack whatever the flags: w_leaf has a stack slot for that reason)
FP="-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer"
SFRAME="-Wa,--gsframe"
# the sampler reads ELF symbol tables with the tools' ELF reader
SRCS="$SRC/sampler.c $SRC/perfring.c $SRC/chain.c $ROOT/tools/lib/elf.c"
LIB="$SRC/chainlib.c"
# the plain workload for the perf tool
WSRCS="$SRC/workload.c $SRC/chain.c"
# ld writes no .eh_frame_hdr into a static executable unless asked: perf's
# --call-graph dwarf unwinder (libunwind) finds no unwind table without it
EHHDR="-Wl,--eh-frame-hdr"
# aarch64 ld puts .rodata/.eh_frame/.sframe in the text segment unless told
# otherwise; sframe-hostile mprotects its .sframe pages writable, which must
# not touch the text mapping (the kernel drops an mm's SFrame record then)
SEPCODE="-Wl,-z,separate-code"
# sframe-costly's forged sections lie below its text, within the 2 GiB
# that v1/v2 32-bit start fields reach, with 10 MB below the text for the
# rows shape's FDE start: text at 256 MiB instead of 4 MiB
COSTLYTEXT="-Wl,-Ttext-segment=0x10000000"

# chain-clang-static: the sampler built by clang, which writes no SFrame;
# each object gets SFrame from its CFI (tools/sframe-gen --object, v1 for
# ld 2.40), and GNU ld links them into PT_GNU_SFRAME as for gas's.
GEN=$ROOT/tools/sframe-gen
gen_clang() {	# gen_clang OUT SOURCE...
	local out=$1 s b objs=
	shift
	for s in "$@"; do
		b=gen-$(basename "$s" .c)
		$CLANG $CFLAGS -Wno-unknown-attributes $OMIT -c "$s" -o "$b.o" &&
			"$GEN" --object --sframe-version 1 -o "$b-sf.o" "$b.o" >/dev/null ||
			return 1
		objs="$objs $b-sf.o"
	done
	# shellcheck disable=SC2086 # objs: several files
	$CC -static -o "$out" $objs
}
make -s -C "$ROOT" tools/sframe-gen

# The SFrame core, as the host tools build it (all of lib/sframe/)
CORE=$(echo "$ROOT"/lib/sframe/*.c)
# sframe-hostile, one file per job (qemu/user/hostile/), in a fixed order
HOSTILE="$SRC/hostile/main.c $SRC/hostile/section.c $SRC/hostile/stack.c"
HOSTILE="$HOSTILE $SRC/hostile/perf.c $SRC/hostile/conc.c"
# One command line per artefact, in build order (also the stamp's input).
cmds=(
"$CC $CFLAGS $OMIT $SFRAME -static -o chain-sframe-static $SRCS $LIB"
"$CC $CFLAGS $OMIT $SFRAME -fPIC -shared -Wl,-soname,libchain.so -o libchain.so $LIB"
"$CC $CFLAGS $OMIT $SFRAME -o chain-sframe-dyn $SRCS -L. -lchain -Wl,-rpath,'\$ORIGIN'"
"$CC $CFLAGS $OMIT -static -o chain-nosframe $SRCS $LIB"
"$CC $CFLAGS $FP -static -o chain-fp $SRCS $LIB"
"$CC $CFLAGS $OMIT $SFRAME -static $EHHDR -o chain-work-static $WSRCS $LIB"
"$CC $CFLAGS $OMIT $SFRAME -o chain-work-dyn $WSRCS -L. -lchain -Wl,-rpath,'\$ORIGIN'"
"$CC $CFLAGS $OMIT $SFRAME -pthread -DWORK_THREADS=4 -static $EHHDR -o chain-work-threads $WSRCS $LIB"
"$CC $CFLAGS $OMIT $SFRAME -static $SEPCODE -pthread -I$ROOT/include -o sframe-hostile $HOSTILE $SRC/perfring.c $CORE"
"$CC $CFLAGS $OMIT $SFRAME -static -pthread -o churn $SRC/churn.c $SRC/perfring.c"
"$CC $CFLAGS $FP $SFRAME -static $COSTLYTEXT -I$ROOT/include -o sframe-costly $SRC/costly.c $CORE"
"gen_clang chain-clang-static $SRCS $LIB"
"gen_clang chain-work-clang $WSRCS $LIB"
"$CC $SFRAME -fPIC -shared -nostdlib -DFRAME=0x100 -o libremap-a.so $SRC/remaplib.S"
"$CC $SFRAME -fPIC -shared -nostdlib -DFRAME=0x200 -o libremap-b.so $SRC/remaplib.S"
"$CC $CFLAGS $OMIT $SFRAME -o sframe-remap $SRC/remap.c $SRC/remapcall.S $SRC/perfring.c -ldl"
"$CC $CFLAGS $OMIT $SFRAME -fPIC -shared -nostdlib -Wl,-e,spin_entry -o libspin-sframe.so $SRC/spinlib.c"
"$CC $CFLAGS $OMIT $SFRAME -static -o sframe-mapdio $SRC/mapdio.c $SRC/perfring.c"
"$CC $CFLAGS -static -o sframe-modload $SRC/modload.c"
"$CC $CFLAGS $OMIT $SFRAME -static -o sframe-maps $SRC/maps.c"
"$CC $CFLAGS $OMIT $SFRAME -fPIC -shared -nostdlib -o librows-sframe.so $SRC/rowslib.c"
"$CC $CFLAGS $OMIT $SFRAME -static -I$ROOT/include -o sframe-rows $SRC/rows.c $SRC/remapcall.S $SRC/perfring.c $ROOT/tools/lib/elf.c $CORE"
)
outs="chain-sframe-static libchain.so chain-sframe-dyn chain-nosframe chain-fp
      chain-work-static chain-work-dyn chain-work-threads sframe-hostile churn
      sframe-costly chain-clang-static chain-work-clang libremap-a.so libremap-b.so
      sframe-remap libspin-sframe.so sframe-mapdio sframe-modload sframe-maps
      librows-sframe.so sframe-rows"

# rebuilt when a command line, a source, this script, the compiler or the
# C library changes
stamp=$( { printf '%s\n' "${cmds[@]}"; $CC --version | sed -n 1p
	   $CLANG --version | sed -n 1p; sha256sum "$GEN"
	   dpkg-query -W "$LIBC"; cat "$SRC"/*.c "$SRC"/*.h "$SRC"/*.S \
	   "$SRC"/hostile/*.c "$SRC"/hostile/*.h "$0" \
	   "$ROOT"/include/sframe/*.h "$ROOT"/lib/sframe/*.[ch] \
	   "$ROOT"/tools/lib/elf.[ch] "$ROOT/tools/lib/search.h"; } |
	 sha256sum | cut -d' ' -f1)
uptodate=1
[ "$(cat "$OUTU/.stamp" 2>/dev/null)" = "$stamp" ] || uptodate=
for f in $outs sysroot; do
	[ -e "$OUTU/$f" ] || uptodate=
done
if [ -n "$uptodate" ]; then
	echo "[user $A] build/user-$A up to date"
	exit 0
fi

rm -rf "$OUTU"
mkdir -p "$OUTU"
cd "$OUTU"
for c in "${cmds[@]}"; do
	eval "$c" || { echo "[user $A] failed: $c" >&2; exit 1; }
done
printf '%s\n' "${cmds[@]}" >"$OUTU/BUILD-COMMANDS"

# The target and its SFrame segments are what we think they are.
for f in $outs; do
	readelf -h "$f" | grep -q "Machine: *$MACHINE" ||
		{ echo "[user $A] $f: not built for $MACHINE" >&2; exit 1; }
	case $f in
	chain-sframe-*|chain-work-*|chain-clang-*|libchain.so|sframe-hostile|churn) want=1 ;;
	sframe-costly|libremap-*|sframe-remap|libspin-sframe.so|sframe-mapdio) want=1 ;;
	sframe-maps|librows-sframe.so|sframe-rows) want=1 ;;
	*) want=0 ;;
	esac
	have=$(readelf -lW "$f" | grep -c '^ *GNU_SFRAME ' || true)
	[ "$have" = "$want" ] ||
		{ echo "[user $A] $f: $have PT_GNU_SFRAME segments, expected $want" >&2; exit 1; }
done
# sframe-hostile: the PT_LOAD holding PT_GNU_SFRAME is not executable
read -r sf_va sf_sz < <(readelf -lW sframe-hostile | awk '$1 == "GNU_SFRAME" { print $3, $6 }')
sf_ro=
while read -r _ _ va _ fsz _ flags; do
	if (( sf_va >= va && sf_va + sf_sz <= va + fsz )); then
		case $flags in
		*E*) ;;
		*) sf_ro=1 ;;
		esac
	fi
done < <(readelf -lW sframe-hostile | grep '^ *LOAD ')
[ -n "$sf_ro" ] ||
	{ echo "[user $A] sframe-hostile: .sframe not in a read-only PT_LOAD" >&2; exit 1; }
# sframe-costly: static non-PIE (its program headers' addresses are the
# run-time ones), text at 0x10000000
readelf -h sframe-costly | grep -q 'Type: *EXEC ' &&
	readelf -lW sframe-costly | grep -q '^ *LOAD .* 0x0*10000000 ' ||
	{ echo "[user $A] sframe-costly: not static non-PIE at 0x10000000" >&2; exit 1; }

# libspin-sframe.so: sframe-mapdio maps it without a loader: no
# relocations, nothing needed, the entry point spin_entry, the chain's
# static functions in .symtab (their ranges are what the test checks)
readelf -rW libspin-sframe.so | grep -q 'There are no relocations in this file' &&
	! readelf -dW libspin-sframe.so | grep -q '(NEEDED)' ||
	{ echo "[user $A] libspin-sframe.so: has relocations or DT_NEEDED" >&2; exit 1; }
spin_va=$(readelf -W --dyn-syms libspin-sframe.so |
	  awk '$4 == "FUNC" && $8 == "spin_entry" { print $2; exit }')
spin_entry=$(readelf -hW libspin-sframe.so | awk '/Entry point address:/ { print $4 }')
[ -n "$spin_va" ] && [ -n "$spin_entry" ] && (( 0x$spin_va == spin_entry )) ||
	{ echo "[user $A] libspin-sframe.so: entry point is not spin_entry" >&2; exit 1; }
for fn in s_a s_b s_c s_leaf; do
	readelf -sW libspin-sframe.so |
		awk -v f="$fn" '$4 == "FUNC" && $3 > 0 && $8 == f { ok = 1 } END { exit !ok }' ||
		{ echo "[user $A] libspin-sframe.so: no function $fn in .symtab" >&2; exit 1; }
done

# The loader and every library the dynamic build needs, where the target
# looks for them: the loader at its PT_INTERP path, libraries in /lib (one
# of the loader's default directories on both arches); libchain.so is
# found next to the executable (DT_RUNPATH $ORIGIN).
interp=$(readelf -lW chain-sframe-dyn |
	 sed -n 's/.*Requesting program interpreter: \(.*\)\]/\1/p')
mkdir -p "sysroot$(dirname "$interp")" sysroot/lib
cp -L "$LIBDIR/$(basename "$interp")" "sysroot$interp"
needed() {
	readelf -dW "$1" | sed -n 's/.*(NEEDED).*Shared library: \[\(.*\)\]/\1/p'
}
todo=(chain-sframe-dyn chain-work-dyn libchain.so)
while [ ${#todo[@]} -gt 0 ]; do
	obj=${todo[0]}
	todo=("${todo[@]:1}")
	for lib in $(needed "$obj"); do
		case $lib in
		libchain.so|"$(basename "$interp")") continue ;;
		esac
		[ -e "sysroot/lib/$lib" ] && continue
		cp -L "$LIBDIR/$lib" "sysroot/lib/$lib"
		todo+=("sysroot/lib/$lib")
	done
done

echo "$stamp" >"$OUTU/.stamp"
echo "[user $A] build/user-$A: $(echo "$outs" | tr -s ' \n' ' ' | sed 's/ $//'), sysroot: $(cd sysroot && find . -type f | sed 's|^\.||' | tr '\n' ' ')"
