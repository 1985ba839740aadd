# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/stream-walls: wall calls of the compactor threads
(a long run of pageblocks their free scanner read without taking a page),
split into head start and stream, on synthetic stream traces."""

import csv
import os
import sys

import pytest

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
sys.path.insert(0, HERE)
from scriptload import load_script  # noqa: E402
from test_bench_runs import Z0, _end, _trace_line, _walls_run  # noqa: E402

# _walls_run's threads: kcompactd0 (42) and pcompactd0 (192), both node 0.
# The head start runs from the trace's beginning to alloc_start (33.7), the
# stream to alloc_end (34.5).
EVENTS = "event,uptime_s,t_s\nmech_on,23.7,-10\nalloc_start,33.7,0\nalloc_end,34.5,0.8\n"


def call(pid, t, taken, step=0.0001):
    """One call of the kernel's compaction on node 0's DMA32 zone by pid,
    beginning at t: one free scanner pageblock (nr_taken) for each item of
    taken, then its end."""
    lines = [_trace_line(t, pid, "mm_compaction_suitable",
                         "node=0 zone=DMA32    order=-1 ret=continue")]
    for i, n in enumerate(taken, 1):
        block = Z0[1] - 0x200 * i
        lines.append(_trace_line(t + i * step, pid, "mm_compaction_isolate_freepages",
                                 f"range=({block:#x} ~ {block + 0x200:#x}) nr_scanned=16 "
                                 f"nr_taken={n}"))
    lines.append(_end(t + (len(taken) + 1) * step, pid, Z0[0], 0x2200, 0x2200, Z0[1], "sync",
                      "complete"))
    return lines


def run_dir(root, name, lines, stop="failures", void=False):
    _walls_run(root, name, "module", "".join(lines), stop, void=void)
    (root / name / "events.csv").write_text(EVENTS)


def rows_of(mod, root, *extra):
    out = root / "walls.csv"
    assert mod.main([str(root), "--csv", str(out), *extra]) == 0
    return {r["run"].split(str(root) + "/")[1]: r for r in csv.DictReader(open(out))}


def test_a_long_empty_run_is_a_wall_call(tmp_path, capsys):
    mod = load_script("stream-walls")
    # Taking pages first, then 300 blocks with none: a wall at 34.0, 300 ms
    # into the stream; the DMA zone's call is left out.
    run_dir(tmp_path, "pcompact/run-1",
            call(192, 34.0, [32, 16] + [0] * 300)
            + [_end(34.2, 192, 0x1, 0xe00, 0xe00, 0x1000, "sync", "complete")])
    row = rows_of(mod, tmp_path)["pcompact/run-1"]
    assert (row["node"], row["stream_calls"], row["stream_walls"], row["first_stream_wall_ms"],
            row["longest_empty_run"], row["shortest_wall_run"]) == ("0", "1", "1", "300", "300",
                                                                     "300")
    text = capsys.readouterr().out
    assert "pcompact: 1 boots, 1 with a wall (head start only 0, stream only 1, both 0" in text
    assert "stopped early 1 of 1 with a wall, 0 of 0 without" in text
    # The threshold is an option.
    row = rows_of(mod, tmp_path, "--min-empty", "301")["pcompact/run-1"]
    assert (row["stream_walls"], row["longest_other_run"]) == ("0", "300")


def test_one_page_taken_breaks_the_run(tmp_path):
    mod = load_script("stream-walls")
    run_dir(tmp_path, "pcompact/run-1", call(192, 34.0, [0] * 200 + [1] + [0] * 200),
            stop="margin")
    row = rows_of(mod, tmp_path)["pcompact/run-1"]
    assert (row["stream_walls"], row["longest_empty_run"], row["longest_other_run"],
            row["shortest_wall_run"]) == ("0", "200", "200", "")


def test_head_start_and_stream_are_split_at_alloc_start(tmp_path, capsys):
    mod = load_script("stream-walls")
    # A wall by kcompactd0 before the stream's start, a call that takes
    # pages in the stream, and a wall after the stream (left out).
    run_dir(tmp_path, "kernel/run-1", call(42, 30.0, [0] * 260) + call(42, 34.0, [8] * 10)
            + call(42, 34.6, [0] * 260), stop="margin")
    # A wall call that began before alloc_start and ended after it is the
    # head start's; the stream's own wall comes 100 ms into it.
    run_dir(tmp_path, "kernel/run-2", call(42, 33.69, [0] * 260) + call(42, 33.8, [0] * 260))
    # A void attempt is marked and tallied apart.
    run_dir(tmp_path, "kernel/run-2-void1", call(42, 33.8, [0] * 260), void=True)
    rows = rows_of(mod, tmp_path)
    assert {k: (r["head_start_calls"], r["head_start_walls"], r["stream_calls"],
                r["stream_walls"], r["first_stream_wall_ms"], r["void"])
            for k, r in rows.items()} == {
        "kernel/run-1": ("1", "1", "1", "0", "", "False"),
        "kernel/run-2": ("1", "1", "1", "1", "100", "False"),
        "kernel/run-2-void1": ("0", "0", "1", "1", "100", "True")}
    text = capsys.readouterr().out
    assert ("kernel: 2 boots, 2 with a wall (head start only 1, stream only 0, both 1; nodes 2 "
            "of 2); stopped early 1 of 2 with a wall, 0 of 0 without") in text
    assert "kernel (void): 1 boots, 1 with a wall (head start only 0, stream only 1" in text


def test_other_tasks_events_are_ignored(tmp_path):
    mod = load_script("stream-walls")
    pcompactd = call(192, 34.0, [0] * 300)
    # The stream's own compaction (khugehog, 901) takes a page amid
    # pcompactd's empty run, and has an empty run of its own.
    stream = call(901, 34.0155, [5] + [0] * 300)
    lines = sorted(pcompactd + stream, key=lambda line: float(line.split()[3].rstrip(":")))
    run_dir(tmp_path, "pcompact/run-1", lines)
    row = rows_of(mod, tmp_path)["pcompact/run-1"]
    assert (row["stream_calls"], row["stream_walls"], row["longest_empty_run"]) == ("1", "1",
                                                                                     "300")
    run_dir(tmp_path, "pcompact/run-2", stream)
    row = rows_of(mod, tmp_path)["pcompact/run-2"]
    assert (row["stream_calls"], row["stream_walls"], row["longest_empty_run"]) == ("0", "0",
                                                                                     "0")


def test_fisher_exact_between_every_two_scenarios():
    mod = load_script("stream-walls")
    # The textbook table [[1, 9], [11, 3]]: two-sided p = 0.002759.
    counts = {("a", "counted"): {"wall": 1, "boots": 10},
              ("b", "counted"): {"wall": 11, "boots": 14},
              ("b", "void"): {"wall": 1, "boots": 1},
              ("c", "counted"): {"wall": 1, "boots": 10}}
    pairs = mod.fisher_pairs(counts)
    assert [p[:6] for p in pairs] == [("a", 1, 10, "b", 11, 14), ("a", 1, 10, "c", 1, 10),
                                      ("b", 11, 14, "c", 1, 10)]
    assert pairs[0][6] == pytest.approx(0.002759, abs=1e-6)
    assert pairs[1][6] == pytest.approx(1.0)


def test_unreadable_input_exits_2(tmp_path, capsys):
    mod = load_script("stream-walls")
    assert mod.main([str(tmp_path)]) == 2
    assert "no run with a stream trace" in capsys.readouterr().err
    run_dir(tmp_path, "pcompact/run-1", call(192, 34.0, [0] * 3))
    (tmp_path / "pcompact/run-1/khugehog_summary.txt").unlink()
    assert mod.main([str(tmp_path)]) == 2
    assert "khugehog_summary.txt" in capsys.readouterr().err
    # A free scanner event without nr_taken.
    run_dir(tmp_path, "pcompact/run-2", call(192, 34.0, ["x"]))
    (tmp_path / "pcompact/run-1").rename(tmp_path / "broken")
    assert mod.main([str(tmp_path / "pcompact")]) == 2
    assert "without nr_taken" in capsys.readouterr().err
