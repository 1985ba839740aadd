/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcompact: shared declarations of the module's layers.
 *
 * Layers and their prefixes:
 *   pcompact_     core: module lifetime, per-node kthreads (core.c)
 *   pcompact_param_  module parameters (params.c)
 */
#ifndef PCOMPACT_H
#define PCOMPACT_H

#include <linux/types.h>
#include <linux/nodemask.h>

/* Runtime configuration, written only through the parameter handlers. */
extern bool pcompact_enabled;
extern unsigned int pcompact_interval_ms;
extern unsigned int pcompact_proactiveness;

int pcompact_start_node(int nid);
void pcompact_stop_node(int nid);
void pcompact_wake_all(void);

#endif /* PCOMPACT_H */
