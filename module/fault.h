/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcompact fault injection: make a setup step fail on purpose, so the tests
 * can watch every error path of module load run.
 *
 * Only test builds have it: `make pcompact-faults` builds the module with
 * PCOMPACT_FAULT_INJECTION=y, which defines CONFIG_PCOMPACT_FAULT_INJECTION
 * and links fault.c, whose module parameters choose the steps that fail
 * (modinfo build/<release>/module-faults/pcompact.ko).  In the production
 * build pcompact_fault() is a constant 0 and every call site compiles to
 * the plain call it guards.
 */
#ifndef PCOMPACT_FAULT_H
#define PCOMPACT_FAULT_H

/* The setup steps that can be made to fail, in the order init runs them. */
enum pcompact_fault_step {
	PCOMPACT_FAULT_ALLOC,		/* allocating a node's state */
	PCOMPACT_FAULT_SYSFS,		/* a /sys/kernel/pcompact attribute group */
	PCOMPACT_FAULT_KPROBE,		/* registering the direct-compaction kretprobe */
	PCOMPACT_FAULT_TRACEPOINT,	/* finding a kernel tracepoint by name */
	PCOMPACT_FAULT_NOTIFIER,	/* registering the memory hotplug notifier */
	PCOMPACT_FAULT_CPUHP,		/* setting up the CPU hotplug state */
	PCOMPACT_FAULT_KTHREAD,		/* creating a pcompactd thread */
	PCOMPACT_NR_FAULT_STEPS,
};

struct page;

#ifdef CONFIG_PCOMPACT_FAULT_INJECTION
int pcompact_fault(enum pcompact_fault_step step);
struct page *pcompact_fault_hold(unsigned long pfn, unsigned long nr_pages);
void pcompact_fault_release(struct page *page);
bool pcompact_fault_idle_node_sysfs(void);
#else
/**
 * pcompact_fault() - whether a setup step is to fail now (test builds only).
 * @step:	the step about to run.
 *
 * Return: 0 to run the step, or the negative errno it is to fail with.
 */
static inline int pcompact_fault(enum pcompact_fault_step step)
{
	return 0;
}

/**
 * pcompact_fault_hold() - take a reference on a page of an emptied range,
 * as a speculative holder on another CPU would (test builds only).
 * @pfn:	first pfn of the range the engine just emptied.
 * @nr_pages:	its length.
 *
 * Return: the page held, or NULL.
 */
static inline struct page *pcompact_fault_hold(unsigned long pfn,
					       unsigned long nr_pages)
{
	return NULL;
}

/**
 * pcompact_fault_release() - drop the reference pcompact_fault_hold() took,
 * after checking the engine did not free the page under it (test builds only).
 * @page:	what pcompact_fault_hold() returned.
 */
static inline void pcompact_fault_release(struct page *page)
{
}

/**
 * pcompact_fault_idle_node_sysfs() - whether an engine=node-sysfs call is to
 * end at once having done nothing, as the kernel's compaction does when the
 * free pages sit on the per-CPU lists (test builds only).
 *
 * Return: true to skip the call.
 */
static inline bool pcompact_fault_idle_node_sysfs(void)
{
	return false;
}
#endif

#endif /* PCOMPACT_FAULT_H */
