/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef _SFRAME_TOOLS_DUMP_H
#define _SFRAME_TOOLS_DUMP_H

#include <stdio.h>
#include <sframe/sframe.h>

int sframe_dump(FILE *out, const struct sframe_section *sec, const char *name);
int sframe_dump_lookup(FILE *out, const struct sframe_section *sec, u64 pc);
void sframe_format_rule(char *buf, size_t len, const struct sframe_section *sec,
			const struct sframe_rule *rule);

#endif
