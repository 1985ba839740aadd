// SPDX-License-Identifier: GPL-2.0
/*
 * pcompact core: module lifetime and the per-node pcompactd threads.
 *
 * One kthread per NUMA node with memory, named pcompactd<N> like the
 * kernel's kcompactd<N>, bound to the node's CPUs and freezable.
 */
#define pr_fmt(fmt) "pcompact: " fmt

#include <linux/cpumask.h>
#include <linux/freezer.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/topology.h>
#include <linux/wait.h>

#include "compat.h"
#include "pcompact.h"

/**
 * struct pcompact_node - the state of one node's pcompactd.
 * @nid:	the NUMA node this thread manages.
 * @task:	the pcompactd<N> kthread.
 * @wait:	where the thread sleeps between samples.
 * @kick:	set by pcompact_wake_all() to end the current sleep early.
 */
struct pcompact_node {
	int nid;
	struct task_struct *task;
	wait_queue_head_t wait;
	bool kick;
};

/* Protects pcompact_nodes[] against concurrent start/stop. */
static DEFINE_MUTEX(pcompact_nodes_lock);
static struct pcompact_node *pcompact_nodes[MAX_NUMNODES];

static int pcompactd(void *data)
{
	struct pcompact_node *pn = data;

	set_freezable();
	while (!kthread_should_stop()) {
		long timeout = msecs_to_jiffies(READ_ONCE(pcompact_interval_ms));

		wait_event_freezable_timeout(pn->wait,
					     kthread_should_stop() ||
					     READ_ONCE(pn->kick), timeout);
		WRITE_ONCE(pn->kick, false);
	}
	return 0;
}

/**
 * pcompact_start_node() - start pcompactd for one node.
 * @nid: a node with memory.
 *
 * Does nothing when the node's thread already runs.
 *
 * Return: 0 on success, a negative errno when the thread cannot be created.
 */
int pcompact_start_node(int nid)
{
	const struct cpumask *cpus = cpumask_of_node(nid);
	struct pcompact_node *pn;
	int err = 0;

	mutex_lock(&pcompact_nodes_lock);
	if (pcompact_nodes[nid])
		goto out_unlock;

	pn = kzalloc(sizeof(*pn), GFP_KERNEL);
	if (!pn) {
		err = -ENOMEM;
		goto out_unlock;
	}
	pn->nid = nid;
	init_waitqueue_head(&pn->wait);
	pn->task = kthread_create_on_node(pcompactd, pn, nid, "pcompactd%d", nid);
	if (IS_ERR(pn->task)) {
		err = PTR_ERR(pn->task);
		pr_err("cannot create pcompactd%d: %d\n", nid, err);
		kfree(pn);
		goto out_unlock;
	}
	/* A memory-only node has no CPUs of its own: leave it unbound. */
	if (cpumask_intersects(cpus, cpu_online_mask))
		set_cpus_allowed_ptr(pn->task, cpus);
	pcompact_nodes[nid] = pn;
	wake_up_process(pn->task);
out_unlock:
	mutex_unlock(&pcompact_nodes_lock);
	return err;
}

/**
 * pcompact_stop_node() - stop pcompactd for one node and wait for it to exit.
 * @nid: the node.
 */
void pcompact_stop_node(int nid)
{
	struct pcompact_node *pn;

	mutex_lock(&pcompact_nodes_lock);
	pn = pcompact_nodes[nid];
	WRITE_ONCE(pcompact_nodes[nid], NULL);
	mutex_unlock(&pcompact_nodes_lock);
	if (!pn)
		return;
	kthread_stop(pn->task);
	kfree(pn);
}

/**
 * pcompact_wake_all() - end every pcompactd's current sleep, so a changed
 * parameter takes effect now rather than after the old interval.
 */
void pcompact_wake_all(void)
{
	int nid;

	mutex_lock(&pcompact_nodes_lock);
	for_each_node(nid) {
		struct pcompact_node *pn = pcompact_nodes[nid];

		if (pn) {
			WRITE_ONCE(pn->kick, true);
			wake_up_interruptible(&pn->wait);
		}
	}
	mutex_unlock(&pcompact_nodes_lock);
}

static void pcompact_stop_all(void)
{
	int nid;

	for_each_node(nid)
		pcompact_stop_node(nid);
}

static int __init pcompact_init(void)
{
	int nid, err;

	for_each_node_state(nid, N_MEMORY) {
		err = pcompact_start_node(nid);
		if (err) {
			pcompact_stop_all();
			return err;
		}
	}
	pr_info("version %s loaded, proactiveness %u\n", PCOMPACT_VERSION,
		READ_ONCE(pcompact_proactiveness));
	return 0;
}

static void __exit pcompact_exit(void)
{
	pcompact_stop_all();
	pr_info("unloaded\n");
}

module_init(pcompact_init);
module_exit(pcompact_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Proactive memory compaction for stock kernels");
MODULE_VERSION(PCOMPACT_VERSION);
