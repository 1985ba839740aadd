/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - khugehog's differences between the Debian 6.1 and 6.12 kernels
 *
 * Feature tests only, no kernel version numbers: .c files use the names
 * defined here and contain no #if.
 */
#ifndef KHUGEHOG_COMPAT_H
#define KHUGEHOG_COMPAT_H

#include <linux/mmzone.h>

/*
 * KHH_NR_ORDERS: number of buddy allocator orders; valid orders are
 * 0 .. KHH_NR_ORDERS - 1 (0..10 on x86-64 with both kernels).
 *
 * 6.8 renamed MAX_ORDER to MAX_PAGE_ORDER (inclusive) and added
 * NR_PAGE_ORDERS.  Before 6.4 MAX_ORDER was exclusive (6.1: 11).  6.4..6.7
 * have an inclusive MAX_ORDER and no NR_PAGE_ORDERS: there the fallback
 * below refuses the largest order, which is safe.
 */
#ifdef NR_PAGE_ORDERS
#define KHH_NR_ORDERS	NR_PAGE_ORDERS
#else
#define KHH_NR_ORDERS	MAX_ORDER
#endif /* NR_PAGE_ORDERS */

#endif /* KHUGEHOG_COMPAT_H */
