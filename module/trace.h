/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcompact tracepoints: the score samples and compaction rounds, for
 * tracefs (events/pcompact/), perf and trace-cmd.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM pcompact

#if !defined(PCOMPACT_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define PCOMPACT_TRACE_H

#include <linux/tracepoint.h>

#include "pcompact.h"

TRACE_DEFINE_ENUM(PCOMPACT_ROUTE_CONTIG);
TRACE_DEFINE_ENUM(PCOMPACT_ROUTE_KERNEL);
TRACE_DEFINE_ENUM(PCOMPACT_ROUTE_KERNEL_THEN_CONTIG);
TRACE_DEFINE_ENUM(PCOMPACT_ROUTE_QUIET_CONTIG);
TRACE_DEFINE_ENUM(PCOMPACT_ROUTE_STALLED_CONTIG);
TRACE_DEFINE_ENUM(PCOMPACT_ROUTE_FALLBACK_CONTIG);

DECLARE_EVENT_CLASS(pcompact_score_class,
		    TP_PROTO(int nid, unsigned int score, unsigned int low,
			     unsigned int high),
		    TP_ARGS(nid, score, low, high),
		    TP_STRUCT__entry(__field(int, nid)
				     __field(unsigned int, score)
				     __field(unsigned int, low)
				     __field(unsigned int, high)),
		    TP_fast_assign(__entry->nid = nid;
				   __entry->score = score;
				   __entry->low = low;
				   __entry->high = high;),
		    TP_printk("nid=%d score=%u low=%u high=%u", __entry->nid,
			      __entry->score, __entry->low, __entry->high)
);

/* Every score sample, every interval_ms per node. */
DEFINE_EVENT(pcompact_score_class, pcompact_score,
	     TP_PROTO(int nid, unsigned int score, unsigned int low,
		      unsigned int high),
	     TP_ARGS(nid, score, low, high)
);

/* A compaction round starts: the score is above the high threshold. */
DEFINE_EVENT(pcompact_score_class, pcompact_round_begin,
	     TP_PROTO(int nid, unsigned int score, unsigned int low,
		      unsigned int high),
	     TP_ARGS(nid, score, low, high)
);

/*
 * A compaction round ends, with what it did and how (route: a
 * PCOMPACT_ROUTE_*, last so that readers of the fields before it by
 * position still read them).
 */
TRACE_EVENT(pcompact_round_end,
	    TP_PROTO(int nid, unsigned int score_before, unsigned int score_after,
		     unsigned long blocks_freed, unsigned long pages_migrated,
		     u64 elapsed_ns, enum pcompact_route route),
	    TP_ARGS(nid, score_before, score_after, blocks_freed, pages_migrated,
		    elapsed_ns, route),
	    TP_STRUCT__entry(__field(int, nid)
			     __field(unsigned int, score_before)
			     __field(unsigned int, score_after)
			     __field(unsigned long, blocks_freed)
			     __field(unsigned long, pages_migrated)
			     __field(u64, elapsed_ns)
			     __field(int, route)),
	    TP_fast_assign(__entry->nid = nid;
			   __entry->score_before = score_before;
			   __entry->score_after = score_after;
			   __entry->blocks_freed = blocks_freed;
			   __entry->pages_migrated = pages_migrated;
			   __entry->elapsed_ns = elapsed_ns;
			   __entry->route = route;),
	    TP_printk("nid=%d score_before=%u score_after=%u blocks_freed=%lu pages_migrated=%lu elapsed_ns=%llu route=%s",
		      __entry->nid, __entry->score_before, __entry->score_after,
		      __entry->blocks_freed, __entry->pages_migrated,
		      __entry->elapsed_ns,
		      __print_symbolic(__entry->route,
				       { PCOMPACT_ROUTE_CONTIG, "contig" },
				       { PCOMPACT_ROUTE_KERNEL, "kernel" },
				       { PCOMPACT_ROUTE_KERNEL_THEN_CONTIG, "kernel-then-contig" },
				       { PCOMPACT_ROUTE_QUIET_CONTIG, "quiet-contig" },
				       { PCOMPACT_ROUTE_STALLED_CONTIG, "stalled-contig" },
				       { PCOMPACT_ROUTE_FALLBACK_CONTIG, "fallback-contig" }))
);

/*
 * A round defers the node (pcompact_round_defers()), and why: the score
 * did not fall and it emptied nothing, or it found nothing left to empty.
 */
TRACE_EVENT(pcompact_defer,
	    TP_PROTO(int nid, unsigned int score_before, unsigned int score_after,
		     unsigned long blocks_emptied, bool exhausted, bool fell_back,
		     bool out_of_room, unsigned long defer_ms),
	    TP_ARGS(nid, score_before, score_after, blocks_emptied, exhausted,
		    fell_back, out_of_room, defer_ms),
	    TP_STRUCT__entry(__field(int, nid)
			     __field(unsigned int, score_before)
			     __field(unsigned int, score_after)
			     __field(unsigned long, blocks_emptied)
			     __field(bool, exhausted)
			     __field(bool, fell_back)
			     __field(bool, out_of_room)
			     __field(unsigned long, defer_ms)),
	    TP_fast_assign(__entry->nid = nid;
			   __entry->score_before = score_before;
			   __entry->score_after = score_after;
			   __entry->blocks_emptied = blocks_emptied;
			   __entry->exhausted = exhausted;
			   __entry->fell_back = fell_back;
			   __entry->out_of_room = out_of_room;
			   __entry->defer_ms = defer_ms;),
	    TP_printk("nid=%d score_before=%u score_after=%u blocks_emptied=%lu exhausted=%d fell_back=%d out_of_room=%d defer_ms=%lu",
		      __entry->nid, __entry->score_before, __entry->score_after,
		      __entry->blocks_emptied, __entry->exhausted,
		      __entry->fell_back, __entry->out_of_room, __entry->defer_ms)
);

/* One alloc_contig_range() call of the contig engine, with what it did. */
TRACE_EVENT(pcompact_range,
	    TP_PROTO(int nid, unsigned long pfn, unsigned int nr_blocks,
		     unsigned int in_use, int err, u64 elapsed_ns),
	    TP_ARGS(nid, pfn, nr_blocks, in_use, err, elapsed_ns),
	    TP_STRUCT__entry(__field(int, nid)
			     __field(unsigned long, pfn)
			     __field(unsigned int, nr_blocks)
			     __field(unsigned int, in_use)
			     __field(int, err)
			     __field(u64, elapsed_ns)),
	    TP_fast_assign(__entry->nid = nid;
			   __entry->pfn = pfn;
			   __entry->nr_blocks = nr_blocks;
			   __entry->in_use = in_use;
			   __entry->err = err;
			   __entry->elapsed_ns = elapsed_ns;),
	    TP_printk("nid=%d pfn=0x%lx nr_blocks=%u in_use=%u err=%d elapsed_ns=%llu",
		      __entry->nid, __entry->pfn, __entry->nr_blocks,
		      __entry->in_use, __entry->err, __entry->elapsed_ns)
);

#endif /* PCOMPACT_TRACE_H */

/* This part must be outside the include guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
