# SPDX-License-Identifier: GPL-2.0-only
# kunit.py --qemu_config for the sframe-unwind arm64 test kernel.
# kernel_path is relative to --build_dir (build/kbuild-arm64).
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='arm64',
			   kconfig='',	# configured by qemu/configs/*.config
			   qemu_arch='aarch64',
			   kernel_path='arch/arm64/boot/Image',
			   kernel_command_line='console=ttyAMA0',
			   extra_qemu_params=['-machine', 'virt',
					      '-cpu', 'max,pauth-impdef=on',
					      '-smp', '2'])
