#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The kernel patch series of line KVER (scripts/patches/$KVER) as a
# reviewer receives it: numbered 0001..N without gaps, each a mail with
# From:, a subject "[PATCH k/N] ...", a body and a Signed-off-by line, and
# the series applies with `git am` to the pristine sources and gives the
# same files as `patch -p1 --fuzz=0` (what scripts/prepare-kernel.sh
# uses).  One PASS or FAIL line per check, tagged with the line.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
KVER=${KVER:-6.1}
TARBALL=/usr/src/linux-source-$KVER.tar.xz
mapfile -t patches < <(ls "$ROOT"/scripts/patches/"$KVER"/[0-9][0-9][0-9][0-9]-*.patch)
n=${#patches[@]}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() {
	local name=$1
	shift
	if "$@"; then echo "PASS: series $KVER: $name"; else echo "FAIL: series $KVER: $name"; fi
}

# mail_ok K FILE: the mail headers and sign-off of patch K of N
mail_ok() {
	local k=$1 f=$2
	[ "$(basename "$f" | cut -c1-4)" = "$(printf %04d "$k")" ] &&
	grep -q '^From: .*<.*@.*>' "$f" &&
	grep -qE "^Subject: \[PATCH 0*$k/$n\] [a-z0-9-]+: " "$f" &&
	grep -qE '^Signed-off-by: .+ <.+@.+>$' "$f" &&
	[ "$(sed -n '/^$/,/^---$/p' "$f" | grep -cv '^\(---\)\?$')" -ge 2 ]
}

for k in $(seq 1 "$n"); do
	check "$(basename "${patches[k - 1]}"): numbered, subject, why, sign-off" \
		mail_ok "$k" "${patches[k - 1]}"
done

# The pristine files the series touches, from Debian's linux-source-$KVER.
files=$(grep -h '^+++ b/' "${patches[@]}" | sed 's|^+++ b/||; s/\t.*//' | sort -u)
mkdir -p "$tmp/src"
tar -xJf "$TARBALL" -C "$tmp/src" --strip-components=1 \
	$(for f in $files; do echo "linux-source-$KVER/$f"; done) 2>/dev/null

apply_git_am() {
	cp -r "$tmp/src" "$tmp/am" &&
	cd "$tmp/am" &&
	git init -q && git add -f -A &&
	git -c user.name=check -c user.email=check@localhost commit -qm base &&
	git -c user.name=check -c user.email=check@localhost am -q "${patches[@]}"
}
apply_patch() {
	local p
	cp -r "$tmp/src" "$tmp/p1" &&
	for p in "${patches[@]}"; do
		patch -d "$tmp/p1" -p1 -s -f --fuzz=0 <"$p" >/dev/null || return 1
	done
}
same_result() { diff -r -q --exclude=.git "$tmp/am" "$tmp/p1" >/dev/null; }

check "git am applies all $n patches" apply_git_am
check "patch -p1 applies all $n patches" apply_patch
check "git am and patch -p1 give the same tree" same_result
