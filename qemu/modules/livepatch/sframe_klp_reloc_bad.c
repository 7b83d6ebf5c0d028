// SPDX-License-Identifier: GPL-2.0-only
/* sframe_klp_reloc.c asking for a symbol that does not exist. */
#define SFK_KLP_BAD
#include "sframe_klp_reloc.c"
