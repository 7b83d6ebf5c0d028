# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Shared settings for the kernel harness scripts (sourced, not run), and
# their PASS/FAIL helpers (scripts/testlib.sh).
# arch_setup ARCH sets: KARCH, OUT (build dir), IMAGE, KMAKE (make command).
# VARIANT=name builds in build/kbuild-ARCH-name with qemu/configs/name.config;
# VARIANT=clang builds with LLVM=1 (clang, lld, LLVM binutils).
#
# KVER=6.1|6.12 picks the kernel line (default 6.1).  Each line has its
# own build area KB: build/ for 6.1, build/6.12/ for 6.12, holding the
# patched tree (KB/linux), the kernel builds, initramfs images, logs and
# results; what does not depend on the kernel (host tools, user programs,
# busybox, perf, bpftrace) is shared in build/.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/testlib.sh
. "$ROOT/scripts/testlib.sh"
KVER=${KVER:-6.1}
case $KVER in
6.1)	KB=$ROOT/build ;;
6.12)	KB=$ROOT/build/$KVER ;;
*)	echo "KVER=$KVER: supported kernel lines are 6.1 and 6.12" >&2; exit 2 ;;
esac
export KVER
KSRC=${KDIR:-$KB/linux}
LOGS=$KB/logs
RESULTS=$KB/results
export CCACHE_BASEDIR=$ROOT/build
# defconfig builds of both arches need more than the default 5 GB
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-25G}
# Depend mode: on a miss ccache compiles once and keys the result by the
# compiler's dependency file (kbuild's -Wp,-MMD), instead of running the
# preprocessor once more to hash its output.  On kernel objects a miss
# then costs a fifth of the CPU less, the first build on a new machine
# minutes less; hits (and results stored without it) are the same.
export CCACHE_DEPEND=${CCACHE_DEPEND:-1}
# Called from make: do not leak the caller's flags (ARCH, C=, jobserver...).
unset MAKEFLAGS MFLAGS MAKELEVEL

arch_setup() {
	local cross=
	case "${1:-}" in
	x86_64)	KARCH=x86_64; IMAGE=arch/x86/boot/bzImage ;;
	arm64)	KARCH=arm64; IMAGE=arch/arm64/boot/Image
		cross=aarch64-linux-gnu- ;;
	*)	echo "usage: $(basename "$0") x86_64|arm64" >&2; exit 2 ;;
	esac
	OUT=$KB/kbuild-$1${VARIANT:+-$VARIANT}
	if [ "${VARIANT:-}" = clang ]; then
		# LLVM=1: clang, its integrated assembler, lld and the LLVM
		# binutils; the target comes from ARCH (scripts/Makefile.clang)
		KMAKE=(make -C "$KSRC" O="$OUT" ARCH="$KARCH" -j2 LLVM=1
		       HOSTCC="ccache clang" CC="ccache clang")
	else
		KMAKE=(make -C "$KSRC" O="$OUT" ARCH="$KARCH" -j2
		       HOSTCC="ccache gcc" CC="ccache ${cross}gcc")
		[ -z "$cross" ] || KMAKE+=(CROSS_COMPILE="$cross")
	fi
	mkdir -p "$LOGS" "$RESULTS"
}

# deadline_cap SECONDS: a guest's timeout, SECONDS, or what is left until
# CHECK_DEADLINE (make check's CHECK_BUDGET ends then) if that is less (at
# least a minute): a guest that hangs or is slow near the end of the
# budget fails with its results, instead of running past CI's limit
deadline_cap() {
	local left
	[ -n "${CHECK_DEADLINE:-}" ] || { echo "$1"; return; }
	left=$(( CHECK_DEADLINE - $(date +%s) ))
	[ "$left" -ge 60 ] || left=60
	echo $(( left < $1 ? left : $1 ))
}

# tcg_thread: the TCG threading of this line's guests (qemu_cmd says why):
# "single" (6.12: one host thread for all vCPUs, so one core each; make
# check runs the two arches' guests together), or empty (QEMU's default).
tcg_thread() {
	if [ -n "${QEMU_TCG_THREAD:-}" ]; then
		echo "$QEMU_TCG_THREAD"
	elif [ "$KVER" = 6.12 ]; then
		echo single
	fi
}

# qemu_cmd ARCH INITRD CMDLINE: sets QEMU, the TCG command line for the
# kernel in $OUT (console on stdio, exits instead of rebooting).
qemu_cmd() {
	# shellcheck disable=SC2054 # -cpu takes a comma-separated list
	case $1 in
	x86_64)	QEMU=(qemu-system-x86_64 -bios qboot.rom)
		set -- "$1" "$2" "console=ttyS0 $3" ;;
	arm64)	QEMU=(qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on)
		set -- "$1" "$2" "console=ttyAMA0 $3" ;;
	esac
	# 6.12 guests run both vCPUs on one TCG thread.  Under QEMU 7.2's
	# multi-threaded TCG, a vCPU can go on running a translation of text
	# that another vCPU rewrote, long after the rewrite:
	#  - x86_64: a 6.12 guest dies on an INT3 that is no longer in memory
	#    ("Oops: int3"); 6.12 rewrites static calls and jump labels in
	#    __schedule (trace events, livepatch transitions) often enough to
	#    hit it in a boot test, unpatched kernels too; sframe_only=textpoke
	#    (qemu/smoke.sh) reproduces it;
	#  - arm64: the livepatch selftest test-syscall.sh (6.12's, not in
	#    6.1) fails on most first runs: 80 s after ftrace turned the NOP
	#    of __arm64_sys_getpid into a call (memory holds the BL and the
	#    right ops literal), the processes calling it have not reached the
	#    new function; once QEMU is made to translate again (the monitor's
	#    "singlestep on", then off) they do at once.
	# 6.1 hits neither, nor does one TCG thread (0 of 5 first runs of
	# test-syscall.sh failed, 5 of 6 did with two).
	# QEMU_TCG_THREAD=single|multi overrides.
	# (QEMU's default is multi, and single under -icount.)
	local tcg
	tcg=$(tcg_thread)
	[ -z "$tcg" ] || QEMU+=(-accel "tcg,thread=$tcg")
	QEMU+=(-smp "${SMP:-2}" -m "${QEMU_MEM:-512}" -nographic -no-reboot -kernel "$OUT/$IMAGE"
	       -initrd "$2" -append "$3")
	# the tools disk (scripts/initramfs.sh), read-only, as /dev/vda
	if [ -f "$ROOT/build/tools-$1.squashfs" ]; then
		QEMU+=(-drive "file=$ROOT/build/tools-$1.squashfs,if=none,id=tools,format=raw,readonly=on"
		       -device "$([ "$1" = x86_64 ] && echo virtio-blk-pci || echo virtio-blk-device),drive=tools")
	fi
}
