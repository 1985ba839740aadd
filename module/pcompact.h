/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcompact: shared declarations of the module's layers.
 *
 * Layers and their prefixes:
 *   pcompact_         core: module lifetime, per-node pcompactd threads (core.c)
 *   pcompact_score_   fragmentation score of zones and nodes (score.c, score_calc.c)
 *   pcompact_engine_  the compaction engines (engine.c)
 *   pcompact_hooks_   observing the kernel's own compaction and reclaim (hooks.c)
 *   pcompact_param_   module parameters (params.c)
 *   pcompact_sysfs_   statistics under /sys/kernel/pcompact (sysfs.c)
 *   pcompact_takeover_  vm.compaction_proactiveness while loaded (takeover.c)
 */
#ifndef PCOMPACT_H
#define PCOMPACT_H

#include <linux/atomic.h>
#include <linux/kobject.h>
#include <linux/mmzone.h>
#include <linux/nodemask.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "score_calc.h"

/* What a node's pcompactd is doing, as shown in sysfs. */
enum pcompact_state {
	PCOMPACT_IDLE,
	PCOMPACT_COMPACTING,
	PCOMPACT_BACKOFF_KSWAPD,
	PCOMPACT_BACKOFF_CONTENTION,
	PCOMPACT_BACKOFF_STALL,
	PCOMPACT_DEFERRED,
	PCOMPACT_DISABLED,
};

/**
 * struct pcompact_stats - per-node counters, only ever increasing.
 * @rounds:		compaction rounds started (score above high).
 * @blocks_freed:	pageblocks the engine emptied and gave back as free.
 * @pages_migrated:	pages the engine migrated: the in-use pages of each range
 *			the contig engine emptied; what the node's own calls
 *			of the kernel's compaction migrated (hooks.c), or
 *			without that hook PGMIGRATE_SUCCESS over each call.
 * @failed_blocks:	blocks the engine tried and could not empty.
 * @skipped_unmovable:	blocks not tried because they hold unmovable pages.
 * @skipped_type:	blocks not tried because their pageblock type is not
 *			MIGRATE_MOVABLE.
 * @deferrals:		rounds that made no progress and deferred the next one.
 * @backoffs_kswapd:	rounds not started or cut short because kswapd ran.
 * @backoffs_contention: rounds cut short because the zone lock was contended.
 * @backoffs_stall:	rounds not started because allocations stalled in
 *			direct compaction lately (backoff_when_stalled).
 * @compact_ns:		time spent in compaction rounds.
 * @scan_ns:		part of @compact_ns spent reading struct pages to
 *			choose blocks.
 * @scanned_blocks:	pageblocks those scans read.
 * @direct_stalls:	direct compaction stalls seen on this node (hooks).
 * @direct_stall_ns:	time those stalls took (hooks).
 * @kcompactd_wakes:	kcompactd wakeups seen on this node (hooks).
 * @kswapd_wakes:	kswapd wakeups seen on this node (hooks).
 * @stall_wakes:	samples brought forward by a direct compaction stall.
 * @reserve_rounds:	rounds started below the high threshold because the
 *			node's free blocks were short of its reserve.
 * @engine_fallbacks:	engine=node-sysfs rounds whose kernel compaction made
 *			no progress and that went on with the contig engine.
 * @quiet_contig_rounds: engine=node-sysfs rounds run with the contig engine
 *			because no allocation had stalled lately
 *			(contig_when_quiet).
 * @stalled_contig_rounds: engine=node-sysfs rounds run with the contig engine
 *			because an allocation had stalled lately
 *			(contig_when_stalled).
 * @fallback_contig_rounds: engine=node-sysfs rounds run with the contig
 *			engine because allocations had stalled lately and the
 *			node's last kernel call made no progress
 *			(contig_after_fallback).
 * @fed_stall_rounds:	engine=node-sysfs rounds whose kernel call migrated
 *			pages while allocations stalled, not deferred for it
 *			(progress_when_stalled).
 * @headroom_stops:	rounds that stopped, or did no work, because the node's
 *			free memory was within pcompact's headroom above its
 *			high watermark.
 * @pcp_flushes:	per-CPU list drains after rounds (flush_pcp), one per
 *			zone that held a free block back.
 * @pcp_flush_blocks:	free pageblocks the node gained over those drains.
 * @call_drains:	per-CPU list drains before a call of the kernel's
 *			compaction (drain_before_call): alloc_contig_range()
 *			calls made to drain a zone, whether or not they took
 *			their block (they drain once it is isolated).
 * @call_drain_blocks:	free pageblocks the node gained over the drains
 *			that took their block.
 * @call_drain_failures: those of the call_drains whose alloc_contig_range()
 *			call failed, having drained or not.
 */
