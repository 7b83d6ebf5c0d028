/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The functions of sframe_klp_target.ko that the livepatches in this
 * directory replace (by name: the patches do not link against them).
 */
#ifndef _SFRAME_KLP_TARGET_H
#define _SFRAME_KLP_TARGET_H

int sfk_sleep_func(void);
void sfk_spin_inner(void);
int sfk_spin_outer(void);
int sfk_reloc_func(void);

#endif /* _SFRAME_KLP_TARGET_H */
