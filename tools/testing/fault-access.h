/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Test accessor for the SFrame core: reads fail once a budget of reads is
 * spent, as fault-tolerant user-memory reads fail on a missing page.
 */
#ifndef _SFRAME_TEST_FAULT_ACCESS_H
#define _SFRAME_TEST_FAULT_ACCESS_H

extern long fault_budget;	/* reads left; negative: unlimited */
extern unsigned long fault_reads;

static inline int sframe_access_copy(const struct sframe_section *sec,
				     u32 off, void *dst, u32 len)
{
	fault_reads++;
	if (fault_budget == 0)
		return -SFRAME_E_FAULT;
	if (fault_budget > 0)
		fault_budget--;
	__builtin_memcpy(dst, sec->data + off, len);
	return 0;
}

#endif