struct pcompact_stats {
	atomic64_t rounds;
	atomic64_t blocks_freed;
	atomic64_t pages_migrated;
	atomic64_t failed_blocks;
	atomic64_t skipped_unmovable;
	atomic64_t skipped_type;
	atomic64_t deferrals;
	atomic64_t backoffs_kswapd;
	atomic64_t backoffs_contention;
	atomic64_t backoffs_stall;
	atomic64_t compact_ns;
	atomic64_t scan_ns;
	atomic64_t scanned_blocks;
	atomic64_t direct_stalls;
	atomic64_t direct_stall_ns;
	atomic64_t kcompactd_wakes;
	atomic64_t kswapd_wakes;
	atomic64_t stall_wakes;
	atomic64_t reserve_rounds;
	atomic64_t engine_fallbacks;
	atomic64_t quiet_contig_rounds;
	atomic64_t stalled_contig_rounds;
	atomic64_t fallback_contig_rounds;
	atomic64_t fed_stall_rounds;
	atomic64_t headroom_stops;
	atomic64_t pcp_flushes;
	atomic64_t pcp_flush_blocks;
	atomic64_t call_drains;
	atomic64_t call_drain_blocks;
	atomic64_t call_drain_failures;
};

/**
 * struct pcompact_node - one node's pcompactd and what it knows.
 * @nid:		the NUMA node.
 * @task:		the pcompactd<N> kthread, NULL while not running.
 * @stopping:		set while the thread is being stopped: a node-sysfs
 *			call in progress ends (engine.c).
 * @wait:		where the thread sleeps between samples.
 * @kick:		set to end the current sleep early (parameter change).
 * @demand:		set by a direct compaction stall on any node (hooks.c):
 *			end the current sleep early, but keep any deferral.
 * @stall_wake_next:	jiffies before which a stall does not set @demand.
 * @paced_until:	jiffies before which, under a quota, @demand does not
 *			end the sleep: one interval after the last round began
 *			(only the node's thread uses it).
 * @state:		enum pcompact_state, for sysfs.
 * @score:		the node score at the last sample, 0..100.
 * @kswapd_seen:	consecutive samples that saw kswapd reclaiming.
 * @room_spared:	consecutive fruitless rounds that worked until the headroom
 *			stopped them and were spared a deferral
 *			(pcompact_round_defers()).
 * @consumption:	how fast the node's free blocks are consumed (only the
 *			node's thread writes it).
 * @free_blocks:	free blocks of the order that matters at the last sample.
 * @reserve:		free blocks the node keeps for its demand (reserve_ms).
 * @deferred_until:	jiffies before which no round starts.
 * @kernel_migrated:	pages the kernel's compaction migrated while the
 *			node's thread ran it (engine=node-sysfs; hooks.c).
 * @kernel_fruitless:	the node's last call of the kernel's compaction
 *			(engine=node-sysfs) made no progress (only the node's
 *			thread uses it).
 * @kobj:		/sys/kernel/pcompact/node<N>.
 * @scan_cursor:	per zone, the pair the engine's next scan starts at
 *			(engine.c; only the node's thread uses it).
 * @stats:		counters.
 *
 * The struct lives from module load to unload for every possible node, so
 * hooks and sysfs can use it whether or not the thread runs.
 */
