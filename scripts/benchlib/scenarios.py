# SPDX-License-Identifier: GPL-2.0
"""The benchmark's scenarios: what compacts, and which workloads run.

Every scenario starts from the same state (page cache dropped, memory
compacted, kernel proactive compaction and watermark boosting off), makes
the same fragmentation and then switches its mechanism on just before the
same allocation stream, so none gets a head start.
"""

from collections import namedtuple

Scenario = namedtuple("Scenario", "name mechanism proactiveness workloads description")

# mechanism: none | sysctl (vm.compaction_proactiveness) | module (pcompact.ko)
#            | manual (one write to /proc/sys/vm/compact_memory)
# workloads: khugehog (2 MB allocations, frag state), thp (frag --thp-touch,
#            frag state), pin (unmovable pinning by khugehog pin=1, watch,
#            then the THP touch)
ALL = [
    Scenario("vanilla", "none", 0, ("khugehog", "thp"),
             "vm.compaction_proactiveness=0: on-demand direct compaction only"),
    Scenario("kernel", "sysctl", 20, ("khugehog", "thp"),
             "the kernel's proactive compaction, vm.compaction_proactiveness=20"),
    Scenario("pcompact", "module", 20, ("khugehog", "thp"),
             "pcompact.ko proactiveness=20 (it sets the kernel's to 0)"),
    Scenario("manual", "manual", 0, ("khugehog", "thp"),
             "one echo 1 > /proc/sys/vm/compact_memory before allocating (the floor)"),
    Scenario("pcompact-p80", "module", 80, ("khugehog", "thp"),
             "pcompact.ko proactiveness=80, for the comparison with manual"),
    Scenario("kernel-p80", "sysctl", 80, ("khugehog", "thp"),
             "the kernel's proactive compaction, vm.compaction_proactiveness=80"),
    Scenario("kernel-unmovable", "sysctl", 20, ("pin",),
             "kernel proactive compaction (20) on unmovable fragmentation: defer, back off"),
    Scenario("pcompact-unmovable", "module", 20, ("pin",),
             "pcompact (20) on unmovable fragmentation: defer, back off"),
]

BY_NAME = {s.name: s for s in ALL}

DEFAULT = ["vanilla", "kernel", "pcompact", "manual", "kernel-p80", "pcompact-p80",
           "kernel-unmovable", "pcompact-unmovable"]

# The quick form: the baseline, the kernel and pcompact, one workload.
QUICK = ["vanilla", "kernel", "pcompact"]
QUICK_WORKLOADS = ("khugehog",)

BASELINE = "vanilla"
UNMOVABLE_BASELINE = "kernel-unmovable"


def select(names, quick=False):
    """Scenarios for a comma-separated list (or the defaults)."""
    if not names:
        names = QUICK if quick else DEFAULT
    elif isinstance(names, str):
        names = [n.strip() for n in names.split(",") if n.strip()]
    unknown = [n for n in names if n not in BY_NAME]
    if unknown:
        raise ValueError(f"unknown scenario(s) {', '.join(unknown)}; "
                         f"known: {', '.join(BY_NAME)}")
    out = []
    for name in names:
        s = BY_NAME[name]
        if quick:
            workloads = tuple(w for w in s.workloads if w in QUICK_WORKLOADS) or s.workloads
            s = s._replace(workloads=workloads)
        out.append(s)
    return out
