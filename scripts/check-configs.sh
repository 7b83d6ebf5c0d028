#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make check-configs: our code builds in every configuration its Kconfig
# allows.  For each arch and each combination below (our options on and
# off, the architecture's unwinder chosen instead of ours; ftrace, the graph tracer, kprobes, modules, livepatch, KUnit, perf
# events and stack traces absent), configure tinyconfig + the combination
# in build/kcfg-ARCH and compile only our objects (sframe-unwind/) and the
# kernel files our patches touch.  Then check that the objects that must
# never carry SFrame don't (vDSO, KVM nVHE hyp code, purgatory, EFI stub)
# in the test kernels' build directories.
# One PASS/FAIL line per combination in build/results/configs.txt.
set -uo pipefail

. "$(dirname "$0")/common.sh"
res=$RESULTS/configs.txt
: >"$res"

# name:options (comma-separated; =n switches off, default =y)
COMBOS="
all:
no-modules:MODULES=n
no-tracing:FTRACE=n,FUNCTION_TRACER=n,FUNCTION_GRAPH_TRACER=n,KPROBES=n
no-perf:PERF_EVENTS=n
no-kunit:KUNIT=n
kunit-module:KUNIT=m,SFRAME_UNWIND_KUNIT_TEST=n
no-livepatch:LIVEPATCH=n
no-stacktrace:STACKTRACE=n
arch-unwinder:SFRAME_UNWINDER_ARCH=y
core-only:SFRAME_UNWINDER_ARCH=y,SFRAME_UNWIND_VERIFY=n,SFRAME_USER_UNWIND=n
sframe-off:SFRAME_UNWIND=n
"

# What every combination starts from (then the combination's changes).
BASE="64BIT SMP PRINTK TTY BLK_DEV_INITRD BINFMT_ELF PROC_FS SYSFS KALLSYMS
      KALLSYMS_ALL MODULES MODULE_UNLOAD PERF_EVENTS KPROBES FTRACE
      FUNCTION_TRACER FUNCTION_GRAPH_TRACER DEBUG_KERNEL DEBUG_FS KUNIT
      STACKTRACE FUTEX SLUB SFRAME_UNWIND SFRAME_UNWINDER SFRAME_USER_UNWIND
      SFRAME_UNWIND_VERIFY SFRAME_UNWIND_KUNIT_TEST LIVEPATCH DYNAMIC_DEBUG"
BASE_X86="UNWINDER_ORC"

# (each line's names: 6.1's thunk_64.S is 6.12's thunk.S, whose THUNK
# macro the series annotates in calling.h; a name the tree lacks has no
# rule and is skipped)
objs_for() {	# the patched kernel files of ARCH, as objects
	case $1 in
	x86_64)	echo arch/x86/entry/entry_64.o arch/x86/entry/thunk_64.o \
		     arch/x86/entry/thunk.o \
		     arch/x86/events/core.o arch/x86/kernel/head_64.o \
		     arch/x86/kernel/stacktrace.o ;;
	arm64)	echo arch/arm64/kernel/entry.o arch/arm64/kernel/head.o \
		     arch/arm64/kernel/stacktrace.o arch/arm64/kernel/signal.o \
		     arch/arm64/kernel/patching.o kernel/livepatch/ ;;
	esac
	echo kernel/fork.o mm/mmap.o mm/mprotect.o
}

