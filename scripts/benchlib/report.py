# SPDX-License-Identifier: GPL-2.0
"""From a scenario's raw guest files to its results, and the README.

build_scenario()  raw files -> summary dict + result files (CSV, text)
write_scenario()  writes them under results/<release>/<scenario>/
evaluate_targets() the issue's targets, each met or missed, with the why
readme()          results/<release>/README.md
"""

import glob
import json
import math
import os
import re
from typing import NamedTuple

from . import csvio, metrics, parse, runs, scenarios, stats, table, validity


class WorkloadKind(NamedTuple):
    """How the report reads one workload family (see kind())."""
    # Snapshot pairs whose deltas it reports: (label, from, to).
    windows: tuple
    # The event its time axis starts at.
    time_zero: str
    # The event that ends the mechanism's head start (demand begins there;
    # alloc_start where the guest did not record it).
    demand_start: str
    # The kthreads snapshot taken at demand_start.
    demand_snapshot: str
    # The event that ends the window the score summary covers.
    window_end: str
    # Whether a mechanism can undo its fragmentation: the layout and "the
    # mechanism acted" validity checks apply only then.
    movable: bool


_RUN = (("run", "before", "after"),)
KINDS = {
    "khugehog": WorkloadKind(_RUN, "alloc_start", "alloc_start", "start", "alloc_end", True),
    "thp": WorkloadKind(_RUN, "alloc_start", "alloc_start", "start", "alloc_end", True),
    # Unmovable fragmentation: the mechanism is watched from switch-on to
    # observe_end (the "mid" snapshot), then the THP touch.
    "pin": WorkloadKind((("observe", "before", "mid"), ("thp", "mid", "after")),
                        "mech_on", "observe_end", "mid", "observe_end", False),
    "bursts": WorkloadKind(_RUN, "mech_on", "burst1_start", "start", "alloc_end", True),
}
KTHREADS = ("kcompactd", "pcompactd", "kswapd")
# The compactor threads: kcompactd<N> and pcompactd<N> by name prefix.
COMPACTOR_THREADS = ("kcompactd", "pcompactd")
# Manual's first attempts kept in its summary (None for a failure), so that
# bursts of up to this many allocations have a floor over as many.
FIRST_ATTEMPTS_KEPT = 256
PCOMPACT_COUNTERS = ("rounds", "blocks_freed", "pages_migrated", "failed_blocks",
                     "skipped_unmovable", "deferrals", "backoffs_kswapd",
                     "backoffs_contention", "compact_ms", "direct_stalls", "stall_wakes",
                     "reserve_rounds", "engine_fallbacks", "headroom_stops", "pcp_flushes",
                     "pcp_flush_blocks", "quiet_contig_rounds", "stalled_contig_rounds",
                     "backoffs_stall", "fed_stall_rounds", "fallback_contig_rounds",
                     "call_drains", "call_drain_blocks", "call_drain_failures")


class ScenarioError(Exception):
    """The scenario's output cannot be turned into results."""


def _round(value, digits=3):
    if isinstance(value, float):
        return round(value, digits)
    if isinstance(value, dict):
        return {k: _round(v, digits) for k, v in value.items()}
    if isinstance(value, list):
        return [_round(v, digits) for v in value]
    return value


def _need(files, name):
    if name not in files:
        raise ScenarioError(f"the guest sent no {name}")
    return files[name]


def thresholds(scenario):
    """(low, high) score thresholds of a scenario's mechanism, or None."""
    if scenario.mechanism in ("sysctl", "module") and scenario.proactiveness:
        return metrics.wmarks(scenario.proactiveness)
    return None


def pcompact_totals(stats_text):
    """pcompact's counters summed over nodes (None when it was not loaded)."""
    stats = parse.pcompact_stats(stats_text)
    if not stats["nodes"]:
        return None
    out = {}
    for counter in PCOMPACT_COUNTERS:
        values = [n.get(counter) for n in stats["nodes"].values()]
        values = [v for v in values if isinstance(v, (int, float))]
        if values:
            out[counter] = sum(values)
    return out


def window_summary(files, w, first, last, hugepages=None):
    """vmstat deltas, derived metrics, kthread CPU and pcompact counters
    between two snapshots of workload w."""
    before = parse.vmstat(_need(files, f"{w}/vmstat_{first}.txt"))
    after = parse.vmstat(_need(files, f"{w}/vmstat_{last}.txt"))
    d = metrics.delta(before, after)
    k0 = parse.kthreads(_need(files, f"{w}/kthreads_{first}.txt"))
    k1 = parse.kthreads(_need(files, f"{w}/kthreads_{last}.txt"))
    out = {
        "vmstat": metrics.vmstat_summary(d),
        "derived": metrics.derived(d, hugepages),
        "cpu_ms": {name: metrics.kthread_cpu_ms(k0, k1, name) for name in KTHREADS},
    }
    p0 = pcompact_totals(files.get(f"{w}/pcompact_{first}.txt", ""))
    p1 = pcompact_totals(files.get(f"{w}/pcompact_{last}.txt", ""))
    if p1:
        out["pcompact"] = {k: v - (p0 or {}).get(k, 0) for k, v in p1.items()}
    return out, (before, after, d), (k0, k1)


def head_start_tried(files, w, end):
    """How much each compactor thread compacted between the "before"
    snapshot and end: kcompactd, the pages its compaction scanned (vmstat's
    compact_daemon_* counters); pcompactd, the rounds it began.  None
    without both vmstat snapshots."""
    if f"{w}/vmstat_before.txt" not in files or f"{w}/vmstat_{end}.txt" not in files:
        return None
    d = metrics.delta(parse.vmstat(files[f"{w}/vmstat_before.txt"]),
                      parse.vmstat(files[f"{w}/vmstat_{end}.txt"]))
    out = {"kcompactd": d.get("compact_daemon_migrate_scanned", 0) +
           d.get("compact_daemon_free_scanned", 0)}
    p0 = pcompact_totals(files.get(f"{w}/pcompact_before.txt", ""))
    p1 = pcompact_totals(files.get(f"{w}/pcompact_{end}.txt", ""))
    if p1:
        out["pcompactd"] = p1.get("rounds", 0) - (p0 or {}).get("rounds", 0)
    return out


def score_summary(rows, start, end, high):
    """Sampling rate and how the node scores sat during [start, end] (t_s)."""
    during = [r for r in rows if start <= r["t_s"] <= end]
    out = {"samples_during": len({r["t_s"] for r in during})}
    if during:
        out["mean_score"] = sum(r["score"] for r in during) / len(during)
        out["max_score"] = max(r["score"] for r in during)
        if high is not None:
            out["above_high_pct"] = 100 * sum(r["score"] > high for r in during) / len(during)
    return out


def buddy_rows_csv(samples, t0):
    rows = []
    for t, buddy, _ in samples:
        for node, zone, counts in buddy:
            rows.append([round(t - t0, 3), node, zone] + counts)
    return rows


def vmstat_delta_rows(before, after):
    return [[k, before.get(k, 0), after[k], after[k] - before.get(k, 0)] for k in after]


def kthread_rows(k0, k1):
    rows = []
    for comm in sorted(k1):
        now = k1[comm]
        then = k0.get(comm)
        start = then["run_ns"] if then and then["pid"] == now["pid"] else 0
        rows.append([comm, now["pid"], round(start / 1e6, 3), round(now["run_ns"] / 1e6, 3),
                     round((now["run_ns"] - start) / 1e6, 3)])
    return rows


def touch_summary(fields):
    """frag's thp-touch fields plus the times in seconds."""
    out = dict(fields)
    for key in ("elapsed", "user", "sys"):
        if isinstance(fields.get(f"{key}_us"), (int, float)):
            out[f"{key}_s"] = fields[f"{key}_us"] / 1e6
    return out


def free_pages_with_pcp(files, w, snap):
    """Free pages at a snapshot: nr_free_pages plus the per-cpu list pages."""
    free = parse.vmstat(_need(files, f"{w}/vmstat_{snap}.txt")).get("nr_free_pages")
    pcp = parse.key_values(_need(files, f"{w}/pcp_{snap}.txt")).get("pcp_pages")
    if free is None or pcp is None:
        raise ScenarioError(f"{w}: no nr_free_pages or pcp_pages at '{snap}'")
    return free + int(pcp)


def time_to_low(rows, t_on, t_end, low):
    """Seconds from switch-on until every node is at or below low (from
    scores.csv rows); None when that never happened before t_end."""
    times = sorted({r["t_s"] for r in rows if t_on <= r["t_s"] <= t_end})
    for t in times:
        if all(r["score"] <= low for r in rows if r["t_s"] == t):
            return round(t - t_on, 3)
    return None


def scale_summary(summary, mem_total_kb):
    """Cost of scale (issue 11, item 6): pcompact's time per round and the
    kernel's scan counters, per GiB of guest memory (bench-scale runs the
    same at 2, 8 and 16 GiB)."""
    if not mem_total_kb:
        return {}
    gib = mem_total_kb / 2**20
    pc = summary.get("pcompact") or {}
    vm = summary.get("vmstat", {})
    out = {"mem_gib": round(gib, 3)}
    if pc.get("rounds"):
        # compact_ms (the rounds' wall time, the kernel's call included) per
        # round is what the report's table shows; scan_us (the contig
        # engine's choosing of blocks alone) stays in the summary.
        out["pcompact_ms_per_round"] = pc.get("compact_ms", 0) / pc["rounds"]
        out["pcompact_ms_per_round_per_gib"] = out["pcompact_ms_per_round"] / gib
        if "scan_us" in pc:
            out["pcompact_scan_us_per_round_per_gib"] = pc["scan_us"] / pc["rounds"] / gib
    for key in ("compact_daemon_migrate_scanned", "compact_daemon_free_scanned",
                "compact_migrate_scanned", "compact_free_scanned"):
        if key in vm:
            out[f"{key}_per_gib"] = vm[key] / gib
    return out


def traced_migrations(files, w, ev, kthreads_after):
    """With bench --trace-stream, the pages migrated from switch-on to the
    stream's end (parse.stream_migrations()) by the compactor's threads
    (kcompactd*, pcompactd*) and by every other task (the stream's direct
    compaction): {"compactor": pages, "others": pages}, and the compactor's
    from switch-on to the stream's start ("compactor_head_start", where the
    events have the start); None without a trace.  The CPU time is the
    compactor's, so this says whether it costs more per page it moves or
    moves more of the pages."""
    text = files.get(f"{w}/stream_trace.txt")
    if text is None or "mech_on" not in ev or "alloc_end" not in ev:
        return None
    compactors = {v["pid"] for comm, v in kthreads_after.items()
                  if comm.startswith(COMPACTOR_THREADS)}
    mine, every = compactor_pages(text, ev["mech_on"], ev["alloc_end"], compactors)
    out = {"compactor": mine, "others": every - mine}
    if "alloc_start" in ev:
        out["compactor_head_start"] = compactor_pages(text, ev["mech_on"], ev["alloc_start"],
                                                      compactors)[0]
    return out


def compactor_pages(text, start_s, end_s, compactors):
    """The pages migrated in a stream trace between start_s and end_s
    (uptime s; parse.stream_migrations()): (the compactor threads', whose
    pids are compactors, every thread's)."""
    by_pid = parse.stream_migrations(text, start_s, end_s)
    return sum(n for pid, n in by_pid.items() if pid in compactors), sum(by_pid.values())


def traced_direct_compaction(text):
    """With bench --trace-stream, the direct compaction from switch-on to
    the stream's end (parse.direct_compaction_time()): {"ms": time,
    "calls": count}, or None without a trace (text None)."""
    if text is None:
        return None
    seconds, calls = parse.direct_compaction_time(text)
    return {"ms": seconds * 1000, "calls": calls}


