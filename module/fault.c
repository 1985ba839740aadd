// SPDX-License-Identifier: GPL-2.0
/*
 * pcompact fault injection, linked into test builds only (see fault.h).
 *
 *   fault=STEP[,STEP...]  the steps that fail: alloc, sysfs, kprobe,
 *                         tracepoint, notifier, cpuhp, kthread; "none" or empty
 *                         for none (the default)
 *   fault_after=N         let the first N attempts of the chosen steps
 *                         succeed, then fail every later one (default 0)
 *   fault_hits            read-only: failures injected so far
 *
 *   hold_ranges=N         hold a reference on one tail page of each of the
 *                         next N ranges the engine empties, across their
 *                         free, as a speculative holder on another CPU
 *                         would (an RCU page-cache lookup, GUP-fast)
 *   holds, hold_freed     read-only: references held and released so far;
 *                         held pages the engine gave to the allocator while
 *                         referenced (a double free, which is then avoided
 *                         by leaking the page)
 *
 *   idle_node_sysfs=0|1   engine=node-sysfs calls end at once having done
 *                         nothing, so every round takes the fallback
 *                         (default 0)
 *   idle_calls            read-only: node-sysfs calls so skipped
 *
 * Writing fault (at load or at runtime) starts the attempt count afresh.
 * An injected failure is logged as "pcompact: fault: ..." so a test can
 * tell it from a real one.
 */
#define pr_fmt(fmt) "pcompact: " fmt

#include <linux/atomic.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "compat.h"
#include "fault.h"

static const struct {
	const char *name;
	int err;
} pcompact_fault_steps[PCOMPACT_NR_FAULT_STEPS] = {
	[PCOMPACT_FAULT_ALLOC] = { "alloc", -ENOMEM },
	[PCOMPACT_FAULT_SYSFS] = { "sysfs", -ENOMEM },
	[PCOMPACT_FAULT_KPROBE] = { "kprobe", -ENOMEM },
	/* A lookup that finds nothing: the hook reports -ENOENT itself. */
	[PCOMPACT_FAULT_TRACEPOINT] = { "tracepoint", -ENOENT },
	[PCOMPACT_FAULT_NOTIFIER] = { "notifier", -ENOMEM },
	/* What cpuhp_setup_state_nocalls() returns with no dynamic state free. */
	[PCOMPACT_FAULT_CPUHP] = { "cpuhp", -ENOSPC },
	[PCOMPACT_FAULT_KTHREAD] = { "kthread", -ENOMEM },
};

static unsigned long pcompact_fault_mask;
static unsigned int pcompact_fault_after;
static atomic_t pcompact_fault_attempts = ATOMIC_INIT(0);
static unsigned int pcompact_fault_hits;

/**
 * pcompact_fault() - whether a setup step is to fail now.
 * @step:	the step about to run.
 *
 * Return: 0 to run the step, or the negative errno it is to fail with.
 */
int pcompact_fault(enum pcompact_fault_step step)
{
	int err = pcompact_fault_steps[step].err;

	if (!(READ_ONCE(pcompact_fault_mask) & BIT(step)))
		return 0;
	if (atomic_inc_return(&pcompact_fault_attempts) <= READ_ONCE(pcompact_fault_after))
		return 0;
	WRITE_ONCE(pcompact_fault_hits, READ_ONCE(pcompact_fault_hits) + 1);
	pr_info("fault: injected failure of step %s (%d)\n",
		pcompact_fault_steps[step].name, err);
	return err;
}

static int pcompact_fault_set(const char *val, const struct kernel_param *kp)
{
	size_t len = strcspn(val, "\n");
	unsigned long mask = 0;
	const char *p = val;

	if (len && !(len == 4 && !strncmp(val, "none", 4))) {
		while (p <= val + len) {
			size_t n = strcspn(p, ",\n");
			int i;

			for (i = 0; i < PCOMPACT_NR_FAULT_STEPS; i++)
				if (strlen(pcompact_fault_steps[i].name) == n &&
				    !strncmp(p, pcompact_fault_steps[i].name, n))
					break;
			if (i == PCOMPACT_NR_FAULT_STEPS) {
				pr_err("fault: unknown step '%.*s' (alloc, sysfs, kprobe, tracepoint, notifier, cpuhp, kthread, none)\n",
				       (int)n, p);
				return -EINVAL;
			}
			mask |= BIT(i);
			p += n + 1;
		}
	}
	atomic_set(&pcompact_fault_attempts, 0);
	WRITE_ONCE(pcompact_fault_mask, mask);
	return 0;
}

static int pcompact_fault_get(char *buf, const struct kernel_param *kp)
{
	unsigned long mask = READ_ONCE(pcompact_fault_mask);
	ssize_t len = 0;
	int i;

	for (i = 0; i < PCOMPACT_NR_FAULT_STEPS; i++)
		if (mask & BIT(i))
			len += sysfs_emit_at(buf, len, "%s%s", len ? "," : "",
					     pcompact_fault_steps[i].name);
	if (!len)
		len = sysfs_emit(buf, "none");
	return len + sysfs_emit_at(buf, len, "\n");
}

