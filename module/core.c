// SPDX-License-Identifier: GPL-2.0
/*
 * pcompact core: module lifetime and the per-node pcompactd threads.
 *
 * One kthread per NUMA node with memory, named pcompactd<N> like the
 * kernel's kcompactd<N>, freezable, on any CPU or (any_cpu=N) bound to its
 * node's CPUs as kcompactd is.  Every
 * interval it samples the node's fragmentation score; above the high
 * threshold it compacts until the score is below the low one, where the
 * kernel's compaction stops a zone (pcompact_node_at_target(); the flow of
 * seed 000's proactive kcompactd), backing off while kswapd
 * reclaims on the node, and deferring after a round that neither lowered
 * the score nor emptied a block itself (unless the headroom stopped it: a
 * few times in a row), or that found nothing more to empty.
 */
#define pr_fmt(fmt) "pcompact: " fmt

#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/freezer.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/memory.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/isolation.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/topology.h>
#include <linux/wait.h>

#include "compat.h"
#include "fault.h"
#include "pcompact.h"
#include "trace.h"

/*
 * kswapd must be seen reclaiming in this many consecutive samples before a
 * round is held back: one short burst should not starve compaction.
 */
#define PCOMPACT_KSWAPD_SAMPLES		2

/*
 * Protects starting and stopping threads (pn->task), pcompact_live and
 * writes to pcompact_nodemask.  Module init and exit also hold the
 * parameter lock (taken first) where they change pcompact_live or the
 * takeover, so parameter writes see a consistent module.
 */
static DEFINE_MUTEX(pcompact_nodes_lock);
static struct pcompact_node *pcompact_nodes[MAX_NUMNODES];
static bool pcompact_live;
/* The dynamic CPU hotplug state of pcompact_cpu_online(). */
static enum cpuhp_state pcompact_cpuhp_state;

static const char * const pcompact_state_names[] = {
	[PCOMPACT_IDLE] = "idle",
	[PCOMPACT_COMPACTING] = "compacting",
	[PCOMPACT_BACKOFF_KSWAPD] = "kswapd-backoff",
	[PCOMPACT_BACKOFF_CONTENTION] = "contention-backoff",
	[PCOMPACT_BACKOFF_STALL] = "stall-backoff",
	[PCOMPACT_DEFERRED] = "deferred",
	[PCOMPACT_DISABLED] = "disabled",
};

/**
 * pcompact_state_name() - the sysfs name of a state.
 * @state:	an enum pcompact_state.
 *
 * Return: the name.
 */
const char *pcompact_state_name(int state)
{
	if (state < 0 || state >= ARRAY_SIZE(pcompact_state_names))
		return "unknown";
	return pcompact_state_names[state];
}

/**
 * pcompact_node() - a node's state.
 * @nid:	a possible node.
 *
 * Return: the node's struct, which lives as long as the module; NULL for a
 * node that is not possible or before the module is initialised.
 */
struct pcompact_node *pcompact_node(int nid)
{
	if (nid < 0 || nid >= MAX_NUMNODES)
		return NULL;
	return READ_ONCE(pcompact_nodes[nid]);
}

/**
 * pcompact_is_live() - whether module init has finished and exit not begun.
 *
 * Parameter handlers use this: before init, values are only stored (init
 * checks the combination); while live, they take effect at once.
 *
 * Return: true while live.
 */
bool pcompact_is_live(void)
{
	return READ_ONCE(pcompact_live);
}

static void pcompact_set_state(struct pcompact_node *pn, int state)
{
	WRITE_ONCE(pn->state, state);
}

