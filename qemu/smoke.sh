#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Smoke checks run by /init inside the test VM (busybox sh).
# One line per check: "PASS: name" or "FAIL: name".

# shellcheck source=qemu/lib.sh
. /lib.sh

# In-tree modules whose init fails by design, left out of the module
# sweep and of churn: tcrypt runs its self tests from its init, then
# returns EAGAIN so that it never stays loaded.
mod_by_design=tcrypt

# Booted by scripts/kunit.sh for the module suites: only load the modules.
kunit_only=
grep -q 'kunit.filter_glob' /proc/cmdline && kunit_only=1
# Booted by scripts/tour.sh (make run): only the short tour, no module
# sweep, samples or selftests, shorter benchmarks.
tour=
grep -qw sframe_tour /proc/cmdline && tour=1
# Booted by make check DEEP=1 (scripts/qemu-test.sh): the longer variants.
deep=
grep -qw sframe_deep /proc/cmdline && deep=1
# sframe_only=a,b (QEMU_APPEND of scripts/qemu-test.sh): only these parts
# (modules, livepatch, selftests, klp-bench, demo, churn, tracers, dumps,
# bpf, user, perf,
# costly: the cost of forged user sections, hostile-mt: the concurrent
# hostile run only, bench: the benchmarks only, textpoke: a check of the
# emulator, never in the default run), for working on one of them.
# sframe_skip=a,b: all but these parts (bench: every benchmark's numbers,
# also those printed by other parts).
only=$(sed -n 's/.*sframe_only=\([^ ]*\).*/\1/p' /proc/cmdline)
skip=$(sed -n 's/.*sframe_skip=\([^ ]*\).*/\1/p' /proc/cmdline)
skipped() {
	case ",$skip," in *",$1,"*) return 0 ;; esac
	return 1
}
want() {
	skipped "$1" && return 1
	[ -z "$only" ] && return 0
	case ",$only," in *",$1,"*) return 0 ;; esac
	return 1
}

# perf_rate_reset: perf_event_max_sample_rate back to 100000.  The kernel
# lowers it whenever a sampling interrupt takes long (every KASAN kernel
# under TCG, after churn), and a frequency above it is EINVAL: the stages
# that sample by frequency (churn's load, bpftrace's profile) start here.
perf_rate_reset() {
	echo 100000 >/proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null
}

# mark NAME: a marker in the kernel log (level 7: in dmesg, not on the
# console, where it could cut one of our lines) for log_clean NAME
mark() {
	echo "<7>smoke: $1: start" >/dev/kmsg 2>/dev/null
	# on the console: a run that dies of memory or time shows its way
	# there (scripts/qemu-test.sh names the stage a timeout cut short)
	echo "smoke: $1: $(cut -d' ' -f1 /proc/uptime) s up, $(awk '/^MemAvailable/ { print $1, $2, $3 }' /proc/meminfo)"
}

# log_clean NAME: PASS/FAIL "NAME: kernel log clean" for the kernel log
# since mark NAME: no oops, BUG, WARN, KASAN/UBSAN report, lockup, RCU
# stall, hung task or OOM kill.
log_clean() {
	if dmesg | grep -q "smoke: $1: start"; then
		dmesg | sed -n "/smoke: $1: start/,\$p"
	else
		dmesg
	fi >/tmp/log-clean.dmesg
	if grep -E "Oops|BUG:|kernel BUG|WARNING:|KASAN|UBSAN|Call [Tt]race|Unable to handle kernel|general protection|soft lockup|hard LOCKUP|rcu_sched detected stalls|rcu_preempt detected stalls|self-detected stall|hung task|blocked for more than|Out of memory" \
		/tmp/log-clean.dmesg >/tmp/log-clean.splat; then
		echo "FAIL: $1: kernel log clean"
		head -n 40 /tmp/log-clean.splat | sed 's/^/    /'
	else
		echo "PASS: $1: kernel log clean (no splat, lockup or stall report)"
	fi
}

echo "PASS: kernel booted"

# KCSAN kernels (make check-kcsan): report the data races whose access is
# in our code (a function named sframe_*: the unwinders, the lookup caches,
# the section tables) and no others; the log checks fail on any report.
if [ -d /sys/kernel/debug ] && ! [ -e /sys/kernel/debug/kcsan ]; then
	mount -t debugfs none /sys/kernel/debug 2>/dev/null
fi
if [ -e /sys/kernel/debug/kcsan ]; then
	echo whitelist >/sys/kernel/debug/kcsan
	kc_n=0
	for f in $(awk '$3 ~ /^sframe_/ && ($2 == "t" || $2 == "T") { print $3 }' /proc/kallsyms | sort -u); do
		echo "!$f" >/sys/kernel/debug/kcsan 2>/dev/null && kc_n=$((kc_n + 1))
	done
	echo "PASS: KCSAN reports data races in our $kc_n functions (sframe_*)"
fi
check "kallsyms has __start_sframe" grep -q ' __start_sframe$' /proc/kallsyms
# The SFrame core validated vmlinux's .sframe: at boot, or (checked by the
# build) with its rows, off the boot path, which the last initcall waits
# for.
check "vmlinux .sframe valid" sh -c 'dmesg | grep -E "sframe: vmlinux: SFrame v[0-9]+, [0-9]+ FDEs.*: valid" ||
	{ dmesg | grep -E "sframe: vmlinux: SFrame v[0-9]+, [0-9]+ FDEs.*: opened and indexed" &&
	  dmesg | grep "sframe: vmlinux: decoded rows: .*the section validated with them" &&
	  ! dmesg | grep "vmlinux .sframe rejected"; }'
# Its decoded rows answer alone after the boot: the section went with the
# init memory, and the record of what the unwinder keeps says so.
check "vmlinux .sframe freed with the init memory, rows answer" sh -c '
	dmesg | grep -q "sframe: vmlinux: .sframe and its index ([0-9]* bytes) go with the init memory" &&
	dmesg | grep -q "sframe: vmlinux: unwind data: .sframe 0, its index 0, .*freed with the init memory [1-9][0-9]* bytes"'

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
			grep -v '^sframe_\|^livepatch[-_]\|^test_klp_' | tr - _ |
			awk -v skip=" $mod_by_design " '!index(skip, " " $0 " ")')
	fi
	# A load that fails after post_relocation() registered the module's
	# .sframe (arm64: module_finalize() without .text.ftrace_trampoline)
	# must leave no table behind: lookups of an older module's addresses
	# walk past where it was, and its memory is freed.
	if [ -f /lib/modules-broken/isofs.ko ]; then
		grep -q " /sys/kernel/debug debugfs " /proc/mounts ||
			mount -t debugfs none /sys/kernel/debug
		modprobe ext2
		check "failed module load: isofs without its ftrace PLT is refused" \
			sh -c '! insmod /lib/modules-broken/isofs.ko'
		# (the lookup walks the module list past where isofs's table was;
		# whether ext2_fill_super has an FDE does not matter here)
		fm_pc=$(awk '$3 == "ext2_fill_super" && $4 == "[ext2]" { print "0x" $1; exit }' /proc/kallsyms)
		check "failed module load: an older module's address is looked up after it (ext2_fill_super+4)" \
			sh -c "[ -n '$fm_pc' ] && echo '$fm_pc+4' >/sys/kernel/debug/sframe/lookup &&
			       cat /sys/kernel/debug/sframe/lookup &&
			       grep -q 'ext2_fill_super+0x4/.*: \(rule\|SFRAME_E_\)' /sys/kernel/debug/sframe/lookup"
		check "failed module load: kernel log clean" \
			sh -c '! dmesg | grep -E "Oops|BUG:|KASAN|Unable to handle kernel|Call trace"'
	fi
	nmod=0
	bad=
	for mod in $intree; do
		case " $mod_by_design " in *" $mod "*) continue ;; esac
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
		if [ "$mod" = sframe_rules ]; then
			# A module function whose lookups would scan more rows
			# than the bound allows (kunit/sframe_rules_mod.c): the
			# loader refuses its .sframe, its addresses are unknown.
			check "insmod $mod" insmod "$ko"
			rl_pc=$(awk '$3 == "sfm_many_rules" { print "0x" $1; exit }' /proc/kallsyms)
			check "$mod: .sframe whose lookups would cost more than the bound is refused (SFRAME_E_COST), sfm_many_rules unknown" \
				sh -c "grep -q ' /sys/kernel/debug ' /proc/mounts ||
					mount -t debugfs none /sys/kernel/debug
				dmesg | grep '$mod: .sframe rejected' &&
				dmesg | grep -q '$mod: .sframe rejected: SFRAME_E_COST' &&
				[ -n '$rl_pc' ] && echo '$rl_pc+64' >/sys/kernel/debug/sframe/lookup &&
				cat /sys/kernel/debug/sframe/lookup &&
				grep -q 'SFRAME_E_NO_FDE' /sys/kernel/debug/sframe/lookup"
			check "rmmod $mod" rmmod "$mod"
			continue
		fi
		if [ "$mod" = sframe_churn ] && busybox --list | grep -qx taskset; then
			# Its init looks up an init-text address (cached on
			# CPU 0); after the load that text is gone, and so must
			# be the answer: asked again on CPU 0, nothing is found.
			check "insmod $mod" taskset 1 insmod "$ko"
			mi_pc=$(cat /sys/module/sframe_churn/parameters/init_pc 2>/dev/null)
			check "$mod: no cached answer outlives the init text ($mi_pc)" \
				taskset 1 sh -c "grep -q ' /sys/kernel/debug ' /proc/mounts ||
					mount -t debugfs none /sys/kernel/debug
				printf '%#x\n' '$mi_pc' >/sys/kernel/debug/sframe/lookup &&
				cat /sys/kernel/debug/sframe/lookup &&
				grep -q 'SFRAME_E_NO_FDE' /sys/kernel/debug/sframe/lookup"
		else
			check "insmod $mod" insmod "$ko"
		fi
		if [ "$mod" = sframe_module_kunit ] &&
		   dmesg | grep -q "ok [0-9]* sframe_module_own_stack_failure"; then
			# its suite walked its own stack 64 times through
			# code without SFrame: one warning for that PC
			sleep 1
			check "$mod: 64 failed walks of its own stack at one PC, one warning" \
				sh -c '[ "$(dmesg | grep -c "own stack unreliable at sfm_no_sframe")" = 1 ]'
		fi
		check "rmmod $mod" rmmod "$mod"
		check "$mod: module .sframe not rejected" sh -c "! dmesg | grep -q '$mod: .sframe[a-z_]* rejected'"
	done
	# A module whose .sframe opens but fails validation (one FRE short
	# in its header): registered at load, withdrawn by its check (with
	# the verifier in fail mode: off the load path, else at load), its
	# addresses unknown afterwards.
	if [ -f /lib/modules-broken/sframe_unwind_demo.ko ]; then
		bd=sframe_unwind_demo
		check "$bd with a malformed .sframe: loads" \
			insmod /lib/modules-broken/$bd.ko
		check "$bd with a malformed .sframe: its table withdrawn (SFRAME_E_NUM_FRES)" \
			sh -c "for i in 1 2 3 4 5 6 7 8 9 10; do
					dmesg | grep -q '$bd: .sframe rejected: SFRAME_E_NUM_FRES' &&
						exit 0
					sleep 1
				done; exit 1"
		bd_pc=$(awk -v m="[$bd]" '$2 ~ /^[tT]$/ && $4 == m { print "0x" $1; exit }' /proc/kallsyms)
		check "$bd with a malformed .sframe: its addresses unknown ($bd_pc)" \
			sh -c "grep -q ' /sys/kernel/debug ' /proc/mounts ||
				mount -t debugfs none /sys/kernel/debug
			[ -n '$bd_pc' ] && echo '$bd_pc' >/sys/kernel/debug/sframe/lookup &&
			cat /sys/kernel/debug/sframe/lookup &&
			grep -q 'SFRAME_E_NO_FDE' /sys/kernel/debug/sframe/lookup"
		check "rmmod $bd (malformed .sframe)" rmmod $bd
		log_clean "malformed module .sframe"
	fi