static const struct kernel_param_ops pcompact_fault_ops = {
	.set = pcompact_fault_set,
	.get = pcompact_fault_get,
};
module_param_cb(fault, &pcompact_fault_ops, NULL, 0644);
MODULE_PARM_DESC(fault,
		 "Test builds only: setup steps that fail (alloc,sysfs,kprobe,tracepoint,notifier,cpuhp,kthread; default: none)");

module_param_named(fault_after, pcompact_fault_after, uint, 0644);
MODULE_PARM_DESC(fault_after,
		 "Test builds only: attempts of the chosen steps that succeed before they fail (default: 0)");

module_param_named(fault_hits, pcompact_fault_hits, uint, 0444);
MODULE_PARM_DESC(fault_hits, "Test builds only: failures injected so far");

static unsigned int pcompact_fault_hold_ranges;
static atomic_t pcompact_fault_holds = ATOMIC_INIT(0);
static atomic_t pcompact_fault_hold_freed = ATOMIC_INIT(0);

module_param_named(hold_ranges, pcompact_fault_hold_ranges, uint, 0644);
MODULE_PARM_DESC(hold_ranges,
		 "Test builds only: hold a reference on a tail page of each of the next N emptied ranges across their free (default: 0)");
module_param_named(holds, pcompact_fault_holds.counter, int, 0444);
MODULE_PARM_DESC(holds, "Test builds only: references held across a free and released");
module_param_named(hold_freed, pcompact_fault_hold_freed.counter, int, 0444);
MODULE_PARM_DESC(hold_freed,
		 "Test builds only: held pages found in the allocator's free lists while referenced");

/**
 * pcompact_fault_hold() - take a reference on a page of an emptied range,
 * as a speculative holder on another CPU would.
 * @pfn:	first pfn of the range the engine just emptied.
 * @nr_pages:	its length.
 *
 * Return: the page held (a tail of the middle unit), or NULL when no more
 * holds are wanted or the page is frozen (counted as a hold: nothing can
 * hold it).
 */
struct page *pcompact_fault_hold(unsigned long pfn, unsigned long nr_pages)
{
	struct page *page;

	if (atomic_read(&pcompact_fault_holds) >= (int)READ_ONCE(pcompact_fault_hold_ranges))
		return NULL;
	page = pfn_to_page(pfn + nr_pages / 2 + 1);
	/* As a speculative getter: a frozen page (7.x) cannot be taken. */
	if (!get_page_unless_zero(page)) {
		atomic_inc(&pcompact_fault_holds);
		pr_info("fault: pfn %#lx is frozen: no reference can be taken\n",
			page_to_pfn(page));
		return NULL;
	}
	return page;
}

/* Whether @page lies in a free buddy block: PageBuddy on an aligned head. */
static bool pcompact_fault_page_in_buddy(struct page *page)
{
	unsigned long pfn = page_to_pfn(page);
	unsigned int order;

	for (order = 0; order < PCOMPACT_NR_ORDERS; order++) {
		struct page *head = pfn_to_page(pfn & ~((1UL << order) - 1));

		/* Unlocked, like the engine's own buddy_order() reads. */
		if (PageBuddy(head) && data_race(page_private(head)) >= order)
			return true;
	}
	return false;
}

/**
 * pcompact_fault_release() - drop the reference pcompact_fault_hold() took.
 * @page:	what pcompact_fault_hold() returned.
 *
 * A page already in the free lists while still referenced was freed under
 * its holder, and this put would free it a second time: count and log it,
 * and leak the page instead.
 */
void pcompact_fault_release(struct page *page)
{
	if (!page)
		return;
	atomic_inc(&pcompact_fault_holds);
	if (pcompact_fault_page_in_buddy(page)) {
		atomic_inc(&pcompact_fault_hold_freed);
		pr_err("fault: held pfn %#lx is in the free lists while referenced: the engine freed it under its holder\n",
		       page_to_pfn(page));
		return;
	}
	pr_info("fault: held pfn %#lx (refcount %d) across the free, releasing it\n",
		page_to_pfn(page), page_ref_count(page));
	put_page(page);
}

static bool pcompact_fault_idle;
static atomic_t pcompact_fault_idle_calls = ATOMIC_INIT(0);

module_param_named(idle_node_sysfs, pcompact_fault_idle, bool, 0644);
MODULE_PARM_DESC(idle_node_sysfs,
		 "Test builds only: engine=node-sysfs calls end at once having done nothing (default: 0)");
module_param_named(idle_calls, pcompact_fault_idle_calls.counter, int, 0444);
MODULE_PARM_DESC(idle_calls, "Test builds only: node-sysfs calls skipped by idle_node_sysfs");

/**
 * pcompact_fault_idle_node_sysfs() - whether an engine=node-sysfs call is to
 * end at once having done nothing, as the kernel's compaction does when the
 * free pages sit on the per-CPU lists.
 *
 * Return: true to skip the call.
 */
bool pcompact_fault_idle_node_sysfs(void)
{
	if (!READ_ONCE(pcompact_fault_idle))
		return false;
	atomic_inc(&pcompact_fault_idle_calls);
	return true;
}
