/*
 * settings.h - the node's settings (settings.c)
 *
 * The idgen.* GUC variables of the node runtime and the background worker,
 * and what they say about where the registry is.
 */
#ifndef IDGEN_SETTINGS_H
#define IDGEN_SETTINGS_H

#include "base.h"

/* the node's shape: read once at start */
extern int	idgen_region_id;
extern int	idgen_worker_id;
extern int	idgen_workers_per_node;

/* the registry and the lease */
extern int	idgen_lease_ttl_ms;
extern char *idgen_database;
extern char *idgen_registry;

/* the clock watch of the background worker */
extern int	idgen_horizon_warning_min;
extern int	idgen_max_skew_ms;

/* the settings that work without preloading, then the preload-only ones */
extern void settings_define_registry_gucs(void);
extern void settings_define_clockwatch_gucs(void);
extern void settings_define_registry_preload_gucs(void);
extern void settings_define_shape_gucs(void);

/* idgen.registry names another server (a fleet), not this instance */
extern bool registry_is_remote(void);

/* the registry for messages and idgen_status(), without a password */
extern const char *registry_display(void);

#endif							/* IDGEN_SETTINGS_H */
