# SPDX-License-Identifier: GPL-2.0
"""Statistics over repeated runs: the run order, medians with bootstrap
intervals, and the verdict on a target.

One run is one VM boot of one scenario; its summary gives one number per
metric (a p50, a count...).  Over the N runs of a scenario the report
gives the median and a 95% percentile-bootstrap interval of the median,
and a target is met or missed only when that interval lies wholly on one
side of the threshold; otherwise it is unsettled.

Everything random here takes an explicit seed, so a report can be
recomputed exactly from its raw files and the seed in run.json.
"""

import collections
import math
import random

INF = float("inf")
LEVEL = 0.95
RESAMPLES = 2000

MET, MISSED, UNSETTLED, NOT_MEASURED = "met", "missed", "unsettled", "not measured"

# A bootstrap interval of a median never reaches past the runs' range, and
# the range of n runs holds the true median with probability 1 - 2^(1-n):
# 50% for 2 runs, 75% for 3, 87.5% for 4, 93.75% for 5.  Below 5 runs a
# "95%" interval is far narrower than its name, so no verdict: with 2 runs
# of the kernel at proactiveness 80 one make bench found pcompact's mean
# 0.224x its (met), the one before on the same code 0.806x.
MIN_RUNS_TO_SETTLE = 5


def run_order(names, runs, seed, limits=None):
    """The order of the boots: [(scenario, run number from 1)].

    limits: {name: runs} for scenarios that run fewer times than runs
    (they drop out of the later rounds).

    Randomised and interleaved: round r holds run r of every scenario, in
    an order of its own drawn from a generator seeded with seed, so no
    scenario always comes first (host load drifting over an hour falls on
    all alike) and a run cut short still has every scenario about as often.
    """
    if runs < 1:
        raise ValueError(f"runs must be at least 1, not {runs}")
    if len(set(names)) != len(names):
        raise ValueError("scenario names must be distinct")
    rng = random.Random(seed)
    order = []
    limits = limits or {}
    for r in range(1, runs + 1):
        shuffled = [n for n in names if limits.get(n, runs) >= r]
        rng.shuffle(shuffled)
        order += [(n, r) for n in shuffled]
    return order


def runs_per_scenario(names, order):
    """What the boot order gives each of names, for the bench's first line:
    "kernel, pcompact: 10 run(s)", one group per run count, most runs first
    and names in their given order ("...; bursts-kernel: 2 run(s)" where
    --extra-runs cuts some), so that a scenario getting fewer runs than
    --runs is said before any boot."""
    counts = collections.Counter(name for name, _ in order)
    groups = {}
    for name in names:
        groups.setdefault(counts[name], []).append(name)
    return "; ".join(f"{', '.join(group)}: {n} run(s)"
                     for n, group in sorted(groups.items(), reverse=True))


def median(values):
    """The median (mean of the middle two for an even count); None if empty."""
    v = sorted(values)
    n = len(v)
    if n == 0:
        return None
    mid = n // 2
    return v[mid] if n % 2 else (v[mid - 1] + v[mid]) / 2


def quantile(sorted_values, q):
    """Linear-interpolation quantile (q in [0, 1]) of sorted values."""
    n = len(sorted_values)
    if n == 0:
        return None
    pos = q * (n - 1)
    lo = int(pos)
    hi = min(lo + 1, n - 1)
    a, b, frac = sorted_values[lo], sorted_values[hi], pos - lo
    if frac == 0 or a == b:
        return a
    return a + (b - a) * frac if b != float("inf") else b


def _clean(values):
    return [v for v in values if isinstance(v, (int, float)) and v == v]


def _interval(draws, level):
    """(lo, hi): the percentile interval at level of bootstrap draws."""
    draws = sorted(draws)
    tail = (1 - level) / 2
    return quantile(draws, tail), quantile(draws, 1 - tail)


def bootstrap_median(values, seed, level=LEVEL, resamples=RESAMPLES):
    """{n, median, lo, hi}: the median of values and a percentile-bootstrap
    interval of it.  lo/hi are None below 2 values (no interval)."""
    vals = _clean(values)
    out = {"n": len(vals), "median": median(vals), "lo": None, "hi": None}
    if len(vals) < 2:
        return out
    rng = random.Random(seed)
    out["lo"], out["hi"] = _interval(
        (median(rng.choices(vals, k=len(vals))) for _ in range(resamples)), level)
    return out


def bootstrap_ratio(num, den, seed, level=LEVEL, resamples=RESAMPLES):
    """{n_num, n_den, ratio, lo, hi}: median(num) / median(den) and a
    percentile-bootstrap interval, the two samples resampled independently
    (the runs of two scenarios are separate boots, not pairs).  ratio is
    None when a median is missing or the denominator's is 0; resamples
    whose denominator median is 0 count as +infinity.  Values may be
    +infinity ("never"): a median of +infinity over another's gives no
    ratio, and such a resample counts as +infinity."""
    a, b = _clean(num), _clean(den)
    out = {"n_num": len(a), "n_den": len(b), "ratio": None, "lo": None, "hi": None}
    ma, mb = median(a), median(b)
    if ma is None or mb is None or mb == 0 or ma == mb == INF:
        return out
    out["ratio"] = ma / mb
    if len(a) < 2 or len(b) < 2:
        return out
    rng = random.Random(seed)

    def draw():
        ra = median(rng.choices(a, k=len(a)))
        rb = median(rng.choices(b, k=len(b)))
        # +inf over +inf (both "never") is unknown: counted as the worst.
        return ra / rb if rb and not ra == rb == INF else INF

    out["lo"], out["hi"] = _interval((draw() for _ in range(resamples)), level)
    return out


