#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""plot_free_blocks: free order-9 (2 MB) blocks over time, all nodes summed,
one line per run.

  plot_free_blocks.py --input vanilla=vanilla/scores.csv ... --out blocks.png

Input: scores.csv (t_s,node,score,free_order9_blocks,...); t = 0 is the
first allocation.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchplot  # noqa: E402
from benchlib import plotdata  # noqa: E402


def add_args(parser):
    parser.add_argument("--xlabel", default="time since the first allocation (s)",
                        help="what t = 0 is, for the x axis label")


def draw(args):
    fig, ax = benchplot.figure()
    for label, path in args.inputs:
        series = plotdata.load_scores(path)["blocks"]
        ax.plot([t for t, _ in series], [b for _, b in series], label=label, linewidth=1.2)
    ax.axvline(0, color="grey", linewidth=0.8)
    ax.set_xlabel(args.xlabel)
    ax.set_ylabel("free order-9 blocks (all nodes)")
    ax.grid(True, alpha=0.3)
    ax.legend()
    ax.set_title("Free 2 MB blocks")
    return fig


def main(argv=None):
    return benchplot.run("plot_free_blocks", __doc__.splitlines()[0], argv, draw, add_args)


if __name__ == "__main__":
    sys.exit(main())
