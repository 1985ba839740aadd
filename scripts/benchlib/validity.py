# SPDX-License-Identifier: GPL-2.0
"""The checks that void a run: a run that fails one measured something
other than its scenario says, so it is recorded, shown, retried (a bounded
number of times) and left out of the statistics.

  manual_check      the manual compaction left >= 90% of free memory in
                    free order-9 blocks before the stream
  head_start_check  the mechanism switched on ran before the stream: a
                    node above its high threshold gained a free order-9
                    block, or its thread did compaction work (what it then
                    freed or deferred is its outcome), and kswapd did not
                    reclaim while a node gained nothing (the unmovable
                    case: its thread tried)
  layout_check      every node was fragmented (the same per-node layout
                    in every scenario: each node fragmented explicitly)
  host_check        no other QEMU on the host (unless overridden, flagged)

Each returns a list of reasons (empty: the run is valid).
"""

from . import metrics

MANUAL_MIN_SHARE_PCT = 90.0
# A node counts as fragmented when its score is at least this (the
# default frag pattern gives 94-95 on a node it filled).
LAYOUT_MIN_SCORE = 80
# A compactor thread that ran less than this (ms) in the head start did no
# compaction: kcompactd's and pcompactd's score checks alone take ~10 ms in
# a whole run (6.1, kcompactd1 on an idle node: 10 ms in 76 s).
HEAD_START_ACT_MS = 20.0
# kswapd running this long in the head start means memory pressure: both
# mechanisms back off from it.
HEAD_START_KSWAPD_MS = 20.0


def free_pages(buddy_rows):
    return sum(n << o for _, _, counts in buddy_rows for o, n in enumerate(counts))


def free_in_blocks_pct(buddy_rows, order=metrics.HPAGE_ORDER):
    """Share (%) of the free pages that sit in free blocks of order or more;
    None when nothing is free."""
    total = free_pages(buddy_rows)
    if not total:
        return None
    in_blocks = sum(n << o for _, _, counts in buddy_rows
                    for o, n in enumerate(counts) if o >= order)
    return 100.0 * in_blocks / total


def manual_summary(record):
    """What one compact_memory write did, from parse.compact_record()."""
    before, after = record["before"], record["after"]
    # The state the stream meets: after the per-cpu lists were drained
    # again, when the guest recorded it.
    final = record.get("buddy_drained") or record["buddy_after"]
    out = {
        "duration_s": record["duration_s"], "rc": record["rc"],
        "free_blocks_before": sum(metrics.node_free_blocks(record["buddy_before"]).values()),
        "free_blocks_after": sum(metrics.node_free_blocks(final).values()),
        "free_in_blocks_pct_before": free_in_blocks_pct(record["buddy_before"]),
        "free_in_blocks_pct_after": free_in_blocks_pct(final),
        "free_in_blocks_pct_undrained": free_in_blocks_pct(record["buddy_after"]),
        "migrated": after.get("pgmigrate_success", 0) - before.get("pgmigrate_success", 0),
        "migrate_scanned": after.get("compact_migrate_scanned", 0) -
        before.get("compact_migrate_scanned", 0),
        "free_scanned": after.get("compact_free_scanned", 0) -
        before.get("compact_free_scanned", 0),
    }
    for key in ("pcp_before", "pcp_after_drain", "drain_s", "drained_pcp"):
        if key in record:
            out[key] = record[key]
    if "trace_migratepages" in record:
        out["trace_migratepages"] = record["trace_migratepages"]
    if record.get("trace"):
        out["trace_status"] = [w.split("=", 1)[1] for line in record["trace"]
                               for w in line.split() if w.startswith("status=")]
    return out


def manual_combine(writes):
    """One summary of the compact_memory writes the manual scenario made
    (the guest writes again while too little is compacted): totals, the
    state before the first and after the last, and every write."""
    first, last = writes[0], writes[-1]
    return {
        "writes": len(writes),
        "duration_s": sum(w["duration_s"] for w in writes),
        "first_duration_s": first["duration_s"],
        "rc": next((w["rc"] for w in writes if w["rc"] != 0), 0),
        "free_blocks_before": first["free_blocks_before"],
        "free_blocks_after": last["free_blocks_after"],
        "free_in_blocks_pct_before": first["free_in_blocks_pct_before"],
        "free_in_blocks_pct_after": last["free_in_blocks_pct_after"],
        "migrated": sum(w["migrated"] for w in writes),
        "each": writes,
    }


