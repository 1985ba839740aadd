# SPDX-License-Identifier: GPL-2.0
"""Numbers derived from the raw guest files.

The fragmentation score is the kernel's (mm/compaction.c, mm/vmstat.c),
computed here from /proc/buddyinfo and the zones' present pages with the
same integer arithmetic, so scenarios without pcompact get the same curve
pcompact and kcompactd act on:

  extfrag(zone, order) = (free - suitable << order) * 100 / free   (0 if free = 0)
      free     = sum over orders o of nr_free[o] << o
      suitable = sum over o >= order of nr_free[o] << (o - order)
  zone score = present_zone * extfrag(zone, 9) / (present_node + 1)
  node score = sum of its populated zones' scores
  low = max(100 - proactiveness, 5), high = min(low + 10, 100)
"""

HPAGE_ORDER = 9


def extfrag(counts, order=HPAGE_ORDER):
    """External fragmentation of one zone wrt order, 0..100 (integer)."""
    free = sum(n << o for o, n in enumerate(counts))
    if free == 0:
        return 0
    suitable = sum(n << (o - order) for o, n in enumerate(counts) if o >= order)
    return (free - (suitable << order)) * 100 // free


def free_blocks(counts, order=HPAGE_ORDER):
    """Free blocks of order or more, in units of order-sized blocks."""
    return sum(n << (o - order) for o, n in enumerate(counts) if o >= order)


def node_scores(buddy_rows, present, order=HPAGE_ORDER):
    """{node: score} from buddyinfo rows and {(node, zone): present pages}.

    Zones absent from buddyinfo are unpopulated; they add no score (but
    their present pages, 0, count in the node total as in the kernel).
    """
    node_present = {}
    for (node, _zone), pages in present.items():
        node_present[node] = node_present.get(node, 0) + pages
    scores = {}
    for node, zone, counts in buddy_rows:
        if (node, zone) not in present:
            raise KeyError(f"no present pages for node {node} zone {zone}")
        weighted = present[(node, zone)] * extfrag(counts, order) // (node_present[node] + 1)
        scores[node] = scores.get(node, 0) + weighted
    return scores


def node_free_blocks(buddy_rows, order=HPAGE_ORDER):
    """{node: free blocks of order or more} over the node's zones."""
    out = {}
    for node, _zone, counts in buddy_rows:
        out[node] = out.get(node, 0) + free_blocks(counts, order)
    return out


def wmarks(proactiveness):
    """The kernel's (low, high) score thresholds for a proactiveness."""
    low = max(100 - proactiveness, 5)
    return low, min(low + 10, 100)


def score_rows(samples, present, t0, thresholds=None):
    """Rows for scores.csv: one per sample and node.

    samples:    parse.sampler() output; t0: the time the rows count from
    thresholds: (low, high) to record with every row, or None
    """
    low, high = thresholds if thresholds else (None, None)
    rows = []
    for t, buddy, pc_scores in samples:
        scores = node_scores(buddy, present)
        blocks = node_free_blocks(buddy)
        for node in sorted(scores):
            rows.append({"t_s": round(t - t0, 3), "node": node, "score": scores[node],
                         "free_order9_blocks": blocks.get(node, 0),
                         "pcompact_score": pc_scores.get(node),
                         "wmark_low": low, "wmark_high": high})
    return rows


def sample_rate_hz(samples):
    """Achieved sampling rate, samples per second (None below 2 samples)."""
    if len(samples) < 2 or samples[-1][0] <= samples[0][0]:
        return None
    return (len(samples) - 1) / (samples[-1][0] - samples[0][0])


def delta(before, after):
    """after - before for every counter in after (counters new in after
    count from 0).  A counter that went down is reported as is: vmstat
    counters only grow, so a negative delta shows a bad pair of files."""
    return {k: v - before.get(k, 0) for k, v in after.items()}


def sum_prefix(counters, prefix):
    """Sum of the counters whose name starts with prefix."""
    return sum(v for k, v in counters.items() if k.startswith(prefix))


def ratio(num, den, scale=1.0):
    """num / den * scale, or None when den is 0 (undefined, not 0 or 100)."""
    if not den:
        return None
    return num / den * scale


