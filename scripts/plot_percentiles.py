#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""plot_percentiles: allocation latency percentiles of several runs on one
chart, log scale (successful allocations only).

  plot_percentiles.py --input vanilla=vanilla/khugehog_samples.csv \\
                      --input pcompact=pcompact/khugehog_samples.csv --out lat.png

Input: khugehog samples CSV (index,t_ns,latency_ns,node,zone,success).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchplot  # noqa: E402
from benchlib import plotdata  # noqa: E402


def draw(args):
    fig, ax = benchplot.figure()
    drawn = 0
    for label, path in args.inputs:
        data = plotdata.load_latencies(path)
        curve = plotdata.percentile_curve(plotdata.successful(data))
        if not curve:
            continue
        xs = list(range(len(curve)))
        ax.plot(xs, [max(v, 0.1) for _, v in curve], marker="o", markersize=3,
                label=f"{label} (n={sum(data['success'])})")
        drawn += 1
        ax.set_xticks(xs)
        ax.set_xticklabels([f"{p:g}" for p, _ in curve], rotation=45)
    if not drawn:
        raise ValueError("no input has a successful allocation to draw")
    ax.set_yscale("log")
    ax.set_xlabel("percentile")
    ax.set_ylabel("allocation latency (us, log)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    ax.set_title("Order-9 allocation latency percentiles")
    return fig


def main(argv=None):
    return benchplot.run("plot_percentiles", __doc__.splitlines()[0], argv, draw)


if __name__ == "__main__":
    sys.exit(main())
