/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcompact kernel-version compatibility: the only place that knows how the
 * supported kernels (Debian 12's 6.1 and 6.12, Debian 13's 6.12, and 7.x
 * from trixie-backports and sid) differ.  Tests are on features (macros and
 * symbols), not version numbers, where the kernel offers something to test.
 */
#ifndef PCOMPACT_COMPAT_H
#define PCOMPACT_COMPAT_H

#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/pageblock-flags.h>
#include <linux/workqueue.h>

#ifndef CONFIG_NUMA
#error "pcompact needs CONFIG_NUMA (per-node threads)"
#endif
#ifndef CONFIG_COMPACTION
#error "pcompact needs CONFIG_COMPACTION"
#endif
#ifndef CONFIG_SPARSEMEM
#error "pcompact needs CONFIG_SPARSEMEM (pageblock types are read from the section usemap)"
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
 * gfp for alloc_contig_range(): no __GFP_RECLAIM, so on 6.12 and later the
 * migration target of a base page never enters direct reclaim or wakes
 * kswapd (the engine keeps its own headroom instead); a large folio's target
 * gets GFP_TRANSHUGE whatever is passed (alloc_migration_target()), and 6.1
 * allocates every target with a fixed GFP_USER | __GFP_MOVABLE |
 * __GFP_RETRY_MAYFAIL.  6.12 refuses anything beyond IO/FS/RECLAIM and a few
 * action bits with -EINVAL, so one value serves all.
 */
#define PCOMPACT_CONTIG_GFP	(__GFP_IO | __GFP_FS | __GFP_NOWARN)

/*
 * alloc_contig_range()'s third argument: up to 6.15 the migratetype the
 * range's pageblocks get back when isolation is undone (MIGRATE_MOVABLE, the
 * only type the engine empties); since 6.16 ("mm/page_isolation: make
 * page isolation a standalone bit") an acr_flags_t, where the value of
 * MIGRATE_MOVABLE would mean ACR_FLAGS_CMA.  ACR_FLAGS_NONE is a macro.
 */
#ifdef ACR_FLAGS_NONE
#define PCOMPACT_CONTIG_ARG	ACR_FLAGS_NONE
#else
#define PCOMPACT_CONTIG_ARG	MIGRATE_MOVABLE
#endif

/*
 * 7.x ("mm: page_alloc: add alloc_contig_frozen_{range,pages}()") hands an
 * emptied range out frozen, every page at refcount 0, so no speculative
 * reference can be taken on it at all, and free_contig_frozen_range() gives
 * it back in the largest aligned chunks (order 10 for a 4 MB pair).  Both are
 * exported; alloc_contig_frozen_range is a macro over the _noprof function.
 * Before that the engine gets referenced pages and frees them itself
 * (engine.c, pcompact_free_unit()).
 */
#ifdef alloc_contig_frozen_range
#define PCOMPACT_CONTIG_FROZEN	1

/**
 * pcompact_contig_take() - empty [@start, @end) and own every page of it.
 * @start:	first pfn, pageblock aligned.
 * @end:	pfn after the last, pageblock aligned.
 *
 * Return: 0 with every page of the range ours (frozen where the kernel can
 * hand it out so, else with a reference count of 1), or
 * alloc_contig_range()'s error with the range as it was.
 */
static inline int pcompact_contig_take(unsigned long start, unsigned long end)
{
	return alloc_contig_frozen_range(start, end, ACR_FLAGS_NONE, PCOMPACT_CONTIG_GFP);
}

/**
 * pcompact_contig_give_frozen() - free a range pcompact_contig_take() took
 * frozen (only where PCOMPACT_CONTIG_FROZEN).
 * @pfn:	first pfn.
 * @nr_pages:	its length.
 */
static inline void pcompact_contig_give_frozen(unsigned long pfn, unsigned long nr_pages)
{
	free_contig_frozen_range(pfn, nr_pages);
}
#else
#define PCOMPACT_CONTIG_FROZEN	0

static inline int pcompact_contig_take(unsigned long start, unsigned long end)
{
	return alloc_contig_range(start, end, PCOMPACT_CONTIG_ARG, PCOMPACT_CONTIG_GFP);
}

static inline void pcompact_contig_give_frozen(unsigned long pfn, unsigned long nr_pages)
{
	BUILD_BUG();	/* only reachable where PCOMPACT_CONTIG_FROZEN */
}
#endif

/*
 * Driver-movable pages (zsmalloc, balloon): migration handles them through
 * their movable_ops.  Up to 6.12 at least the mark is PAGE_MAPPING_MOVABLE
 * in page->mapping (__folio_test_movable()); by 7.2 a page flag tested by
 * page_has_movable_ops() has replaced it.  Both are lockless flag reads, as
 * the kernel's own compaction scanner does them.
 */
#ifdef PAGE_MAPPING_MOVABLE
static inline bool pcompact_page_has_movable_ops(struct page *page)
{
	return __folio_test_movable(page_folio(page));
}
#else
static inline bool pcompact_page_has_movable_ops(struct page *page)
{
	return page_has_movable_ops(page);
}
#endif

