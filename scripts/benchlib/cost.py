# SPDX-License-Identifier: GPL-2.0
"""The compactors' cost paired within a boot (scripts/compactor-cost).

Each boot runs every arm once per repeat on a fresh fragmentation
(scripts/compactor-cost-guest.sh), one CSV row per arm run.  An arm's cost
in a repeat is its compactor CPU per page migrated, or per block created;
its ratio to the reference arm's cost in the same repeat of the same boot
is one paired value, and the values of one boot are one group for the
bootstrap (stats.bootstrap_median_grouped), as they shared that boot's host
load and are not independent.
"""

from . import stats

REFERENCE = "kernel"

# metric -> (numerator column, denominator column, scale): one value per
# arm run, the row's numerator over its denominator.
METRICS = {
    "cpu_us_per_page": ("compactor_cpu_ms", "pages_migrated", 1000.0),
    "cpu_ms_per_block": ("compactor_cpu_ms", "blocks_created", 1.0),
    "pages_per_block": ("pages_migrated", "blocks_created", 1.0),
    "migrate_scanned_per_page": ("migrate_scanned", "pages_migrated", 1.0),
    "free_scanned_per_page": ("free_scanned", "pages_migrated", 1.0),
}

INT_COLUMNS = ("repeat", "position", "blocks_before", "blocks_after", "blocks_created",
               "pages_migrated", "migrate_scanned", "free_scanned", "max_score_before",
               "max_score_after", "pcp_pages_after", "busy_at_end")
FLOAT_COLUMNS = ("window_s", "compactor_cpu_ms", "kcompactd_ms", "pcompactd_ms")


def parse_rows(dict_rows, boot):
    """The guest's CSV rows (csv.DictReader dicts) as typed dicts with a
    boot field.  Raises ValueError naming the row and column of a value
    that is not a number."""
    out = []
    for i, row in enumerate(dict_rows, 1):
        typed = {"boot": boot, "arm": row.get("arm", "")}
        if not typed["arm"]:
            raise ValueError(f"boot {boot} row {i}: no arm")
        for col in INT_COLUMNS + FLOAT_COLUMNS:
            try:
                typed[col] = (int if col in INT_COLUMNS else float)(row[col])
            except (KeyError, TypeError, ValueError):
                raise ValueError(f"boot {boot} row {i}: {col} is {row.get(col)!r}") from None
        out.append(typed)
    return out


def value(row, metric):
    """The row's metric, or None where its denominator is not positive (a
    run that migrated nothing or created no block has no cost per one)."""
    num, den, scale = METRICS[metric]
    if row[den] <= 0:
        return None
    return row[num] / row[den] * scale


def void_reason(row):
    """Why an arm run does not count, or None: a compactor that used no CPU
    or migrated nothing did not do what the scenario says."""
    if row["pages_migrated"] <= 0:
        return "migrated no page"
    if row["compactor_cpu_ms"] <= 0:
        return "no compactor CPU"
    return None


def paired_ratios(rows, arm, metric, reference=REFERENCE):
    """{boot: [ratio, ...]}: arm's metric over the reference arm's in each
    repeat of each boot where both counted and both have the metric."""
    by_key = {}
    for r in rows:
        if void_reason(r) is None:
            by_key[(r["boot"], r["repeat"], r["arm"])] = r
    groups = {}
    for (boot, repeat, name), r in sorted(by_key.items()):
        if name != arm:
            continue
        ref = by_key.get((boot, repeat, reference))
        if ref is None:
            continue
        a, b = value(r, metric), value(ref, metric)
        if a is None or not b:
            continue
        groups.setdefault(boot, []).append(a / b)
    return groups


def arms(rows, reference=REFERENCE):
    """The arms other than the reference, in their first appearance."""
    seen = []
    for r in rows:
        if r["arm"] != reference and r["arm"] not in seen:
            seen.append(r["arm"])
    return seen


def summarise(rows, seed, reference=REFERENCE):
    """[{arm, metric, n (boots), values, median, lo, hi, verdict}]: every
    arm's paired ratio to the reference for every metric.  verdict is
    stats.verdict against 1 ("le": the arm costs at most the reference),
    settled only over MIN_RUNS_TO_SETTLE boots or more."""
    out = []
    for arm in arms(rows, reference):
        for metric in METRICS:
            groups = paired_ratios(rows, arm, metric, reference)
            b = stats.bootstrap_median_grouped(list(groups.values()), seed)
            b.update(arm=arm, metric=metric,
                     verdict=stats.verdict(b["median"], b["lo"], b["hi"], 1.0, "le",
                                           runs=b["n"]))
            out.append(b)
    return out


def arm_medians(rows, metric):
    """{arm: (median of the metric over every counted run, runs)}."""
    values = {}
    for r in rows:
        if void_reason(r) is None:
            v = value(r, metric)
            if v is not None:
                values.setdefault(r["arm"], []).append(v)
    return {a: (stats.median(v), len(v)) for a, v in values.items()}
