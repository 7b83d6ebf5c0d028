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

# 4. the sources, one part per patch
add_sources 'lib/sframe/*'
cat >"$msg" <<-'EOF'
	A freestanding, allocation-free decoder of SFrame sections (v1, v2
	with its PC-relative errata, v3; AMD64, AArch64, s390x; either byte
	order): open and bound a section, find the function and row at an
	address, index sections whose functions are not sorted, decode the
	rows into a compact array, and validate a whole section.

	One decoder for every consumer: the kernel reads vmlinux's and the
	modules' sections through it, the user unwinder reads user memory
	through the same code, and the build's host programs (the verifier,
	sframe-gen) compile the same files.  Nothing builds it yet.
EOF
commit "lib/sframe: add the SFrame section decoder" "$msg"

add_sources 'tools/*' scripts/sframe-verify-exceptions scripts/sframe-concat.lds
cat >"$msg" <<-'EOF'
	sframe-verify checks vmlinux's and each module's SFrame against the
	code at build time (coverage, the CFA and return-address rules of
	every function against its instructions, and against ORC on x86_64)
	and fills the annotation fixup slots; a kernel whose unwind data is
	wrong does not link.  sframe-gen writes SFrame from DWARF CFI (for
	compilers that emit none, clang) and merges the objects' sections of
	vmlinux.o.  Both link the decoder of lib/sframe/.  Nothing builds
	them yet.
EOF
commit "scripts/sframe: add the SFrame verifier and generator" "$msg"

add_sources 'kernel/*'
cat >"$msg" <<-'EOF'
	The section registry (vmlinux's and the modules' .sframe and their
	annotation tables, looked up by address without locks), the answer
	cache and the step rules the unwinder asks of it, the kernel stack
	unwinder behind arch_stack_walk() and arch_stack_walk_reliable() with
	its x86_64 and arm64 parts, and the user-space unwinder that perf's
	call chains use, which reads each ELF file's .sframe from user memory
	as hostile input.  Nothing builds them yet.
EOF
commit "kernel/unwind: add the SFrame kernel and user unwinders" "$msg"

add_sources 'kunit/*' 'qemu/modules/*'
cat >"$msg" <<-'EOF'
	KUnit suites of the decoder, of vmlinux's and the modules' sections
	and of the unwinder (reliable walks across exception boundaries,
	cache coherence with text changes); the livepatch consistency test
	modules; the churn module, which walks every task while they run and
	compares with the architecture's unwinder; and the demo module.
	Nothing builds them yet.
EOF
commit "kernel/unwind: add the SFrame unwinder's tests" "$msg"

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
