#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make check: every test of the project, in order, continuing past
# failures, then one "N passed, N failed" line over all result files:
#   host tests, lint (next to the first line's builds), then for each
#   kernel line (6.1 and 6.12, or KVER):
#   kernel builds (x86_64, arm64), the verifier, KUnit and QEMU boot tests
#   on both arches (the next line's kernels build, at the lowest priority,
#   next to a line's guests); each result file is counted with its line.
#   The host tests run next to the kernel harness's installation.  DEEP=1
#   adds a kernel with KASAN and lockdep together (DEEP_KASAN, default
#   6.12-arm64; KUnit and boot tests again; an x86_64 one has SFrame
#   generated from CFI, as make check-gen), a 6.1 x86_64 KCSAN kernel
#   (churn, tracers, user tests) and FUZZ_SECONDS (300) of fuzzing.  The
#   clang kernels are make check-clang (they do not fit CI's 90 minutes
#   next to the debug kernels).  Guests that run on one TCG thread (6.12)
#   take one core each: both arches' run together, and the fuzzer runs
#   next to the KASAN guest.  CHECK_BUDGET=S (.ci/run sets CI's) runs
#   each DEEP stage only if it is expected to end well within S seconds
#   of the start; one that would not is skipped, saying so and which make
#   target runs it.  No guest runs past S.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
R=build/results
# the kernel lines: KVER=6.1|6.12 (make check KVER=...) for one, else both
case ${KVER:-all} in
all)	KVERS="6.1 6.12" ;;
*)	KVERS=$KVER ;;
esac
case ${CHECK_BUDGET:-0} in
*[!0-9]*) echo "CHECK_BUDGET=$CHECK_BUDGET: a number of seconds" >&2; exit 2 ;;
esac
mkdir -p "$R" build/logs
rm -f "$R"/*.txt build/*/results/*.txt
start=$(date +%s)
# CHECK_BUDGET: no guest runs past it (CHECK_DEADLINE, scripts/common.sh's
# deadline_cap): a run that hangs or is slow ends with its results, not
# cut off by CI with none
if [ -n "${CHECK_BUDGET:-}" ]; then
	CHECK_BUDGET=$(( 10#$CHECK_BUDGET ))
	export CHECK_DEADLINE=$(( start + CHECK_BUDGET ))
fi
# shellcheck source=scripts/testlib.sh
. scripts/testlib.sh
STAGE_TAG=check
STAGE_FILE=$R/stages.txt

host_tests() {
	make --no-print-directory -s check-host >build/logs/check-host.log 2>&1
	local rc=$?
	echo "[check-host] $(tail -n 1 build/logs/check-host.log) (log: build/logs/check-host.log)"
	grep '^FAIL' "$R/host.txt" 2>/dev/null | head -20 | sed 's/^/  /'
	return $rc
}

# line_builds KVER: a kernel line's builds and their checks, both arches
line_builds() {
	local kv=$1 arch
	export KVER=$kv
	[ "$kv" = 6.1 ] || stage "kernel-prepare-$kv" scripts/prepare-kernel.sh ||
		return
	for arch in x86_64 arm64; do
		{ [ "$kv-$arch" = 6.1-x86_64 ] ||
		  stage "kernel-$kv-$arch" scripts/build-kernel.sh $arch; } &&
		stage "vmlinux-sframe-$kv-$arch" scripts/check-vmlinux-sframe.sh $arch &&
		stage "sframe-verify-$kv-$arch" scripts/verify-kernel.sh $arch
	done
	unset KVER
}

# line_guests KVER: a kernel line's KUnit and boot tests, both arches
line_guests() {
	local kv=$1 arch
	export KVER=$kv
	# guests on one TCG thread (6.12) use one core each: both arches'
	# run together
	if one_core_guests "$kv"; then
		echo "[$STAGE_TAG] kunit, qemu-test $kv: x86_64 and arm64 together ..."
		for arch in x86_64 arm64; do
			together vm_tests "$kv" $arch
		done
		all_done
	else
		for arch in x86_64 arm64; do
			vm_tests "$kv" $arch
		done
	fi
	unset KVER
}

# lowest COMMAND...: COMMAND at the lowest CPU priority
lowest() {
	renice -n 19 -p "$BASHPID" >/dev/null
	"$@"
}

# one_core_guests KVER: the line's guests run on one TCG thread
# (tcg_thread in common.sh), so each takes one core
one_core_guests() {
	[ "$(KVER=$1 bash -c '. scripts/common.sh && tcg_thread')" = single ]
}

# vm_tests KVER ARCH: KUnit and the boot tests (under DEEP=1 the long
# churn runs on the KASAN and KCSAN kernels)
vm_tests() {
	stage "kunit-$1-$2" scripts/kunit.sh "$2"
	stage "qemu-test-$1-$2" scripts/qemu-test.sh "$2"
}

# The host tests run on one core, the kernel harness's packages mostly
# wait on the network and dpkg: together, once the host's packages are in
# (both install with apt-get, which takes dpkg's lock).
stage deps-host scripts/deps-host.sh
echo "[$STAGE_TAG] check-host, kernel-deps: together ..."
together stage check-host host_tests
together stage kernel-deps scripts/deps.sh
all_done
# lint reads the 6.1 x86_64 build (sparse) and both lines' trees (the
# series' checkpatch): both are prepared here, before lint runs in the
# background, so that no line's tree is extracted twice at once
stage kernel-prepare-6.1 env KVER=6.1 scripts/prepare-kernel.sh
stage kernel-prepare-6.12 env KVER=6.12 scripts/prepare-kernel.sh
stage kernel-6.1-x86_64 env KVER=6.1 scripts/build-kernel.sh x86_64
# lint runs on about one core (checkpatch, kernel-doc and shellcheck file
# by file): next to the first line's other builds, at the lowest priority
# (they are the longer path); its output comes when they are done
together lowest stage lint scripts/lint.sh
# A line's guests leave a third of the CPU idle (they wait on timers,
# transitions, the hung-task detector); the next line's kernels are built
# meanwhile, at the lowest priority, so that the guests still get the CPU
# they ask for.  Its stages' output comes when the guests are done.
prev=
for kv in $KVERS; do
	if [ -z "$prev" ]; then
		line_builds "$kv"
		all_done
	else
		echo "[$STAGE_TAG] $kv kernels at the lowest priority, next to the $prev guests ..."
		builds_out=$(mktemp)
		( lowest line_builds "$kv" ) >"$builds_out" 2>&1 &
		builds_pid=$!
		line_guests "$prev"
		wait "$builds_pid"
		cat "$builds_out"
		# each build's time, for the DEEP stages' estimates
		while read -r name secs; do
			STAGE_SECS[$name]=$secs
		done < <(sed -n "s/^\[$STAGE_TAG\] \(kernel-[^ ]*\): done in \([0-9]*\) s$/\1 \2/p" \
			"$builds_out")
		rm -f "$builds_out"
	fi
	prev=$kv
done
line_guests "$prev"
# DEEP=1 (what CI runs): the same tests on a KASAN + lockdep kernel
# (DEEP_KASAN; x86_64's with SFrame generated from CFI: make check-gen's
# stages), a KCSAN kernel, longer fuzzing.
# DEEP_KASAN: the kernel lines and arches of the KASAN runs.  CI's 90
# minutes hold both lines' tests and one KASAN kernel: 6.12 arm64, the
# line and arch with the most new code under the unwinder (livepatch on
# arm64 6.12).  The others are make check-kasan KVER=... ARCH=... (6.1's
# both ran in CI until 6.12 joined).
DEEP_KASAN=${DEEP_KASAN:-6.12-arm64}
# kasan_tests LINE-ARCH: KUnit and the boot tests on its KASAN kernel,
# but the parts that test time or only a tool's code: the benchmarks and
# the cost of forged sections (a time under KASAN says nothing), Debian's
# perf (its samples take the kernel path of the user tests' sampler and
# bpftrace's ustack, which stay; perf record and report of four builds
# take minutes).  The plain kernels run them all, the KCSAN kernel the
# cost test: with them the KASAN guest does not fit its timeout.  The
# kernel's livepatch selftests (about 200 s) stay.
kasan_tests() {
	local kv=${1%-*} arch=${1#*-}
	stage "kunit-$1-kasan" env KVER="$kv" VARIANT=kasan scripts/kunit.sh "$arch"
	stage "qemu-test-$1-kasan" env KVER="$kv" VARIANT=kasan \
		QEMU_APPEND=sframe_skip=klp-bench,bench,costly,perf \
		scripts/qemu-test.sh "$arch"
}
fuzz() {
	stage "fuzz-${FUZZ_SECONDS:-300}s" make --no-print-directory -s fuzz \
		FUZZ_SECONDS="${FUZZ_SECONDS:-300}"
}

# CHECK_BUDGET: the DEEP stages run in the order KASAN (the fuzzer
# alongside), fuzzing, KCSAN, each only if what it is expected to take
# ends PLAN_MARGIN seconds before the budget does (the expected times are
# typical ones, not the worst).  With a warm ccache CI's run holds them
# all, in about 70 minutes; with an empty one the kernel builds take 50
# minutes more, and a run that kept every stage would be cut off at 90
# minutes with no result at all.  A debug kernel's build is expected to
# take what this run's build of the same line and arch took (KASAN's 1.3
# times: it instruments every object), plus 30 s for its configuration,
# which tells a cold ccache from a warm one; their tests take about what
# they take on CI's machine (6.12 arm64 KASAN: KUnit 102 s, boot tests
# 1,144 s with the fuzzer alongside; KCSAN: 316 s).
PLAN_MARGIN=300
KASAN_TEST_SECS=1300
KCSAN_TEST_SECS=400
FUZZ_EXTRA_SECS=60

# fits NAME SECONDS TARGET: whether a DEEP stage expected to take SECONDS
# fits in what is left of CHECK_BUDGET (always, without one); if not,
# say so, with the make TARGET that runs it, and list it as skipped
# above the final count
fits() {
	local left
	[ -n "${CHECK_BUDGET:-}" ] || return 0
	left=$(( CHECK_BUDGET - PLAN_MARGIN - ($(date +%s) - start) ))
	[ "$2" -gt "$left" ] || return 0
	[ "$left" -gt 0 ] || left=0
	echo "[$STAGE_TAG] $1: skipped: needs about $2 s, $left s left of CHECK_BUDGET=$CHECK_BUDGET (run it: $3)"
	echo "SKIP: stage $1 (about $2 s, $left s left of CHECK_BUDGET=$CHECK_BUDGET; run it: $3)" >>"$STAGE_FILE"
	return 1
}

# build_secs LINE-ARCH PERCENT: a debug kernel's expected build time,
# PERCENT of this run's build of LINE-ARCH: its CPU time over the cores
# (build-kernel.sh's .build-time; a line built next to guests at the lowest
# priority took longer than its work), else its stage's time; 20 minutes
# without either
build_secs() {
	local kv=${1%-*} arch=${1#*-} f s
	f=build/kbuild-$arch/.build-time
	[ "$kv" = 6.1 ] || f=build/$kv/kbuild-$arch/.build-time
	s=$(awk -v n="$(nproc)" '/ s wall, / { split($4, c, "+"); printf "%d", (c[1] + c[2]) / n }' \
		"$f" 2>/dev/null)
	[ -n "$s" ] || s=${STAGE_SECS[kernel-$1]:-}
	if [ -n "$s" ]; then echo $(( s * $2 / 100 + 30 )); else echo 1200; fi
}

# debug_build NAME TESTSECS TARGET COMMAND...: a debug kernel's build
# stage, cut off where TESTSECS seconds of its tests would no longer fit
# in CHECK_BUDGET (its estimate comes from the plain build, whose objects
# may have been in ccache where the debug kernel's are not); cut off, it
# is listed as skipped, with the make TARGET that runs it
debug_build() {
	local name=$1 tests=$2 target=$3 left
	shift 3
	[ -n "${CHECK_BUDGET:-}" ] || { stage "$name" "$@"; return; }
	left=$(( CHECK_BUDGET - PLAN_MARGIN - ($(date +%s) - start) - tests ))
	[ "$left" -gt 0 ] || left=1
	STAGE_CUT=1 stage "$name" timeout -k 10 "$left" "$@" && return 0
	[ "$STAGE_RC" = 124 ] || return 1
	echo "[$STAGE_TAG] $name: skipped: not built within the $left s its tests leave of CHECK_BUDGET=$CHECK_BUDGET (run it: $target)"
	echo "SKIP: stage $name (not built within $left s of CHECK_BUDGET=$CHECK_BUDGET; run it: $target)" >>"$STAGE_FILE"
	return 1
}

if [ -n "${DEEP:-}" ]; then
	# (tests of KASAN kernels already built are still to run)
	kasan_pending=0
	for la in $DEEP_KASAN; do
		kv=${la%-*} arch=${la#*-}
		fits "kasan-$la" \
			$(( $(build_secs "$la" 130) + kasan_pending + KASAN_TEST_SECS )) \
			"make check-kasan KVER=$kv ARCH=$arch" || continue
		if debug_build "kernel-$la-kasan" \
			$(( kasan_pending + KASAN_TEST_SECS )) \
			"make check-kasan KVER=$kv ARCH=$arch" \
			env KVER=$kv VARIANT=kasan scripts/build-kernel.sh $arch; then
			stage "sframe-verify-$la-kasan" env KVER=$kv VARIANT=kasan scripts/verify-kernel.sh $arch
			kasan_ok+=" $la"
			kasan_pending=$(( kasan_pending + KASAN_TEST_SECS ))
		fi
	done
	# The fuzzer takes one core: it runs next to a KASAN guest on one TCG
	# thread (6.12), the others run after each other.
	for la in ${kasan_ok:-}; do
		# (a build that took longer than expected leaves less)
		fits "kasan-tests-$la" "$KASAN_TEST_SECS" \
			"make check-kasan KVER=${la%-*} ARCH=${la#*-}" || continue
		if one_core_guests "${la%-*}" && [ -z "${fuzzing:-}" ]; then
			echo "[$STAGE_TAG] kunit, qemu-test $la-kasan, fuzz: together ..."
			together kasan_tests "$la"
			together fuzz
			fuzzing=1
			all_done
		else
			kasan_tests "$la"
		fi
	done
	[ -n "${fuzzing:-}" ] ||
		{ fits "fuzz-${FUZZ_SECONDS:-300}s" \
			$(( ${FUZZ_SECONDS:-300} + FUZZ_EXTRA_SECS )) \
			"make fuzz FUZZ_SECONDS=${FUZZ_SECONDS:-300}" &&
		  fuzz; }
	# KCSAN (x86_64): churn, the tracers and the user tests, with data
	# races in our code reported (qemu/smoke.sh).
	if fits kcsan-6.1-x86_64 \
		$(( $(build_secs 6.1-x86_64 100) + KCSAN_TEST_SECS )) \
		"make check-kcsan KVER=6.1" &&
	   debug_build "kernel-6.1-x86_64-kcsan" "$KCSAN_TEST_SECS" \
		"make check-kcsan KVER=6.1" \
		env KVER=6.1 VARIANT=kcsan scripts/build-kernel.sh x86_64; then
		# (it runs about 270 s: a hang must not take CI's budget)
		stage "qemu-test-6.1-x86_64-kcsan" env KVER=6.1 VARIANT=kcsan \
			TIMEOUT=900 \
			QEMU_APPEND=sframe_only=churn,tracers,user,costly,hostile-mt \
			scripts/qemu-test.sh x86_64
	fi
fi
echo "[check] all stages done in $(( $(date +%s) - start )) s"
# shellcheck disable=SC2046 # result files: no blanks in their names
scripts/summary.sh "$R"/*.txt $(for kv in $KVERS; do
	[ "$kv" = 6.1 ] || ls build/"$kv"/results/*.txt 2>/dev/null
done)
