# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# The PASS/FAIL lines of the host scripts (sourced); scripts/summary.sh
# counts them.  qemu/lib.sh is its counterpart inside the test VM.
#
#   pass NAME, fail NAME          one line, prefixed "$CHECK_PREFIX: " when
#                                 CHECK_PREFIX is set
#   check NAME COMMAND...         PASS if COMMAND succeeds; its output is
#                                 hidden, and on FAIL its first lines go
#                                 to stderr
#   check_fails NAME COMMAND...   PASS if COMMAND exits 1: a refusal, not
#                                 a crash
#   expect NAME RC PATTERN COMMAND...
#                                 PASS if COMMAND exits RC and its stdout
#                                 and stderr match the extended regex
#                                 PATTERN ("" matches anything)
#   stage NAME COMMAND...         one stage of a test run (make check,
#                                 scripts/check-variant.sh): a progress
#                                 line "[$STAGE_TAG] NAME ..." before and
#                                 one with its time after, and a PASS or
#                                 FAIL line "${STAGE_PREFIX}stage NAME" in
#                                 $STAGE_FILE for the summary; returns
#                                 COMMAND's success and keeps its time
#                                 in seconds in STAGE_SECS[NAME], its
#                                 exit status in STAGE_RC; with
#                                 STAGE_CUT=1, COMMAND's exit status 124
#                                 (timeout's) is no failure: "cut off",
#                                 and no line in $STAGE_FILE
#   together COMMAND...           run COMMAND in the background, its output
#                                 held until all_done
#   all_done                      wait for every together COMMAND and
#                                 print their output in start order

pass() { echo "PASS: ${CHECK_PREFIX:+$CHECK_PREFIX: }$*"; }
fail() { echo "FAIL: ${CHECK_PREFIX:+$CHECK_PREFIX: }$*"; }

check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		pass "$name"
	else
		fail "$name"
		[ -z "$out" ] || echo "$out" | head -20 >&2
	fi
}

check_fails() {
	local name=$1 rc
	shift
	"$@" >/dev/null 2>&1
	rc=$?
	if [ "$rc" = 1 ]; then pass "$name"; else fail "$name (exit $rc)"; fi
}

expect() {
	local name=$1 want=$2 pat=$3 out rc
	shift 3
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" = "$want" ] && { [ -z "$pat" ] || grep -qE -- "$pat" <<<"$out"; }; then
		pass "$name"
	else
		fail "$name (exit $rc, want $want; pattern '$pat')"
		echo "$out" | head -20 >&2
	fi
}

declare -gA STAGE_SECS
stage() {
	local name=$1 t0 rc=0
	shift
	t0=$(date +%s)
	echo "[$STAGE_TAG] $name ..."
	"$@" || rc=$?
	STAGE_SECS[$name]=$(( $(date +%s) - t0 ))
	# shellcheck disable=SC2034 # read by the callers (check.sh)
	STAGE_RC=$rc
	if [ "$rc" = 0 ]; then
		echo "[$STAGE_TAG] $name: done in ${STAGE_SECS[$name]} s"
		echo "PASS: ${STAGE_PREFIX:-}stage $name" >>"$STAGE_FILE"
	elif [ "$rc" = 124 ] && [ -n "${STAGE_CUT:-}" ]; then
		echo "[$STAGE_TAG] $name: cut off after ${STAGE_SECS[$name]} s"
		return 1
	else
		echo "[$STAGE_TAG] $name: FAILED after ${STAGE_SECS[$name]} s"
		echo "FAIL: ${STAGE_PREFIX:-}stage $name" >>"$STAGE_FILE"
		return 1
	fi
}

held=()
together() {
	local f
	f=$(mktemp)
	"$@" >"$f" 2>&1 &
	held+=("$!:$f")
}

all_done() {
	local h
	for h in "${held[@]}"; do
		wait "${h%%:*}"
		cat "${h#*:}"
		rm -f "${h#*:}"
	done
	held=()
}
