// SPDX-License-Identifier: GPL-2.0
/*
 * pcompact hooks: watches the kernel's own compaction and reclaim, per node.
 *
 * Hooks only observe (and may wake a pcompactd); none changes what the
 * kernel does.  Each is optional: one that cannot attach on some kernel is
 * logged once, listed as failed in /sys/kernel/pcompact/hooks, and the
 * module works without it.
 *
 *  - direct compaction stalls: a kretprobe on try_to_compact_pages(), or on
 *    __alloc_pages_direct_compact() where the former cannot be probed,
 *    counts the stalls and times them, charged to the node of the CPU the
 *    stall returns on, notes when the last one began or ended (the engine
 *    shortens its calls while allocations stall, stall_run_mb), and with
 *    stall_wake_ms set wakes every node's pcompactd to sample now;
 *  - kcompactd and kswapd wakeups: the mm_compaction_kcompactd_wake and
 *    mm_vmscan_kswapd_wake tracepoints, found by name because their
 *    __tracepoint symbols are not exported.  Both have the same prototype
 *    on every supported kernel;
 *  - the pages the kernel's compaction migrates for a node's pcompactd
 *    (engine=node-sysfs): the mm_compaction_migratepages tracepoint, whose
 *    first argument differs between kernels (compat.h).
 */
#define pr_fmt(fmt) "pcompact: " fmt

#include <linux/irq_work.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/mmzone.h>
#include <linux/sysfs.h>
#include <linux/topology.h>
#include <linux/tracepoint.h>

#include "compat.h"
#include "fault.h"
#include "pcompact.h"

static struct pcompact_node *pcompact_hooks_node(int nid)
{
	return nid >= 0 && nid < MAX_NUMNODES ? pcompact_node(nid) : NULL;
}

/*
 * Demand shows first as a stall: bring each node's next sample forward, at
 * most once per stall_wake_ms.  Racing CPUs may both mark a node; one extra
 * sample is harmless.  Returns whether the node was marked.
 */
static bool pcompact_stall_mark_node(struct pcompact_node *pn, unsigned int wake_ms)
{
	unsigned long now = jiffies;

	if (time_before(now, READ_ONCE(pn->stall_wake_next)))
		return false;
	WRITE_ONCE(pn->stall_wake_next, now + msecs_to_jiffies(wake_ms));
	atomic64_inc(&pn->stats.stall_wakes);
	WRITE_ONCE(pn->demand, true);
	return true;
}

/*
 * The wakeups themselves run from an irq_work, not from the probe: a
 * kretprobe handler runs with preemption (on x86, through int3, interrupts)
 * disabled, where PREEMPT_RT's wait-queue lock, a sleeping lock, may not be
 * taken.  On PREEMPT_RT an irq_work runs in a per-CPU thread; elsewhere in
 * hard interrupt context, where the wait queue's irq-safe lock is fine.
 */
static void pcompact_stall_wake_fn(struct irq_work *work)
{
	int nid;

	for_each_node_state(nid, N_MEMORY) {
		struct pcompact_node *pn = pcompact_hooks_node(nid);

		if (pn && READ_ONCE(pn->demand))
			wake_up_interruptible(&pn->wait);
	}
}

static DEFINE_IRQ_WORK(pcompact_stall_irq_work, pcompact_stall_wake_fn);

/* ktime_get_ns() when a direct compaction stall last began or ended, 0 before any. */
static atomic64_t pcompact_stall_last_ns = ATOMIC64_INIT(0);

/**
 * pcompact_hooks_stalled_since() - whether allocations stalled lately.
 * @since_ns:	a ktime_get_ns() time.
 *
 * Return: true if a direct compaction stall, on any node, began or ended
 * at or after @since_ns; always false while the stall hook is not attached.
 */
bool pcompact_hooks_stalled_since(u64 since_ns)
{
	u64 last = atomic64_read(&pcompact_stall_last_ns);

	/* 0 is "never": a window reaching back to boot must not count it. */
	return last && last >= since_ns;
}

