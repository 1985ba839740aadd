# SPDX-License-Identifier: GPL-2.0
"""Unit tests of the benchmark's data handling (scripts/benchlib): the
framed guest output, the raw-file parsers, the node score, deltas, derived
metrics, percentiles and the comparison table."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
from benchlib import frames, metrics, parse, table  # noqa: E402


# --- frames -----------------------------------------------------------------

def framed(name, lines):
    return f"=== file {name} lines={len(lines)} ===\n" + "".join(
        f"{line}\n" for line in lines) + f"=== end {name} ===\n"


def test_frames_complete_output():
    text = ("# bench: khugehog: fragmenting\n" + framed("a.txt", ["1", "2"]) +
            framed("dir/b.csv", ["x,y", "1,2"]) + framed("empty.txt", []) +
            "=== done ===\n# vm-run: exit 0\n")
    out = frames.split_frames(text)
    assert out.complete
    assert out.files == {"a.txt": "1\n2\n", "dir/b.csv": "x,y\n1,2\n", "empty.txt": ""}
    assert out.progress == ["khugehog: fragmenting"]
    assert out.exit_status == 0
    assert out.problems() == []


def test_frames_missing_end_marker_is_incomplete():
    text = "=== file a.txt lines=3 ===\n1\n2\n" + framed("b.txt", ["z"]) + "=== done ===\n"
    out = frames.split_frames(text)
    assert not out.complete
    assert "a.txt" not in out.files
    assert out.files["b.txt"] == "z\n"
    assert any("a.txt" in p and "no end marker" in p for p in out.incomplete)


def test_frames_cut_off_output_is_incomplete():
    out = frames.split_frames("=== file a.txt lines=3 ===\n1\n")
    assert not out.complete and "a.txt" not in out.files
    assert "did not finish" in " ".join(out.problems())


def test_frames_wrong_line_count_is_incomplete():
    text = "=== file a.txt lines=3 ===\n1\n2\n=== end a.txt ===\n=== done ===\n"
    out = frames.split_frames(text)
    assert not out.complete
    assert out.incomplete == ["a.txt: 3 lines announced, 2 received"]


def test_frames_guest_error_fails_the_run():
    out = frames.split_frames("=== error frag not ready within 900 s ===\n=== done ===\n")
    assert not out.complete
    assert out.errors == ["frag not ready within 900 s"]


def test_progress_lines_of_partial_output():
    assert frames.progress_lines("# bench: a\nnoise\n# bench: b") == ["a", "b"]


# --- parsers ----------------------------------------------------------------

def test_buddyinfo_line():
    node, zone, counts = parse.buddyinfo_line(
        "Node 1, zone    DMA32    551    581     35     32     21     22     19     20"
        "     16      0      2")
    assert (node, zone) == (1, "DMA32")
    assert counts == [551, 581, 35, 32, 21, 22, 19, 20, 16, 0, 2]


@pytest.mark.parametrize("line", ["Node x, zone DMA 1 2", "Node 0, zone DMA 1 two",
                                  "zone DMA 1", "Node 0, zone DMA"])
def test_buddyinfo_line_rejects_garbage(line):
    with pytest.raises(parse.ParseError):
        parse.buddyinfo_line(line)


def test_zone_present_pages():
    text = ("Node 0, zone      DMA\n  pages free 3\n        spanned  4095\n"
            "        present  3998\nNode 0, zone    DMA32\n        present  100\n"
            "Node 0, zone   Normal\n        present  0\n")
    assert parse.zone_present_pages(text) == {(0, "DMA"): 3998, (0, "DMA32"): 100,
                                              (0, "Normal"): 0}


# /proc/pagetypeinfo as mm/vmstat.c prints it (6.12): a section per node,
# free pages per type and order (trimmed to two orders) and then the block
# counts.  The free-page rows also start with "Node N, zone" and must not be
# read as block counts, in either node's section.
PAGETYPEINFO = """Page block order: 9
Pages per block:  512

Free pages count per migrate type at order       0      1
Node    0, zone      DMA, type    Unmovable      0      0
Node    0, zone      DMA, type      Movable      1      2
Node    0, zone    DMA32, type      Movable    300    150

Number of blocks type     Unmovable      Movable  Reclaimable   HighAtomic      Isolate
Node 0, zone      DMA            3            5            0            0            0
Node 0, zone    DMA32           20          700            4            0            0
Page block order: 9
Pages per block:  512

Free pages count per migrate type at order       0      1
Node    1, zone    DMA32, type    Unmovable      0      1
Node    1, zone    DMA32, type      Movable     40     20

