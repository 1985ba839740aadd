#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""plot_sweep: the rate sweep, latency against the offered allocation rate,
one curve per scenario: p50 and p95 (log), and the share of allocations
over 100 us.

  plot_sweep.py --input sweep=streams.csv --out sweep.png

Input: streams.csv as scripts/bench writes it (scenario, workload,
delay_us, offered_per_s, p50_us, p95_us, over_100us_pct, ...); only the
sweep rows (workload sweepD) are drawn.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchplot  # noqa: E402
from benchlib import plotdata  # noqa: E402


def draw(args):
    curves = {}
    for _, path in args.inputs:
        for name, points in plotdata.load_sweep(path).items():
            curves[name] = points
    if not curves:
        raise ValueError("no sweep rows to draw")
    fig, (lat, share) = benchplot.grid(2, columns=2, width=6.0, height=4.0)
    for i, (name, points) in enumerate(sorted(curves.items())):
        colour = f"C{i % 10}"
        # The paced steps are a curve; the back-to-back step's rate is what
        # it achieved, so it stands apart instead of joining the curve.
        paced = [p for p in points if not p["back_to_back"]]
        alone = [p for p in points if p["back_to_back"]]
        xs = [p["offered_per_s"] for p in paced]
        lat.plot(xs, [max(p["p50_us"], 0.1) for p in paced], marker="o", color=colour,
                 label=f"{name} p50")
        lat.plot(xs, [max(p["p95_us"], 0.1) for p in paced], marker="^", linestyle="--",
                 color=colour, label=f"{name} p95")
        share.plot(xs, [p["over_100us_pct"] for p in paced], marker="o", color=colour,
                   label=name)
        for p in alone:
            lat.scatter([p["offered_per_s"]] * 2, [max(p["p50_us"], 0.1), max(p["p95_us"], 0.1)],
                        marker="x", s=60, color=colour)
            share.scatter([p["offered_per_s"]], [p["over_100us_pct"]], marker="x", s=60,
                          color=colour)
    for ax in (lat, share):
        ax.set_xscale("log")
        ax.set_xlabel("offered rate (allocations/s); x: back to back (rate achieved)")
        ax.grid(True, which="both", alpha=0.3)
    lat.set_yscale("log")
    lat.set_ylabel("latency (us, log)")
    lat.legend(fontsize="small")
    share.set_ylabel("allocations over 100 us (%)")
    share.set_ylim(0, 100)
    share.legend(fontsize="small")
    fig.suptitle("Rate sweep: median over runs")
    return fig


def main(argv=None):
    return benchplot.run("plot_sweep", __doc__.splitlines()[0], argv, draw)


if __name__ == "__main__":
    sys.exit(main())
