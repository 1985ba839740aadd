# SPDX-License-Identifier: GPL-2.0
"""Unit tests of benchlib.cost and scripts/compactor-cost-report: the
compactors' cost paired within a boot."""

import csv
import json
import os
import subprocess
import sys

import pytest

TOP = os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(TOP, "scripts"))
from benchlib import cost, stats  # noqa: E402
from scriptload import load_script  # noqa: E402

HEADER = ("repeat,position,arm,window_s,compactor_cpu_ms,kcompactd_ms,pcompactd_ms,"
          "blocks_before,blocks_after,blocks_created,pages_migrated,migrate_scanned,"
          "free_scanned,max_score_before,max_score_after,pcp_pages_after,busy_at_end,"
          "node_scores_before,node_scores_after,sampler_samples,trace_events,"
          "whole_blocks_after,held_blocks_after,pcompact_rounds,engine_fallbacks,writers_ms").split(",")


def row(repeat, arm, cpu_ms, pages, blocks, position=1, busy=0, scores=("94;93", "18;20"),
        observed=(0, 0), held=0, rounds=None, fallbacks=0, writers_ms=0):
    return {"repeat": repeat, "position": position, "arm": arm, "window_s": 10,
            "compactor_cpu_ms": cpu_ms, "kcompactd_ms": cpu_ms if arm == "kernel" else 0,
            "pcompactd_ms": 0 if arm == "kernel" else cpu_ms, "blocks_before": 60,
            "blocks_after": 60 + blocks, "blocks_created": blocks, "pages_migrated": pages,
            "migrate_scanned": 4 * pages, "free_scanned": 2 * pages, "max_score_before": 94,
            "max_score_after": 18, "pcp_pages_after": 1000, "busy_at_end": busy,
            "node_scores_before": scores[0], "node_scores_after": scores[1],
            "sampler_samples": observed[0], "trace_events": observed[1],
            "whole_blocks_after": 60 + blocks, "held_blocks_after": held,
            "pcompact_rounds": 0 if arm in ("kernel", "node-sysfs") else
            (2 if rounds is None else rounds),
            "engine_fallbacks": fallbacks, "writers_ms": writers_ms}


def typed(rows, boot):
    return cost.parse_rows([{k: str(v) for k, v in r.items()} for r in rows], boot)


def test_grouped_median_resamples_whole_boots():
    out = stats.bootstrap_median_grouped([[1.0] * 3, [2.0] * 3], seed=5)
    assert out["n"] == 2 and out["values"] == 6 and out["median"] == 1.5
    # A resample pools whole boots: all of one, or half and half.
    assert out["lo"] == 1.0 and out["hi"] == 2.0
    # Each draw is the median of the pooled values of the boots drawn, not of
    # any one boot: [1, 3] and [2, 4] give 2 (twice the first), 2.5 or 3.
    out = stats.bootstrap_median_grouped([[1.0, 3.0], [2.0, 4.0]], seed=5)
    assert out["median"] == 2.5 and out["lo"] == 2.0 and out["hi"] == 3.0
    one = stats.bootstrap_median_grouped([[3.0, 4.0], [], [None]], seed=5)
    assert one["n"] == 1 and one["median"] == 3.5 and one["lo"] is None


def test_paired_ratios_pair_only_the_same_repeat_of_the_same_boot():
    rows = typed([row(1, "kernel", 1000, 50000, 400), row(1, "pcompact", 1200, 50000, 400),
                  row(2, "kernel", 2000, 50000, 400), row(2, "pcompact", 2200, 50000, 400),
                  # repeat 3 has no kernel run: nothing to pair with
                  row(3, "pcompact", 9000, 50000, 400)], boot=1)
    rows += typed([row(1, "kernel", 500, 25000, 200), row(1, "pcompact", 450, 25000, 200)],
                  boot=2)
    groups = cost.paired_ratios(rows, "pcompact", "cpu_us_per_page")
    assert groups == {1: [pytest.approx(1.2), pytest.approx(1.1)], 2: [pytest.approx(0.9)]}
    # Unpaired, the kernel's boot-to-boot spread would swamp this.
    assert cost.value(rows[0], "cpu_us_per_page") == pytest.approx(20.0)
    assert cost.value(rows[0], "cpu_ms_per_block") == pytest.approx(2.5)