/* One compaction round on the node: the score is above the threshold. */
static void pcompactd_round(struct pcompact_node *pn, unsigned int score,
			    const struct pcompact_wmarks *wmarks,
			    unsigned int order, bool *compacting)
{
	unsigned int quota_ms = READ_ONCE(pcompact_quota_ms);
	struct pcompact_round round = {
		.nid = pn->nid,
		.order = order,
		.low = wmarks->low,
		.stopping = &pn->stopping,
	};
	unsigned int after;
	u64 start, took;

	pcompact_set_state(pn, PCOMPACT_COMPACTING);
	atomic64_inc(&pn->stats.rounds);
	trace_pcompact_round_begin(pn->nid, score, wmarks->low, wmarks->high);
	pn->paced_until = jiffies + msecs_to_jiffies(READ_ONCE(pcompact_interval_ms));
	start = ktime_get_ns();
	if (quota_ms)
		round.deadline_ns = start + (u64)quota_ms * NSEC_PER_MSEC *
				    READ_ONCE(pcompact_interval_ms) / MSEC_PER_SEC;
	pcompact_engine_run(&round);
	if (READ_ONCE(pcompact_flush_pcp))
		pcompact_engine_flush_pcp(&round);
	took = ktime_get_ns() - start;
	after = pcompact_score_node(pn->nid, order);

	atomic64_add(took, &pn->stats.compact_ns);
	atomic64_add(round.blocks_freed, &pn->stats.blocks_freed);
	atomic64_add(round.pages_migrated, &pn->stats.pages_migrated);
	atomic64_add(round.failed_blocks, &pn->stats.failed_blocks);
	atomic64_add(round.skipped_unmovable, &pn->stats.skipped_unmovable);
	atomic64_add(round.skipped_type, &pn->stats.skipped_type);
	atomic64_add(round.scan_ns, &pn->stats.scan_ns);
	atomic64_add(round.scanned_blocks, &pn->stats.scanned_blocks);
	switch (round.route) {
	case PCOMPACT_ROUTE_KERNEL_THEN_CONTIG:
		atomic64_inc(&pn->stats.engine_fallbacks);
		break;
	case PCOMPACT_ROUTE_QUIET_CONTIG:
		atomic64_inc(&pn->stats.quiet_contig_rounds);
		break;
	case PCOMPACT_ROUTE_STALLED_CONTIG:
		atomic64_inc(&pn->stats.stalled_contig_rounds);
		break;
	case PCOMPACT_ROUTE_FALLBACK_CONTIG:
		atomic64_inc(&pn->stats.fallback_contig_rounds);
		break;
	default:
		break;
	}
	if (round.out_of_room)
		atomic64_inc(&pn->stats.headroom_stops);
	atomic64_add(round.pcp_flushes, &pn->stats.pcp_flushes);
	atomic64_add(round.pcp_flush_blocks, &pn->stats.pcp_flush_blocks);
	atomic64_add(round.call_drains, &pn->stats.call_drains);
	atomic64_add(round.call_drain_blocks, &pn->stats.call_drain_blocks);
	atomic64_add(round.call_drain_failures, &pn->stats.call_drain_failures);
	/*
	 * Published last, so that whoever reads the score and then the
	 * counters (test 40 does, through sysfs) finds this round counted.
	 */
	smp_wmb();
	WRITE_ONCE(pn->score, after);
	trace_pcompact_round_end(pn->nid, score, after, round.blocks_freed,
				 round.pages_migrated, took, round.route);

	switch (round.stop_reason) {
	case PCOMPACT_BACKOFF_KSWAPD:
		atomic64_inc(&pn->stats.backoffs_kswapd);
		pcompact_set_state(pn, round.stop_reason);
		return;
	case PCOMPACT_BACKOFF_CONTENTION:
		atomic64_inc(&pn->stats.backoffs_contention);
		pcompact_set_state(pn, round.stop_reason);
		return;
	}
	if (round.fed_stalls)
		atomic64_inc(&pn->stats.fed_stall_rounds);
	if (pcompact_round_defers(score, after, round.order_blocks_emptied, round.exhausted,
				  round.fed_stalls, round.out_of_room,
				  round.kernel_called || round.blocks_freed || round.failed_blocks,
				  &pn->room_spared)) {
		/*
		 * As upstream, no progress waits 2^max_defer_shift intervals; so
		 * does a round that ran out of movable blocks before its target
		 * (unmovable fragmentation): the next would find nothing either.
		 */
		unsigned long defer_ms = (unsigned long)READ_ONCE(pcompact_interval_ms)
					 << READ_ONCE(pcompact_max_defer_shift);

		atomic64_inc(&pn->stats.deferrals);
		trace_pcompact_defer(pn->nid, score, after, round.order_blocks_emptied,
				     round.exhausted,
				     round.route == PCOMPACT_ROUTE_KERNEL_THEN_CONTIG,
				     round.out_of_room,
				     defer_ms);
		pn->deferred_until = jiffies + msecs_to_jiffies(defer_ms);
		*compacting = false;
		pcompact_set_state(pn, PCOMPACT_DEFERRED);
		return;
	}
	*compacting = !pcompact_node_at_target(after, wmarks->low);
	pcompact_set_state(pn, *compacting ? PCOMPACT_COMPACTING : PCOMPACT_IDLE);
}

