# SPDX-License-Identifier: GPL-2.0
"""Shared command-line frame of the scripts/plot_*.py scripts.

Each plot script gives run() its description, the arguments it adds and a
draw(args) that returns a matplotlib figure.  run() parses LABEL=PATH
inputs, saves the figure as PNG or SVG by the --out extension, and turns
bad input (missing, empty, truncated, malformed CSV) into one line on
stderr naming the file, and exit status 1, never a traceback.
"""

import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
# The same input gives the same file: fixed SVG ids, no dates inside.
matplotlib.rcParams["svg.hashsalt"] = "pcompact-bench"
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import csvio  # noqa: E402

FORMATS = (".png", ".svg")


def run(prog, description, argv, draw, add_args=None):
    """Parse argv, draw, save; return the exit status."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--input", action="append", default=[], metavar="LABEL=PATH",
                        required=True, help="a labelled CSV input (repeat for more)")
    parser.add_argument("--out", required=True, help="output image, .png or .svg")
    parser.add_argument("--title", default=None, help="figure title")
    if add_args:
        add_args(parser)
    args = parser.parse_args(argv)
    if os.path.splitext(args.out)[1].lower() not in FORMATS:
        print(f"{prog}: error: --out {args.out}: must end in .png or .svg", file=sys.stderr)
        return 2
    try:
        args.inputs = csvio.parse_labelled(args.input)
        fig = draw(args)
    except csvio.CsvError as err:
        plt.close("all")
        print(f"{prog}: error: {err}", file=sys.stderr)
        return 1
    except ValueError as err:
        plt.close("all")
        print(f"{prog}: error: {err}", file=sys.stderr)
        return 2
    if args.title:
        fig.suptitle(args.title)
    out_dir = os.path.dirname(os.path.abspath(args.out))
    os.makedirs(out_dir, exist_ok=True)
    svg = args.out.lower().endswith(".svg")
    fig.savefig(args.out, dpi=110, bbox_inches="tight",
                metadata={"Date": None} if svg else {"Software": None})
    plt.close(fig)
    return 0


def grid(n, columns=2, width=6.0, height=2.6, sharex=False, sharey=False):
    """A figure with n axes in rows of `columns` (unused axes hidden)."""
    columns = max(1, min(columns, n))
    rows = (n + columns - 1) // columns
    fig, axes = plt.subplots(rows, columns, figsize=(width * columns, height * rows),
                             squeeze=False, sharex=sharex, sharey=sharey)
    flat = [ax for row in axes for ax in row]
    for ax in flat[n:]:
        ax.set_visible(False)
    return fig, flat[:n]


def figure(width=8.0, height=4.5):
    return plt.subplots(figsize=(width, height))
