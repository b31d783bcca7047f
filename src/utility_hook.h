/*
 * utility_hook.h - CREATE EXTENSION idgen serialised with the background
 * worker's (utility_hook.c)
 */
#ifndef IDGEN_UTILITY_HOOK_H
#define IDGEN_UTILITY_HOOK_H

extern void idgen_install_utility_hook(void);
extern void idgen_lock_extension_creation(void);

#endif							/* IDGEN_UTILITY_HOOK_H */
