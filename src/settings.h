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

/* a regional registry: its parent (the root) and the regions it leases */
#define IDGEN_MAX_OWNED_REGIONS 64
/* a root may lease every region of a 10-bit region field */
#define IDGEN_MAX_LEASED_OUT_REGIONS 1024
extern char *idgen_parent_registry;
extern char *idgen_owned_regions;
extern char *idgen_leased_out_regions;
extern int	idgen_region_lease_ttl_s;

/* the clock watch of the background worker */
extern int	idgen_horizon_warning_min;
extern int	idgen_max_skew_ms;

/* the settings that work without preloading, then the preload-only ones */
extern void settings_define_registry_gucs(void);
extern void settings_define_clockwatch_gucs(void);
extern void settings_define_registry_preload_gucs(void);
extern void settings_define_shape_gucs(void);
extern void settings_define_region_gucs(void);

/*
 * A comma list of region numbers into regions[]: their count (0 for an
 * empty list), or -1 with why (a full sentence) for a bad list.
 */
extern int	settings_parse_regions(const char *list, int *regions, int max_regions,
								   char *why, int why_len);

/* the regions idgen.owned_regions names, or the registry's own: at least 1 */
extern int	settings_owned_regions(int *regions, int max_regions);

/* idgen.parent_registry is set: a regional registry */
extern bool registry_has_parent(void);

/* idgen.registry names another server (a fleet), not this instance */
extern bool registry_is_remote(void);

/* the registry for messages and idgen_status(), without a password */
extern const char *registry_display(void);

#endif							/* IDGEN_SETTINGS_H */