/*
 * Account the free blocks consumed since the last sample and say whether
 * the node is short of the reserve its demand asks for (reserve_ms).  The
 * engine's frees count in pageblocks; the demand counts blocks of @order.
 */
static bool pcompactd_demand(struct pcompact_node *pn, unsigned int order)
{
	unsigned long free_blocks = pcompact_free_blocks_node(pn->nid, order);
	u64 freed_pages = (u64)atomic64_read(&pn->stats.blocks_freed) * pageblock_nr_pages;
	unsigned long reserve;

	pcompact_demand_sample(&pn->consumption, ktime_get_ns(), order, free_blocks,
			       (unsigned long)(freed_pages >> order));
	reserve = pcompact_reserve_blocks(&pn->consumption, READ_ONCE(pcompact_reserve_ms));
	WRITE_ONCE(pn->free_blocks, free_blocks);
	WRITE_ONCE(pn->reserve, reserve);
	return free_blocks < reserve;
}

/* One sample: score the node and decide whether to compact. */
static void pcompactd_sample(struct pcompact_node *pn, bool *compacting)
{
	unsigned int order = READ_ONCE(pcompact_order);
	struct pcompact_wmarks wmarks;
	bool short_of_reserve;
	unsigned int score;

	pcompact_score_wmarks(&wmarks);
	score = pcompact_score_node(pn->nid, order);
	WRITE_ONCE(pn->score, score);
	trace_pcompact_score(pn->nid, score, wmarks.low, wmarks.high);
	pcompact_takeover_check();
	short_of_reserve = pcompactd_demand(pn, order);

	if (pcompact_kswapd_active(pn->nid))
		pn->kswapd_seen++;
	else
		pn->kswapd_seen = 0;

	if (!READ_ONCE(pcompact_enabled)) {
		*compacting = false;
		pcompact_set_state(pn, PCOMPACT_DISABLED);
		return;
	}
	if (time_before(jiffies, pn->deferred_until)) {
		pcompact_set_state(pn, PCOMPACT_DEFERRED);
		return;
	}
	if (pcompact_node_at_target(score, wmarks.low) ||
	    (!*compacting && score <= wmarks.high && !short_of_reserve)) {
		*compacting = false;
		pcompact_set_state(pn, PCOMPACT_IDLE);
		return;
	}
	if (pn->kswapd_seen >= PCOMPACT_KSWAPD_SAMPLES) {
		atomic64_inc(&pn->stats.backoffs_kswapd);
		pcompact_set_state(pn, PCOMPACT_BACKOFF_KSWAPD);
		return;
	}
	if (pcompact_engine_backs_off_for_stalls()) {
		atomic64_inc(&pn->stats.backoffs_stall);
		pcompact_set_state(pn, PCOMPACT_BACKOFF_STALL);
		return;
	}
	if (!*compacting && score <= wmarks.high)
		atomic64_inc(&pn->stats.reserve_rounds);
	*compacting = true;
	pcompactd_round(pn, score, &wmarks, order, compacting);
}

