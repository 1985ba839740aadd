# SPDX-License-Identifier: GPL-2.0
"""Unit tests of benchlib.validity: the checks that void a run, and the
compact_memory record they read."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
from benchlib import metrics, parse, runs, validity  # noqa: E402

# Fragmented: orders 0 and 1 only; compacted: almost all in order-9/10.
FRAG = ["Node 0, zone DMA32 4000 4000 0 0 0 0 0 0 0 1 0",
        "Node 1, zone DMA32 4000 4000 0 0 0 0 0 0 0 0 0"]
DONE = ["Node 0, zone DMA32 10 10 0 0 0 0 0 0 0 4 10",
        "Node 1, zone DMA32 10 10 0 0 0 0 0 0 0 2 11"]


def record(before=FRAG, after=DONE, rc=0, t=(10.0, 12.5), trace=()):
    lines = ["label manual", "pcp_before 51640", "pcp_after_drain 1200", "drain_s 12.5",
             f"t_start {t[0]}",
             "before_compact_migrate_scanned 100", "before_pgmigrate_success 50"]
    lines += [f"buddy_before {b}" for b in before]
    lines += [f"t_end {t[1]}", f"rc {rc}",
              "after_compact_migrate_scanned 9100", "after_pgmigrate_success 3050"]
    lines += [f"buddy_after {b}" for b in after]
    lines += [f"trace {x}" for x in trace]
    return "\n".join(lines) + "\n"


def test_compact_record_parses_and_times():
    r = parse.compact_record(record())
    assert r["duration_s"] == pytest.approx(2.5)
    assert r["rc"] == 0 and r["label"] == "manual"
    assert r["before"]["pgmigrate_success"] == 50 and r["after"]["pgmigrate_success"] == 3050
    assert len(r["buddy_before"]) == 2 and len(r["buddy_after"]) == 2


@pytest.mark.parametrize("drop", ["t_end", "rc", "buddy_after"])
def test_compact_record_incomplete_is_an_error(drop):
    text = "\n".join(line for line in record().splitlines() if not line.startswith(drop))
    with pytest.raises(parse.ParseError):
        parse.compact_record(text)


def test_compact_record_unknown_line_is_an_error():
    with pytest.raises(parse.ParseError):
        parse.compact_record(record() + "bogus 1\n")


def test_free_in_blocks_pct():
    rows = [parse.buddyinfo_line(b) for b in FRAG]
    # 512 of 24512 free pages are in the one order-9 block.
    assert validity.free_in_blocks_pct(rows) == pytest.approx(100 * 512 / 24512)
    assert validity.free_in_blocks_pct([(0, "DMA32", [0] * 11)]) is None


def test_manual_check_passes_a_real_compaction():
    s = validity.manual_summary(parse.compact_record(record(trace=[
        "sh-1 [001] 1.0: mm_compaction_end: zone_start=0x1 mode=sync status=complete"])))
    assert s["free_blocks_before"] == 1 and s["free_blocks_after"] == 6 + 2 * 21
    assert s["migrated"] == 3000 and s["trace_status"] == ["complete"]
    assert s["pcp_before"] == 51640 and s["pcp_after_drain"] == 1200 and s["drain_s"] == 12.5
    assert s["free_in_blocks_pct_after"] > 90
    assert validity.manual_check(s) == []


def test_manual_check_judges_the_drained_state():
    # Right after the write the pages compaction freed sit on the per-cpu
    # lists; once drained the memory is compacted.
    text = record(after=FRAG) + "drained_pcp 700\n" + "".join(
        f"buddy_drained {b}\n" for b in DONE)
    s = validity.manual_summary(parse.compact_record(text))
    assert s["free_in_blocks_pct_undrained"] < 90 < s["free_in_blocks_pct_after"]
    assert s["drained_pcp"] == 700 and validity.manual_check(s) == []


def test_manual_check_voids_a_compaction_that_did_nothing():
    s = validity.manual_summary(parse.compact_record(record(after=FRAG, t=(10.0, 10.06))))
    reasons = validity.manual_check(s)
    assert len(reasons) == 1
    assert "0.06 s" in reasons[0] and "1 -> 1" in reasons[0] and "< 90%" in reasons[0]


def test_manual_combine_takes_first_before_and_last_after():
    nothing = validity.manual_summary(parse.compact_record(record(after=FRAG, t=(10.0, 10.06))))
    done = validity.manual_summary(parse.compact_record(record(before=FRAG, t=(11.0, 14.0))))
    both = validity.manual_combine([nothing, done])
    assert both["writes"] == 2 and both["duration_s"] == pytest.approx(3.06)
    assert both["first_duration_s"] == pytest.approx(0.06)
    assert both["free_blocks_before"] == 1 and both["free_blocks_after"] == 48
    assert both["migrated"] == 6000
    assert validity.manual_check(both) == []
    assert validity.manual_check(validity.manual_combine([done, nothing]))


def test_manual_check_voids_a_failed_write_and_a_missing_record():
    s = validity.manual_summary(parse.compact_record(record(rc=1)))
    assert any("exit 1" in r for r in validity.manual_check(s))
    assert validity.manual_check(None)


def rows(node_series):
    """scores.csv-like rows from {node: [(t, score, blocks)]}."""
    return [{"t_s": t, "node": n, "score": sc, "free_order9_blocks": b}
            for n, series in node_series.items() for t, sc, b in series]


def test_head_start_picks_switch_on_and_stream_samples():
    r = rows({0: [(-11, 95, 3), (-10, 95, 3), (-5, 90, 40), (-0.1, 85, 60), (0.5, 99, 0)],
              1: [(-11, 94, 5), (-10, 94, 5), (-0.1, 94, 5)]})
    nodes = validity.head_start(r, -10, 0)
    assert nodes[0] == {"score_on": 95, "blocks_on": 3, "score_alloc": 85,
                        "blocks_alloc": 60, "best_blocks": 60}
    assert nodes[1]["best_blocks"] == 5
    # No CPU record: whether the mechanism ran cannot be told.
    reasons = validity.head_start_check(nodes, 90, "sysctl")
    assert len(reasons) == 1 and "node 1" in reasons[0] and "did not act" in reasons[0]
    # kswapd reclaimed: the head start was under memory pressure.
    why = validity.head_start_check(nodes, 90, "sysctl",
                                    {"kcompactd": 8.2, "pcompactd": 0, "kswapd": 950.0})
    assert len(why) == 1 and "[1]" in why[0] and "memory pressure" in why[0]
    assert why[0].endswith("(head start CPU: kcompactd 8 ms, pcompactd 0 ms, kswapd 950 ms)")
    # Node 0 gained blocks, so the mechanism ran; leaving node 1 alone (a
    # deferral) is its outcome, however little CPU it used.
    assert validity.head_start_check(nodes, 90, "sysctl",
                                     {"kcompactd": 8.2, "pcompactd": 0, "kswapd": 0}) == []


def test_head_start_stalled_nodes_void_only_a_mechanism_that_never_ran():
    nodes = validity.head_start(rows({0: [(-10, 95, 3), (-0.1, 94, 3)],
                                      1: [(-10, 93, 31), (-0.1, 94, 31)]}), -10, 0)
    # Both nodes above high gained nothing: void only if the thread idled.
    idle = validity.head_start_check(nodes, 90, "sysctl",
                                     {"kcompactd": 12.0, "pcompactd": 0, "kswapd": 0})
    assert len(idle) == 1 and "[0, 1]" in idle[0] and "did not act" in idle[0]
    # 6.1, kernel: kcompactd worked 313 ms and freed nothing: an outcome.
    assert validity.head_start_check(nodes, 90, "sysctl",
                                     {"kcompactd": 313.3, "pcompactd": 0, "kswapd": 0}) == []
    # The mechanism's own thread counts, not the other one's.
    assert validity.head_start_check(nodes, 90, "module",
                                     {"kcompactd": 313.3, "pcompactd": 0.5, "kswapd": 0})
    # Under the threshold kswapd's few wakeups are not pressure.
    assert validity.head_start_check(nodes, 90, "module",
                                     {"kcompactd": 0, "pcompactd": 400.0, "kswapd": 5.0}) == []
    # Not proactive: nothing to check.
    assert validity.head_start_check(nodes, None, "none") == []
    assert validity.head_start_check(nodes, 90, "manual") == []


def test_head_start_a_thread_that_compacted_briefly_ran():
    # 6.12, 1 node: kcompactd's first call ended within 9 ms, its scanners
    # met at pfn 0x2200 on a folio it found no free page of that order for,
    # and it deferred the node: 11 ms of CPU, no block.  That is the
    # kernel's outcome on that layout, not a thread that never ran.
    nodes = validity.head_start(rows({0: [(-10, 95, 29), (-0.1, 95, 29)]}), -10, 0)
    cpu = {"kcompactd": 11.0, "pcompactd": 0, "kswapd": 0}
    assert validity.head_start_check(nodes, 90, "sysctl", cpu,
                                     tried={"kcompactd": 1543210}) == []
    # Scanned nothing: it never ran, as before.
    never = validity.head_start_check(nodes, 90, "sysctl", cpu, tried={"kcompactd": 0})
    assert len(never) == 1 and "did not act" in never[0]
    # Not recorded (runs before the count): the CPU alone decides.
    assert validity.head_start_check(nodes, 90, "sysctl", cpu) == never
    # The mechanism's own thread counts: pcompactd began no round.
    assert validity.head_start_check(
        nodes, 90, "module", {"kcompactd": 0, "pcompactd": 3.0, "kswapd": 0},
        tried={"kcompactd": 5000, "pcompactd": 0})
    assert validity.head_start_check(
        nodes, 90, "module", {"kcompactd": 0, "pcompactd": 3.0, "kswapd": 0},
        tried={"kcompactd": 0, "pcompactd": 1}) == []


def test_head_start_node_below_high_needs_nothing():
    nodes = validity.head_start(rows({0: [(-10, 85, 3), (-1, 85, 3)]}), -10, 0)
    assert validity.head_start_check(nodes, 90, "module") == []


def test_head_start_unmovable_asks_for_an_attempt_not_blocks():
    # The unmovable case: no block can be freed, so none gained is normal;
    # the mechanism's own thread must have tried.
    nodes = validity.head_start(rows({0: [(-50, 99, 0), (-1, 99, 0)],
                                      1: [(-50, 99, 0), (-1, 99, 0)]}), -50, 0)
    assert validity.head_start_check(nodes, 90, "module", {"pcompactd": 310.0, "kcompactd": 0},
                                     movable=False) == []
    assert validity.head_start_check(nodes, 90, "sysctl", {"kcompactd": 12.0, "pcompactd": 0},
                                     movable=False) == []
    idle = validity.head_start_check(nodes, 90, "module", {"pcompactd": 0, "kcompactd": 40.0},
                                     movable=False)
    assert len(idle) == 1 and "pcompactd used no CPU" in idle[0] and "[0, 1]" in idle[0]
    assert "unknown" in validity.head_start_check(nodes, 90, "sysctl", None, movable=False)[0]
    # The movable rule: the thread worked, so nothing voids; without a
    # CPU record both nodes do.
    assert validity.head_start_check(nodes, 90, "module", {"pcompactd": 310.0}) == []
    assert len(validity.head_start_check(nodes, 90, "module")) == 2
    below = validity.head_start(rows({0: [(-50, 60, 0)]}), -50, 0)
    assert validity.head_start_check(below, 90, "module", None, movable=False) == []
    assert validity.head_start_check(nodes, None, "none", None, movable=False) == []


def test_head_start_without_samples_is_void():
    assert validity.head_start_check({}, 90, "module")


def test_layout_check():
    good = validity.head_start(rows({0: [(-10, 95, 3)], 1: [(-10, 94, 4)]}), -10, 0)
    assert validity.layout_check(good) == []
    mirrored = validity.head_start(rows({0: [(-10, 95, 3)], 1: [(-10, 60, 90)]}), -10, 0)
    reasons = validity.layout_check(mirrored)
    assert len(reasons) == 1 and "1 at score 60" in reasons[0]
    assert validity.layout_check({})


def test_host_check():
    assert validity.host_check(0, False) == []
    assert validity.host_check(2, True) == []
    assert "2 other QEMU" in validity.host_check(2, False)[0]


def test_report_states_the_head_start_rule_its_runs_were_judged_by():
    from benchlib import report
    ctx = {"runs": 5, "seed": 1, "retries": 1}
    old = report.runs_markdown(ctx, [], [], {}, [])
    assert "did not act in its head start" in old and "never ran" not in old
    new = report.runs_markdown(dict(ctx, head_start_rule=2), [], [], {}, [])
    assert "never ran" in new and "kswapd ran" in new


STREAM_TRACE = """# tracer: nop
 khugehog-90  [000] .....    29.90: mm_compaction_try_to_compact_pages: order=9 gfp_mask=GFP_KERNEL priority=2
 khugehog-90  [000] .....    30.10: mm_compaction_try_to_compact_pages: order=9 gfp_mask=GFP_KERNEL priority=2
 khugehog-90  [000] .....    30.11: mm_compaction_deferred: node=0 zone=DMA32    order=9 order_failed=9 consider=6 limit=64
 khugehog-90  [000] .....    30.12: mm_compaction_end: zone_start=0x60000 migrate_pfn=0xbfe00 free_pfn=0xbfe00 zone_end=0xbffe0, mode=async status=partial_skipped
 khugehog-90  [000] .....    30.13: mm_compaction_try_to_compact_pages: order=9 gfp_mask=GFP_KERNEL priority=1
 khugehog-90  [000] .....    30.14: mm_compaction_end: zone_start=0x60000 migrate_pfn=0x71a00 free_pfn=0xbfe00 zone_end=0xbffe0, mode=sync status=success
 pcompactd0-7 [001] .....    30.15: pcompact_range: nid=1 pfn=0x62c00 nr_blocks=74 in_use=9472 err=0 elapsed_ns=1
 khugehog-90  [000] .....    31.50: mm_compaction_end: zone_start=0x60000 migrate_pfn=0x71a00 free_pfn=0xbfe00 zone_end=0xbffe0, mode=sync status=complete
