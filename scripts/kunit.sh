#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run our KUnit suites on the kernel in build/kbuild-ARCH under QEMU:
# built-in suites through tools/testing/kunit/kunit.py exec
# (qemu/kunit-ARCH.py); test modules (modules.order) by booting the smoke
# initramfs, which insmods them, and feeding the console to kunit.py parse.
# Prints the KTAP summary, writes one PASS/FAIL line per test case to
# build/results/kunit-ARCH.txt and exits non-zero on failure.
set -euo pipefail

. "$(dirname "$0")/common.sh"
arch_setup "${1:-}"
A=$1
name=$A${VARIANT:+-$VARIANT}
res=$RESULTS/kunit-$name.txt
kunit_py=$KSRC/tools/testing/kunit/kunit.py
: >"$res"

[ -f "$OUT/$IMAGE" ] || { echo "[kunit $name] no kernel: build it first"; exit 1; }

# report WHAT LOG JSON RC: kunit.py's summary, result lines from the JSON
report() {
	sed -n '/^\[[0-9:]*\] Testing complete/,$p' "$2" | grep -v '^stty:' |
		sed 's/^\[[0-9:]*\] /  /'
	python3 - "$3" "kunit-$name" >>"$res" <<-'PY' || true
	import json, sys
	def walk(group, prefix):
	    for i, case in enumerate(group.get('test_cases', []), 1):
	        ok = case['status'] in ('PASS', 'SKIP')
	        skip = ' (skipped)' if case['status'] == 'SKIP' else ''
	        # no result line: kunit.py knows the case only by its number
	        name = case['name'] or f"case {i} (no result: the kernel stopped or timed out)"
	        print(f"{'PASS' if ok else 'FAIL'}: {sys.argv[2]}: {prefix}{name}{skip}")
	    for sub in group.get('sub_groups', []):
	        walk(sub, prefix + sub['name'] + '.')
	try:
	    walk(json.load(open(sys.argv[1])), '')
	except (OSError, ValueError):
	    pass
	PY
	[ "$4" = 0 ] || echo "FAIL: kunit-$name: $1 (kunit.py exit status $4)" >>"$res"
}

# console_tail CONSOLE: when a run stopped short, what the kernel printed
# after its last test result (an oops, a hung task, an RCU stall), so that
# a CI log says where it stopped.
console_tail() {
	local last
	last=$(grep -nE '(not )?ok [0-9]+ ' "$1" | tail -n 1 | cut -d: -f1)
	echo "  the console after the last result (${1#"$ROOT"/}, line ${last:-0}):"
	tail -n +"$(( ${last:-0} + 1 ))" "$1" | grep -v '^stty:' | tail -n 40 |
		sed 's/^/  | /'
}

# ktap_only: the lines of a console that belong to KTAP (version and
# plan lines, results, "#" diagnostics), with their timestamps
ktap_only() {
	grep -E '^(\[ *[0-9.]+\] )? *(KTAP version|TAP version|#|ok [0-9]|not ok [0-9]|[0-9]+\.\.[0-9]+$)'
}

log=$LOGS/kunit-$name.log
echo "[kunit $name] built-in suites (log: ${log#"$ROOT"/})"
rc=0
# The console as it came, then only its KTAP lines for the parser: a
# kernel message printed in the middle of a suite's header (an input
# device probed asynchronously, say) makes kunit.py misnumber the tests.
# The timeout is longer than KUnit's own per-case 300 s: a case that hangs
# is reported by name ("timed out") and the cases after it still run.
python3 "$kunit_py" exec --build_dir="$OUT" --arch="$KARCH" \
	--qemu_config="$ROOT/qemu/kunit-$A.py" --timeout="${TIMEOUT:-420}" \
	--raw_output=all >"$log.console" 2>&1 || rc=$?
ktap_only <"$log.console" >"$log.ktap"
python3 "$kunit_py" parse --json="$log.json" "$log.ktap" >"$log" 2>&1 || rc=$?
report built-in "$log" "$log.json" "$rc"
[ "$rc" = 0 ] || console_tail "$log.console"

if grep -q '^sframe-unwind/' "$OUT/modules.order" 2>/dev/null; then
	# No built-in suite at boot (the glob names the module's suite,
	# which 6.1 applies to built-in suites only and 6.12 to all), then the
	# smoke script loads the modules, whose suites run at insmod.
	mlog=$LOGS/kunit-$name-modules.log
	echo "[kunit $name] module suites (log: ${mlog#"$ROOT"/})"
	"$ROOT/scripts/initramfs.sh" "$A" >/dev/null
	qemu_cmd "$A" "$KB/initramfs-$name.cpio.gz" \
		"panic=-1 kunit.filter_glob=sframe_module"
	timeout -k 5 "${TIMEOUT:-300}" "${QEMU[@]}" </dev/null 2>&1 |
		tr -d '\r' >"$mlog.console" || true
	# The boot printed an empty run ("1..0"): drop it.  6.12 announces
	# the module's suite itself ("KTAP version 1", "1..1" at insmod);
	# on 6.1 the top-level header comes from here.
	n=$(grep -cE '^(\[ *[0-9.]+\] )?(not )?ok [0-9]+ ' "$mlog.console" || true)
	if [ "$(grep -cE '^(\[ *[0-9.]+\] )?KTAP version' "$mlog.console")" -gt 1 ]; then
		awk '{ l = $0; sub(/^\[ *[0-9.]+\] /, "", l) }
		     l == "KTAP version 1" && !seen { held = $0; seen = 1; next }
		     held != "" { if (l != "1..0") print held; held = "" }
		     l == "1..0" { next }
		     { print }' "$mlog.console" | ktap_only >"$mlog.ktap"
	else
		sed -E "s/^(\[ *[0-9.]+\] )?1\.\.0$/\11..$n/" "$mlog.console" |
			ktap_only >"$mlog.ktap"
	fi
	rc=0
	python3 "$kunit_py" parse --json="$mlog.json" "$mlog.ktap" >"$mlog" 2>&1 || rc=$?
	report modules "$mlog" "$mlog.json" "$rc"
	[ "$rc" = 0 ] || console_tail "$mlog.console"
fi

[ -s "$res" ] || echo "FAIL: kunit-$name: no test results" >"$res"
grep '^FAIL' "$res" | sed 's/^/  /' || true
echo "[kunit $name] $(grep -c '^PASS' "$res") passed, $(grep -c '^FAIL' "$res") failed"
! grep -q '^FAIL' "$res"