def manual_check(summary, min_share=MANUAL_MIN_SHARE_PCT):
    """Reasons the manual compaction does not count as the floor."""
    if summary is None:
        return ["manual: no record of the compact_memory write"]
    reasons = []
    if summary["rc"] != 0:
        reasons.append(f"manual: the compact_memory write failed (exit {summary['rc']})")
    share = summary["free_in_blocks_pct_after"]
    if share is None or share < min_share:
        reasons.append(
            f"manual: {summary.get('writes', 1)} compact_memory write(s) took "
            f"{summary['duration_s']:.2f} s and left "
            f"{'no free memory' if share is None else f'{share:.1f}%'} of free memory in "
            f"free order-9 blocks (< {min_share:g}%; free blocks "
            f"{summary['free_blocks_before']} -> {summary['free_blocks_after']}, "
            f"{summary['migrated']} pages migrated)")
    return reasons


def head_start(rows, t_on, t_alloc):
    """Per node, from scores.csv rows (t_s relative to the stream): score and
    free blocks at switch-on (the last sample at or before t_on, else the
    first after) and at the stream (the last sample at or before t_alloc).
    -> {node: {score_on, blocks_on, score_alloc, blocks_alloc}}"""
    out = {}
    for node in sorted({r["node"] for r in rows}):
        mine = sorted((r for r in rows if r["node"] == node), key=lambda r: r["t_s"])
        before_on = [r for r in mine if r["t_s"] <= t_on]
        on = before_on[-1] if before_on else (mine[0] if mine else None)
        before_alloc = [r for r in mine if r["t_s"] <= t_alloc]
        at = before_alloc[-1] if before_alloc else None
        if on is None or at is None:
            continue
        out[node] = {"score_on": on["score"], "blocks_on": on["free_order9_blocks"],
                     "score_alloc": at["score"], "blocks_alloc": at["free_order9_blocks"],
                     "best_blocks": max(r["free_order9_blocks"] for r in mine
                                        if t_on <= r["t_s"] <= t_alloc)
                     if any(t_on <= r["t_s"] <= t_alloc for r in mine) else on[
                         "free_order9_blocks"]}
    return out


# Which head-start rule a run was judged by, recorded in run.json: 1 voided
# every node above high that gained no block; 2 (from 2026-11-23) only
# under reclaim or when the mechanism never ran; 3 (from 2026-11-29) no
# longer takes a thread that ran under HEAD_START_ACT_MS but compacted for
# one that never ran.  Reports describe the rule their runs were judged by
# (HEAD_START_RULE_TEXT).
HEAD_START_RULE = 3
HEAD_START_RULE_TEXT = {
    1: "a node above its mechanism's high threshold at switch-on gained no free order-9 "
       "block before the stream (the mechanism did not act in its head start)",
    2: "a node above its mechanism's high threshold at switch-on gained no free order-9 "
       "block before the stream while kswapd ran (memory pressure) or while no node gained "
       f"one and the mechanism's thread ran under {HEAD_START_ACT_MS:g} ms (it never ran: a "
       "node it deferred or compacted in vain counts as its outcome)",
    3: "a node above its mechanism's high threshold at switch-on gained no free order-9 "
       "block before the stream while kswapd ran (memory pressure) or while no node gained "
       f"one and the mechanism's thread ran under {HEAD_START_ACT_MS:g} ms without "
       "compacting (kcompactd scanned no page, pcompactd began no round: it never ran; a "
       "node it deferred or compacted in vain, however briefly, counts as its outcome)",
}


# The thread through which each proactive mechanism acts.
COMPACTOR = {"sysctl": "kcompactd", "module": "pcompactd"}


def idle_nodes(nodes, high):
    """The nodes (head_start() output, sorted) above high at switch-on that
    gained no free order-9 block before the stream."""
    return [node for node, n in sorted(nodes.items())
            if n["score_on"] > high and n["best_blocks"] <= n["blocks_on"]]