def test_void_runs_and_missing_denominators_give_no_pair():
    rows = typed([row(1, "kernel", 1000, 50000, 400), row(1, "pcompact", 0, 0, 0),
                  row(2, "kernel", 1000, 50000, 0), row(2, "pcompact", 1000, 50000, 300)],
                 boot=1)
    assert cost.void_reason(rows[1]) == "migrated no page"
    assert cost.paired_ratios(rows, "pcompact", "cpu_us_per_page") == {1: [1.0]}
    # The kernel's repeat 2 created no block: no cost per block to divide by.
    assert cost.paired_ratios(rows, "pcompact", "cpu_ms_per_block") == {}


def test_a_run_that_compacted_no_node_is_void_whichever_arm():
    rows = typed([row(1, "kernel", 13, 300, 1, scores=("94;93", "94;93")),
                  row(1, "pcompact", 2000, 120000, 800),
                  row(2, "kernel", 1000, 50000, 400, scores=("94;93", "95;20")),
                  row(2, "pcompact", 1100, 50000, 400),
                  row(3, "kernel", 1000, 50000, 400),
                  row(3, "pcompact", 30, 300, 1, scores=("94;93", "90;93"))], boot=1)
    assert cost.void_reason(rows[0]) == "no node's score fell (94;93 -> 94;93)"
    # One node left where it was, the other compacted: the blocks it made count.
    assert cost.void_reason(rows[2]) is None and cost.nodes_left(rows[2]) == [0]
    assert cost.void_reason(rows[5]) is None and cost.nodes_left(rows[5]) == [1]
    assert cost.paired_ratios(rows, "pcompact", "cpu_ms_per_block") == {
        1: [pytest.approx(1.1), pytest.approx(12.0)]}
    # Rows from before the guest recorded node scores are judged as before.
    old = typed([{k: v for k, v in row(1, "kernel", 13, 300, 1).items()
                  if not k.startswith("node_scores")}], boot=2)
    assert cost.nodes_left(old[0]) is None and cost.void_reason(old[0]) is None


def test_held_blocks_count_as_the_bench_head_start_counts_them():
    # The kernel's window left 100 blocks held on the per-CPU lists: per
    # block as the bench counts it, 1000 ms over 500, against 2.5 ms whole only.
    rows = typed([row(1, "kernel", 1000, 50000, 400, held=100),
                  row(1, "pcompact", 1000, 50000, 400, held=0)], boot=1)
    assert rows[0]["blocks_created_with_held"] == 500
    assert cost.value(rows[0], "cpu_ms_per_block_with_held") == pytest.approx(2.0)
    assert cost.paired_ratios(rows, "pcompact", "cpu_ms_per_block") == {1: [1.0]}
    assert cost.paired_ratios(rows, "pcompact", "cpu_ms_per_block_with_held") == {
        1: [pytest.approx(1.25)]}
    # Rows from before khugehog's count have no such value, and no pair.
    old = typed([{k: v for k, v in r.items() if not k.endswith("_blocks_after")}
                 for r in (row(1, "kernel", 1000, 50000, 400),
                           row(1, "pcompact", 1000, 50000, 400))], boot=2)
    assert old[0]["blocks_created_with_held"] is None
    assert cost.value(old[0], "cpu_ms_per_block_with_held") is None
    assert cost.paired_ratios(old, "pcompact", "cpu_ms_per_block_with_held") == {}


def test_parse_rows_refuses_node_scores_that_do_not_pair():
    for scores in (("94;93", "18"), ("94;93", ""), ("-", "18;20"), ("94;x", "18;20")):
        with pytest.raises(ValueError, match="boot 4 row 1: node"):
            typed([row(1, "kernel", 1000, 50000, 400, scores=scores)], boot=4)


