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

# Booted by scripts/kunit.sh for the module suites: only load the modules.
kunit_only=
grep -q 'kunit.filter_glob' /proc/cmdline && kunit_only=1
# Booted by scripts/tour.sh (make run): only the short tour, no module
# sweep, samples or selftests, shorter benchmarks.
tour=
grep -qw sframe_tour /proc/cmdline && tour=1
# sframe_only=a,b (QEMU_APPEND of scripts/qemu-test.sh): only these parts
# (modules, livepatch, selftests, klp-bench, demo, user, hostile-mt: the
# concurrent hostile run only, plus those the parts below name), for
# working on one of them.
only=$(sed -n 's/.*sframe_only=\([^ ]*\).*/\1/p' /proc/cmdline)
want() {
	[ -z "$only" ] && return 0
	case ",$only," in *",$1,"*) return 0 ;; esac
	return 1
}

echo "PASS: kernel booted"
check "kallsyms has __start_sframe" grep -q ' __start_sframe$' /proc/kallsyms
# The SFrame core validated and indexed vmlinux's .sframe at boot.
check "vmlinux .sframe valid" sh -c 'dmesg | grep -E "sframe: vmlinux: SFrame v[0-9]+, [0-9]+ FDEs.*: valid"'

# Every in-tree module of the build (multi-object ones included: ext2,
# isofs, zram) loads with its SFrame registered (a rejected table is
# logged as "NAME: .sframe rejected: ..."); the test modules below walk
# through them.  Our own modules, the livepatch sample and the livepatch
# selftests' modules (test_klp_*: livepatches among them) come later.
if [ -z "$tour" ] && want modules; then
	rel=$(uname -r)
	intree=
	if [ -f /lib/modules/$rel/modules.order ]; then
		intree=$(sed -n 's|^\(.*/\)\{0,1\}\([^/]*\)\.k\{0,1\}o$|\2|p' \
			/lib/modules/$rel/modules.order |
			grep -v '^sframe_\|^livepatch[-_]\|^test_klp_' | tr - _)
	fi
	nmod=0
	bad=
	for mod in $intree; do
		nmod=$((nmod + 1))
		# a driver without its hardware loads, then fails its init: ENODEV
		modprobe "$mod" >/tmp/modprobe.out 2>&1 ||
			grep -q 'No such device' /tmp/modprobe.out || bad="$bad $mod"
	done
	check "modprobe: $nmod in-tree modules load" sh -c "[ -z '$bad' ] || { echo 'failed:$bad'; exit 1; }"
	check "modprobe: no module .sframe rejected" sh -c "! dmesg | grep '.sframe[a-z_]* rejected'"

	for ko in /lib/modules-test/*.ko; do
		[ -e "$ko" ] || continue
		mod=$(basename "$ko" .ko)
		# the livepatch consistency test's pair runs below, in order
		case $mod in sframe_klp_*) continue ;; esac
		check "insmod $mod" insmod "$ko"
		check "rmmod $mod" rmmod "$mod"
		check "$mod: module .sframe not rejected" sh -c "! dmesg | grep -q '$mod: .sframe[a-z_]* rejected'"
	done
fi

# Livepatch, both arches (arm64 through scripts/patches/0012-0015): every
# sample of samples/livepatch; the consistency test (tasks parked inside
# patched functions hold the transition, their reliable traces name them);
# then the kernel's selftests, and the transition benchmark last.
if [ -z "$kunit_only" ] && want livepatch; then
	[ -n "$tour" ] || /livepatch-samples.sh
	/livepatch-consistency.sh
fi

# The kernel's own livepatch selftests (tools/testing/selftests/livepatch,
# in the initramfs with CONFIG_LIVEPATCH=y and CONFIG_TEST_LIVEPATCH=m): one
# PASS, FAIL or SKIP line per script (qemu/livepatch-selftests.sh).
if [ -z "$kunit_only" ] && [ -z "$tour" ] && want selftests; then
	if [ ! -d /sys/kernel/livepatch ]; then
		echo "SKIP: livepatch-selftest: all (no /sys/kernel/livepatch: CONFIG_LIVEPATCH is not set)"
	elif [ ! -d /selftests/livepatch ]; then
		echo "SKIP: livepatch-selftest: all (not in the initramfs: the kernel has no CONFIG_TEST_LIVEPATCH=m modules)"
	else
		/livepatch-selftests.sh
	fi
fi

# Livepatch transitions under load (printed, not judged).
# (2 rounds for make run and under KASAN, 5 otherwise)
klpb_rounds=5
{ [ -n "$tour" ] || grep -q ' kasan_report$' /proc/kallsyms; } && klpb_rounds=2
# (its lines printed once it is done: no kernel message cuts into them)
if [ -z "$kunit_only" ] && want klp-bench; then
	/livepatch-bench.sh $klpb_rounds >/tmp/klpb.out 2>&1
	sed 's/^livepatch-bench: /BENCH: livepatch: /' /tmp/klpb.out
fi

# The unwinder on a live kernel (make run shows these lines): reliable
# traces of a blocked kthread and across a timer interrupt, next to the
# architecture's own unwinder, then the benchmark (ratios, not checked).
demo=/lib/modules-test/sframe_unwind_demo.ko
if [ -z "$kunit_only" ] && [ -e $demo ] && want demo; then
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


# ---- hostile input for the user unwinder ------------------------------------
# /usr/test/sframe-hostile samples itself with perf while it forges its own
# .sframe in place (header, FDEs, FREs, flips, truncation, flapping bytes,
# munmap, PROT_NONE) and corrupts its callers' stack slots and SP/FP/LR
# (qemu/user/README.md). Short or wrong chains are expected; a malformed
# perf record, a crash of the program or a kernel splat is a failure.
# USER_HOSTILE_VARIANTS: variants of each kind (default 1000).
# Then the concurrent mode (-t 2): two sampled threads run the chain while
# two others rewrite, unmap, remap, PROT_NONE the section and remap the
# text; a sample taken while the section was pristine must have a right
# chain or a prefix of it, never a wrong frame (-e: and >= 90% complete
# before and after the mutators). USER_HOSTILE_CONC_SECONDS: its length
# (default 20 s, 30 s under KASAN). "user_hostile_tests concurrent": only
# that run (sframe_only=hostile-mt).
user_hostile_tests() {
	uh_out=/tmp/user-hostile.out
	# dmesg after this marker is the run's
	echo "smoke: user hostile: start" >/dev/kmsg 2>/dev/null
	if [ "${1:-}" != concurrent ]; then
		if /usr/test/sframe-hostile -n "${USER_HOSTILE_VARIANTS:-1000}" -T 600 \
			>$uh_out 2>&1; then
			uh_v=PASS
		else
			uh_v=FAIL
		fi
		uh_sum=$(sed -n 's/^sframe-hostile: \([0-9]* section variants.*\)/\1/p' $uh_out)
		uh_seed=$(sed -n 's/^sframe-hostile: seed \(0x[0-9a-f]*\).*/\1/p' $uh_out)
		echo "$uh_v: user hostile: forged .sframe and stacks under perf (${uh_sum:-no result}; seed ${uh_seed:-?})"
		[ "$uh_v" = PASS ] || sed 's/^/    /' $uh_out
	fi
	uh_secs=20
	grep -q ' kasan_report$' /proc/kallsyms && uh_secs=30
	uh_secs=${USER_HOSTILE_CONC_SECONDS:-$uh_secs}
	if /usr/test/sframe-hostile -t 2 -d "$uh_secs" -e -T $((uh_secs * 4 + 120)) \
		>$uh_out 2>&1; then
		uh_v=PASS
	else
		uh_v=FAIL
	fi
	uh_sum=$(sed -n 's/^sframe-hostile: concurrent: \([0-9]* workers, .*\)/\1/p' $uh_out)
	uh_seed=$(sed -n 's/^sframe-hostile: seed \(0x[0-9a-f]*\).*/\1/p' $uh_out)
	echo "$uh_v: user hostile: concurrent: no wrong frame on a pristine section (${uh_sum:-no result}; seed ${uh_seed:-?})"
	[ "$uh_v" = PASS ] || sed 's/^/    /' $uh_out
	if dmesg | grep -q "smoke: user hostile: start"; then
		dmesg | sed -n '/smoke: user hostile: start/,$p' >/tmp/user-hostile.dmesg
	else
		dmesg >/tmp/user-hostile.dmesg
	fi
	if grep -E "Oops|BUG:|kernel BUG|WARNING:|KASAN|UBSAN|Call [Tt]race|Unable to handle kernel|general protection" \
		/tmp/user-hostile.dmesg >/tmp/user-hostile.splat; then
		echo "FAIL: user hostile: kernel log clean"
		head -n 40 /tmp/user-hostile.splat | sed 's/^/    /'
	else
		echo "PASS: user hostile: kernel log clean"
	fi
}

