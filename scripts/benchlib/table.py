# SPDX-License-Identifier: GPL-2.0
"""The mmtests-style comparison table.

One row per metric; the first column is the baseline with (0.00%), every
other scenario shows its value and the relative change against the
baseline.  The sign convention is mmtests' (bin/lib/MMTests/Compare.pm):
positive always means better, whichever way the metric points:

  lower is better:   (baseline - value) / baseline * 100
  higher is better:  (value - baseline) / baseline * 100

A change is "n/a" where it is undefined: a value is missing, or the
baseline is 0 and the value is not.  One run per scenario, so no
significance marks.
"""

from collections import namedtuple

from . import metrics

# path: keys into a scenario summary dict, e.g. ("khugehog", "latency", "mean_us")
# lower_is_better: True, False, or None for a row shown without a change
# (a string, or a number that is context rather than a result).
# always: show the row even when no scenario has a value (all "-").
Metric = namedtuple("Metric", "label path lower_is_better decimals always",
                    defaults=(False,))

SIGN_CONVENTION = (
    "Relative changes follow mmtests' convention: **positive means better** "
    "whichever way the metric points (lower-is-better metrics: "
    "(baseline - value) / baseline; higher-is-better: (value - baseline) / baseline). "
    "`n/a`: undefined (a value is missing, or the baseline is 0 and the value is not). "
    "One run per scenario: no significance marks.")


def lookup(summary, path):
    """summary[path[0]][path[1]]..., or None where any key is missing."""
    value = summary
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value


def format_value(value, decimals):
    if value is None:
        return "-"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int) and decimals == 0:
        return str(value)
    if isinstance(value, (int, float)):
        return f"{value:.{decimals}f}"
    return str(value)


def format_change(change):
    return "n/a" if change is None else f"{change:+.2f}%"


def cell(value, base, metric, is_baseline):
    text = format_value(value, metric.decimals)
    numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
    if value is None or metric.lower_is_better is None or not numeric:
        return text
    if is_baseline:
        return f"{text} (0.00%)"
    if not isinstance(base, (int, float)) or isinstance(base, bool):
        base = None
    return f"{text} ({format_change(metrics.relative_change(base, value, metric.lower_is_better))})"


def comparison(summaries, order, baseline, rows):
    """Markdown table: rows = [Metric or ('section', title)], summaries by name.

    order: the scenario names to show (baseline first is added if missing).
    Rows where no scenario has a value are left out.
    """
    names = [baseline] + [n for n in order if n != baseline]
    names = [n for n in names if n in summaries]
    if not names:
        return ""
    head = ["Metric", "dir"] + [f"{n} (baseline)" if n == baseline else n for n in names]
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join([":---", ":-:"] + ["---:"] * len(names)) + "|"]
    for row in rows:
        if isinstance(row, tuple) and row and row[0] == "section":
            lines.append("| **" + row[1] + "** |" + " |" * (len(names) + 1))
            continue
        values = [lookup(summaries[n], row.path) for n in names]
        if all(v is None for v in values) and not row.always:
            continue
        base = values[0] if names[0] == baseline else None
        cells = [cell(v, base, row, n == baseline) for n, v in zip(names, values)]
        direction = {True: "lower", False: "higher", None: "-"}[row.lower_is_better]
        lines.append("| " + " | ".join([row.label, direction] + cells) + " |")
    return "\n".join(lines) + "\n"


def comparison_text(summaries, order, baseline, rows):
    """The same comparison as fixed-width text, laid out as mmtests prints it:
    one column per scenario, 'value (change)' right-aligned, sections as
    headings."""
    names = [baseline] + [n for n in order if n != baseline]
    names = [n for n in names if n in summaries]
    if not names:
        return ""
    body = []
    for row in rows:
        if isinstance(row, tuple) and row and row[0] == "section":
            body.append((row[1], None))
            continue
        values = [lookup(summaries[n], row.path) for n in names]
        if all(v is None for v in values) and not row.always:
            continue
        base = values[0] if names[0] == baseline else None
        body.append((row.label, [cell(v, base, row, n == baseline)
                                 for n, v in zip(names, values)]))
    label_w = max([len(label) for label, cells in body if cells] + [6])
    widths = [max([len(n)] + [len(c[i]) for _, c in body if c]) for i, n in enumerate(names)]
    out = [" " * label_w + "".join(f"  {n:>{w}}" for n, w in zip(names, widths))]
    for label, cells in body:
        if cells is None:
            out.append(f"\n{label}")
        else:
            out.append(f"{label:<{label_w}}" + "".join(f"  {c:>{w}}" for c, w in zip(cells, widths)))
    return "\n".join(out) + "\n"
