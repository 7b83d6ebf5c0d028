// SPDX-License-Identifier: GPL-2.0-only
/*
 * The SFrame core compiled for the host, for sframe-verify when it is built
 * inside the kernel build (tools/Kbuild): the one source, lib/sframe/sframe.c.
 * Kbuild links a host program only from objects of its own directory.
 */
#include "../lib/sframe/sframe.c"
