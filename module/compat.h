/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcompact kernel-version compatibility: the only place that knows how the
 * supported kernels (Debian 12's 6.1 and 6.12) differ.  Tests are on
 * features (macros and symbols), not version numbers, where the kernel
 * offers something to test.
 */
#ifndef PCOMPACT_COMPAT_H
#define PCOMPACT_COMPAT_H

#include <linux/mmzone.h>

#ifndef CONFIG_NUMA
#error "pcompact needs CONFIG_NUMA (per-node threads)"
#endif
#ifndef CONFIG_COMPACTION
#error "pcompact needs CONFIG_COMPACTION"
#endif

/*
 * 6.8 ("mm: change inlined allocation helpers to account at the call site")
 * renamed the exclusive bound of the buddy orders: MAX_ORDER (6.1, exclusive)
 * became MAX_PAGE_ORDER (inclusive) with NR_PAGE_ORDERS as the count.
 */
/* (6.4 to 6.7 had an inclusive MAX_ORDER and no NR_PAGE_ORDERS: unsupported.) */
#ifdef NR_PAGE_ORDERS
#define PCOMPACT_NR_ORDERS	NR_PAGE_ORDERS
#else
#define PCOMPACT_NR_ORDERS	MAX_ORDER
#endif

/* The largest order the buddy allocator hands out. */
#define PCOMPACT_MAX_BUDDY_ORDER	(PCOMPACT_NR_ORDERS - 1)

/*
 * gfp for alloc_contig_range(): no __GFP_RECLAIM, so finding migration targets
 * never enters direct reclaim or wakes kswapd (the engine keeps its own
 * headroom instead).  6.12 refuses anything beyond IO/FS/RECLAIM and a few
 * action bits with -EINVAL; 6.1 takes any mask and allocates its targets
 * with a fixed GFP_USER mask regardless, so one value serves both.
 */
#define PCOMPACT_CONTIG_GFP	(__GFP_IO | __GFP_FS | __GFP_NOWARN)

#endif /* PCOMPACT_COMPAT_H */
