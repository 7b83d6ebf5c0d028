#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the test kernel for ARCH (x86_64|arm64) in build/kbuild-ARCH:
# tinyconfig + qemu/configs/{common,ARCH}.config, ccache, -j2, incremental.
# VARIANT=NAME adds NAME.config and NAME-ARCH.config (kasan, lockdep, kcsan,
# gen, clang); VARIANT=defconfig builds the arch's
# defconfig + qemu/configs/defconfig{,-ARCH}.config instead.
set -euo pipefail

. "$(dirname "$0")/common.sh"
arch_setup "${1:-}"
A=$1
tag="[kernel $KVER $A${VARIANT:+-$VARIANT}]"
log=$LOGS/kernel-$A${VARIANT:+-$VARIANT}.log

# VARIANT=defconfig: the architecture's defconfig plus our options
# (make check-defconfig); otherwise tinyconfig plus the test fragments.
if [ "${VARIANT:-}" = defconfig ]; then
	base=defconfig
	frags=("$ROOT/qemu/configs/defconfig.config"
	       "$ROOT/qemu/configs/defconfig-$A.config")
else
	base=tinyconfig
	frags=("$ROOT/qemu/configs/common.config" "$ROOT/qemu/configs/$A.config")
	[ ! -f "$ROOT/qemu/configs/${VARIANT:-}.config" ] ||
		frags+=("$ROOT/qemu/configs/$VARIANT.config")
	[ ! -f "$ROOT/qemu/configs/${VARIANT:-}-$A.config" ] ||
		frags+=("$ROOT/qemu/configs/$VARIANT-$A.config")
fi
# what differs on this kernel line (its options, its test modules)
[ ! -f "$ROOT/qemu/configs/kver-$KVER.config" ] ||
	frags+=("$ROOT/qemu/configs/kver-$KVER.config")

fail() {
	echo "$tag FAILED: $1 (log: ${log#"$ROOT"/})"
	tail -n 30 "$log"
	exit 1
}

# Reconfigure only when the fragments (or our Kconfig) changed.
mkdir -p "$OUT"
: >"$log"
stamp=$OUT/.fragments.sha256
hash=$(cat "${frags[@]}" "$ROOT/Kconfig" <(echo "$base") | sha256sum)
if [ ! -f "$OUT/.config" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$hash" ]; then
	echo "$tag configure"
	{
		"${KMAKE[@]}" $base &&
		"$KSRC/scripts/kconfig/merge_config.sh" -m -O "$OUT" \
			"$OUT/.config" "${frags[@]}" &&
		"${KMAKE[@]}" olddefconfig
	} >>"$log" 2>&1 || fail configure
	# Every =y and =m the fragments ask for (last one wins) must have stuck.
	for opt in $(sed -E 's/^# (CONFIG_\w+) is not set/\1=n/' "${frags[@]}" |
		     awk -F= '/^CONFIG_/ { v[$1] = $0 } END { for (k in v) print v[k] }' |
		     grep -E '=(y|m)$' | sort); do
		grep -qx "$opt" "$OUT/.config" ||
			echo "$tag warning: $opt did not stick (missing dependency?)"
	done
	echo "$hash" >"$stamp"
fi

echo "$tag build (log: ${log#"$ROOT"/})"
/usr/bin/time -f '%e s wall, %U+%S s CPU' -o "$OUT/.build-time" \
	"${KMAKE[@]}" "${IMAGE##*/}" modules >>"$log" 2>&1 || fail build
warnings=$(grep -c ': warning:' "$log" || true)
echo "$tag done in $(cat "$OUT/.build-time"), $warnings warnings"
