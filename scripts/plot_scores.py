#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""plot_scores: node fragmentation score over time, one panel per run, with
the low and high thresholds of the run's mechanism (seed 000 fig. 4).

  plot_scores.py --input kernel=kernel/scores.csv --input pcompact=pcompact/scores.csv \\
                 --out scores.png

Input: scores.csv (t_s,node,score,free_order9_blocks[,pcompact_score,wmark_low,
wmark_high]); t = 0 is the first allocation.  Where pcompact_score is
present (pcompact's own sysfs score) it is drawn dotted.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchplot  # noqa: E402
from benchlib import plotdata  # noqa: E402


def add_args(parser):
    parser.add_argument("--columns", type=int, default=2, help="panels per row (default 2)")
    parser.add_argument("--xlabel", default="time since the first allocation (s)",
                        help="what t = 0 is, for the x axis label")


def draw(args):
    loaded = [(label, plotdata.load_scores(path)) for label, path in args.inputs]
    fig, axes = benchplot.grid(len(loaded), args.columns, sharey=True)
    for ax, (label, data) in zip(axes, loaded):
        for node, (t, score, pc) in sorted(data["nodes"].items()):
            line, = ax.plot(t, score, label=f"node {node}", linewidth=1.2)
            pts = [(x, y) for x, y in zip(t, pc) if y is not None]
            if pts:
                ax.plot(*zip(*pts), linestyle=":", color=line.get_color(),
                        label=f"node {node} (pcompact sysfs)")
        if data["high"] is not None:
            ax.axhline(data["high"], color="red", linestyle="--", linewidth=0.8,
                       label=f"high {data['high']:g}")
        if data["low"] is not None:
            ax.axhline(data["low"], color="green", linestyle="--", linewidth=0.8,
                       label=f"low {data['low']:g}")
        ax.axvline(0, color="grey", linewidth=0.8)
        ax.set_ylim(-2, 102)
        ax.set_title(label if data["high"] is not None else f"{label} (no thresholds)")
        ax.set_xlabel(args.xlabel)
        ax.set_ylabel("node score")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="x-small", loc="lower left")
    fig.tight_layout()
    return fig


def main(argv=None):
    return benchplot.run("plot_scores", __doc__.splitlines()[0], argv, draw, add_args)


if __name__ == "__main__":
    sys.exit(main())
