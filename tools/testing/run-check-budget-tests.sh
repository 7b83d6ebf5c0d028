#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make check's time budget (scripts/check.sh, CHECK_BUDGET): which DEEP
# stages run, which are skipped and how that is reported, and the cap on
# guests' timeouts.  check.sh, testlib.sh, summary.sh and common.sh run as
# they are, in a scratch tree whose stage scripts and make targets only
# record their call (the KASAN kernel's build moves date +%s on by
# STUB_KASAN seconds, as if it had taken them), so a budget of a few hundred seconds stands for CI's 90 minutes: the
# expected times (KASAN's tests 1,300 s, KCSAN's 400 s, the fuzzer's
# 300 + 60 s, 300 s of margin, 30 s per build) are check.sh's own.
# One PASS/FAIL line per check, as run-host-tests.sh, which runs it.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=scripts/testlib.sh
. scripts/testlib.sh

t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/scripts"
cp scripts/check.sh scripts/testlib.sh scripts/summary.sh scripts/common.sh \
	"$t/scripts/"
for s in prepare-kernel deps deps-host check-vmlinux-sframe verify-kernel lint; do
	printf '#!/bin/bash\necho "%s $*" >>build/calls\n' "$s" >"$t/scripts/$s.sh"
done
# (STUB_CPU=S: a build's .build-time says it took S s of CPU)
cat >"$t/scripts/build-kernel.sh" <<'EOF'
#!/bin/bash
echo "build ${VARIANT:-plain} $KVER $*" >>build/calls
d=build; [ "$KVER" = 6.1 ] || d=build/$KVER
d=$d/kbuild-$1${VARIANT:+-$VARIANT}
[ -z "${STUB_CPU:-}" ] ||
	{ mkdir -p "$d" && echo "1.00 s wall, $STUB_CPU.00+0.00 s CPU" >"$d/.build-time"; }