"""


def test_stream_trace_counts_the_stream_window_only():
    c = parse.stream_trace(STREAM_TRACE, 30.0, 31.0)
    assert c["mm_compaction_try_to_compact_pages"] == 2
    assert c["mm_compaction_try_to_compact_pages priority=2"] == 1
    assert c["mm_compaction_try_to_compact_pages priority=1"] == 1
    assert c["mm_compaction_deferred"] == 1
    assert c["mm_compaction_end status=partial_skipped"] == 1
    assert c["mm_compaction_end status=success"] == 1
    assert "mm_compaction_end status=complete" not in c
    assert "pcompact_range" not in c


def test_stream_trace_event_without_its_field_is_an_error():
    text = " k-1 [000] ..... 30.5: mm_compaction_end: zone_start=0x60000 mode=sync\n"
    with pytest.raises(parse.ParseError):
        parse.stream_trace(text, 30.0, 31.0)


MIGRATION_TRACE = """# tracer: nop
   kcompactd0-43  [000] .....    19.50: mm_compaction_migratepages: nr_migrated=32 nr_failed=0
        <...>-192 [001] .....    20.10: mm_compaction_migratepages: nr_migrated=30 nr_failed=2
        <...>-192 [001] .....    20.20: pcompact_range: nid=1 pfn=0x62c00 nr_blocks=2 in_use=256 err=0 elapsed_ns=1
        <...>-192 [001] .....    20.30: pcompact_range: nid=1 pfn=0x62e00 nr_blocks=2 in_use=250 err=-16 elapsed_ns=1
     khugehog-901 [000] .N...    30.60: mm_compaction_migratepages: nr_migrated=16 nr_failed=1
     khugehog-901 [000] .....    30.70: mm_compaction_end: zone_start=0x1000 migrate_pfn=0x4d200 free_pfn=0x4d200 zone_end=0x60000, mode=async status=partial_skipped
        <...>-192 [001] .....    31.90: mm_compaction_migratepages: nr_migrated=32 nr_failed=0