struct pcompact_node {
	int nid;
	struct task_struct *task;
	bool stopping;
	wait_queue_head_t wait;
	bool kick;
	bool demand;
	unsigned long stall_wake_next;
	unsigned long paced_until;
	int state;
	unsigned int score;
	unsigned int kswapd_seen;
	unsigned int room_spared;
	struct pcompact_demand consumption;
	unsigned long free_blocks;
	unsigned long reserve;
	unsigned long deferred_until;
	atomic64_t kernel_migrated;
	bool kernel_fruitless;
	struct kobject *kobj;
	unsigned long scan_cursor[MAX_NR_ZONES];
	struct pcompact_stats stats;
};

/* Runtime configuration, written only through the parameter handlers. */
extern bool pcompact_enabled;
extern unsigned int pcompact_interval_ms;
extern unsigned int pcompact_stall_wake_ms;
extern unsigned int pcompact_reserve_ms;
extern bool pcompact_any_cpu;
extern bool pcompact_flush_pcp;
extern bool pcompact_contig_when_quiet;
extern bool pcompact_contig_when_stalled;
extern bool pcompact_backoff_when_stalled;
extern bool pcompact_progress_when_stalled;
extern bool pcompact_contig_after_fallback;
extern bool pcompact_drain_before_call;
extern int pcompact_nice;
extern unsigned int pcompact_proactiveness;
extern int pcompact_wmark_low;
extern int pcompact_wmark_high;
extern unsigned int pcompact_order;
extern unsigned int pcompact_max_defer_shift;
extern unsigned int pcompact_quota_ms;
extern unsigned int pcompact_run_max_mb;
extern unsigned int pcompact_stall_run_mb;
extern int pcompact_engine;
extern bool pcompact_takeover;
extern nodemask_t pcompact_nodemask;

/* The engines a user can choose with engine=. */
enum pcompact_engine_id {
	PCOMPACT_ENGINE_CONTIG,
	PCOMPACT_ENGINE_NODE_SYSFS,
	PCOMPACT_ENGINE_KALLSYMS,
	PCOMPACT_NR_ENGINES,
};

extern const char * const pcompact_engine_names[PCOMPACT_NR_ENGINES];

/* core.c */
struct pcompact_node *pcompact_node(int nid);
bool pcompact_is_live(void);
void pcompact_wake_all(void);
void pcompact_bind_all(void);
int pcompact_apply_nodes(void);
const char *pcompact_state_name(int state);
/* For nodes= (params.c): sets the mask under pcompact_nodes_lock. */
int pcompact_set_nodes(const nodemask_t *mask);

/* score.c */
unsigned int pcompact_score_zone(struct zone *zone, unsigned int order);
unsigned int pcompact_score_node(int nid, unsigned int order);
unsigned long pcompact_free_blocks_node(int nid, unsigned int order);
void pcompact_score_wmarks(struct pcompact_wmarks *wmarks);

/* engine.c */

/*
 * The engine a round chose: engine=contig's, or with engine=node-sysfs the
 * kernel's compaction (a round out of headroom calls nothing), the contig
 * engine after the kernel's call made no progress, or the contig engine
 * instead of the kernel's (contig_when_quiet, contig_when_stalled,
 * contig_after_fallback).  Counted per node and traced in
 * pcompact_round_end.
 */
enum pcompact_route {
	PCOMPACT_ROUTE_CONTIG,
	PCOMPACT_ROUTE_KERNEL,
	PCOMPACT_ROUTE_KERNEL_THEN_CONTIG,
	PCOMPACT_ROUTE_QUIET_CONTIG,
	PCOMPACT_ROUTE_STALLED_CONTIG,
	PCOMPACT_ROUTE_FALLBACK_CONTIG,
};

