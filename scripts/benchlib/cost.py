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
    "cpu_ms_per_block_with_held": ("compactor_cpu_ms", "blocks_created_with_held", 1.0),
    "migrate_scanned_per_page": ("migrate_scanned", "pages_migrated", 1.0),
    "free_scanned_per_page": ("free_scanned", "pages_migrated", 1.0),
}

INT_COLUMNS = ("repeat", "position", "blocks_before", "blocks_after", "blocks_created",
               "pages_migrated", "migrate_scanned", "free_scanned", "max_score_before",
               "max_score_after", "pcp_pages_after", "busy_at_end")
FLOAT_COLUMNS = ("window_s", "compactor_cpu_ms", "kcompactd_ms", "pcompactd_ms")
# Every node's score at switch-on and at the window's end, "S0;S1" in node
# order; rows written before the guest recorded them have neither (None).
NODE_SCORE_COLUMNS = ("node_scores_before", "node_scores_after")
# What the bench's observers saw in the window (compactor-cost --observe 1),
# 0 without them; None in rows written before the guest recorded them.
OBSERVER_COLUMNS = ("sampler_samples", "trace_events")
# The free pageblocks at the window's end as khugehog counts them at the
# bench's stream start: whole, and held (every page free, some on the
# per-CPU lists); None in rows written before the guest counted them.
KHUGEHOG_COLUMNS = ("whole_blocks_after", "held_blocks_after")
# pcompact's rounds and engine fallbacks on every node in the window (0 for
# the kernel's arm); None in rows written before the guest counted them.
ROUND_COLUMNS = ("pcompact_rounds", "engine_fallbacks")
# The node-sysfs arm's writers' CPU (ms, also in compactor_cpu_ms; 0 for the
# other arms); None in rows written before the guest had that arm.
WRITER_COLUMNS = ("writers_ms",)
# Rows without writers_ms came from a guest that summed compact_*_scanned and
# compact_daemon_*_scanned, which counts kcompactd's proactive scans twice
# on 6.12 (its compact_node() adds them to both): their scanner metrics
# are not computed.  The guest that added writers_ms counts them once.
SCANNER_METRICS = ("migrate_scanned_per_page", "free_scanned_per_page")


def optional_float(text):
    """A float of a cell, or None for an absent or empty one."""
    return None if text in (None, "") else float(text)


def parse_node_scores(text):
    """(S0, S1, ...) of a "S0;S1" cell, or None for an absent, empty or "-"
    one (the guest's mark for a list it could not read); raises ValueError
    on anything else."""
    if text is None or text in ("", "-"):
        return None
    return tuple(int(s) for s in text.split(";"))


def optional_int(text):
    """An int of a cell, or None for an absent or empty one."""
    return None if text in (None, "") else int(text)


def parse_rows(dict_rows, boot):
    """The guest's CSV rows (csv.DictReader dicts) as typed dicts with a
    boot field.  Raises ValueError naming the row and column of a value
    that is not a number."""
    out = []
    for i, row in enumerate(dict_rows, 1):
        typed = {"boot": boot, "arm": row.get("arm", "")}
        if not typed["arm"]:
            raise ValueError(f"boot {boot} row {i}: no arm")
        converters = ([(c, int) for c in INT_COLUMNS] + [(c, float) for c in FLOAT_COLUMNS]
                      + [(c, parse_node_scores) for c in NODE_SCORE_COLUMNS]
                      + [(c, optional_int) for c in OBSERVER_COLUMNS + KHUGEHOG_COLUMNS
                                                           + ROUND_COLUMNS]
                      + [(c, optional_float) for c in WRITER_COLUMNS])
        for col, convert in converters:
            try:
                typed[col] = convert(row[col] if convert in (int, float) else row.get(col))
            except (KeyError, TypeError, ValueError):
                raise ValueError(f"boot {boot} row {i}: {col} is {row.get(col)!r}") from None
        before, after = typed["node_scores_before"], typed["node_scores_after"]
        if (before is None) != (after is None) or (before and len(before) != len(after)):
            raise ValueError(f"boot {boot} row {i}: node scores {row.get(NODE_SCORE_COLUMNS[0])!r}"
                             f" and {row.get(NODE_SCORE_COLUMNS[1])!r} do not pair")
        typed["blocks_created_with_held"] = blocks_created_with_held(typed)
        out.append(typed)
    return out


def blocks_created_with_held(row):
    """The blocks the window created as the bench's head start counts them:
    whole and held at its end beyond the whole ones at switch-on (the bench
    counts blocks held at switch-on for the head start too); None for a row
    without khugehog's count."""
    whole, held = row.get("whole_blocks_after"), row.get("held_blocks_after")
    if whole is None or held is None:
        return None
    return whole + held - row["blocks_before"]


def value(row, metric):
    """The row's metric, or None where its denominator is not positive (a
    run that migrated nothing or created no block has no cost per one),
    lacks it (a row from before its denominator was recorded), or where it
    is a scanner metric of a row that counted scans twice
    (SCANNER_METRICS)."""
    num, den, scale = METRICS[metric]
    if row[den] is None or row[den] <= 0:
        return None
    if metric in SCANNER_METRICS and not scans_counted_once(row):
        return None
    return row[num] / row[den] * scale


def scans_counted_once(row):
    """Whether the row's scanner counts hold each compaction's scans once
    (rows with writers_ms; SCANNER_METRICS)."""
    return row.get("writers_ms") is not None


def nodes_left(row):
    """The nodes whose score did not fall from switch-on to the window's
    end, or None where the row has no node scores."""
    before, after = row.get("node_scores_before"), row.get("node_scores_after")
    if before is None or after is None:
        return None
    return [n for n, (b, a) in enumerate(zip(before, after)) if a >= b]


def void_reason(row):
    """Why an arm run does not count, or None: a compactor that used no CPU,
    migrated nothing or compacted no node did not do what the scenario says.

    No node's score falling is 6.12's free-scanner failure on every node
    (README, "What pcompactd's CPU pays for"): the call ends at once, a
    few ms for a block or two, and a cost per block over that is noise,
    not the cost of making blocks.  It is void whichever arm it is.  A run
    that left one node where it was and compacted another keeps its cost:
    that is the cost of the blocks it made, plus the few ms of the failed
    call.  The bench counts both as the kernel's outcome (its rule 3), as
    it measures the drain that follows, not the cost."""
    if row["pages_migrated"] <= 0:
        return "migrated no page"
    if row["compactor_cpu_ms"] <= 0:
        return "no compactor CPU"
    left = nodes_left(row)
    if left is not None and len(left) == len(row["node_scores_before"]):
        return ("no node's score fell ("
                + ";".join(map(str, row["node_scores_before"])) + " -> "
                + ";".join(map(str, row["node_scores_after"])) + ")")
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
