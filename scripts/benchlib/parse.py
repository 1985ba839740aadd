# SPDX-License-Identifier: GPL-2.0
"""Readers for the raw files bench-guest.sh sends back.

Every reader takes the text of one file and raises ParseError, with the
line that is wrong, on anything it cannot understand: a malformed file
must fail the scenario, not turn into zeros.
"""

import math
import re


class ParseError(ValueError):
    """A raw guest file is not in the expected format."""


def _number(text, what):
    try:
        value = float(text)
    except ValueError:
        raise ParseError(f"{what}: '{text}' is not a number") from None
    return int(value) if value.is_integer() and "." not in text else value


def key_values(text, what="key value file"):
    """'key value...' lines (khugehog summary, env.txt) -> {key: str}."""
    out = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        key, _, value = line.partition(" ")
        out[key] = value.strip()
    return out


def khugehog_summary(text):
    """/proc/khugehog/summary -> {key: number or string}."""
    out = {}
    for key, value in key_values(text).items():
        try:
            out[key] = _number(value, key)
        except ParseError:
            out[key] = value
    for need in ("count", "failures", "free_pages_start", "mean_us", "p50_us"):
        if need not in out:
            raise ParseError(f"khugehog summary lacks '{need}'")
    return out


def vmstat(text):
    """/proc/vmstat -> {counter: int}."""
    out = {}
    for n, line in enumerate(text.splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 2:
            raise ParseError(f"vmstat line {n}: '{line}'")
        try:
            out[parts[0]] = int(parts[1])
        except ValueError:
            raise ParseError(f"vmstat line {n}: '{line}'") from None
    if not out:
        raise ParseError("vmstat is empty")
    return out


BUDDY_RE = re.compile(r"^Node\s+(\d+),\s+zone\s+(\S+)\s+(.*)$")


def buddyinfo_line(line):
    """'Node 0, zone DMA32 1 2 ...' -> (node, zone, [nr_free per order])."""
    match = BUDDY_RE.match(line.strip())
    if not match:
        raise ParseError(f"buddyinfo: '{line}'")
    try:
        counts = [int(c) for c in match.group(3).split()]
    except ValueError:
        raise ParseError(f"buddyinfo: '{line}'") from None
    if not counts:
        raise ParseError(f"buddyinfo: no free counts in '{line}'")
    return int(match.group(1)), match.group(2), counts


def buddyinfo(text):
    """/proc/buddyinfo -> [(node, zone, counts)]."""
    rows = [buddyinfo_line(line) for line in text.splitlines() if line.strip()]
    if not rows:
        raise ParseError("buddyinfo is empty")
    return rows


ZONE_RE = re.compile(r"^Node\s+(\d+),\s+zone\s+(\S+)")


def pageblock_types(text):
    """/proc/pagetypeinfo -> {node: {migratetype: pageblocks}}, zones summed.

    Each node has its own section (free pages per type and order, then the
    "Number of blocks type" table); only the rows right under a table's
    header are read, each one zone's counts in the order the header names
    the types (they differ with the kernel's config, e.g. CMA).
    """
    out = {}
    types = None
    tables = 0
    for line in text.splitlines():
        parts = line.split()
        if parts[:4] == ["Number", "of", "blocks", "type"]:
            types = parts[4:]
            tables += 1
            continue
        match = ZONE_RE.match(line.strip()) if types else None
        if not match:
            types = None
            continue
        counts = line.strip()[match.end():].split()
        if len(counts) != len(types):
            raise ParseError(f"pagetypeinfo: {len(types)} types but '{line}'")
        try:
            values = [int(c) for c in counts]
        except ValueError:
            raise ParseError(f"pagetypeinfo: '{line}'") from None
        node = out.setdefault(int(match.group(1)), {})
        for name, value in zip(types, values):
            node[name] = node.get(name, 0) + value
    if not tables:
        raise ParseError("pagetypeinfo has no 'Number of blocks type' table")
    return out


def zone_present_pages(text):
    """zoneinfo (or its zone header + 'present' lines) -> {(node, zone): pages}."""
    out = {}
    current = None
    for line in text.splitlines():
        match = ZONE_RE.match(line)
        if match:
            current = (int(match.group(1)), match.group(2))
            continue
        parts = line.split()
        if current and len(parts) == 2 and parts[0] == "present":
            out[current] = int(parts[1])
    if not out:
        raise ParseError("zoneinfo has no 'present' lines")
    return out


def kthreads(text):
    """'comm pid utime stime run_ns' lines -> {comm: {pid, ticks, run_ns}}."""
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 5:
            raise ParseError(f"kthreads: '{line}'")
        try:
            pid, utime, stime, run_ns = (int(p) for p in parts[1:])
        except ValueError:
            raise ParseError(f"kthreads: '{line}'") from None
        out[parts[0]] = {"pid": pid, "ticks": utime + stime, "run_ns": run_ns}
    return out


def events(text):
    """'name uptime' lines -> {name: seconds} (the first of each name)."""
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 2:
            raise ParseError(f"events: '{line}'")
        out.setdefault(parts[0], _number(parts[1], f"event {parts[0]}"))
    return out


def sampler(text):
    """The sampler's raw lines -> [(t, [(node, zone, counts)], {node: score})].

    'T <uptime>' starts a sample, 'B <buddyinfo line>' and 'P <node>
    <score>' belong to it.  A sample cut short (the last one, if the
    sampler was stopped while writing it) has fewer zones than the others
    and is dropped.
    """
    samples = []
    current = None
    for n, line in enumerate(text.splitlines(), 1):
        if not line:
            continue
        tag, _, rest = line.partition(" ")
        if tag == "T":
            current = (_number(rest, f"sampler line {n}"), [], {})
            samples.append(current)
        elif current is None:
            raise ParseError(f"sampler line {n}: data before the first 'T' line")
        elif tag == "B":
            current[1].append(buddyinfo_line(rest))
        elif tag == "P":
            parts = rest.split()
            if len(parts) != 2:
                raise ParseError(f"sampler line {n}: '{line}'")
            current[2][int(parts[0])] = _number(parts[1], f"sampler line {n}")
        else:
            raise ParseError(f"sampler line {n}: unknown tag in '{line}'")
    if not samples:
        return []
    zones = max(len(s[1]) for s in samples)
    return [s for s in samples if len(s[1]) == zones]


def frag_line(text, prefix):
    """The key=value fields of frag's first output line starting with prefix."""
    for line in text.splitlines():
        if line.startswith(prefix + " "):
            fields = {}
            for word in line[len(prefix) + 1:].split():
                key, sep, value = word.partition("=")
                if sep:
                    try:
                        fields[key] = _number(value, key)
                    except ParseError:
                        fields[key] = value
            return fields
    raise ParseError(f"no '{prefix}' line in frag's output")


def thp_touch(text):
    """frag --thp-touch output -> its fields (elapsed_us, thp_share_pct...)."""
    fields = frag_line(text, "frag: thp-touch")
    for need in ("size_kb", "elapsed_us", "thp_share_pct"):
        if need not in fields:
            raise ParseError(f"frag thp-touch line lacks {need}")
    return fields


def pcompact_stats(text):
    """'node<N>/<file> value' and 'param/<name> value' lines -> nested dict."""
    nodes, params = {}, {}
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        if not key:
            continue
        where, _, name = key.partition("/")
        value = value.strip()
        try:
            value = _number(value, key)
        except ParseError:
            pass
        if where == "param":
            params[name] = value
        elif where.startswith("node"):
            nodes.setdefault(int(where[4:]), {})[name] = value
    return {"nodes": nodes, "params": params}


def compact_record(text):
    """bench-guest.sh's record of one compact_memory write -> dict:
    label, t_start, t_end, duration_s, rc, before/after ({counter: int}),
    buddy_before/buddy_after ([(node, zone, counts)]), buddy_drained (after
    the per-cpu lists were drained again, when recorded), trace ([lines]),
    trace_migratepages ({calls, migrated, failed}) when traced."""
    out = {"before": {}, "after": {}, "buddy_before": [], "buddy_after": [],
           "buddy_drained": [], "trace": []}
    for n, line in enumerate(text.splitlines(), 1):
        key, _, rest = line.partition(" ")
        if not key:
            continue
        if key in ("buddy_before", "buddy_after", "buddy_drained"):
            out[key].append(buddyinfo_line(rest))
        elif key == "trace":
            out["trace"].append(rest.strip())
        elif key == "trace_migratepages":
            out[key] = {k: _number(v, k) for k, _, v in
                        (w.partition("=") for w in rest.split())}
        elif key.startswith(("before_", "after_")):
            side, _, counter = key.partition("_")
            out[side][counter] = int(_number(rest.strip(), f"compact record line {n}"))
        elif key in ("t_start", "t_end", "rc", "pcp_before", "pcp_after_drain", "drain_s",
                     "drained_pcp"):
            out[key] = _number(rest.strip(), f"compact record {key}")
        elif key == "label":
            out["label"] = rest.strip()
        else:
            raise ParseError(f"compact record line {n}: '{line}'")
    for need in ("t_start", "t_end", "rc"):
        if need not in out:
            raise ParseError(f"compact record lacks '{need}'")
    if not out["buddy_before"] or not out["buddy_after"]:
        raise ParseError("compact record lacks buddyinfo before or after")
    out["duration_s"] = out["t_end"] - out["t_start"]
    return out


# The kernel's compaction events bench --trace-stream records, and the field
# each is counted by.
STREAM_TRACE_FIELDS = {
    "mm_compaction_try_to_compact_pages": "priority",
    "mm_compaction_deferred": None,
    "mm_compaction_defer_compaction": None,
    "mm_compaction_defer_reset": None,
    "mm_compaction_end": "status",
    "mm_compaction_kcompactd_wake": None,
}
_TRACE_LINE = re.compile(r"\s(\d+\.\d+): (\w+): (.*)$")


def stream_trace(text, start_s, end_s):
    """A stream trace (ftrace text) -> counts of the kernel's compaction
    events between start_s and end_s (the trace clock is uptime): each
    event by name, and those of STREAM_TRACE_FIELDS with a field, by name
    and that field's value too ('mm_compaction_end status=complete').  Lines
    that are not events (ftrace's own notes) are passed over."""
    counts = {}
    for line in text.splitlines():
        m = _TRACE_LINE.search(line)
        if not m or m.group(2) not in STREAM_TRACE_FIELDS:
            continue
        t = float(m.group(1))
        if t < start_s or t > end_s:
            continue
        name, field = m.group(2), STREAM_TRACE_FIELDS[m.group(2)]
        counts[name] = counts.get(name, 0) + 1
        if field:
            value = dict(re.findall(r"(\w+)=(\S+)", m.group(3))).get(field)
            if value is None:
                raise ParseError(f"stream trace: {name} without {field}: '{line}'")
            key = f"{name} {field}={value.rstrip(',')}"
            counts[key] = counts.get(key, 0) + 1
    return counts


_TRACE_TASK = re.compile(r"^\s*\S*?-(\d+)\s+\[\d+\]")


def stream_migrations(text, start_s, end_s):
    """A stream trace -> {pid: pages migrated} between start_s and end_s:
    the kernel's compaction batches (mm_compaction_migratepages, its
    nr_migrated) and pcompact's contig calls that succeeded (pcompact_range
    with err=0, its in_use: the pages in use in the range just before the
    call, which the call moves).  The thread is the one the event ran in:
    a direct compaction counts for the allocating task, a kcompactd or
    pcompactd batch for that thread."""
    out = {}
    for event, key in (("mm_compaction_migratepages", "nr_migrated"),
                       ("pcompact_range", "in_use")):
        for t, pid, fields in trace_events(text, event, start_s, end_s):
            if event == "pcompact_range" and fields.get("err") != "0":
                continue
            if key not in fields:
                raise ParseError(f"stream trace: {event} at {t} without {key}")
            out[pid] = out.get(pid, 0) + int(_number(fields[key], key))
    return out


# The kernel's compaction events a direct compaction's thread traces from
# its mm_compaction_try_to_compact_pages on: each zone's deferral,
# suitability and end (the last event of a zone's compaction, after its
# batches), and the deferral's update.
DIRECT_COMPACTION_EVENTS = (
    "mm_compaction_try_to_compact_pages", "mm_compaction_deferred", "mm_compaction_suitable",
    "mm_compaction_end", "mm_compaction_defer_compaction", "mm_compaction_defer_reset")


def direct_compaction_time(text):
    """A stream trace -> (seconds, calls) of the direct compaction in it,
    whichever thread ran it (the compactor threads never call
    try_to_compact_pages()): from each mm_compaction_try_to_compact_pages
    to the last of DIRECT_COMPACTION_EVENTS that thread traced before its
    next one (or the trace's end).  try_to_compact_pages() traces its start
    and each zone's outcome, not its return, so a call is timed to its last
    zone's outcome (or the deferral reset of the allocation that took the
    block, just after).  A direct compaction is the allocating task's CPU
    spent making blocks, which the compactor threads' CPU does not
    include."""
    spans = {}
    total = 0.0
    calls = 0
    for t, pid, event, _ in trace_records(text, -math.inf, math.inf, DIRECT_COMPACTION_EVENTS):
        if event == "mm_compaction_try_to_compact_pages":
            if pid in spans:
                total += spans[pid][1] - spans[pid][0]
            spans[pid] = [t, t]
            calls += 1
        elif pid in spans:
            spans[pid][1] = t
    total += sum(last - first for first, last in spans.values())
    return total, calls


def compaction_end(t, fields):
    """One mm_compaction_end's fields (traced at t) -> {zone_start,
    migrate_pfn, free_pfn, zone_end (pfns as ints), mode, status}."""
    need = ("zone_start", "migrate_pfn", "free_pfn", "zone_end", "mode", "status")
    if any(k not in fields for k in need):
        raise ParseError(f"stream trace: mm_compaction_end at {t} without {need}")
    try:
        pfns = {k: int(fields[k], 16) for k in need[:4]}
    except ValueError:
        raise ParseError(f"stream trace: mm_compaction_end pfns at {t}: {fields}") from None
    return dict(pfns, mode=fields["mode"], status=fields["status"])


def compaction_ends(text, start_s, end_s):
    """A stream trace -> every mm_compaction_end between start_s and end_s,
    as dicts: pid (the thread it ran in), t, zone_start, migrate_pfn,
    free_pfn, zone_end (pfns as ints), mode and status."""
    return [dict(compaction_end(t, fields), pid=pid, t=t)
            for t, pid, fields in trace_events(text, "mm_compaction_end", start_s, end_s)]


def trace_events(text, event, start_s, end_s):
    """A stream trace -> [(t, pid, {field: value})] of one event between
    start_s and end_s, in the trace's order."""
    return [(t, pid, fields) for t, pid, _, fields in trace_records(text, start_s, end_s, (event,))]


def trace_records(text, start_s, end_s, events=None):
    """A stream trace -> [(t, pid, event, {field: value})] of every event
    between start_s and end_s (only those named in events, when given), in
    the trace's order: what trace_events() gives for one event, for several
    at once, so that one thread's events can be taken in the order it traced
    them."""
    out = []
    for line in text.splitlines():
        m = _TRACE_LINE.search(line)
        if not m or (events is not None and m.group(2) not in events):
            continue
        t = float(m.group(1))
        if t < start_s or t > end_s:
            continue
        task = _TRACE_TASK.match(line)
        if task is None:
            raise ParseError(f"stream trace: {m.group(2)} without a thread: '{line}'")
        fields = {k: v.rstrip(",") for k, v in re.findall(r"(\w+)=(\S+)", m.group(3))}
        out.append((t, int(task.group(1)), m.group(2), fields))
    return out