[ "${VARIANT:-}" != kasan ] || echo "${STUB_KASAN:-0}" >build/clock
[ "${VARIANT:-}" != kasan ] || sleep "${STUB_KASAN_SLEEP:-0}"
[ "${STUB_FAIL:-}" != "$KVER-$1${VARIANT:+-$VARIANT}" ]
EOF
# the guests: one result line, and the timeout qemu-test.sh would use
cat >"$t/scripts/kunit.sh" <<'EOF'
#!/bin/bash
d=build; [ "$KVER" = 6.1 ] || d=build/$KVER
mkdir -p "$d/results"
echo "PASS: kunit $*" >>"$d/results/kunit-$1${VARIANT:+-$VARIANT}.txt"
echo "kunit ${VARIANT:-plain} $KVER $*" >>build/calls
EOF
cat >"$t/scripts/qemu-test.sh" <<'EOF'
#!/bin/bash
. scripts/common.sh
d=build; [ "$KVER" = 6.1 ] || d=build/$KVER
mkdir -p "$d/results"
echo "PASS: qemu $*" >>"$d/results/qemu-$1${VARIANT:+-$VARIANT}.txt"
echo "qemu ${VARIANT:-plain} $KVER $* timeout $(deadline_cap "${TIMEOUT:-1800}")" >>build/calls
EOF
# date +%s: the run's start (STUB_T0), moved on only by build/clock
# seconds, so that a loaded machine, on which the stubs take seconds,
# does not shift what fits
mkdir -p "$t/bin"
cat >"$t/bin/date" <<'EOF'
#!/bin/bash
[ "$*" = +%s ] || exec /bin/date "$@"
echo $(( STUB_T0 + $(cat build/clock 2>/dev/null || echo 0) ))
EOF
chmod +x "$t"/scripts/*.sh "$t/bin/date"
printf '%s\n' 'check-host:' \
	'	@mkdir -p build/results; echo "PASS: host" >build/results/host.txt; echo "1 passed, 0 failed"' \
	'fuzz:' '	@echo "fuzz $(FUZZ_SECONDS)" >>build/calls' >"$t/Makefile"

# run NAME ENV...: make check DEEP=1 in the scratch tree, its output in
# $t/NAME.out, its calls in $t/NAME.calls, its exit status in $t/NAME.rc
run() {
	local name=$1
	shift
	rm -rf "$t/build"
	mkdir -p "$t/build"
	(cd "$t" && env PATH="$t/bin:$PATH" STUB_T0="$(date +%s)" DEEP=1 "$@" \
		scripts/check.sh) >"$t/$name.out" 2>&1
	echo $? >"$t/$name.rc"
	cp "$t/build/calls" "$t/$name.calls" 2>/dev/null || : >"$t/$name.calls"
}
# has NAME FILE REGEX: REGEX matches a line of NAME's FILE (out, calls, rc)
has() { grep -qE -- "$3" "$t/$1.$2"; }
# verdict TEST NAME CONDITION...: PASS if every CONDITION (a has or
# ! has command, as a string) holds; else the tail of NAME's output
verdict() {
	local test=$1 name=$2 c
	shift 2
	for c in "$@"; do
		eval "$c" && continue
		fail "$test ($c)"
		tail -n 20 "$t/$name.out" | sed 's/^/  /' >&2
		return
	done
	pass "$test"
}

run none
verdict "check budget: without CHECK_BUDGET every DEEP stage runs" none \
	"has none calls '^build kasan 6.12 arm64'" "has none calls '^fuzz 300'" \
	"has none calls '^qemu kcsan 6.1 x86_64 timeout 900$'" \
	"! has none out '^skipped:'" "has none rc '^0$'" \
	"has none out '^[0-9]+ passed, 0 failed$'"

# the next line's kernels are built next to this one's guests, before
# its own guests
first() { grep -nE -m1 -- "$2" "$t/$1.calls" | cut -d: -f1; }
last() { grep -nE -- "$2" "$t/$1.calls" | tail -n 1 | cut -d: -f1; }
verdict "check budget: 6.12's kernels built next to 6.1's guests, before 6.12's" none \
	"has none out '^\[check\] 6.12 kernels at the lowest priority, next to the 6.1 guests'" \
	"[ \"\$(last none '^build plain 6.12')\" -lt \"\$(first none '^kunit plain 6.12')\" ]" \
	"[ \"\$(last none '^build plain 6.1 arm64')\" -lt \"\$(first none '^kunit plain 6.1')\" ]"

# a debug kernel's build is expected to take its plain build's CPU time
# over the cores, times 1.3 for KASAN, plus 30 s
run cpu CHECK_BUDGET=3000 STUB_CPU=2400
need=$(( 2400 / $(nproc) * 130 / 100 + 30 + 1300 ))
if [ "$need" -gt 2700 ]; then
	verdict "check budget: a build's CPU time sets a debug build's estimate" cpu \
		"has cpu out '^\[check\] kasan-6.12-arm64: skipped: needs about $need s'"
else
	verdict "check budget: a build's CPU time sets a debug build's estimate" cpu \
		"has cpu calls '^build kasan 6.12 arm64'"
fi

run warm CHECK_BUDGET=100000
verdict "check budget: every DEEP stage runs when all fit" warm \
	"has warm calls '^qemu kasan 6.12 arm64'" "has warm calls '^fuzz 300'" \
	"has warm calls '^qemu kcsan 6.1 x86_64'" "! has warm out 'skipped'"

run kasan CHECK_BUDGET=1300
verdict "check budget: KASAN skipped when it does not fit, fuzzing and KCSAN run" kasan \
	"! has kasan calls 'kasan'" "has kasan calls '^fuzz 300'" \
	"has kasan calls '^qemu kcsan 6.1 x86_64'" \
	"has kasan out '^\[check\] kasan-6.12-arm64: skipped: needs about 13[0-9][0-9] s'" \
	"has kasan out '^  stage kasan-6.12-arm64 .*run it: make check-kasan KVER=6.12 ARCH=arm64\)$'" \
	"has kasan rc '^0$'" "has kasan out '^[0-9]+ passed, 0 failed$'"

run tiny CHECK_BUDGET=5
verdict "check budget: nothing DEEP fits in 5 s; guests capped at a minute" tiny \
	"! has tiny calls 'kasan|kcsan|fuzz'" \
	"has tiny calls '^qemu plain 6.12 arm64 timeout 60$'" \
	"has tiny out '^  stage fuzz-300s .*make fuzz FUZZ_SECONDS=300\)$'" \
	"has tiny out '^  stage kcsan-6.1-x86_64 '" \
	"has tiny rc '^0$'" "has tiny out '^[0-9]+ passed, 0 failed$'"

# 1,300 s of tests + 300 s margin fit after the expected 30 s KASAN
# build, but not after a 45 s one
run slow CHECK_BUDGET=1640 STUB_KASAN=45
verdict "check budget: KASAN tests rechecked after a build slower than expected" slow \
	"has slow calls '^build kasan 6.12 arm64'" "! has slow calls '^kunit kasan'" \
	"has slow out '^\[check\] kasan-tests-6.12-arm64: skipped'"

# a debug build (its objects not in ccache) that runs into the time its
# tests need is cut off (at about 35 s here), and listed as skipped
run cutoff CHECK_BUDGET=1640 STUB_KASAN_SLEEP=90
verdict "check budget: a debug build cut off where its tests would not fit" cutoff \
	"has cutoff out '^\[check\] kernel-6.12-arm64-kasan: skipped: not built within the [0-9]+ s its tests leave'" \
	"has cutoff out '^  stage kernel-6.12-arm64-kasan \(not built within .*run it: make check-kasan KVER=6.12 ARCH=arm64\)$'" \
	"! has cutoff out 'FAIL'" "! has cutoff calls '^kunit kasan'" \
	"has cutoff rc '^0$'" "has cutoff out '^[0-9]+ passed, 0 failed$'"

run octal CHECK_BUDGET=0700
verdict "check budget: 0700 is 700 seconds, not octal" octal \
	"has octal out 'left of CHECK_BUDGET=700 '" "has octal calls '^fuzz 300'"

run bad CHECK_BUDGET=9x
verdict "check budget: a budget that is not a number is refused" bad \
	"has bad rc '^2$'" "has bad out 'CHECK_BUDGET=9x: a number of seconds'"

run failed CHECK_BUDGET=5 STUB_FAIL=6.1-arm64
verdict "check budget: skipped stages do not hide a failure" failed \
	"has failed out '^  \[6.1\] FAIL: stage kernel-6.1-arm64$'" \
	"has failed out '^[0-9]+ passed, 1 failed$'" "! has failed rc '^0$'"
exit 0
