// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe_rules: a module whose SFrame the loader must refuse.  Its
 * sfm_many_rules() (sframe_rules_mod_asm.S, never called) changes the CFA
 * offset at each of its 2,100 instructions: more distinct rules than a
 * rows table holds (SFRAME_ROWS_MAX_RULES), so a lookup there would scan
 * the function's rows, more than SFRAME_MODULE_SCAN_FRES.  The boot test
 * of modules loads it and expects "rejected: SFRAME_E_COST"
 * and no rule for the function's addresses.
 */
#include <linux/init.h>
#include <linux/module.h>

static int __init sframe_rules_mod_init(void)
{
	return 0;
}

static void __exit sframe_rules_mod_exit(void)
{
}

module_init(sframe_rules_mod_init);
module_exit(sframe_rules_mod_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("SFrame test module: a section whose lookups would cost too much");
