# SPDX-License-Identifier: GPL-2.0-only
#
# Shared by the scripts of the test VM (sourced; busybox sh): smoke.sh and
# the livepatch scripts.  scripts/testlib.sh is its counterpart on the host.
#   check NAME COMMAND...   one "PASS|FAIL: NAME" line, prefixed
#                           "$CHECK_PREFIX: " when CHECK_PREFIX is set; on
#                           FAIL the command's output, indented
#   wait_for SECONDS COMMAND...   poll every 0.1 s until COMMAND succeeds
#   debugfs_mounted         mount debugfs unless it is

check() {
	name=${CHECK_PREFIX:+$CHECK_PREFIX: }$1
	shift
	if "$@" >/tmp/check.out 2>&1; then
		echo "PASS: $name"
	else
		echo "FAIL: $name"
		sed 's/^/    /' /tmp/check.out
	fi
}

wait_for() {
	n=$(($1 * 10))
	shift
	while ! "$@" >/dev/null 2>&1; do
		n=$((n - 1))
		[ $n -gt 0 ] || return 1
		sleep 0.1
	done
}

debugfs_mounted() {
	grep -q " /sys/kernel/debug " /proc/mounts ||
		mount -t debugfs debugfs /sys/kernel/debug
}
