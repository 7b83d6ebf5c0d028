// SPDX-License-Identifier: GPL-2.0-only
/*
 * The SFrame core again, reading sections in user memory.
 *
 * lib/sframe/open.c and find.c, what the user unwinder needs of the core
 * (sframe_open(), sframe_find()), are compiled a second time with an
 * accessor that copies
 * with copy_from_user_nofault(): a missing page, an address outside the
 * user address space or a context where user memory cannot be touched
 * makes the read fail with -SFRAME_E_FAULT, which every caller of the
 * accessor already handles.  The decoding logic is the same source, line
 * for line; only the exported names get an sframe_user_ prefix.
 */
#define sframe_errname		sframe_user_errname
#define sframe_strerror		sframe_user_strerror
#define sframe_open		sframe_user_open
#define sframe_open_part	sframe_user_open_part
#define sframe_get_fde		sframe_user_get_fde
#define sframe_find_fde		sframe_user_find_fde
#define sframe_read_fre		sframe_user_read_fre
#define sframe_find_fre		sframe_user_find_fre
#define sframe_fre_rule		sframe_user_fre_rule
#define sframe_find		sframe_user_find

#define SFRAME_ACCESS_HEADER	"core_uaccess.h"	/* kernel/, see Kbuild */

/*
 * Kbuild compiles a source file once per directory, so the second object
 * of the same source is this wrapper rather than a second rule for
 * lib/sframe/.
 */
#include "../lib/sframe/open.c"
#include "../lib/sframe/find.c"
