// SPDX-License-Identifier: GPL-2.0
/*
 * pcompact module parameters: validation and runtime updates.
 *
 * Every parameter can be given to modprobe and is writable at runtime under
 * /sys/module/pcompact/parameters/.  A rejected value fails with -EINVAL,
 * logs which parameter and why, and leaves the running state as it was.
 * Values given at load are checked one by one as they are parsed and, where
 * they depend on each other (the thresholds), together in module init.
 */
#define pr_fmt(fmt) "pcompact: " fmt

#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/nodemask.h>
#include <linux/sched/prio.h>
#include <linux/string.h>

#include "compat.h"
#include "pcompact.h"

/* How much of a written value to quote in a log line: up to the newline. */
static int pcompact_param_len(const char *val)
{
	return (int)strcspn(val, "\n");
}

/* Parse an integer parameter and check its range, logging why not. */
static int pcompact_param_parse(const char *name, const char *val, int min,
				int max, int *out)
{
	int value;

	if (kstrtoint(val, 0, &value)) {
		pr_err("%s: '%.*s' is not an integer\n", name,
		       pcompact_param_len(val), val);
		return -EINVAL;
	}
	if (value < min || value > max) {
		pr_err("%s: %d is outside %d..%d\n", name, value, min, max);
		return -EINVAL;
	}
	*out = value;
	return 0;
}

/* Parse a boolean parameter, logging a refusal under its name. */
static int pcompact_param_parse_bool(const char *name, const char *val, bool *out)
{
	if (kstrtobool(val, out)) {
		pr_err("%s: '%.*s' is not a boolean\n", name, pcompact_param_len(val), val);
		return -EINVAL;
	}
	return 0;
}

