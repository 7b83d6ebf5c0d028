#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Smoke checks run by /init inside the test VM (busybox sh).
# One line per check: "PASS: name" or "FAIL: name".

check() {
	name=$1
	shift
	if "$@" >/tmp/check.out 2>&1; then
		echo "PASS: $name"
	else
		echo "FAIL: $name"
		sed 's/^/    /' /tmp/check.out
	fi
}

echo "PASS: kernel booted"
check "kallsyms has __start_sframe" grep -q ' __start_sframe$' /proc/kallsyms
# The SFrame core validated and indexed vmlinux's .sframe at boot.
check "vmlinux .sframe valid" sh -c 'dmesg | grep -E "sframe: vmlinux: SFrame v[0-9]+, [0-9]+ FDEs.*: valid"'

for ko in /lib/modules-test/*.ko; do
	[ -e "$ko" ] || continue
	mod=$(basename "$ko" .ko)
	check "insmod $mod" insmod "$ko"
	check "rmmod $mod" rmmod "$mod"
	check "$mod: module .sframe not rejected" sh -c "! dmesg | grep -q '$mod: .sframe[a-z_]* rejected'"
done

# Livepatch end to end (x86_64): the kernel's sample patch loads, the
# transition completes (every task passed a reliable stack check, which our
# unwinder provides), the patched function runs, and the patch is removed.
klp_wait() {
	i=0
	while [ "$(cat /sys/kernel/livepatch/livepatch_sample/transition 2>/dev/null)" != 0 ]; do
		i=$((i + 1))
		[ $i -le 300 ] || return 1
		sleep 0.1
	done
}
if [ -e /lib/livepatch/livepatch-sample.ko ]; then
	check "livepatch: insmod livepatch-sample" insmod /lib/livepatch/livepatch-sample.ko
	check "livepatch: transition completes" klp_wait
	check "livepatch: patched cmdline_proc_show runs" grep -q 'this has been live patched' /proc/cmdline
	check "livepatch: disable" sh -c 'echo 0 > /sys/kernel/livepatch/livepatch_sample/enabled'
	check "livepatch: unpatch transition completes" sh -c 'i=0; while [ -e /sys/kernel/livepatch/livepatch_sample ]; do i=$((i+1)); [ $i -le 300 ] || exit 1; sleep 0.1; done'
	check "livepatch: original cmdline back" sh -c '! grep -q "this has been live patched" /proc/cmdline'
	check "livepatch: rmmod livepatch-sample" rmmod livepatch_sample
fi

# The unwinder on a live kernel (make run shows these lines): reliable
# traces of a blocked kthread and across a timer interrupt, next to the
# architecture's own unwinder, then the benchmark (ratios, not checked).
demo=/lib/modules-test/sframe_unwind_demo.ko
if [ -e $demo ]; then
	check "demo: insmod sframe_unwind_demo show=1" insmod $demo show=1
	check "demo: blocked task: reliable, same trace as the reference" \
		sh -c 'dmesg | grep -q "sframe_unwind_demo: blocked task .*: SFrame reliable .*: same trace"'
	check "demo: timer interrupt: reliable" \
		sh -c 'dmesg | grep -q "sframe_unwind_demo: timer interrupt .*: SFrame reliable"'
	rmmod sframe_unwind_demo
	check "demo: insmod sframe_unwind_demo bench=1" insmod $demo bench=1
	dmesg | grep 'sframe_unwind_demo: bench:' | sed 's/^\[[ 0-9.]*\] /BENCH: /'
	rmmod sframe_unwind_demo
fi

# ---- user-space unwinding for perf: defined here, not called yet ----------
# perf_callchain_user() with SFrame (qemu/user/README.md). /usr/test/ holds
# the sampler built four ways; each run forks its workload, samples it with
# perf_event_open() (user callchains) and checks every callchain against the
# workload's known call chain. One PASS/FAIL line per build, with the
# sampler's numbers; on FAIL its output (the first failing samples).
#   chain-sframe-static, chain-sframe-dyn: SFrame; >= 95% complete, 0 wrong
#   chain-fp: frame pointers, no SFrame; >= 95% complete, 0 wrong, leaving
#     out the samples at frame-pointer blind spots (-f: prologues and
#     epilogues, where a frame-pointer walk skips the caller)
#   chain-nosframe: neither; numbers only. The frame-pointer fallback over
#     code without frame pointers skips frames (wrong chains) by design.
# USER_UNWIND_SAMPLES: samples per build (default 1000).
user_unwind_tests() {
	uu_n=${USER_UNWIND_SAMPLES:-1000}
	for uu_case in "chain-sframe-static|-e|>= 95% complete, 0 wrong" \
		       "chain-sframe-dyn|-e|>= 95% complete, 0 wrong" \
		       "chain-fp|-e -f|>= 95% complete outside fp blind spots, 0 wrong" \
		       "chain-nosframe||numbers only"; do
		uu_bin=${uu_case%%|*}
		uu_rest=${uu_case#*|}
		uu_opts=${uu_rest%%|*}
		uu_what=${uu_rest#*|}
		# shellcheck disable=SC2086 # uu_opts: several options
		if /usr/test/"$uu_bin" -n "$uu_n" -T 90 $uu_opts >/tmp/user-unwind.out 2>&1; then
			uu_v=PASS
		else
			uu_v=FAIL
		fi
		uu_sum=$(sed -n "s/^sampler: $uu_bin: \([0-9]* samples.*\)/\1/p" /tmp/user-unwind.out)
		echo "$uu_v: user unwind: $uu_bin: $uu_what (${uu_sum:-no result})"
		[ "$uu_v" = PASS ] || sed 's/^/    /' /tmp/user-unwind.out
	done
}

# Anything that looks like a kernel splat fails the run.
check "dmesg clean" sh -c '! dmesg | grep -E "Oops|BUG:|WARNING:|KASAN|Call Trace"'