"""


def test_stream_migrations_are_counted_by_thread_in_the_window():
    got = parse.stream_migrations(MIGRATION_TRACE, 20.0, 31.0)
    # kcompactd's batch is before the window and 192's last one after it;
    # a contig call that failed moved nothing it can be credited with.
    assert got == {192: 30 + 256, 901: 16}
    assert parse.stream_migrations(MIGRATION_TRACE, 0, 99)[43] == 32


def test_stream_migrations_without_a_count_is_an_error():
    text = " k-1 [000] ..... 30.5: mm_compaction_migratepages: nr_failed=0\n"
    with pytest.raises(parse.ParseError):
        parse.stream_migrations(text, 30.0, 31.0)


def test_traced_migrations_split_the_compactor_from_the_stream():
    from benchlib import report
    files = {"khugehog/stream_trace.txt": MIGRATION_TRACE}
    ev = {"mech_on": 19.0, "alloc_end": 32.0}
    threads = {"pcompactd1": {"pid": 192}, "kcompactd0": {"pid": 43},
               "kswapd0": {"pid": 57}}
    got = report.traced_migrations(files, "khugehog", ev, threads)
    assert got == {"compactor": 32 + 30 + 256 + 32, "others": 16}
    # No trace, no figures (not zeros).
    assert report.traced_migrations({}, "khugehog", ev, threads) is None
    cost = report.cost_summary({"count": 10, "free_order9_blocks_before": 2,
                                "cpu_ms": {"pcompactd": 35.0},
                                "traced_migrated": got}, [], None, "")
    assert cost["compactor_cpu_us_per_page_migrated"] == pytest.approx(35000 / 350)
    assert cost["compactor_migrated_share_pct"] == pytest.approx(100 * 350 / 366)
    assert "compactor_cpu_us_per_page_migrated" not in report.cost_summary(
        {"count": 10, "free_order9_blocks_before": 2, "cpu_ms": {}}, [], None, "")


def test_head_start_cost_splits_into_pages_per_block_and_cpu_per_page():
    from benchlib import report
    files = {"khugehog/stream_trace.txt": MIGRATION_TRACE}
    ev = {"mech_on": 19.0, "alloc_start": 30.0, "alloc_end": 32.0}
    threads = {"pcompactd1": {"pid": 192}, "kcompactd0": {"pid": 43}}
    traced = report.traced_migrations(files, "khugehog", ev, threads)
    # The stream's own migrations (901's, and 192's after 30.0) are not
    # the head start's.
    assert traced["compactor_head_start"] == 32 + 30 + 256
    head = {"count": 10, "free_order9_blocks_before": 2, "whole_blocks_at_start": 5,
            "held_blocks_at_start": 1, "cpu_ms": {"pcompactd": 50.0},
            "head_start_cpu_ms": {"pcompactd": 31.8, "kcompactd": 0.0},
            "traced_migrated": traced}
    cost = report.cost_summary(head, [], None, "")
    assert cost["compactor_migrated_per_block_head_start"] == pytest.approx(318 / 4)
    assert cost["compactor_cpu_us_per_page_head_start"] == pytest.approx(31800 / 318)
    # Their product is the head start's CPU per block created.
    assert cost["compactor_migrated_per_block_head_start"] * \
        cost["compactor_cpu_us_per_page_head_start"] / 1000 == \
        pytest.approx(cost["compactor_cpu_ms_per_block_head_start"])
    # Without the stream's start there is no head start to count.
    del ev["alloc_start"]
    assert "compactor_head_start" not in report.traced_migrations(files, "khugehog", ev, threads)
    assert "compactor_cpu_us_per_page_head_start" not in report.cost_summary(
        {**head, "traced_migrated": {"compactor": 1, "others": 0}}, [], None, "")


def test_stored_runs_get_their_head_start_migrations_from_the_trace(tmp_path):
    from benchlib import report
    run = tmp_path / "run-1"
    run.mkdir()
    (run / "stream_trace.txt").write_text(MIGRATION_TRACE)
    (run / "events.csv").write_text("event,uptime_s,t_s\nmech_on,19.0,-11\n"
                                    "alloc_start,30.0,0\nalloc_end,32.0,2\n")
    (run / "kthreads_cpu.csv").write_text(
        "comm,pid,run_ms_before,run_ms_after,delta_ms\n"
        "kcompactd0,43,0,1,1\npcompactd1,192,0,50,50\nkswapd0,901,0,1,1\n")
    summary = {"khugehog": {
        "traced_migrated": {"compactor": 999, "others": 16},
        "traced_direct_compaction": {"ms": 0.0, "calls": 0},
        "free_order9_blocks_before": 2, "whole_blocks_at_start": 5, "held_blocks_at_start": 1,
        "head_start_cpu_ms": {"pcompactd": 31.8}}}
    report.stored_traced_costs(str(run), summary)
    k = summary["khugehog"]
    # The head start's count is added; the bench's own figures stay.
    assert k["traced_migrated"] == {"compactor": 999, "others": 16, "compactor_head_start": 318}
    assert k["compactor_migrated_per_block_head_start"] == pytest.approx(318 / 4)
    assert k["compactor_cpu_us_per_page_head_start"] == pytest.approx(100.0)
    for metric in ("pages the compactor migrated per block created in the head start (traced)",
                   "compactor CPU per page it migrated in the head start (traced)"):
        assert runs.metric(summary, dict(runs.CONTEXT_METRICS)[metric]) is not None
    # A run without its events is left as it was.
    (run / "events.csv").unlink()
    bare = {"khugehog": {"traced_migrated": {"compactor": 350, "others": 16},
                         "traced_direct_compaction": {"ms": 0.0, "calls": 0}}}
    report.stored_traced_costs(str(run), bare)
    assert "compactor_head_start" not in bare["khugehog"]["traced_migrated"]


# Two direct compactions of the allocating task 901 (the second one's zones
# deferred or unsuitable, the last still running when the trace ends), a
# kcompactd and a pcompactd call in between, and a kcompactd wakeup in the
# allocating task.
DIRECT_TRACE = """# tracer: nop
     khugehog-901 [000] .....    30.000: mm_compaction_try_to_compact_pages: order=9 gfp_mask=GFP_KERNEL priority=2
     khugehog-901 [000] .....    30.001: mm_compaction_suitable: node=0 zone=DMA32 order=9 ret=continue
   kcompactd0-43  [001] .....    30.002: mm_compaction_end: zone_start=0x1000 migrate_pfn=0x2000 free_pfn=0x5000 zone_end=0x60000, mode=sync status=success
     khugehog-901 [000] .....    30.003: mm_compaction_migratepages: nr_migrated=16 nr_failed=0
     khugehog-901 [000] .....    30.010: mm_compaction_end: zone_start=0x1000 migrate_pfn=0x4d200 free_pfn=0x4d200 zone_end=0x60000, mode=async status=success
     khugehog-901 [000] .....    30.011: mm_compaction_defer_reset: node=0 zone=DMA32 order=9 order_failed=0 consider=0 limit=64
     khugehog-901 [000] .....    30.050: mm_compaction_kcompactd_wake: nid=0 order=9 highest_zoneidx=DMA32
        <...>-192 [001] .....    30.060: mm_compaction_end: zone_start=0x60000 migrate_pfn=0x61000 free_pfn=0x70000 zone_end=0xc0000, mode=sync status=complete
     khugehog-901 [000] .....    30.100: mm_compaction_try_to_compact_pages: order=9 gfp_mask=GFP_KERNEL priority=2
     khugehog-901 [000] .....    30.102: mm_compaction_deferred: node=0 zone=DMA32 order=9 order_failed=9 consider=1 limit=2
     khugehog-901 [000] .....    30.104: mm_compaction_suitable: node=0 zone=Normal order=9 ret=skipped
     khugehog-901 [000] .....    30.500: mm_compaction_try_to_compact_pages: order=9 gfp_mask=GFP_KERNEL priority=2