fi

# First, on a clean system as they expect, the kernel's own livepatch
# selftests (tools/testing/selftests/livepatch, in the initramfs
# with CONFIG_LIVEPATCH=y and their test modules): one
# PASS, FAIL or SKIP line per script (qemu/livepatch-selftests.sh).
if [ -z "$kunit_only" ] && [ -z "$tour" ] && want selftests; then
	mark selftests
	if [ ! -d /sys/kernel/livepatch ]; then
		echo "SKIP: livepatch-selftest: all (no /sys/kernel/livepatch: CONFIG_LIVEPATCH is not set)"
	elif [ ! -d /selftests/livepatch ]; then
		echo "SKIP: livepatch-selftest: all (not in the initramfs: the kernel has no livepatch selftest modules)"
	else
		/livepatch-selftests.sh
	fi
fi

# Livepatch, both arches (arm64 through scripts/patches): every sample of
# samples/livepatch; the consistency test (tasks parked inside patched
# functions hold the transition, their reliable traces name them); the
# transition benchmark last.  (After these, 6.12's test-syscall.sh has
# failed on arm64: its hammering tasks never reached the patched getpid.)
if [ -z "$kunit_only" ] && want livepatch; then
	mark livepatch
	[ -n "$tour" ] || /livepatch-samples.sh
	/livepatch-consistency.sh
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
# (sframe_only=bench: only the benchmarks, the kernel's and the user
# callchain's, for scripts/bench-kernel.sh)
if [ -z "$kunit_only" ] && [ -e $demo ] && want demo; then
	check "demo: insmod sframe_unwind_demo show=1" insmod $demo show=1
	check "demo: blocked task: reliable, same trace as the reference" \
		sh -c 'dmesg | grep -q "sframe_unwind_demo: blocked task .*: SFrame reliable .*: same trace"'
	check "demo: timer interrupt: reliable" \
		sh -c 'dmesg | grep -q "sframe_unwind_demo: timer interrupt .*: SFrame reliable"'
	# A module's answers go with it: a lookup of its text (which fills
	# the lookup cache, and reads its rows) has a rule while it is
	# loaded and none once it is gone, whatever was cached.
	lk=/sys/kernel/debug/sframe/lookup
	grep -q " /sys/kernel/debug debugfs " /proc/mounts ||
		mount -t debugfs none /sys/kernel/debug 2>/dev/null
	# (a function with a body, 16 bytes in: arm64 functions start with
	# two ftrace NOPs ahead of their FDE, and the first symbol of the
	# module may be a short one)
	lk_addr=$(awk '$3 ~ /^demo_bench_current/ && $4 == "[sframe_unwind_demo]" { print $1; exit }' /proc/kallsyms)
	if [ -n "$lk_addr" ] && [ -e $lk ]; then
		echo "0x$lk_addr+16" >$lk
		cat $lk >/tmp/lookup.1 && cat $lk >>/tmp/lookup.1
		rmmod sframe_unwind_demo
		cat $lk >/tmp/lookup.2
		if grep -q ': rule cfa=' /tmp/lookup.1 && ! grep -q ': rule' /tmp/lookup.2 &&
		   grep -q 'SFRAME_E_NO_FDE' /tmp/lookup.2; then
			echo "PASS: demo: lookup of module text: a rule while loaded, none after rmmod ($(cut -d: -f2- /tmp/lookup.1 | head -n 1 | cut -c1-60) -> $(cut -d: -f2- /tmp/lookup.2 | cut -c1-40))"
		else
			echo "FAIL: demo: lookup of module text: a rule while loaded, none after rmmod"
			sed 's/^/    /' /tmp/lookup.1 /tmp/lookup.2
		fi
	else
		echo "FAIL: demo: lookup of module text (no symbol of sframe_unwind_demo, or no $lk)"
		rmmod sframe_unwind_demo
	fi
fi
if [ -z "$kunit_only" ] && [ -e $demo ] && { want demo || want bench; }; then
	check "demo: insmod sframe_unwind_demo bench=1" insmod $demo bench=1
	dmesg | grep 'sframe_unwind_demo: bench:' | sed 's/^\[[ 0-9.]*\] /BENCH: /'
	rmmod sframe_unwind_demo
	# What registering a module's SFrame adds to loading it: the demo
	# (the largest of the test modules whose init does nothing).
	if [ -x /usr/test/sframe-modload ]; then
		/usr/test/sframe-modload $demo sframe_unwind_demo 20 |
			sed 's/^/BENCH: /'
	fi
fi

# ---- churn: every stack walker at once, under load -------------------------
# For sframe_churn_seconds=N (kernel command line; 60 by default) at once:
# qemu/user/churn.c forks and execs, runs a threaded workload (user and
# kernel spinners, sleepers, page faults, signals, timers, migrations),
# reads every /proc/PID/task/TID/stack and samples the whole system with
# perf (kernel and user chains), and so does Debian's perf (perf record -a
# -g) when it is in the initramfs; sframe_churn.ko walks every task
# reliably and compares each reliable trace of a task held off the CPU
# with the architecture's unwinder (qemu/modules/sframe_churn.c); a loop loads
# and unloads modules.  Disagreements, a failed walk of a walker's own
# stack, a malformed perf record, a crash and any kernel splat fail.
churn_test() {
	ch_secs=$(sed -n 's/.*sframe_churn_seconds=\([0-9]*\).*/\1/p' /proc/cmdline)
	ch_secs=${ch_secs:-60}
	ch_ko=/lib/modules-test/sframe_churn.ko
	if [ ! -e $ch_ko ] || [ ! -x /usr/test/churn ]; then
		echo "SKIP: churn: sframe_churn.ko or /usr/test/churn not built"
		return
	fi
	grep -q " /sys/kernel/debug debugfs " /proc/mounts ||
		mount -t debugfs none /sys/kernel/debug 2>/dev/null
	mark churn
	if ! insmod $ch_ko >/tmp/churn.insmod 2>&1; then
		echo "FAIL: churn: insmod sframe_churn"
		sed 's/^/    /' /tmp/churn.insmod
		return
	fi
	# modules of the build (and our demo module) loaded and unloaded
	rm -f /tmp/churn.stop /tmp/churn.modfail /tmp/churn.pinned
	(
		n=0 bad=0 pinned=" "
		# the modules no other module needs (modules.dep): those can
		# always be unloaded again; modprobe loads what they need
		mods=$(awk '{ sub(":", "", $1); top[$1] = 1; for (i = 2; i <= NF; i++) need[$i] = 1 }
			    END { for (m in top) if (!(m in need)) print m }' \
			/lib/modules/"$(uname -r)"/modules.dep 2>/dev/null |
			sed 's|^.*/||; s|\.ko$||' | sort |
			grep -v '^sframe_\|^livepatch[-_]\|^test_klp_' | tr - _ |
			awk -v skip=" $mod_by_design " '!index(skip, " " $0 " ")')
		echo "$mods" | wc -w >/tmp/churn.nmods
		while [ ! -e /tmp/churn.stop ]; do
			for m in $mods; do
				case $pinned in *" $m "*) continue ;; esac
				if modprobe "$m" 2>/tmp/churn.modprobe; then
					# the module only (its dependencies stay):
					# retried on EAGAIN while it is briefly in use
					t=0
					until rmmod "$m" 2>/tmp/churn.modprobe; do
						t=$((t + 1))
						[ $t -lt 10 ] || break
						sleep 0.2
					done
					# Held by the kernel itself (a driver bound
					# to a device, an irqchip, an algorithm a
					# library keeps) or built in after all: it
					# stays, out of the rotation.  Other errors
					# fail.
					if [ $t -ge 10 ]; then
						if grep -qE 'Device or resource busy|Resource temporarily unavailable|No such file or directory' \
							/tmp/churn.modprobe; then
							pinned="$pinned$m "
							echo "$pinned" >/tmp/churn.pinned
						else
							bad=$((bad + 1))
							cat /tmp/churn.modprobe >>/tmp/churn.modfail
						fi
					fi
				elif ! grep -q 'No such device' /tmp/churn.modprobe; then
					# (a driver without its hardware: ENODEV)
					bad=$((bad + 1))
					cat /tmp/churn.modprobe >>/tmp/churn.modfail
				fi
				n=$((n + 1))
			done
			# ours: loaded, it must unload
			if insmod /lib/modules-test/sframe_unwind_demo.ko 2>/dev/null &&
			   ! rmmod sframe_unwind_demo 2>/tmp/churn.modprobe; then
				bad=$((bad + 1))
				cat /tmp/churn.modprobe >>/tmp/churn.modfail
			fi
			n=$((n + 1))
			echo "$n $bad" >/tmp/churn.mods
		done
	) &
	ch_loop=$!
	# and Debian's perf, system-wide with call graphs, at the same time
	# (its first 60 s at most: perf script of a longer record of this
	# many short-lived processes needs more than the VM's 512 MB)
	ch_perf=
	if [ -x /usr/bin/perf ]; then
		perf record -q -a -g -F 99 -o /tmp/churn-perf.data -- \
			sleep "$((ch_secs < 60 ? ch_secs : 60))" \
			>/tmp/churn-perf.out 2>&1 &
		ch_perf=$!
	fi
	/usr/test/churn -T "$ch_secs" >/tmp/churn.out 2>&1
	ch_rc=$?
	touch /tmp/churn.stop
	wait $ch_loop
	if [ -n "$ch_perf" ]; then
		wait $ch_perf
		ch_perf_rc=$?
		# samples, and how many have kernel and user frames; a perf
		# script that dies (killed: out of memory) must not pass
		# with the samples it printed so far
		if [ "$ch_perf_rc" = 0 ] &&
		   { perf script -i /tmp/churn-perf.data -F ip,sym 2>/tmp/churn-perf.out ||
		     echo "perf script failed: exit $?"; } |
		   awk '/^perf script failed/ { print; failed = 1; exit 1 }
			NF == 0 { if (n) { s++; if (k) ks++; if (u) us++ } n = k = u = 0; next }
			{ n++; if ($1 ~ /^ffff/) k++; else u++ }
			END { if (failed) exit 1
			      if (n) { s++; if (k) ks++; if (u) us++ }
			      printf "%d samples, %d with kernel frames, %d with user frames\n", s, ks, us
			      exit !(s > 0) }' >/tmp/churn-perf.line 2>&1; then
			echo "PASS: churn: Debian perf record -a -g meanwhile: $(cat /tmp/churn-perf.line)"
		else
			echo "FAIL: churn: Debian perf record -a -g meanwhile (exit $ch_perf_rc)"
			sed 's/^/    /' /tmp/churn-perf.line /tmp/churn-perf.out | head -n 20
		fi
		rm -f /tmp/churn-perf.data
	fi
	echo stop >/sys/kernel/debug/sframe/churn
	cat /sys/kernel/debug/sframe/churn >/tmp/churn.k
	rmmod sframe_churn
	ch_sum=$(sed -n 's/^churn: //p' /tmp/churn.out)
	if [ "$ch_rc" = 0 ]; then
		echo "PASS: churn: load ran (${ch_sum:-no result})"
	else
		echo "FAIL: churn: load (exit $ch_rc)"
		sed 's/^/    /' /tmp/churn.out
	fi
	# "walks/s, reliable share, compared, disagree, ..." from the counters
	if awk '
		$1 == "unreliable" { if ($2 > 0) { why = why sep $2 " " substr($0, index($0, $3)); sep = ", " } next }
		$1 == "unreliable_at" { if (nat++ < 3) at = at asep $3 " (" $2 ")"; asep = ", "; next }
		{ v[$1] = $2 }
		END {
			s = v["seconds"] > 0 ? v["seconds"] : 1
			w = v["walks"]
			printf "reliable walks of every task: %d walks (%.0f/s), %.1f%% reliable (%d across kernel exception frames), ", \
				w, w / s, w ? 100 * v["reliable"] / w : 0, v["reliable_kernel_regs"]
			printf "%d compared with the arch unwinder: %d agree, %d disagree; ", \
				v["compared"], v["agree"], v["disagree"]
			printf "own stack %d of %d unreliable; %d running (not walked), %d exited", \
				v["self_failed"], v["self"], v["busy"], v["gone"]
			if (v["ref_refused"] + v["ref_only"] > 0)
				printf "; reliable for ours only %d, for ORC only %d", v["ref_refused"], v["ref_only"]
			printf "; unreliable: %s", why == "" ? "none" : why
			printf "%s\n", at == "" ? "" : ", at " at
			exit !(w > 0 && v["compared"] > 0 && v["disagree"] == 0 && v["self_failed"] == 0)
		}' /tmp/churn.k >/tmp/churn.line; then
		echo "PASS: churn: $(cat /tmp/churn.line)"
	else
		echo "FAIL: churn: $(cat /tmp/churn.line)"
		sed 's/^/    /' /tmp/churn.k
		dmesg | sed -n '/smoke: churn: start/,$p' | grep 'sframe_churn' |
			head -n 60 | sed 's/^/    /'
	fi
	# Modules the kernel holds stay loaded; more than 1 in 20 would
	# rather mean a reference leaked on load.
	read -r ch_mods ch_bad </tmp/churn.mods 2>/dev/null
	read -r ch_nmods </tmp/churn.nmods 2>/dev/null
	ch_pinned=$(cat /tmp/churn.pinned 2>/dev/null)
	ch_npinned=$(echo $ch_pinned | wc -w)
	ch_held=
	[ "$ch_npinned" = 0 ] ||
		ch_held=" ($ch_npinned of ${ch_nmods:-0} modules stay loaded, held by the kernel or built in:$(echo $ch_pinned | sed 's/^/ /'))"
	if [ "${ch_mods:-0}" -gt 0 ] && [ "${ch_bad:-0}" = 0 ] &&
	   [ $((ch_npinned * 20)) -le "${ch_nmods:-0}" ]; then
		echo "PASS: churn: module loads and unloads meanwhile: $ch_mods$ch_held"
	else
		echo "FAIL: churn: module loads and unloads meanwhile: ${ch_mods:-0}, ${ch_bad:-?} failed$ch_held"
		sort /tmp/churn.modfail 2>/dev/null | uniq -c | head -n 20 | sed 's/^/    /'
	fi
	log_clean churn
}

