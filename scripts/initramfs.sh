#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build build/initramfs-ARCH.cpio.gz: static busybox, an /init that mounts
# proc/sys/devtmpfs, runs /smoke.sh and powers off, every module of the
# build in /lib/modules/RELEASE (modules_install: modprobe finds them), and
# those under sframe-unwind/ (modules.order) again in /lib/modules-test/,
# and the user-space unwinding tests (scripts/build-user.sh, qemu/user/:
# the sampler builds, sframe-hostile, sframe-costly...) in /usr/test/ with
# the dynamic loader and C library they need.
# With CONFIG_LIVEPATCH=y and CONFIG_TEST_LIVEPATCH=m (their modules) also
# the kernel's livepatch selftests (tools/testing/selftests/livepatch of
# the source tree, unmodified) in /selftests/livepatch/, their runner
# qemu/livepatch-selftests.sh, and the real tools they need where busybox
# lacks options (Debian's bash-static, kmod, coreutils, diffutils, procps,
# util-linux: the host's for x86_64, build/klp-tools-arm64/ from
# scripts/deps.sh for arm64) in /usr/bin (behind busybox's /bin in /init's
# PATH; the runner puts it first), the libraries they need in /lib.
# Debian's perf tool (linux-perf: the host's /usr/bin/perf for x86_64,
# build/perf-arm64/ from scripts/deps.sh for arm64) at /usr/bin/perf with
# every library it needs in /lib, for the perf tests (qemu/perf-chains.awk).
# Debian's bpftrace (the host's /usr/bin/bpftrace for x86_64,
# build/bpftrace-arm64/ for arm64) and the libraries it needs that the
# initramfs lacks (LLVM, clang: about 200 MB, more than the VMs' RAM should
# hold) go on a disk instead: build/tools-ARCH.squashfs, /bin and /lib,
# which scripts/common.sh attaches (virtio-blk) and qemu/smoke.sh mounts.
set -euo pipefail

. "$(dirname "$0")/common.sh"
arch_setup "${1:-}"
A=$1
case $A in
x86_64)	busybox=/bin/busybox
	off="reboot -f"		# no ACPI in the test kernel: QEMU -no-reboot exits
	tools=
	perf_src=/usr/bin/perf
	bpf_src=/usr/bin/bpftrace
	libdirs=(/lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu)
	machine="Advanced Micro Devices X86-64"
	ucc=gcc ;;
arm64)	busybox=$ROOT/build/busybox-arm64/bin/busybox
	off="poweroff -f"	# PSCI
	tools=$ROOT/build/klp-tools-arm64
	perf_dir=$ROOT/build/perf-arm64
	perf_src=$perf_dir/usr/bin/perf
	bpf_dir=$ROOT/build/bpftrace-arm64
	bpf_src=$bpf_dir/usr/bin/bpftrace
	# (a library in two tools' trees is the same Debian package)
	libdirs=("$tools/lib/aarch64-linux-gnu" "$tools/usr/lib/aarch64-linux-gnu"
		 "$perf_dir/lib/aarch64-linux-gnu" "$perf_dir/usr/lib/aarch64-linux-gnu"
		 "$bpf_dir/lib/aarch64-linux-gnu" "$bpf_dir/usr/lib/aarch64-linux-gnu"
		 /usr/aarch64-linux-gnu/lib)
	machine=AArch64
	ucc=aarch64-linux-gnu-gcc ;;
esac
cpio_out=$KB/initramfs-$A${VARIANT:+-$VARIANT}.cpio.gz
gen=$OUT/usr/gen_init_cpio
[ -x "$gen" ] || { echo "[initramfs $A] $gen missing: build the kernel first"; exit 1; }
[ -x "$busybox" ] || { echo "[initramfs $A] $busybox missing: run scripts/deps.sh"; exit 1; }

# the user-space unwinding tests (built only when their sources changed)
"$ROOT/scripts/build-user.sh" "$A"
user=$ROOT/build/user-$A

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The livepatch selftests and their tools (about 4 MB compressed), only
# with the selftests' modules: without them every script skips.  6.1
# builds them in-tree (CONFIG_TEST_LIVEPATCH=m, lib/livepatch); since 6.7
# they are external modules beside the scripts (test_modules/, built here
# against this kernel) and test-syscall.sh runs test_klp-call_getpid.
klp_src=$KSRC/tools/testing/selftests/livepatch
klp=
klp_ext=
if grep -qx 'CONFIG_LIVEPATCH=y' "$OUT/.config" 2>/dev/null &&
   { grep -qx 'CONFIG_TEST_LIVEPATCH=m' "$OUT/.config" ||
     [ -f "$klp_src/test_modules/Makefile" ]; } &&
   [ -f "$klp_src/functions.sh" ]; then
	klp=1
	if [ ! -x "$tools/bin/bash-static" ] || [ ! -x "$tools/bin/kmod" ]; then
		"$ROOT/scripts/deps.sh" >/dev/null
	fi