/*
 * Where a node's pcompactd runs: with any_cpu, or while the node has no
 * online CPU, wherever kernel threads may run, so a node whose CPUs are busy
 * (often with the allocations that need the blocks) is compacted with idle
 * time elsewhere; without, on its node's CPUs, as kcompactd, so its reads of
 * struct pages and the copies it causes stay local.  Takes no lock: the
 * caller holds pcompact_nodes_lock or owns @task.
 */
static void pcompact_bind_thread(int nid, struct task_struct *task, bool any_cpu)
{
	const struct cpumask *cpus = cpumask_of_node(nid);

	if (any_cpu || !cpumask_intersects(cpus, cpu_online_mask))
		cpus = housekeeping_cpumask(HK_TYPE_KTHREAD);
	set_cpus_allowed_ptr(task, cpus);
}

/*
 * The thread binds itself once it runs: since 6.14 a kthread created for a
 * node is bound to that node's CPUs by kthread() as it starts, which undoes
 * a binding made before its first wakeup.  A write of any_cpu racing with
 * this is caught by reading it again: whichever comes last, the thread ends
 * bound as the parameter says.
 */
static void pcompactd_bind_self(struct pcompact_node *pn)
{
	bool any_cpu;

	do {
		any_cpu = READ_ONCE(pcompact_any_cpu);
		pcompact_bind_thread(pn->nid, current, any_cpu);
	} while (any_cpu != READ_ONCE(pcompact_any_cpu));
}

/*
 * Whether a stall's demand ends the sleep now.  It does at once, except
 * that under a quota rounds stay an interval apart: quota_ms is compaction
 * time per second, and with a stall during every round (a stream of huge
 * page allocations) the demand would start each round as the last ended.
 */
static bool pcompactd_demand_due(struct pcompact_node *pn)
{
	if (!READ_ONCE(pn->demand))
		return false;
	return !READ_ONCE(pcompact_quota_ms) || time_after_eq(jiffies, pn->paced_until);
}

/*
 * The thread sets its own nice value, as it binds itself: the parameter's
 * handler only wakes it, so no task is reniced after it has exited.
 */
static void pcompactd_renice_self(void)
{
	int nice = READ_ONCE(pcompact_nice);

	if (task_nice(current) != nice)
		set_user_nice(current, nice);
}

static int pcompactd(void *data)
{
	struct pcompact_node *pn = data;
	bool compacting = false;

	set_freezable();
	pcompactd_bind_self(pn);
	while (!kthread_should_stop()) {
		long timeout;

		pcompactd_renice_self();
		pcompactd_sample(pn, &compacting);
		timeout = msecs_to_jiffies(READ_ONCE(pcompact_interval_ms));
		if (time_before(jiffies, pn->deferred_until))
			timeout = pn->deferred_until - jiffies;
		wait_event_freezable_timeout(pn->wait,
					     kthread_should_stop() ||
					     READ_ONCE(pn->kick) ||
					     pcompactd_demand_due(pn), timeout);
		WRITE_ONCE(pn->demand, false);
		/* A changed parameter deserves a fresh look, deferred or not. */
		if (xchg(&pn->kick, false))
			pn->deferred_until = 0;
	}
	pcompact_set_state(pn, PCOMPACT_IDLE);
	return 0;
}

/**
 * pcompact_bind_all() - apply any_cpu to every running pcompactd.
 *
 * Called by the any_cpu parameter's handler, under the parameter lock.
 */
void pcompact_bind_all(void)
{
	int nid;

	mutex_lock(&pcompact_nodes_lock);
	for_each_node(nid) {
		struct pcompact_node *pn = pcompact_nodes[nid];

		if (pn && pn->task)
			pcompact_bind_thread(nid, pn->task, READ_ONCE(pcompact_any_cpu));
	}
	mutex_unlock(&pcompact_nodes_lock);
}

