#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make series KVER=... (its second half): the self-contained form of the
# series, as upstream would take it, in build/series-KVER/upstream/: our
# sources placed in the kernel tree, no directory linked in and no extra
# include roots:
#
#   include/sframe/, kernel/include/sframe/  ->  include/linux/sframe/
#   lib/sframe/                              ->  lib/sframe/
#   kernel/                                  ->  kernel/unwind/
#   tools/ (the build's host programs)       ->  scripts/sframe/
#   kunit/, qemu/modules/ (test modules)    ->  kernel/unwind/tests/
#   Kconfig                                  ->  kernel/unwind/Kconfig
#
# The series is built as git history in build/export-KVER (a pristine
# tree and a worktree): first the headers the hooks include, then every
# patch of scripts/patches/KVER but the first (which links the directory
# in), rewritten to the new paths, then the sources one part per patch,
# and last the patch that adds the Kconfig options and builds them.  No
# hook builds anything before its option exists, so every patch builds
# (scripts/series-bisect.sh proves it).  Author and Signed-off-by are
# NAME <EMAIL> from the environment (make series passes the runner's).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
KVER=${KVER:-6.1}
: "${NAME:?}" "${EMAIL:?}"
ME="$NAME <$EMAIL>"
src=$ROOT/scripts/patches/$KVER
TARBALL=/usr/src/linux-source-$KVER.tar.xz
work=$ROOT/build/export-$KVER
out=$ROOT/build/series-$KVER/upstream
tag="[series $KVER upstream]"
[ -f "$TARBALL" ] || { echo "$tag no $TARBALL (make kernel-deps)" >&2; exit 1; }

# place FILE: where a file of ours goes in the kernel tree (nothing: it
# stays out: the host tests, benchmarks, VM scripts)
place() {
	case $1 in
	include/sframe/*)	 echo "include/linux/sframe/${1#include/sframe/}" ;;
	kernel/include/sframe/*) echo "include/linux/sframe/${1#kernel/include/sframe/}" ;;
	lib/sframe/*)		 echo "$1" ;;
	kernel/*)		 echo "kernel/unwind/${1#kernel/}" ;;
	tools/testing/*|tools/bench/*) ;;
	tools/*)		 echo "scripts/sframe/${1#tools/}" ;;
	kunit/*|qemu/modules/*)	 echo "kernel/unwind/tests/${1##*/}" ;;
	scripts/sframe-verify-exceptions|scripts/sframe-concat.lds)
				 echo "scripts/sframe/${1#scripts/}" ;;
	Kconfig)		 echo kernel/unwind/Kconfig ;;
	esac
}