fi
if [ -n "$klp" ] && [ -f "$klp_src/test_modules/Makefile" ]; then
	klp_ext=$OUT/klp-test-modules
	mkdir -p "$klp_ext"
	cp -u "$klp_src"/test_modules/*.c "$klp_src/test_modules/Makefile" "$klp_ext/"
	"${KMAKE[@]}" M="$klp_ext" modules >"$LOGS/klp-test-modules-$A${VARIANT:+-$VARIANT}.log" 2>&1 ||
		{ echo "[initramfs $A] livepatch selftest modules failed to build (log: ${LOGS#"$ROOT"/}/klp-test-modules-$A${VARIANT:+-$VARIANT}.log)"; exit 1; }
	$ucc -static -O2 -o "$klp_ext/test_klp-call_getpid" \
		"$klp_src/test_klp-call_getpid.c" ||
		{ echo "[initramfs $A] test_klp-call_getpid failed to build"; exit 1; }
fi

# klp_bin NAME: the tool NAME of $tools (/ for x86_64): a regular file
# in bin/ or sbin/, under usr/ or not.
klp_bin() {
	local d
	for d in bin usr/bin sbin usr/sbin; do
		if [ -f "$tools/$d/$1" ] && [ ! -L "$tools/$d/$1" ]; then
			echo "$tools/$d/$1"
			return
		fi
	done
	echo "[initramfs $A] livepatch selftests: $1 not found in ${tools:-/}{,/usr}/{bin,sbin} (run scripts/deps.sh)" >&2
	return 1
}

# tool_lib NAME: the library NAME from $libdirs (symlinks resolved).
tool_lib() {
	local d
	for d in "${libdirs[@]}"; do
		if [ -e "$d/$1" ]; then
			readlink -f "$d/$1"
			return
		fi
	done
	return 1
}

# tool_elf WHAT FILE: FILE is an ELF file for $machine.
tool_elf() {
	readelf -h "$2" 2>/dev/null | grep -q "Machine: *$machine\$" && return
	echo "[initramfs $A] $1: $2 is not an $machine ELF file" >&2
	return 1
}

# elf_closure WHAT FILE...: the gen_init_cpio lines of the dynamic loader
# at its PT_INTERP path and of every library the ELF files FILE... need
# (DT_NEEDED, recursive) in /lib, one of the loader's default directories
# on both arches. WHAT names the files' user in error messages.
elf_closure() {
	local what=$1 src interp lib obj seen=" " todo
	shift
	todo=("$@")
	while [ ${#todo[@]} -gt 0 ]; do
		obj=${todo[0]}
		todo=("${todo[@]:1}")
		interp=$(readelf -lW "$obj" |
			 sed -n 's/.*Requesting program interpreter: \(.*\)\]/\1/p')
		if [ -n "$interp" ] && [[ $seen != *" $interp "* ]]; then
			seen+="$interp "
			src=$(tool_lib "${interp##*/}") || {
				echo "[initramfs $A] $what: dynamic loader $interp (of ${obj##*/}) not found in ${libdirs[*]}" >&2
				return 1
			}
			tool_elf "$what" "$src" || return 1
			echo "dir ${interp%/*} 755 0 0"
			echo "file $interp $src 755 0 0"
		fi
		for lib in $(readelf -dW "$obj" |
			     sed -n 's/.*(NEEDED).*Shared library: \[\(.*\)\]/\1/p'); do
			# the loader (from PT_INTERP) or already there
			case $lib in ld-linux-*) continue ;; esac
			[[ $seen != *" $lib "* ]] || continue
			seen+="$lib "
			src=$(tool_lib "$lib") || {
				echo "[initramfs $A] $what: $lib (needed by ${obj##*/}) not found in ${libdirs[*]} (run scripts/deps.sh)" >&2
				return 1
			}
			tool_elf "$what" "$src" || return 1
			echo "file /lib/$lib $src 755 0 0"
			todo+=("$src")
		done
	done
}

