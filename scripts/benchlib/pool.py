# SPDX-License-Identifier: GPL-2.0
"""Benches of one setup read together: which runs of a bench directory
count, whether benches measured the same thing, and what changed in the
sources between them (scripts/bench-pool, scripts/bench-ab)."""

import json
import os
import shlex
import subprocess

from . import report, scenarios
from . import runs as benchruns

# run.json fields that must be equal for runs to pool.
SAME_FIELDS = ("release", "vm", "guest_cmdline", "init_on_alloc", "frag_args", "idle_s",
               "observe_s", "head_start_rule", "host", "quick", "enforce_validity")

# bench options that choose only how many runs, in what order, how long to
# retry and where results go: they may differ between pooled benches.  And
# --kernel, which only names the kernel: "6.12" and the release it resolves
# to boot the same one, and the release itself is compared (SAME_FIELDS).
FREE_OPTIONS = {"--scenarios": True, "--runs": True, "--extra-runs": True,
                "--budget-min": True, "--seed": True, "--retries": True, "--out": True,
                "--work": True, "--allow-other-vms": False, "--kernel": True}

# bench options given at the value a bench takes without them: "--cpu max"
# boots what no --cpu does, so the two pool.  tests/unit checks each value
# against scripts/bench's own default.  These are today's defaults: should
# one change, a bench of an older tree run without the option took the old
# value, and this table must then not treat the two alike.
DEFAULT_VALUES = {"--cpu": "max", "--nodes": "2", "--cpus": "2", "--accel": "tcg",
                  "--init-on-alloc": "0", "--stop-after-failures": "100",
                  "--keep-free-mb": "16", "--alloc-cpu": "node0", "--sweep-max-mb": "1024"}

# What a pool's sources may differ in that changes what a run measures.
MEASURED_PATHS = ("module", "khugehog", "frag", "scripts/bench-guest.sh")


class PoolError(Exception):
    """Input that cannot be pooled; the message says which and why."""


def measured_options(command):
    """The options of a bench command line that shape what a run measures:
    a sorted list of "option" or "option=value" strings, the FREE_OPTIONS
    dropped.  Raises PoolError for a command that is not scripts/bench."""
    words = shlex.split(command)
    if not words or os.path.basename(words[0]) != "bench":
        raise PoolError(f"command {command!r} is not a scripts/bench command line")
    out, i = [], 1
    while i < len(words):
        word = words[i]
        name, eq, value = word.partition("=")
        if not name.startswith("--"):
            raise PoolError(f"command {command!r}: cannot read {word!r}")
        takes = FREE_OPTIONS.get(name)
        if takes is None:
            # An option not known to be free: kept, with its value when it has one.
            if not eq and i + 1 < len(words) and not words[i + 1].startswith("--"):
                value, eq = words[i + 1], "="
                i += 1
            if not (eq and DEFAULT_VALUES.get(name) == value):
                out.append(f"{name}={value}" if eq else name)
        elif takes and not eq:
            i += 1
        i += 1
    return sorted(out)


def load_bench(directory):
    """{dir, ctx (run.json), runs: {scenario: [summaries of the runs that
    count]}} for one bench's <release> directory: the attempts that stand
    (run-<r>) and are neither failed nor void."""
    try:
        with open(os.path.join(directory, "run.json")) as f:
            ctx = json.load(f)
    except (OSError, ValueError) as err:
        raise PoolError(f"{directory}: no readable run.json ({err})") from err
    if not isinstance(ctx.get("runs"), int):
        raise PoolError(f"{directory}: not a repeated run (run.json has no run count)")
    runs = {}
    try:
        for scenario in scenarios.select(ctx.get("order"), ctx.get("quick", False)):
            standing, _ = report.read_stored_runs(directory, scenario)
            # A run the bench could not retry in its budget stands failed or
            # void under its plain name; it does not count here either.
            counting = [s for s in standing if benchruns.counts(s)]
            if counting:
                runs[scenario.name] = counting
    except ValueError as err:
        raise PoolError(f"{directory}: {err}") from err
    return {"dir": directory, "ctx": ctx, "runs": runs}


def differing_fields(a, b, fields):
    """[(field, a's value, b's value)] for each of fields whose run.json
    values differ between benches a and b, in the order of fields."""
    return [(f, a["ctx"].get(f), b["ctx"].get(f)) for f in fields
            if a["ctx"].get(f) != b["ctx"].get(f)]