def whole_cost_per_block(compactor_ms, stream_s, created):
    """Compactor CPU + the stream's time, in ms, per block created, or
    None when a part is missing or no block was created.

    The compactor's CPU alone charges a mechanism for the blocks it made
    but not for those the stream's direct compaction made, which count as
    created too: a mechanism that leaves more to direct compaction looks
    cheaper.  The stream's time is where direct compaction (and reclaim)
    ran, so the sum is the blocks' whole cost as far as the allocating task
    waited for it."""
    if compactor_ms is None or stream_s is None or not created or created < 0:
        return None
    return (compactor_ms + stream_s * 1000) / created


def compaction_cost_per_block(compactor_ms, direct_ms, created):
    """Compactor CPU + the direct compaction's time, in ms, per block
    created, or None when a part is missing or no block was created.

    Of the stream's time (whole_cost_per_block()) this keeps only what the
    allocating task spent in compaction: every block created is charged
    with the compaction that made it, whichever thread ran it, and not with
    the allocations themselves (their zeroing, the page tables)."""
    if compactor_ms is None or direct_ms is None or not created or created < 0:
        return None
    return (compactor_ms + direct_ms) / created


def compactor_cpu_ms(cpu_by_thread):
    """kcompactd's and pcompactd's CPU in ms together, from a thread -> ms
    mapping (a missing thread counts 0)."""
    return (cpu_by_thread.get("kcompactd") or 0) + (cpu_by_thread.get("pcompactd") or 0)


def phase_cost_per_block(compactor_ms, head_start_ms, blocks_before, blocks_at_start, count):
    """Compactor CPU in ms per block created in each phase of a drain:
    (head start, stream), each None where a part is missing or the phase
    created no block.

    The head start, from the snapshot just before switch-on to the
    stream's first allocation, made the blocks free at the stream's start
    beyond those free at that snapshot (blocks_at_start counts the free and
    the per-cpu held ones; blocks_before only the free ones, so blocks held
    at the snapshot count for the head start); the stream, with the CPU
    from its start on, made the rest of the count it obtained.  As for
    compactor CPU per block created, which the two decompose, blocks left
    free when the stream ends count for neither.  The two phases differ: in
    the head start a compactor makes the stock alone; in the stream the
    allocating task's direct compaction makes blocks too, which cost the
    compactor nothing."""
    if compactor_ms is None or head_start_ms is None or blocks_before is None \
            or blocks_at_start is None:
        return None, None
    head_blocks = blocks_at_start - blocks_before
    head = head_start_ms / head_blocks if head_blocks > 0 else None
    stream = None
    if count is not None and count - blocks_at_start > 0:
        stream = (compactor_ms - head_start_ms) / (count - blocks_at_start)
    return head, stream


def head_start_blocks(khugehog):
    """The blocks a drain's head start created (phase_cost_per_block()),
    from its summary's khugehog part: the free and held blocks at the
    stream's start minus the free ones at switch-on; None where one is
    missing."""
    at_start, before = blocks_at_stream_start(khugehog), khugehog.get("free_order9_blocks_before")
    if at_start is None or before is None:
        return None
    return at_start - before


def blocks_at_stream_start(khugehog):
    """The free and per-cpu held blocks at a drain's stream start, from its
    summary's khugehog part; None where one is missing."""
    whole, held = khugehog.get("whole_blocks_at_start"), khugehog.get("held_blocks_at_start")
    return None if whole is None or held is None else whole + held


def drain_phase_costs(khugehog):
    """phase_cost_per_block() of one run, from its summary's khugehog part
    (the compactors' CPU, head-start CPU by thread, free blocks at
    switch-on, free and held blocks at the stream's start, the count);
    (None, None) for runs without them."""
    head_cpu = khugehog.get("head_start_cpu_ms") or {}
    return phase_cost_per_block(
        khugehog.get("compactor_cpu_ms"),
        compactor_cpu_ms(head_cpu) if head_cpu else None,
        khugehog.get("free_order9_blocks_before"), blocks_at_stream_start(khugehog),
        khugehog.get("count"))


# The /proc/vmstat deltas every summary carries (the list).
VMSTAT_KEYS = [
    "compact_stall", "compact_success", "compact_fail",
    "compact_migrate_scanned", "compact_free_scanned", "compact_isolated",
    "compact_daemon_wake", "compact_daemon_migrate_scanned", "compact_daemon_free_scanned",
    "pgmigrate_success", "pgmigrate_fail",
    "thp_fault_alloc", "thp_fault_fallback",
    "pgscan_kswapd", "pgscan_direct", "pgsteal_kswapd", "pgsteal_direct",
]