for arch in x86_64 arm64; do
	arch_setup "$arch"
	OUT=$KB/kcfg-$arch
	KMAKE=("${KMAKE[@]/#O=*/O=$OUT}")
	mkdir -p "$OUT"
	for combo in $COMBOS; do
		name=${combo%%:*}
		opts=${combo#*:}
		log=$LOGS/configs-$arch-$name.log
		frag=$OUT/fragment.config
		{
			for o in $BASE; do echo "CONFIG_$o=y"; done
			[ "$arch" != x86_64 ] || for o in $BASE_X86; do echo "CONFIG_$o=y"; done
			echo "CONFIG_SFRAME_UNWIND_KUNIT_MODULE_TEST=m"
			echo "CONFIG_SFRAME_UNWIND_DEMO=m"
			echo "CONFIG_SFRAME_UNWIND_KLP_TEST=m"
			for o in ${opts//,/ }; do
				case $o in
				*=n) echo "# CONFIG_${o%=n} is not set" ;;
				*) echo "CONFIG_$o" ;;
				esac
			done
		} >"$frag"
		t0=$(date +%s)
		if ! { "${KMAKE[@]}" tinyconfig &&
		       "$KSRC/scripts/kconfig/merge_config.sh" -m -O "$OUT" \
				"$OUT/.config" "$frag" &&
		       "${KMAKE[@]}" olddefconfig; } >"$log" 2>&1; then
			fail "configs: $arch $name: configure" | tee -a "$res"
			continue
		fi
		# Our objects, then the patched files: one this configuration
		# leaves out has no rule to make it (skipped).
		ok=1
		kmod=$OUT/sframe-unwind/kunit/sframe_module_kunit.o
		rm -f "$kmod"
		"${KMAKE[@]}" sframe-unwind/ >>"$log" 2>&1 || ok=
		# the module test builds whether or not the built-in suites do
		! grep -q '^CONFIG_SFRAME_UNWIND_KUNIT_MODULE_TEST=m' "$OUT/.config" ||
			[ -e "$kmod" ] || { echo "error: no $kmod" >>"$log"; ok=; }
		# every sframe_* symbol our objects use is defined by them: a
		# file left out that another calls would fail vmlinux's link
		undef=$(cd "$OUT" && comm -23 \
			<(nm -u sframe-unwind/built-in.a 2>/dev/null |
			  awk '$2 ~ /^sframe_/ { print $2 }' | sort -u) \
			<(nm --defined-only sframe-unwind/built-in.a 2>/dev/null |
			  awk '$3 ~ /^sframe_/ { print $3 }' | sort -u))
		[ -z "$undef" ] || { echo "error: undefined at link:" $undef >>"$log"; ok=; }
		# objects that exist only with MODULES / ARM64_MODULE_PLTS
		extra=
		! grep -q '^CONFIG_MODULES=y' "$OUT/.config" ||
			extra="kernel/module/main.o $([ "$arch" = arm64 ] && echo arch/arm64/kernel/module.o)"
		! grep -q '^CONFIG_PERF_EVENTS=y' "$OUT/.config" || [ "$arch" != arm64 ] ||
			extra="$extra arch/arm64/kernel/perf_callchain.o"
		! grep -q '^CONFIG_ARM64_MODULE_PLTS=y' "$OUT/.config" ||
			extra="$extra arch/arm64/kernel/module-plts.o"
		# (6.12 builds a single object even where the configuration
		# leaves it out: only those it builds)
		! grep -q '^CONFIG_FUNCTION_TRACER=y' "$OUT/.config" || [ "$arch" != arm64 ] ||
			extra="$extra arch/arm64/kernel/ftrace.o"
		for o in $(objs_for "$arch") $extra; do
			[ -n "$ok" ] || break
			"${KMAKE[@]}" "$o" >"$log.obj" 2>&1 ||
				grep -q 'No rule to make target' "$log.obj" || ok=
			cat "$log.obj" >>"$log"
		done
		rm -f "$log.obj"
		if [ -n "$ok" ] && ! grep -E ': (warning|error):' "$log" >/dev/null; then
			pass "configs: $arch $name ($(( $(date +%s) - t0 )) s)" | tee -a "$res"
		else
			fail "configs: $arch $name (log: ${log#"$ROOT"/})" | tee -a "$res"
			grep -E ': (warning|error):' "$log" | head -5 | sed 's/^/    /'
		fi
	done
done

# Objects that must never carry SFrame, in the test kernels' builds.
for arch in x86_64 arm64; do
	for dir in "$KB/kbuild-$arch" "$KB/kbuild-$arch-defconfig"; do
		[ -d "$dir" ] || continue
		bad=
		while read -r f; do
			# the vDSO's kernel-side objects are kernel code
			case $f in */vdso/vma.o|*/vdso/extable.o|*/vdso/vdso-image-*.o|*/vdso/vdso.o|*/vdso/vdso32-setup.o) continue ;; esac
			readelf -SW "$f" 2>/dev/null | grep -q ' \.sframe ' && bad="$bad ${f#"$dir"/}"
		done < <(find "$dir/arch/x86/entry/vdso" "$dir/arch/arm64/kernel/vdso" \
			      "$dir/arch/arm64/kvm/hyp/nvhe" "$dir/arch/x86/purgatory" \
			      "$dir/drivers/firmware/efi/libstub" "$dir/arch/arm64/kernel/pi" \
			      \( -name '*.o' -o -name '*.so' -o -name '*.so.dbg' -o -name '*.ro' \) \
			      2>/dev/null)
		if [ -z "$bad" ]; then
			pass "configs: no .sframe in vDSO/hyp/purgatory/EFI stub objects (${dir#"$ROOT"/})" | tee -a "$res"
		else
			fail "configs: .sframe in${bad}" | tee -a "$res"
		fi
	done
done
"$ROOT/scripts/summary.sh" "$res"
