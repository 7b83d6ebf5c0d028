// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe_klp_patch.ko: the livepatch for sframe_klp_target.ko.  Its
 * transition can complete only once no task is inside sfk_sleep_func()
 * or sfk_spin_outer(): livepatch checks that on each task's reliable
 * stack trace.  The replacements return 2 instead of 1.
 */
#include <linux/livepatch.h>
#include <linux/module.h>

static int sfk_patched_sleep_func(void)
{
	return 2;
}

static int sfk_patched_spin_outer(void)
{
	return 2;
}

static struct klp_func sfk_funcs[] = {
	{
		.old_name = "sfk_sleep_func",
		.new_func = sfk_patched_sleep_func,
	}, {
		.old_name = "sfk_spin_outer",
		.new_func = sfk_patched_spin_outer,
	}, { }
};

static struct klp_object sfk_objs[] = {
	{
		.name = "sframe_klp_target",
		.funcs = sfk_funcs,
	}, { }
};

static struct klp_patch sfk_patch = {
	.mod = THIS_MODULE,
	.objs = sfk_objs,
};

static int __init sfk_patch_init(void)
{
	return klp_enable_patch(&sfk_patch);
}

static void __exit sfk_patch_exit(void)
{
}

module_init(sfk_patch_init);
module_exit(sfk_patch_exit);
MODULE_LICENSE("GPL");
MODULE_INFO(livepatch, "Y");
MODULE_DESCRIPTION("Livepatch for sframe_klp_target.ko (SFrame unwinder consistency test)");
