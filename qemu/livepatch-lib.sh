# SPDX-License-Identifier: GPL-2.0-only
#
# Shared by the livepatch scripts of the test VM (sourced; busybox sh).
#   check NAME COMMAND...   one "PASS|FAIL: $CHECK_PREFIX: NAME" line; on
#                           FAIL the command's output, indented
#   wait_for SECONDS COMMAND...   poll every 0.1 s until COMMAND succeeds
#   debugfs_mounted         mount debugfs unless it is

check() {
	name=$1
	shift
	if "$@" >/tmp/klp-check.out 2>&1; then
		echo "PASS: $CHECK_PREFIX: $name"
	else
		echo "FAIL: $CHECK_PREFIX: $name"
		sed 's/^/    /' /tmp/klp-check.out
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
