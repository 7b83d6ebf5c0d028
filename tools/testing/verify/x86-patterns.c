// SPDX-License-Identifier: GPL-2.0-only
/*
 * The x86_64 patterns where gas 2.40 SFrame is missing or wrong in Linux
 * 6.1, reduced to one small function each, for tools/sframe-verify.
 * Compiled with -Wa,--gsframe; objtool adds ORC for the ORC comparison.
 */
#include <sframe/annot.h>

void sink(void *p, unsigned long n);

/* irq_stack.h call_on_stack(): the SP is saved on the new stack (on_irq_stack: asm only). */
void stack_switch(void *tos)
{
	asm volatile("movq %%rsp, (%[tos])\n\t"
		     "movq %[tos], %%rsp\n\t"
		     "call on_irq_stack\n\t"
		     "popq %%rsp\n\t"
		     : : [tos] "r" (tos)
		     : "memory", "rax", "rcx", "rdx", "rsi", "rdi",
		       "r8", "r9", "r10", "r11", "cc");
}

/* The same, annotated: SP_INDIRECT from the switch to the restore. */
void stack_switch_annotated(void *tos)
{
	asm volatile("movq %%rsp, (%[tos])\n\t"
		     "movq %[tos], %%rsp\n"
		     "771:\n\t"
		     "call on_irq_stack\n\t"
		     "popq %%rsp\n"
		     "772:\n\t"
		     SFRAME_ANNOT_INLINE(SFRAME_ANNOT_SP_INDIRECT, "771b",
					 "772b", 0)
		     : : [tos] "r" (tos)
		     : "memory", "rax", "rcx", "rdx", "rsi", "rdi",
		       "r8", "r9", "r10", "r11", "cc");
}

/* native_save_fl(): the pop runs with the flags pushed. */
unsigned long pushf_pop(void *p)
{
	unsigned long flags;

	sink(p, 1);
	asm volatile("pushf ; pop %0" : "=rm" (flags) : : "memory");
	sink(p, flags);
	return flags;
}

/* sync_core(): iret-to-self (arch/x86/include/asm/sync_core.h). */
void iret_to_self(void *p)
{
	unsigned int tmp;

	sink(p, 2);
	asm volatile("mov %%ss, %0\n\t"
		     "pushq %q0\n\t"
		     "pushq %%rsp\n\t"
		     "addq $8, (%%rsp)\n\t"
		     "pushfq\n\t"
		     "mov %%cs, %0\n\t"
		     "pushq %q0\n\t"
		     "pushq $1f\n\t"
		     "iretq\n\t"
		     "1:"
		     : "=&r" (tmp) : : "cc", "memory");
	sink(p, 3);
}

/* Stack realignment through a DRAP register: gas 2.40 drops the FDE. */
void drap(unsigned long n)
{
	_Alignas(64) char big[n];
	_Alignas(64) char aligned[64];

	sink(big, n);
	sink(aligned, sizeof(aligned));
}
