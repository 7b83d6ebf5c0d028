#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Count "PASS:" and "FAIL:" lines in result files; print the final
# "N passed, N failed" line and exit non-zero on any failure. The failures
# (at most 40) are repeated just above that line, so that the tail of a
# long log says what failed, each tagged with its kernel line, and so are
# the counts per line (results of a line other than 6.1 live in
# build/KVER/results/; host tests and lint are counted with 6.1).  Stages
# make check skipped for its time budget ("SKIP: stage" lines) are listed
# above the counts: neither passed nor failed, but not silent (a test's
# own SKIP lines stay in its result file).
set -euo pipefail
pass=0
fail=0
declare -A lp lf

# (make check passes paths relative to the tree: build/6.12/results/...)
kver_of() {
	case /$1 in
	*/build/6.12/*)	echo 6.12 ;;
	*)		echo 6.1 ;;
	esac
}

for f in "$@"; do
	kv=$(kver_of "$f")
	[ -f "$f" ] || { echo "FAIL: missing result file $f"; fail=$((fail + 1)); continue; }
	p=$(grep -c '^PASS:' "$f" || true)
	q=$(grep -c '^FAIL:' "$f" || true)
	pass=$((pass + p))
	fail=$((fail + q))
	lp[$kv]=$(( ${lp[$kv]:-0} + p ))
	lf[$kv]=$(( ${lf[$kv]:-0} + q ))
done
if [ "$fail" -gt 0 ]; then
	echo "failed:"
	for f in "$@"; do
		kv=$(kver_of "$f")
		[ -f "$f" ] && grep -h '^FAIL:' "$f" | sed "s/^/[$kv] /" || true
	done | head -n 40 | sed 's/^/  /'
fi
skipped=$(for f in "$@"; do [ ! -f "$f" ] || grep -h '^SKIP: stage ' "$f" || true; done)
if [ -n "$skipped" ]; then
	echo "skipped:"
	sed 's/^SKIP: /  /' <<<"$skipped"
fi
if [ "${#lp[@]}" -gt 1 ]; then
	for kv in $(printf '%s\n' "${!lp[@]}" | sort -V); do
		echo "Linux $kv: ${lp[$kv]} passed, ${lf[$kv]} failed"
	done
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
