// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe_klp_reloc.ko: a livepatch with a livepatch relocation (a
 * ".klp.rela" section), as kpatch-build or klp-convert make them.  Its
 * new sfk_reloc_func() calls sfk_secret(), a static function of
 * sframe_klp_target.ko that no module can link against.  Livepatch
 * resolves it by name when it applies the relocation: after this module's
 * text became read-only (the patch is enabled from module_init, or when
 * the target module loads later).  On arm64 the patch "arm64: module:
 * apply late relocations through the text-poking fixmap" makes that
 * possible, with a PLT entry when the target is out of branch range.
 *
 * Linux 6.1 has no klp-convert: the build leaves the call to sfk_secret
 * an ordinary (weak, so modpost accepts it) undefined reference, and
 * the boot tests' converter turns it into a livepatch relocation, using the
 * names reserved below: the symbol ".klp.sym.OBJ.NAME,POS" and the section
 * ".klp.rela.OBJ.SECTION", which it grows into the relocation section.
 *
 * sframe_klp_reloc_bad.ko (the same source with SFK_KLP_BAD) asks for a
 * symbol that does not exist: livepatch must refuse it with a message.
 */
#include <linux/livepatch.h>
#include <linux/module.h>

#ifdef SFK_KLP_BAD
#define SFK_SYM	sfk_no_such_function
#else
#define SFK_SYM	sfk_secret
#endif

extern int SFK_SYM(void) __weak;

static noinline int sfk_reloc_new(void)
{
	return SFK_SYM() + 1;
}

/* The names the conversion uses; room for 8 relocations (24 bytes each). */
asm(".pushsection \".klp.rela.sframe_klp_target..text\", \"a\"\n"
	"\t.skip 192\n"
	"\t.popsection\n"
	"\t\".klp.sym.sframe_klp_target." __stringify(SFK_SYM) ",0\" = 0\n");

static struct klp_func sfk_funcs[] = {
	{
		.old_name = "sfk_reloc_func",
		.new_func = sfk_reloc_new,
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

static int __init sfk_reloc_init(void)
{
	return klp_enable_patch(&sfk_patch);
}

static void __exit sfk_reloc_exit(void)
{
}

module_init(sfk_reloc_init);
module_exit(sfk_reloc_exit);
MODULE_LICENSE("GPL");
MODULE_INFO(livepatch, "Y");
MODULE_DESCRIPTION("Livepatch with a livepatch relocation (SFrame unwinder livepatch test)");
