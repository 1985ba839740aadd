#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""plot_occupancy: frag's pages per 2 MB physical region, one panel per map
(seed 001 figs. 1-2: ~128 of 512 after fragmenting; packed after compaction).

  plot_occupancy.py --input "vanilla before=map_before.csv" \\
                    --input "vanilla after=map_after.csv" --columns 2 --out occ.png

Input: frag --map CSV (region_pfn,mapped_pages).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchplot  # noqa: E402
from benchlib import plotdata  # noqa: E402


def add_args(parser):
    parser.add_argument("--columns", type=int, default=2, help="panels per row (default 2)")


def draw(args):
    loaded = [(label, plotdata.load_map(path)) for label, path in args.inputs]
    # One physical address range for every panel, so maps line up.
    fig, axes = benchplot.grid(len(loaded), args.columns, height=2.2, sharex=True, sharey=True)
    for ax, (label, (gib, pages)) in zip(axes, loaded):
        ax.bar(gib, pages, width=2 / 1024, linewidth=0)
        ax.set_ylim(0, 530)
        ax.set_title(f"{label}: {len(pages)} regions, {sum(pages)} pages", fontsize="small")
        ax.set_xlabel("physical address (GiB)")
        ax.xaxis.set_tick_params(labelbottom=True)
        ax.set_ylabel("pages per 2 MB")
        ax.grid(True, alpha=0.3)
    fig.tight_layout()
    return fig


def main(argv=None):
    return benchplot.run("plot_occupancy", __doc__.splitlines()[0], argv, draw, add_args)


if __name__ == "__main__":
    sys.exit(main())
