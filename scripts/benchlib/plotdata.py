# SPDX-License-Identifier: GPL-2.0
"""Loading and shaping the CSV inputs of the plot scripts (no drawing).

Each loader reads one CSV strictly (csvio.read_table) and returns plain
lists, so the plot scripts only draw.
"""

from . import csvio, metrics

SAMPLES_COLUMNS = ["index", "t_ns", "latency_ns", "node", "zone", "success"]
SCORES_COLUMNS = ["t_s", "node", "score", "free_order9_blocks"]
MAP_COLUMNS = ["region_pfn", "mapped_pages"]

# The percentiles drawn on the percentile chart: fine enough for a curve.
CURVE_PERCENTILES = [1, 2, 5, 10, 20, 25, 30, 40, 50, 60, 70, 75, 80, 90, 95, 97.5, 99,
                     99.5, 99.9]


def load_latencies(path):
    """khugehog samples.csv -> {'index': [...], 'latency_us': [...], 'success': [...]}."""
    rows = csvio.read_table(path, SAMPLES_COLUMNS,
                            numeric=("index", "t_ns", "latency_ns", "success"))
    for row in rows:
        if row["success"] not in (0, 1):
            raise csvio.CsvError(path, f"success must be 0 or 1, not {row['success']}")
    return {"index": [r["index"] for r in rows],
            "t_s": [r["t_ns"] / 1e9 for r in rows],
            "latency_us": [r["latency_ns"] / 1000 for r in rows],
            "success": [r["success"] == 1 for r in rows]}


def percentile_curve(latencies_us, percentiles=CURVE_PERCENTILES):
    """[(percentile, latency)] of the given (successful) latencies."""
    values = sorted(latencies_us)
    if not values:
        return []
    return [(p, metrics.percentile(values, p)) for p in percentiles]


def successful(data):
    """The latencies of the successful allocations only."""
    return [lat for lat, ok in zip(data["latency_us"], data["success"]) if ok]


def load_scores(path):
    """scores.csv -> {'nodes': {node: (t, score, pcompact_score)}, 'low', 'high', 'blocks'}.

    blocks: [(t, free order-9 blocks summed over nodes)] per sample time.
    """
    rows = csvio.read_table(path, SCORES_COLUMNS,
                            numeric=("t_s", "node", "score", "free_order9_blocks"),
                            optional_numeric=("pcompact_score", "wmark_low", "wmark_high"))
    nodes = {}
    blocks = {}
    for r in rows:
        t, s, pc = nodes.setdefault(r["node"], ([], [], []))
        t.append(r["t_s"])
        s.append(r["score"])
        pc.append(r.get("pcompact_score"))
        blocks[r["t_s"]] = blocks.get(r["t_s"], 0) + r["free_order9_blocks"]
    low = next((r.get("wmark_low") for r in rows if r.get("wmark_low") is not None), None)
    high = next((r.get("wmark_high") for r in rows if r.get("wmark_high") is not None), None)
    return {"nodes": nodes, "low": low, "high": high, "blocks": sorted(blocks.items())}


def load_map(path):
    """frag's map CSV -> ([region start in GiB of physical address], [mapped pages])."""
    rows = csvio.read_table(path, MAP_COLUMNS, numeric=MAP_COLUMNS)
    rows.sort(key=lambda r: r["region_pfn"])
    for r in rows:
        if not 0 <= r["mapped_pages"] <= 512:
            raise csvio.CsvError(path, f"mapped_pages {r['mapped_pages']} outside 0..512")
    return ([r["region_pfn"] * 4096 / 2**30 for r in rows],
            [r["mapped_pages"] for r in rows])


def cdf(latencies_us):
    """([latency sorted], [cumulative share 0..1]) of the given latencies."""
    values = sorted(latencies_us)
    n = len(values)
    return values, [(i + 1) / n for i in range(n)]


SWEEP_COLUMNS = ["scenario", "workload", "offered_per_s", "p50_us", "p95_us",
                 "over_100us_pct"]


def load_sweep(path):
    """streams.csv -> {scenario: [points sorted by offered rate]}, sweep rows
    only (workload sweepD), rows missing a number left out.  A point's
    back_to_back is true for the step without a delay, whose rate is the one
    it achieved, not one offered."""
    rows = csvio.read_table(path, SWEEP_COLUMNS,
                            optional_numeric=("offered_per_s", "p50_us", "p95_us",
                                              "over_100us_pct"))
    out = {}
    for r in rows:
        if not str(r["workload"]).startswith("sweep"):
            continue
        if any(r.get(k) is None for k in SWEEP_COLUMNS[2:]):
            continue
        r["back_to_back"] = r["workload"] == "sweep0"
        out.setdefault(r["scenario"], []).append(r)
    for points in out.values():
        points.sort(key=lambda p: p["offered_per_s"])
    return out
