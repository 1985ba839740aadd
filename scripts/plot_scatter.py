#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""plot_scatter: latency of every allocation against its index, one panel
per run (seed 000 fig. 3); failed attempts are red crosses.

  plot_scatter.py --input vanilla=vanilla/khugehog_samples.csv ... --out scatter.png

Input: khugehog samples CSV (index,t_ns,latency_ns,node,zone,success).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchplot  # noqa: E402
from benchlib import plotdata  # noqa: E402


def add_args(parser):
    parser.add_argument("--columns", type=int, default=2, help="panels per row (default 2)")


def draw(args):
    loaded = [(label, plotdata.load_latencies(path)) for label, path in args.inputs]
    fig, axes = benchplot.grid(len(loaded), args.columns, sharey=True)
    for ax, (label, data) in zip(axes, loaded):
        ok = [(i, max(lat, 0.1)) for i, lat, s in
              zip(data["index"], data["latency_us"], data["success"]) if s]
        bad = [(i, max(lat, 0.1)) for i, lat, s in
               zip(data["index"], data["latency_us"], data["success"]) if not s]
        if ok:
            ax.scatter(*zip(*ok), s=2, label="success")
        if bad:
            ax.scatter(*zip(*bad), s=12, marker="x", color="red", label="failure")
        ax.set_yscale("log")
        ax.set_title(f"{label}: {len(ok)} obtained, {len(bad)} failed")
        ax.set_xlabel("allocation index")
        ax.set_ylabel("latency (us, log)")
        ax.grid(True, which="both", alpha=0.3)
        if bad:
            ax.legend(loc="upper left", fontsize="small")
    fig.tight_layout()
    return fig


def main(argv=None):
    return benchplot.run("plot_scatter", __doc__.splitlines()[0], argv, draw, add_args)


if __name__ == "__main__":
    sys.exit(main())