def test_summary_settles_only_with_five_boots():
    def boots(n, ratio):
        rows = []
        for b in range(1, n + 1):
            for rep in (1, 2):
                base = 1000 + 100 * b
                rows += typed([row(rep, "kernel", base, 50000, 400),
                               row(rep, "pcompact", base * ratio, 50000, 400)], boot=b)
        return rows

    few = {s["metric"]: s for s in cost.summarise(boots(4, 1.2), seed=1)}
    assert few["cpu_us_per_page"]["median"] == pytest.approx(1.2)
    assert few["cpu_us_per_page"]["verdict"] == stats.UNSETTLED
    many = {s["metric"]: s for s in cost.summarise(boots(6, 1.2), seed=1)}
    assert many["cpu_us_per_page"]["verdict"] == stats.MISSED
    assert many["pages_per_block"]["median"] == pytest.approx(1.0)
    assert {s["metric"]: s for s in cost.summarise(boots(6, 0.8), seed=1)}[
        "cpu_us_per_page"]["verdict"] == stats.MET


def test_parse_rows_names_a_bad_value():
    bad = {k: "1" for k in HEADER}
    bad.update(arm="kernel", pages_migrated="x")
    with pytest.raises(ValueError, match="boot 3 row 1: pages_migrated"):
        cost.parse_rows([bad], 3)


def test_parse_rows_reads_the_writers_time_and_rows_from_before_it():
    new = typed([row(1, "node-sysfs", 900, 50000, 400, writers_ms=900)], 1)[0]
    assert new["writers_ms"] == 900.0 and new["compactor_cpu_ms"] == 900.0
    old = {k: str(v) for k, v in row(1, "kernel", 1000, 50000, 400).items()}
    del old["writers_ms"]
    assert cost.parse_rows([old], 1)[0]["writers_ms"] is None


def test_report_compares_the_node_sysfs_arm_with_the_kernel(tmp_path):
    report = load_script("compactor-cost-report")
    for b in range(1, 6):
        write_boot(tmp_path, b, [row(1, "kernel", 1000, 50000, 400),
                                 row(1, "node-sysfs", 1200, 50000, 400, writers_ms=1200)])
    assert report.main([str(tmp_path)]) == 0
    text = (tmp_path / "README.md").read_text()
    assert "| node-sysfs | compactor CPU per page migrated | 1.2 x [1.2, 1.2] | 5 (5) | missed |" \
        in text


