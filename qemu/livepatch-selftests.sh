#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The kernel's livepatch selftests inside the test VM (busybox sh, called
# by qemu/smoke.sh): tools/testing/selftests/livepatch/test-*.sh of the
# source tree, unmodified, in /selftests/livepatch/ (scripts/initramfs.sh).
# They need CONFIG_LIVEPATCH=y, CONFIG_DYNAMIC_DEBUG=y and the
# CONFIG_TEST_LIVEPATCH=m modules (test_klp_*.ko in /lib/modules), and
# real tools where busybox lacks options they use: bash, kmod's modprobe
# and modinfo, coreutils' comm, mktemp, stat and timeout, diff, procps'
# sysctl and util-linux's dmesg, which the initramfs puts in /usr/bin
# (first in PATH here only: the smoke checks keep busybox's applets).
#
# Each script runs as root from its directory with a timeout
# (KLP_SELFTEST_TIMEOUT seconds, default 300; as an option on the kernel
# command line it reaches /init's environment).  Its output follows,
# prefixed with "livepatch-selftest: test-xxx.sh: ", then one line:
#   PASS: livepatch-selftest: test-xxx.sh
#   FAIL: livepatch-selftest: test-xxx.sh (first "not ok" or ERROR line)
#   SKIP: livepatch-selftest: test-xxx.sh (reason)	[exit status 4]
# After a failure the livepatches and test modules left behind are
# removed, so that the next script starts clean.

dir=/selftests/livepatch
# the scripts check that modules could be built (6.12: has_kdir); ours
# are prebuilt beside them
KDIR=$dir
export KDIR
tmo=${KLP_SELFTEST_TIMEOUT:-300}
out=/tmp/livepatch-selftest.out
PATH=/usr/bin:/usr/sbin:/bin:/sbin
export PATH

grep -q ' /sys/kernel/debug debugfs ' /proc/mounts ||
	mount -t debugfs none /sys/kernel/debug
# bash's process substitution (diff of a failed check) uses /dev/fd
[ -e /dev/fd ] || [ -L /dev/fd ] || ln -s /proc/self/fd /dev/fd
[ -e /sys/kernel/debug/dynamic_debug/control ] ||
	echo "livepatch-selftest: no dynamic_debug/control (CONFIG_DYNAMIC_DEBUG=y): the checks of the debug messages will fail"

# now: whole seconds since boot
now() {
	read -r up _ </proc/uptime
	echo "${up%%.*}"
}

# klp_reset: disable the livepatches left, remove the test modules (the
# blocking test_klp_callbacks_busy first lets a transition finish) and
# turn ftrace back on.  Gives up after about 30 s.
klp_reset() {
	i=0
	while [ $i -lt 150 ]; do
		for en in /sys/kernel/livepatch/*/enabled; do
			[ -e "$en" ] || continue
			[ "$(cat "$en")" = 0 ] || echo 0 >"$en" 2>/dev/null
		done
		mods=$(sed -n 's/^\(test_klp_[a-z0-9_]*\) .*/\1/p' /proc/modules)
		[ -n "$mods" ] || break
		for m in $mods; do
			rmmod "$m" 2>/dev/null
		done
		i=$((i + 1))
		sleep 0.2
	done
	[ -e /proc/sys/kernel/ftrace_enabled ] &&
		echo 1 >/proc/sys/kernel/ftrace_enabled 2>/dev/null
	mods=$(sed -n 's/^\(test_klp_[a-z0-9_]*\) .*/\1/p' /proc/modules | tr '\n' ' ')
	[ -z "$mods" ] ||
		echo "livepatch-selftest: could not remove $mods"
}

# sframe_klp_selftest=test-x.sh (kernel command line): only that script,
# sframe_klp_repeat=N times (to chase a failure that comes and goes)
one=$(sed -n 's/.*sframe_klp_selftest=\([^ ]*\).*/\1/p' /proc/cmdline)
rep=$(sed -n 's/.*sframe_klp_repeat=\([0-9]*\).*/\1/p' /proc/cmdline)
scripts=
for t in "$dir"/test-*.sh; do
	[ -z "$one" ] || [ "${t##*/}" = "$one" ] || continue
	i=0
	while [ $i -lt "${rep:-1}" ]; do
		scripts="$scripts $t"
		i=$((i + 1))
	done
done
for t in $scripts; do
	[ -e "$t" ] || continue
	name=${t##*/}
	start=$(now)
	# (in a shell of its own: its report of a killed script goes to $out)
	sh -c 'cd "$1" && timeout -k 10 "$2" "./$3"; exit $?' - \
		"$dir" "$tmo" "$name" >$out 2>&1 </dev/null
	rc=$?
	secs=$(($(now) - start))
	sed "s|^|livepatch-selftest: $name: |" $out
	echo "livepatch-selftest: $name: exit status $rc after $secs s"
	case $rc in
	0)	echo "PASS: livepatch-selftest: $name"
		continue ;;
	4)	why=$(sed -n 's/.*SKIP: //p; s/.*skip all tests: //p' $out | head -n 1)
		echo "SKIP: livepatch-selftest: $name (${why:-exit status 4})" ;;
	124|137) why=$(grep '^TEST: ' $out | tail -n 1 | sed 's/ \.\.\. .*//')
		echo "FAIL: livepatch-selftest: $name (timed out after $tmo s${why:+ in $why})" ;;
	*)	# the first "not ok" or ERROR line, with its test's name
		why=$(awk '/^TEST: / { t = $0; sub(/ \.\.\. .*/, " ... ", t) }
			   /not ok|ERROR: / { if ($0 !~ /^TEST: /) $0 = t $0
					      print; exit }' $out)
		echo "FAIL: livepatch-selftest: $name (${why:-exit status $rc})" ;;
	esac
	klp_reset
done
