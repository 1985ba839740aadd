/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - khugehog's differences between the Debian 6.1, 6.12 and 7.x kernels
 *
 * Feature tests only, no kernel version numbers: .c files use the names
 * defined here and contain no #if.
 */
#ifndef KHUGEHOG_COMPAT_H
#define KHUGEHOG_COMPAT_H

#include <linux/mmzone.h>
#include <linux/pageblock-flags.h>

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

/*
 * The pageblock bits (map.c): 6.16 moved isolation out of the migratetype
 * into a bit of its own, named the type mask PAGEBLOCK_MIGRATETYPE_MASK
 * (a macro, tested here) and the skip bit PB_compact_skip; before, the
 * isolate state was a migratetype and the skip bit PB_migrate_skip.  A
 * kernel with one change and not the other fails to build here, loudly.
 */
#ifdef PAGEBLOCK_MIGRATETYPE_MASK
#define KHH_PB_TYPE_MASK	PAGEBLOCK_MIGRATETYPE_MASK
#define KHH_PB_ISO_MASK		PAGEBLOCK_ISO_MASK
#define KHH_PB_SKIP_MASK	BIT(PB_compact_skip)
#else
#define KHH_PB_TYPE_MASK	MIGRATETYPE_MASK
#define KHH_PB_ISO_MASK		0
#define KHH_PB_SKIP_MASK	BIT(PB_migrate_skip)
#endif /* PAGEBLOCK_MIGRATETYPE_MASK */

/*
 * khh_pageblock_bits() - the flag bits of @pfn's pageblock, unlocked.
 *
 * get_pfnblock_flags_mask() and its 7.x successors are not exported; this
 * reads the same word the same way (READ_ONCE) from the section's usemap,
 * NR_PAGEBLOCK_BITS bits per pageblock, as pcompact's compat.h does.
 */
static inline unsigned long khh_pageblock_bits(unsigned long pfn)
{
	unsigned long *usemap = section_to_usemap(__pfn_to_section(pfn));
	unsigned long bitidx = ((pfn & (PAGES_PER_SECTION - 1)) >> pageblock_order) *
			       NR_PAGEBLOCK_BITS;

	return READ_ONCE(usemap[BIT_WORD(bitidx)]) >> (bitidx & (BITS_PER_LONG - 1));
}

/* The migratetype in khh_pageblock_bits() @bits, MIGRATE_ISOLATE included. */
static inline int khh_pageblock_migratetype(unsigned long bits)
{
	if (bits & KHH_PB_ISO_MASK)
		return MIGRATE_ISOLATE;
	return bits & KHH_PB_TYPE_MASK;
}

/* Whether compaction's skip mark is set in khh_pageblock_bits() @bits. */
static inline bool khh_pageblock_skip(unsigned long bits)
{
	return bits & KHH_PB_SKIP_MASK;
}

/**
 * struct khh_zone_compaction - a zone's compaction state (map.c)
 * @cached_migrate: the migration scanners' cached PFNs, async and sync
 * @cached_free: the free scanner's cached PFN
 * @init_migrate: where the last skip-mark reset put the migration scanner
 * @init_free: where it put the free scanner
 * @considered: compactions skipped since the last deferral
 * @defer_shift: the deferral ladder's step: 1 << @defer_shift are skipped
 * @order_failed: the lowest order that failed
 * @blockskip_flush: a direct compaction's scanners met: the next ladder
 *	restart resets the skip marks
 */
struct khh_zone_compaction {
	unsigned long cached_migrate[2];
	unsigned long cached_free;
	unsigned long init_migrate;
	unsigned long init_free;
	unsigned int considered;
	unsigned int defer_shift;
	int order_failed;
	bool blockskip_flush;
};

/*
 * khh_read_zone_compaction() - @zone's struct zone compaction fields,
 * unlocked (a report, not a decision); all zero without CONFIG_COMPACTION,
 * where khugehog refuses map_at_end.
 */
static inline void khh_read_zone_compaction(const struct zone *zone,
					    struct khh_zone_compaction *out)
{
#ifdef CONFIG_COMPACTION
	out->cached_migrate[0] = READ_ONCE(zone->compact_cached_migrate_pfn[0]);
	out->cached_migrate[1] = READ_ONCE(zone->compact_cached_migrate_pfn[1]);
	out->cached_free = READ_ONCE(zone->compact_cached_free_pfn);
	out->init_migrate = READ_ONCE(zone->compact_init_migrate_pfn);
	out->init_free = READ_ONCE(zone->compact_init_free_pfn);
	out->considered = READ_ONCE(zone->compact_considered);
	out->defer_shift = READ_ONCE(zone->compact_defer_shift);
	out->order_failed = READ_ONCE(zone->compact_order_failed);
	out->blockskip_flush = READ_ONCE(zone->compact_blockskip_flush);
#else
	memset(out, 0, sizeof(*out));
#endif /* CONFIG_COMPACTION */
}

#endif /* KHUGEHOG_COMPAT_H */