"""


def test_direct_compaction_is_timed_to_each_calls_last_zone_outcome():
    seconds, calls = parse.direct_compaction_time(DIRECT_TRACE)
    # 30.000 to the deferral reset at 30.011, 30.100 to 30.104, and the
    # last call traced nothing after its start; the compactors' events and
    # the wakeup in the allocating task count for no call.
    assert calls == 3
    assert seconds == pytest.approx(0.011 + 0.004)
    assert parse.direct_compaction_time("") == (0.0, 0)


def test_direct_compaction_charges_blocks_with_the_compaction_that_made_them():
    from benchlib import report
    assert report.traced_direct_compaction(None) is None
    direct = report.traced_direct_compaction(DIRECT_TRACE)
    assert direct["calls"] == 3 and direct["ms"] == pytest.approx(15.0)
    cost = report.cost_summary({"count": 10, "free_order9_blocks_before": 2,
                                "cpu_ms": {"kcompactd": 35.0},
                                "traced_direct_compaction": direct}, [], None, "")
    assert cost["compaction_with_direct_ms_per_block_created"] == pytest.approx((35 + 15) / 8)
    assert "compaction_with_direct_ms_per_block_created" not in report.cost_summary(
        {"count": 10, "free_order9_blocks_before": 2, "cpu_ms": {}}, [], None, "")
    assert metrics.compaction_cost_per_block(35.0, 15.0, 0) is None
    assert metrics.compaction_cost_per_block(None, 15.0, 8) is None


# Where the context table reads it (runs.CONTEXT_METRICS).
DIRECT_PER_BLOCK = dict(runs.CONTEXT_METRICS)[
    "compactor CPU + direct compaction time per block created (traced)"]


def test_stored_runs_get_their_direct_compaction_from_the_trace(tmp_path):
    from benchlib import report
    run = tmp_path / "run-1"
    run.mkdir()
    (run / "stream_trace.txt").write_text(DIRECT_TRACE)
    summary = {"khugehog": {"compactor_cpu_ms": 35.0, "blocks_created": 8}}
    report.stored_traced_costs(str(run), summary)
    assert summary["khugehog"]["traced_direct_compaction"]["ms"] == pytest.approx(15.0)
    assert runs.metric(summary, DIRECT_PER_BLOCK) == pytest.approx(50 / 8)
    assert summary["khugehog"]["compaction_with_direct_ms_per_block_created"] == \
        pytest.approx(50 / 8)
    # What the bench computed stays; an untraced run gets nothing.
    kept = {"khugehog": {"traced_direct_compaction": {"ms": 1.0, "calls": 1}}}
    report.stored_traced_costs(str(run), kept)
    assert kept["khugehog"]["traced_direct_compaction"]["ms"] == 1.0
    bare = {"khugehog": {}}
    report.stored_traced_costs(str(tmp_path), bare)
    assert bare == {"khugehog": {}} and runs.metric(bare, DIRECT_PER_BLOCK) is None


# The head start of a 6.12 1-node kernel boot (pid 42 kcompactd0) and of a
# pcompact one (192 pcompactd0) as --trace-stream records them: the DMA
# zone, a whole-zone call whose scanners met 9 pageblocks in, and one that
# compacted far into the zone.
WALL_TRACE = """# tracer: nop
        <...>-42  [000] .....    23.76: mm_compaction_end: zone_start=0x1 migrate_pfn=0xe00 free_pfn=0xe00 zone_end=0x1000, mode=sync status=complete
        <...>-42  [000] .....    23.77: mm_compaction_end: zone_start=0x1000 migrate_pfn=0x2200 free_pfn=0x2200 zone_end=0xbffe0, mode=sync status=complete
        <...>-192 [001] .....    24.90: mm_compaction_end: zone_start=0x60000 migrate_pfn=0xb0000 free_pfn=0xb0000 zone_end=0xbffe0, mode=sync status=complete
        <...>-192 [001] .....    25.10: mm_compaction_end: zone_start=0x1000 migrate_pfn=0x1a800 free_pfn=0xa277c zone_end=0xbffe0, mode=sync status=contended
     khugehog-901 [000] .....    34.05: mm_compaction_end: zone_start=0x1000 migrate_pfn=0x2000 free_pfn=0x2000 zone_end=0xbffe0, mode=sync status=complete