if [ -z "$kunit_only" ] && [ -z "$tour" ] && want churn; then
	churn_test
fi

# ---- tracers that take stack traces, on our own lookups ----------------------
# Each in-kernel user of stack traces below walks with our unwinder from a
# callback on a function our lookup cache's fill calls (lookup_funcs), so
# its walk nests in ours on the same CPU: the function tracer with
# func_stack_trace, the stack tracer (which traces every function), and a
# kprobe event with a stacktrace trigger.
# Meanwhile /proc/PID/stack of every task walks, and debugfs sframe/lookup
# looks up text addresses of vmlinux and modules (on arm64 most return
# addresses come from the return-site table, which needs no fill), with
# the caches emptied again and again (a write to debugfs
# sframe/cache_check). Each must have
# recorded stack traces, and afterwards every cached answer of every CPU
# must equal a fresh lookup (cache_check: 0 per CPU), with a clean log.
# The functions a fill of our lookup cache calls (kernel/answer.c): where
# vmlinux's decoded rows answer, the annotation search of rows an
# annotation meets and of gaps, the end of most walks
# (sframe_vmlinux_annot_search); and where the core does, for modules and
# what the rows leave to it (sframe_rows_find, sframe_find).  A tracer's
# callback on them walks nested in our lookup.  All three: a kernel whose
# SFrame sframe-gen wrote (clang) may never leave a vmlinux address to the
# core.
lookup_funcs="sframe_vmlinux_annot_search sframe_rows_find sframe_find"
lookup_probes=$(echo "$lookup_funcs" | sed 's/^/kprobe:/; s/ /,kprobe:/g')

# tr_pick_addrs: text addresses for tr_load's lookups, inside their
# functions: 24 of vmlinux's, 8 of modules' (when any are loaded), and the
# entry code where most walks end (annotated: a fill searches the
# annotations there, on arm64 too, where return addresses rarely fill).
tr_pick_addrs() {
	tr_addrs=$(awk '($2 == "t" || $2 == "T") && NR % 151 == 0 { print "0x" $1 "+4" }' \
		/proc/kallsyms | head -n 24)
	tr_addrs="$tr_addrs $(awk '($2 == "t" || $2 == "T") && $4 ~ /^\[/ { print "0x" $1 "+4" }' \
		/proc/kallsyms | head -n 8)"
	tr_addrs="$tr_addrs $(awk '$3 ~ /^(ret_from_fork|ret_from_fork_asm|el0t_64_sync|entry_SYSCALL_64)$/ {
		print "0x" $1 "+4" }' /proc/kallsyms)"
}

# (The lookups first: each one fills the emptied cache, where on arm64 a
# walk of /proc/PID/stack rarely does, and under a loaded host one pass
# over every task's stack can outlast a tracer's few seconds.)
tr_load() {
	tr_end=$(($(date +%s) + $1))
	while [ "$(date +%s)" -lt "$tr_end" ]; do
		echo 1 >/sys/kernel/debug/sframe/cache_check
		for a in $tr_addrs; do
			echo "$a" >/sys/kernel/debug/sframe/lookup
			cat /sys/kernel/debug/sframe/lookup >/dev/null
		done
		cat /proc/[0-9]*/stack >/dev/null 2>&1
	done
}

# tr_check NAME TRACES: PASS/FAIL for NAME with TRACES stack traces seen
tr_check() {
	tr_bad=$(awk '{ n += $2 } END { print n + 0 }' /sys/kernel/debug/sframe/cache_check)
	if [ "${2:-0}" -gt 0 ] && [ "$tr_bad" = 0 ]; then
		echo "PASS: tracers: $1: walks nested in our lookups leave the caches right ($2 stack traces; cached answers differing from a fresh lookup: 0)"
	else
		echo "FAIL: tracers: $1: ${2:-0} stack traces, $tr_bad cached answers differ from a fresh lookup"
		sed 's/^/    /' /sys/kernel/debug/sframe/cache_check
		echo 1 >/sys/kernel/debug/sframe/cache_check
	fi
}

tracer_tests() {
	T=/sys/kernel/tracing
	grep -q " /sys/kernel/debug debugfs " /proc/mounts ||
		mount -t debugfs none /sys/kernel/debug 2>/dev/null
	[ -e $T/trace ] || mount -t tracefs nodev $T 2>/dev/null
	if [ ! -e $T/trace ] || [ ! -e /sys/kernel/debug/sframe/cache_check ]; then
		echo "FAIL: tracers: no tracefs or no debugfs sframe/cache_check"
		return
	fi
	mark tracers
	tr_funcs=$lookup_funcs
	tr_pick_addrs

	# the function tracer, a stack trace at each call of tr_funcs
	echo "$tr_funcs" | tr ' ' '\n' >$T/set_ftrace_filter
	echo function >$T/current_tracer
	echo 1 >$T/options/func_stack_trace
	echo >$T/trace
	tr_load 3
	echo 0 >$T/tracing_on
	tr_n=$(grep -c '<stack trace>' $T/trace)
	echo 0 >$T/options/func_stack_trace
	echo nop >$T/current_tracer
	echo >$T/set_ftrace_filter
	echo 1 >$T/tracing_on
	tr_check "function tracer, func_stack_trace on $tr_funcs" "$tr_n"

	# the stack tracer: every function, the deepest stack kept
	if [ -e /proc/sys/kernel/stack_tracer_enabled ]; then
		echo 1 >/proc/sys/kernel/stack_tracer_enabled
		tr_load 3
		echo 0 >/proc/sys/kernel/stack_tracer_enabled
		tr_n=$(grep -c '^ *[0-9]*)' $T/stack_trace)
		tr_check "stack tracer (stack_trace: $(cat $T/stack_max_size) bytes deepest)" "$tr_n"
	else
		# (the test kernels have it; a defconfig does not, and
		# turning it on there recompiles nearly every file)
		echo "SKIP: tracers: stack tracer: the kernel has no CONFIG_STACK_TRACER"
	fi

	# a kprobe event with a stacktrace trigger on each of tr_funcs
	echo >$T/trace
	tr_i=0
	for f in $tr_funcs; do
		tr_i=$((tr_i + 1))
		echo "p:sfu_tr$tr_i $f" >>$T/kprobe_events &&
		echo stacktrace >$T/events/kprobes/sfu_tr$tr_i/trigger &&
		echo 1 >$T/events/kprobes/sfu_tr$tr_i/enable
	done
	tr_load 3
	echo 0 >$T/events/kprobes/enable 2>/dev/null
	for i in $(seq 1 $tr_i); do
		echo '!stacktrace' >$T/events/kprobes/sfu_tr$i/trigger 2>/dev/null
	done
	tr_n=$(grep -c '<stack trace>' $T/trace)
	echo >$T/kprobe_events
	tr_check "kprobe events with a stacktrace trigger on $tr_funcs" "$tr_n"
	echo >$T/trace
	log_clean tracers
}

if [ -z "$kunit_only" ] && [ -z "$tour" ] && want tracers; then
	tracer_tests
fi