/**
 * struct pcompact_round - what one compaction round asks for and got.
 * @nid:		the node.
 * @stopping:		the node's pcompact_node.stopping: the call must end.
 * @order:		the order the score is computed for.
 * @low:		stop when every zone's unweighted score is at or below this
 *			(node-sysfs: the node's score).
 * @deadline_ns:	ktime_get_ns() value at which the work quota is spent,
 *			or 0 for no limit.
 * @blocks_freed:	out: blocks emptied (node-sysfs: the net gain in free
 *			pageblocks over the call).
 * @order_blocks_emptied: out: free blocks of @order the contig engine made
 *			itself (a range of pageblocks may hold none when @order
 *			is larger); the kernel's call has no such count.
 * @pages_migrated:	out: pages migrated meanwhile.
 * @failed_blocks:	out: blocks tried but not emptied.
 * @unevictable_ok:	whether unevictable (mlocked) pages may be moved, as
 *			vm.compact_unevictable_allowed says.
 * @skipped_unmovable:	out: blocks passed over for unmovable pages.
 * @skipped_type:	out: blocks passed over for their pageblock type.
 * @scan_ns:		out: time spent reading struct pages to choose blocks.
 * @scanned_blocks:	out: pageblocks read to choose blocks.
 * @stop_reason:	out: why the round ended early (a PCOMPACT_* state), or
 *			PCOMPACT_IDLE when it reached its target or ran out of work.
 * @exhausted:		out: a zone still short of its target had no block left
 *			to try, so another round now would find nothing either.
 * @out_of_room:	out: the round stopped, or did no work, because free
 *			memory was within the headroom above the high watermark.
 * @kernel_called:	out: engine=node-sysfs called the kernel's compaction.
 * @route:		out: the engine the round chose (a PCOMPACT_ROUTE_*) as it
 *			began, or PCOMPACT_ROUTE_KERNEL_THEN_CONTIG once the
 *			kernel's call made no progress.
 * @fed_stalls:		out: that call migrated pages while allocations stalled
 *			in direct compaction (counted with progress_when_stalled).
 * @max_used:		contig empties only blocks with at most this many pages
 *			in use, or any block for 0.
 * @pcp_flushes:	out: per-CPU list drains after the round (flush_pcp).
 * @pcp_flush_blocks:	out: free pageblocks the node gained over them.
 * @call_drains:	out: per-CPU list drains before the round's call of the
 *			kernel's compaction (drain_before_call), taken block
 *			or not.
 * @call_drain_blocks:	out: free pageblocks the node gained over those that
 *			took their block.
 * @call_drain_failures: out: those of the call_drains whose call failed.
 */
struct pcompact_round {
	int nid;
	const bool *stopping;
	unsigned int order;
	unsigned int low;
	u64 deadline_ns;
	unsigned long blocks_freed;
	unsigned long order_blocks_emptied;
	unsigned long pages_migrated;
	unsigned long failed_blocks;
	bool unevictable_ok;
	unsigned long skipped_unmovable;
	unsigned long skipped_type;
	u64 scan_ns;
	unsigned long scanned_blocks;
	int stop_reason;
	enum pcompact_route route;
	bool exhausted;
	bool out_of_room;
	bool kernel_called;
	bool fed_stalls;
	unsigned int max_used;
	unsigned long pcp_flushes;
	unsigned long pcp_flush_blocks;
	unsigned long call_drains;
	unsigned long call_drain_blocks;
	unsigned long call_drain_failures;
};

int pcompact_engine_check(int engine);
void pcompact_engine_run(struct pcompact_round *round);
bool pcompact_engine_backs_off_for_stalls(void);
void pcompact_engine_flush_pcp(struct pcompact_round *round);
bool pcompact_kswapd_active(int nid);

/* hooks.c */
int pcompact_hooks_init(void);
void pcompact_hooks_exit(void);
ssize_t pcompact_hooks_show(char *buf);
bool pcompact_hooks_stalled_since(u64 since_ns);
bool pcompact_hooks_count_migrations(void);

/* sysfs.c */
int pcompact_sysfs_init(void);
void pcompact_sysfs_exit(void);

/* takeover.c */
int pcompact_takeover_start(void);
int pcompact_takeover_stop(void);
void pcompact_takeover_check(void);
void pcompact_takeover_state(bool *active, int *saved, unsigned long *conflicts);

#endif /* PCOMPACT_H */