def stored_traced_costs(run_dir, summary):
    """A stored run's summary with the khugehog part's traced figures that
    the bench which made it did not compute (runs before it did) filled in
    from the run's stream_trace.txt, as cost_summary() computes them in a
    bench: traced_direct_compaction and the cost per block created it
    gives, and the compactor's head-start migrations (from the run's
    events.csv and kthreads_cpu.csv) with the head start's pages per block
    and CPU per page.  So a report rewritten from older traced runs has
    them.  Runs without a trace are left as they are."""
    khugehog = summary.get("khugehog")
    path = os.path.join(run_dir, "stream_trace.txt")
    traced = khugehog.get("traced_migrated") if isinstance(khugehog, dict) else None
    need_direct = isinstance(khugehog, dict) and "traced_direct_compaction" not in khugehog
    need_head = isinstance(traced, dict) and "compactor_head_start" not in traced
    if not (need_direct or need_head) or not os.path.exists(path):
        return summary
    with open(path) as f:
        text = f.read()
    if need_direct:
        direct = traced_direct_compaction(text)
        khugehog["traced_direct_compaction"] = direct
        khugehog["compaction_with_direct_ms_per_block_created"] = \
            metrics.compaction_cost_per_block(khugehog.get("compactor_cpu_ms"), direct["ms"],
                                              khugehog.get("blocks_created"))
    if need_head:
        ev, compactors = stored_events_and_compactors(run_dir)
        if ev is not None and "mech_on" in ev and "alloc_start" in ev:
            # Only the head start's: the rest is the bench's own count.
            traced["compactor_head_start"] = compactor_pages(
                text, ev["mech_on"], ev["alloc_start"], compactors)[0]
            khugehog.update(head_start_traced_costs(khugehog, traced))
    return summary


def stored_events_and_compactors(run_dir):
    """A stored run's events ({event: uptime s}, from events.csv) and its
    compactor threads' pids (from kthreads_cpu.csv); (None, None) where
    either file is missing.  Raises csvio.CsvError on a malformed one."""
    events, threads = (os.path.join(run_dir, name) for name in ("events.csv", "kthreads_cpu.csv"))
    if not os.path.exists(events) or not os.path.exists(threads):
        return None, None
    ev = {r["event"]: r["uptime_s"]
          for r in csvio.read_table(events, ["event", "uptime_s"], numeric=["uptime_s"])}
    compactors = {r["pid"] for r in csvio.read_table(threads, ["comm", "pid"], numeric=["pid"])
                  if r["comm"].startswith(COMPACTOR_THREADS)}
    return ev, compactors


def head_start_traced_costs(khugehog, traced):
    """The head start's compactor cost split in two: the pages the
    compactor migrated per block created in the head start, and its CPU
    per page it migrated there (us), from a khugehog summary (its head-start
    CPU, blocks at switch-on and at the stream's start) and its
    traced_migrated; {} without the head start's migrations.  Their product
    is the head start's CPU per block created: this says whether a
    compactor's head start costs more because it moves more pages per block
    or because each page costs it more."""
    moved = (traced or {}).get("compactor_head_start")
    if moved is None:
        return {}
    head_cpu = khugehog.get("head_start_cpu_ms")
    blocks = metrics.head_start_blocks(khugehog)
    return {
        "compactor_migrated_per_block_head_start":
            metrics.ratio(moved, blocks) if blocks and blocks > 0 else None,
        "compactor_cpu_us_per_page_head_start":
            metrics.ratio(metrics.compactor_cpu_ms(head_cpu) * 1000, moved)
            if head_cpu and moved else None,
    }


def cost_summary(summary, rows, limits, frag_out, files_env_kb=None):
    """What the blocks cost (issue 11, items 4 and 7): blocks created (the
    hugepages obtained minus the free blocks there were at switch-on),
    pages migrated and compactor CPU per block created, the in-use minimum
    of the fragmentation pattern (frag's kept pages per 2 MB: no block can
    be made with fewer migrations), and the time from switch-on until every
    node was at or below the low threshold."""
    out = {}
    start_blocks = summary.get("free_order9_blocks_before")
    count = summary.get("count")
    created = count - start_blocks if count is not None and start_blocks is not None else None
    out["blocks_created"] = created
    migrated = summary.get("vmstat", {}).get("pgmigrate_success")
    cpu = summary.get("cpu_ms", {})
    compactor = metrics.compactor_cpu_ms(cpu)
    out["compactor_cpu_ms"] = compactor
    out["migrated_per_block_created"] = metrics.ratio(migrated, created) \
        if created and created > 0 and migrated is not None else None
    out["compactor_cpu_ms_per_block_created"] = metrics.ratio(compactor, created) \
        if created and created > 0 else None
    out["compaction_and_stream_ms_per_block_created"] = metrics.whole_cost_per_block(
        compactor, summary.get("alloc_s"), created)
    direct = summary.get("traced_direct_compaction")
    if direct:
        out["compaction_with_direct_ms_per_block_created"] = metrics.compaction_cost_per_block(
            compactor, direct["ms"], created)
    head, stream = metrics.drain_phase_costs({**summary, "compactor_cpu_ms": compactor})
    out["compactor_cpu_ms_per_block_head_start"] = head
    out["compactor_cpu_ms_per_block_stream"] = stream
    traced = summary.get("traced_migrated")
    if traced:
        out["compactor_cpu_us_per_page_migrated"] = metrics.ratio(compactor * 1000,
                                                                  traced["compactor"])
        out["compactor_migrated_share_pct"] = metrics.ratio(
            traced["compactor"], traced["compactor"] + traced["others"], 100)
        out.update(head_start_traced_costs(summary, traced))
    keep = None
    for line in frag_out.splitlines():
        if line.startswith("frag: ready "):
            for word in line.split():
                if word.startswith("keep_pages_per_2m="):
                    keep = int(word.split("=", 1)[1])
    out["inuse_min_pages_per_block"] = keep
    out["scale"] = scale_summary(summary, files_env_kb)
    if limits:
        t_on = summary["events_s"]["mech_on"]
        out["time_to_low_s"] = time_to_low(rows, t_on, summary["events_s"].get("alloc_end", 0.0),
                                           limits[0])
    return out


def kind(w):
    """The workload family: khugehog (and its sweep / gfp variants), thp, pin."""
    if w == "khugehog" or w.startswith(("sweep", "khugehog-")):
        return "khugehog"
    return w


def khh_args_of(w, files):
    """The khugehog.ko parameters a khugehog-kind workload ran with."""
    env = parse.key_values(files.get("env.txt", ""))
    base = env.get("khugehog_args", "")
    if w.startswith("sweep"):
        return f"{base} delay_us={w[len('sweep'):]} max={env.get('sweep_max', '512')}"
    if w.startswith("khugehog-"):
        return " ".join(a for a in base.split() if not a.startswith("gfp=")) + \
            f" gfp={w[len('khugehog-'):]}"
    return base