# rewrite: a file's text (or a message) with the paths of the placement
# above; include roots and per-directory -I go, <sframe/x.h> becomes
# <linux/sframe/x.h>, and the project's name leaves the comments.
rewrite() {
	perl -pe '
	s{#include <sframe/}{#include <linux/sframe/};
	s{^\s*(?:\*|#)\s*See Documentation/[\w-]+\.rst\.\n}{};
	s{\s+See Documentation/[\w-]+\.rst\.}{};
	s{[\$]([({])(src|obj)tree([)}])/sframe-unwind/tools/}{\$$1$2tree$3/scripts/sframe/}g;
	s{[\$]([({])srctree([)}])/sframe-unwind/scripts/}{\$$1srctree$2/scripts/sframe/}g;
	s{^\s*ccflags-y\s*\+=\s*-I\$\(srctree\)/sframe-unwind/.*\n}{};
	s{^# sframe_park\.h: the parked chain, shared with the KUnit suites\n}{};
	s{-I\$\(srctree\)/sframe-unwind/kernel\b}{-I\$(src)};
	s{^(HOST_EXTRACFLAGS \+= )-I\$\(srctree\)/sframe-unwind/include}{$1-idirafter \$(srctree)/include};
	s{"\.\./\.\./lib/sframe/}{"../../../lib/sframe/};
	s{"\.\./lib/sframe/}{"../../lib/sframe/};
	s{sframe-unwind/include/sframe/}{include/linux/sframe/}g;
	s{sframe-unwind/scripts/}{scripts/sframe/}g;
	s{sframe-unwind/kernel/}{kernel/unwind/}g;
	s{^F:\tinclude/linux/sframe_unwind\.h\n}{F:\tinclude/linux/sframe/\n$&};
	s{^F:\tsframe-unwind/\n}{F:\tkernel/unwind/\nF:\tlib/sframe/\nF:\tscripts/sframe/\n};
	s{^M:\tSeed .*}{M:\t$ENV{ME}};
	s{Hooks of the sframe-unwind project \(sframe-unwind/\) into the kernel}{Hooks of the SFrame unwinder (kernel/unwind/) into the kernel};
	s{^menu "SFrame unwinder \(sframe-unwind\)"}{menu "SFrame unwinder"};
	s{^# sframe-unwind: SFrame-based}{# SFrame-based};
	s{\s*\(sframe-unwind\)}{}g;
	s{"sframe-unwind supports}{"the SFrame unwinder supports};
	s{((?:/\*|\*|#)\s*)sframe-unwind: (\w)}{$1\u$2}g;
	s{^\s*source "sframe-unwind/Kconfig"}{source "kernel/unwind/Kconfig"};
	'
}

# the top Makefile: the lines that linked the directory in and added its
# include roots go (the hooks of the last patch build the sources where
# they are placed)
unlink_makefile() {
	perl -0pe '
	s{\n# sframe-unwind, linked into the tree as sframe-unwind/\ncore-y\t+\+= sframe-unwind/\n}{\n};
	s{# its headers: <sframe/annot\.h>[^\n]*\n# kernel-only API[^\n]*\nLINUXINCLUDE\t\+= -I\$\(srctree\)/sframe-unwind/include \\\n\t+   -I\$\(srctree\)/sframe-unwind/kernel/include\n\n?}{};
	'
}

# the message of a patch (after From/Date/Subject), rewritten, without
# its sign-off (the commit's is the runner's)
message() {
	awk '/^---$/ { exit } body { print } /^Subject: / { subj = 1; next }
	     subj && /^$/ && !body { body = 1 }' "$1" |
		grep -v '^Signed-off-by: ' | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' |
		perl -0pe 's{  The directory.s include/\n\(freestanding\) and kernel/include/ \(kernel-only\) join LINUXINCLUDE so\nthat assembly and the architecture hooks can use them\.}{  Assembly and the\narchitecture hooks include them from include/linux/sframe/.}' |
		rewrite
}
subject() {
	sed -n '/^Subject: /{N;s/\n / /;p;q}' "$1" | head -n 1 |
		sed 's/^Subject: \(\[PATCH [0-9/]*\] \)\?//'
}

git_() { git -c user.name="$NAME" -c user.email="$EMAIL" "$@"; }
commit() {	# commit SUBJECT BODY-FILE: everything in the worktree
	git_ -C "$up" add -f -A
	git_ -C "$up" commit -q -s --no-verify -F - <<-EOF
	$1

	$(cat "$2")
	EOF
}

# 1. the pristine tree (once per tarball) and the original series on it
orig=$work/linux
up=$work/upstream
mkdir -p "$work"
if [ "$(cat "$work/.tarball" 2>/dev/null)" != "$(stat -c %s.%Y "$TARBALL")" ]; then
	echo "$tag extract $TARBALL"
	rm -rf "$orig" "$up" "$work/.tarball"
	mkdir -p "$orig"
	tar -xJf "$TARBALL" -C "$orig" --strip-components=1
	git -C "$orig" init -q
	git_ -C "$orig" add -f -A
	git_ -C "$orig" commit -q -m "Linux $KVER (linux-source-$KVER)"
	git -C "$orig" tag pristine
	stat -c %s.%Y "$TARBALL" >"$work/.tarball"
fi
git -C "$orig" worktree remove -f "$up" 2>/dev/null || rm -rf "$up"
git -C "$orig" worktree prune
git -C "$orig" checkout -q -f pristine
git -C "$orig" clean -q -fdx
git -C "$orig" worktree add -q -f -B upstream "$up" pristine

# 2. the headers (include/linux/sframe/): the hooks include them
export ME
msg=$(mktemp)
trap 'rm -f "$msg"' EXIT
add_sources() {	# add_sources PATTERN...: our files matching, placed
	local f to
	for f in $(git -C "$ROOT" ls-files "$@"); do
		to=$(place "$f")
		[ -n "$to" ] || continue
		mkdir -p "$up/$(dirname "$to")"
		if [ "${to##*/}" = Kbuild ] && [ -f "$up/$to" ]; then
			# the tests' three Kbuild files, one directory
			grep -v '^# SPDX' "$ROOT/$f" | rewrite >>"$up/$to"
		else
			rewrite <"$ROOT/$f" >"$up/$to"
		fi
	done
}
add_sources 'include/sframe/*' 'kernel/include/sframe/*'
cat >"$msg" <<-'EOF'
	The SFrame format (format.h, the on-disk layout of v1, v2 and v3), the
	decoder's API (sframe.h, freestanding: the kernel and the build's host
	programs share it), the entry-code annotations (annot.h) and the
	kernel-side API of the section registry and the unwinders.

	They come first because the entry code and the architecture hooks of
	the following patches include them; nothing builds them yet.
EOF
commit "sframe: add the SFrame format and unwinder headers" "$msg"

# 3. every patch but the first, rewritten to the new places
patches=("$src"/[0-9][0-9][0-9][0-9]-*.patch)
for p in "${patches[@]}"; do
	patch -d "$orig" -p1 -s -f --fuzz=0 --no-backup-if-mismatch <"$p" >/dev/null ||
		{ echo "$tag ${p#"$ROOT"/} does not apply" >&2; exit 1; }
	case ${p##*/} in 0001-*) continue ;; esac
	for f in $(sed -nE 's#^(\+\+\+ b|--- a)/([^\t]*).*#\2#p' "$p" | sort -u); do
		mkdir -p "$up/$(dirname "$f")"
		if [ "$f" = Makefile ]; then
			unlink_makefile <"$orig/$f" | rewrite >"$up/$f"
		elif [ -e "$orig/$f" ]; then
			rewrite <"$orig/$f" >"$up/$f"
			chmod --reference="$orig/$f" "$up/$f"
		else
			rm -f "$up/$f"
		fi
	done
	message "$p" >"$msg"
	commit "$(subject "$p")" "$msg"
done

# 4. the sources, one part per patch: the decoder, the host programs, the
# kernel side and the tests, each in the order its parts depend on
source_patch() {	# source_patch SUBJECT BODY FILE...: add FILE..., commit
	local subj=$1
	printf '%s\n\nNothing builds this yet: the last patch of the series does.\n' \
		"$2" >"$msg"
	shift 2
	add_sources "$@"
	commit "$subj" "$msg"
}

source_patch "lib/sframe: open SFrame sections and look up an address" \
"A freestanding, allocation-free decoder of SFrame sections (v1, v2
with its PC-relative errata, v3; AMD64, AArch64, s390x; either byte
order): open and bound a section, find the function covering an
address (binary search), its row, and the rule the row encodes.

One decoder for every consumer: the kernel reads vmlinux's and the
modules' sections through it, the user unwinder reads user memory
through the same code, and the build's host programs compile the same
files." lib/sframe/Kbuild lib/sframe/internal.h \
	lib/sframe/open.c lib/sframe/find.c

source_patch "lib/sframe: index sections for short lookups" \
"A block index over a section's text, as ORC's lookup table: per block
boundary, how many functions start at or below it, so that a lookup
searches only the functions of one block.  Sections whose functions are
not sorted (relocatable objects, modules) also get their sorted order
(heapsort, in place: no allocation)." \
	lib/sframe/index.c

source_patch "lib/sframe: decode a trusted section into rows" \
"vmlinux's and the modules' sections cannot change once validated: decoded
once into a flat table of row starts and distinct rules with a block
index, a lookup is one block read and a short search over 4-byte keys,
with no decoding and no bounds checks on the section." \
	lib/sframe/rows.c

source_patch "lib/sframe: validate a whole section" \
"A lookup checks only what it reads.  Before the kernel trusts a section
(vmlinux at boot, a module at load), one walk over all of it checks the
rest: the header against the section's size, every function descriptor
and row, their order and their bounds, each problem reported once." \
	lib/sframe/validate.c

source_patch "lib/sframe: locate the fields of a section" \
"Where each field of a function descriptor or row lies in the section,
for host programs that patch sections in place (the hostile-input tests
forge their own).  Never built into the kernel." \
	lib/sframe/field.c

source_patch "scripts/sframe: add the ELF and SFrame code of the host programs" \
"What the build's SFrame programs share: a small ELF reader (sections,
symbols, relocations; plain C and libc, no libelf), the SFrame section of
an ELF file, readelf's format for SFrame, the layout of a written
section, and the decoder of lib/sframe/ compiled for the host (Kbuild
links a host program from the objects below its own directory)." \
	tools/Kbuild tools/sources.mk 'tools/lib/*'

source_patch "scripts/sframe: add sframe-verify, the SFrame verifier" \
"sframe-verify checks vmlinux's and each module's SFrame against the code
at build time: every byte of every code symbol has a row, an annotation
or an exception; the rules agree with ORC on x86_64 (disagreements
classified) and follow the AAPCS64 frame record on arm64; annotations
stay within their function.  It fills the annotation fixup slots with
the ranges that are covered but wrong, so that the unwinder treats them
as unreliable; a kernel with unknown findings does not link.  The
exceptions file lists the known gaps, each with its reason." \
	'tools/verify/*' scripts/sframe-verify-exceptions

source_patch "scripts/sframe: add sframe-gen, SFrame from DWARF CFI" \
"sframe-gen writes SFrame from an object's DWARF CFI, for compilers that
emit none (clang) and for what gas leaves out, and merges the SFrame
sections of vmlinux.o's objects into one sorted section." \
	'tools/gen/*' scripts/sframe-concat.lds

source_patch "scripts/sframe: add sframe-dump" \
"sframe-dump prints an ELF file's SFrame section as readelf --sframe does,
through the kernel's decoder: what the kernel reads, in the form the
binutils tools print." 'tools/dump/*'

source_patch "kernel/unwind: add the SFrame section registry" \
"vmlinux's .sframe is opened, validated and indexed at boot and decoded
into rows off the boot path; each module's is registered by the module
loader after relocation and removed when the module is freed, with its
annotation table.  Readers walk an RCU list and never sleep or take
locks, so unwinders may look up an address from any context." \
	kernel/Kbuild kernel/sections.c

source_patch "kernel/unwind: cache what the unwinder asks of an address" \
"Per text address the unwinder wants its annotation, its rule in the
step's shape and whether a call ends before it: answered once and kept
in a per-CPU cache (kernel stacks repeat the same return addresses),
valid for one generation of the registry, safe in NMI context.  Where
every call has one size (arm64), vmlinux's return sites are listed once
at boot in a hash table, so a walk through vmlinux needs no lookup at
all." kernel/answer.c kernel/ra_table.c

source_patch "kernel/unwind: add the SFrame kernel stack unwinder" \
"The walk behind arch_stack_walk() and arch_stack_walk_reliable(): one
frame step from the SFrame rule of each PC, exception boundaries crossed
through the entry code's annotations, and a walk reliable only when
every frame was described and it ended at the task's final frame.  The
x86_64 and arm64 parts say which stacks a task may use, where a blocked
task starts, how return hooks are undone and what a final frame is." kernel/unwind.c kernel/unwind_arch.h kernel/unwind_x86_64.c \
	kernel/unwind_arm64.c

source_patch "kernel/unwind: add user-space unwinding from SFrame for perf" \
"perf's user call chains from each ELF file's .sframe, read from user
memory as hostile input: the sections of a process are found when its
executable mappings are created (read outside mmap_lock), the decoder
is compiled a second time with an accessor that copies with
copy_from_user_nofault(), and every lookup and sample has a cost bound." kernel/unwind_user.c kernel/core_uaccess.c kernel/core_uaccess.h

source_patch "kernel/unwind: add KUnit tests of the SFrame decoder" \
"The decoder inside the kernel on real sections compiled in as data
(sframe_fixtures.h, generated: sections gas wrote for x86_64 and AArch64,
every version and byte order, with the rule an independent reference
gives at each row): at every PC of every function the rule must be the
reference's.  And on the running kernel's own .sframe: it validates, its
functions start where kallsyms says, and sampled text addresses find
the function kallsyms names." \
	kunit/Kbuild kunit/sframe_kunit.h kunit/sframe_fixtures.h \
	kunit/sframe_core_kunit.c kunit/sframe_vmlinux_kunit.c

source_patch "kernel/unwind: add KUnit tests of module SFrame sections" \
"A KUnit module checks the decoder on its own .sframe, registered by the
module loader after relocation, and, with the unwinder built in, walks a
kthread parked in its own functions before and after another module
changes the module list.  sframe_rules is a module whose SFrame the
loader must refuse for its lookup cost." \
	kunit/sframe_park.h kunit/sframe_module_kunit.c kunit/sframe_rules_mod.c \
	kunit/sframe_rules_mod_asm.S

source_patch "kernel/unwind: add KUnit tests of the SFrame unwinder" \
"Known chains of functions unwound from a parked kthread, from kprobe
handlers at every instruction of a chain (across the exception entry),
and from a timer interrupt that lands in a spinning chain: the traces
must be exact and reliable, and equal ORC's (x86_64) or the frame-record
walk's (arm64) for every task.  Also through kretprobes and the
function-graph tracer, on idle tasks, across text changes (the lookup
cache, static calls), and on corrupted stacks, which must give an error
and nothing worse." \
	kunit/sframe_unwind_kunit.c

source_patch "kernel/unwind: add the SFrame unwinder's test modules" \
"The livepatch consistency test's modules (tasks parked in functions, the
livepatch that replaces them, and a livepatch relocation, good and bad);
the churn module, which walks every task while they run and compares
with the architecture's unwinder; and the demo and benchmark module." 'qemu/modules/*'

# 5. the options, and the hooks that build each part where it is placed
add_sources Kconfig
rewrite <"$orig/Kconfig" >"$up/Kconfig"
hook() {	# hook DIR LINE: LINE added to DIR's Makefile (or Kbuild)
	local mk=$up/$1/Makefile
	[ -f "$mk" ] || mk=$up/$1/Kbuild
	grep -qxF "$2" "$mk" && return
	if grep -q '^# Let clean descend into subdirs' "$mk"; then
		# (scripts/Makefile: with the other subdir- lines)
		L=$2 perl -i -pe 'print "$ENV{L}\n" if /^# Let clean descend into subdirs/ && !$d++' "$mk"
	else
		printf '%s\n' "$2" >>"$mk"
	fi
}
while read -r lhs _ dirs; do
	case $lhs in obj-*) ;; *) continue ;; esac
	for d in $dirs; do
		to=$(place "${d}x")
		to=${to%/x}
		case $to in
		scripts/*) hook scripts "subdir-${lhs#obj-} += ${to##*/}" ;;
		*)	   hook "${to%/*}" "$lhs += ${to##*/}/" ;;
		esac
	done
done <"$ROOT/Kbuild"
cat >"$msg" <<-'EOF'
	Offer the options (kernel/unwind/Kconfig) and build each part where
	it is: the decoder in lib/sframe/, the unwinders and their tests in
	kernel/unwind/, the verifier and sframe-gen with the build's host
	programs in scripts/sframe/ (built before vmlinux links, as the
	verifier checks it then).
EOF
commit "sframe: add the Kconfig options and build the SFrame unwinder" "$msg"

# 6. the mails
rm -rf "$out"
mkdir -p "$out"
git -C "$up" format-patch -q --numbered --no-signature --zero-commit \
	-o "$out" pristine..upstream
n=$(find "$out" -name '[0-9]*.patch' | wc -l)
echo "$tag $n patches in ${out#"$ROOT"/} (history: ${up#"$ROOT"/}, branch upstream)"
