# SPDX-License-Identifier: GPL-2.0-only
# kunit.py --qemu_config for the sframe-unwind x86_64 test kernel.
# kernel_path is relative to --build_dir (build/kbuild-x86_64).
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='x86_64',
			   kconfig='',	# configured by qemu/configs/*.config
			   qemu_arch='x86_64',
			   kernel_path='arch/x86/boot/bzImage',
			   kernel_command_line='console=ttyS0',
			   extra_qemu_params=['-bios', 'qboot.rom', '-smp', '2'])
