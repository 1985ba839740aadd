// SPDX-License-Identifier: GPL-2.0
/*
 * pcompact takeover: holds vm.compaction_proactiveness at 0 while loaded so
 * the kernel's own proactive compaction and pcompact do not both compact the
 * same nodes, and gives the old value back afterwards.
 *
 * The sysctl is written through its /proc file, the interface every kernel
 * keeps stable, rather than through the (in 6.12 static) variable.
 */
#define pr_fmt(fmt) "pcompact: " fmt

#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/mutex.h>

#include "pcompact.h"

#define PCOMPACT_SYSCTL_PATH	"/proc/sys/vm/compaction_proactiveness"

/* Protects the takeover state below. */
static DEFINE_MUTEX(pcompact_takeover_lock);
static bool pcompact_takeover_active;
static int pcompact_takeover_saved = -1;
static int pcompact_takeover_last_seen = -1;
static unsigned long pcompact_takeover_conflicts;

static int pcompact_sysctl_read(void)
{
	struct file *file;
	char buf[16] = "";
	loff_t pos = 0;
	ssize_t len;
	int value;

	file = filp_open(PCOMPACT_SYSCTL_PATH, O_RDONLY, 0);
	if (IS_ERR(file))
		return PTR_ERR(file);
	len = kernel_read(file, buf, sizeof(buf) - 1, &pos);
	filp_close(file, NULL);
	if (len <= 0)
		return len ? len : -EIO;
	buf[len] = '\0';
	if (kstrtoint(buf, 10, &value))
		return -EIO;
	return value;
}

static int pcompact_sysctl_write(int value)
{
	struct file *file;
	char buf[16];
	loff_t pos = 0;
	ssize_t len;
	int n;

	file = filp_open(PCOMPACT_SYSCTL_PATH, O_WRONLY, 0);
	if (IS_ERR(file))
		return PTR_ERR(file);
	n = scnprintf(buf, sizeof(buf), "%d\n", value);
	len = kernel_write(file, buf, n, &pos);
	filp_close(file, NULL);
	return len == n ? 0 : (len < 0 ? len : -EIO);
}

/**
 * pcompact_takeover_start() - set vm.compaction_proactiveness to 0 and
 * remember the value it had.
 *
 * A failure is logged and pcompact runs beside the kernel's own proactive
 * compaction: losing the takeover is no reason to refuse to load.
 *
 * Return: 0.
 */
int pcompact_takeover_start(void)
{
	int old, err;

	mutex_lock(&pcompact_takeover_lock);
	if (pcompact_takeover_active)
		goto out;
	old = pcompact_sysctl_read();
	if (old < 0) {
		pr_warn("takeover: cannot read %s (%d); the kernel's proactive compaction stays as it is\n",
			PCOMPACT_SYSCTL_PATH, old);
		goto out;
	}
	err = old ? pcompact_sysctl_write(0) : 0;
	if (err) {
		pr_warn("takeover: cannot write %s (%d)\n", PCOMPACT_SYSCTL_PATH, err);
		goto out;
	}
	pcompact_takeover_saved = old;
	pcompact_takeover_last_seen = 0;
	pcompact_takeover_active = true;
	pr_info("takeover: vm.compaction_proactiveness %d -> 0 while pcompact is loaded\n", old);
out:
	mutex_unlock(&pcompact_takeover_lock);
	return 0;
}

/**
 * pcompact_takeover_stop() - give vm.compaction_proactiveness its old value
 * back, unless someone has set it since: their value wins.
 */
void pcompact_takeover_stop(void)
{
	int now;

	mutex_lock(&pcompact_takeover_lock);
	if (!pcompact_takeover_active)
		goto out;
	pcompact_takeover_active = false;
	now = pcompact_sysctl_read();
	if (now == 0) {
		if (pcompact_sysctl_write(pcompact_takeover_saved))
			pr_warn("takeover: cannot restore vm.compaction_proactiveness to %d\n",
				pcompact_takeover_saved);
		else
			pr_info("takeover: vm.compaction_proactiveness restored to %d\n",
				pcompact_takeover_saved);
	} else {
		pr_info("takeover: vm.compaction_proactiveness is %d, set while pcompact was loaded; leaving it\n",
			now);
	}
out:
	mutex_unlock(&pcompact_takeover_lock);
}

/**
 * pcompact_takeover_check() - notice and report a write to
 * vm.compaction_proactiveness while pcompact holds it.
 *
 * Called from every pcompactd sample; reports each new value once.  The
 * user's value stands: pcompact does not fight an administrator.
 */
void pcompact_takeover_check(void)
{
	int now;

	if (!mutex_trylock(&pcompact_takeover_lock))
		return;
	if (pcompact_takeover_active) {
		now = pcompact_sysctl_read();
		if (now >= 0 && now != pcompact_takeover_last_seen) {
			pcompact_takeover_last_seen = now;
			pcompact_takeover_conflicts++;
			if (now)
				pr_warn("takeover: vm.compaction_proactiveness set to %d while pcompact is loaded: the kernel's proactive compaction now runs beside it\n",
					now);
			else
				pr_info("takeover: vm.compaction_proactiveness back to 0\n");
		}
	}
	mutex_unlock(&pcompact_takeover_lock);
}

/**
 * pcompact_takeover_state() - the takeover state, for sysfs.
 * @active:	whether pcompact holds vm.compaction_proactiveness now.
 * @saved:	the value it will restore, -1 if none.
 * @conflicts:	writes to the sysctl noticed while holding it.
 */
void pcompact_takeover_state(bool *active, int *saved, unsigned long *conflicts)
{
	mutex_lock(&pcompact_takeover_lock);
	*active = pcompact_takeover_active;
	*saved = pcompact_takeover_saved;
	*conflicts = pcompact_takeover_conflicts;
	mutex_unlock(&pcompact_takeover_lock);
}