def bootstrap_ratio_grouped(num, den, seed, level=LEVEL, resamples=RESAMPLES):
    """bootstrap_ratio() of the medians of pooled values, resampling whole
    groups: num and den are lists of groups (each a list of values, one
    group per boot), since the values one boot gives are not independent
    of each other.  {n_num, n_den (groups), median_num, median_den (of
    the pooled values), ratio, lo, hi}; lo/hi are None below 2 groups a
    side."""
    a = [g for g in map(_clean, num) if g]
    b = [g for g in map(_clean, den) if g]
    out = {"n_num": len(a), "n_den": len(b), "median_num": None, "median_den": None,
           "ratio": None, "lo": None, "hi": None}
    if not a or not b:
        return out

    def pooled(groups):
        return median([v for g in groups for v in g])

    ma, mb = out["median_num"], out["median_den"] = pooled(a), pooled(b)
    if not mb:
        return out
    out["ratio"] = ma / mb
    if len(a) < 2 or len(b) < 2:
        return out
    rng = random.Random(seed)

    def draw():
        ra = pooled(rng.choices(a, k=len(a)))
        rb = pooled(rng.choices(b, k=len(b)))
        return ra / rb if rb else INF

    out["lo"], out["hi"] = _interval((draw() for _ in range(resamples)), level)
    return out


def fisher_exact(a, b, c, d):
    """Two-sided p of Fisher's exact test on the 2x2 table [[a, b], [c, d]]
    (say, failed and good streams of two mechanisms): the probability, with
    the margins fixed, of a table no more likely than the one seen."""
    row1, col1, n = a + b, a + c, a + b + c + d
    if min(a, b, c, d) < 0:
        raise ValueError("fisher_exact: negative count")
    if n == 0:
        return 1.0

    def prob(x):
        return math.comb(col1, x) * math.comb(n - col1, row1 - x) / math.comb(n, row1)

    seen = prob(a)
    lo, hi = max(0, row1 + col1 - n), min(row1, col1)
    # A relative tolerance, as floating point makes equal tables differ a little.
    return min(1.0, sum(p for p in (prob(x) for x in range(lo, hi + 1))
                        if p <= seen * (1 + 1e-7)))


def bootstrap_median_grouped(groups, seed, level=LEVEL, resamples=RESAMPLES):
    """{n (groups), values, median, lo, hi}: the median of the pooled values
    of groups (each a list, one per boot) and a percentile-bootstrap
    interval that resamples whole groups, since the values of one boot are
    not independent of each other; lo/hi are None below 2 groups."""
    groups = [g for g in map(_clean, groups) if g]
    pooled = [v for g in groups for v in g]
    out = {"n": len(groups), "values": len(pooled), "median": median(pooled),
           "lo": None, "hi": None}
    if len(groups) < 2:
        return out
    rng = random.Random(seed)
    out["lo"], out["hi"] = _interval(
        (median([v for g in rng.choices(groups, k=len(groups)) for v in g])
         for _ in range(resamples)), level)
    return out


def verdict(estimate, lo, hi, threshold, want, runs=None):
    """met / missed / unsettled / not measured for an estimate (a median
    or a ratio of medians) with its interval [lo, hi].

    want "le": the target is value <= threshold; "ge": value >= threshold.
    Met only when the whole interval satisfies it, missed only when none
    of it does; an interval that straddles the threshold, or no interval
    at all (fewer than 2 runs), is unsettled; no estimate is not measured.
    runs: the fewest runs behind either median; below MIN_RUNS_TO_SETTLE
    the verdict is unsettled whatever the interval.
    """
    if want not in ("le", "ge"):
        raise ValueError(f"want must be 'le' or 'ge', not {want!r}")
    if estimate is None:
        return NOT_MEASURED
    if lo is None or hi is None:
        return UNSETTLED
    if runs is not None and runs < MIN_RUNS_TO_SETTLE:
        return UNSETTLED
    if lo > hi:
        raise ValueError(f"interval [{lo}, {hi}] is reversed")
    if want == "le":
        if hi <= threshold:
            return MET
        if lo > threshold:
            return MISSED
    else:
        if lo >= threshold:
            return MET
        if hi < threshold:
            return MISSED
    return UNSETTLED


def settled(verdicts):
    """The verdicts that are met or missed: {key: verdict}."""
    return {k: v for k, v in verdicts.items() if v in (MET, MISSED)}


def agreement(first, second):
    """Keys whose settled verdict in first differs in second (the check
    'every settled verdict of the first run is the same in the second')."""
    return sorted(k for k, v in settled(first).items() if second.get(k) != v)