def build_workload(scenario, files, w, present):
    """One workload's summary and result files (name -> (columns, rows) or text)."""
    prefix = "" if w == "khugehog" else f"{w}_"
    ev = parse.events(_need(files, f"{w}/events.txt"))
    shape = KINDS[kind(w)]
    zero_at = shape.time_zero
    if zero_at not in ev:
        raise ScenarioError(f"{w}: no '{zero_at}' event")
    t0 = ev[zero_at]
    out_files = {}
    summary = {"events_s": {k: round(v - t0, 3) for k, v in ev.items()}}
    if "mech_ready" in ev and "mech_on" in ev:
        summary["mechanism_switch_s"] = ev["mech_ready"] - ev["mech_on"]
    if "alloc_end" in ev and "alloc_start" in ev:
        summary["alloc_s"] = ev["alloc_end"] - ev["alloc_start"]

    hugepages = None
    if kind(w) == "khugehog":
        khh = parse.khugehog_summary(_need(files, f"{w}/summary.txt"))
        hugepages = khh["count"]
        free = free_pages_with_pcp(files, w, "before")
        margin = khh.get("margin_pages", 0)
        allocated = khh.get("allocated_pages", khh["count"] << 9)
        summary.update({
            "count": khh["count"], "failures": khh["failures"],
            "attempts": khh.get("attempts"), "stop_reason": khh.get("stop_reason"),
            "free_pages_before": free, "margin_pages": margin,
            "allocated_gib": khh.get("allocated_gib"),
            # Free memory = free pages plus those waiting on the per-cpu
            # lists when the mechanism was switched on.  khugehog's own
            # share counts NR_FREE_PAGES only, so the per-cpu pages that
            # compaction drains later can push it past 100%.
            "free_share_pct": metrics.ratio(allocated, free, 100),
            "khugehog_free_share_pct": khh.get("free_share_pct"),
            # The share of what khugehog was allowed to take: free memory
            # above its margin (keep_free_mb + the zones' high watermarks).
            "obtainable_share_pct": metrics.ratio(allocated, free - margin, 100),
            "margin_share_pct": metrics.ratio(margin, free, 100),
            "latency": {k: v for k, v in khh.items() if k.endswith("_us")},
        })
        # khugehog's own count before its first allocation (older builds
        # have none): blocks free as one buddy, and blocks whose pages are
        # all free but some wait on per-cpu lists, which a drain of the
        # lists turns into stock at once.
        for key in ("whole_blocks_start", "held_blocks_start"):
            if isinstance(khh.get(key), int):
                at = key.replace("_start", "_at_start")
                summary[at] = khh[key]
                summary[at + "_by_node"] = {
                    k[len(key + "_node"):]: v for k, v in khh.items()
                    if k.startswith(key + "_node") and isinstance(v, int)}
        out_files[prefix + "khugehog_summary.txt"] = files[f"{w}/summary.txt"]
        samples_csv = _need(files, f"{w}/samples.csv")
        if not samples_csv.startswith("index,t_ns,latency_ns,node,zone,success\n"):
            raise ScenarioError(f"{w}/samples.csv has an unexpected header")
        out_files[prefix + "khugehog_samples.csv"] = samples_csv
        out_files[prefix + "map_before.csv"] = _need(files, f"{w}/map_before.csv")
        out_files[prefix + "map_after.csv"] = _need(files, f"{w}/map_after.csv")
        out_files[prefix + "frag_out.txt"] = files.get(f"{w}/frag_out.txt", "")
        if f"{w}/stream_trace.txt" in files and "alloc_end" in ev:
            out_files[prefix + "stream_trace.txt"] = files[f"{w}/stream_trace.txt"]
            traced = parse.stream_trace(files[f"{w}/stream_trace.txt"],
                                        ev["alloc_start"], ev["alloc_end"])
            summary["stream_trace"] = {key: traced.get(key, 0) for key in STREAM_TRACE_ROWS}
        for name in ("block_flags.csv", "block_map.csv", "zone_compaction.csv"):
            if f"{w}/{name}" in files:
                out_files[prefix + name] = files[f"{w}/{name}"]
        attempts = [line.split(",") for line in samples_csv.splitlines()[1:] if line.strip()]
        good = [f for f in attempts if f[5].strip() == "1"]
        ok = [int(f[2]) for f in good]
        summary["over_100us_pct"] = (100.0 * sum(v > 100_000 for v in ok) / len(ok)
                                     if ok else None)
        # Which node served the first allocation (the allocator is pinned
        # to a CPU of node 0, so it should be node 0 in every run).
        summary["first_success_node"] = int(good[0][3]) if good else None
        if scenario.mechanism == "manual":
            # The floor over as many allocations as a burst has (scripts/bench).
            summary["first_attempts_us"] = [
                round(int(f[2]) / 1000, 2) if f[5].strip() == "1" else None
                for f in attempts[:FIRST_ATTEMPTS_KEPT]]
        args = dict(a.partition("=")[::2] for a in khh_args_of(w, files).split())
        summary["delay_us"] = int(args.get("delay_us", 0) or 0)
        summary["gfp"] = args.get("gfp", "kernel")
    if w == "thp":
        summary["touch"] = touch_summary(parse.thp_touch(_need(files, "thp/thp_touch.txt")))
        out_files["thp_touch.json"] = json.dumps(summary["touch"], indent=1) + "\n"
    if w == "bursts":
        summary["bursts"] = []
        k = 1
        while f"bursts/burst{k}_info.txt" in files:
            info = parse.key_values(files[f"bursts/burst{k}_info.txt"])
            khh = parse.khugehog_summary(_need(files, f"bursts/burst{k}_summary.txt"))
            samples_csv = _need(files, f"bursts/burst{k}_samples.csv")
            ok = [int(line.split(",")[2]) for line in samples_csv.splitlines()[1:]
                  if line.strip() and line.split(",")[5].strip() == "1"]
            size = int(info.get("max", 0))
            # A failed attempt is slower than any limit: issue 13 asks that
            # 99% of a burst's allocations come within one.
            tail = metrics.attempts_tail([v / 1000 for v in ok], khh["failures"])
            summary["bursts"].append({
                "burst": k, "low": int(info.get("low", 0)),
                "reached_low": info.get("reached_low") == "1",
                # Before "ready" was recorded a burst waited for low only.
                "ready": info.get("ready",
                                  "low" if info.get("reached_low") == "1" else "timeout"),
                "wait_s": float(info.get("wait_s", "nan")), "size": size,
                "count": khh["count"], "failures": khh["failures"],
                "obtained_pct": metrics.ratio(khh["count"], size, 100),
                "p50_us": khh.get("p50_us"), "p95_us": khh.get("p95_us"),
                "mean_us": khh.get("mean_us"),
                "over_100us_pct": 100.0 * sum(v > 100_000 for v in ok) / len(ok) if ok else None,
                **tail})
            for name in (f"burst{k}_info.txt", f"burst{k}_summary.txt", f"burst{k}_samples.csv"):
                out_files[f"bursts_{name}"] = files[f"bursts/{name}"]
            k += 1
        if not summary["bursts"]:
            raise ScenarioError("bursts: the guest sent no burst")
    if w == "pin":
        pin = parse.khugehog_summary(_need(files, "pin/pin_summary.txt"))
        summary["pinned_blocks"] = pin.get("pinned_blocks")
        summary["pinned_pages"] = pin.get("held_pages")
        summary["touch"] = touch_summary(parse.thp_touch(_need(files, "pin/thp_touch.txt")))
        summary["observe_s"] = ev.get("observe_end", 0) - ev.get("observe_start", 0)
        out_files["pin_khugehog_summary.txt"] = files["pin/pin_summary.txt"]
        out_files["pin_thp_touch.json"] = json.dumps(summary["touch"], indent=1) + "\n"

    for label, first, last in shape.windows:
        win, (vb, va, _), (k0, k1) = window_summary(files, w, first, last,
                                                      hugepages if label == "run" else None)
        name = "vmstat_delta.csv" if label == "run" else f"vmstat_delta_{label}.csv"
        out_files[prefix + name] = (["counter", "before", "after", "delta"],
                                    vmstat_delta_rows(vb, va))
        name = "kthreads_cpu.csv" if label == "run" else f"kthreads_cpu_{label}.csv"
        out_files[prefix + name] = (["comm", "pid", "run_ms_before", "run_ms_after",
                                     "delta_ms"], kthread_rows(k0, k1))
        if label == "run":
            summary.update(win)
            traced = traced_migrations(files, w, ev, k1)
            if traced:
                summary["traced_migrated"] = traced
            direct = traced_direct_compaction(files.get(f"{w}/stream_trace.txt"))
            if direct:
                summary["traced_direct_compaction"] = direct
        else:
            summary[label] = win
    for snap in ("before", "mid", "after"):
        if f"{w}/buddyinfo_{snap}.txt" in files:
            text = files[f"{w}/buddyinfo_{snap}.txt"]
            rows = parse.buddyinfo(text)
            summary[f"free_order9_blocks_{snap}"] = sum(
                metrics.node_free_blocks(rows).values())
            out_files[f"{prefix}buddyinfo_{snap}.txt"] = text
        if f"{w}/pcompact_{snap}.txt" in files and files[f"{w}/pcompact_{snap}.txt"]:
            out_files[f"{prefix}pcompact_{snap}.txt"] = files[f"{w}/pcompact_{snap}.txt"]

    # Pageblocks by migratetype (guests from this change on): the kernel's
    # compaction finds targets only in movable blocks.
    for snap in ("before", "start", "mid", "after"):
        text = files.get(f"{w}/pagetypeinfo_{snap}.txt", "")
        if text:
            out_files[f"{prefix}pagetypeinfo_{snap}.txt"] = text
            summary[f"pageblocks_{snap}"] = {
                str(node): types for node, types in parse.pageblock_types(text).items()}

    samples = parse.sampler(_need(files, f"{w}/samples.txt"))
    if len(samples) < 2:
        raise ScenarioError(f"{w}: the sampler recorded {len(samples)} samples")
    limits = thresholds(scenario)
    rows = metrics.score_rows(samples, present, t0, limits)
    out_files[prefix + "scores.csv"] = (["t_s", "node", "score", "free_order9_blocks",
                                         "pcompact_score", "wmark_low", "wmark_high"], rows)
    orders = max(len(c) for _, b, _ in samples for _, _, c in b)
    out_files[prefix + "buddyinfo_samples.csv"] = (
        ["t_s", "node", "zone"] + [f"order{o}" for o in range(orders)],
        buddy_rows_csv(samples, t0))
    out_files[prefix + "events.csv"] = (["event", "uptime_s", "t_s"],
                                        [[k, v, round(v - t0, 3)] for k, v in ev.items()])
    end = summary["events_s"].get(shape.window_end, 0.0)
    summary["score"] = score_summary(rows, 0.0, end, limits[1] if limits else None)
    # The state the stream met: the last sample taken before it started.
    before_start = [r for r in rows if r["t_s"] <= 0]
    if before_start:
        last_t = before_start[-1]["t_s"]
        last = [r for r in before_start if r["t_s"] == last_t]
        summary["score"]["at_start"] = max(r["score"] for r in last)
        summary["free_order9_blocks_at_start"] = sum(r["free_order9_blocks"] for r in last)
    # Free pages the per-cpu lists held when the stream started and when it
    # ended: a block whose last pages wait there is free but not in the
    # buddy lists, and a drain of the lists adds it to the stock at once.
    for key, snap in (("pcp_pages_at_start", shape.demand_snapshot),
                      ("pcp_pages_at_end", "after")):
        pcp = parse.key_values(files.get(f"{w}/pcp_{snap}.txt", ""))
        if kind(w) == "khugehog" and str(pcp.get("pcp_pages", "")).isdigit():
            summary[key] = int(pcp["pcp_pages"])
            summary[key + "_by_node"] = {
                k[len("pcp_pages_node"):]: int(v) for k, v in pcp.items()
                if k.startswith("pcp_pages_node") and v.isdigit()}
    summary["score"]["sample_hz"] = metrics.sample_rate_hz(samples)
    # Per node at switch-on and at the stream: the layout every scenario
    # must share, and whether the mechanism acted in its head start.
    if "mech_on" in summary["events_s"]:
        t_alloc = summary["events_s"].get(shape.demand_start,
                                          summary["events_s"].get("alloc_start", 0.0))
        nodes = validity.head_start(rows, summary["events_s"]["mech_on"], t_alloc)
        summary["head_start"] = {str(k): v for k, v in nodes.items()}
    end = f"{w}/kthreads_{shape.demand_snapshot}.txt"
    if end in files and f"{w}/kthreads_before.txt" in files:
        k0 = parse.kthreads(files[f"{w}/kthreads_before.txt"])
        k1 = parse.kthreads(files[end])
        summary["head_start_cpu_ms"] = {name: metrics.kthread_cpu_ms(k0, k1, name)
                                        for name in KTHREADS}
    tried = head_start_tried(files, w, shape.demand_snapshot)
    if tried is not None:
        summary["head_start_tried"] = tried
    if kind(w) == "khugehog" and "mech_on" in summary["events_s"]:
        env_kb = parse.key_values(files.get("env.txt", "")).get("mem_total_kb")
        summary.update(cost_summary(summary, rows, limits, files.get(f"{w}/frag_out.txt", ""),
                                    int(env_kb) if env_kb and env_kb.isdigit() else None))
    writes = []
    while f"{w}/compact_manual{len(writes) + 1}.txt" in files:
        name = f"compact_manual{len(writes) + 1}.txt"
        writes.append(validity.manual_summary(parse.compact_record(files[f"{w}/{name}"])))
        out_files[prefix + name] = files[f"{w}/{name}"]
    if writes:
        summary["manual_compaction"] = validity.manual_combine(writes)
    # Where pcompact was loaded: how often its own sysfs score agrees with
    # the one computed here (it is sampled only every interval_ms).
    both = [r for r in rows if r["pcompact_score"] is not None]
    if both:
        summary["score"]["sysfs_samples"] = len(both)
        summary["score"]["sysfs_within_1_pct"] = 100 * sum(
            abs(r["score"] - r["pcompact_score"]) <= 1 for r in both) / len(both)
    return summary, out_files


def build_scenario(scenario, guest):
    """Summary dict and result files of one scenario from a GuestOutput.

    Raises ScenarioError when the guest's output is incomplete or wrong.
    """
    if not guest.complete:
        raise ScenarioError("; ".join(guest.problems()))
    files = guest.files
    try:
        env = parse.key_values(_need(files, "env.txt"))
        present = parse.zone_present_pages(_need(files, "zones.txt"))
        summary = {
            "scenario": scenario.name, "description": scenario.description,
            "mechanism": scenario.mechanism, "proactiveness": scenario.proactiveness,
            "thresholds": thresholds(scenario), "status": "ok", "env": env,
        }
        out_files = {"env.txt": files["env.txt"], "zones.txt": files["zones.txt"]}
        for w in scenario.workloads:
            wsum, wfiles = build_workload(scenario, files, w, present)
            summary[w] = wsum
            out_files.update(wfiles)
        judge(scenario, summary)
    except (parse.ParseError, KeyError, ValueError) as err:
        raise ScenarioError(f"cannot read the guest's files: {err}") from None
    return _round(summary), out_files


def void_reasons(scenario, summary):
    """Why a run measured something else than its scenario says (empty:
    valid), from the validity checks of each of its workloads."""
    reasons = []
    limits = thresholds(scenario)
    for w in scenario.workloads:
        ws = summary.get(w, {})
        nodes = {int(k): v for k, v in ws.get("head_start", {}).items()}
        tag = f"{w}: "
        movable = KINDS[kind(w)].movable
        if movable:
            reasons += [tag + r for r in validity.layout_check(nodes)]
        reasons += [tag + r for r in validity.head_start_check(
            nodes, limits[1] if limits else None, scenario.mechanism,
            ws.get("head_start_cpu_ms"), movable=movable, tried=ws.get("head_start_tried"))]
        if scenario.mechanism == "manual" and not w.startswith("sweep"):
            reasons += [tag + r for r in validity.manual_check(ws.get("manual_compaction"))]
    return reasons + not_acted_reasons(scenario, summary)


def not_acted_reasons(scenario, summary):
    """Why a run of an option's scenario measured pcompact without the
    option (empty: the option acted).  Part of void_reasons(); a bench run
    with --intent-to-treat counts such runs all the same."""
    reasons = []
    for w in scenario.workloads:
        ws = summary.get(w, {})
        if scenario.acts and kind(w) == "khugehog" and not w.startswith("sweep") and \
                not (ws.get("pcompact") or {}).get(scenario.acts):
            reasons.append(f"{w}: {scenario.acts} stayed 0: {scenario.module_args} never "
                           "acted, so the run measured pcompact without it")
    # A sweep's option may be idle at the rates that do not need it (a
    # reserve when the score alone starts rounds): the run is void only
    # when it acted at none of them.
    steps = [w for w in scenario.workloads if w.startswith("sweep")]
    if scenario.acts and steps and not any(
            ((summary.get(w) or {}).get("pcompact") or {}).get(scenario.acts) for w in steps):
        reasons.append(f"{scenario.acts} stayed 0 at every rate: {scenario.module_args} never "
                       "acted, so the run measured pcompact without it")
    return reasons