# klp_list: the gen_init_cpio lines of the selftests, their runner, the
# tools (bash as /bin/bash and stat as /bin/stat, where the scripts call
# them; kmod's modprobe, modinfo, insmod, rmmod, lsmod) and what they need
# (elf_closure).
klp_list() {
	local t src todo=()
	echo "dir /selftests 755 0 0"
	echo "dir /selftests/livepatch 755 0 0"
	for t in "$klp_src"/functions.sh "$klp_src"/test-*.sh; do
		echo "file /selftests/livepatch/${t##*/} $t 755 0 0"
	done
	if [ -n "$klp_ext" ]; then
		echo "dir /selftests/livepatch/test_modules 755 0 0"
		for t in "$klp_ext"/test_klp_*.ko; do
			echo "file /selftests/livepatch/test_modules/${t##*/} $t 644 0 0"
		done
		echo "file /selftests/livepatch/test_klp-call_getpid $klp_ext/test_klp-call_getpid 755 0 0"
	fi
	echo "file /livepatch-selftests.sh $ROOT/qemu/livepatch-selftests.sh 755 0 0"
	echo "dir /usr 755 0 0"
	echo "dir /usr/bin 755 0 0"
	src=$(klp_bin bash-static) && tool_elf "livepatch selftests" "$src" || return 1
	echo "file /bin/bash $src 755 0 0"
	todo+=("$src")
	for t in kmod comm date diff dmesg getconf mktemp stat sysctl timeout; do
		src=$(klp_bin $t) && tool_elf "livepatch selftests" "$src" || return 1
		echo "file /usr/bin/$t $src 755 0 0"
		todo+=("$src")
	done
	for t in modprobe modinfo insmod rmmod lsmod; do
		echo "slink /usr/bin/$t kmod 777 0 0"
	done
	echo "slink /bin/stat /usr/bin/stat 777 0 0"
	elf_closure "livepatch selftests" "${todo[@]}"
}

