#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Every sample of samples/livepatch/ (CONFIG_SAMPLE_LIVEPATCH=m), run in
# the test VM by smoke.sh (busybox sh); one PASS/FAIL line per check:
#   livepatch-sample        /proc/cmdline patched, then restored
#   livepatch-shadow-*      shadow variables: fix1 (leak fix) and fix2
#                           (counter) on livepatch-shadow-mod's functions
#   livepatch-callbacks-*   the callbacks for vmlinux and a module, and
#                           with the busy module a transition that waits
#                           while a kworker sleeps in the patched
#                           busymod_work_func() (reliable walk naming it)

S=/lib/modules/$(uname -r)/kernel/samples/livepatch
L=/sys/kernel/livepatch
DDC=/sys/kernel/debug/dynamic_debug/control

CHECK_PREFIX=livepatch-sample
# shellcheck source=qemu/lib.sh
. /lib.sh

patched() { [ "$(cat $L/$1/transition 2>/dev/null)" = 0 ]; }
gone() { [ ! -e $L/$1 ]; }
logged() { dmesg | grep -q "$1"; }
disable() { echo 0 >$L/$1/enabled && wait_for 30 gone "$1"; }

if [ ! -d $L ] || [ ! -e $S/livepatch-sample.ko ]; then
	echo "livepatch-sample: skipped (no CONFIG_LIVEPATCH or CONFIG_SAMPLE_LIVEPATCH)"
	exit 0
fi
debugfs_mounted
[ -w $DDC ] && echo 'file kernel/livepatch/transition.c +p' >$DDC

# livepatch-sample: cmdline_proc_show() replaced
check "livepatch-sample: insmod" insmod $S/livepatch-sample.ko
check "livepatch-sample: transition completes" wait_for 30 patched livepatch_sample
check "livepatch-sample: patched cmdline_proc_show runs" grep -q 'this has been live patched' /proc/cmdline
check "livepatch-sample: unpatch transition completes" disable livepatch_sample
check "livepatch-sample: original cmdline back" sh -c '! grep -q "this has been live patched" /proc/cmdline'
check "livepatch-sample: rmmod" rmmod livepatch_sample

# shadow variables
dmesg -c >/dev/null
check "shadow: insmod livepatch-shadow-mod" insmod $S/livepatch-shadow-mod.ko
check "shadow: insmod livepatch-shadow-fix1" insmod $S/livepatch-shadow-fix1.ko
check "shadow: fix1 transition completes" wait_for 30 patched livepatch_shadow_fix1
check "shadow: fix1's dummy_alloc runs" wait_for 10 logged 'livepatch_fix1_dummy_alloc: dummy @'
check "shadow: insmod livepatch-shadow-fix2" insmod $S/livepatch-shadow-fix2.ko
check "shadow: fix2 transition completes" wait_for 30 patched livepatch_shadow_fix2
# dummies expire 12 s after allocation; fix2's free reports their counter
check "shadow: fix2 counted dummy_check calls (shadow counter)" \
	wait_for 25 logged 'livepatch_fix2_dummy_free: dummy @ .*check counter = [1-9]'
check "shadow: disable fix2" disable livepatch_shadow_fix2
check "shadow: disable fix1" disable livepatch_shadow_fix1
check "shadow: rmmod all" sh -c 'rmmod livepatch_shadow_fix2 && rmmod livepatch_shadow_fix1 && rmmod livepatch_shadow_mod'

# callbacks, for vmlinux and a loaded module
dmesg -c >/dev/null
check "callbacks: insmod livepatch-callbacks-mod" insmod $S/livepatch-callbacks-mod.ko
check "callbacks: insmod livepatch-callbacks-demo" insmod $S/livepatch-callbacks-demo.ko
check "callbacks: transition completes" wait_for 30 patched livepatch_callbacks_demo
check "callbacks: pre- and post-patch callbacks ran" sh -c '
	dmesg | grep -q "pre_patch_callback: vmlinux" &&
	dmesg | grep -q "post_patch_callback: vmlinux" &&
	dmesg | grep -q "pre_patch_callback: livepatch_callbacks_mod -> \[MODULE_STATE_LIVE\]" &&
	dmesg | grep -q "post_patch_callback: livepatch_callbacks_mod -> \[MODULE_STATE_LIVE\]"'
check "callbacks: unpatch transition completes" disable livepatch_callbacks_demo
check "callbacks: pre- and post-unpatch callbacks ran" sh -c '
	dmesg | grep -q "pre_unpatch_callback: vmlinux" &&
	dmesg | grep -q "post_unpatch_callback: livepatch_callbacks_mod -> \[MODULE_STATE_LIVE\]"'
check "callbacks: rmmod" sh -c 'rmmod livepatch_callbacks_demo && rmmod livepatch_callbacks_mod'

# the busy module: a kworker sleeps 8 s inside busymod_work_func(), which
# livepatch-callbacks-demo replaces; the transition must wait for it
dmesg -c >/dev/null
check "callbacks-busymod: insmod (work sleeps 8 s)" insmod $S/livepatch-callbacks-busymod.ko sleep_secs=8
check "callbacks-busymod: work sleeping" wait_for 5 logged 'busymod_work_func, sleeping 8 seconds'
check "callbacks-busymod: insmod livepatch-callbacks-demo" insmod $S/livepatch-callbacks-demo.ko
check "callbacks-busymod: transition waits for the sleeping kworker" \
	wait_for 5 logged 'is sleeping on function busymod_work_func'
check "callbacks-busymod: still in transition" sh -c "[ \"\$(cat $L/livepatch_callbacks_demo/transition)\" = 1 ]"
check "callbacks-busymod: completes after the work left" sh -c "
	i=0
	while [ \"\$(cat $L/livepatch_callbacks_demo/transition)\" != 0 ]; do
		i=\$((i + 1)); [ \$i -le 300 ] || exit 1; sleep 0.1
	done
	dmesg | grep -q 'busymod_work_func exit'"
check "callbacks-busymod: unpatch transition completes" disable livepatch_callbacks_demo
check "callbacks-busymod: rmmod" sh -c 'rmmod livepatch_callbacks_demo && rmmod livepatch_callbacks_busymod'
[ -w $DDC ] && echo 'file kernel/livepatch/transition.c -p' >$DDC
exit 0
