// SPDX-License-Identifier: GPL-2.0-only
/*
 * The SFrame core compiled for the host, for sframe-verify when it is built
 * inside the kernel build (tools/Kbuild): the one source, lib/sframe/.
 * Kbuild links a host program only from objects of its own directory.
 */
#include "../../lib/sframe/open.c"
#include "../../lib/sframe/find.c"
#include "../../lib/sframe/index.c"
#include "../../lib/sframe/rows.c"
#include "../../lib/sframe/validate.c"
#include "../../lib/sframe/field.c"