# perf_bin: Debian's perf binary. linux-perf installs it as /usr/bin/perf;
# were that Debian's older wrapper script (linux-base's perf, which runs
# perf_VERSION for the running kernel), the perf_6.1 binary beside it.
perf_bin() {
	local f=$perf_src
	if [ -f "$f" ] && [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" != '177ELF' ]; then
		f=${perf_src%/*}/perf_6.1
	fi
	if [ ! -f "$f" ]; then
		echo "[initramfs $A] perf: $perf_src not found (run scripts/deps.sh)" >&2
		return 1
	fi
	tool_elf perf "$f" || return 1
	echo "$f"
}

# perf_list: perf at /usr/bin/perf, the chain checker, and what perf needs
# (elf_closure).
perf_list() {
	local src
	src=$(perf_bin) || return 1
	echo "dir /usr 755 0 0"
	echo "dir /usr/bin 755 0 0"
	echo "file /usr/bin/perf $src 755 0 0"
	echo "file /perf-chains.awk $ROOT/qemu/perf-chains.awk 644 0 0"
	elf_closure perf "$src"
}

# modules_install into $OUT/modinst when the modules changed (depmod runs)
modinst=$OUT/modinst
modrel=
if [ -s "$OUT/modules.order" ]; then
	modrel=$(cat "$OUT/include/config/kernel.release")
	if [ ! -f "$modinst/lib/modules/$modrel/modules.dep" ] ||
	   [ -n "$(find "$OUT" -name '*.ko' -newer "$modinst/lib/modules/$modrel/modules.dep" -print -quit)" ]; then
		rm -rf "$modinst"
		"${KMAKE[@]}" -s INSTALL_MOD_PATH="$modinst" modules_install \
			>"$LOGS/modules-install-$A${VARIANT:+-$VARIANT}.log" 2>&1 ||
			{ echo "[initramfs $A] modules_install failed (log: build/logs/)"; exit 1; }
	fi
	# the build and source links point outside the initramfs
	rm -f "$modinst/lib/modules/$modrel/build" "$modinst/lib/modules/$modrel/source"
fi

cat >"$tmp/init" <<EOT
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# the kernel's module requests (crypto algorithms, filesystems) go to
# busybox's modprobe; there is no /sbin
[ -w /proc/sys/kernel/modprobe ] && echo /bin/modprobe >/proc/sys/kernel/modprobe
echo "init: reached /init"
[ -x /smoke.sh ] && /smoke.sh
grep -qw rdshell /proc/cmdline && setsid cttyhack sh
echo "init: power off"
$off
EOT

{
	for d in /bin /dev /proc /sys /tmp /lib /lib/modules /lib/modules-test \
		 /lib/modules-broken; do
		echo "dir $d 755 0 0"
	done
	echo "nod /dev/console 600 0 0 c 5 1"
	echo "file /bin/busybox $busybox 755 0 0"
	echo "file /init $tmp/init 755 0 0"
	echo "file /smoke.sh $ROOT/qemu/smoke.sh 755 0 0"
	for f in lib livepatch-samples livepatch-consistency livepatch-bench; do
		echo "file /$f.sh $ROOT/qemu/$f.sh 755 0 0"
	done
	# our modules of the current build (stale .ko files are ignored)
	touch "$OUT/modules.order"	# absent without CONFIG_MODULES
	sed -n 's|^\(sframe-unwind/.*\)\.k\?o$|\1.ko|p' "$OUT/modules.order" |
	while read -r ko; do
		f=$OUT/$ko
		# livepatches with livepatch relocations: made by the converter
		case ${ko##*/} in
		sframe_klp_reloc*.ko)
			mkdir -p "$tmp/klp"
			f=$tmp/klp/${ko##*/}
			"$ROOT/scripts/klp-relocs.py" "$OUT/$ko" "$f" >/dev/null ||
				exit 1 ;;
		esac
		echo "file /lib/modules-test/${ko##*/} $f 644 0 0"
	done
	# arm64: isofs without .text.ftrace_trampoline, whose module_finalize()
	# fails after its .sframe was registered: the boot test loads it and
	# then looks up module addresses (no table may outlive the load)
	iso=$OUT/fs/isofs/isofs.ko
	if [ "$A" = arm64 ] && [ -f "$iso" ]; then
		mkdir -p "$tmp/broken"
		aarch64-linux-gnu-objcopy \
			--rename-section .text.ftrace_trampoline=.text.ftrace_trampoline_gone \
			"$iso" "$tmp/broken/isofs.ko" || exit 1
		echo "file /lib/modules-broken/isofs.ko $tmp/broken/isofs.ko 644 0 0"
	fi
	# the demo module with an .sframe that opens but fails validation:
	# withdrawn by the check after its load
	demo=$OUT/sframe-unwind/qemu/modules/sframe_unwind_demo.ko
	if [ -f "$demo" ]; then
		mkdir -p "$tmp/broken"
		"$ROOT/qemu/modules/sframe-short-fres.py" "$demo" \
			"$tmp/broken/sframe_unwind_demo.ko" || exit 1
		echo "file /lib/modules-broken/sframe_unwind_demo.ko $tmp/broken/sframe_unwind_demo.ko 644 0 0"
	fi
	# every module of the build, installed as modprobe finds them
	# (/lib/modules/RELEASE, modules.dep by depmod)
	if [ -n "$modrel" ]; then
		(cd "$modinst" && find lib/modules -mindepth 1 -type d | sort) |
		while read -r d; do
			echo "dir /$d 755 0 0"
		done
		(cd "$modinst" && find lib/modules -type f | sort) |
		while read -r f; do
			echo "file /$f $modinst/$f 644 0 0"
		done
	fi
	# user-space unwinding tests: the programs in /usr/test/, the loader
	# and libraries at their paths (/lib is already there)
	echo "dir /usr 755 0 0"
	echo "dir /usr/test 755 0 0"
	for f in "$user"/chain-* "$user"/libchain.so "$user"/sframe-hostile "$user"/churn \
		 "$user"/sframe-remap "$user"/libremap-[ab].so "$user"/sframe-costly \
		 "$user"/sframe-mapdio "$user"/libspin-sframe.so "$user"/sframe-modload \
		 "$user"/sframe-maps "$user"/sframe-rows "$user"/librows-sframe.so; do
		echo "file /usr/test/${f##*/} $f 755 0 0"
	done
	(cd "$user/sysroot" && find . -mindepth 1 -type d | sort) | sed 's|^\.||' |
	while read -r d; do
		[ "$d" = /lib ] || echo "dir $d 755 0 0"
	done
	(cd "$user/sysroot" && find . -type f | sort) | sed 's|^\.||' |
	while read -r f; do
		echo "file $f $user/sysroot$f 755 0 0"
	done
} >"$tmp/list"
if [ -n "$klp" ]; then
	klp_list >>"$tmp/list" || exit 1
fi
if [ ! -f "$perf_src" ] && [ "$A" = arm64 ]; then
	"$ROOT/scripts/deps.sh" >/dev/null
fi
perf_list >"$tmp/perf.list" || exit 1
# what perf adds: the files of paths nobody else has (the size report)
awk 'NR == FNR { if ($1 == "file") have[$2] = 1; next }
     $1 == "file" && !($2 in have) { print $3 }' "$tmp/list" "$tmp/perf.list" |
	sort -u >"$tmp/perf.files"
cat "$tmp/perf.list" >>"$tmp/list"

# One entry per path, the first; a file listed twice must be the same
# file (the user tests' loader and libc are also the tools').
awk '$1 == "file" && ($2 in src) && src[$2] != $3 { print src[$2], $3 }
     $1 == "file" && !($2 in src) { src[$2] = $3 }' "$tmp/list" |
while read -r f1 f2; do
	cmp -s "$f1" "$f2" ||
		{ echo "[initramfs $A] $f1 and $f2 differ, one path in the initramfs"; exit 1; }
done
awk '!seen[$2]++' "$tmp/list" >"$tmp/list.uniq"
"$gen" "$tmp/list.uniq" | gzip -9n >"$cpio_out"

# The tools disk: bpftrace as /bin/bpftrace, the libraries it needs that
# the initramfs has not in /lib; made again only when that list changes
# (the same disk for every variant of an arch).
disk=$ROOT/build/tools-$A.squashfs
if [ ! -f "$bpf_src" ]; then
	"$ROOT/scripts/deps.sh" >/dev/null
fi
tool_elf bpftrace "$bpf_src" || exit 1
{
	echo "file /bin/bpftrace $bpf_src"
	elf_closure bpftrace "$bpf_src" || exit 1
} | awk 'NR == FNR { if ($1 == "file") have[$2] = 1; next }
	 $1 == "file" && !($2 in have) { print $2, $3 }' "$tmp/list.uniq" - \
	>"$tmp/disk.list"
(cat "$tmp/disk.list"; awk '{ print $2 }' "$tmp/disk.list" | xargs stat -Lc '%s %Y') \
	>"$tmp/disk.stamp"
if [ ! -f "$disk" ] || ! cmp -s "$tmp/disk.stamp" "$disk.stamp"; then
	mkdir -p "$tmp/disk/bin" "$tmp/disk/lib"
	while read -r path src; do
		case $path in
		/bin/*) cp -L "$src" "$tmp/disk$path" ;;
		*)	cp -L "$src" "$tmp/disk/lib/${path##*/}" ;;
		esac
	done <"$tmp/disk.list"
	rm -f "$disk" "$disk.stamp"
	mksquashfs "$tmp/disk" "$disk.tmp" -noappend -comp gzip -all-root -quiet \
		>/dev/null || { echo "[initramfs $A] mksquashfs failed"; exit 1; }
	mv "$disk.tmp" "$disk"
	cp "$tmp/disk.stamp" "$disk.stamp"