/* Registers pcompact_param_set_<name>, which the macro's user defines first. */
#define PCOMPACT_PARAM_OPS(name, var, getter)				\
static const struct kernel_param_ops pcompact_param_##name##_ops = {	\
	.set = pcompact_param_set_##name,				\
	.get = getter,							\
};									\
module_param_cb(name, &pcompact_param_##name##_ops, &(var), 0644)

/*
 * Boolean parameters: each gets its own setter so the log names it.
 * @on_change runs once the new value is stored; parameters the threads read
 * at their next round pass pcompact_param_no_action.
 */
#define PCOMPACT_BOOL_PARAM(name, var, on_change)			\
static int pcompact_param_set_##name(const char *val,			\
				     const struct kernel_param *kp)	\
{									\
	bool value;							\
									\
	if (pcompact_param_parse_bool(#name, val, &value))		\
		return -EINVAL;						\
	WRITE_ONCE(*(bool *)kp->arg, value);				\
	on_change();							\
	return 0;							\
}									\
PCOMPACT_PARAM_OPS(name, var, param_get_bool)

static void pcompact_param_no_action(void)
{
}

/* While live, a threshold change must leave low <= high. */
static int pcompact_param_check_wmarks(const char *name, unsigned int proactiveness,
				       int low, int high)
{
	struct pcompact_wmarks wmarks;

	if (!pcompact_is_live())
		return 0;
	if (pcompact_wmarks_resolve(proactiveness, low, high, &wmarks)) {
		pr_err("%s: would put the low threshold above the high one (proactiveness %u, wmark_low %d, wmark_high %d)\n",
		       name, proactiveness, low, high);
		return -EINVAL;
	}
	return 0;
}

/*
 * enabled - compact in the background.  bool, default Y.  While N the
 * threads keep sampling the score (and the score tracepoint keeps firing).
 */
bool pcompact_enabled = true;

PCOMPACT_BOOL_PARAM(enabled, pcompact_enabled, pcompact_wake_all);
MODULE_PARM_DESC(enabled, "Compact in the background (bool, default: Y)");

/*
 * any_cpu - let each node's pcompactd run on any CPU kernel threads may use,
 * instead of only its node's (as kcompactd), so a node whose CPUs are busy
 * is compacted with idle time elsewhere, at the cost of remote struct page
 * reads and copies.  bool, default Y: lower p99 on 6.1 and 6.12 in the
 * benchmark (README, "any_cpu"); N binds each thread to its node.
 */
bool pcompact_any_cpu = true;

PCOMPACT_BOOL_PARAM(any_cpu, pcompact_any_cpu, pcompact_bind_all);
MODULE_PARM_DESC(any_cpu, "Run each node's pcompactd on any CPU, not only its node's (bool, default: Y)");

/*
 * flush_pcp - after each round, drain the per-CPU lists of every zone of
 * the node that has a pageblock free but for pages parked there, so the
 * blocks the round emptied count for the score and for allocations on
 * every CPU at once (engine.c, pcompact_engine_flush_pcp()).  bool,
 * default N (README, "flush_pcp").
 */
bool pcompact_flush_pcp;

PCOMPACT_BOOL_PARAM(flush_pcp, pcompact_flush_pcp, pcompact_param_no_action);
MODULE_PARM_DESC(flush_pcp, "After each round, drain the per-CPU lists that hold free blocks back (bool, default: N)");

/*
 * contig_when_quiet - with engine=node-sysfs, a round that starts while no
 * allocation has stalled in direct compaction within the last interval_ms
 * (on any node) empties blocks with the contig engine instead.  bool,
 * default N.  Ahead of a stream the kernel's compaction migrated 240-740
 * pages per free pageblock it added (6.12; 130-300 on 6.1), the pages it
 * frees parked on per-CPU lists where the score does not count them, while
 * the contig engine's fallback rounds moved 127 and 134, the in-use pages
 * of the blocks they emptied (results/trace612-migrated/, trace61-migrated/).
 * While allocations stall, node-sysfs stays: contig calls isolate their
 * ranges and drain every CPU's lists (README, "engine").  Off by default:
 * the 6.12 drain's mean was 1.39x plain pcompact's (results/quiet612/),
 * its streams starting with the threshold's 224 free blocks and none held
 * on per-CPU lists against 365 and 166: node-sysfs's extra moves are the
 * blocks it empties past the threshold unseen, which the stream gets.
 */
bool pcompact_contig_when_quiet;

PCOMPACT_BOOL_PARAM(contig_when_quiet, pcompact_contig_when_quiet, pcompact_param_no_action);
MODULE_PARM_DESC(contig_when_quiet,
		 "With engine=node-sysfs, use the contig engine for rounds that start with no direct compaction stall within interval_ms (bool, default: N)");

/*
 * contig_when_stalled - with engine=node-sysfs, a round that starts within
 * interval_ms of a direct compaction stall (on any node) empties blocks
 * with the contig engine instead of calling the kernel's compaction.
 * bool, default N.  A call of the kernel's compaction whose scanners meet
 * resets the zone's cached scanner positions (6.12's
 * __compact_finished()), and the stalled allocations' compaction then
 * starts over from the zone's ends, across the pageblocks it marked to
 * skip: in the 1-node guest the failures of 3 of 5 traced early stops
 * began within 20 ms of a round's beginning, against 0.2 by chance
 * (README, "pcompactd's kernel call under a stream").  Off: its first
 * bench had fewer early stops but a mean 2.98x plain pcompact's
 * (results/stallcontig-1x2/).
 */
bool pcompact_contig_when_stalled;

PCOMPACT_BOOL_PARAM(contig_when_stalled, pcompact_contig_when_stalled, pcompact_param_no_action);
MODULE_PARM_DESC(contig_when_stalled,
		 "With engine=node-sysfs, use the contig engine for rounds that start within interval_ms of a direct compaction stall (bool, default: N)");

/*
 * backoff_when_stalled - with engine=node-sysfs, start no round within
 * interval_ms of a direct compaction stall (on any node): back off as
 * while kswapd runs (state stall-backoff, node<N>/backoffs_stall), and
 * compact again once allocations have not stalled for interval_ms.  bool,
 * default N.  Upstream's kcompactd defers its proactive compaction after
 * one call that did not lower the score; pcompactd's rounds call the
 * kernel's compaction every interval_ms while a stream stalls, and a call
 * whose scanners meet resets the zone's cached positions under the
 * stream's own compaction (contig_when_stalled above).  Takes precedence
 * over contig_when_stalled: no round starts, so none uses contig.  Off:
 * in its first bench 4 of 5 1-node streams still stopped early, with no
 * round in them, and its mean was 1.91x plain pcompact's
 * (results/stallbackoff-1x2/).
 */
bool pcompact_backoff_when_stalled;

PCOMPACT_BOOL_PARAM(backoff_when_stalled, pcompact_backoff_when_stalled, pcompact_param_no_action);
MODULE_PARM_DESC(backoff_when_stalled,
		 "With engine=node-sysfs, start no round within interval_ms of a direct compaction stall (bool, default: N)");

/*
 * progress_when_stalled - with engine=node-sysfs, a round whose call of the
 * kernel's compaction migrated pages while allocations stalled in direct
 * compaction (within interval_ms, on any node) is not deferred for lack of
 * progress.  bool, default N.  The call has no count of blocks emptied,
 * and its node's free blocks and score are net of what the stalled
 * allocations took meanwhile, so under a stream a call that fed it looks
 * fruitless and the node waited interval_ms << max_defer_shift (25.6 s):
 * in 1 of plain pcompact's 12 traced 1-node early stops a round 0.07 s
 * into the stream migrated 246 pages, ended with the score where it was,
 * and deferred (README, "The early stops without pcompactd in the
 * stream").  Off: its first bench stopped 1 of 5 streams early against
 * plain pcompact's 2, one with no deferral, mean 1.4x, all unsettled
 * (results/stallprogress-1x2/).
 */
bool pcompact_progress_when_stalled;

PCOMPACT_BOOL_PARAM(progress_when_stalled, pcompact_progress_when_stalled,
		    pcompact_param_no_action);
MODULE_PARM_DESC(progress_when_stalled,
		 "With engine=node-sysfs, a round whose kernel compaction migrated pages while allocations stalled is not deferred (bool, default: N)");

/*
 * contig_after_fallback - with engine=node-sysfs, on a node whose last call
 * of the kernel's compaction made no progress and moved fewer pages than
 * four pageblocks hold (engine.c, PCOMPACT_FRUITLESS_PAGES), a round that
 * starts within interval_ms of a direct compaction stall (on any node)
 * goes to the contig engine at once; a round with no stall that recent
 * calls the kernel's compaction again, and a call that is not fruitless
 * ends it.  bool, default N.  The kernel's
 * compaction marks every pageblock its free scanner scanned whole to be
 * skipped (update_pageblock_skip() in 6.1, 6.12 and 7.3, whatever
 * ignore_skip_hint says), so a call whose free scanner came down the whole
 * zone without a target (the wall of README, "The wall and frag's stride
 * pattern") leaves the zone marked, and the stalled allocations' own
 * compaction, which honours the marks, then finds nothing in it (README,
 * "The wall boots").
 * Off: with frag --pattern phys, a wall in every boot, plain pcompact's
 * 1-node streams stopped early in 10 of 10, the option's in 2 of 7
 * (results/phys-1x2/, results/phys-1x2b/), but over every boot of the
 * default layout (results/afterfallback-itt-*, 6.1 and 6.12, 1 and 2
 * nodes) it acted in 1-5 of 10 and settled no gain in latency or yield;
 * its two 6.12 1-node benches pooled settle its mean worse, 1.28x
 * (results/afterfallback-itt-pool/).
 */
bool pcompact_contig_after_fallback;

PCOMPACT_BOOL_PARAM(contig_after_fallback, pcompact_contig_after_fallback,
		    pcompact_param_no_action);
MODULE_PARM_DESC(contig_after_fallback,
		 "With engine=node-sysfs, on a node whose last kernel compaction made no progress, use the contig engine for rounds that start within interval_ms of a direct compaction stall (bool, default: N)");

/*
 * drain_before_call - with engine=node-sysfs, before a round calls the
 * kernel's compaction, drain the per-CPU lists of each of the node's zones
 * where they hold at least a pageblock's worth of free pages and that has
 * room for two pageblocks, through one alloc_contig_range() call: on a free
 * pageblock, given back at once, or where the zone has none on the first
 * pageblock at most half in use, which it empties (engine.c,
 * pcompact_engine_drain_first()).  bool, default Y.  The kernel's free
 * scanner takes its targets from the buddy lists only: in the 6.12 bench at
 * proactiveness 80 (results/p80-612-current*), node 1's calls took about
 * 220 free pages per pageblock they scanned against node 0's 310-335, and
 * in 10 of 20 boots node 1's first call had its scanners meet with the
 * node's score still at 45-82, having migrated as many pages as a call that
 * reached the target (README, "drain_before_call").
 */
bool pcompact_drain_before_call = true;

PCOMPACT_BOOL_PARAM(drain_before_call, pcompact_drain_before_call, pcompact_param_no_action);
MODULE_PARM_DESC(drain_before_call,
		 "With engine=node-sysfs, before each call of the kernel's compaction drain the per-CPU lists of every zone where they hold a pageblock's worth of free pages, through one free pageblock or one at most half in use (bool, default: Y)");

/*
 * proactiveness - how hard to compact, 0..100, as vm.compaction_proactiveness.
 * Default 20.  Derived thresholds: low = 100 - proactiveness,
 * high = min(low + 10, 100).  0 never compacts (low = high = 100).
 */
unsigned int pcompact_proactiveness = 20;

static int pcompact_param_set_proactiveness(const char *val,
					    const struct kernel_param *kp)
{
	int value, err;

	err = pcompact_param_parse("proactiveness", val, 0, 100, &value);
	if (!err)
		err = pcompact_param_check_wmarks("proactiveness", value,
						  READ_ONCE(pcompact_wmark_low),
						  READ_ONCE(pcompact_wmark_high));
	if (err)
		return err;
	WRITE_ONCE(pcompact_proactiveness, value);
	pcompact_wake_all();
	return 0;
}

PCOMPACT_PARAM_OPS(proactiveness, pcompact_proactiveness, param_get_uint);
MODULE_PARM_DESC(proactiveness,
		 "How hard to compact, 0..100 like vm.compaction_proactiveness (default: 20)");

/*
 * wmark_low, wmark_high - explicit score thresholds, 0..100, or -1 (the
 * default) to derive them from proactiveness.  A derived high follows an
 * explicit low (low + 10, at most 100).  low must not exceed high.
 */
int pcompact_wmark_low = -1;
int pcompact_wmark_high = -1;

static int pcompact_param_set_wmark_low(const char *val,
					const struct kernel_param *kp)
{
	int value, err;

	err = pcompact_param_parse("wmark_low", val, -1, 100, &value);
	if (!err)
		err = pcompact_param_check_wmarks("wmark_low",
						  READ_ONCE(pcompact_proactiveness),
						  value, READ_ONCE(pcompact_wmark_high));
	if (err)
		return err;
	WRITE_ONCE(pcompact_wmark_low, value);
	pcompact_wake_all();
	return 0;
}

static int pcompact_param_set_wmark_high(const char *val,
					 const struct kernel_param *kp)
{
	int value, err;

	err = pcompact_param_parse("wmark_high", val, -1, 100, &value);
	if (!err)
		err = pcompact_param_check_wmarks("wmark_high",
						  READ_ONCE(pcompact_proactiveness),
						  READ_ONCE(pcompact_wmark_low), value);
	if (err)
		return err;
	WRITE_ONCE(pcompact_wmark_high, value);
	pcompact_wake_all();
	return 0;
}

PCOMPACT_PARAM_OPS(wmark_low, pcompact_wmark_low, param_get_int);
MODULE_PARM_DESC(wmark_low,
		 "Score to compact down to, 0..100, -1 derives it from proactiveness (default: -1)");

PCOMPACT_PARAM_OPS(wmark_high, pcompact_wmark_high, param_get_int);
MODULE_PARM_DESC(wmark_high,
		 "Score above which compaction starts, 0..100, -1 derives it from wmark_low (default: -1)");

/*
 * Integer parameters with a plain range: each gets its own setter so the
 * log names it.  @getter reads the variable back (param_get_uint or, for a
 * signed one, param_get_int).
 */
#define PCOMPACT_RANGE_PARAM_GET(name, var, min, max, getter)		\
static int pcompact_param_set_##name(const char *val,			\
				     const struct kernel_param *kp)	\
{									\
	int value, err;							\
									\
	err = pcompact_param_parse(#name, val, min, max, &value);	\
	if (err)							\
		return err;						\
	WRITE_ONCE(*(typeof(var) *)kp->arg, value);			\
	pcompact_wake_all();						\
	return 0;							\
}									\
PCOMPACT_PARAM_OPS(name, var, getter)

#define PCOMPACT_RANGE_PARAM(name, var, min, max)				\
	PCOMPACT_RANGE_PARAM_GET(name, var, min, max, param_get_uint)

/*
 * nice - the nice value of every pcompactd, -20..19.  Default 0, kcompactd's.
 * At 19 a task sharing the thread's CPU (often the one allocating the huge
 * pages) keeps nearly all of it, and with any_cpu the scheduler's load
 * balancing moves the thread to an idle CPU instead; a thread on a CPU busy
 * with other work then compacts little.  Each thread takes the value
 * itself at its next wakeup (a running round ends first).  Measured at 19
 * with stall_wake_ms=100 (results/wake-nice/): p99 0.578x plain pcompact's
 * on 6.1 (better), means unsettled on 6.1 and 6.12, so 0 stays.
 */
int pcompact_nice;
PCOMPACT_RANGE_PARAM_GET(nice, pcompact_nice, MIN_NICE, MAX_NICE, param_get_int);
MODULE_PARM_DESC(nice, "Nice value of every pcompactd, -20..19 (default: 0, as kcompactd)");

/* order - the allocation order the score is about, 1..max buddy order.  Default 9 (2 MB). */
unsigned int pcompact_order = 9;
PCOMPACT_RANGE_PARAM(order, pcompact_order, 1, PCOMPACT_MAX_BUDDY_ORDER);
MODULE_PARM_DESC(order, "Allocation order the score measures, 1..10 (default: 9, a 2 MB page)");

/*
 * interval_ms - score sampling period in milliseconds, 10..60000.  Default
 * 100, a fifth of upstream's 500 (HPAGE_FRAG_CHECK_INTERVAL_MSEC): a stream
 * of huge page allocations can empty a node's stock within one 500 ms
 * interval.  Sampling every 100 ms put pcompact's mean latency below the
 * kernel's, with intervals clear of 1, on Debian 12's 6.1 rate sweep and in
 * drains on 6.1 and 6.12, and was never settled worse than 500 ms
 * (results/sweep61-int100/, sweep612-int100/, drain61-int100-5/,
 * drain612-int100-5/, drain61-int-h2h/), for about 1.25x the kernel's
 * compactor CPU per sweep step.
 */
unsigned int pcompact_interval_ms = 100;
PCOMPACT_RANGE_PARAM(interval_ms, pcompact_interval_ms, 10, 60000);
MODULE_PARM_DESC(interval_ms, "Score sampling period in ms, 10..60000 (default: 100)");

/*
 * stall_wake_ms - a direct compaction stall samples every node at once
 * instead of at its next interval, each at most once per stall_wake_ms (the
 * stalling allocation may be short of any node's blocks, not only its
 * CPU's).
 * 0..60000, default 0 (off: sample every interval_ms only, as upstream's
 * proactive compaction): measured at 100 on Debian 12's 6.1 and 6.12
 * (results/wake-progress/), its mean was 0.86x and 0.94x pcompact's
 * without it, unsettled, for 1.2x the compactor CPU per block on 6.1.
 */
unsigned int pcompact_stall_wake_ms;
PCOMPACT_RANGE_PARAM(stall_wake_ms, pcompact_stall_wake_ms, 0, 60000);
MODULE_PARM_DESC(stall_wake_ms,
		 "Sample every node at once on a direct compaction stall, each at most once per this many ms, 0..60000, 0 = off (default: 0)");

/*
 * reserve_ms - keep at least this many milliseconds of the node's recent
 * demand for free blocks free: a node whose free blocks of the order that
 * matters fall below (consumption rate x reserve_ms) starts a round even
 * with its score at or below the high threshold, and the round goes down
 * to the low one as any other (never below the low threshold, so a node
 * already compact does not churn).  The rate is measured between samples
 * from the free counts and the engine's own frees.  0..60000, default 0
 * (off: the score alone decides, as upstream's proactive compaction)
 * until the benchmark has measured it.
 */
unsigned int pcompact_reserve_ms;
PCOMPACT_RANGE_PARAM(reserve_ms, pcompact_reserve_ms, 0, 60000);
MODULE_PARM_DESC(reserve_ms,
		 "Start compacting below the high threshold when free blocks would last less than this many ms of the recent demand, 0..60000, 0 = off (default: 0)");

/*
 * max_defer_shift - after a round that neither lowered the score nor
 * emptied a block itself (unless the headroom stopped it, see
 * pcompact_round_defers()), or that found nothing more to empty, wait
 * interval_ms << max_defer_shift before the next.  0..10, default 8: 25.6 s
 * at the default interval, about upstream's 32 s (500 ms <<
 * COMPACT_MAX_DEFER_SHIFT 6), so that sampling five times as often does not
 * retry unmovable fragmentation five times as often.
 */
unsigned int pcompact_max_defer_shift = 8;
PCOMPACT_RANGE_PARAM(max_defer_shift, pcompact_max_defer_shift, 0, 10);
MODULE_PARM_DESC(max_defer_shift,
		 "Deferral after a fruitless round, as a power of two of intervals, 0..10 (default: 8)");

/*
 * quota_ms - compaction time allowed per node, in milliseconds per second:
 * a round stops after quota_ms * interval_ms / 1000 ms, and the next begins
 * an interval after it began at the earliest, even on a stall wake.
 * 0..1000, default 0 (no limit: a round runs until the score is below
 * the low threshold, and a stall wake may start the next at once).
 */
unsigned int pcompact_quota_ms;
PCOMPACT_RANGE_PARAM(quota_ms, pcompact_quota_ms, 0, 1000);
MODULE_PARM_DESC(quota_ms,
		 "Compaction time per node in ms per second, 0..1000, 0 = no limit (default: 0)");

/*
 * run_max_mb - the longest range of memory one alloc_contig_range() call
 * empties, in MB, rounded down to whole pairs of pageblocks (4 MB on x86),
 * at least one.  4..1024, default 256.  While the kernel zeroes every
 * allocation (init_on_alloc) a call takes at most 16 MB whatever this says:
 * it clears the whole range with no reschedule point.  A whole run is
 * isolated until its call returns, so shorter runs give blocks back sooner
 * and hold the CPU less per call; longer ones move fewer pages twice and
 * drain every CPU's page lists less often.
 */
unsigned int pcompact_run_max_mb = 256;
PCOMPACT_RANGE_PARAM(run_max_mb, pcompact_run_max_mb, 4, 1024);
MODULE_PARM_DESC(run_max_mb,
		 "Longest range one call empties in MB, 4..1024, 16 at most with init_on_alloc (default: 256)");

/*
 * stall_run_mb - the longest range one alloc_contig_range() call empties
 * while allocations stall in direct compaction (one did within the last
 * interval_ms, on any node), in MB, rounded down to whole pairs of
 * pageblocks, at most run_max_mb.  0..1024, 0 = off (run_max_mb always).
 * Default 0.  A call isolates its whole range: its free pages leave the
 * zone's free count and its in-use pages take free pages elsewhere until
 * it returns.  In two 6.1 drains a stream of huge page allocations
 * stopped on 100 failures in a row, with a third and a twelfth of free
 * memory left, during or right after a call of 90 blocks held for 334 ms
 * and one of 38 blocks (results/trace61-pcompact/).  Runs collected while
 * allocations stall are cut to this; a longer run collected before they
 * began is emptied pair by pair.  Off by default: at 4, 3 of 5 6.1 drains
 * stopped on failures against 1 of 5 without it (results/drain61-stallrun4/).
 */
unsigned int pcompact_stall_run_mb;
PCOMPACT_RANGE_PARAM(stall_run_mb, pcompact_stall_run_mb, 0, 1024);
MODULE_PARM_DESC(stall_run_mb,
		 "Longest range one call empties in MB while direct compaction stalls, 0..1024, 0 = off (default: 0)");

/*
 * engine - how blocks are emptied: "node-sysfs" (default; the kernel's
 * compaction of the node through /sys/devices/system/node/nodeN/compact,
 * ended at the round's target, quota or back-off, and handing a round it
 * leaves without progress to contig), "contig" (pcompact's own choice of
 * blocks, emptied with alloc_contig_range()), or "kallsyms" (refused: it
 * would call unexported functions through pointers).  Both use exported
 * functions only, so both are safe with IBT.  node-sysfs is the default
 * because it moved fewer pages per huge page and gave a lower mean latency
 * than contig in every bench run (README, results/nodesysfs-fallback/).
 */
int pcompact_engine = PCOMPACT_ENGINE_NODE_SYSFS;

static int pcompact_param_set_engine(const char *val,
				     const struct kernel_param *kp)
{
	int engine = sysfs_match_string(pcompact_engine_names, val);

	if (engine < 0) {
		pr_err("engine: unknown engine '%.*s' (contig, node-sysfs)\n",
		       pcompact_param_len(val), val);
		return -EINVAL;
	}
	if (pcompact_engine_check(engine))
		return -EINVAL;
	WRITE_ONCE(pcompact_engine, engine);
	pcompact_wake_all();
	return 0;
}

static int pcompact_param_get_engine(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", pcompact_engine_names[READ_ONCE(pcompact_engine)]);
}

static const struct kernel_param_ops pcompact_param_engine_ops = {
	.set = pcompact_param_set_engine,
	.get = pcompact_param_get_engine,
};
module_param_cb(engine, &pcompact_param_engine_ops, NULL, 0644);
MODULE_PARM_DESC(engine, "Compaction engine: node-sysfs or contig (default: node-sysfs)");

/*
 * nodes - the nodes pcompact manages, as a node list ("0", "0-1,3") or
 * "all" (the default).  Every listed node must exist; a listed node without
 * memory gets a thread when memory comes online.
 */
nodemask_t pcompact_nodemask = NODE_MASK_ALL;

static int pcompact_param_set_nodes(const char *val,
				    const struct kernel_param *kp)
{
	int len = pcompact_param_len(val);
	nodemask_t mask;
	int nid, err;

	if (sysfs_streq(val, "all")) {
		mask = NODE_MASK_ALL;
	} else {
		if (!len || nodelist_parse(val, mask)) {
			pr_err("nodes: '%.*s' is not a node list (e.g. 0-1,3) or 'all'\n",
			       len, val);
			return -EINVAL;
		}
		if (nodes_empty(mask)) {
			pr_err("nodes: the list is empty\n");
			return -EINVAL;
		}
		for_each_node_mask(nid, mask) {
			if (!node_possible(nid)) {
				pr_err("nodes: node %d does not exist\n", nid);
				return -EINVAL;
			}
		}
	}
	err = pcompact_set_nodes(&mask);
	if (err) {
		/* A thread could not start: the old nodes are back. */
		pr_err("nodes: cannot start a pcompactd (%d); nodes unchanged\n", err);
		return err;
	}
	return 0;
}

/*
 * Runs under the parameter lock, as every set does, so it sees a whole mask
 * without pcompact_nodes_lock.
 */
static int pcompact_param_get_nodes(char *buf, const struct kernel_param *kp)
{
	if (nodes_full(pcompact_nodemask))
		return sysfs_emit(buf, "all\n");
	return sysfs_emit(buf, "%*pbl\n", nodemask_pr_args(&pcompact_nodemask));
}

static const struct kernel_param_ops pcompact_param_nodes_ops = {
	.set = pcompact_param_set_nodes,
	.get = pcompact_param_get_nodes,
};
module_param_cb(nodes, &pcompact_param_nodes_ops, NULL, 0644);
MODULE_PARM_DESC(nodes, "Nodes to manage: a node list like 0-1,3, or all (default: all)");

/*
 * takeover - while loaded, set vm.compaction_proactiveness to 0 so the
 * kernel's own proactive compaction does not fight pcompact; the old value
 * comes back on unload or when this is set to N.  bool, default Y.
 */
bool pcompact_takeover = true;

static int pcompact_param_set_takeover(const char *val,
				       const struct kernel_param *kp)
{
	bool value;
	int err = 0;

	if (pcompact_param_parse_bool("takeover", val, &value))
		return -EINVAL;
	/*
	 * Module init and exit start and stop the takeover and change
	 * pcompact_live under the parameter lock, which the caller of this
	 * handler holds (kernel/params.c param_attr_store()): a write racing
	 * unload sees either a live module, stopped after it, or none.
	 */
	if (pcompact_is_live() && value != READ_ONCE(pcompact_takeover))
		err = value ? pcompact_takeover_start() : pcompact_takeover_stop();
	if (err)
		return err;
	WRITE_ONCE(pcompact_takeover, value);
	return 0;
}

PCOMPACT_PARAM_OPS(takeover, pcompact_takeover, param_get_bool);
MODULE_PARM_DESC(takeover,
		 "Set vm.compaction_proactiveness to 0 while loaded, restore it after (bool, default: Y)");