def intent_to_treat_split(summary, intent_to_treat):
    """A judged run's (reasons that void it, not-acted reasons it counts
    with): under intent to treat an option that never acted is the run's
    outcome, recorded beside it; otherwise it voids the run like the rest."""
    kept = list(summary.get("not_acted") or []) if intent_to_treat else []
    return [r for r in summary.get("void") or [] if r not in kept], kept


def step_void_reasons(scenario, summary):
    """{sweep step: why it did not measure its floor} for a manual sweep:
    each step compacts anew, so a compaction that fell short voids that
    step, left out of every statistic, and not the run's other steps."""
    if scenario.mechanism != "manual":
        return {}
    out = {}
    for w in scenario.workloads:
        # A failed boot stores no step at all: nothing of it was measured,
        # so there is no step to void (the run itself is failed).
        if w.startswith("sweep") and isinstance(summary.get(w), dict):
            why = validity.manual_check(summary[w].get("manual_compaction"))
            if why:
                out[w] = why
    return out


def judge(scenario, summary):
    """Set a built run's validity: summary["void"] (the run) and each void
    sweep step's own "void" (step_void_reasons)."""
    for w, why in step_void_reasons(scenario, summary).items():
        summary[w]["void"] = why
    summary["void"] = void_reasons(scenario, summary)
    summary["not_acted"] = not_acted_reasons(scenario, summary)


def judge_steps_again(scenario, summary):
    """A stored run judged before sweep steps could be void alone: move its
    manual sweep steps' reasons from the run's void list (and checks) to
    the steps.  Nothing else of the stored judgement changes, so a report
    rewritten from old runs keeps the rules they were judged by."""
    step = step_void_reasons(scenario, summary)
    moved = {f"{w}: {r}" for w, why in step.items() for r in why}
    for w, why in step.items():
        summary[w]["void"] = why
    for key in ("void", "checks"):
        if isinstance(summary.get(key), list):
            summary[key] = [r for r in summary[key] if r not in moved]


def stored_run_order(path):
    """Sort key of a stored attempt's path (<scenario>/run-<r>[-void<a>]/...):
    the order the bench made them in, run by run and each run's retried
    attempts before the one that stands.  Not the names' order: run-10 sorts
    before run-2 there, and the report's bootstrap intervals depend on the
    order of the runs they resample."""
    name = os.path.basename(os.path.dirname(path))
    m = re.fullmatch(r"run-(\d+)(?:-void(\d+))?", name)
    if m is None:
        return (math.inf, math.inf, name)
    return (int(m.group(1)), int(m.group(2)) if m.group(2) else math.inf, name)


def read_stored_runs(directory, scenario):
    """A repeated run's stored attempts of one scenario, judged as the
    bench judges them now: (standing, attempts), the summaries of the
    attempts that stand (<scenario>/run-<r>, failed or void ones too) and
    of every attempt (with the retried run-<r>-void<a>), in the order the
    bench made them (stored_run_order()).
    Raises ValueError naming a summary that cannot be read."""
    standing, attempts = [], []
    pattern = os.path.join(directory, scenario.name, "run-*", "summary.json")
    for path in sorted(glob.glob(pattern), key=stored_run_order):
        try:
            with open(path) as f:
                summary = json.load(f)
        except (OSError, ValueError) as err:
            raise ValueError(f"{path}: {err}") from err
        summary.setdefault("void", [])
        judge_steps_again(scenario, summary)
        stored_traced_costs(os.path.dirname(path), summary)
        attempts.append(summary)
        if re.fullmatch(r"run-\d+", os.path.basename(os.path.dirname(path))):
            standing.append(summary)
    return standing, attempts


def write_scenario(directory, summary, out_files):
    """Write a scenario's results; returns the paths written."""
    os.makedirs(directory, exist_ok=True)
    written = []
    for name, content in sorted(out_files.items()):
        path = os.path.join(directory, name)
        if isinstance(content, tuple):
            csvio.write_table(path, content[0], content[1])
        else:
            with open(path, "w") as f:
                f.write(content)
        written.append(path)
    path = os.path.join(directory, "summary.json")
    with open(path, "w") as f:
        json.dump(summary, f, indent=1, sort_keys=True)
        f.write("\n")
    written.append(path)
    return written


