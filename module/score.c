// SPDX-License-Identifier: GPL-2.0
/*
 * pcompact score: the fragmentation score of zones and nodes, read from the
 * buddy free lists without taking the zone lock.
 */
#define pr_fmt(fmt) "pcompact: " fmt

#include <linux/compiler.h>
#include <linux/mmzone.h>

#include "compat.h"
#include "pcompact.h"

/**
 * pcompact_score_zone() - a zone's unweighted fragmentation score.
 * @zone:	the zone.
 * @order:	the order that matters.
 *
 * The free counts are read without the zone lock, as the kernel's own
 * fragmentation score does: a racy sample is good enough to decide whether
 * to compact, and taking the lock here would contend with allocations.
 * Pages on per-CPU lists are not in the free lists, so they count as
 * neither free nor usable, as in the kernel's figure.
 *
 * Return: 0..100.
 */
unsigned int pcompact_score_zone(struct zone *zone, unsigned int order)
{
	unsigned long nr_free[PCOMPACT_NR_ORDERS];
	unsigned int o;

	for (o = 0; o < PCOMPACT_NR_ORDERS; o++)
		/* Unlocked, as the kernel's fill_contig_page_info(). */
		nr_free[o] = data_race(READ_ONCE(zone->free_area[o].nr_free));
	return pcompact_extfrag(nr_free, PCOMPACT_NR_ORDERS, order);
}

/**
 * pcompact_score_node() - a node's fragmentation score.
 * @nid:	the node.
 * @order:	the order that matters.
 *
 * Return: the sum of the zones' scores weighted by their share of the
 * node's pages, 0..100.
 */
unsigned int pcompact_score_node(int nid, unsigned int order)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	unsigned int score = 0;
	int zid;

	for (zid = 0; zid < MAX_NR_ZONES; zid++) {
		struct zone *zone = &pgdat->node_zones[zid];

		if (!populated_zone(zone))
			continue;
		score += pcompact_weighted_score(pcompact_score_zone(zone, order),
						 zone->present_pages,
						 pgdat->node_present_pages);
	}
	return min(score, 100U);
}

/**
 * pcompact_free_blocks_node() - a node's free blocks of an order.
 * @nid:	the node.
 * @order:	the order that matters.
 *
 * Read without the zone lock, as the score.  Larger free blocks count as
 * the blocks of @order they hold.
 *
 * Return: the number of free blocks of at least @order, in blocks of @order.
 */
unsigned long pcompact_free_blocks_node(int nid, unsigned int order)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	unsigned long blocks = 0;
	unsigned int o;
	int zid;

	for (zid = 0; zid < MAX_NR_ZONES; zid++) {
		struct zone *zone = &pgdat->node_zones[zid];

		if (!populated_zone(zone))
			continue;
		for (o = order; o < PCOMPACT_NR_ORDERS; o++)
			/* Unlocked, as the kernel's fill_contig_page_info(). */
			blocks += data_race(READ_ONCE(zone->free_area[o].nr_free)) << (o - order);
	}
	return blocks;
}

/**
 * pcompact_score_wmarks() - the low and high thresholds now in force.
 * @wmarks:	where to put them.
 *
 * The parameter handlers never let an inconsistent combination through, so
 * this cannot fail; should it, the thresholds fall back to never compacting.
 */
void pcompact_score_wmarks(struct pcompact_wmarks *wmarks)
{
	if (pcompact_wmarks_resolve(READ_ONCE(pcompact_proactiveness),
				    READ_ONCE(pcompact_wmark_low),
				    READ_ONCE(pcompact_wmark_high), wmarks)) {
		wmarks->low = 100;
		wmarks->high = 100;
	}
}