"""


def test_compaction_ends_read_every_call_in_the_window():
    ends = parse.compaction_ends(WALL_TRACE, 23.0, 34.0)
    assert [e["pid"] for e in ends] == [42, 42, 192, 192]
    assert ends[1] == {"pid": 42, "t": 23.77, "zone_start": 0x1000, "migrate_pfn": 0x2200,
                       "free_pfn": 0x2200, "zone_end": 0xbffe0, "mode": "sync",
                       "status": "complete"}
    with pytest.raises(parse.ParseError):
        parse.compaction_ends(" k-1 [000] ..... 30.5: mm_compaction_end: zone_start=0x1000 "
                              "migrate_pfn=0xzz free_pfn=0x1 zone_end=0x2, mode=sync "
                              "status=complete\n", 30.0, 31.0)


def test_stopped_at_zone_start_is_a_met_call_near_the_start_of_a_large_zone():
    wall = [validity.stopped_at_zone_start(e) for e in parse.compaction_ends(WALL_TRACE, 0, 99)]
    # DMA is too small to tell; 9 blocks in is the wall; 352 blocks in
    # compacted a third of the zone; a contended call did not meet.
    assert wall == [False, True, False, False, True]
    # Met inside a block, as compact_scanners_met() allows (rule3-1x2 pcompact run 3).
    assert validity.stopped_at_zone_start(
        {"zone_start": 0x1000, "migrate_pfn": 0x2a5d, "free_pfn": 0x2a00,
         "zone_end": 0xbffe0, "status": "complete"})
    # Complete near the start but with the scanners apart: not this.
    assert not validity.stopped_at_zone_start(
        {"zone_start": 0x1000, "migrate_pfn": 0x2200, "free_pfn": 0xa277c,
         "zone_end": 0xbffe0, "status": "complete"})
