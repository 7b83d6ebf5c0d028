#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The kernel patch series of line KVER (scripts/patches/$KVER) as a
# reviewer receives it: numbered 0001..N without gaps, each a mail with
# From:, a subject "[PATCH k/N] ...", a body and a Signed-off-by line, and
# subject with its subsystem prefix ("x86/entry:", "KVM: arm64:"), no
# longer than 75 characters, a body and a Signed-off-by line; each patch
# is checkpatch --strict clean (but the types scripts/patches/
# checkpatch-exceptions ignores for it, with their reasons); and the
# series applies with `git am` to the pristine sources and gives the
# same files as `patch -p1 --fuzz=0` (what scripts/prepare-kernel.sh
# uses), every hunk at the line its header gives.  One PASS or FAIL
# line per check, tagged with the line.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
KVER=${KVER:-6.1}
TARBALL=/usr/src/linux-source-$KVER.tar.xz
# (or the series in the directory given, such as make series' output;
# a cover letter, 0000-*, is not a patch)
dir=$(cd "${1:-$ROOT/scripts/patches/$KVER}" && pwd)
patches=()
for p in "$dir"/[0-9][0-9][0-9][0-9]-*.patch; do
	case $p in */0000-*) ;; *) patches+=("$p") ;; esac
done
n=${#patches[@]}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=scripts/testlib.sh
. "$ROOT/scripts/testlib.sh"
CHECK_PREFIX="series $KVER"

# mail_ok K FILE: the mail headers and sign-off of patch K of N
mail_ok() {
	local k=$1 f=$2
	[ "$(basename "$f" | cut -c1-4)" = "$(printf %04d "$k")" ] &&
	# (a long From: is folded onto a second line)
	sed -n '/^From: /{N;p;q}' "$f" | tr -d '\n' | grep -q '^From: .*<.*@.*>' &&
	grep -qE "^Subject: \[PATCH 0*$k/$n\] [A-Za-z0-9_./-]+: " "$f" &&
	[ "$(sed -n 's/^Subject: \[PATCH [0-9/]*\] //p' "$f" | wc -c)" -le 76 ] &&
	grep -qE '^Signed-off-by: .+ <.+@.+>$' "$f" &&
	[ "$(sed -n '/^$/,/^---$/p' "$f" | grep -cv '^\(---\)\?$')" -ge 2 ]
}

for k in $(seq 1 "$n"); do
	check "$(basename "${patches[k - 1]}"): numbered, subject, why, sign-off" \
		mail_ok "$k" "${patches[k - 1]}"
done

# checkpatch --strict, from the tree of the line (prepare-kernel.sh), run
# outside any git tree, as a reviewer without the series applied would.
case $KVER in
6.1)	tree=$ROOT/build/linux ;;
*)	tree=$ROOT/build/$KVER/linux ;;
esac
CHECKPATCH=${CHECKPATCH:-$tree/scripts/checkpatch.pl}
ignores() {	# the types scripts/patches/checkpatch-exceptions lists for $1
	local glob types
	while read -r glob types _; do
		case $glob in ''|\#*) continue ;; esac
		# shellcheck disable=SC2254
		case $(basename "$1") in $glob) printf '%s,' "$types" ;; esac
	done <"$ROOT/scripts/patches/checkpatch-exceptions"
}
checkpatch_clean() {
	local ign out
	ign=$(ignores "$1")
	out=$(cd "$tmp" && perl "$CHECKPATCH" --strict --no-tree --quiet \
		--root="$(dirname "$(dirname "$CHECKPATCH")")" \
		${ign:+--ignore "$ign"} "$1" 2>&1)
	[ -z "$out" ] || { echo "$out" | sed 's/^/    /'; return 1; }
}
if [ -f "$CHECKPATCH" ]; then
	for p in "${patches[@]}"; do
		check "$(basename "$p"): checkpatch --strict" checkpatch_clean "$p"
	done
else
	fail "checkpatch: no $CHECKPATCH (make kernel-prepare KVER=$KVER)"
fi

# The pristine files the series touches, from Debian's linux-source-$KVER.
files=$(grep -h '^+++ b/' "${patches[@]}" | sed 's|^+++ b/||; s/\t.*//' | sort -u)
mkdir -p "$tmp/src"
# shellcheck disable=SC2046 # one argument per file, no blanks in them
tar -xJf "$TARBALL" -C "$tmp/src" --strip-components=1 \
	$(for f in $files; do echo "linux-source-$KVER/$f"; done) 2>/dev/null

apply_git_am() {
	cp -r "$tmp/src" "$tmp/am" &&
	cd "$tmp/am" &&
	git init -q && git add -f -A &&
	git -c user.name=check -c user.email=check@localhost commit -qm base &&
	git -c user.name=check -c user.email=check@localhost am -q "${patches[@]}"
}
# patch -p1 as prepare-kernel.sh applies the series; each hunk that
# applies at another line than its header gives (the pristine sources
# moved under the series, as when Debian updates linux-source-$KVER) is
# listed in $tmp/offsets with its patch
apply_patch() {
	local p out
	: >"$tmp/offsets"
	cp -r "$tmp/src" "$tmp/p1" &&
	for p in "${patches[@]}"; do
		out=$(patch -d "$tmp/p1" -p1 -f --fuzz=0 --no-backup-if-mismatch <"$p") ||
			{ echo "$out"; return 1; }
		awk -v p="$(basename "$p")" '/^patching file / { f = $3 }
			/^Hunk #[0-9]+ succeeded at .*offset/ { sub(/\.$/, ""); print p ": " f ": " $0 }' \
			<<<"$out" >>"$tmp/offsets"
	done
}
no_offset() {
	[ ! -s "$tmp/offsets" ] && return
	cat "$tmp/offsets"
	echo "(refresh the series against linux-source-$KVER: git am it onto the pristine files, then git format-patch --zero-commit --abbrev=9 --no-signature with *.[ch] diff=cpp)"
	return 1
}
same_result() { diff -r -q --exclude=.git "$tmp/am" "$tmp/p1"; }

check "git am applies all $n patches" apply_git_am
check "patch -p1 applies all $n patches" apply_patch
check "every hunk applies at the line its header gives" no_offset
check "git am and patch -p1 give the same tree" same_result