fi
nko=$(grep -c '^file /lib/modules-test/' "$tmp/list" || true)
nuser=$(grep -c '^file /usr/test/' "$tmp/list" || true)
klp_msg=
if [ -n "$klp" ]; then
	klp_msg=", $(grep -c '^file /selftests/livepatch/test-' "$tmp/list") livepatch selftests"
fi
# perf's share: its new files, uncompressed and gzip -9 on their own
perf_raw=$(xargs cat <"$tmp/perf.files" | wc -c)
perf_gz=$(xargs cat <"$tmp/perf.files" | gzip -9n | wc -c)
perf_msg=$(awk -v n="$(wc -l <"$tmp/perf.files")" -v r="$perf_raw" -v z="$perf_gz" 'BEGIN {
	printf "perf and its libraries: %d files, %.1f MB, %.1f MB compressed", n, r / 1048576, z / 1048576 }')
size=$(wc -c <"$cpio_out" | awk '{ printf "%.1f MB", $1 / 1048576 }')
disk_msg=$(awk -v n="$(wc -l <"$tmp/disk.list")" -v z="$(wc -c <"$disk")" 'BEGIN {
	printf "tools disk: bpftrace and %d libraries, %.1f MB", n - 1, z / 1048576 }')
echo "[initramfs $A] ${cpio_out#"$ROOT"/}: $size ($nko test modules, $nuser files in /usr/test$klp_msg; $perf_msg; $disk_msg)"