# ---- the machine: text rewritten under running CPUs ---------------------------
# Only when asked for (sframe_only=textpoke), since it tests QEMU, not
# us: for 30 s the sched_switch trace event goes on and off (static calls
# and jump labels in __schedule rewritten through INT3) while every CPU
# schedules.  A 6.12 x86_64 kernel under QEMU 7.2's multi-threaded TCG
# dies here on an INT3 that is no longer in memory; the boot tests run it
# on one TCG thread (scripts/common.sh, qemu_cmd).
if [ -n "$only" ] && want textpoke; then
	mark textpoke
	T=/sys/kernel/tracing
	[ -e $T/trace ] || mount -t tracefs nodev $T 2>/dev/null
	tp_pids=
	for _ in $(seq "$(nproc)"); do
		(while :; do /bin/true; done) &
		tp_pids="$tp_pids $!"
	done
	tp_n=0
	tp_end=$(($(cut -d. -f1 /proc/uptime) + 30))
	while [ "$(cut -d. -f1 /proc/uptime)" -lt $tp_end ]; do
		echo 1 >$T/events/sched/sched_switch/enable
		echo 0 >$T/events/sched/sched_switch/enable
		tp_n=$((tp_n + 1))
	done
	# shellcheck disable=SC2086 # one pid per word
	kill $tp_pids 2>/dev/null
	# shellcheck disable=SC2086
	wait $tp_pids 2>/dev/null
	if [ "$tp_n" -gt 0 ]; then
		echo "PASS: textpoke: sched_switch event switched on and off $tp_n times under load"
	else
		echo "FAIL: textpoke: sched_switch event could not be switched"
	fi
	log_clean textpoke
fi

# ---- the kernel's own stack dumps, under load --------------------------------
# The hung-task detector and the RCU stall detector print the stacks of
# the tasks and CPUs they blame (on arm64 through arch_stack_walk(): our
# unwinder; on x86_64 through the oops printer, ORC's). For 30 s the churn
# load runs (qemu/user/churn.c, and sframe_churn.ko's walkers walking every
# task), while a task sleeps 7 s uninterruptibly in churn_hang() with
# hung_task_timeout_secs 2, and then a task spins 14 s with preemption off
# in churn_stall() with rcu_cpu_stall_timeout 3 (debugfs sframe/churn; 14 s:
# lockdep kernels add 5 s to the timeout, 20 s would be a soft lockup).
# The hung-task report must name churn_hang (its stack was walked to it);
# the stall report churn_stall, or, when a reader preempted on the
# spinning CPU is what holds the grace period (seen under KASAN), that
# reader's stack down to its kernel entry. No other splat may appear, and
# afterwards every cached answer must equal a fresh lookup. The reports stay off the console (console loglevel 1 meanwhile)
# and the final "dmesg clean" leaves this stage's part of the log out.
dumps_test() {
	dp_ko=/lib/modules-test/sframe_churn.ko
	dp_k=/sys/kernel/debug/sframe/churn
	dp_ht=/proc/sys/kernel/hung_task_timeout_secs
	dp_rs=/sys/module/rcupdate/parameters/rcu_cpu_stall_timeout
	if [ ! -e $dp_ko ] || [ ! -x /usr/test/churn ] || [ ! -w $dp_ht ] || [ ! -w $dp_rs ]; then
		echo "SKIP: dumps: sframe_churn.ko, /usr/test/churn, hung-task or RCU stall detector missing"
		return
	fi
	grep -q " /sys/kernel/debug debugfs " /proc/mounts ||
		mount -t debugfs none /sys/kernel/debug 2>/dev/null
	if ! insmod $dp_ko >/tmp/dumps.insmod 2>&1; then
		echo "FAIL: dumps: insmod sframe_churn"
		sed 's/^/    /' /tmp/dumps.insmod
		return
	fi
	dp_lvl=$(awk '{ print $1 }' /proc/sys/kernel/printk)
	dp_old_ht=$(cat $dp_ht)
	dp_old_rs=$(cat $dp_rs)
	dmesg -n 1
	perf_rate_reset
	mark dumps
	/usr/test/churn -T 30 >/tmp/dumps.churn 2>&1 &
	dp_pid=$!
	# (the stall timeout applies to grace periods that start later)
	echo 3 >$dp_rs
	sleep 2
	echo 2 >$dp_ht
	echo "hang 7000" >$dp_k
	echo "$dp_old_ht" >$dp_ht
	echo "stall 14000" >$dp_k
	sleep 2
	echo "$dp_old_rs" >$dp_rs
	wait $dp_pid
	dp_rc=$?
	echo stop >$dp_k
	rmmod sframe_churn
	echo "<7>smoke: dumps: end" >/dev/kmsg
	dmesg -n "$dp_lvl"
	dmesg | sed -n '/smoke: dumps: start/,/smoke: dumps: end/p' >/tmp/dumps.dmesg
	# a report, then within the next lines (its stacks) the function
	dp_found() {
		awk -v re="$1" -v fn="$2" '$0 ~ re { left = 120 } left && index($0, fn) { found = 1 }
			left { left-- } END { exit !found }' /tmp/dumps.dmesg
	}
	if [ "$dp_rc" = 0 ] && dp_found "blocked for more than" churn_hang; then
		echo "PASS: dumps: hung-task report under load, its stack walked to churn_hang"
	else
		echo "FAIL: dumps: hung-task report naming churn_hang (churn exit $dp_rc)"
		grep -A 30 "blocked for more than" /tmp/dumps.dmesg | head -n 30 | sed 's/^/    /'
		tail -n 5 /tmp/dumps.churn | sed 's/^/    /'
	fi
	# The report blames the spinning CPU (its stack: churn_stall), or a
	# reader preempted on that CPU when it holds the grace period (its
	# stack down to its entry into the kernel).
	if dp_found "detected stall|self-detected stall" churn_stall; then
		echo "PASS: dumps: RCU stall report under load, its stack walked to churn_stall"
	elif awk '/detected stall/ { left = 120 } left && /Tasks blocked on/ { tb = 1 }
		  left && tb && /\+0x[0-9a-f]+\/0x/ { n++
			if (/asm_exc_|entry_SYSCALL_64|ret_from_fork|el0t_64_|el0_svc|el1h_64_/) e = 1 }
		  left { left-- } END { exit !(n >= 4 && e) }' /tmp/dumps.dmesg; then
		echo "PASS: dumps: RCU stall report under load, blaming a reader preempted on the spinning CPU: its stack walked to its kernel entry"
	else
		echo "FAIL: dumps: RCU stall report naming churn_stall, or a blocked reader's stack to its kernel entry"
		grep -E -A 40 "detected stall" /tmp/dumps.dmesg | head -n 40 | sed 's/^/    /'
	fi
	dp_bad=$(awk '{ n += $2 } END { print n + 0 }' /sys/kernel/debug/sframe/cache_check)
	if grep -E "Oops|BUG:|kernel BUG|WARNING:|KASAN|UBSAN|Unable to handle kernel|general protection|soft lockup|hard LOCKUP|Out of memory" \
		/tmp/dumps.dmesg >/tmp/dumps.splat || [ "$dp_bad" != 0 ]; then
		echo "FAIL: dumps: no other report, caches right ($dp_bad cached answers differ from a fresh lookup)"
		head -n 40 /tmp/dumps.splat | sed 's/^/    /'
	else
		echo "PASS: dumps: no other report, caches right (cached answers differing from a fresh lookup: 0)"
	fi
	# page_owner (the KASAN kernels, booted with page_owner=on): the
	# stacks saved at page allocations, through churn's load too; the
	# first 8 MB of records read back.  Pages allocated before page_owner
	# started share one placeholder stack (register_early_stack()): not
	# counted.
	[ -r /sys/kernel/debug/page_owner ] || return
	head -c 8000000 /sys/kernel/debug/page_owner 2>/dev/null |
		awk 'function done() { if (!early) { r++; if (f >= 4 && a) ok++ } n = 0 }
		     /^Page allocated via/ { if (n) done(); n = 1; f = 0; a = 0; early = 0; next }
		     n && /^ [^ ]/ { f++; if ($1 ~ /^__alloc_pages/) a = 1
				     if ($1 ~ /^register_(early|dummy|failure)_stack/) early = 1 }
		     END { if (n) done(); printf "%d %d\n", r, ok }' >/tmp/dumps.owner
	read -r dp_rec dp_ok </tmp/dumps.owner
	if [ "${dp_rec:-0}" -gt 0 ] && [ $((dp_ok * 100)) -ge $((dp_rec * 95)) ]; then
		echo "PASS: dumps: page_owner stacks read back: $dp_ok of $dp_rec records with >= 4 frames through __alloc_pages (>= 95%)"
	else
		echo "FAIL: dumps: page_owner stacks: ${dp_ok:-0} of ${dp_rec:-0} records with >= 4 frames through __alloc_pages"
		head -c 8000000 /sys/kernel/debug/page_owner |
			awk '/^Page allocated via/ { p = 1; b = "" } p { b = b "\n" $0 }
			     /^$/ && p { if (b !~ /register_early_stack/ && b !~ /__alloc_pages/) { print b; if (++k == 3) exit } p = 0 }' |
			sed 's/^/    /'
	fi
}

if [ -z "$kunit_only" ] && [ -z "$tour" ] && want dumps; then
	dumps_test
fi

# ---- user-space unwinding for perf: defined here, not called yet ----------
# perf_callchain_user() with SFrame (qemu/user/README.md). /usr/test/ holds
# the sampler built four ways; each run forks its workload, samples it with
# perf_event_open() (user callchains) and checks every callchain against the
# workload's known call chain. One PASS/FAIL line per build, with the
# sampler's numbers; on FAIL its output (the first failing samples).
#   chain-sframe-static, chain-sframe-dyn: SFrame; >= 95% complete, 0 wrong
#   chain-clang-static: built by clang, SFrame from its CFI (sframe-gen);
#     >= 95% complete, 0 wrong
#   chain-fp: frame pointers, no SFrame; >= 95% complete, 0 wrong, leaving
#     out the samples at frame-pointer blind spots (-f: prologues and
#     epilogues, where a frame-pointer walk skips the caller)
#   chain-nosframe: neither; numbers only. The frame-pointer fallback over
#     code without frame pointers skips frames (wrong chains) by design.
# First the checker itself (chain-fp -c): its verdicts on chains made up from
# the frame-pointer build's own functions, blind spots included.
# USER_UNWIND_SAMPLES: samples per build (default 1000).
user_unwind_tests() {
	uu_n=${USER_UNWIND_SAMPLES:-1000}
	if /usr/test/chain-fp -c >/tmp/user-unwind.out 2>&1; then
		uu_v=PASS
	else
		uu_v=FAIL
	fi
	echo "$uu_v: user unwind: the checker: $(sed -n 's/^sampler: chain-fp: check: \([0-9]* of .*\)/\1/p' /tmp/user-unwind.out)"
	[ "$uu_v" = PASS ] || sed 's/^/    /' /tmp/user-unwind.out
	for uu_case in "chain-sframe-static|-e|>= 95% complete, 0 wrong" \
		       "chain-sframe-dyn|-e|>= 95% complete, 0 wrong" \
		       "chain-clang-static|-e|>= 95% complete, 0 wrong" \
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
	# The answer caches are allocated when a process first has a section
	# (debugfs sframe/user: cache_bytes): by now they must be.
	grep -q " /sys/kernel/debug debugfs " /proc/mounts ||
		mount -t debugfs none /sys/kernel/debug 2>/dev/null
	uu_cb=$(awk '$1 == "cache_bytes" { print $2 }' /sys/kernel/debug/sframe/user 2>/dev/null)
	if [ "${uu_cb:-0}" -gt 0 ]; then
		echo "PASS: user unwind: answer caches allocated with the first section: ${uu_cb} bytes"
	else
		echo "FAIL: user unwind: answer caches allocated with the first section: cache_bytes ${uu_cb:-missing}"
	fi
}