def write_boot(directory, boot, rows):
    with open(os.path.join(directory, f"boot-{boot}.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, HEADER)
        w.writeheader()
        for r in rows:
            w.writerow(r)


def test_report_reads_the_boots_and_writes_readme_and_summary(tmp_path, capsys):
    report = load_script("compactor-cost-report")
    for b in range(1, 6):
        write_boot(tmp_path, b, [row(1, "kernel", 1000 + b, 50000, 400),
                                 row(1, "pcompact+any_cpu=0", 1500, 50000, 300, busy=1),
                                 row(1, "pcompact", 1100, 50000, 400,
                                     scores=("94;93", "94;20"))])
    (tmp_path / "meta.txt").write_text("command scripts/compactor-cost --boots 5\n"
                                       "kernel 6.12.118+deb12-amd64\n")
    assert report.main([str(tmp_path)]) == 0
    text = (tmp_path / "README.md").read_text()
    assert "- kernel: 6.12.118+deb12-amd64" in text
    assert "| pcompact | compactor CPU per page migrated | 1.1 x" in text
    assert "| pcompact+any_cpu=0 | pages migrated per block created | 1.33 x" in text
    assert "still compacting when the window closed" in text and ": 5" in text
    assert "where it was while compacting another: 5; pcompact 5" in text
    assert "Observers: none" in text
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["arms"] == ["kernel", "pcompact+any_cpu=0", "pcompact"]
    assert capsys.readouterr().out.startswith("# Compactor cost")


def test_report_counts_pcompact_runs_that_took_more_rounds_than_nodes(tmp_path):
    report = load_script("compactor-cost-report")
    write_boot(tmp_path, 1, [row(1, "kernel", 1000, 50000, 400),
                             row(1, "pcompact", 1100, 50000, 400, rounds=3),
                             row(2, "kernel", 1000, 50000, 400),
                             row(2, "pcompact", 1100, 50000, 400, rounds=2, fallbacks=1),
                             row(3, "kernel", 1000, 50000, 400),
                             row(3, "pcompact", 1100, 50000, 400, rounds=4)])
    assert report.main([str(tmp_path)]) == 0
    text = (tmp_path / "README.md").read_text()
    assert ("pcompact's rounds in the window: pcompact median 3 a run, more rounds than nodes"
            " in 2 of 3, an engine fallback in 1") in text


def test_report_says_what_the_observers_saw(tmp_path):
    report = load_script("compactor-cost-report")
    write_boot(tmp_path, 1, [row(1, "kernel", 1000, 50000, 400, observed=(240, 9000)),
                             row(1, "pcompact", 1100, 50000, 400, observed=(250, 7000))])
    assert report.main([str(tmp_path)]) == 0
    text = (tmp_path / "README.md").read_text()
    assert "sampler passes median 245 (least 240), trace events median 8000 (least 7000)" in text


def test_report_reads_rows_from_before_the_node_scores_and_observers(tmp_path):
    report = load_script("compactor-cost-report")
    old_header = HEADER[:HEADER.index("node_scores_before")]
    with open(tmp_path / "boot-1.csv", "w", newline="") as f:
        w = csv.DictWriter(f, old_header, extrasaction="ignore")
        w.writeheader()
        w.writerow(row(1, "kernel", 13, 300, 1))
        w.writerow(row(1, "pcompact", 1100, 50000, 400))
    assert report.main([str(tmp_path)]) == 0
    text = (tmp_path / "README.md").read_text()
    assert "Void arm runs: 0" in text
    assert "Node scores: not recorded in every row" in text
    assert "Observers: not recorded in every row" in text
    assert "held blocks counted (the bench's head start) | n/a x" in text
    assert "pcompact's rounds: not recorded in every row" in text
    assert "| pcompact | pages the free scanner read per page migrated | n/a x" in text
    assert "Scanners: not compared" in text


def test_scanner_metrics_only_from_rows_that_counted_each_scan_once():
    new, = typed([row(1, "kernel", 1000, 50000, 400)], 1)
    assert cost.value(new, "migrate_scanned_per_page") == 4
    old = {k: str(v) for k, v in row(1, "kernel", 1000, 50000, 400).items()}
    del old["writers_ms"]
    old, = cost.parse_rows([old], 1)
    assert cost.value(old, "migrate_scanned_per_page") is None
    assert cost.value(old, "cpu_us_per_page") == 20


def test_report_refuses_a_directory_without_boots(tmp_path, capsys):
    report = load_script("compactor-cost-report")
    assert report.main([str(tmp_path)]) == 2
    assert "no boot-*.csv" in capsys.readouterr().err


@pytest.mark.parametrize("args, message", [
    (["--observe", "2"], "--observe takes 0 or 1"),
    (["--init-on-alloc", "yes"], "--init-on-alloc takes 0 or 1"),
    (["--arms", "pcompact"], "--arms must include kernel"),
    (["--arms", "kernel node-sysf"], "unknown arm 'node-sysf' (kernel, pcompact,"),
    (["--boots", "0"], "--boots and --repeats must be at least 1"),
])
def test_host_script_refuses_bad_arguments_before_anything_runs(tmp_path, args, message):
    out = tmp_path / "out"
    run = subprocess.run([os.path.join(TOP, "scripts", "compactor-cost"), *args,
                          "--out", str(out)], capture_output=True, text=True, timeout=30)
    assert run.returncode != 0
    assert message in run.stderr
    assert not out.exists()


def test_host_script_takes_the_node_sysfs_arm(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "boot-1.csv").write_text("kept\n")
    run = subprocess.run([os.path.join(TOP, "scripts", "compactor-cost"),
                          "--arms", "kernel node-sysfs", "--out", str(out)],
                         capture_output=True, text=True, timeout=30)
    assert run.returncode != 0
    # Past the arms' check, stopped by the next one: nothing ran.
    assert "is not empty" in run.stderr and "unknown arm" not in run.stderr
