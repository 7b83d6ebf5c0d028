#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make series-bisect KVER=... ARCH=...: build every patch of the
# self-contained series (scripts/series-export.sh, make series) on the
# test configuration of ARCH, one after the other in one build directory
# (build/KVER-area/kbuild-ARCH-bisect; ccache makes each step the
# incremental build of what the patch changed).  The configuration is
# made again at every step, as options appear with the patches.  One
# PASS or FAIL line per patch, tagged with the line and arch, also in
# build/results/series-bisect-ARCH.txt (KVER's results).
# SERIES_FROM=N starts at patch N, SERIES_TO=M stops after patch M (each
# step is still one patch on the tree of the one before).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/common.sh
. "$ROOT/scripts/common.sh"
export VARIANT=bisect
arch_setup "${1:-}"
A=$1
up=$ROOT/build/export-$KVER/upstream
[ -d "$up/.git" ] || [ -f "$up/.git" ] ||
	{ echo "[bisect $KVER] no exported series: make series KVER=$KVER" >&2; exit 2; }
CHECK_PREFIX="series-bisect $KVER $A"
mapfile -t commits < <(git -C "$up" rev-list --reverse pristine..upstream)
n=${#commits[@]}
res=$RESULTS/series-bisect-$A.txt
k=0
for c in "${commits[@]}"; do
	k=$((k + 1))
	[ "$k" -ge "${SERIES_FROM:-1}" ] || continue
	[ "$k" -le "${SERIES_TO:-$n}" ] || break
	git -C "$up" checkout -q "$c" || { fail "checkout $c"; continue; }
	subj=$(git -C "$up" log -1 --format=%s "$c")
	# a new configuration every step: the fragments ask for options
	# that the later patches add
	rm -f "$OUT/.fragments.sha256"
	check "$(printf '%02d/%02d' "$k" "$n") $subj: builds" \
		env KDIR="$up" "$ROOT/scripts/build-kernel.sh" "$A"
done | tee "$res"
git -C "$up" checkout -q upstream
echo "[series-bisect $KVER $A] $(grep -c '^PASS' "$res") passed, $(grep -c '^FAIL' "$res") failed"
! grep -q '^FAIL' "$res"
