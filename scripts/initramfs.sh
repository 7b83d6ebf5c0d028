#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build build/initramfs-ARCH.cpio.gz: static busybox, an /init that mounts
# proc/sys/devtmpfs, runs /smoke.sh and powers off, every module of the
# build in /lib/modules/RELEASE (modules_install: modprobe finds them), and
# those under sframe-unwind/ (modules.order) again in /lib/modules-test/,
# and the user-space unwinding tests (scripts/build-user.sh, qemu/user/:
# the sampler builds and sframe-hostile) in /usr/test/ with the dynamic
# loader and C library they need.
set -euo pipefail

. "$(dirname "$0")/common.sh"
arch_setup "${1:-}"
A=$1
case $A in
x86_64)	busybox=/bin/busybox
	off="reboot -f"	;;	# no ACPI in the test kernel: QEMU -no-reboot exits
arm64)	busybox=$ROOT/build/busybox-arm64/bin/busybox
	off="poweroff -f" ;;	# PSCI
esac
cpio_out=$ROOT/build/initramfs-$A${VARIANT:+-$VARIANT}.cpio.gz
gen=$OUT/usr/gen_init_cpio
[ -x "$gen" ] || { echo "[initramfs $A] $gen missing: build the kernel first"; exit 1; }
[ -x "$busybox" ] || { echo "[initramfs $A] $busybox missing: run scripts/deps.sh"; exit 1; }

# the user-space unwinding tests (built only when their sources changed)
"$ROOT/scripts/build-user.sh" "$A"
user=$ROOT/build/user-$A

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

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
echo "init: reached /init"
[ -x /smoke.sh ] && /smoke.sh
grep -qw rdshell /proc/cmdline && setsid cttyhack sh
echo "init: power off"
$off
EOT

{
	for d in /bin /dev /proc /sys /tmp /lib /lib/modules /lib/modules-test; do
		echo "dir $d 755 0 0"
	done
	echo "nod /dev/console 600 0 0 c 5 1"
	echo "file /bin/busybox $busybox 755 0 0"
	echo "file /init $tmp/init 755 0 0"
	echo "file /smoke.sh $ROOT/qemu/smoke.sh 755 0 0"
	# our modules of the current build (stale .ko files are ignored)
	touch "$OUT/modules.order"	# absent without CONFIG_MODULES
	sed -n 's|^\(sframe-unwind/.*\)\.k\?o$|\1.ko|p' "$OUT/modules.order" |
	while read -r ko; do
		echo "file /lib/modules-test/${ko##*/} $OUT/$ko 644 0 0"
	done
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
	# the kernel's livepatch sample (x86_64: CONFIG_SAMPLE_LIVEPATCH=m)
	if grep -qx 'samples/livepatch/livepatch-sample.k\?o' "$OUT/modules.order"; then
		echo "dir /lib/livepatch 755 0 0"
		echo "file /lib/livepatch/livepatch-sample.ko $OUT/samples/livepatch/livepatch-sample.ko 644 0 0"
	fi
	# user-space unwinding tests: the programs in /usr/test/, the loader
	# and libraries at their paths (/lib is already there)
	echo "dir /usr 755 0 0"
	echo "dir /usr/test 755 0 0"
	for f in "$user"/chain-* "$user"/libchain.so "$user"/sframe-hostile; do
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

"$gen" "$tmp/list" | gzip -9n >"$cpio_out"
nko=$(grep -c '^file /lib/modules-test/' "$tmp/list" || true)
nuser=$(grep -c '^file /usr/test/' "$tmp/list" || true)
echo "[initramfs $A] ${cpio_out#"$ROOT"/} ($nko test modules, $nuser files in /usr/test)"
