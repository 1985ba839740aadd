// SPDX-License-Identifier: GPL-2.0
/*
 * pcompact takeover: holds vm.compaction_proactiveness at 0 while loaded so
 * the kernel's own proactive compaction and pcompact do not both compact the
 * same nodes, and gives the old value back afterwards.
 *
 * The sysctl is written through its /proc file, the interface every kernel
 * keeps stable, rather than through the (in 6.12 static) variable.  The file
 * is opened by a kworker, not by the task that loads or unloads pcompact or
 * writes the takeover parameter: that task may live in a chroot or a mount
 * namespace where /proc is missing (-ENOENT) or read-only (-EROFS), while
 * kernel threads resolve paths against the root and mounts they share with
 * init (kthreadd and init are started with CLONE_FS in init/main.c
 * rest_init(), and kthreadd creates every kthread with CLONE_FS).
 *
 * A failed read is an error, never a value: the takeover is let go only when
 * the sysctl could be read and someone set it, or when the saved value was
 * written back.  Until then pcompact keeps holding it and keeps the saved
 * value, and a later attempt (takeover=N, unload) tries again.
 */
#define pr_fmt(fmt) "pcompact: " fmt

#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "pcompact.h"

#define PCOMPACT_SYSCTL_PATH	"/proc/sys/vm/compaction_proactiveness"

/* Protects the takeover state below. */
static DEFINE_MUTEX(pcompact_takeover_lock);
static bool pcompact_takeover_active;
static int pcompact_takeover_saved = -1;
static int pcompact_takeover_last_seen = -1;
static int pcompact_takeover_last_err;
static unsigned long pcompact_takeover_conflicts;

static int __pcompact_sysctl_read(void)
{
	struct file *file;
	char buf[16] = "";
	loff_t pos = 0;
	ssize_t len;
	int value;

	file = pcompact_filp_open(PCOMPACT_SYSCTL_PATH, O_RDONLY);
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

static int __pcompact_sysctl_write(int value)
{
	struct file *file;
	char buf[16];
	loff_t pos = 0;
	ssize_t len;
	int n;

	file = pcompact_filp_open(PCOMPACT_SYSCTL_PATH, O_WRONLY);
	if (IS_ERR(file))
		return PTR_ERR(file);
	n = scnprintf(buf, sizeof(buf), "%d\n", value);
	len = kernel_write(file, buf, n, &pos);
	filp_close(file, NULL);
	return len == n ? 0 : (len < 0 ? len : -EIO);
}

/* One read or write of the sysctl, run by a kworker. */
struct pcompact_sysctl_io {
	struct work_struct work;
	bool write;
	int value;
	int ret;
};

static void pcompact_sysctl_io_fn(struct work_struct *work)
{
	struct pcompact_sysctl_io *io = container_of(work, struct pcompact_sysctl_io, work);

	io->ret = io->write ? __pcompact_sysctl_write(io->value) : __pcompact_sysctl_read();
}

static int pcompact_sysctl_io(bool write, int value)
{
	struct pcompact_sysctl_io io = { .write = write, .value = value };

	INIT_WORK_ONSTACK(&io.work, pcompact_sysctl_io_fn);
	schedule_work(&io.work);
	flush_work(&io.work);
	destroy_work_on_stack(&io.work);
	return io.ret;
}

/* The sysctl's value (>= 0), or a negative errno. */
static int pcompact_sysctl_read(void)
{
	return pcompact_sysctl_io(false, 0);
}

/* 0, or a negative errno. */
static int pcompact_sysctl_write(int value)
{
	return pcompact_sysctl_io(true, value);
}

/**
 * pcompact_takeover_start() - set vm.compaction_proactiveness to 0 and
 * remember the value it had.
 *
 * On failure the error is logged and nothing changes: pcompact then runs
 * beside the kernel's own proactive compaction.
 *
 * Return: 0, or the negative errno of the read or write that failed.
 */
int pcompact_takeover_start(void)
{
	int old, err = 0;

	mutex_lock(&pcompact_takeover_lock);
	if (pcompact_takeover_active)
		goto out;
	old = pcompact_sysctl_read();
	if (old < 0) {
		err = old;
		pr_err("takeover: cannot read %s (error %d); the kernel's proactive compaction stays as it is\n",
		       PCOMPACT_SYSCTL_PATH, err);
		goto out;
	}
	err = old ? pcompact_sysctl_write(0) : 0;
	if (err) {
		pr_err("takeover: cannot write 0 to %s (error %d); the kernel's proactive compaction stays as it is\n",
		       PCOMPACT_SYSCTL_PATH, err);
		goto out;
	}
	pcompact_takeover_saved = old;
	pcompact_takeover_last_seen = 0;
	pcompact_takeover_last_err = 0;
	pcompact_takeover_active = true;
	pr_info("takeover: vm.compaction_proactiveness %d -> 0 while pcompact is loaded\n", old);
out:
	mutex_unlock(&pcompact_takeover_lock);
	return err;
}

/**
 * pcompact_takeover_stop() - give vm.compaction_proactiveness its old value
 * back, unless someone has set it since: their value wins.
 *
 * Whether someone set it is decided by reading it now or, when that read
 * fails, by the last value pcompactd saw (pcompact_takeover_check()).
 * When the old value cannot be written back, the error is logged and
 * pcompact keeps holding the sysctl, with the saved value, for the next
 * attempt.
 *
 * Return: 0 when pcompact no longer holds the sysctl, else the negative
 * errno of the write that failed.
 */
int pcompact_takeover_stop(void)
{
	int now, err = 0;

	mutex_lock(&pcompact_takeover_lock);
	if (!pcompact_takeover_active)
		goto out;
	now = pcompact_sysctl_read();
	if (now < 0) {
		pr_err("takeover: cannot read %s (error %d); deciding by the last value seen, %d\n",
		       PCOMPACT_SYSCTL_PATH, now, pcompact_takeover_last_seen);
		now = pcompact_takeover_last_seen;
	}
	if (now) {
		pcompact_takeover_active = false;
		pr_info("takeover: vm.compaction_proactiveness is %d, set while pcompact was loaded; leaving it\n",
			now);
		goto out;
	}
	err = pcompact_sysctl_write(pcompact_takeover_saved);
	if (err) {
		pr_err("takeover: cannot restore vm.compaction_proactiveness to %d (error %d); it stays 0 until takeover=N or unloading pcompact succeeds, or it is set by hand\n",
		       pcompact_takeover_saved, err);
		goto out;
	}
	pcompact_takeover_active = false;
	pr_info("takeover: vm.compaction_proactiveness restored to %d\n",
		pcompact_takeover_saved);
out:
	mutex_unlock(&pcompact_takeover_lock);
	return err;
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
		if (now < 0 && now != pcompact_takeover_last_err)
			pr_err("takeover: cannot read %s (error %d) to watch it\n",
			       PCOMPACT_SYSCTL_PATH, now);
		pcompact_takeover_last_err = min(now, 0);
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