static int pcompact_stall_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	unsigned int wake_ms = READ_ONCE(pcompact_stall_wake_ms);
	struct pcompact_node *pn;
	bool marked = false;
	int nid;

	*(u64 *)ri->data = ktime_get_ns();
	atomic64_set(&pcompact_stall_last_ns, *(u64 *)ri->data);
	if (!wake_ms)
		return 0;
	/*
	 * Every node, not only the stalling CPU's: the allocation falls back
	 * along its zonelist, so the node short of blocks may be another one.
	 * On 6.1 a stream running on node 0 emptied node 1's blocks too, all
	 * its stalls were node 0's, and node 1's next periodic sample came
	 * after the stream had ended on failures.  The probe cannot see the
	 * allocation's nodemask, so it is every node with memory; each
	 * node's sample decides by its own score whether to compact.
	 */
	for_each_node_state(nid, N_MEMORY) {
		pn = pcompact_hooks_node(nid);
		if (pn && READ_ONCE(pn->task))
			marked |= pcompact_stall_mark_node(pn, wake_ms);
	}
	if (marked)
		irq_work_queue(&pcompact_stall_irq_work);
	return 0;
}

static int pcompact_stall_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct pcompact_node *pn = pcompact_hooks_node(numa_node_id());
	u64 now = ktime_get_ns();

	atomic64_set(&pcompact_stall_last_ns, now);
	if (pn) {
		atomic64_inc(&pn->stats.direct_stalls);
		atomic64_add(now - *(u64 *)ri->data, &pn->stats.direct_stall_ns);
	}
	return 0;
}

static struct kretprobe pcompact_stall_probe;

/* Functions to time, best first: the second may be inlined on some builds. */
static const char * const pcompact_stall_symbols[] = {
	"try_to_compact_pages",
	"__alloc_pages_direct_compact",
};

static void pcompact_kcompactd_wake(void *data, int nid, int order, int highest_zoneidx)
{
	struct pcompact_node *pn = pcompact_hooks_node(nid);

	if (pn)
		atomic64_inc(&pn->stats.kcompactd_wakes);
}

static void pcompact_kswapd_wake(void *data, int nid, int zid, int order)
{
	struct pcompact_node *pn = pcompact_hooks_node(nid);

	if (pn)
		atomic64_inc(&pn->stats.kswapd_wakes);
}

/*
 * A batch the kernel's compaction migrated, charged to the node whose
 * pcompactd runs that compaction (its node-sysfs call), and to no node when
 * another task does: kcompactd, a stalled allocation, the other node's
 * pcompactd.  PGMIGRATE_SUCCESS, the count without this hook, has them all.
 */
static void pcompact_migratepages(void *data, PCOMPACT_MIGRATEPAGES_FIRST_ARG,
				  unsigned int nr_succeeded)
{
	int nid;

	for_each_node_state(nid, N_MEMORY) {
		struct pcompact_node *pn = pcompact_hooks_node(nid);

		if (pn && READ_ONCE(pn->task) == current) {
			atomic64_add(nr_succeeded, &pn->kernel_migrated);
			return;
		}
	}
}

/**
 * struct pcompact_tracepoint_hook - a kernel tracepoint found by name.
 * @name:	the tracepoint's name.
 * @probe:	our probe function.
 * @tp:		the tracepoint, once found.
 * @err:	0 when attached, else why not.
 */
struct pcompact_tracepoint_hook {
	const char *name;
	void *probe;
	struct tracepoint *tp;
	int err;
};

enum {
	PCOMPACT_TP_KCOMPACTD_WAKE,
	PCOMPACT_TP_KSWAPD_WAKE,
	PCOMPACT_TP_MIGRATEPAGES,
	PCOMPACT_TP_COUNT,
};

static struct pcompact_tracepoint_hook pcompact_tracepoints[PCOMPACT_TP_COUNT] = {
	[PCOMPACT_TP_KCOMPACTD_WAKE] = { .name = "mm_compaction_kcompactd_wake",
					 .probe = pcompact_kcompactd_wake },
	[PCOMPACT_TP_KSWAPD_WAKE] = { .name = "mm_vmscan_kswapd_wake",
				      .probe = pcompact_kswapd_wake },
	[PCOMPACT_TP_MIGRATEPAGES] = { .name = "mm_compaction_migratepages",
				       .probe = pcompact_migratepages },
};

/**
 * pcompact_hooks_count_migrations() - whether each node's count of the pages
 * its thread's calls of the kernel's compaction migrated is kept.
 *
 * Return: true while the mm_compaction_migratepages hook is attached.
 */
bool pcompact_hooks_count_migrations(void)
{
	return !pcompact_tracepoints[PCOMPACT_TP_MIGRATEPAGES].err;
}