static int pcompact_start_thread(struct pcompact_node *pn)
{
	struct task_struct *task;
	int err = pcompact_fault(PCOMPACT_FAULT_KTHREAD);

	task = err ? ERR_PTR(err) :
	       kthread_create_on_node(pcompactd, pn, pn->nid, "pcompactd%d", pn->nid);
	if (IS_ERR(task)) {
		pr_err("cannot create pcompactd%d: %ld\n", pn->nid, PTR_ERR(task));
		return PTR_ERR(task);
	}
	pcompact_bind_thread(pn->nid, task, READ_ONCE(pcompact_any_cpu));
	pn->deferred_until = 0;
	pn->kswapd_seen = 0;
	pn->room_spared = 0;
	WRITE_ONCE(pn->stopping, false);
	/* Demand seen before a stop says nothing about the node now. */
	memset(&pn->consumption, 0, sizeof(pn->consumption));
	WRITE_ONCE(pn->demand, false);
	/* jiffies start near wrap-around: 0 would read as the future. */
	WRITE_ONCE(pn->stall_wake_next, jiffies);
	pn->paced_until = jiffies;
	/* sysfs reads it without the lock (READ_ONCE in node<N>/running). */
	WRITE_ONCE(pn->task, task);
	wake_up_process(task);
	return 0;
}

static void pcompact_stop_thread(struct pcompact_node *pn)
{
	if (!pn->task)
		return;
	/*
	 * Cuts short an engine=node-sysfs compaction (see engine.c).  The
	 * signal is dropped if it comes before the call lets it in, so the
	 * call's watch also ends it on seeing pn->stopping.
	 */
	WRITE_ONCE(pn->stopping, true);
	send_sig(SIGKILL, pn->task, 1);
	kthread_stop(pn->task);
	WRITE_ONCE(pn->task, NULL);
}

static bool pcompact_node_wanted(int nid)
{
	return node_state(nid, N_MEMORY) && node_isset(nid, pcompact_nodemask);
}

/*
 * Start or stop threads to match the nodes with memory and nodes=.  Starts
 * come first and stop at the first failure, before anything is stopped, so
 * that a caller going back to the old mask only has to stop what started.
 */
static int __pcompact_apply_nodes(void)
{
	int nid, err;

	lockdep_assert_held(&pcompact_nodes_lock);
	for_each_node(nid) {
		struct pcompact_node *pn = pcompact_nodes[nid];

		if (pn && !pn->task && pcompact_live && pcompact_node_wanted(nid)) {
			err = pcompact_start_thread(pn);
			if (err)
				return err;
		}
	}
	for_each_node(nid) {
		struct pcompact_node *pn = pcompact_nodes[nid];

		if (pn && !(pcompact_live && pcompact_node_wanted(nid)))
			pcompact_stop_thread(pn);
	}
	return 0;
}

/**
 * pcompact_apply_nodes() - start or stop pcompactd threads so that exactly
 * the nodes with memory that nodes= selects have one.
 *
 * Return: 0, or the first error from creating a thread.
 */
int pcompact_apply_nodes(void)
{
	int err;

	mutex_lock(&pcompact_nodes_lock);
	err = __pcompact_apply_nodes();
	mutex_unlock(&pcompact_nodes_lock);
	return err;
}

/**
 * pcompact_set_nodes() - make @mask the nodes pcompact manages and start or
 * stop pcompactd threads to match.
 * @mask:	the nodes; each must be possible.
 *
 * The mask is changed under pcompact_nodes_lock, which the memory hotplug
 * notifier holds while it reads it.
 *
 * Return: 0, or the first error from creating a thread; then the old mask
 * and threads are back.
 */
