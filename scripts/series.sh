#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make series [KVER=6.1|6.12]: the kernel patch series of a line as mails
# to send, in build/series-KVER/: scripts/patches/KVER/*.patch with the
# author (From:) and the Signed-off-by: line of whoever runs it (git
# config user.name and user.email), a cover letter, and the same checks
# as make lint (scripts/check-series.sh) on the result; then the
# self-contained form of the series (scripts/series-export.sh) in
# build/series-KVER/upstream/, checked the same way.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
KVER=${KVER:-6.1}
src=$ROOT/scripts/patches/$KVER
[ -d "$src" ] || { echo "KVER=$KVER: no series (scripts/patches/$KVER)" >&2; exit 2; }
name=$(git -C "$ROOT" config user.name || true)
email=$(git -C "$ROOT" config user.email || true)
if [ -z "$name" ] || [ -z "$email" ]; then
	echo "make series: set your identity first (git config user.name, user.email)" >&2
	exit 2
fi
out=$ROOT/build/series-$KVER
rm -rf "$out"
mkdir -p "$out"
n=0
for p in "$src"/[0-9][0-9][0-9][0-9]-*.patch; do
	n=$((n + 1))
	# From: may be folded onto a second line; the sign-off is the
	# stored author's, replaced by the runner's
	awk -v me="$name <$email>" '
	/^From: / && !done { print "From: " me; skip = 1; done = 1; next }
	skip && /^[ \t]/ { next }
	{ skip = 0 }
	/^Signed-off-by: / { print "Signed-off-by: " me; next }
	{ print }' "$p" >"$out/$(basename "$p")"
done
{
	echo "From: $name <$email>"
	echo "Subject: [PATCH 00/$(printf %02d "$n")] SFrame stack unwinding for Linux $KVER"
	echo
	echo "SFrame (.sframe, from as --gsframe) gives, at every instruction, the"
	echo "rule for the CFA, the return address and the frame pointer.  This"
	echo "series builds the kernel with it and uses it for reliable stack traces"
	echo "on x86_64 and arm64 (livepatch on arm64 included) and for perf's user"
	echo "call chains; the core, the unwinder and their tests are in the"
	echo "sframe-unwind/ directory the first patch builds."
	echo
	for p in "$out"/[0-9][0-9][0-9][0-9]-*.patch; do
		case $p in */0000-*) continue ;; esac
		sed -n 's/^Subject: \[PATCH [0-9/]*\] /  /p' "$p"
	done
	echo
	echo "Signed-off-by: $name <$email>"
} >"$out/0000-cover-letter.patch"
echo "[series $KVER] $n patches and a cover letter in ${out#"$ROOT"/}, from and signed off by $name <$email>"
rc=0
checks() {	# checks DIR TAG: scripts/check-series.sh on a series
	local res
	res=$(KVER=$KVER "$ROOT/scripts/check-series.sh" "$1")
	echo "$res" | grep -v '^PASS' || true
	echo "[$2] checks: $(echo "$res" | grep -c '^PASS') passed, $(echo "$res" | grep -c '^FAIL') failed"
	! echo "$res" | grep -q '^FAIL' || rc=1
}
checks "$out" "series $KVER"
# the self-contained form: our sources in the kernel tree
NAME=$name EMAIL=$email KVER=$KVER "$ROOT/scripts/series-export.sh"
checks "$out/upstream" "series $KVER upstream"
exit $rc