# exit_verdict RC LINE OUT: "PASS: LINE" if the program's exit status RC
# is 0, else "FAIL: LINE" and the program's output OUT, indented.
exit_verdict() {
	if [ "$1" = 0 ]; then
		echo "PASS: $2"
	else
		echo "FAIL: $2"
		sed 's/^/    /' "$3"
	fi
}

# user_knobs NAME FILE...: debugfs mounted and each FILE (a module
# parameter or a debugfs file of the user unwinder) there to write; else a
# FAIL line for the test NAME and status 1.
user_knobs() {
	uk_name=$1
	shift
	grep -q " /sys/kernel/debug debugfs " /proc/mounts ||
		mount -t debugfs none /sys/kernel/debug 2>/dev/null
	for uk_f in "$@"; do
		if [ ! -w "$uk_f" ]; then
			echo "FAIL: $uk_name: $uk_f missing"
			return 1
		fi
	done
}

# ---- the first samples of a process: defined here, not called yet ---------
# A short-lived process (chain-sframe-static -x: each run execs the chain
# for 20 ms, sampled from its execve() on, every 250 us of CPU time) loses
# the chains of its first samples if its .sframe pages are not mapped yet:
# perf samples where no page fault can be taken.  Run once with
# sframe.user_prefault=0 (the pages are only faulted in after a sample
# failed: the "before") and once with prefaulting at mmap and fork (the
# default): then the first checked sample of every run must be complete,
# >= 95% of all complete, 0 wrong.  The pages faulted in per run are the
# memory it costs (debugfs sframe/user).
user_first_samples() {
	fs_param=/sys/module/sframe/parameters/user_prefault
	fs_stats=/sys/kernel/debug/sframe/user
	user_knobs "user first samples" $fs_param $fs_stats || return
	for fs_pf in 0 1; do
		echo $fs_pf >$fs_param
		echo 0 >$fs_stats
		fs_opt=
		[ $fs_pf = 1 ] && fs_opt=-e
		# shellcheck disable=SC2086 # fs_opt: no option or one
		/usr/test/chain-sframe-static -x 20 -p 250 -n "${USER_FIRST_SAMPLES:-600}" \
			-T 120 -q $fs_opt >/tmp/user-first.out 2>&1
		fs_rc=$?
		fs_sum=$(sed -n 's/^sampler: chain-sframe-static: \([0-9]* samples.*\)/\1/p' /tmp/user-first.out)
		fs_first=$(sed -n 's/^sampler: chain-sframe-static: short-lived: //p' /tmp/user-first.out)
		fs_mem=$(awk '$1 == "prefault_requests" { p = $2 } $1 == "lazy_fault_requests" { l = $2 }
			      $1 == "fault_in_pages" { g = $2 }
			      END { printf "%d requests at mmap/fork, %d after a failed sample, %d pages faulted in", p, l, g }' $fs_stats)
		fs_runs=$(echo "$fs_first" | sed -n 's/^\([0-9]*\) runs.*/\1/p')
		fs_pages=$(awk '$1 == "fault_in_pages" { print $2 }' $fs_stats)
		[ -n "$fs_runs" ] && [ "$fs_runs" -gt 0 ] &&
			fs_mem="$fs_mem, $((fs_pages / fs_runs)) per run"
		if [ $fs_pf = 0 ]; then
			echo "PASS: user first samples: without prefaulting (numbers only): ${fs_first:-no result}; ${fs_sum:-no result}; $fs_mem"
			continue
		fi
		fs_all=$(echo "$fs_first" | sed -n 's/.*complete in \([0-9]*\) of \([0-9]*\) runs.*/\1 \2/p')
		if [ "$fs_rc" = 0 ] && [ -n "$fs_all" ] &&
		   [ "${fs_all% *}" = "${fs_all#* }" ]; then
			fs_v=PASS
		else
			fs_v=FAIL
		fi
		echo "$fs_v: user first samples: prefaulted at mmap and fork: every run's first sample complete, >= 95% complete, 0 wrong (${fs_first:-no result}; ${fs_sum:-no result}; $fs_mem)"
		[ $fs_v = PASS ] || sed 's/^/    /' /tmp/user-first.out
	done
	echo 1 >$fs_param
}

# ---- section pages reclaimed again and again --------------------------------
# A sample that finds a page of a section missing asks for the section's
# pages (faulted in when the task returns to user space), at most once a
# second per section: asking only once per mapping left every sample after
# the second reclaim without its chain. chain-sframe-static -z 1500: the
# sampled child drops its .sframe's page table entries every 1.5 s (as
# reclaim would), with the answer cache off (every lookup reads the
# section): >= 95% complete, 0 wrong, and at least two requests after
# failed samples. Not on PREEMPT_RT, where that path is off.
user_reclaim_test() {
	if [ "$(cat /sys/kernel/realtime 2>/dev/null)" = 1 ]; then
		echo "SKIP: user reclaim: PREEMPT_RT: no fault-in after a failed sample there"
		return
	fi
	rc_param=/sys/module/sframe/parameters/user_cache
	rc_stats=/sys/kernel/debug/sframe/user
	user_knobs "user reclaim" $rc_param $rc_stats || return
	echo 0 >$rc_param
	echo 0 >$rc_stats
	/usr/test/chain-sframe-static -z 1500 -n 5000 -p 1000 -T 120 -e -q \
		>/tmp/user-reclaim.out 2>&1
	rc_rc=$?
	echo 1 >$rc_param
	rc_sum=$(sed -n 's/^sampler: chain-sframe-static: \([0-9]* samples.*\)/\1/p' /tmp/user-reclaim.out)
	rc_lazy=$(awk '$1 == "lazy_fault_requests" { print $2 }' $rc_stats)
	if [ "$rc_rc" = 0 ] && [ "${rc_lazy:-0}" -ge 2 ]; then
		rc_v=PASS
	else
		rc_v=FAIL
	fi
	echo "$rc_v: user reclaim: .sframe pages dropped every 1.5 s: >= 95% complete, 0 wrong, asked for again (${rc_sum:-no result}; ${rc_lazy:-no} requests after a failed sample, >= 2)"
	[ $rc_v = PASS ] || sed 's/^/    /' /tmp/user-reclaim.out
}

# ---- no cached answer outlives its mapping ---------------------------------
# /usr/test/sframe-remap dlopen()s libremap-a.so and libremap-b.so in turn
# (same code layout, other frame sizes) while perf samples it: each round's
# samples in its leaf must walk with this round's library's rule, never
# with an answer cached from the other one at the same address (qemu/user/
# remap.c). Run with the answer cache on, then off: both must pass.
user_remap_test() {
	ur_param=/sys/module/sframe/parameters/user_cache
	for ur_cache in 1 0; do
		[ -w $ur_param ] && echo $ur_cache >$ur_param
		/usr/test/sframe-remap -r "${USER_REMAP_ROUNDS:-12}" /usr/test \
			>/tmp/user-remap.out 2>&1
		ur_rc=$?
		ur_sum=$(sed -n 's/^sframe-remap: \([0-9]* rounds.*\)/\1/p' /tmp/user-remap.out)
		exit_verdict $ur_rc "user remap: answer cache $([ $ur_cache = 1 ] && echo on || echo off): libraries swapped at one address, every chain from the library mapped now (${ur_sum:-no result})" \
			/tmp/user-remap.out
	done
	[ -w $ur_param ] && echo 1 >$ur_param
}

# ---- no cached row answers for another mapping's text ----------------------
# /usr/test/sframe-rows (qemu/user/rows.c) maps librows-sframe.so twice,
# the second copy right after the first, with the first copy's last
# function forged to run over the second; perf samples it while it calls
# the first copy's rows_g and the second copy's rows_f: no chain from the
# second rows_f may be walked with a row of the first rows_g (the row
# cache clamps a row to its own mapping's text).
user_rows_test() {
	/usr/test/sframe-rows -t "${USER_ROWS_SECONDS:-2}" /usr/test/librows-sframe.so \
		>/tmp/user-rows.out 2>&1
	rw_rc=$?
	rw_sum=$(sed -n "s/^sframe-rows: second copy's rows_f: \([0-9]* checked.*\)/\1/p" /tmp/user-rows.out)
	exit_verdict $rw_rc "user rows: a forged function runs over the next mapping: its PCs walk with their own rows, 0 wrong (${rw_sum:-no result})" \
		/tmp/user-rows.out
}

# ---- which text mappings keep their SFrame entry ---------------------------
# /usr/test/sframe-maps (qemu/user/maps.c) maps its own text again and
# changes it; debugfs sframe/user_maps (the reader's own entries) must list
# it while it stays executable and read-only (mprotect() to the same
# protection; on arm64 PROT_BTI added, as the dynamic loader adds it to
# BTI-marked objects), never while it is writable, and not in a child
# forked after MADV_DONTFORK (the child has a hole there). One line per
# check.
user_maps_test() {
	/usr/test/sframe-maps >/tmp/user-maps.out 2>&1
	um_rc=$?
	sed -n -e 's/^ok: \(.*\)/PASS: user maps: \1/p' \
		-e 's/^FAIL: \(.*\)/FAIL: user maps: \1/p' \
		-e 's/^skip: \(.*\)/SKIP: user maps: \1/p' /tmp/user-maps.out
	if [ "$um_rc" != 0 ] && ! grep -q '^FAIL: ' /tmp/user-maps.out; then
		echo "FAIL: user maps: sframe-maps exit $um_rc"
		sed 's/^/    /' /tmp/user-maps.out
	fi
}

# ---- an ELF file mapped PROT_EXEC through O_DIRECT on ext4 -----------------
# The kernel reads a new executable mapping's ELF headers (where its
# .sframe lies) from a task_work on the way back to user space, with no
# lock held, through the page cache. Read in mmap_region() under mmap_lock
# through an O_DIRECT descriptor, they took ext4's inode lock below
# mmap_lock: the reverse of the write path's order (lockdep's "possible
# circular locking dependency"). /usr/test/sframe-mapdio (qemu/user/
# mapdio.c) on a fresh file system (busybox mke2fs, mounted by the ext4
# driver) on a loop device: pwrite()s from untouched anonymous memory
# (inode lock -> mmap_lock), then libspin-sframe.so mapped like a loader
# from an O_DIRECT descriptor (text PROT_EXEC) and sampled by perf: >= 95%
# of the chains from its leaf complete through its SFrame. Then no
# circular locking dependency in the kernel log since, and the log clean.
# Only kernels with ext4 and the loop driver (the lockdep variant,
# qemu/configs/lockdep.config); nothing is printed on the others.
user_mapdio_test() {
	grep -qw ext4 /proc/filesystems || return 0
	[ -e /dev/loop0 ] || losetup -f >/dev/null 2>&1 || return 0
	mark "user mapdio"
	md_img=/tmp/mapdio-ext4.img
	md_mnt=/mnt/ext4
	md_dev=
	md_sum=
	md_why=
	: >/tmp/mapdio.out
	if ! busybox --list | grep -qx mke2fs; then
		md_why="busybox has no mke2fs"
	elif ! dd if=/dev/zero of=$md_img bs=1M count=64 2>>/tmp/mapdio.out; then
		md_why="cannot write a 64 MiB image to /tmp"
	elif ! md_dev=$(losetup -f) || [ -z "$md_dev" ] ||
	     ! losetup "$md_dev" $md_img 2>>/tmp/mapdio.out; then
		md_why="no loop device for the image"
	elif ! mke2fs -b 4096 "$md_dev" >>/tmp/mapdio.out 2>&1; then
		md_why="mke2fs $md_dev failed"
	elif ! mkdir -p $md_mnt ||
	     ! mount -t ext4 "$md_dev" $md_mnt 2>>/tmp/mapdio.out; then
		md_why="mount -t ext4 $md_dev failed"
	else
		/usr/test/sframe-mapdio $md_mnt >>/tmp/mapdio.out 2>&1
		md_rc=$?
		md_sum=$(sed -n 's/^sframe-mapdio: \(samples .*\)/\1/p' /tmp/mapdio.out)
		[ "$md_rc" = 0 ] || md_why="exit $md_rc"
	fi
	if [ -z "$md_why" ]; then md_v=PASS; else md_v=FAIL; fi
	echo "$md_v: user mapdio: ELF mapped PROT_EXEC through O_DIRECT on ext4: chains complete (${md_sum:-no result}${md_why:+; $md_why})"
	if [ $md_v = PASS ]; then
		grep 'first .* chain' /tmp/mapdio.out | sed 's/^/    /'
	else
		sed 's/^/    /' /tmp/mapdio.out
	fi

	# the lock order, from the kernel log since the mark
	if dmesg | grep -q "smoke: user mapdio: start"; then
		dmesg | sed -n '/smoke: user mapdio: start/,$p'
	else
		dmesg
	fi >/tmp/mapdio.dmesg
	if grep -q 'possible circular locking dependency' /tmp/mapdio.dmesg; then
		echo "FAIL: user mapdio: lockdep: possible circular locking dependency"
		grep -A 40 'possible circular locking dependency' /tmp/mapdio.dmesg |
			head -n 40 | sed 's/^/    /'
	elif [ ! -e /proc/lockdep_stats ]; then
		echo "PASS: user mapdio: no circular locking dependency reported (no lockdep in this kernel)"
	elif awk '$1 == "debug_locks:" { off = $2 == 0 } END { exit !off }' /proc/lockdep_stats; then
		echo "FAIL: user mapdio: lockdep off (debug_locks 0: a report, this run's or an earlier one, turned it off): lock order not checked"
	else
		echo "PASS: user mapdio: lockdep on, no circular locking dependency (inode lock -> mmap_lock by pwrite(), O_DIRECT descriptor mapped PROT_EXEC)"
	fi
	grep -q " $md_mnt " /proc/mounts && umount $md_mnt
	[ -n "$md_dev" ] && losetup -d "$md_dev" 2>/dev/null
	rm -f $md_img
	log_clean "user mapdio"
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
	mark "user hostile"
	if [ "${1:-}" != concurrent ]; then
		uh_run "forged .sframe and stacks under perf" \
			'\([0-9]* section variants.*\)' \
			-n "${USER_HOSTILE_VARIANTS:-1000}" -T 600
	fi
	uh_secs=20
	grep -q ' kasan_report$' /proc/kallsyms && uh_secs=30
	uh_secs=${USER_HOSTILE_CONC_SECONDS:-$uh_secs}
	uh_run "concurrent: no wrong frame on a pristine section" \
		'concurrent: \([0-9]* workers, .*\)' \
		-t 2 -d "$uh_secs" -e -T $((uh_secs * 4 + 120))
	log_clean "user hostile"
}

# uh_run WHAT SUMMARY-RE ARGS...: one sframe-hostile run, a PASS/FAIL line
# with its summary (the \(...\) of SUMMARY-RE after "sframe-hostile: ")
# and seed, its output when it fails.
uh_run() {
	uh_what=$1 uh_re=$2
	shift 2
	if /usr/test/sframe-hostile "$@" >/tmp/user-hostile.out 2>&1; then
		uh_v=PASS
	else
		uh_v=FAIL
	fi
	uh_sum=$(sed -n "s/^sframe-hostile: $uh_re/\\1/p" /tmp/user-hostile.out)
	uh_seed=$(sed -n 's/^sframe-hostile: seed \(0x[0-9a-f]*\).*/\1/p' /tmp/user-hostile.out)
	echo "$uh_v: user hostile: $uh_what (${uh_sum:-no result}; seed ${uh_seed:-?})"
	[ "$uh_v" = PASS ] || sed 's/^/    /' /tmp/user-hostile.out
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
		# "ns/sample frames/sample cache-hit-%" of this run, or nothing
		# without samples
		ub_one=$(awk '$1 == "samples" { s = $2 } $1 == "frames" { f = $2 }
			      $1 == "ns" { n = $2 }
			      $1 == "cache_hits" { h = $2 } $1 == "cache_misses" { m = $2 }
			      END { if (s > 0) printf "%.0f %.1f %.1f", n / s, f / s,
						    (h + m > 0 ? 100 * h / (h + m) : 0) }' $ub_stats)
		if [ "$ub_rc" = 2 ] || [ -z "$ub_one" ]; then
			echo "FAIL: user unwind bench: $ub_bin: no samples in $ub_stats (sampler exit $ub_rc)"
			sed 's/^/    /' /tmp/user-bench.out
			sed 's/^/    /' $ub_stats
			return
		fi
		ub_res="$ub_res $ub_one"
	done
	# shellcheck disable=SC2086 # ub_res: six numbers
	echo $ub_res | awk '{
		printf "BENCH: user callchain: frame pointers %d ns/sample (%.1f frames), ", $1, $2
		printf "SFrame %d ns/sample (%.1f frames), ", $4, $5
		if ($1 > 0)
			printf "ratio %.2f (goal <= 1.25); ", $4 / $1
		else
			printf "ratio n/a (goal <= 1.25); "
		printf "SFrame lookups answered by the cache: %.1f%%\n", $6
	}'
}

# ---- Debian's perf tool on the SFrame-built workloads -----------------------
# /usr/bin/perf (Debian's linux-perf) records /usr/test/chain-work-* (the
# chain as a plain program: static, dynamic with libchain.so, 4 threads;
# and static, built by clang with SFrame from sframe-gen --object)
# with kernel-side callchains (perf_callchain_user() walks the user stack
# with SFrame) and `perf script` shows every chain; /perf-chains.awk checks
# each sample whose leaf is a chain function against the whole expected
# caller sequence up to main (w_thread for the threads). PASS at >= 95%
# complete and 0 wrong (the threads: all 4 seen); short and wrong samples
# are listed either way (the first samples of a process whose .sframe is
# not resident yet come out short). `perf report --stdio -g caller` must
# show the chain too.
#   x86_64: perf record -g.
#   arm64: perf record -e cpu-clock/call-graph=fp/, the same callchains as
#     -g without the user LR that -g samples on arm64: from it perf 6.1's
#     report side adds the leaf's caller again (tools/perf/util/
#     arm64-frame-pointer-unwind-support.c, for frame-pointer walks that
#     miss it), off by one from the kernel's entry or a stale LR. A plain
#     -g run of the static workload shows that (numbers only: "extra" are
#     complete chains with perf's frame added).
# The same workload recorded with --call-graph dwarf (perf copies 8 KB of
# stack per sample, perf script unwinds it with libunwind) gives the BENCH
# line: samples, complete share, lost samples (PERF_RECORD_LOST), perf.data
# bytes and CPU time per sample of perf record (perf itself: the workload's
# own CPU time, which it prints, left out) and of perf script, and for
# SFrame the kernel's own walk time (debugfs sframe/user).
# PERF_TOOL_SECONDS: run time of each workload (default 2: about 2000
# samples of one thread under TCG, 1 kHz).

# pt_cpu: CPU seconds (user + sys) of this shell's finished children so far
# (`times`, second line: 0m1.230000s 0m0.450000s); not in a subshell.
pt_cpu() {
	times >/tmp/perf-times
	pt_c=$(awk 'NR == 2 { t = 0
		for (i = 1; i <= 2; i++) { split($i, a, "m"); sub(/s$/, "", a[2]); t += a[1] * 60 + a[2] }
		printf "%.3f", t }' /tmp/perf-times)
}

# pt_report DATA ROOT: perf report shows the chain ROOT -> ... -> w_leaf
# under w_leaf's entry (callers first); the output in /tmp/perf-report.out.
# No threshold for the chains shown (perf's default hides those of entries
# below 0.5%): under TCG a timer interrupt is taken only between translated
# blocks, so how many samples land in w_leaf's short loop varies by run.
pt_report() {
	perf report -i "$1" --stdio --no-children --no-inline -g graph,0,caller \
		>/tmp/perf-report.out 2>&1 &&
	awk -v want=" $2 w_outer w_a w_b w_c w_d w_leaf" '
		/^ *[0-9.]+%/ { inleaf = ($NF == "w_leaf"); next }
		inleaf && /[a-z_]/ { l = $0; sub(/^.*--/, "", l); gsub(/[|]/, " ", l)
			split(l, f, " "); if (f[1] != "") seq = seq " " f[1] }
		END { exit !index(seq " ", want " ") }' /tmp/perf-report.out
}

# pt_run BIN ROOT MODE: record /usr/test/BIN for $pt_secs with MODE (g:
# -g, term: cpu-clock/call-graph=fp/, dwarf: --call-graph dwarf), run
# perf script and the checker. Sets pt_n pt_chk pt_ok pt_short pt_wrong
# pt_thr pt_extra pt_lost pt_pct pt_rc pt_src and pt_num (the numbers).
pt_run() {
	pt_data=/tmp/perf-$3.data
	case $3 in
	g)	set -- "$1" "$2" "$3" -e cpu-clock -g ;;
	term)	set -- "$1" "$2" "$3" -e cpu-clock/call-graph=fp/ ;;
	dwarf)	set -- "$1" "$2" "$3" -e cpu-clock --call-graph dwarf ;;
	esac
	pt_bin=$1 pt_root=$2 pt_mode=$3
	shift 3
	[ -w $pt_stats ] && echo 0 >$pt_stats
	pt_cpu
	pt_c0=$pt_c
	perf record "$@" -F 1000 -N -o "$pt_data" -- \
		/usr/test/"$pt_bin" -t "$pt_secs" >/tmp/perf-record.out 2>&1
	pt_rc=$?
	pt_cpu
	pt_c1=$pt_c
	pt_kns=
	[ "$pt_mode" != dwarf ] && [ -r $pt_stats ] &&
		pt_kns=$(awk '$1 == "samples" { s = $2 } $1 == "ns" { n = $2 }
			      END { if (s > 0) printf "%.0f", n / s }' $pt_stats)
	perf script -i "$pt_data" -F tid,ip,sym,dso --no-inline --show-lost-events \
		>/tmp/perf-script.out 2>/tmp/perf-script.err
	pt_src=$?
	pt_cpu
	pt_c2=$pt_c
	awk -v root="$pt_root" -f /perf-chains.awk /tmp/perf-script.out >/tmp/perf-chains.out
	# samples N checked C complete K short S wrong W threads T extra E lost L
	# shellcheck disable=SC2046 # name-value pairs
	set -- $(sed -n 1p /tmp/perf-chains.out)
	pt_n=$2 pt_chk=$4 pt_ok=$6 pt_short=$8 pt_wrong=${10} pt_thr=${12} pt_extra=${14} pt_lost=${16}
	# (rounded down: 99.97% is 99.9%, not 100.0%)
	pt_pct=$(awk -v k="$pt_ok" -v c="$pt_chk" 'BEGIN { if (c > 0) printf "%.1f", int(1000 * k / c) / 10; else print 0 }')
	pt_bytes=$(wc -c <"$pt_data" 2>/dev/null || echo 0)
	# the workload's own CPU time: "chain-work: ... cpu user U s sys S s"
	pt_wcpu=$(sed -n 's/^chain-work: .* cpu user \([0-9.]*\) s sys \([0-9.]*\) s$/\1 \2/p' \
		/tmp/perf-record.out)
	pt_num=$(awk -v n="$pt_n" -v pct="$pt_pct" -v lost="$pt_lost" -v b="$pt_bytes" \
		-v c0="$pt_c0" -v c1="$pt_c1" -v c2="$pt_c2" -v w="$pt_wcpu" -v kns="$pt_kns" 'BEGIN {
		split(w, wc, " ")
		rec = c1 - c0 - wc[1] - wc[2]
		printf "%d samples, %s%% complete, %s lost, %d B (%.0f B/sample), ", n, pct, lost, b, n ? b / n : 0
		printf "record %.3f ms/sample (perf), script %.3f ms/sample", n ? 1000 * rec / n : 0, n ? 1000 * (c2 - c1) / n : 0
		if (kns != "")
			printf ", kernel SFrame walk %d ns/sample", kns
	}')
}