int pcompact_set_nodes(const nodemask_t *mask)
{
	nodemask_t old;
	int err = 0;

	mutex_lock(&pcompact_nodes_lock);
	old = pcompact_nodemask;
	pcompact_nodemask = *mask;
	if (pcompact_live) {
		err = __pcompact_apply_nodes();
		if (err) {
			/* Nothing was stopped: this only stops what started. */
			pcompact_nodemask = old;
			if (__pcompact_apply_nodes())
				pr_err("nodes: a node of the old list has no pcompactd\n");
		}
	}
	mutex_unlock(&pcompact_nodes_lock);
	return err;
}

/**
 * pcompact_wake_all() - end every pcompactd's current sleep and deferral, so
 * a changed parameter takes effect now rather than after the old interval.
 */
void pcompact_wake_all(void)
{
	int nid;

	for_each_node(nid) {
		struct pcompact_node *pn = pcompact_node(nid);

		if (pn) {
			WRITE_ONCE(pn->kick, true);
			wake_up_interruptible(&pn->wait);
		}
	}
}

static int pcompact_memory_callback(struct notifier_block *nb,
				    unsigned long action, void *arg)
{
	if (action == MEM_ONLINE || action == MEM_OFFLINE)
		pcompact_apply_nodes();
	return NOTIFY_OK;
}

static struct notifier_block pcompact_memory_nb = {
	.notifier_call = pcompact_memory_callback,
};

/*
 * A CPU came online: bind every pcompactd whose node has an online CPU again
 * to its node's CPUs (unless any_cpu).  When the last CPU of a node goes
 * offline the scheduler moves the thread elsewhere and widens its allowed
 * CPUs (select_fallback_rq() in kernel/sched/core.c), and nothing narrows
 * them again; a thread started while its node had no CPU online was left
 * free to run anywhere.  As the kernel does for kcompactd
 * (kcompactd_cpu_online() in mm/compaction.c, 6.1 and 6.12).  Runs in the
 * CPU hotplug thread with the hotplug lock held; nothing that holds
 * pcompact_nodes_lock waits for CPU hotplug.
 */
static int pcompact_cpu_online(unsigned int cpu)
{
	pcompact_bind_all();
	return 0;
}

static void pcompact_free_nodes(void)
{
	int nid;

	/*
	 * A parameter write can run during module exit (the parameter files
	 * go only after it) and wake the nodes: wait for it to finish, and
	 * let later ones find no node.
	 */
	kernel_param_lock(THIS_MODULE);
	for_each_node(nid) {
		kfree(pcompact_nodes[nid]);
		WRITE_ONCE(pcompact_nodes[nid], NULL);
	}
	kernel_param_unlock(THIS_MODULE);
}

static int pcompact_alloc_nodes(void)
{
	int nid;

	for_each_node(nid) {
		struct pcompact_node *pn = pcompact_fault(PCOMPACT_FAULT_ALLOC) ? NULL :
					   kzalloc(sizeof(*pn), GFP_KERNEL);

		if (!pn) {
			pcompact_free_nodes();
			return -ENOMEM;
		}
		pn->nid = nid;
		init_waitqueue_head(&pn->wait);
		WRITE_ONCE(pcompact_nodes[nid], pn);
	}
	return 0;
}

static void pcompact_stop_all(void)
{
	mutex_lock(&pcompact_nodes_lock);
	WRITE_ONCE(pcompact_live, false);
	__pcompact_apply_nodes();
	mutex_unlock(&pcompact_nodes_lock);
}

/* The thresholds the parameters give, together; a refusal is logged. */
static int __init pcompact_check_wmarks(struct pcompact_wmarks *wmarks)
{
	int err = pcompact_wmarks_resolve(pcompact_proactiveness, pcompact_wmark_low,
					  pcompact_wmark_high, wmarks);

	if (err)
		pr_err("wmark_low/wmark_high: low %d above high %d (proactiveness %u)\n",
		       pcompact_wmark_low, pcompact_wmark_high, pcompact_proactiveness);
	return err;
}