def write_failed(directory, scenario, reason, extra=None):
    """A failed scenario leaves FAILED.txt and a summary saying so (a failed
    boot's logs are added by scripts/bench)."""
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "FAILED.txt"), "w") as f:
        f.write(f"scenario {scenario.name} failed: {reason}\n")
    summary = {"scenario": scenario.name, "description": scenario.description,
               "mechanism": scenario.mechanism, "proactiveness": scenario.proactiveness,
               "status": "failed", "reason": reason}
    summary.update(extra or {})
    with open(os.path.join(directory, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1, sort_keys=True)
        f.write("\n")
    return summary


# --- Targets ---------------------------------------------------------------

def _get(summaries, name, *path):
    s = summaries.get(name)
    if not s or s.get("status") != "ok":
        return None
    return table.lookup(s, path)


def _ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def _fmt(v, unit=""):
    if v is None:
        return "n/a"
    if isinstance(v, float):
        return f"{v:.2f}{unit}" if abs(v) < 100 else f"{v:.0f}{unit}"
    return f"{v}{unit}"


def _pcompact_why(summaries, name, other):
    """Sentences on what pcompact did from switch-on to the stream's end."""
    pc = summaries.get(name, {}).get("khugehog", {})
    ot = summaries.get(other, {}).get("khugehog", {})
    counters = pc.get("pcompact") or {}
    parts = []
    head = -pc.get("events_s", {}).get("mech_on", 0.0)
    if counters:
        parts.append(f"from switch-on ({head:.1f} s before the first allocation) to the "
                     f"end of the stream {name} did {counters.get('rounds', 0)} rounds, "
                     f"migrated {counters.get('pages_migrated', 0)} pages, freed "
                     f"{counters.get('blocks_freed', 0)} blocks, spent "
                     f"{counters.get('compact_ms', 0)} ms compacting (pcompactd CPU "
                     f"{_fmt(pc.get('cpu_ms', {}).get('pcompactd'), ' ms')})")
    score = pc.get("score", {})
    if "at_start" in score:
        parts.append(f"the first allocation met a node score of {score['at_start']} "
                     f"({other}: {_fmt(ot.get('score', {}).get('at_start'))}) and "
                     f"{_fmt(pc.get('free_order9_blocks_at_start'))} free 2 MB blocks "
                     f"({other}: {_fmt(ot.get('free_order9_blocks_at_start'))})")
    stalls, ostalls = (pc.get("vmstat", {}).get("compact_stall"),
                       ot.get("vmstat", {}).get("compact_stall"))
    if stalls is not None:
        parts.append(f"{stalls} direct compaction stalls for {pc.get('count')} hugepages "
                     f"({other}: {_fmt(ostalls)} for {_fmt(ot.get('count'))})")
    if "above_high_pct" in score:
        parts.append(f"while allocating the node scores were above the high threshold in "
                     f"{score['above_high_pct']:.0f}% of the samples")
    if pc.get("alloc_s") is not None:
        parts.append(f"the stream took {pc['alloc_s']:.2f} s ({other}: "
                     f"{_fmt(ot.get('alloc_s'), ' s')})")
    return "; ".join(parts)


def _migration_why(summaries, name, other):
    """Where the migrated pages went: pcompact's own work vs direct compaction."""
    pc = summaries.get(name, {}).get("khugehog", {})
    ot = summaries.get(other, {}).get("khugehog", {})
    total = pc.get("vmstat", {}).get("pgmigrate_success")
    own = (pc.get("pcompact") or {}).get("pages_migrated")
    parts = [f"{name} migrated {_fmt(total)} pages for {_fmt(pc.get('count'))} hugepages "
             f"({other}: {_fmt(ot.get('vmstat', {}).get('pgmigrate_success'))} for "
             f"{_fmt(ot.get('count'))})"]
    if own is not None:
        parts.append(f"pcompact's own counter says {own} of them were its work")
    left = pc.get("free_order9_blocks_after")
    if left is not None:
        parts.append(f"{left} free 2 MB blocks were left when the stream ended "
                     f"({other}: {_fmt(ot.get('free_order9_blocks_after'))})")
    return "; ".join(parts)


def _count_why(summaries, name, other):
    """Why one stream got fewer hugepages: how each ended, what each started with."""
    def k(n, key):
        return _get(summaries, n, "khugehog", key)
    def ended(n):
        # A tally (runs.tally()) is over several runs, the failures their median.
        reason = k(n, "stop_reason")
        of = "a median of " if reason and " x" in str(reason) else ""
        return f"on '{reason}' after {of}{k(n, 'failures')}"
    text = f"{name} stopped {ended(name)} failed attempts, {other} {ended(other)}"
    if k(name, "stop_reason") == k(other, "stop_reason") == "margin":
        text += (f"; both ran until khugehog's margin, so each count is bounded by the free "
                 f"memory it started with ({name}: {k(name, 'free_pages_before')} free pages, "
                 f"{_fmt(k(name, 'obtainable_share_pct'), '%')} of the free memory above the "
                 f"margin obtained; {other}: {k(other, 'free_pages_before')}, "
                 f"{_fmt(k(other, 'obtainable_share_pct'), '%')})")
    return text


def evaluate_targets(summaries):
    """The issue's targets: [{target, measured, met (True/False/None), why}]."""
    out = []

    def add(text, measured, met, why=""):
        out.append({"target": text, "measured": measured, "met": met,
                    "why": "" if met else why})

    def lat(name, key):
        return _get(summaries, name, "khugehog", "latency", key)

    def missing(*names):
        gone = [n for n in names if _get(summaries, n, "status") is None]
        return f"not measured: scenario {', '.join(gone)} missing or failed" if gone else ""

    # Against the kernel's own proactive compaction (same proactiveness).
    for key, limit in (("mean_us", 0.5), ("p50_us", 0.5), ("p95_us", 1.0)):
        r = _ratio(lat("pcompact", key), lat("kernel", key))
        label = key[:-3]
        add(f"pcompact {label} <= {limit:g} x kernel {label}",
            f"{_fmt(lat('pcompact', key), ' us')} vs {_fmt(lat('kernel', key), ' us')} "
            f"= {_fmt(r)} x",
            None if r is None else r <= limit,
            missing("pcompact", "kernel") or _pcompact_why(summaries, "pcompact", "kernel"))
    pc_n = _get(summaries, "pcompact", "khugehog", "count")
    k_n = _get(summaries, "kernel", "khugehog", "count")
    add("pcompact hugepages obtained >= kernel's", f"{_fmt(pc_n)} vs {_fmt(k_n)}",
        None if pc_n is None or k_n is None else pc_n >= k_n,
        missing("pcompact", "kernel") or _count_why(summaries, "pcompact", "kernel"))
    pc_m = _get(summaries, "pcompact", "khugehog", "derived", "migrated_per_hugepage")
    k_m = _get(summaries, "kernel", "khugehog", "derived", "migrated_per_hugepage")
    add("pcompact pages migrated per hugepage <= kernel's", f"{_fmt(pc_m)} vs {_fmt(k_m)}",
        None if pc_m is None or k_m is None else pc_m <= k_m,
        missing("pcompact", "kernel") or _migration_why(summaries, "pcompact", "kernel"))
    # Against vanilla.
    for key in ("mean_us", "p50_us"):
        r = _ratio(lat("vanilla", key), lat("pcompact", key))
        label = key[:-3]
        add(f"pcompact {label} >= 5 x lower than vanilla",
            f"{_fmt(lat('vanilla', key), ' us')} / {_fmt(lat('pcompact', key), ' us')} "
            f"= {_fmt(r)} x",
            None if r is None else r >= 5,
            missing("pcompact", "vanilla") or _pcompact_why(summaries, "pcompact", "vanilla"))
    # Against manual, the floor, at proactiveness 80.
    r = _ratio(lat("pcompact-p80", "p50_us"), lat("manual", "p50_us"))
    add("pcompact (proactiveness 80) p50 <= 2 x manual p50",
        f"{_fmt(lat('pcompact-p80', 'p50_us'), ' us')} vs "
        f"{_fmt(lat('manual', 'p50_us'), ' us')} = {_fmt(r)} x",
        None if r is None else r <= 2,
        missing("pcompact-p80", "manual") or
        "manual compacted everything before the first allocation; "
        + _pcompact_why(summaries, "pcompact-p80", "manual"))
    share = _get(summaries, "pcompact", "khugehog", "free_share_pct")
    obtainable = _get(summaries, "pcompact", "khugehog", "obtainable_share_pct")
    margin = _get(summaries, "pcompact", "khugehog", "margin_share_pct")
    add("pcompact obtains >= 95% of free memory as hugepages",
        f"{_fmt(share, '%')} of free memory ({_fmt(obtainable, '%')} of the free memory "
        f"above khugehog's margin)",
        None if share is None else share >= 95,
        missing("pcompact") or
        f"khugehog stops at its safety margin (keep_free_mb plus the zones' high "
        f"watermarks), which is {_fmt(margin, '%')} of the free memory at the start, so at "
        f"most {_fmt(None if margin is None else 100 - margin, '%')} can be obtained; "
        f"without the margin the guest, with nothing to reclaim, would go OOM")
    return out


# --- README ----------------------------------------------------------------

# bench --trace-stream: the kernel's compaction during the stream, by event
# (parse.stream_trace), with the label of its row.
STREAM_TRACE_ROWS = {
    "mm_compaction_try_to_compact_pages": "Direct compactions (traced)",
    "mm_compaction_deferred": "Zone compactions skipped as deferred (traced)",
    "mm_compaction_defer_compaction": "Zone deferrals begun or lengthened (traced)",
    "mm_compaction_defer_reset": "Zone deferrals reset (traced)",
    "mm_compaction_end status=success": "Zone compactions that made a block (traced)",
    "mm_compaction_end status=complete": "Zone compactions that scanned all, no block (traced)",
    "mm_compaction_end status=partial_skipped": "Zone compactions cut short, partial_skipped "
                                                "(traced)",
    "mm_compaction_end status=contended": "Zone compactions aborted, contended (traced)",
}


def khugehog_rows():
    m = table.Metric
    lat = [m(f"Latency {k} (us)", ("khugehog", "latency", f"{k}_us"), True, 1)
           for k in ("min", "mean", "p5", "p25", "p50", "p75", "p90", "p95", "p99", "max",
                     "stddev")]
    return [("section", "khugehog: back-to-back order-9 GFP_KERNEL allocations"),
            m("Hugepages obtained", ("khugehog", "count"), False, 0),
            m("Free memory obtained %", ("khugehog", "free_share_pct"), False, 1),
            m("Free memory above the margin obtained %", ("khugehog", "obtainable_share_pct"),
              False, 1),
            m("khugehog's free_share_pct (no per-cpu pages)",
              ("khugehog", "khugehog_free_share_pct"), None, 1),
            m("Failed attempts", ("khugehog", "failures"), True, 0),
            m("Stop reason", ("khugehog", "stop_reason"), None, 0)] + lat + [
            m("Stream duration (s)", ("khugehog", "alloc_s"), True, 2),
            m("Mechanism switch-on (s)", ("khugehog", "mechanism_switch_s"), None, 2),
            m("Compaction stalls", ("khugehog", "vmstat", "compact_stall"), True, 0),
            m("Compaction success", ("khugehog", "vmstat", "compact_success"), False, 0),
            m("Compaction fail", ("khugehog", "vmstat", "compact_fail"), True, 0),
            m("Compaction success %", ("khugehog", "derived", "compaction_success_pct"),
              False, 2),
            m("Compact migrate scanned", ("khugehog", "vmstat", "compact_migrate_scanned"),
              True, 0),
            m("Compact free scanned", ("khugehog", "vmstat", "compact_free_scanned"), True, 0),
            m("Kcompactd wake", ("khugehog", "vmstat", "compact_daemon_wake"), True, 0),
            *[m(label, ("khugehog", "stream_trace", key), None, 0)
              for key, label in STREAM_TRACE_ROWS.items()],
            m("Compact daemon migrate scanned",
              ("khugehog", "vmstat", "compact_daemon_migrate_scanned"), True, 0),
            m("Compact daemon free scanned",
              ("khugehog", "vmstat", "compact_daemon_free_scanned"), True, 0),
            m("Pages migrated", ("khugehog", "vmstat", "pgmigrate_success"), True, 0),
            m("Page migration failures", ("khugehog", "vmstat", "pgmigrate_fail"), True, 0),
            m("Pages migrated per hugepage", ("khugehog", "derived", "migrated_per_hugepage"),
              True, 2),
            m("Blocks created (hugepages - free blocks at switch-on)",
              ("khugehog", "blocks_created"), False, 0),
            m("Pages migrated per block created", ("khugehog", "migrated_per_block_created"),
              True, 1),
            m("In-use minimum: frag's kept pages per 2 MB", ("khugehog",
                                                             "inuse_min_pages_per_block"),
              None, 0),
            m("Compactor CPU per block created (ms)",
              ("khugehog", "compactor_cpu_ms_per_block_created"), True, 2),
            m("Compactor CPU + stream time per block created (ms)",
              ("khugehog", "compaction_and_stream_ms_per_block_created"), True, 2),
            m("Compactor CPU per block created in the head start (ms)",
              ("khugehog", "compactor_cpu_ms_per_block_head_start"), True, 2),
            m("Compactor CPU per block created in the stream (ms)",
              ("khugehog", "compactor_cpu_ms_per_block_stream"), True, 2),
            m("Pages the compactor migrated (traced)", ("khugehog", "traced_migrated",
                                                        "compactor"), None, 0),
            m("Pages other tasks migrated: direct compaction (traced)",
              ("khugehog", "traced_migrated", "others"), None, 0),
            m("Direct compaction time, switch-on to the stream's end (ms, traced)",
              ("khugehog", "traced_direct_compaction", "ms"), True, 0),
            m("Compactor CPU + direct compaction time per block created (ms, traced)",
              ("khugehog", "compaction_with_direct_ms_per_block_created"), True, 2),
            m("Compactor's share of the pages migrated % (traced)",
              ("khugehog", "compactor_migrated_share_pct"), None, 1),
            m("Compactor CPU per page it migrated (us, traced)",
              ("khugehog", "compactor_cpu_us_per_page_migrated"), True, 2),
            m("Pages the compactor migrated per block created in the head start (traced)",
              ("khugehog", "compactor_migrated_per_block_head_start"), True, 1),
            m("Compactor CPU per page it migrated in the head start (us, traced)",
              ("khugehog", "compactor_cpu_us_per_page_head_start"), True, 2),
            m("Switch-on to every node <= low (s)", ("khugehog", "time_to_low_s"), True, 2),
            m("pcompact time per round per GiB (ms)",
              ("khugehog", "scale", "pcompact_ms_per_round_per_gib"), True, 1),
            m("kcompactd migrate-scanned pages per GiB",
              ("khugehog", "scale", "compact_daemon_migrate_scanned_per_gib"), True, 0),
            m("Successes over 100 us %", ("khugehog", "over_100us_pct"), True, 1),
            m("Alloc stalls", ("khugehog", "vmstat", "allocstall"), True, 0),
            m("Pages kswapd scanned", ("khugehog", "vmstat", "pgscan_kswapd"), True, 0),
            m("Pages reclaimed (pgsteal)", ("khugehog", "vmstat", "pgsteal"), False, 0),
            m("Reclaim efficiency % (- : nothing scanned)",
              ("khugehog", "derived", "reclaim_efficiency_pct"), False, 2, True),
            m("kcompactd CPU (ms)", ("khugehog", "cpu_ms", "kcompactd"), True, 1),
            m("pcompactd CPU (ms)", ("khugehog", "cpu_ms", "pcompactd"), True, 1),
            m("kswapd CPU (ms)", ("khugehog", "cpu_ms", "kswapd"), True, 1),
            m("Free order-9 blocks, fragmented", ("khugehog", "free_order9_blocks_before"),
              None, 0),
            m("Free order-9 blocks at the first allocation",
              ("khugehog", "free_order9_blocks_at_start"), False, 0),
            m("Node score at the first allocation (highest node)",
              ("khugehog", "score", "at_start"),
              True, 1),
            m("Node score, mean while allocating", ("khugehog", "score", "mean_score"),
              True, 1)]


def thp_rows(w="thp"):
    m = table.Metric
    title = ("thp: frag --thp-touch (THP faults, MADV_HUGEPAGE, defrag=madvise)"
             if w == "thp" else "pin: the THP touch in the pinned state")
    base = (w,) if w == "thp" else (w, "thp")
    touch = (w, "touch")
    return [("section", title),
            m("THP touch elapsed (s)", touch + ("elapsed_s",), True, 2),
            m("THP touch system time (s)", touch + ("sys_s",), True, 2),
            m("THP share of the mapping %", touch + ("thp_share_pct",), False, 1),
            m("THP fault alloc", base + ("vmstat", "thp_fault_alloc"), False, 0),
            m("THP fault fallback", base + ("vmstat", "thp_fault_fallback"), True, 0),
            m("THP fault success %", base + ("derived", "thp_fault_success_pct"), False, 2),
            m("Compaction stalls", base + ("vmstat", "compact_stall"), True, 0),
            m("Compaction success %", base + ("derived", "compaction_success_pct"), False, 2),
            m("Pages migrated", base + ("vmstat", "pgmigrate_success"), True, 0),
            m("Kcompactd wake", base + ("vmstat", "compact_daemon_wake"), True, 0),
            m("kcompactd CPU (ms)", base + ("cpu_ms", "kcompactd"), True, 1),
            m("pcompactd CPU (ms)", base + ("cpu_ms", "pcompactd"), True, 1),
            m("Reclaim efficiency % (- : nothing scanned)",
              base + ("derived", "reclaim_efficiency_pct"), False, 2, True)]


def pin_rows():
    m = table.Metric
    obs = ("pin", "observe")
    return [("section", "pin: unmovable fragmentation, watching the mechanism"),
            m("Pinned 2 MB blocks", ("pin", "pinned_blocks"), None, 0),
            m("Observation window (s)", ("pin", "observe_s"), None, 1),
            m("Node score, mean while watching", ("pin", "score", "mean_score"), True, 1),
            m("kcompactd CPU (ms)", obs + ("cpu_ms", "kcompactd"), True, 1),
            m("pcompactd CPU (ms)", obs + ("cpu_ms", "pcompactd"), True, 1),
            m("Kcompactd wake", obs + ("vmstat", "compact_daemon_wake"), True, 0),
            m("Compact daemon migrate scanned",
              obs + ("vmstat", "compact_daemon_migrate_scanned"), True, 0),
            m("Compact migrate scanned", obs + ("vmstat", "compact_migrate_scanned"), True, 0),
            m("Pages migrated", obs + ("vmstat", "pgmigrate_success"), True, 0),
            m("Page migration failures", obs + ("vmstat", "pgmigrate_fail"), True, 0),
            m("pcompact rounds", obs + ("pcompact", "rounds"), True, 0),
            m("pcompact deferrals", obs + ("pcompact", "deferrals"), None, 0),
            m("pcompact failed blocks", obs + ("pcompact", "failed_blocks"), True, 0),
            m("pcompact skipped unmovable", obs + ("pcompact", "skipped_unmovable"), None, 0),
            m("pcompact kswapd back-offs", obs + ("pcompact", "backoffs_kswapd"), None, 0),
            m("pcompact compact_ms", obs + ("pcompact", "compact_ms"), True, 0),
            m("Free order-9 blocks after watching", ("pin", "free_order9_blocks_mid"),
              None, 0)] + thp_rows("pin")[1:]


def comparison_text(summaries, order):
    """All the comparison tables as fixed-width text (comparison.txt)."""
    ok = [n for n in order if summaries.get(n, {}).get("status") == "ok"]
    parts = [table.SIGN_CONVENTION.replace("**", "") + "\n"]
    for workload, rows, base in (("khugehog", khugehog_rows(), scenarios.BASELINE),
                                 ("thp", thp_rows(), scenarios.BASELINE),
                                 ("pin", pin_rows(), scenarios.UNMOVABLE_BASELINE)):
        names = [n for n in ok if workload in summaries[n]]
        if names:
            parts.append(table.comparison_text(summaries, names, base, rows))
    return "\n".join(parts)


def _targets_md(targets):
    lines = ["| Target | Measured | Result |", "|:---|:---|:---|"]
    notes = []
    first_with = {}
    for i, t in enumerate(targets, 1):
        result = {True: "met", False: "**missed**", None: "not measured"}[t["met"]]
        lines.append(f"| {i}. {t['target']} | {t['measured']} | {result} |")
        if t["why"]:
            if t["why"] in first_with:
                notes.append(f"{i}. {t['target']}: as for {first_with[t['why']]}.")
            else:
                first_with[t["why"]] = i
                notes.append(f"{i}. {t['target']}: {t['why']}.")
    text = "\n".join(lines) + "\n"
    if notes:
        text += "\nWhy (from this run's counters):\n\n" + "\n".join(
            f"- {n}" for n in notes) + "\n"
    return text


def pcp_fraction_text(env):
    """The sysctl and the value the guest set it to after the stream, as
    recorded in env.txt; runs that predate the record name the sysctl
    alone rather than a value the report cannot know."""
    value = env.get("pcp_fraction_after_stream")
    name = "`vm.percpu_pagelist_high_fraction`"
    return f"{name} {value}" if value else name


def readme(ctx, summaries, order, plots, targets, runs_md=None):
    """The text of results/<release>/README.md.

    ctx: dict with command, release, date, vm (mem, nodes, cpus, accel),
    cmdline, quick, host, durations; summaries: {name: summary dict};
    runs_md: with repeated runs, the text that replaces the single-run
    Targets section (runs, validity, targets with intervals).
    """
    ok = [n for n in order if summaries.get(n, {}).get("status") == "ok"]
    movable = [n for n in ok if "khugehog" in summaries[n]]
    thp = [n for n in ok if "thp" in summaries[n]]
    pinned = [n for n in ok if "pin" in summaries[n]]
    env = next((summaries[n]["env"] for n in ok), {})
    L = []
    L.append(f"# pcompact benchmark: {ctx['release']}\n")
    L.append("Generated by `scripts/bench`; do not edit: every number below comes from "
             "the files next to this one.\n")
    L.append("## How this was measured\n")
    L.append(f"- Command: `{ctx['command']}`")
    if ctx.get("source"):
        L.append(f"- Source: `{ctx['source']}` (the commit the modules and the harness were "
                 "built from; `-dirty`: with changes not committed)")
    L.append(f"- Date: {ctx['date']}; total time {ctx['total_s'] / 60:.1f} min")
    L.append(f"- Kernel: {ctx['release']}")
    if ctx.get("host"):
        L.append(f"- Machine: this host ({ctx['vm']}), not a VM")
    else:
        L.append(f"- VM: {ctx['vm']} (scripts/vm-run, one boot per "
                 f"{'run' if runs_md else 'scenario'})")
    L.append(f"- Guest kernel command line: `{env.get('cmdline', '?')}`")
    L.append(f"- init_on_alloc: {scenarios.init_on_alloc_text(ctx['init_on_alloc'], order)}")
    L.append(f"- Settings in every scenario: THP enabled `{env.get('thp_enabled', '?')}`, "
             f"defrag `{env.get('thp_defrag', '?')}`, vm.watermark_boost_factor 0, "
             f"vm.extfrag_threshold {env.get('sysctl_extfrag_threshold', '?')}, "
             f"vm.min_free_kbytes {env.get('sysctl_min_free_kbytes', '?')}")
    frag_cmd = f"frag {ctx['frag_args']}" if ctx.get("frag_args") else "frag"
    L.append(f"- Fragmentation: `{frag_cmd}`" +
             " (defaults: nearly all available memory as 4K pages, keep 1 page in 4 of "
             "every 2 MB, stride pattern), made with compaction off in every scenario")
    L.append(f"- khugehog: `insmod khugehog.ko {env.get('khugehog_args', '?')}` "
             "(order 9, GFP_KERNEL, back to back)")
    khh_args = dict(a.partition("=")[::2] for a in env.get("khugehog_args", "").split())
    L.append(f"- khugehog stops after {khh_args.get('stop_after_failures', '?')} consecutive "
             "failures (more than the kernel's longest compaction deferral, 64 attempts, so "
             "a deferral alone cannot end the run) or at its margin: keep_free_mb "
             f"{khh_args.get('keep_free_mb', '?')} plus the zones' high watermarks (the "
             "guest has nothing to reclaim: without a margin it would go OOM). "
             "*Free memory obtained %* = hugepages x 2 MB / (free pages + pages on the "
             "per-cpu lists at switch-on); khugehog's own free_share_pct leaves the per-cpu "
             "pages out, so compaction draining them can push it past 100%")
    L.append(f"- THP touch: `frag --thp-touch {env.get('thp_mb', '?')}M` in a second "
             "frag-fragmented state")
    L.append(f"- Unmovable case: `khugehog pin=1`, then {ctx.get('observe_s', '?')} s of "
             "watching the mechanism, then the THP touch")
    L.append("- Order of events per workload: settle (drop caches, compact, proactive "
             "compaction and watermark boosting off), fragment with nothing compacting, "
             "snapshot, start the sampler, switch the mechanism on"
             + (" (pcompact is loaded with `enabled=0` before the fragmentation and switched "
                "on by writing `enabled=Y`, one write as the kernel's sysctl, so its load is "
                "not counted)" if env.get("module_switch") == "enabled" else "") + ", "
             f"**{ctx.get('idle_s', '?')} s later** start the allocation stream (the same "
             "head start for every mechanism; manual's compaction runs in it, vanilla just "
             "waits), snapshot at its end, sample "
             f"{ctx.get('tail_s', '?')} s more"
             + (" with the per-cpu lists at their smallest high mark "
                f"({pcp_fraction_text(env)}, back as the next workload "
                "begins), so that the harness's own allocations after a stream stopped at "
                "khugehog's margin are not OOM-killed for the pages parked there"
                if env.get("pcp_after_stream") == "smallest" else "")
             + ". Counters and CPU times cover switch-on to "
             "the end of the stream, so background work done ahead of the stream counts")
    L.append(f"- Node scores: computed on the host from /proc/buddyinfo sampled in the "
             f"guest every {env.get('sample_s', '?')} s (achieved rate per scenario below) "
             "and the zones' present pages, with the kernel's formula and integer "
             "arithmetic (zone score = present_zone / (present_node + 1) x extfrag(zone, 9); "
             "node score = sum); pcompact's own sysfs score is recorded next to it where "
             "the module is loaded (column pcompact_score)")
    agree = [(s[w]["score"]["sysfs_within_1_pct"], s[w]["score"]["sysfs_samples"])
             for s in (summaries[n] for n in ok) for w in ("khugehog", "thp", "pin")
             if "sysfs_samples" in s.get(w, {}).get("score", {})]
    if agree:
        total = sum(n for _, n in agree)
        share = sum(p * n for p, n in agree) / total
        L.append(f"- Check of the computed score: pcompact's own sysfs score is within 1 point "
                 f"of it in {share:.0f}% of {total} samples; the others fall while a "
                 "compaction round runs or before pcompact's first sample, when its score "
                 "(sampled every interval_ms) lags")
    L.append("- Absolute times under TCG mean little: compare scenarios within this run\n")

    L.append("## Scenarios\n")
    L.append("| Scenario | What compacts | Status | Wall time | Host load | Other VMs | "
             "Score sampling |")
    L.append("|:---|:---|:---|---:|---:|---:|---:|")
    for n in order:
        s = summaries.get(n, {})
        status = s.get("status", "not run")
        if status != "ok":
            status = f"**FAILED**: {s.get('reason', '')}"
        hz = [s.get(w, {}).get("score", {}).get("sample_hz") for w in ("khugehog", "thp", "pin")]
        hz = [h for h in hz if h]
        L.append(f"| {n} | {s.get('description', '')} | {status} | "
                 f"{_fmt(s.get('wall_s'), ' s')} | {_fmt(s.get('host_load'))} | "
                 f"{_fmt(s.get('other_vms'))} | {(_fmt(min(hz)) + ' Hz') if hz else '-'} |")
    L.append("")
    L.append("Host load: the 1-minute load average of the host when the scenario started; "
             "other VMs: QEMU processes running besides the benchmark's, which take CPU "
             "from the guest and make its timings less comparable.\n")
    failed = [n for n in order if summaries.get(n, {}).get("status") != "ok"]
    if failed:
        L.append(f"Failed scenarios ({', '.join(failed)}) have only FAILED.txt and no numbers "
                 "(a failed boot's run also keeps its console's end); their columns are "
                 "absent below.\n")
    cut = [n for n in ok if summaries[n].get("khugehog", {}).get("stop_reason")
           == "records_full"]
    if cut:
        L.append(f"khugehog ended on `records_full` in {', '.join(cut)}: its record array "
                 "holds (RAM / 2 MB) + stop_after_failures attempts, and the failures spread "
                 "through the stream used it up; those counts may be short of what "
                 "compaction could have delivered.\n")

    if runs_md:
        L.append(runs_md)
    else:
        L.append("## Targets\n")
        L.append("Ratios within this run (issue #6). One run per scenario, under TCG on a "
                 "shared host: treat a verdict whose ratio is close to its threshold as "
                 "unsettled, and check the host load and other VMs above.\n")
        L.append(_targets_md(targets))

    L.append("## Comparison\n")
    if runs_md:
        L.append("Every number is the median over the runs that count (the Scenarios table "
                 "too: wall time, host load, other VMs). The sign convention's remark on "
                 "significance is superseded by the targets' intervals above.\n")
    L.append(table.SIGN_CONVENTION + " The dir column says which way is better.\n")
    if movable:
        L.append(table.comparison(summaries, movable, scenarios.BASELINE, khugehog_rows()))
    if thp:
        L.append(table.comparison(summaries, thp, scenarios.BASELINE, thp_rows()))
    if pinned:
        L.append("Unmovable fragmentation (baseline: the kernel's proactive compaction):\n")
        L.append(table.comparison(summaries, pinned, scenarios.UNMOVABLE_BASELINE, pin_rows()))

    if plots:
        L.append("## Plots\n")
        for title, path in plots:
            L.append(f"### {title}\n\n![{title}]({path})\n")

    L.append("## Files\n")
    L.append("Here: `comparison.txt` (the tables above as fixed-width text), `run.json` "
             "(how the run was made), `plots/`.\n")
    if runs_md:
        L.append("Here also: `runs.csv` (every boot), `targets.json` (targets, intervals, "
                 "verdicts), `streams.csv` / `bursts.csv` (workloads beyond the drain, when "
                 "run), `stream_starts.csv` (each proactive stream's stock at its start, run "
                 "by run, when a proactive drain ran). Per scenario, `<scenario>/summary.json` "
                 "holds the medians over the runs that count and the list of runs; each run's "
                 "own files are in "
                 "`<scenario>/run-<r>/` (void attempts: `run-<r>-void<a>/`), as follows.\n")
    L.append("Per scenario, in `<scenario>/`: `summary.json` (everything above, "
             "machine-readable), `env.txt`, `zones.txt`; the khugehog run: "
             "`khugehog_summary.txt`, `khugehog_samples.csv` (every attempt), `scores.csv` "
             "(node score and free order-9 blocks per sample, t_s from the first "
             "allocation), `buddyinfo_samples.csv`, `buddyinfo_before.txt`, "
             "`buddyinfo_after.txt`, `pagetypeinfo_<snapshot>.txt` (before, start of the "
             "stream, after; newer runs), `vmstat_delta.csv`, `kthreads_cpu.csv`, `events.csv`, "
             "`map_before.csv` / `map_after.csv` (frag's pages per 2 MB physical region); "
             "with `--trace-stream`, `stream_trace.txt`; with `--block-flags`, "
             "`block_flags.csv` (each pageblock's LRU pages and free buddy heads once the "
             "stream ended and the mechanism was switched off, every 8th page sampled as the "
             "kernel's skip-mark reset does, and all of them); with `--block-types`, "
             "`block_map.csv` and `zone_compaction.csv` (khugehog's map when the stream "
             "ended: each pageblock's migratetype, skip mark, the reset's samples and page "
             "counts; each zone's compaction scanners and deferral state); "
             "the THP touch: the same with the prefix `thp_` plus `thp_touch.json`; the "
             "unmovable case: prefix `pin_` (`pin_vmstat_delta_observe.csv` covers the "
             "watching, `pin_vmstat_delta_thp.csv` the touch). Failed scenarios: "
             "`FAILED.txt`, with a failed boot's `splats.txt` (if any) and the end of its "
             "`console.log`.\n")
    return "\n".join(L)


# --- Repeated runs -----------------------------------------------------------

def layout_spread(summaries, wide=5):
    """Node scores at switch-on over runs: {nodes: {node: {min, max, median}},
    first_nodes: 'a, b', wide: True when a node's scores span more than wide}."""
    scores, firsts = {}, set()
    for s in summaries:
        k = s.get("khugehog", {})
        for node, v in k.get("head_start", {}).items():
            scores.setdefault(node, []).append(v["score_on"])
        if k.get("first_success_node") is not None:
            firsts.add(k["first_success_node"])
    if not scores:
        return None
    nodes = {n: {"min": min(v), "max": max(v), "median": stats.median(v)}
             for n, v in scores.items()}
    return {"nodes": nodes, "first_nodes": ", ".join(str(n) for n in sorted(firsts)) or "?",
            "wide": any(v["max"] - v["min"] > wide for v in nodes.values())}


def head_start_outcomes(summaries):
    """Per proactive scenario, which nodes above its high threshold at
    switch-on gained no free order-9 block before the stream (the
    mechanism deferred, or compacted without freeing one) in each run that
    counts: {scenario: {"runs": n, "idle": [(run, [(node, score_on,
    score_alloc), ...]), ...]}}, scenarios in first-seen order.  This is
    the mechanism's outcome, not a void run, and it is what spreads a
    scenario's runs."""
    out = {}
    for s in summaries:
        thresholds = s.get("thresholds")
        head = s.get("khugehog", {}).get("head_start")
        if not thresholds or not head:
            continue
        high = thresholds[1]
        entry = out.setdefault(s.get("scenario", "?"), {"runs": 0, "idle": []})
        entry["runs"] += 1
        idle = [(node, head[node]["score_on"], head[node]["score_alloc"])
                for node in validity.idle_nodes(head, high)]
        if idle:
            entry["idle"].append((s.get("run", "?"), idle))
    return out


def head_start_markdown(outcomes):
    """One line per proactive scenario from head_start_outcomes()."""
    L = []
    for name, e in outcomes.items():
        acted = e["runs"] - len(e["idle"])
        line = (f"- {name}: every node above high gained free blocks before the stream in "
                f"{acted} of {e['runs']} run(s)")
        if e["idle"]:
            line += "; none gained on " + "; ".join(
                f"run {run}: " + ", ".join(f"node {n} ({on} -> {at})" for n, on, at in idle)
                for run, idle in sorted(e["idle"], key=lambda x: str(x[0])))
        L.append(line)
    if not L:
        return []
    return ["Head start, per proactive scenario (runs that count; score at switch-on -> at "
            "the first allocation for a node that gained no free order-9 block: its "
            "mechanism deferred it or compacted it in vain, which counts as its outcome):\n"
            ] + L + [""]


def _table_section(title, intro, columns, rows):
    """README lines of a section holding one table, or none when rows is
    empty: the title, the intro paragraph, and a row per dict of rows.
    columns: [(heading, key, right-aligned)]."""
    if not rows:
        return []
    L = [f"## {title}\n", intro + "\n",
         "| " + " | ".join(h for h, _, _ in columns) + " |",
         "|" + "|".join("---:" if right else ":---" for _, _, right in columns) + "|"]
    L += ["| " + " | ".join(f"{r[k]}" for _, k, _ in columns) + " |" for r in rows]
    return L + [""]


def _ran_out_markdown(rows):
    """The section on streams that ran out (runs.stream_outcomes() and
    runs.failed_stream_pairs()), as lines; none without failure counts."""
    every_outcome = runs.stream_outcomes(rows)
    outcomes = {k: e for k, e in every_outcome.items() if e["made_per_s"] is not None}
    if not outcomes:
        return []
    L = ["## Streams that ran out\n",
         "A stream fails an allocation only once every node's stock is gone and its own "
         "direct compaction finds nothing; whether it gets there turns on a few blocks (its "
         "stock at the start and what is made while it runs, against what it takes), so at "
         "some rates the same scenario runs out in one boot and not the next. Per workload: "
         "the streams with at least one failed allocation, and the free blocks made while "
         "each stream ran (obtained + free at its end - free at its start, whoever made "
         "them; median per second of stream).\n",
         "*Stopped early*: streams that failed attempts ended before khugehog's margin, "
         "with free memory left: 100 in a row (`failures`), or so many that its records, "
         "sized for the successes memory allows plus those 100, filled (`records_full`); "
         "n/a for runs that did not keep how each stream ended.\n",
         "| Scenario | Workload | streams | ran out | stopped early | "
         "blocks made per s (median) |",
         "|:---|:---|---:|---:|---:|---:|"]
    for (name, w), e in outcomes.items():
        L.append(f"| {name} | {w} | {e['streams']} | {e['failed']} | "
                 f"{_fmt(e['stopped_early'])} | {_fmt(e['made_per_s'])} |")
    pairs = runs.failed_stream_pairs(every_outcome)
    if pairs:
        L.append("")
        L += _fisher_table("Over every workload both ran, the streams that ran out, and the "
                           "two-sided p of Fisher's exact test that both run out equally often "
                           "(a small p says they do not).", "ran out", pairs)
    early = runs.failed_stream_pairs(every_outcome, "stopped_early")
    if early:
        L.append("")
        L += _fisher_table("The same for the streams that stopped early: a small p says one "
                           "mechanism stops before its margin more often than the other.",
                           "stopped early", early)
    L.append("")
    return L


def _fisher_table(intro, counted, pairs):
    """runs.failed_stream_pairs()'s pairs as a table of the streams counted, with its intro."""
    L = [intro + "\n", f"| Scenario | against | {counted} | against's {counted} | Fisher p |",
         "|:---|:---|---:|---:|---:|"]
    for name, base, k1, n1, k2, n2, p in pairs:
        L.append(f"| {name} | {base} | {k1}/{n1} | {k2}/{n2} | {_fmt(p)} |")
    return L


def intent_to_treat_markdown(counted):
    """How many of each option scenario's counted runs (their summaries)
    its option acted in, under intent to treat."""
    tally = {}
    for summary in counted:
        name = summary.get("scenario")
        option = scenarios.BY_NAME.get(name)
        if option is not None and option.acts:
            acted, total = tally.get(name, (0, 0))
            tally[name] = (acted + (not summary.get("intent_to_treat")), total + 1)
    if not tally:
        return []
    return ["Intent to treat: the option acted in " +
            ", ".join(f"{a} of {t} counted runs of {n}" for n, (a, t) in tally.items()) +
            "; the others count as that option's outcome.\n"]


def runs_markdown(ctx, targets, run_rows, aggregated, order, like=None,
                  run_rows_summaries=None):
    """The README sections of a repeated run: how the runs went (order,
    void runs and why), the targets with intervals and verdicts, the
    like-with-like latencies and the manual compactions."""
    L = ["## Runs and validity\n"]
    allow = ctx.get("allow_other_vms")
    L.append(f"- {ctx['runs']} run(s) per scenario, one boot each, in a randomised interleaved "
             f"order (every round runs each scenario once, shuffled; seed {ctx['seed']}); "
             f"a run that fails or is void is retried at most {ctx['retries']} time(s)")
    L.append("- A run is void, and left out of the statistics, when: manual compaction left "
             f"< {validity.MANUAL_MIN_SHARE_PCT:g}% of free memory in free order-9 blocks (in "
             "a manual rate sweep, which compacts before every step, that step alone is left "
             "out); "
             + validity.HEAD_START_RULE_TEXT[ctx.get("head_start_rule", 1)] + "; a node "
             f"was below score {validity.LAYOUT_MIN_SCORE} before switch-on (not fragmented: "
             "every node is fragmented explicitly, `frag --node N`, so all scenarios share "
             "the layout); another QEMU ran on the host" +
             (" (**overridden**: runs with other VMs count, flagged below)" if allow else "") +
             "; an option's counter stayed 0 (it never acted: the run measured pcompact "
             "without it)" +
             (" (**intent to treat** (`--intent-to-treat`): such runs count, as the option's "
              "setting over every boot is what a default is judged by; flagged below)"
              if ctx.get("intent_to_treat") else ""))
    if not ctx.get("enforce_validity", True):
        L.append("- **Validity checks not enforced** (`--quick` or `--no-enforce-validity`): "
                 "runs that fail them count, marked *(not enforced)* below")
    if ctx.get("other_vms_at_start"):
        L.append(f"- **{ctx['other_vms_at_start']} other QEMU process(es) were running when "
                 "the bench started**" + (" (allowed by --allow-other-vms)" if allow else ""))
    L.append("")
    L.append("| # | Scenario | Run | Attempt | Counts | Void or failure | Wall | Host load | "
             "Other VMs |")
    L.append("|---:|:---|---:|---:|:---|:---|---:|---:|---:|")
    for row in run_rows:
        pos, name, run, attempt, status, ok, why, wall, load, others, _ = row
        L.append(f"| {pos} | {name} | {run} | {attempt} | {'yes' if ok == 'yes' else '**no**'} | "
                 f"{why or ('' if status == 'ok' else status)} | {_fmt(wall, ' s')} | "
                 f"{_fmt(load)} | {_fmt(others)} |")
    L.append("")
    if ctx.get("intent_to_treat"):
        L.extend(intent_to_treat_markdown(run_rows_summaries or []))
    spread = layout_spread(run_rows_summaries) if run_rows_summaries else None
    if spread:
        L.append("Per-node layout at switch-on over the runs that count (khugehog workload): " +
                 "; ".join(f"node {n}: score {v['min']}-{v['max']} (median {v['median']})"
                           for n, v in sorted(spread["nodes"].items())) +
                 f"; first allocation served by node(s) {spread['first_nodes']}" +
                 (". **The layouts differ by more than 5 points between runs.**"
                  if spread["wide"] else ".") + "\n")
    if run_rows_summaries:
        L.extend(head_start_markdown(head_start_outcomes(run_rows_summaries)))
    counted = {n: aggregated.get(n, {}).get("n_valid", 0) for n in order}
    L.append("Runs that count per scenario: " +
             ", ".join(f"{n} {c}" for n, c in counted.items()) + ".\n")

    L.append("## Targets\n")
    L.append("Each target on the median over the runs that count, with a 95% percentile "
             "bootstrap interval (ratios: the two scenarios' runs resampled independently). "
             "**met** or **missed** only when the whole interval lies on one side of the "
             f"threshold and each side has at least {stats.MIN_RUNS_TO_SETTLE} runs (the "
             "interval of a median lies within its runs' range, which holds the median "
             "with probability 1 - 2^(1-n): 75% for 3 runs); otherwise **unsettled**. "
             "Fewer than 2 runs give no interval.\n")
    L.append("| Target | Estimate [95% interval] | Runs | Verdict |")
    L.append("|:---|:---|---:|:---|")
    for i, t in enumerate(targets, 1):
        L.append(f"| {i}. {t['target']} | {t['measured']} | {t['n']} | {t['verdict']} |")
    L.append("")
    whys = [(i, t) for i, t in enumerate(targets, 1) if t.get("why")]
    if whys:
        L.append("Why (from the median run's counters):\n")
        for i, t in whys:
            L.append(f"- {i}. {t['target']}: {t['why']}.")
        L.append("")

    L += _table_section(
        "Rate sweep: each step's target",
        "At every offered rate pcompact's mean and share over 100 us at most 0.5x the "
        "kernel's, or within 2x the manual floor where the kernel is already there (issue "
        "13). The floor clause (sweep-manual: memory compacted before every step) is met "
        "when pcompact and the kernel are both settled within 2x the floor's median (where "
        "that median is 0, at 0), missed when pcompact is settled over it, and does not "
        "apply where the kernel is. A step meets its target when either row above is met, "
        "misses it when neither can be, and otherwise takes the 0.5x row's verdict where "
        "the floor tells nothing, else unsettled.",
        [("Step", "step", False), ("Metric", "metric", False), ("0.5x kernel", "ratio", False),
         ("Floor clause", "floor", False), ("Step's verdict", "verdict", False)],
        runs.sweep_step_verdicts(targets))

    L += _table_section(
        "Options against plain pcompact",
        "Each scenario that is pcompact with one more parameter, against its plain scenario "
        "(pcompact, bursts-pcompact for a bursts option, pcompact-p80 for pcompact-p80-<x>) "
        "in the same run: ratio of the "
        "medians over the runs that count, 95% bootstrap interval. "
        "**better** or **worse** only when the whole interval lies on one side of 1; otherwise "
        "**unsettled**.",
        [("Option scenario", "option", False), ("Metric", "metric", False),
         ("Ratio [95% interval]", "measured", False), ("Runs", "n", True),
         ("Verdict", "verdict", False)],
        ctx.get("options"))
    L += _table_section(
        "Options against the targets",
        "The targets above that are about plain pcompact, each option scenario in its place: "
        "what pcompact would meet with the option as its default. Same intervals and verdicts "
        "as the targets.",
        [("Option scenario", "option", False), ("Target", "target", False),
         ("Estimate [95% interval]", "measured", False), ("Runs", "n", True),
         ("Verdict", "verdict", False)],
        ctx.get("option_targets"))
    L += _table_section(
        "Context against the kernel (not targets)",
        "Figures that explain a target, each pcompact scenario against the kernel at its "
        "proactiveness on the same runs: ratio of the medians, 95% bootstrap interval, no "
        "verdict. Compactor CPU per block created counts every block created, also those the "
        "stream's direct compaction made, but only the compactor's CPU; the stream's time is "
        "where direct compaction and reclaim ran, so the sum is the blocks' whole cost as far "
        "as the allocating task waited for it; with `--trace-stream`, the direct compaction's "
        "own time (from each try_to_compact_pages to its last zone's outcome, in the "
        "allocating task) takes the stream's place, so that every block is charged with the "
        "compaction that made it and nothing else.",
        [("Scenario", "scenario", False), ("Metric", "metric", False),
         ("Ratio [95% interval]", "measured", False), ("Runs", "n", True)],
        ctx.get("context"))

    if like:
        L.append(f"## Like with like: the first {like['common_n']} successes\n")
        L.append(f"Latency over the first {like['common_n']} successful allocations of every "
                 "run (the fewest any counting run obtained), so a scenario that stopped early "
                 "is not averaged over an easier subset; median over runs. Hugepages obtained "
                 "are reported on their own.\n")
        L.append("| Scenario | p50 (us) | p95 (us) | mean (us) | successes > 100 us (%) | "
                 "Hugepages obtained |")
        L.append("|:---|---:|---:|---:|---:|---:|")
        for n in order:
            row = like["by_scenario"].get(n)
            if not row:
                continue
            L.append(f"| {n} | {_fmt(row.get('p50_us'))} | {_fmt(row.get('p95_us'))} | "
                     f"{_fmt(row.get('mean_us'))} | {_fmt(row.get('over_100us_pct'))} | "
                     f"{_fmt(row.get('count'))} |")
        L.append("")

    bursts = ctx.get("bursts")
    if bursts:
        L.append("## Sized, repeated bursts\n")
        L.append("After switch-on, each burst waits until every node is at or below the low "
                 "threshold, or at or below the high one with the compactors idle (under "
                 "10 ms of CPU in a second: between the thresholds neither mechanism "
                 "starts), at most 60 s; *low* and *idle* count the runs whose burst "
                 "started for each reason, the rest waited the 60 s. Then it "
                 "allocates 80% of the free order-9 blocks a free memory fragmented to that "
                 "score holds, frees them, and frag fragments again with the mechanism still "
                 "on. Medians over the runs that count; the p99 of attempts counts a failed "
                 "allocation as slower than any.\n")
        L.append("| Scenario | Burst | low (runs) | idle (runs) | wait (s) | size | "
                 "obtained % | p50 (us) | p95 (us) | > 100 us (%) | p99 of attempts (us) | "
                 "3 slowest (us) |")
        L.append("|:---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for r in bursts:
            slowest = " / ".join(_fmt(v) for v in r[11:14])
            L.append(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {_fmt(r[4])} | {_fmt(r[5])} | "
                     f"{_fmt(r[6])} | {_fmt(r[7])} | {_fmt(r[8])} | {_fmt(r[9])} | "
                     f"{_fmt(r[10])} | {slowest} |")
        if any(r[0] == runs.MANUAL_FIRST for r in bursts):
            L.append("")
            L.append(f"*{runs.MANUAL_FIRST}*: the floor measured as a burst is, over the "
                     "first N attempts of manual's drain (N: the bursts' median size), so "
                     "that its p99 and slowest rest on as few allocations.")
        L.append("")
    if ctx.get("streams"):
        L.append("## Workloads beyond the drain\n")
        L.append("The rate sweep (khugehog with `delay_us` between allocations and `max` "
                 "steps of about 1 GiB; each step its own fragmentation and head start) and "
                 "the gfp=thp / gfp=light streams; medians over the runs that count "
                 "(`streams.csv`). Offered rate: 1e6 / delay_us, back to back: the rate "
                 "achieved.\n")
        L.append("| Scenario | Workload | gfp | delay (us) | offered /s | runs | hugepages | "
                 "failures | p50 (us) | p95 (us) | > 100 us (%) |")
        L.append("|:---|:---|:---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for r in ctx["streams"]:
            L.append(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {_fmt(r[4])} | {r[5]} | "
                     f"{_fmt(r[6])} | {_fmt(r[7])} | {_fmt(r[8])} | {_fmt(r[9])} | "
                     f"{_fmt(r[11])} |")
        L.append("")
    starts = runs.stream_start_summary(ctx.get("stream_starts") or [])
    if starts:
        L.append("## Stock at each stream's start, run by run\n")
        L.append("What the head start left for each stream of a proactive scenario: free "
                 "order-9 blocks at the last sample before the first allocation, and the "
                 "direct compaction stalls that followed (`compact_stall`), per run sorted by "
                 "that stock as *stock -> stalls (mean us)*. Once the stock runs out the stream "
                 "compacts for itself, and the first direct reclaim drains every CPU's "
                 "per-cpu lists, whose pages can complete many blocks at once: the pages "
                 "those lists held at the start (median; per run and node in "
                 "`stream_starts.csv`; n/a where the guest did not record them).\n")
        L.append("Held blocks: khugehog's count, just before its first allocation, of "
                 "the blocks whose pages were all free but some on per-cpu lists, so that "
                 "neither the stock nor an allocation on another CPU saw them, and whole + "
                 "held: its count of the blocks free as one buddy plus those, taken together, "
                 "what a drain of the lists would make the stock (medians over the runs "
                 "khugehog counted them in; *+held* per run; n/a where it did not).\n")
        L.append("| Scenario | Workload | runs | stock (median) | held blocks (median) | "
                 "whole + held (median) | per-cpu pages (median) | stalls (median) | "
                 "by stock: stock +held -> stalls (mean us) |")
        L.append("|:---|:---|---:|---:|---:|---:|---:|---:|:---|")
        for (name, w), e in starts.items():
            by = ", ".join(f"{stock}{'' if held is None else f' +{held}'} -> "
                           f"{_fmt(stalls)} ({_fmt(mean)})"
                           for stock, stalls, mean, held in e["by_stock"])
            L.append(f"| {name} | {w} | {e['runs']} | {_fmt(e['stock'])} | "
                     f"{_fmt(e['held'])} | {_fmt(e['supply'])} | {_fmt(e['pcp'])} | "
                     f"{_fmt(e['stalls'])} | {by} |")
        supply = runs.stream_start_supply(ctx.get("stream_starts") or [], ctx.get("seed", 0))
        if supply:
            L.append("")
            L.append("Over every stream of every run, pcompact's supply at the start against the "
                     "kernel's, and an option scenario's against plain pcompact's: the ratio of "
                     "the medians, with a 95% bootstrap interval that resamples whole runs (the "
                     "streams of one boot are not independent).\n")
            L.append("| Scenario | against | at the stream's start | runs | median | "
                     "against's median | ratio [95%] |")
            L.append("|:---|:---|:---|---:|---:|---:|:---|")
            for name, kernel, label, got in supply:
                L.append(f"| {name} | {kernel} | {label} | {got['n_num']}/{got['n_den']} | "
                         f"{_fmt(got['median_num'])} | {_fmt(got['median_den'])} | "
                         f"{_fmt(got['ratio'])}x [{_fmt(got['lo'])}, {_fmt(got['hi'])}] |")
        L.append("")
        L.extend(_ran_out_markdown(ctx.get("stream_starts") or []))
    L.append("Plots below: the latency CDF has one line per run that counts; the others "
             "show one run per scenario, the one whose khugehog p50 is nearest the median "
             "(`plot_run` in `<scenario>/summary.json`). Raw files of every run, void ones "
             "too, are in `<scenario>/run-<r>[-void<a>]/`; `runs.csv` lists every boot.\n")
    manual = [r for r in run_rows if scenarios.is_manual(r[1])]
    if manual:
        L.append("## Manual compaction, run by run\n")
        L.append("Each write to /proc/sys/vm/compact_memory is waited for and timed; the guest "
                 f"writes again (at most 3 times) while < {validity.MANUAL_MIN_SHARE_PCT:g}% "
                 "of free memory is in free order-9 blocks.\n")
        L.append("| Scenario | Workload | Run | Attempt | Writes | First write (s) | "
                 "All writes (s) | Free blocks before -> after | Free memory in blocks "
                 "after (%) |")
        L.append("|:---|:---|---:|---:|---:|---:|---:|:---|---:|")
        for r in ctx.get("manual_rows", []):
            L.append(f"| {r.get('scenario', 'manual')} | {r.get('workload', 'khugehog')} | "
                     f"{r['run']} | {r['attempt']} | {r['writes']} | "
                     f"{_fmt(r['first_duration_s'])} | {_fmt(r['duration_s'])} | "
                     f"{r['free_blocks_before']} -> {r['free_blocks_after']} | "
                     f"{_fmt(r['free_in_blocks_pct_after'])} |")
        L.append("")
    return "\n".join(L)