Number of blocks type     Unmovable      Movable  Reclaimable   HighAtomic      Isolate
Node 1, zone    DMA32           11          750            2            0            1
"""


def test_pageblock_types_sums_zones_per_node():
    assert parse.pageblock_types(PAGETYPEINFO) == {
        0: {"Unmovable": 23, "Movable": 705, "Reclaimable": 4, "HighAtomic": 0, "Isolate": 0},
        1: {"Unmovable": 11, "Movable": 750, "Reclaimable": 2, "HighAtomic": 0, "Isolate": 1}}


def test_pageblock_types_refuses_what_it_cannot_read():
    with pytest.raises(parse.ParseError):
        parse.pageblock_types(PAGETYPEINFO.split("Number of blocks")[0])
    with pytest.raises(parse.ParseError):
        parse.pageblock_types(PAGETYPEINFO.replace("700            4", "700"))


def test_sampler_groups_lines_and_drops_a_cut_sample():
    text = ("T 10.00\nB Node 0, zone DMA 1 0\nB Node 1, zone DMA32 0 1\nP 0 88\n"
            "T 10.05\nB Node 0, zone DMA 2 0\nB Node 1, zone DMA32 0 2\n"
            "T 10.10\nB Node 0, zone DMA 3 0\n")
    samples = parse.sampler(text)
    assert [s[0] for s in samples] == [10.0, 10.05]
    assert samples[0][1][1] == (1, "DMA32", [0, 1])
    assert samples[0][2] == {0: 88} and samples[1][2] == {}


def test_sampler_rejects_data_before_time():
    with pytest.raises(parse.ParseError):
        parse.sampler("B Node 0, zone DMA 1\n")


def test_khugehog_summary_numbers_and_strings():
    s = parse.khugehog_summary("count 678\nfailures 10\nstop_reason failures\n"
                               "free_pages_start 531880\nmean_us 4373.9\np50_us 3266.6\n"
                               "p99.9_us 128766.8\n")
    assert s["count"] == 678 and isinstance(s["count"], int)
    assert s["mean_us"] == 4373.9 and s["stop_reason"] == "failures"
    assert s["p99.9_us"] == 128766.8


def test_khugehog_summary_needs_the_count():
    with pytest.raises(parse.ParseError):
        parse.khugehog_summary("failures 1\nmean_us 1\n")


def test_thp_touch_line():
    text = ("frag: thp-touch size_kb=1572864 elapsed_us=24425100 sys_us=23894616 "
            "thp_share_pct=89.3 thp_fault_alloc=686 thp_enabled=madvise\n"
            "frag: ready kept_pages=393216 mode=thp-touch\n")
    t = parse.thp_touch(text)
    assert t["elapsed_us"] == 24425100 and t["thp_share_pct"] == 89.3
    assert t["thp_enabled"] == "madvise"
    with pytest.raises(parse.ParseError):
        parse.thp_touch("frag: ready kept_pages=1\n")


def test_kthreads_and_vmstat_reject_malformed_lines():
    assert parse.kthreads("kcompactd0 43 1 2 6336822\n") == {
        "kcompactd0": {"pid": 43, "ticks": 3, "run_ns": 6336822}}
    with pytest.raises(parse.ParseError):
        parse.kthreads("kcompactd0 43 1 2\n")
    with pytest.raises(parse.ParseError):
        parse.vmstat("compact_stall x\n")
    with pytest.raises(parse.ParseError):
        parse.vmstat("")


# --- scores -----------------------------------------------------------------

def counts(**orders):
    """nr_free per order 0..10 from keyword o<N>=count."""
    return [orders.get(f"o{o}", 0) for o in range(11)]


def test_extfrag_matches_the_kernel_formula():
    # free = 10 + 512 = 522 pages, suitable = 1 block -> (522 - 512) * 100 // 522
    assert metrics.extfrag(counts(o0=10, o9=1)) == 1
    assert metrics.extfrag(counts(o0=100, o3=5)) == 100
    assert metrics.extfrag(counts(o10=2)) == 0
    assert metrics.extfrag(counts()) == 0          # no free pages: 0, not a division


def test_free_blocks_counts_bigger_orders_in_order9_units():
    assert metrics.free_blocks(counts(o8=7, o9=3, o10=2)) == 7


def test_node_score_weights_zones_by_present_pages():
    present = {(0, "DMA"): 4000, (0, "DMA32"): 396000, (1, "DMA32"): 400000}
    rows = [(0, "DMA", counts(o0=100)),                 # extfrag 100
            (0, "DMA32", counts(o0=512, o9=1)),         # extfrag 50
            (1, "DMA32", counts(o10=1))]                # extfrag 0
    scores = metrics.node_scores(rows, present)
    # 4000 * 100 // 400001 = 0 and 396000 * 50 // 400001 = 49: integer math as the kernel
    assert scores == {0: 0 + 49, 1: 0}


def test_node_score_of_an_unknown_zone_is_an_error():
    with pytest.raises(KeyError):
        metrics.node_scores([(0, "Normal", counts(o0=1))], {(0, "DMA32"): 10})


def test_wmarks_follow_the_kernel():
    assert metrics.wmarks(20) == (80, 90)
    assert metrics.wmarks(80) == (20, 30)
    assert metrics.wmarks(100) == (5, 15)
    assert metrics.wmarks(0) == (100, 100)


def test_score_rows_are_relative_to_t0_and_carry_thresholds():
    present = {(0, "DMA32"): 1000, (1, "DMA32"): 1000}
    samples = [(10.0, [(0, "DMA32", counts(o0=8)), (1, "DMA32", counts(o9=2))], {0: 99})]
    rows = metrics.score_rows(samples, present, 12.5, (80, 90))
    assert rows == [
        {"t_s": -2.5, "node": 0, "score": 99, "free_order9_blocks": 0, "pcompact_score": 99,
         "wmark_low": 80, "wmark_high": 90},
        {"t_s": -2.5, "node": 1, "score": 0, "free_order9_blocks": 2, "pcompact_score": None,
         "wmark_low": 80, "wmark_high": 90}]


def test_sample_rate():
    samples = [(t / 20, [], {}) for t in range(21)]
    assert metrics.sample_rate_hz(samples) == pytest.approx(20.0)
    assert metrics.sample_rate_hz(samples[:1]) is None


# --- deltas and derived metrics --------------------------------------------

def test_delta_subtracts_and_counts_new_counters_from_zero():
    assert metrics.delta({"a": 5, "b": 1}, {"a": 12, "b": 1, "c": 3}) == {"a": 7, "b": 0, "c": 3}


def test_vmstat_summary_sums_families():
    d = {"allocstall_dma32": 2, "allocstall_normal": 3, "pgsteal_kswapd": 4,
         "pgsteal_direct": 1, "pgscan_kswapd": 10, "compact_stall": 7}
    s = metrics.vmstat_summary(d)
    assert s["allocstall"] == 5 and s["pgsteal"] == 5 and s["pgscan"] == 10
    assert s["compact_stall"] == 7 and s["compact_fail"] == 0


def test_derived_metrics():
    d = {"compact_stall": 1163, "compact_success": 570, "thp_fault_alloc": 686,
         "thp_fault_fallback": 82, "pgscan_kswapd": 200, "pgsteal_kswapd": 150,
         "pgscan_direct": 0, "pgsteal_direct": 0, "compact_migrate_scanned": 50,
         "compact_free_scanned": 200, "pgmigrate_success": 103708}
    r = metrics.derived(d, hugepages=678)
    assert r["compaction_success_pct"] == pytest.approx(570 / 1163 * 100)
    assert r["thp_fault_success_pct"] == pytest.approx(686 / 768 * 100)
    assert r["reclaim_efficiency_pct"] == pytest.approx(75.0)
    assert r["compact_scan_efficiency_pct"] == pytest.approx(25.0)
    assert r["migrated_per_hugepage"] == pytest.approx(103708 / 678)


def test_derived_metrics_are_undefined_without_a_denominator():
    r = metrics.derived({}, hugepages=0)
    assert all(v is None for v in r.values())


def test_kthread_cpu_counts_new_threads_from_zero():
    before = {"kcompactd0": {"pid": 40, "ticks": 0, "run_ns": 1_000_000}}
    after = {"kcompactd0": {"pid": 40, "ticks": 0, "run_ns": 4_000_000},
             "pcompactd0": {"pid": 99, "ticks": 0, "run_ns": 2_500_000},
             "pcompactd1": {"pid": 100, "ticks": 0, "run_ns": 500_000}}
    assert metrics.kthread_cpu_ms(before, after, "kcompactd") == pytest.approx(3.0)
    assert metrics.kthread_cpu_ms(before, after, "pcompactd") == pytest.approx(3.0)
    # A thread that restarted (new pid) counts from 0, not from the old value.
    restarted = {"kcompactd0": {"pid": 41, "ticks": 0, "run_ns": 500_000}}
    assert metrics.kthread_cpu_ms(before, restarted, "kcompactd") == pytest.approx(0.5)


# --- percentiles ------------------------------------------------------------

def test_nearest_rank_percentiles_as_khugehog():
    values = list(range(1, 11))
    assert metrics.percentile(values, 50) == 5
    assert metrics.percentile(values, 90) == 9
    assert metrics.percentile(values, 95) == 10
    assert metrics.percentile(values, 99.9) == 10
    assert metrics.percentile(values, 5) == 1
    assert metrics.percentile([7], 50) == 7
    assert metrics.percentile([], 50) is None
    # 99.9 of 1000 samples is the 999th, exactly (no float rounding up)
    assert metrics.percentile(list(range(1000)), 99.9) == 998


def test_latency_stats_in_microseconds():
    s = metrics.latency_stats_us([1000, 2000, 3000, 4000])
    assert s["count"] == 4 and s["min_us"] == 1.0 and s["max_us"] == 4.0
    assert s["mean_us"] == 2.5 and s["p50_us"] == 2.0
    assert s["stddev_us"] == pytest.approx(1.118, abs=1e-3)
    assert metrics.latency_stats_us([]) == {}


def test_relative_change_positive_means_better():
    assert metrics.relative_change(100, 50, lower_is_better=True) == 50.0
    assert metrics.relative_change(100, 150, lower_is_better=True) == -50.0
    assert metrics.relative_change(100, 150, lower_is_better=False) == 50.0
    assert metrics.relative_change(0, 0, True) == 0.0
    assert metrics.relative_change(0, 5, True) is None
    assert metrics.relative_change(None, 5, True) is None


# --- the table ----------------------------------------------------------------

def test_comparison_table_format():
    summaries = {
        "vanilla": {"k": {"mean": 1000.0, "count": 800, "why": "failures", "none": None}},
        "kernel": {"k": {"mean": 500.0, "count": 1000, "why": "margin", "none": None}},
        "pcompact": {"k": {"mean": 2000.0, "count": 0, "why": "margin", "none": None}},
    }
    rows = [("section", "khugehog"),
            table.Metric("Latency mean (us)", ("k", "mean"), True, 1),
            table.Metric("Hugepages", ("k", "count"), False, 0),
            table.Metric("Stop reason", ("k", "why"), None, 0),
            table.Metric("Nothing", ("k", "none"), True, 0)]
    text = table.comparison(summaries, ["kernel", "pcompact"], "vanilla", rows)
    lines = text.splitlines()
    assert lines[0] == "| Metric | dir | vanilla (baseline) | kernel | pcompact |"
    assert "| Latency mean (us) | lower | 1000.0 (0.00%) | 500.0 (+50.00%) | " \
           "2000.0 (-100.00%) |" in lines
    assert "| Hugepages | higher | 800 (0.00%) | 1000 (+25.00%) | 0 (-100.00%) |" in lines
    assert "| Stop reason | - | failures | margin | margin |" in lines
    assert not any(line.startswith("| Nothing") for line in lines)


def test_comparison_table_zero_baseline_is_na():
    summaries = {"vanilla": {"cpu": 0.0}, "kernel": {"cpu": 12.5}}
    text = table.comparison(summaries, ["kernel"], "vanilla",
                            [table.Metric("CPU", ("cpu",), True, 1)])
    assert "| CPU | lower | 0.0 (0.00%) | 12.5 (n/a) |" in text


def test_comparison_table_leaves_out_missing_scenarios():
    text = table.comparison({"vanilla": {"a": 1}}, ["kernel"], "vanilla",
                            [table.Metric("A", ("a",), True, 0)])
    assert "kernel" not in text and "| A | lower | 1 (0.00%) |" in text


def test_comparison_table_always_row():
    text = table.comparison({"vanilla": {}, "kernel": {}}, ["kernel"], "vanilla",
                            [table.Metric("Reclaim efficiency %", ("r",), False, 2, True)])
    assert "| Reclaim efficiency % | higher | - | - |" in text


def test_comparison_text_is_aligned_like_mmtests():
    summaries = {"vanilla": {"m": 1000.0}, "kernel": {"m": 500.0}}
    text = table.comparison_text(summaries, ["kernel"], "vanilla",
                                 [("section", "khugehog"),
                                  table.Metric("Latency mean (us)", ("m",), True, 1)])
    lines = text.splitlines()
    assert lines[0].split() == ["vanilla", "kernel"]
    assert lines[2] == "khugehog"
    row = lines[3]
    assert row.startswith("Latency mean (us)") and row.endswith("500.0 (+50.00%)")
    assert "1000.0 (0.00%)" in row
    # the value columns end where their headers end
    assert lines[0].index("kernel") + len("kernel") == len(row)
