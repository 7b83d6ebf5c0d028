#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Count "PASS:" and "FAIL:" lines in result files; print the final
# "N passed, N failed" line and exit non-zero on any failure.
set -euo pipefail
pass=0
fail=0
for f in "$@"; do
	[ -f "$f" ] || { echo "FAIL: missing result file $f"; fail=$((fail + 1)); continue; }
	p=$(grep -c '^PASS:' "$f" || true)
	q=$(grep -c '^FAIL:' "$f" || true)
	pass=$((pass + p))
	fail=$((fail + q))
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
