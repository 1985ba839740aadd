# SPDX-License-Identifier: GPL-2.0
"""Each scripts/plot_*.py turns a tiny CSV into a non-empty PNG and SVG, and
refuses empty, truncated or malformed input with one line naming the file
and a non-zero exit, never a traceback."""

import os
import subprocess
import xml.etree.ElementTree as ET

import sys

import pytest

from scriptload import load_script

SCRIPTS = os.path.join(os.path.dirname(__file__), "..", "..", "scripts")
sys.path.insert(0, SCRIPTS)

SAMPLES = ("index,t_ns,latency_ns,node,zone,success\n"
           "0,0,1200,0,DMA32,1\n1,5000,2500000,1,DMA32,1\n2,9000,800,-1,-,0\n"
           "3,12000,3100,0,DMA32,1\n")
SCORES = ("t_s,node,score,free_order9_blocks,pcompact_score,wmark_low,wmark_high\n"
          "-1.0,0,98,3,97,80,90\n-1.0,1,99,1,,80,90\n0.0,0,85,40,86,80,90\n"
          "0.0,1,79,55,,80,90\n0.5,0,99,0,99,80,90\n0.5,1,99,0,,80,90\n")
SCORES_NO_WMARKS = ("t_s,node,score,free_order9_blocks,pcompact_score,wmark_low,wmark_high\n"
                    "0.0,0,98,3,,,\n0.1,0,97,4,,,\n")
MAP = "region_pfn,mapped_pages\n0,128\n512,128\n1024,512\n"

# script -> (good input, extra arguments)
PLOTS = {
    "plot_percentiles": (SAMPLES, []),
    "plot_cdf": (SAMPLES, []),
    "plot_scatter": (SAMPLES, ["--columns", "1"]),
    "plot_scores": (SCORES, []),
    "plot_free_blocks": (SCORES, []),
    "plot_occupancy": (MAP, ["--columns", "2"]),
}


def load(name):
    return load_script(f"{name}.py")


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("script", sorted(PLOTS))
@pytest.mark.parametrize("ext", ["png", "svg"])
def test_plot_draws_a_nonempty_image(tmp_path, script, ext):
    good, extra = PLOTS[script]
    a = write(tmp_path, "a.csv", good)
    b = write(tmp_path, "b.csv", good)
    out = tmp_path / f"out.{ext}"
    rc = load(script).main(["--input", f"first={a}", "--input", f"second={b}",
                            "--out", str(out), "--title", "test"] + extra)
    assert rc == 0
    data = out.read_bytes()
    assert len(data) > 1000
    if ext == "png":
        assert data.startswith(b"\x89PNG\r\n\x1a\n")
    else:
        root = ET.fromstring(data)
        assert root.tag.endswith("svg")
        # deterministic: drawing the same input again gives the same file
        out2 = tmp_path / f"again.{ext}"
        load(script).main(["--input", f"first={a}", "--input", f"second={b}",
                           "--out", str(out2), "--title", "test"] + extra)
        assert out2.read_bytes() == data


def test_scores_without_thresholds(tmp_path):
    path = write(tmp_path, "s.csv", SCORES_NO_WMARKS)
    out = tmp_path / "s.png"
    assert load("plot_scores").main(["--input", f"vanilla={path}", "--out", str(out)]) == 0
    assert out.stat().st_size > 1000


BAD = {
    "empty": ("", "empty file"),
    "header only": (None, "0 data rows"),
    "truncated line": (None, "truncated"),
    "short row": (None, "fields"),
    "not a number": (None, "not a number"),
    "wrong header": ("a,b,c\n1,2,3\n", "header lacks"),
}


def bad_text(kind, good):
    header, first = good.splitlines()[:2]
    if BAD[kind][0] is not None:
        return BAD[kind][0]
    if kind == "header only":
        return header + "\n"
    if kind == "truncated line":
        return good + first[: len(first) // 2]          # cut mid-line, no newline
    if kind == "short row":
        return good + first.rsplit(",", 1)[0] + "\n"
    fields = first.split(",")
    fields[0] = "12x"
    return header + "\n" + ",".join(fields) + "\n"


@pytest.mark.parametrize("script", sorted(PLOTS))
@pytest.mark.parametrize("kind", sorted(BAD))
def test_plot_rejects_bad_csv_with_one_line(tmp_path, capsys, script, kind):
    good, extra = PLOTS[script]
    path = write(tmp_path, "bad.csv", bad_text(kind, good))
    out = tmp_path / "out.png"
    rc = load(script).main(["--input", f"x={path}", "--out", str(out)] + extra)
    err = capsys.readouterr().err
    assert rc != 0
    assert err.count("\n") == 1 and path in err and BAD[kind][1] in err, err
    assert "Traceback" not in err
    assert not out.exists()


@pytest.mark.parametrize("script", sorted(PLOTS))
def test_plot_missing_file(tmp_path, capsys, script):
    path = str(tmp_path / "nope.csv")
    rc = load(script).main(["--input", f"x={path}", "--out", str(tmp_path / "o.png")])
    err = capsys.readouterr().err
    assert rc != 0 and path in err and "no such file" in err


def test_plot_rejects_a_bad_output_name_and_label(tmp_path, capsys):
    path = write(tmp_path, "a.csv", SAMPLES)
    plot = load("plot_percentiles")
    assert plot.main(["--input", f"x={path}", "--out", str(tmp_path / "o.jpg")]) != 0
    assert plot.main(["--input", path, "--out", str(tmp_path / "o.png")]) != 0
    err = capsys.readouterr().err
    assert ".png or .svg" in err and "LABEL=PATH" in err


def test_plot_command_line_never_shows_a_traceback(tmp_path):
    path = write(tmp_path, "bad.csv", SAMPLES + "4,13000")
    proc = subprocess.run(["/usr/bin/python3", os.path.join(SCRIPTS, "plot_scatter.py"),
                           "--input", f"x={path}", "--out", str(tmp_path / "o.png")],
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert proc.stderr.startswith("plot_scatter: error: ") and path in proc.stderr
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1


def test_cdf_data():
    from benchlib import plotdata
    xs, ys = plotdata.cdf([30.0, 10.0, 20.0, 40.0])
    assert xs == [10.0, 20.0, 30.0, 40.0] and ys == [0.25, 0.5, 0.75, 1.0]
