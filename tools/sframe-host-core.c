// SPDX-License-Identifier: GPL-2.0-only
/*
 * The SFrame core compiled for the host, for sframe-verify when it is built
 * inside the kernel build (tools/Kbuild): the one source, kernel/sframe.c.
 */
#include "../kernel/sframe.c"
