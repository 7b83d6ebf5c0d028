// SPDX-License-Identifier: GPL-2.0-only
/*
 * librows-sframe.so of sframe-rows (rows.c): two functions with different
 * rules over long runs of instructions, so that samples spread over many
 * 64-byte granules of each.
 *
 * Built with -O2 -fomit-frame-pointer -fPIC -shared -nostdlib
 * -Wa,--gsframe (scripts/build-user.sh): no C library, no relocations (the
 * program maps the file itself and applies none), PT_GNU_SFRAME.  rows_g
 * is the last function in the file: the program forges its FDE's size so
 * that it runs on past the end of the text.
 */

#define ROWS_FN		__attribute__((noinline, noipa))

/*
 * N additions to one register, each followed by a jump to the next one:
 * work that QEMU's TCG does not drop (as it drops nops), cut into
 * translation blocks of two instructions (TCG takes an interrupt only
 * between blocks), so that the samples (on the task clock) land on PCs
 * all over it, too many for the answer cache to hold.
 */
#if defined(__x86_64__)
#define ROWS_ADDS(n, x)	asm volatile(".rept " #n "\n\taddl $1, %0\n\tjmp 1f\n1:\n\t.endr" : "+r"(x))
#elif defined(__aarch64__)
#define ROWS_ADDS(n, x)	asm volatile(".rept " #n "\n\tadd %w0, %w0, #1\n\tb 1f\n1:\n\t.endr" : "+r"(x))
#else
#error "x86_64 or aarch64 only"
#endif

void rows_f(const unsigned long *fill);
void rows_g(void);

/*
 * A frame of 64 words, every one a value from @fill (addresses that are
 * no return address of the chain), then 4096 additions: a walk from there
 * with another function's rule finds those values where return addresses
 * should be.
 */
ROWS_FN void rows_f(const unsigned long *fill)
{
	unsigned long buf[64];
	unsigned int x = 0;
	int i;

	for (i = 0; i < 64; i++)
		buf[i] = fill[i & 3];
	asm volatile("" : : "r"(buf) : "memory");
	ROWS_ADDS(4096, x);
	asm volatile("" : : "r"(buf), "r"(x) : "memory");
}

/* No frame (the return address on the stack, or in x30), 16384 additions. */
ROWS_FN void rows_g(void)
{
	unsigned int x = 0;

	ROWS_ADDS(16384, x);
	asm volatile("" : : "r"(x));
}
