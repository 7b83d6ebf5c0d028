#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run the KUnit suites built into build/kbuild-ARCH under QEMU via
# tools/testing/kunit/kunit.py exec (qemu/kunit-ARCH.py), print the KTAP
# summary and write PASS/FAIL lines to build/results/kunit-ARCH.txt.
set -euo pipefail

. "$(dirname "$0")/common.sh"
arch_setup "${1:-}"
A=$1
name=$A${VARIANT:+-$VARIANT}
log=$LOGS/kunit-$name.log
json=$LOGS/kunit-$name.json
res=$RESULTS/kunit-$name.txt

[ -f "$OUT/$IMAGE" ] || { echo "[kunit $name] no kernel: build it first"; exit 1; }
echo "[kunit $name] run (log: ${log#"$ROOT"/})"
rc=0
python3 "$KSRC/tools/testing/kunit/kunit.py" exec --build_dir="$OUT" \
	--arch="$KARCH" --qemu_config="$ROOT/qemu/kunit-$A.py" \
	--timeout="${TIMEOUT:-300}" --json="$json" >"$log" 2>&1 || rc=$?

# The KTAP summary: kunit.py's last lines ("Testing complete. ...").
sed -n '/^\[[0-9:]*\] Testing complete/,$p' "$log" | grep -v '^stty:' |
	sed 's/^\[[0-9:]*\] /  /'

# One line per test case, suite.case, from the JSON results.
python3 - "$json" "$name" >"$res" <<'PY' || true
import json, sys
def walk(group, prefix):
	for case in group.get('test_cases', []):
		ok = case['status'] in ('PASS', 'SKIP')
		print(f"{'PASS' if ok else 'FAIL'}: kunit-{sys.argv[2]}: {prefix}{case['name']}"
		      + (' (skipped)' if case['status'] == 'SKIP' else ''))
	for sub in group.get('sub_groups', []):
		walk(sub, prefix + sub['name'] + '.')
try:
	walk(json.load(open(sys.argv[1])), '')
except (OSError, ValueError):
	pass
PY
[ -s "$res" ] || echo "FAIL: kunit-$name: no test results" >"$res"
[ "$rc" = 0 ] || echo "FAIL: kunit-$name: kunit.py exit status $rc" >>"$res"
sed 's/^/  /' "$res" | grep -v '^  PASS' || true
echo "[kunit $name] $(grep -c '^PASS' "$res") passed, $(grep -c '^FAIL' "$res") failed"
! grep -q '^FAIL' "$res"