def head_start_check(nodes, high, mechanism, cpu_ms=None, movable=True, tried=None):
    """Reasons a proactive mechanism did not act in its head start.

    nodes: head_start() output; high: the mechanism's high threshold (None:
    not a proactive mechanism, nothing to check); cpu_ms: the kernel
    threads' CPU in the head start (kthread_cpu_ms by name).  When a node
    above high at switch-on gained no free order-9 block before the stream,
    the run is void if kswapd ran (memory pressure, not the layout of the
    scenario) or if no node above high gained one and the mechanism's
    thread ran under HEAD_START_ACT_MS (it never ran); otherwise the node is
    the mechanism's outcome.  Without a CPU record every such node voids.
    movable=False (the unmovable case, where no block can be freed and
    gaining none is the expected outcome): the mechanism's thread must have
    spent CPU in the window instead, as trying is what that case observes.
    tried: how much each thread compacted in the window (kcompactd: pages
    its compaction scanned; pcompactd: rounds it began; None: not
    recorded).  A thread that compacted ran, however little CPU it used:
    the kernel's compaction of a zone can end within milliseconds, its
    scanners met at the zone's start, on a folio it finds no free page of
    that order for, and kcompactd then defers the node; that is its outcome
    on that layout, not a mechanism that never ran.
    """
    if high is None or mechanism not in COMPACTOR:
        return []
    if not nodes:
        return ["head start: no score samples between switch-on and the stream"]
    above = [node for node, n in sorted(nodes.items()) if n["score_on"] > high]
    thread = COMPACTOR[mechanism]
    if not movable:
        if not above:
            return []
        if cpu_ms is None or thread not in cpu_ms:
            return [f"head start: nodes {above} above high {high} and no CPU record of "
                    f"{thread}: whether the mechanism tried is unknown"]
        if cpu_ms[thread] <= 0:
            return [f"head start: nodes {above} above high {high} and {thread} used no CPU "
                    f"in the window: the mechanism did not try"]
        return []
    stalled = idle_nodes(nodes, high)
    if not stalled:
        return []
    # Why not: the CPU the compactors and kswapd used in the head start
    # (the kernel's proactive compaction backs off while kswapd runs).
    why = ""
    if cpu_ms:
        why = " (head start CPU: " + ", ".join(
            f"{k} {cpu_ms[k]:.0f} ms" for k in ("kcompactd", "pcompactd", "kswapd")
            if k in cpu_ms) + ")"
    if cpu_ms is not None and thread in cpu_ms:
        # What the mechanism decides is its outcome: a node it deferred, or
        # compacted without freeing a block, counts against it.  Void are
        # a head start under reclaim (what it measured is the back-off) and
        # a mechanism that never ran at all.
        if cpu_ms.get("kswapd", 0) >= HEAD_START_KSWAPD_MS:
            return [f"head start: kswapd reclaimed before the stream and node(s) {stalled} "
                    f"above high {high} gained no free order-9 block: the layout was under "
                    f"memory pressure" + why]
        if stalled == above and cpu_ms[thread] < HEAD_START_ACT_MS and \
                not (tried or {}).get(thread):
            return [f"head start: node(s) {stalled} above high {high} gained no free order-9 "
                    f"block and {thread} ran under {HEAD_START_ACT_MS} ms: the mechanism did "
                    f"not act" + why]
        return []
    # No CPU record: each stalled node is void, as whether its mechanism
    # ran cannot be told.
    return [f"head start: node {node} was at score {nodes[node]['score_on']} (> high {high}) "
            f"at switch-on and its free order-9 blocks never rose above "
            f"{nodes[node]['blocks_on']} before the stream (score then "
            f"{nodes[node]['score_alloc']}): the mechanism did not act" + why
            for node in stalled]


# A compaction whose scanners met this close to its zone's start (pageblocks)
# stopped there: a whole-zone call scans the zone from both ends.
WALL_BLOCKS = 32


def stopped_at_zone_start(end, pageblock_pages=512, wall_blocks=WALL_BLOCKS):
    """Whether one compaction (compaction_ends() item) ended with its
    scanners met within wall_blocks pageblocks of its zone's start: the free
    scanner came down the whole zone without finding targets for what its
    migrate scanner took (with frag's stride pattern, its samples can land
    only on kept pages: README, "The wall and frag's stride pattern"), so the
    call compacted nothing past the zone's first blocks.  Met as the kernel's
    compact_scanners_met() has it: the free scanner's pageblock at or below
    the migrate scanner's, which may be some pages into its block."""
    met = end["free_pfn"] // pageblock_pages <= end["migrate_pfn"] // pageblock_pages
    return (end["status"] == "complete" and met
            and end["migrate_pfn"] - end["zone_start"] < wall_blocks * pageblock_pages
            and end["zone_end"] - end["zone_start"] > 2 * wall_blocks * pageblock_pages)


def layout_check(nodes, min_score=LAYOUT_MIN_SCORE):
    """Reasons the fragmentation is not the layout every scenario must share:
    every node at or above min_score before the mechanism was switched on."""
    if not nodes:
        return ["layout: no score samples before switch-on"]
    low = {node: n["score_on"] for node, n in nodes.items() if n["score_on"] < min_score}
    if not low:
        return []
    return ["layout: node(s) " + ", ".join(f"{k} at score {v}" for k, v in sorted(low.items()))
            + f" below {min_score} before switch-on: not every node was fragmented"]


def host_check(other_vms, allowed):
    """Reasons from the host: other QEMU processes take CPU from the guest."""
    if other_vms and not allowed:
        return [f"host: {other_vms} other QEMU process(es) running"]
    return []
