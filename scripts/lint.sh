#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# checkpatch --strict, sparse (C=2, x86_64 build) and kernel-doc over our
# sources, shellcheck over our scripts, docutils over Documentation/, and
# the patch series of both lines (scripts/check-series.sh).
# One summary line per tool; PASS/FAIL lines (one per file for
# checkpatch and kernel-doc) in build/results/lint.txt, details in
# build/logs/lint-*.log.
set -euo pipefail

. "$(dirname "$0")/common.sh"
arch_setup x86_64
res=$RESULTS/lint.txt
: >"$res"
cd "$ROOT"
# (test fixtures are compiler input shaped for their stack frames: skipped)
mapfile -t srcs < <(find include lib kernel kunit qemu/modules tools -name '*.[ch]' \
	-not -path '*/fixtures/*' 2>/dev/null | sort)
mapfile -t ksrcs < <(find include lib kernel kunit qemu/modules -name '*.[ch]' 2>/dev/null | sort)

# Types checkpatch should ignore for FILE (scripts/checkpatch-exceptions).
cp_ignores() {
	local prefix types
	while read -r prefix types _; do
		case $prefix in ''|'#'*) continue ;; esac
		case $1 in "$prefix"*) printf '%s,' "$types" ;; esac
	done <"$ROOT/scripts/checkpatch-exceptions"
}

# per_file TOOL LOG COMMAND... : run COMMAND FILE for each file in $files;
# a file passes when the command succeeds and prints nothing.
per_file() {
	local tool=$1 log=$LOGS/lint-$1.log f fails=0 ign
	shift
	: >"$log"
	for f in "${files[@]}"; do
		ign=
		[ "$tool" != checkpatch ] || ign=$(cp_ignores "$f")
		if out=$("$@" ${ign:+--ignore "$ign"} "$f" 2>&1) && [ -z "$out" ]; then
			pass "lint: $tool $f" >>"$res"
		else
			fail "lint: $tool $f" >>"$res"
			printf '== %s\n%s\n' "$f" "$out" >>"$log"
			fails=$((fails + 1))
		fi
	done
	echo "[lint] $tool: ${#files[@]} files, $fails failed (log: ${log#"$ROOT"/})"
}

files=("${srcs[@]}")
per_file checkpatch "$KSRC/scripts/checkpatch.pl" --strict --no-tree --root="$KSRC" --quiet \
	--no-summary --show-types -f

files=("${ksrcs[@]}")
per_file kernel-doc "$KSRC/scripts/kernel-doc" -none

# Shell scripts, through shellcheck (warnings and errors): the host ones
# as bash, following what they source; the VM's as POSIX sh (busybox).
mapfile -t files < <(ls scripts/*.sh tools/testing/*.sh .ci/run)
per_file shellcheck shellcheck -x -S warning
mapfile -t files < <(ls qemu/*.sh)
per_file shellcheck-vm shellcheck -x -S warning -s sh

# The documentation parses as reStructuredText without a warning.
mapfile -t files < <(ls Documentation/*.rst)
per_file rst "$ROOT/scripts/rst-check.py"

# sparse: C=2 checks every object of the directory, built or not.
log=$LOGS/lint-sparse.log
if [ ! -f "$OUT/.config" ]; then
	fail "lint: sparse (no x86_64 build: make kernel first)" >>"$res"
	echo "[lint] sparse: no x86_64 build"
elif ! "${KMAKE[@]}" C=2 sframe-unwind/ >"$log" 2>&1; then
	fail "lint: sparse (build failed)" >>"$res"
	echo "[lint] sparse: build failed (log: ${log#"$ROOT"/})"
else
	n=$(grep -cE 'sframe-unwind/[^ ]*: (warning|error):' "$log" || true)
	[ "$n" = 0 ] && pass "lint: sparse" >>"$res" ||
		fail "lint: sparse ($n warnings)" >>"$res"
	echo "[lint] sparse: $n warnings (log: ${log#"$ROOT"/})"
fi

# The patch series of both lines: numbered mails with a subsystem prefix,
# a why and a sign-off, checkpatch --strict clean, applying with git am
# and patch -p1 --fuzz=0 alike.
for kv in 6.1 6.12; do
	# (checkpatch from the line's own tree, prepared if need be)
	KVER=$kv "$ROOT/scripts/prepare-kernel.sh" >/dev/null
	KVER=$kv "$ROOT/scripts/check-series.sh" >"$LOGS/lint-series-$kv.log" 2>&1
	cat "$LOGS/lint-series-$kv.log" >>"$res"
	echo "[lint] series $kv: $(grep -c '^PASS' "$LOGS/lint-series-$kv.log") passed, $(grep -c '^FAIL' "$LOGS/lint-series-$kv.log") failed (log: ${LOGS#"$ROOT"/}/lint-series-$kv.log)"
done

grep '^FAIL' "$res" | sed 's/^/  /' || true
! grep -q '^FAIL' "$res"