# pt_show: the short and wrong samples, the failure's output, two complete
# chains as perf script printed them
pt_show() {
	sed -n '2,$s/^/    /p' /tmp/perf-chains.out
	# the kernel's counters of the run (debugfs), when a chain came out short
	[ "${pt_short:-0}" = 0 ] || [ ! -r $pt_stats ] ||
		echo "    kernel sframe/user counters: $(tr '\n' ' ' <$pt_stats)"
	if [ "$1" = FAIL ]; then
		echo "    perf record exit $pt_rc, perf script exit $pt_src"
		tail -n 5 /tmp/perf-record.out /tmp/perf-script.err | sed 's/^/    /'
	fi
	awk 'BEGIN { RS = "" } $3 == "w_leaf" && n < 2 && /main|w_thread/ { n++; print }' \
		/tmp/perf-script.out | head -n 24 | sed 's/^/    | /'
}

perf_tool_tests() {
	export HOME=/tmp
	mark perf
	pt_secs=${PERF_TOOL_SECONDS:-2}
	pt_stats=/sys/kernel/debug/sframe/user
	grep -q " /sys/kernel/debug debugfs " /proc/mounts ||
		mount -t debugfs none /sys/kernel/debug 2>/dev/null
	pt_fp=g
	pt_fpname="perf record -g"
	if [ "$(uname -m)" = aarch64 ]; then
		pt_fp=term
		pt_fpname="perf record -e cpu-clock/call-graph=fp/"
	fi
	for pt_case in chain-work-static:main chain-work-dyn:main chain-work-threads:w_thread \
		       chain-work-clang:main; do
		pt_b=${pt_case%%:*}
		pt_r=${pt_case#*:}
		if [ $pt_fp = term ] && [ "$pt_b" = chain-work-static ] && ! skipped bench; then
			pt_run "$pt_b" "$pt_r" g
			echo "BENCH: perf: $pt_b: arm64 plain perf record -g (perf adds the leaf's caller from LR): $pt_chk checked, $pt_pct% complete, $pt_wrong wrong of which $pt_extra complete but for perf's added second frame"
			sed -n '2,$s/^/    /p' /tmp/perf-chains.out
		fi
		pt_run "$pt_b" "$pt_r" $pt_fp
		pt_need=">= 95% complete, 0 wrong"
		pt_thrs=
		if [ "$pt_r" = w_thread ]; then
			pt_need="$pt_need, 4 threads"
			pt_thrs=" in $pt_thr threads"
		fi
		pt_v=FAIL
		if [ "$pt_rc" = 0 ] && [ "$pt_src" = 0 ] && [ "${pt_chk:-0}" -gt 0 ] &&
		   [ "$pt_wrong" = 0 ] && [ $((pt_ok * 100)) -ge $((pt_chk * 95)) ] &&
		   { [ "$pt_r" != w_thread ] || [ "$pt_thr" = 4 ]; }; then
			pt_v=PASS
		fi
		echo "$pt_v: perf: $pt_b: $pt_fpname: ${pt_n:-0} samples$pt_thrs, $pt_chk checked, $pt_pct% complete chains, ${pt_short:-?} short, ${pt_wrong:-?} wrong, $pt_lost lost ($pt_need)"
		pt_show $pt_v
		if pt_report /tmp/perf-$pt_fp.data "$pt_r"; then
			pt_v=PASS
		else
			pt_v=FAIL
		fi
		echo "$pt_v: perf: $pt_b: perf report -g caller shows $pt_r -> w_outer -> w_a -> w_b -> w_c -> w_d -> w_leaf"
		[ $pt_v = PASS ] || head -n 40 /tmp/perf-report.out | sed 's/^/    /'
		pt_bench="SFrame ($pt_fpname) $pt_num"
		rm -f /tmp/perf-*.data
		# numbers only: perf's DWARF unwinding is not ours (one
		# workload, all three under DEEP=1)
		[ "$pt_b" = chain-work-static ] || [ -n "$deep" ] || continue
		skipped bench && continue
		pt_run "$pt_b" "$pt_r" dwarf
		echo "BENCH: perf: $pt_b: $pt_bench; DWARF (--call-graph dwarf) $pt_num, $pt_wrong wrong"
		sed -n '2,$s/^/    /p' /tmp/perf-chains.out
		rm -f /tmp/perf-*.data
	done
}

# ---- a forged .sframe costs a bounded time per sample ----------------------
# /usr/test/sframe-costly SHAPE 3 spins 3 s at the bottom of a 100-frame
# frame-pointer chain while Debian's perf samples it at 1 kHz (user-only
# cpu-clock, kernel-side callchains: a sample looks up ~100 PCs in the
# program's SFrame section). SHAPE real: its own .sframe. The others
# re-exec a copy of the program whose PT_GNU_SFRAME points to 64 MiB of
# anonymous memory it fills with a well-formed section that makes each
# lookup walk all of it (qemu/user/costly.c): unsorted (v2 without the
# sorted flag, 2.8 million FDEs, none covering the text), rows (one FDE,
# 9.6 million rows, the answer in the last), v3 (unsorted v3: each FDE's
# attribute read from elsewhere in the section), pcmask (one v1 PCMASK
# FDE: all its rows scanned on every lookup). Unbounded, one such lookup
# costs milliseconds, a sample seconds of interrupt time. Each forged
# shape must keep >= 50% of real's loop throughput: the kernel bounds the
# work of a lookup and of a sample whatever a section holds.  On a KCSAN
# or KASAN kernel the goal is 25%: every kernel memory access there costs
# several times what it costs in production while the program's loop runs
# at full speed, so a bounded walk takes a larger share (recover's second
# half, 100 uncached lookups per sample in an anonymous section: 37-40%
# under KCSAN); an unbounded one still takes ~all of it (a sample costs
# seconds). With each:
# samples, the kernel's walk time per sample and the walks its budgets
# stopped (debugfs sframe/user, reset before each run). recover: the
# unsorted section for 1.5 s, then rewritten in place into a good one: the
# kernel refuses the first but must read the second again (>= 50 SFrame
# frames per sample after the repair, checked by the program). A soft
# lockup or RCU stall meanwhile fails (log_clean).
# uc_run SHAPE: sframe-costly SHAPE under perf record; sets uc_rc, uc_rate
# (loop iterations/s) and uc_k (the kernel's counters of the run)
uc_run() {
	[ -w $uc_stats ] && echo 0 >$uc_stats
	# shellcheck disable=SC2086 # uc_ev: several words
	perf record $uc_ev -F 1000 -N -B -o /tmp/costly.data -- \
		/usr/test/sframe-costly "$1" 3 >/tmp/costly.out 2>&1
	uc_rc=$?
	cat $uc_stats >/tmp/costly.stats 2>/dev/null
	rm -f /tmp/costly.data "/tmp/sframe-costly-$1"
	uc_rate=$(sed -n "s/^sframe-costly: $1 iterations [0-9]* seconds [0-9.]* rate \([0-9]*\)$/\1/p" \
		/tmp/costly.out)
	uc_k=$(awk '{ v[$1] = $2 }
		END { s = v["samples"] + 0
		      printf "%d samples, kernel SFrame walk %s ns/sample, budget stops %d, unsorted %d, refused lookups %d", s,
			     (s > 0 ? sprintf("%.0f", v["ns"] / s) : "n/a"),
			     v["lookup_budget"] + v["sample_budget"], v["unsorted"], v["refused"] }' /tmp/costly.stats)
}

# uc_measured: the last run gave a rate and real's is known
uc_measured() {
	[ "$uc_rc" = 0 ] && [ -n "$uc_rate" ] && [ -n "$uc_real" ]
}

# uc_kept: the last run kept >= uc_goal % of real's loop throughput
uc_kept() {
	uc_measured && awk -v r="$uc_rate" -v b="$uc_real" -v g="$uc_goal" \
		'BEGIN { exit !(100 * r >= g * b) }'
}

# uc_pct: the last run's rate in % of real's
uc_pct() {
	awk -v r="${uc_rate:-0}" -v b="${uc_real:-0}" \
		'BEGIN { if (b > 0) printf "%.1f", int(1000 * r / b) / 10; else print "?" }'
}

user_costly_tests() {
	export HOME=/tmp
	uc_stats=/sys/kernel/debug/sframe/user
	grep -q " /sys/kernel/debug debugfs " /proc/mounts ||
		mount -t debugfs none /sys/kernel/debug 2>/dev/null
	# arm64: call-graph=fp in the event, as perf_tool_tests (no user LR)
	uc_ev="-e cpu-clock:u -g"
	[ "$(uname -m)" = aarch64 ] && uc_ev="-e cpu-clock/call-graph=fp/u"
	uc_real=
	uc_goal=50 uc_why=
	if grep -qE ' (kasan_report|__tsan_read4)$' /proc/kallsyms; then
		uc_goal=25 uc_why=" on a sanitizer kernel"
	fi
	mark "user costly"
	for uc_shape in real unsorted rows v3 pcmask recover; do
		uc_run $uc_shape
		uc_v=FAIL
		if [ $uc_shape = real ]; then
			[ "$uc_rc" = 0 ] && [ -n "$uc_rate" ] && uc_v=PASS uc_real=$uc_rate
			echo "$uc_v: user costly: real: ${uc_rate:-no} iterations/s with its own .sframe ($uc_k)"
		else
			# A guest's loop speed swings from run to run (a real
			# run at 314 and at 507 million iterations/s on one
			# kernel): a miss is measured again, next to a new real
			# run.  A section that costs too much misses both times.
			uc_again=
			if uc_measured && ! uc_kept; then
				uc_again=", measured again after $(uc_pct)%"
				uc_run real
				[ "$uc_rc" = 0 ] && [ -n "$uc_rate" ] && uc_real=$uc_rate
				uc_run $uc_shape
			fi
			uc_kept && uc_v=PASS
			uc_pct=$(uc_pct)
			if [ $uc_shape = recover ]; then
				uc_rep=$(sed -n 's/^sframe-costly: recover: repaired: //p' /tmp/costly.out)
				echo "$uc_v: user costly: recover: a refused section rewritten in place is read again (after the repair: ${uc_rep:-no numbers}; goal >= 50 SFrame frames per sample), $uc_pct% of real's loop throughput (goal >= $uc_goal%$uc_why$uc_again)"
			else
				echo "$uc_v: user costly: $uc_shape keeps $uc_pct% of real's loop throughput (goal >= $uc_goal%$uc_why$uc_again; $uc_k)"
			fi
		fi
		[ $uc_v = PASS ] || { echo "    perf record exit $uc_rc"
			tail -n 20 /tmp/costly.out | sed 's/^/    /'
			echo "    kernel sframe/user counters: $(tr '\n' ' ' </tmp/costly.stats)"; }
	done
	log_clean "user costly"
}

# perf user call chains from SFrame (CONFIG_SFRAME_USER_UNWIND): the
# sampler on each build of the workload, hostile sections and stacks, and
# the per-sample cost against frame pointers.
# (sframe_only=hostile-mt: only the concurrent hostile run)
if [ -z "$kunit_only" ] && { want user || want hostile-mt || want bench; } &&
   grep -q 'sframe_user_callchain' /proc/kallsyms && [ -x /usr/test/chain-fp ]; then
	if ! want user && want bench; then
		user_unwind_bench
	elif ! want user; then
		user_hostile_tests concurrent
	elif [ -n "$tour" ]; then
		USER_UNWIND_SAMPLES=300 user_unwind_tests
		USER_REMAP_ROUNDS=4 user_remap_test
		user_maps_test
		USER_UNWIND_BENCH_SAMPLES=500 user_unwind_bench
	else
		user_unwind_tests
		user_first_samples
		user_reclaim_test
		user_remap_test
		user_rows_test
		user_maps_test
		user_mapdio_test
		user_hostile_tests
		skipped bench || user_unwind_bench
	fi
fi

# ---- BPF: Debian's bpftrace -------------------------------------------------
# bpftrace (on the tools disk, /dev/vda: scripts/initramfs.sh) takes its
# stacks with bpf_get_stackid(): user stacks from our perf user unwinder on
# both arches, kernel stacks from perf's kernel callchain (on arm64
# arch_stack_walk(): ours; on x86_64 ORC's unwind API).
#   profile ustack: a profile probe at 997 Hz on chain-work-static (the
#     perf tests' workload), ustack(perf) turned into perf script's form
#     for /perf-chains.awk: >= 95% complete, 0 wrong, as perf's
#   kprobe kstack: a kernel stack at each call of a function our lookup
#     cache's fill calls (sframe_rows_find, sframe_find), a walk nested in
#     ours, under the tracers' load (tr_load): stacks recorded, and every
#     cached answer equals a fresh lookup afterwards
#   profile kstack: every CPU at 997 Hz under the same load: stacks recorded
# and a clean kernel log. The workload outlives bpftrace, which names the
# user frames from the live process when it prints.
bt_run() {
	# bt_run SECONDS PROGRAM: bpftrace in the background, waited for
	# until attached; bt_pid
	env LD_LIBRARY_PATH=/opt/lib BPFTRACE_STRLEN=16 /opt/bin/bpftrace \
		-e "$2 interval:s:$1 { exit(); }" >/tmp/bt.out 2>/tmp/bt.err &
	bt_pid=$!
	bt_t=0
	until grep -q '^Attaching' /tmp/bt.out 2>/dev/null; do
		kill -0 $bt_pid 2>/dev/null || return 1
		bt_t=$((bt_t + 1))
		[ $bt_t -lt 600 ] || return 1
		sleep 0.2
	done
}

# bt_stacks: perf script's form of bpftrace's ustack(perf)/kstack(perf)
# map (each stack as many times as its count; "+OFFSET" dropped)
bt_stacks() {
	awk '/^@[a-z]*\[/ { n = 0; next }
	     /^\t/ { sym = $2; sub(/\+[0-9]+$/, "", sym); fr[++n] = "\t" $1 " " sym " " $3; next }
	     /^\]: [0-9]+$/ { for (c = 0; c < $2; c++) { print "1"; for (j = 1; j <= n; j++) print fr[j]; print "" } n = 0 }' "$@"
}

bpf_tests() {
	# (the sysctl exists with CONFIG_BPF_SYSCALL: x86_64's defconfig has none)
	if [ ! -e /proc/sys/kernel/unprivileged_bpf_disabled ]; then
		echo "SKIP: bpf: the kernel has no bpf() system call (CONFIG_BPF_SYSCALL)"
		return
	fi
	if ! grep -q squashfs /proc/filesystems || [ ! -b /dev/vda ]; then
		echo "FAIL: bpf: no tools disk (/dev/vda, squashfs)"
		return
	fi
	mkdir -p /opt
	grep -q " /opt squashfs " /proc/mounts || mount -t squashfs -o ro /dev/vda /opt ||
		{ echo "FAIL: bpf: cannot mount the tools disk"; return; }
	grep -q " /sys/kernel/debug debugfs " /proc/mounts ||
		mount -t debugfs none /sys/kernel/debug 2>/dev/null
	[ -e /sys/kernel/tracing/trace ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	export HOME=/tmp
	mark bpf

	# user stacks of the perf tests' workload
	perf_rate_reset
	if bt_run 4 'profile:hz:997 /comm == "chain-work-stat"/ { @u[ustack(perf)] = count(); }'; then
		# (killed once bpftrace has named its frames)
		/usr/test/chain-work-static -t 600 >/dev/null 2>&1 &
		bt_w=$!
		wait $bt_pid
		bt_rc=$?
		kill $bt_w 2>/dev/null
		wait $bt_w 2>/dev/null
	else
		bt_rc=attach
		kill $bt_pid 2>/dev/null
	fi
	bt_stacks /tmp/bt.out | awk -v root=main -f /perf-chains.awk >/tmp/bt-chains.out
	# samples N checked C complete K short S wrong W ...
	# shellcheck disable=SC2046 # name-value pairs
	set -- $(sed -n 1p /tmp/bt-chains.out)
	bt_chk=${4:-0} bt_ok=${6:-0} bt_wrong=${10:-?}
	bt_pct=$(awk -v k="$bt_ok" -v c="$bt_chk" 'BEGIN { if (c) printf "%.1f", 100 * k / c; else print 0 }')
	if [ "$bt_rc" = 0 ] && [ "$bt_chk" -gt 0 ] && [ "$bt_wrong" = 0 ] &&
	   [ $((bt_ok * 100)) -ge $((bt_chk * 95)) ]; then
		echo "PASS: bpf: bpftrace profile ustack of chain-work-static: $bt_chk checked, $bt_pct% complete, 0 wrong (>= 95% complete, 0 wrong, as perf)"
	else
		echo "FAIL: bpf: bpftrace profile ustack of chain-work-static (bpftrace exit $bt_rc): ${2:-0} samples, $bt_chk checked, $bt_pct% complete, $bt_wrong wrong"
		sed -n '2,$s/^/    /p' /tmp/bt-chains.out
		head -n 10 /tmp/bt.err /tmp/bt.out | sed 's/^/    /'
	fi

	# kernel stacks: nested in our fill path, and of every CPU
	tr_pick_addrs
	for bt_case in "kprobe kstack nested in our lookups|$lookup_probes { @k[kstack(perf)] = count(); }" \
		       "profile kstack of every CPU|profile:hz:997 { @k[kstack(perf)] = count(); }"; do
		bt_name=${bt_case%%|*}
		echo 1 >/sys/kernel/debug/sframe/cache_check
		perf_rate_reset
		if bt_run 4 "${bt_case#*|}"; then
			tr_load 5
			wait $bt_pid
			bt_rc=$?
		else
			bt_rc=attach
			kill $bt_pid 2>/dev/null
		fi
		bt_n=$(bt_stacks /tmp/bt.out | grep -c '^1$')
		bt_bad=$(awk '{ n += $2 } END { print n + 0 }' /sys/kernel/debug/sframe/cache_check)
		if [ "$bt_rc" = 0 ] && [ "$bt_n" -gt 0 ] && [ "$bt_bad" = 0 ]; then
			echo "PASS: bpf: bpftrace $bt_name: $bt_n stacks, cached answers differing from a fresh lookup: 0"
		else
			echo "FAIL: bpf: bpftrace $bt_name (bpftrace exit $bt_rc): $bt_n stacks, $bt_bad cached answers differ from a fresh lookup"
			sed 's/^/    /' /sys/kernel/debug/sframe/cache_check
			head -n 10 /tmp/bt.err /tmp/bt.out | sed 's/^/    /'
			# the same probes without kstack: do they fire at all?
			case $bt_name in kprobe*)
				if bt_run 3 "$lookup_probes { @hits = count(); }"; then
					tr_load 4
					wait $bt_pid
				fi
				echo "    the same probes, counting only:"
				sed 's/^/    /' /tmp/bt.out /tmp/bt.err
			esac
		fi
	done
	rm -f /tmp/bt.out
	log_clean bpf
}

if [ -z "$kunit_only" ] && [ -z "$tour" ] && want bpf; then
	bpf_tests
fi

# Debian's perf tool on the same chain: perf record -g / --call-graph dwarf,
# perf script, perf report (perf_tool_tests above).
if [ -z "$kunit_only" ] && [ -z "$tour" ] && want perf &&
   grep -q 'sframe_user_callchain' /proc/kallsyms && [ -x /usr/test/chain-work-static ]; then
	if [ -x /usr/bin/perf ]; then
		perf_tool_tests
	else
		echo "FAIL: perf: /usr/bin/perf not in the initramfs"
	fi
fi

# A forged .sframe costs bounded time per sample (user_costly_tests above).
if [ -z "$kunit_only" ] && [ -z "$tour" ] && want costly &&
   grep -q 'sframe_user_callchain' /proc/kallsyms && [ -x /usr/test/sframe-costly ]; then
	if [ -x /usr/bin/perf ]; then
		user_costly_tests
	else
		echo "FAIL: user costly: /usr/bin/perf not in the initramfs"
	fi
fi

# Anything that looks like a kernel splat fails the run.
# (but the reports the dumps stage asked for)
check "dmesg clean" sh -c '! dmesg | sed "/smoke: dumps: start/,/smoke: dumps: end/d" |
	grep -E "Oops|BUG:|WARNING:|KASAN|Call Trace"'
