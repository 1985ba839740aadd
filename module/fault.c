// SPDX-License-Identifier: GPL-2.0
/*
 * pcompact fault injection, linked into test builds only (see fault.h).
 *
 *   fault=STEP[,STEP...]  the steps that fail: alloc, sysfs, kprobe,
 *                         tracepoint, notifier, kthread; "none" or empty
 *                         for none (the default)
 *   fault_after=N         let the first N attempts of the chosen steps
 *                         succeed, then fail every later one (default 0)
 *   fault_hits            read-only: failures injected so far
 *
 * Writing fault (at load or at runtime) starts the attempt count afresh.
 * An injected failure is logged as "pcompact: fault: ..." so a test can
 * tell it from a real one.
 */
#define pr_fmt(fmt) "pcompact: " fmt

#include <linux/atomic.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/sysfs.h>

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
				pr_err("fault: unknown step '%.*s' (alloc, sysfs, kprobe, tracepoint, notifier, kthread, none)\n",
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
		 "Test builds only: setup steps that fail (alloc,sysfs,kprobe,tracepoint,notifier,kthread; default: none)");

module_param_named(fault_after, pcompact_fault_after, uint, 0644);
MODULE_PARM_DESC(fault_after,
		 "Test builds only: attempts of the chosen steps that succeed before they fail (default: 0)");

module_param_named(fault_hits, pcompact_fault_hits, uint, 0444);
MODULE_PARM_DESC(fault_hits, "Test builds only: failures injected so far");