def vmstat_summary(d):
    """The selected deltas plus the summed families (allocstall, pgsteal)."""
    out = {k: d.get(k, 0) for k in VMSTAT_KEYS}
    out["allocstall"] = sum_prefix(d, "allocstall_")
    out["pgscan"] = sum_prefix(d, "pgscan_")
    out["pgsteal"] = sum_prefix(d, "pgsteal_")
    return out


def derived(d, hugepages=None):
    """Derived metrics from a vmstat delta (mmtests definitions).

    compaction_success_pct  compact_success / compact_stall
    thp_fault_success_pct   thp_fault_alloc / (thp_fault_alloc + thp_fault_fallback)
    reclaim_efficiency_pct  pages stolen / pages scanned (kswapd + direct)
    compact_scan_efficiency_pct  migrate scanned / free scanned
    migrated_per_hugepage   pgmigrate_success / hugepages obtained
    Undefined ratios (nothing to divide by) are None, not 0 or 100.
    """
    steal = d.get("pgsteal_kswapd", 0) + d.get("pgsteal_direct", 0)
    scan = d.get("pgscan_kswapd", 0) + d.get("pgscan_direct", 0)
    thp_alloc = d.get("thp_fault_alloc", 0)
    return {
        "compaction_success_pct": ratio(d.get("compact_success", 0),
                                        d.get("compact_stall", 0), 100),
        "thp_fault_success_pct": ratio(thp_alloc, thp_alloc + d.get("thp_fault_fallback", 0),
                                       100),
        "reclaim_efficiency_pct": ratio(steal, scan, 100),
        "compact_scan_efficiency_pct": ratio(d.get("compact_migrate_scanned", 0),
                                             d.get("compact_free_scanned", 0), 100),
        "migrated_per_hugepage": ratio(d.get("pgmigrate_success", 0), hugepages)
        if hugepages is not None else None,
    }


def kthread_cpu_ms(before, after, prefix):
    """CPU time (ms) the threads named prefix* used between two snapshots.

    Uses schedstat's run time (ns); threads that appeared in between (the
    pcompactd threads start at insmod) count from 0.
    """
    total = 0
    for comm, now in after.items():
        if not comm.startswith(prefix):
            continue
        then = before.get(comm)
        start = then["run_ns"] if then and then["pid"] == now["pid"] else 0
        total += now["run_ns"] - start
    return total / 1e6


def percentile(sorted_values, pct):
    """Nearest-rank percentile, as khugehog computes it (stats.c):
    sorted[r - 1] with r = ceil(pct * n / 100), 1 <= r <= n."""
    n = len(sorted_values)
    if n == 0:
        return None
    # Integer arithmetic in basis points, so 99.9 is exact.
    bp = round(pct * 100)
    rank = -(-bp * n // 10000)
    rank = min(max(rank, 1), n)
    return sorted_values[rank - 1]


PERCENTILES = [5, 10, 25, 30, 40, 50, 60, 75, 80, 90, 95, 99, 99.9]

# How many of a burst's slowest attempts the report shows: in a burst of
# about 170 allocations its p99 is the second slowest.
SLOWEST_SHOWN = 3


def attempts_tail(latencies_us, failures=0):
    """p99 and the SLOWEST_SHOWN slowest of a series of attempts, a failed
    one counted as slower than any (inf): {"p99_attempts_us",
    "slowest1_us", ...}; None for each that the series is too short for."""
    attempts = sorted(latencies_us) + [float("inf")] * failures
    out = {"p99_attempts_us": percentile(attempts, 99)}
    for rank in range(1, SLOWEST_SHOWN + 1):
        out[f"slowest{rank}_us"] = attempts[-rank] if len(attempts) >= rank else None
    return out


def latency_stats_us(latencies_ns):
    """min, percentiles, max, mean, stddev (population) in microseconds."""
    if not latencies_ns:
        return {}
    values = sorted(latencies_ns)
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / n
    out = {"count": n, "min_us": values[0] / 1000, "max_us": values[-1] / 1000,
           "mean_us": mean / 1000, "stddev_us": var ** 0.5 / 1000}
    for p in PERCENTILES:
        out[f"p{p:g}_us"] = percentile(values, p) / 1000
    return out


def relative_change(base, new, lower_is_better):
    """Relative change in percent, mmtests' sign convention: positive means
    better.  lower_is_better: (base - new) / base; else (new - base) / base.
    None when base is 0 and new is not (undefined); 0.0 when both are 0."""
    if base is None or new is None:
        return None
    if base == 0:
        return 0.0 if new == 0 else None
    change = (new - base) / abs(base) * 100
    return -change if lower_is_better else change
