#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Count "PASS:" and "FAIL:" lines in result files; print the final
# "N passed, N failed" line and exit non-zero on any failure. The failures
# (at most 40) are repeated just above that line, so that the tail of a
# long log says what failed.
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
if [ "$fail" -gt 0 ]; then
	echo "failed:"
	for f in "$@"; do
		[ -f "$f" ] && grep -h '^FAIL:' "$f" || true
	done | head -n 40 | sed 's/^/  /'
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