# ---- cost of a user callchain: defined here, not called yet ---------------
# The same workload sampled as chain-fp (frame pointers) and as
# chain-sframe-static (SFrame), with the kernel's counters in
# /sys/kernel/debug/sframe/user ("samples", "frames", "ns", ...; a write
# resets them) reset before each run: time per sample and frames per sample
# of the two, and their ratio. Numbers only, no expectation on the
# sampler's results. USER_UNWIND_BENCH_SAMPLES: samples per build (2000).
user_unwind_bench() {
	ub_stats=/sys/kernel/debug/sframe/user
	grep -q " /sys/kernel/debug debugfs " /proc/mounts ||
		mount -t debugfs none /sys/kernel/debug 2>/dev/null
	if [ ! -e $ub_stats ]; then
		echo "FAIL: user unwind bench: $ub_stats missing"
		return
	fi
	ub_res=
	for ub_bin in chain-fp chain-sframe-static; do
		echo 0 >$ub_stats
		/usr/test/$ub_bin -n "${USER_UNWIND_BENCH_SAMPLES:-2000}" -T 120 -q \
			>/tmp/user-bench.out 2>&1
		ub_rc=$?
		# "ns/sample frames/sample" of this run, or nothing without samples
		ub_one=$(awk '$1 == "samples" { s = $2 } $1 == "frames" { f = $2 }
			      $1 == "ns" { n = $2 }
			      END { if (s > 0) printf "%.0f %.1f", n / s, f / s }' $ub_stats)
		if [ "$ub_rc" = 2 ] || [ -z "$ub_one" ]; then
			echo "FAIL: user unwind bench: $ub_bin: no samples in $ub_stats (sampler exit $ub_rc)"
			sed 's/^/    /' /tmp/user-bench.out
			sed 's/^/    /' $ub_stats
			return
		fi
		ub_res="$ub_res $ub_one"
	done
	# shellcheck disable=SC2086 # ub_res: four numbers
	echo $ub_res | awk '{
		printf "BENCH: user callchain: frame pointers %d ns/sample (%.1f frames), ", $1, $2
		printf "SFrame %d ns/sample (%.1f frames), ", $3, $4
		if ($1 > 0)
			printf "ratio %.2f (goal <= 2.00)\n", $3 / $1
		else
			printf "ratio n/a (goal <= 2.00)\n"
	}'
}

# perf user call chains from SFrame (CONFIG_SFRAME_USER_UNWIND): the
# sampler on each build of the workload, hostile sections and stacks, and
# the per-sample cost against frame pointers.
# (sframe_only=hostile-mt: only the concurrent hostile run)
if [ -z "$kunit_only" ] && { want user || want hostile-mt; } &&
   grep -q 'sframe_user_callchain' /proc/kallsyms && [ -x /usr/test/chain-fp ]; then
	if ! want user; then
		user_hostile_tests concurrent
	elif [ -n "$tour" ]; then
		USER_UNWIND_SAMPLES=300 user_unwind_tests
		USER_UNWIND_BENCH_SAMPLES=500 user_unwind_bench
	else
		user_unwind_tests
		user_hostile_tests
		user_unwind_bench
	fi
fi

# Anything that looks like a kernel splat fails the run.
check "dmesg clean" sh -c '! dmesg | grep -E "Oops|BUG:|WARNING:|KASAN|Call Trace"'