/*
 * The pageblock bits: 6.16 moved isolation out of the migratetype into a
 * bit of its own and renamed the type mask PAGEBLOCK_MIGRATETYPE_MASK (both
 * macros), with PAGEBLOCK_ISO_MASK for the isolate bit.
 */
#ifdef PAGEBLOCK_MIGRATETYPE_MASK
#define PCOMPACT_PB_TYPE_MASK	PAGEBLOCK_MIGRATETYPE_MASK
#define PCOMPACT_PB_ISO_MASK	PAGEBLOCK_ISO_MASK
#else
#define PCOMPACT_PB_TYPE_MASK	MIGRATETYPE_MASK
#define PCOMPACT_PB_ISO_MASK	0
#endif

/**
 * pcompact_pageblock_migratetype() - the migratetype of @pfn's pageblock.
 * @pfn:	an online pfn.
 *
 * get_pfnblock_flags_mask() is not exported; this reads the same bits the
 * same unlocked way (READ_ONCE of the word, as it does) from the section's
 * usemap, with the layout include/linux/pageblock-flags.h and mmzone.h
 * define: NR_PAGEBLOCK_BITS bits per pageblock, the migratetype in the low
 * bits (6.1, 6.12 and 7.x alike), and from 6.16 the isolate bit apart.
 *
 * Return: the migratetype; racy, like every unlocked reader's.
 */
static inline int pcompact_pageblock_migratetype(unsigned long pfn)
{
	unsigned long *usemap = section_to_usemap(__pfn_to_section(pfn));
	unsigned long bitidx = ((pfn & (PAGES_PER_SECTION - 1)) >> pageblock_order) *
			       NR_PAGEBLOCK_BITS;
	unsigned long bits = READ_ONCE(usemap[BIT_WORD(bitidx)]) >>
			     (bitidx & (BITS_PER_LONG - 1));

	if (bits & PCOMPACT_PB_ISO_MASK)
		return MIGRATE_ISOLATE;
	return bits & PCOMPACT_PB_TYPE_MASK;
}

/**
 * pcompact_init_on_alloc() - whether every page allocation is zeroed.
 *
 * init_on_alloc (CONFIG_INIT_ON_ALLOC_DEFAULT_ON, Debian's default) is an
 * exported static key that want_init_on_alloc() reads; with it on,
 * alloc_contig_range() clears the whole range it empties.
 *
 * Return: true when allocations are zeroed.
 */
static inline bool pcompact_init_on_alloc(void)
{
	return want_init_on_alloc(0);
}

/**
 * pcompact_filp_open() - filp_open() a path under userspace's root, also
 * from a pcompactd thread.
 * @path:	an absolute path (/proc/sys/..., /sys/...).
 * @flags:	open flags.
 *
 * 7.3 gives kernel threads a filesystem context of their own, in which
 * /proc and /sys of userspace are not found; path lookups from a kthread
 * go through scoped_with_init_fs() (include/linux/fs_struct.h, a macro;
 * userspace_init_fs is exported).  Only the open resolves the path.
 *
 * Return: the file, or an ERR_PTR().
 */
static inline struct file *pcompact_filp_open(const char *path, int flags)
{
#ifdef scoped_with_init_fs
	if (current->flags & PF_KTHREAD) {
		scoped_with_init_fs()
			return filp_open(path, flags, 0);
	}
#endif
	return filp_open(path, flags, 0);
}

/*
 * The unbound system workqueue.  6.17 ("workqueue: Add system_percpu_wq and
 * system_dfl_wq", in Debian's 6.12 from 6.12.117 too) added system_dfl_wq,
 * and 7.2 marks system_unbound_wq __WQ_DEPRECATED: each caller's first work
 * there logs "enqueued on deprecated workqueue".  The new name is a variable,
 * nothing a preprocessor can test, so Kbuild looks for its declaration in
 * the kernel's workqueue.h and defines PCOMPACT_HAVE_SYSTEM_DFL_WQ.
 */
#ifdef PCOMPACT_HAVE_SYSTEM_DFL_WQ
#define PCOMPACT_UNBOUND_WQ	system_dfl_wq
#else
#define PCOMPACT_UNBOUND_WQ	system_unbound_wq
#endif

/*
 * The mm_compaction_migratepages tracepoint's first argument: the
 * compact_control on 6.1, the batch's page count on 6.12 and later (Kbuild
 * probes the prototype).  The second, the pages migrated, is the same.
 */
#ifdef PCOMPACT_HAVE_MIGRATEPAGES_COUNT
#define PCOMPACT_MIGRATEPAGES_FIRST_ARG	unsigned int nr_migratepages
#else
struct compact_control;
#define PCOMPACT_MIGRATEPAGES_FIRST_ARG	struct compact_control *cc
#endif

#endif /* PCOMPACT_COMPAT_H */
