// SPDX-License-Identifier: GPL-2.0
/*
 * pcompact module parameters: validation and runtime updates.
 *
 * Every parameter is writable at runtime under
 * /sys/module/pcompact/parameters/.  A rejected value returns -EINVAL, logs
 * which parameter and why, and leaves the running state as it was.
 */
#define pr_fmt(fmt) "pcompact: " fmt

#include <linux/kernel.h>
#include <linux/moduleparam.h>

#include "pcompact.h"

/*
 * enabled - whether pcompactd threads compact at all.  bool, default Y.
 * The threads keep running (and keep sampling the score) while disabled.
 */
bool pcompact_enabled = true;

static int pcompact_param_set_enabled(const char *val,
				      const struct kernel_param *kp)
{
	int err = param_set_bool(val, kp);

	if (err) {
		pr_err("enabled: '%s' is not a boolean\n", val);
		return -EINVAL;
	}
	pcompact_wake_all();
	return 0;
}

static const struct kernel_param_ops pcompact_param_enabled_ops = {
	.set = pcompact_param_set_enabled,
	.get = param_get_bool,
};
module_param_cb(enabled, &pcompact_param_enabled_ops, &pcompact_enabled, 0644);
MODULE_PARM_DESC(enabled, "Compact in the background (bool, default: Y)");

/*
 * interval_ms - how often each pcompactd samples its node's score, in
 * milliseconds.  Default 500 (upstream's HPAGE_FRAG_CHECK_INTERVAL_MSEC).
 */
#define PCOMPACT_INTERVAL_MIN_MS	10
#define PCOMPACT_INTERVAL_MAX_MS	60000
unsigned int pcompact_interval_ms = 500;

static int pcompact_param_set_interval(const char *val,
				       const struct kernel_param *kp)
{
	unsigned int ms;

	if (kstrtouint(val, 0, &ms)) {
		pr_err("interval_ms: '%s' is not an unsigned integer\n", val);
		return -EINVAL;
	}
	if (ms < PCOMPACT_INTERVAL_MIN_MS || ms > PCOMPACT_INTERVAL_MAX_MS) {
		pr_err("interval_ms: %u is outside %u..%u\n", ms,
		       PCOMPACT_INTERVAL_MIN_MS, PCOMPACT_INTERVAL_MAX_MS);
		return -EINVAL;
	}
	WRITE_ONCE(pcompact_interval_ms, ms);
	pcompact_wake_all();
	return 0;
}

static const struct kernel_param_ops pcompact_param_interval_ops = {
	.set = pcompact_param_set_interval,
	.get = param_get_uint,
};
module_param_cb(interval_ms, &pcompact_param_interval_ops,
		&pcompact_interval_ms, 0644);
MODULE_PARM_DESC(interval_ms,
		 "Score sampling period in ms, 10..60000 (default: 500)");

/*
 * proactiveness - how hard to compact, 0..100, as vm.compaction_proactiveness.
 * Default 20.  The thresholds derive from it: low = 100 - proactiveness,
 * high = min(low + 10, 100).
 */
unsigned int pcompact_proactiveness = 20;

static int pcompact_param_set_proactiveness(const char *val,
					    const struct kernel_param *kp)
{
	unsigned int value;

	if (kstrtouint(val, 0, &value)) {
		pr_err("proactiveness: '%s' is not an unsigned integer\n", val);
		return -EINVAL;
	}
	if (value > 100) {
		pr_err("proactiveness: %u is outside 0..100\n", value);
		return -EINVAL;
	}
	WRITE_ONCE(pcompact_proactiveness, value);
	pcompact_wake_all();
	return 0;
}

static const struct kernel_param_ops pcompact_param_proactiveness_ops = {
	.set = pcompact_param_set_proactiveness,
	.get = param_get_uint,
};
module_param_cb(proactiveness, &pcompact_param_proactiveness_ops,
		&pcompact_proactiveness, 0644);
MODULE_PARM_DESC(proactiveness,
		 "How hard to compact, 0..100 like vm.compaction_proactiveness (default: 20)");