static int __init pcompact_init(void)
{
	struct pcompact_wmarks wmarks;
	int err;

	/* Parameters given at load are checked one by one; now check them together. */
	err = pcompact_check_wmarks(&wmarks);
	if (err)
		return err;
	err = pcompact_engine_check(pcompact_engine);
	if (err)
		return err;
	err = pcompact_alloc_nodes();
	if (err)
		return err;
	err = pcompact_sysfs_init();
	if (err)
		goto err_free;
	/* Hooks are optional: one that cannot attach is reported, not fatal. */
	pcompact_hooks_init();
	/*
	 * Parameter files exist and can be written while init runs (the module
	 * loader creates them first): hold their lock until pcompact is live,
	 * so that a takeover= or nodes= write sees either nothing started or
	 * everything.
	 */
	kernel_param_lock(THIS_MODULE);
	/*
	 * A threshold written since the check above was stored unchecked
	 * (params.c checks writes only while live): check the pair again,
	 * now that no write can come between the check and going live.
	 */
	err = pcompact_check_wmarks(&wmarks);
	if (err)
		goto err_unlock;
	/* Losing the takeover is no reason to refuse to load; it is logged. */
	if (pcompact_takeover && pcompact_takeover_start())
		WRITE_ONCE(pcompact_takeover, false);
	err = pcompact_fault(PCOMPACT_FAULT_NOTIFIER) ?:
	      register_memory_notifier(&pcompact_memory_nb);
	if (err)
		goto err_takeover;
	err = pcompact_fault(PCOMPACT_FAULT_CPUHP) ?:
	      cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "pcompact:online",
					pcompact_cpu_online, NULL);
	if (err < 0) {
		pr_err("cannot register a CPU hotplug callback: %d\n", err);
		goto err_notifier;
	}
	pcompact_cpuhp_state = err;

	mutex_lock(&pcompact_nodes_lock);
	WRITE_ONCE(pcompact_live, true);
	err = __pcompact_apply_nodes();
	mutex_unlock(&pcompact_nodes_lock);
	if (err)
		goto err_threads;
	kernel_param_unlock(THIS_MODULE);

	pr_info("version %s loaded: proactiveness %u, thresholds %u/%u, engine %s\n",
		PCOMPACT_VERSION, pcompact_proactiveness, wmarks.low, wmarks.high,
		pcompact_engine_names[pcompact_engine]);
	return 0;

err_threads:
	pcompact_stop_all();
	cpuhp_remove_state_nocalls(pcompact_cpuhp_state);
err_notifier:
	unregister_memory_notifier(&pcompact_memory_nb);
err_takeover:
	pcompact_takeover_stop();
err_unlock:
	kernel_param_unlock(THIS_MODULE);
	pcompact_hooks_exit();
	pcompact_sysfs_exit();
err_free:
	pcompact_free_nodes();
	return err;
}

static void __exit pcompact_exit(void)
{
	unregister_memory_notifier(&pcompact_memory_nb);
	cpuhp_remove_state_nocalls(pcompact_cpuhp_state);
	/*
	 * A takeover= or nodes= write can run during exit (the parameter
	 * files go only after it, kernel/module/main.c): under the parameter
	 * lock it either runs before the threads and the takeover stop, and
	 * that stop undoes it, or after, and finds pcompact not live.
	 */
	kernel_param_lock(THIS_MODULE);
	pcompact_stop_all();
	pcompact_takeover_stop();
	kernel_param_unlock(THIS_MODULE);
	pcompact_hooks_exit();
	pcompact_sysfs_exit();
	pcompact_free_nodes();
	pr_info("unloaded\n");
}

module_init(pcompact_init);
module_exit(pcompact_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Proactive memory compaction for stock kernels");
MODULE_VERSION(PCOMPACT_VERSION);
