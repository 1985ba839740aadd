# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/targets-matrix: which entry of a bench's or pool's
targets goes in which cell, and what it refuses to read."""

import json
import os
import sys

HERE = os.path.dirname(__file__)
sys.path.insert(0, HERE)
from scriptload import load_script  # noqa: E402

TM = load_script("targets-matrix")


def entry(target, verdict, estimate=None, lo=None, hi=None, option=None, n="10/10"):
    e = {"target": target, "verdict": verdict, "estimate": estimate, "lo": lo, "hi": hi, "n": n}
    if option:
        e["option"] = option
    return e


def write(path, name, data):
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, name), "w") as f:
        json.dump(data, f)


def make_pool(tmp_path, name, scenario_names, targets, option_targets=None, context=None):
    bench = tmp_path / f"{name}-bench" / "6.12.1-amd64"
    write(bench, "run.json", {"command": "scripts/bench x", "source": "abc", "release": "6.12.1-amd64",
                              "order": scenario_names, "vm": "3072 MiB, 2 NUMA nodes, 2 CPUs, tcg",
                              "init_on_alloc": 0})
    pool = tmp_path / name / "6.12.1-amd64"
    write(pool, "pool.json", {"command": "scripts/bench-pool y", "scenarios": scenario_names,
                              "benches": [{"dir": str(bench), "source": "abc"},
                                          {"dir": str(bench), "source": "def"}]})
    write(pool, "targets.json", targets)
    if option_targets is not None:
        write(pool, "option_targets.json", option_targets)
    if context is not None:
        write(pool, "context.json", context)
    return str(pool)


def test_target_key_names_one_target_at_20_at_80_and_for_an_option():
    at20 = TM.target_key("pcompact mean <= 0.7 x kernel mean (issue 13)")
    at80 = TM.target_key("pcompact (proactiveness 80) mean <= 0.7 x kernel (80) mean")
    option = TM.target_key("pcompact-drain (proactiveness 80) mean <= 0.7 x kernel (80) mean")
    zeroing = TM.target_key("pcompact (init_on_alloc=1) mean <= 0.7 x kernel (init_on_alloc=1) mean")
    assert at20 == ("mean <= 0.7 x kernel mean", None)
    assert at80 == ("mean <= 0.7 x kernel mean", "proactiveness 80") == option
    assert zeroing == ("mean <= 0.7 x kernel mean", "init_on_alloc=1")
    assert TM.target_key("pcompact mean <= 0.5 x kernel mean")[0] != at20[0]
    switch = TM.target_key("pcompact (proactiveness 80) switch-on to every node <= low <= "
                           "1 x kernel (80)'s (never: slowest)")[0]
    assert switch in dict(TM.TARGET_ROWS)


def test_the_measured_entry_wins_over_the_other_proactiveness():
    entries = [entry("pcompact mean <= 0.7 x kernel mean (issue 13)", "not measured"),
               entry("pcompact (proactiveness 80) mean <= 0.7 x kernel (80) mean", "met", 0.1, 0.05, 0.2)]
    assert TM.pick_targets(entries)["mean <= 0.7 x kernel mean"]["verdict"] == "met"
    assert TM.pick_targets(entries[::-1])["mean <= 0.7 x kernel mean"]["verdict"] == "met"


def test_an_option_column_takes_only_that_options_entries(tmp_path):
    targets = [entry("pcompact mean <= 0.7 x kernel mean (issue 13)", "missed", 0.9, 0.8, 0.95)]
    options = [entry("pcompact-reserve mean <= 0.7 x kernel mean (issue 13)", "met", 0.2, 0.1, 0.3,
                     option="pcompact-reserve"),
               entry("pcompact-nodrain mean <= 0.7 x kernel mean (issue 13)", "unsettled", 0.7, 0.5, 0.9,
                     option="pcompact-nodrain")]
    pool = make_pool(tmp_path, "p", ["kernel", "pcompact", "pcompact-nodrain", "pcompact-reserve"],
                     targets, options)
    plain = TM.load_column(pool)
    nodrain = TM.load_column(pool + ":pcompact-nodrain")
    assert plain["scenario"] == "pcompact" and plain["proactiveness"] == 20
    assert plain["targets"]["mean <= 0.7 x kernel mean"]["estimate"] == 0.9
    assert nodrain["targets"]["mean <= 0.7 x kernel mean"]["estimate"] == 0.7


def test_cells_bold_only_settled_verdicts():
    assert TM.target_cell(entry("t", "met", 0.5, 0.4, 0.6)) == "**met**: 0.5 [0.4, 0.6]"
    assert TM.target_cell(entry("t", "missed", 1.3, 1.2, 1.4)) == "**missed**: 1.3 [1.2, 1.4]"
    assert TM.target_cell(entry("t", "unsettled", 0.9, 0.5, 1.2)) == "unsettled: 0.9 [0.5, 1.2]"
    assert TM.target_cell(entry("t", "not measured")) == "not measured"
    assert TM.target_cell(None) == "not evaluated"


def test_the_markdown_has_a_column_per_directory_and_the_context(tmp_path):
    targets = [entry("pcompact (proactiveness 80) p99 <= 1 x kernel (80) p99", "met", 0.28, 0.1, 0.35)]
    context = [{"scenario": "pcompact-p80", "metric": "compactor CPU per block created in the head start",
                "estimate": 0.98, "lo": 0.9, "hi": 1.06},
               {"scenario": "pcompact-p80-nodrain", "metric": "compactor CPU per block created in the stream",
                "estimate": 9.0, "lo": 8.0, "hi": 10.0}]
    pool = make_pool(tmp_path, "p80", ["kernel-p80", "pcompact-p80", "pcompact-p80-nodrain"], targets,
                     context=context)
    out = tmp_path / "m.md"
    assert TM.main(["--out", str(out), pool]) == 0
    text = out.read_text()
    header = next(line for line in text.splitlines() if line.startswith("| Target |"))
    assert "6.12.1-amd64 at 80" in header
    p99 = next(line for line in text.splitlines() if line.startswith("| p99 at most"))
    assert "**met**: 0.28 [0.1, 0.35]" in p99
    head = next(line for line in text.splitlines() if "head start (context)" in line)
    assert "0.98x [0.9, 1.06]" in head
    stream = next(line for line in text.splitlines() if "stream (context)" in line)
    assert "9x" not in stream and "not evaluated" in stream
    assert "sources abc, def" in text and "scripts/bench-pool y" in text


def test_unreadable_columns_are_refused_and_nothing_is_written(tmp_path, capsys):
    pool = make_pool(tmp_path, "p", ["kernel", "pcompact"], [])
    out = tmp_path / "m.md"
    assert TM.main(["--out", str(out), str(tmp_path / "nowhere")]) == 2
    assert "neither pool.json nor run.json" in capsys.readouterr().err
    assert TM.main(["--out", str(out), pool + ":pcompact-nodrain"]) == 2
    assert "pcompact-nodrain is not among the scenarios run" in capsys.readouterr().err
    two = make_pool(tmp_path, "two", ["kernel", "pcompact", "pcompact-p80"], [])
    assert TM.main(["--out", str(out), two]) == 2
    assert "no single plain pcompact scenario" in capsys.readouterr().err
    assert not out.exists()