# The SAME_FIELDS benches may be let differ in (--may-differ): rules that
# judge runs, not what a run measures.  Kernel, guest, zeroing, frag and
# head start stay the same, as the reports print the first bench's.
MAY_DIFFER = ("head_start_rule", "enforce_validity")


def may_differ_fields(text):
    """The MAY_DIFFER fields named in a --may-differ value (comma-separated);
    ValueError naming any other."""
    fields = [f for f in text.split(",") if f]
    unknown = [f for f in fields if f not in MAY_DIFFER]
    if unknown:
        raise ValueError(f"{', '.join(unknown)}: not one of {', '.join(MAY_DIFFER)} (the "
                         "rules that judge runs; what a run measures must be the same)")
    return fields


def allowed_differences(benches, may_differ):
    """'field (dir value, dir value, ...)' for each field of may_differ the
    benches do not all share, every bench's value named."""
    return [f"{field} (" + ", ".join(f"{b['dir']} {b['ctx'].get(field)!r}" for b in benches) + ")"
            for field in may_differ
            if len({repr(b["ctx"].get(field)) for b in benches}) > 1]


def mismatches(benches, may_differ=()):
    """Why the benches cannot pool: a list of messages, empty when they can.
    Each is compared with the first, on SAME_FIELDS but those in may_differ."""
    first = benches[0]
    why = []
    base_options = measured_options(first["ctx"].get("command", ""))
    fields = [f for f in SAME_FIELDS if f not in may_differ]
    for b in benches[1:]:
        for field, mine, theirs in differing_fields(b, first, fields):
            why.append(f"{b['dir']}: {field} {mine!r} differs from "
                       f"{first['dir']}'s {theirs!r}")
        options = measured_options(b["ctx"].get("command", ""))
        if options != base_options:
            why.append(f"{b['dir']}: bench options {' '.join(options) or '(none)'} differ from "
                       f"{first['dir']}'s {' '.join(base_options) or '(none)'}")
    for b in benches:
        if b["ctx"].get("other_vms_at_start"):
            why.append(f"{b['dir']}: other QEMU VMs ran at its start")
    return why


def pool_runs(benches, names):
    """{scenario: [every bench's runs that count]}; PoolError when a bench
    has no run of a scenario in names."""
    pooled = {}
    for name in names:
        for b in benches:
            got = b["runs"].get(name)
            if not got:
                raise PoolError(f"{b['dir']}: no run of scenario {name!r} counts")
            pooled.setdefault(name, []).extend(got)
    return pooled


def common_scenarios(benches):
    """The scenarios every bench has counting runs of, in the first's order."""
    order = benches[0]["ctx"].get("order") or sorted(benches[0]["runs"])
    return [n for n in order if all(b["runs"].get(n) for b in benches)]


def source_changes(benches, repo):
    """git log --oneline of MEASURED_PATHS from the oldest source to the
    newest, as a list of lines; None when git cannot tell."""
    sources = [b["ctx"].get("source") for b in benches]
    if not all(sources):
        return None
    try:
        ordered = sorted(set(sources), key=lambda s: int(subprocess.run(
            ["git", "-C", repo, "rev-list", "--count", s], check=True, capture_output=True,
            text=True).stdout))
        if len(ordered) < 2:
            return []
        log = subprocess.run(["git", "-C", repo, "log", "--oneline", "--no-decorate",
                              f"{ordered[0]}..{ordered[-1]}", "--", *MEASURED_PATHS],
                             check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError, ValueError):
        return None
    return log.splitlines()


def changes_markdown(changes):
    """The lines of a report's paragraph on source_changes()' result."""
    lines = ["Commits between the oldest and newest source that changed what a run measures "
             f"({', '.join(MEASURED_PATHS)}):", ""]
    if changes is None:
        return lines + ["- git could not tell (a source is not in this repository's history)"]
    if not changes:
        return lines + ["- none"]
    return lines + [f"- {line}" for line in changes]


def head_commit(repo):
    """The repository's HEAD as 12 hex digits, None without git."""
    try:
        return subprocess.run(["git", "-C", repo, "rev-parse", "--short=12", "HEAD"],
                              check=True, capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
