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
#ifdef NR_PAGE_ORDERS
#define PCOMPACT_NR_ORDERS	NR_PAGE_ORDERS
#else
#define PCOMPACT_NR_ORDERS	MAX_ORDER
#endif

#endif /* PCOMPACT_COMPAT_H */
