/*
 * nodeconf.h - the node's shape settings (nodeconf.c)
 */
#ifndef IDGEN_NODECONF_H
#define IDGEN_NODECONF_H

extern int	idgen_region_id;
extern int	idgen_worker_id;
extern int	idgen_workers_per_node;
extern void idgen_nodeconf_define_gucs(void);


#endif							/* IDGEN_NODECONF_H */