static const char *pcompact_stall_symbol;
static int pcompact_stall_err = -ENOENT;

static void pcompact_find_tracepoint(struct tracepoint *tp, void *priv)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(pcompact_tracepoints); i++)
		if (!strcmp(tp->name, pcompact_tracepoints[i].name))
			pcompact_tracepoints[i].tp = tp;
}

static void pcompact_hooks_attach_stalls(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(pcompact_stall_symbols); i++) {
		/* A failed registration may leave state behind: start afresh. */
		memset(&pcompact_stall_probe, 0, sizeof(pcompact_stall_probe));
		pcompact_stall_probe.entry_handler = pcompact_stall_entry;
		pcompact_stall_probe.handler = pcompact_stall_return;
		pcompact_stall_probe.data_size = sizeof(u64);
		/* Compaction sleeps: allow for many stalls in flight. */
		pcompact_stall_probe.maxactive = max(40U, 2 * num_possible_cpus());
		pcompact_stall_probe.kp.symbol_name = pcompact_stall_symbols[i];
		pcompact_stall_err = pcompact_fault(PCOMPACT_FAULT_KPROBE) ?:
				     register_kretprobe(&pcompact_stall_probe);
		if (!pcompact_stall_err) {
			pcompact_stall_symbol = pcompact_stall_symbols[i];
			return;
		}
		pr_info("hooks: cannot probe %s (%d)\n", pcompact_stall_symbols[i],
			pcompact_stall_err);
	}
	pr_warn("hooks: direct compaction stalls will not be counted\n");
}

/**
 * pcompact_hooks_init() - attach every hook that can attach.
 *
 * Return: 0; hooks that fail are logged and shown in sysfs.
 */
int pcompact_hooks_init(void)
{
	int i;

	pcompact_hooks_attach_stalls();
	for_each_kernel_tracepoint(pcompact_find_tracepoint, NULL);
	for (i = 0; i < ARRAY_SIZE(pcompact_tracepoints); i++) {
		struct pcompact_tracepoint_hook *hook = &pcompact_tracepoints[i];

		if (pcompact_fault(PCOMPACT_FAULT_TRACEPOINT))
			hook->tp = NULL;
		hook->err = hook->tp ? tracepoint_probe_register(hook->tp, hook->probe, NULL)
				     : -ENOENT;
		if (hook->err)
			pr_warn("hooks: cannot attach to tracepoint %s (%d)\n",
				hook->name, hook->err);
	}
	return 0;
}

/**
 * pcompact_hooks_exit() - detach every attached hook and wait until none of
 * our probes can still be running.
 */
void pcompact_hooks_exit(void)
{
	int i;

	if (!pcompact_stall_err) {
		unregister_kretprobe(&pcompact_stall_probe);
		pcompact_stall_err = -ENOENT;
	}
	/* No probe queues it any more; the nodes it wakes outlive this. */
	irq_work_sync(&pcompact_stall_irq_work);
	for (i = 0; i < ARRAY_SIZE(pcompact_tracepoints); i++) {
		struct pcompact_tracepoint_hook *hook = &pcompact_tracepoints[i];

		if (!hook->err)
			tracepoint_probe_unregister(hook->tp, hook->probe, NULL);
		hook->err = -ENOENT;
		hook->tp = NULL;
	}
	tracepoint_synchronize_unregister();
}

/**
 * pcompact_hooks_show() - one line per hook: its name and "attached" or
 * "failed <errno>".
 * @buf:	the sysfs buffer.
 *
 * Return: bytes written.
 */
ssize_t pcompact_hooks_show(char *buf)
{
	ssize_t len = 0;
	int i;

	if (pcompact_stall_err)
		len += sysfs_emit_at(buf, len, "kretprobe:try_to_compact_pages failed %d\n",
				     pcompact_stall_err);
	else
		len += sysfs_emit_at(buf, len, "kretprobe:%s attached\n",
				     pcompact_stall_symbol);
	for (i = 0; i < ARRAY_SIZE(pcompact_tracepoints); i++) {
		struct pcompact_tracepoint_hook *hook = &pcompact_tracepoints[i];

		if (hook->err)
			len += sysfs_emit_at(buf, len, "tracepoint:%s failed %d\n",
					     hook->name, hook->err);
		else
			len += sysfs_emit_at(buf, len, "tracepoint:%s attached\n",
					     hook->name);
	}
	return len;
}
