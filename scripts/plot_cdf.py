#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""plot_cdf: cumulative distribution of the allocation latency, one line per
run, one colour per scenario (successful allocations only, log x).

  plot_cdf.py --input vanilla=vanilla/run-1/khugehog_samples.csv \\
              --input vanilla=vanilla/run-2/khugehog_samples.csv \\
              --input pcompact=pcompact/run-1/khugehog_samples.csv --out cdf.png

Inputs with the same label are runs of one scenario.  Input: khugehog
samples CSV (index,t_ns,latency_ns,node,zone,success).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchplot  # noqa: E402
from benchlib import plotdata  # noqa: E402


def draw(args):
    fig, ax = benchplot.figure()
    colours = {}
    runs = {}
    for label, path in args.inputs:
        xs, ys = plotdata.cdf(plotdata.successful(plotdata.load_latencies(path)))
        if not xs:
            continue
        if label not in colours:
            colours[label] = f"C{len(colours) % 10}"
        runs[label] = runs.get(label, 0) + 1
        ax.step([max(x, 0.1) for x in xs], ys, where="post", color=colours[label],
                alpha=0.7, linewidth=1.2, label=label if runs[label] == 1 else None)
    if not colours:
        raise ValueError("no input has a successful allocation to draw")
    ax.axvline(100, color="grey", linestyle=":", linewidth=1)
    ax.set_xscale("log")
    ax.set_xlabel("allocation latency (us, log); dotted: 100 us")
    ax.set_ylabel("share of successful allocations")
    ax.set_ylim(0, 1.01)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(title="one line per run")
    ax.set_title("Order-9 allocation latency, CDF per run")
    return fig


def main(argv=None):
    return benchplot.run("plot_cdf", __doc__.splitlines()[0], argv, draw)


if __name__ == "__main__":
    sys.exit(main())
