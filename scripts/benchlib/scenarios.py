# SPDX-License-Identifier: GPL-2.0
"""The benchmark's scenarios: what compacts, and which workloads run.

Every scenario starts from the same state (page cache dropped, memory
compacted, kernel proactive compaction and watermark boosting off), makes
the same fragmentation and then switches its mechanism on just before the
same allocation stream, so none gets a head start.
"""

from collections import namedtuple

# module_args: extra pcompact.ko parameters of a module scenario.
# acts: the pcompact counter that shows module_args' option at work; a run
# of an allocation workload that leaves it at 0 measured pcompact without
# the option, and is void.
Scenario = namedtuple("Scenario",
                      "name mechanism proactiveness workloads description module_args acts",
                      defaults=("", None))

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

# Workloads beyond the drain (issue 11, item 3), not in the default run:
# `make bench-extra`.  The rate sweep: khugehog with delay_us between
# allocations and max=512 (1 GiB), per mechanism; the gfp=thp / gfp=light
# streams: success without stalling.  The delays put the knees inside: on
# 6.12 (2 nodes x 1 CPU) the kernel and pcompact kept p95 under 100 us at
# 2000 us and above (500/s and less) and went over it back to back (about
# 500/s achieved, stalling), and 10000 us measured what 20000 us did.
# 200 and 100 us (5000/s and 10000/s offered) since results/sweep-current/,
# where the kernel sustained 500 us, the fastest step then, so no rate of
# pcompact's could show as 2x its own.
SWEEP_DELAYS_US = (0, 100, 200, 500, 1000, 2000, 5000, 20000)
SWEEP = tuple(f"sweep{d}" for d in SWEEP_DELAYS_US)
ALL += [
    Scenario("sweep-vanilla", "none", 0, SWEEP, "rate sweep, on-demand compaction only"),
    Scenario("sweep-kernel", "sysctl", 20, SWEEP,
             "rate sweep, the kernel's proactive compaction (20)"),
    Scenario("sweep-pcompact", "module", 20, SWEEP, "rate sweep, pcompact (20)"),
    # The floor of issue 13's "within 2x the manual floor where the kernel
    # is already there": every step starts from memory compacted as the
    # drain's manual scenario does.
    Scenario("sweep-manual", "manual", 0, SWEEP,
             "rate sweep, one echo 1 > /proc/sys/vm/compact_memory before each step "
             "(the floor)"),
    Scenario("gfp-vanilla", "none", 0, ("khugehog-thp", "khugehog-light"),
             "gfp=thp and gfp=light streams, on-demand compaction only"),
    Scenario("gfp-kernel", "sysctl", 20, ("khugehog-thp", "khugehog-light"),
             "gfp=thp and gfp=light streams, the kernel's proactive compaction (20)"),
    Scenario("gfp-pcompact", "module", 20, ("khugehog-thp", "khugehog-light"),
             "gfp=thp and gfp=light streams, pcompact (20)"),
]
# Debian's default init_on_alloc=1 (every allocation zeroed) as a
# dimension: scripts/bench boots a scenario whose name ends in -ioa1 with
# init_on_alloc=1, the others with init_on_alloc=0.
ALL += [
    Scenario(f"{base}-ioa1", mech, prob, ("khugehog", "thp"),
             f"{desc}; init_on_alloc=1 (Debian's default)")
    for base, mech, prob, desc in (
        ("vanilla", "none", 0, "on-demand direct compaction only"),
        ("kernel", "sysctl", 20, "the kernel's proactive compaction (20)"),
        ("pcompact", "module", 20, "pcompact.ko proactiveness=20"))]
ALL += [
    Scenario("bursts-vanilla", "none", 0, ("bursts",),
             "3 sized bursts (80% of the stock at score 80), on-demand compaction only"),
    Scenario("bursts-kernel", "sysctl", 20, ("bursts",),
             "3 sized bursts, each once every node is at or below low, the kernel (20)"),
    Scenario("bursts-pcompact", "module", 20, ("bursts",),
             "3 sized bursts, each once every node is at or below low, pcompact (20)"),
]
# Issue 13's event-driven wake, against pcompact without it and the kernel:
# `scripts/bench --scenarios kernel,pcompact,pcompact-wake`.
ALL += [
    Scenario("pcompact-wake", "module", 20, ("khugehog", "thp"),
             "pcompact.ko proactiveness=20 stall_wake_ms=100: a stall samples every node at once",
             "stall_wake_ms=100", "stall_wakes"),
]
# Issue 13's demand-aware reserve: `scripts/bench --scenarios
# kernel,pcompact,pcompact-reserve`.
ALL += [
    Scenario("pcompact-reserve", "module", 20, ("khugehog", "thp"),
             "pcompact.ko proactiveness=20 reserve_ms=2000: demand starts rounds below high",
             "reserve_ms=2000", "reserve_rounds"),
    # Re-fragmented between bursts, nodes sit between the thresholds where
    # the score alone starts nothing (results/bursts-idle/): does the
    # reserve refill them?  `scripts/bench --scenarios
    # bursts-kernel,bursts-pcompact,bursts-pcompact-reserve,manual`.
    Scenario("bursts-pcompact-reserve", "module", 20, ("bursts",),
             "3 sized bursts, pcompact (20) reserve_ms=2000",
             "reserve_ms=2000", "reserve_rounds"),
    # Steady demand, where the reserve is meant to act: `scripts/bench
    # --scenarios sweep-kernel,sweep-pcompact,sweep-pcompact-reserve`.
    Scenario("sweep-pcompact-reserve", "module", 20, SWEEP,
             "rate sweep, pcompact (20) reserve_ms=2000",
             "reserve_ms=2000", "reserve_rounds"),
    # In results/sweep-fast/ the failed fast steps were those whose stream
    # began with a small stock of free blocks (208-345; 395-440 never
    # failed), every node at or under the high threshold, and pcompactd
    # saw the stream only at its next sample.  A stall wake samples at once,
    # but a node at or under the high threshold starts a round only when
    # short of its reserve: the wake alone, and with the reserve.
    # `scripts/bench --scenarios
    # sweep-kernel,sweep-pcompact-wake,sweep-pcompact-wake-reserve`.
    Scenario("sweep-pcompact-wake", "module", 20, SWEEP,
             "rate sweep, pcompact (20) stall_wake_ms=100",
             "stall_wake_ms=100", "stall_wakes"),
    Scenario("sweep-pcompact-wake-reserve", "module", 20, SWEEP,
             "rate sweep, pcompact (20) stall_wake_ms=100 reserve_ms=2000",
             "stall_wake_ms=100 reserve_ms=2000", "stall_wakes"),
]
# Issue 13's idle CPUs: `scripts/bench --scenarios kernel,pcompact,pcompact-nodecpu`
# (the 2 nodes x 1 CPU shape, where each node's compactor shares the
# allocating CPU or idles on the other).  any_cpu is Y by default since
# the runs of results/anycpu/ (made while it was N, with pcompact-anycpu);
# pcompact-nodecpu is the binding it replaced.
ALL += [
    Scenario("pcompact-anycpu", "module", 20, ("khugehog", "thp"),
             "pcompact.ko proactiveness=20 any_cpu=1: each pcompactd may run on any CPU",
             "any_cpu=1"),
    Scenario("pcompact-nodecpu", "module", 20, ("khugehog", "thp"),
             "pcompact.ko proactiveness=20 any_cpu=0: each pcompactd on its node's CPUs, "
             "as kcompactd",
             "any_cpu=0"),
    # Bound to its node's CPUs, pcompact's drain streams started with more
    # blocks held on the per-cpu lists (results/drain612-below/), the
    # supply where the sweep trails the kernel (results/sweep612-below/):
    # `scripts/bench --scenarios sweep-pcompact,sweep-pcompact-nodecpu`.
    Scenario("sweep-pcompact-nodecpu", "module", 20, SWEEP,
             "rate sweep, pcompact (20) any_cpu=0: each pcompactd on its node's CPUs",
             "any_cpu=0"),
]
# Issue 13's idle CPUs, by priority instead of placement: a pcompactd at
# nice 19 leaves the allocating CPU to the stream and the scheduler moves it
# to the idle one.  With the stall wake, whose second thread otherwise
# shares the allocating CPU (6.1: more allocations over 8 ms, README):
# `scripts/bench --scenarios kernel,pcompact-wake,pcompact-wake-nice`.
ALL += [
    Scenario("pcompact-wake-nice", "module", 20, ("khugehog", "thp"),
             "pcompact.ko proactiveness=20 stall_wake_ms=100 nice=19: a stall samples every "
             "node at once, and the threads yield the allocating CPU",
             "stall_wake_ms=100 nice=19", "stall_wakes"),
]
# Issue 13's engine choice: `scripts/bench --scenarios
# kernel,pcompact,pcompact-nodesysfs`, pcompact's loop driving the kernel's
# own compaction of the node (its two scanners) instead of emptying blocks
# (the default engine since results/nodesysfs-fallback/; the earlier runs
# were made while contig was); with
# kernel-unmovable,pcompact-nodesysfs-unmovable for its cost where there is
# nothing to gain, and in the rate sweep.
ALL += [
    Scenario("pcompact-nodesysfs", "module", 20, ("khugehog", "thp"),
             "pcompact.ko proactiveness=20 engine=node-sysfs: each round is the kernel's "
             "full compaction of the node",
             "engine=node-sysfs"),
    Scenario("pcompact-nodesysfs-unmovable", "module", 20, ("pin",),
             "pcompact (20) engine=node-sysfs on unmovable fragmentation: defer, back off",
             "engine=node-sysfs"),
    Scenario("sweep-pcompact-nodesysfs", "module", 20, SWEEP,
             "rate sweep, pcompact (20) engine=node-sysfs", "engine=node-sysfs"),
]
# The contig engine, the default until node-sysfs handed its no-progress
# rounds to contig: `scripts/bench --scenarios kernel,pcompact,pcompact-contig`.
ALL += [
    Scenario("pcompact-contig", "module", 20, ("khugehog", "thp"),
             "pcompact.ko proactiveness=20 engine=contig: pcompact's own choice of blocks, "
             "emptied with alloc_contig_range()",
             "engine=contig"),
    Scenario("sweep-pcompact-contig", "module", 20, SWEEP,
             "rate sweep, pcompact (20) engine=contig", "engine=contig"),
]
# Issue 13's short calls: `scripts/bench --scenarios
# kernel,pcompact-contig,pcompact-run16`, the contig engine with each
# alloc_contig_range() call at most 16 MB (as with init_on_alloc=1) instead
# of 256 MB, so emptied blocks come back while the stream runs.
ALL += [
    Scenario("pcompact-run16", "module", 20, ("khugehog", "thp"),
             "pcompact.ko proactiveness=20 engine=contig run_max_mb=16: calls of at most 16 MB",
             "engine=contig run_max_mb=16"),
    Scenario("sweep-pcompact-run16", "module", 20, SWEEP,
             "rate sweep, pcompact (20) engine=contig run_max_mb=16",
             "engine=contig run_max_mb=16"),
]
# Issue 13's stock at the stream's start: the last blocks a round of the
# kernel's compaction empties wait on the per-cpu lists (score and other
# CPUs blind to them) until a decay or a stall's reclaim drains them.
# `scripts/bench --scenarios kernel,pcompact,pcompact-flush`.
ALL += [
    Scenario("pcompact-flush", "module", 20, ("khugehog", "thp"),
             "pcompact.ko proactiveness=20 flush_pcp=1: each round ends by draining the "
             "per-cpu lists that hold free blocks back",
             "flush_pcp=1", "pcp_flushes"),
    Scenario("sweep-pcompact-flush", "module", 20, SWEEP,
             "rate sweep, pcompact (20) flush_pcp=1", "flush_pcp=1", "pcp_flushes"),
]
# Issue 13's engine per situation: ahead of a stream the kernel's compaction
# moved 240-740 pages per free block it added on 6.12 (130-300 on 6.1), the
# contig engine's fallback rounds the 127-134 in use; while allocations
# stall, contig calls got in the stream's way (README, "engine").
# `scripts/bench --scenarios kernel,pcompact,pcompact-quiet`.
ALL += [
    Scenario("pcompact-quiet", "module", 20, ("khugehog", "thp"),
             "pcompact.ko proactiveness=20 contig_when_quiet=1: a round with no direct "
             "compaction stall within interval_ms uses the contig engine",
             "contig_when_quiet=1", "quiet_contig_rounds"),
    Scenario("sweep-pcompact-quiet", "module", 20, SWEEP,
             "rate sweep, pcompact (20) contig_when_quiet=1", "contig_when_quiet=1",
             "quiet_contig_rounds"),
]
# The early stops: a round's call of the kernel's compaction, when its
# scanners meet, resets the zone's cached positions under the stalled
# allocations' compaction (README, "pcompactd's kernel call under a
# stream"). `scripts/bench --nodes 1 --cpus 2 --scenarios
# kernel,pcompact,pcompact-stallcontig`.
ALL += [
    Scenario("pcompact-stallcontig", "module", 20, ("khugehog", "thp"),
             "pcompact.ko proactiveness=20 contig_when_stalled=1: a round within "
             "interval_ms of a direct compaction stall uses the contig engine",
             "contig_when_stalled=1", "stalled_contig_rounds"),
    Scenario("pcompact-stallbackoff", "module", 20, ("khugehog", "thp"),
             "pcompact.ko proactiveness=20 backoff_when_stalled=1: no round starts "
             "within interval_ms of a direct compaction stall",
             "backoff_when_stalled=1", "backoffs_stall"),
    Scenario("pcompact-stallprogress", "module", 20, ("khugehog", "thp"),
             "pcompact.ko proactiveness=20 progress_when_stalled=1: a round whose kernel "
             "compaction migrated pages while allocations stalled is not deferred",
             "progress_when_stalled=1", "fed_stall_rounds"),
]
# The wall boots: a call of the kernel's compaction whose free scanner found
# no target marks the zone's pageblocks to be skipped under the stalled
# allocations' compaction (README, "The wall boots").  `scripts/bench
# --nodes 1 --cpus 2 --frag-args "--pattern phys" --scenarios
# kernel,pcompact,pcompact-afterfallback`.
ALL += [
    Scenario("pcompact-afterfallback", "module", 20, ("khugehog", "thp"),
             "pcompact.ko proactiveness=20 contig_after_fallback=1: on a node whose last "
             "kernel compaction made no progress, a round within interval_ms of a direct "
             "compaction stall uses the contig engine",
             "contig_after_fallback=1", "fallback_contig_rounds"),
]
# Issue 13's supply at the stream's start: over 40 streams of the 6.12
# sweep (results/sweep612-held/) the kernel's head start left 1.2x the free
# blocks pcompact's did, counting those its per-cpu lists held, with the
# same score thresholds.  A round target 5 points deeper: does the extra
# stock buy fewer stalls, and at what CPU per block?
# `scripts/bench --scenarios sweep-kernel,sweep-pcompact-low75`; with
# `kernel,pcompact-low75` the drain gives the deeper rounds' CPU and pages
# migrated per block created.
ALL += [
    Scenario("pcompact-low75", "module", 20, ("khugehog", "thp"),
             "pcompact.ko proactiveness=20 wmark_low=75 wmark_high=90: rounds go 5 points "
             "below the kernel's low threshold", "wmark_low=75 wmark_high=90"),
    Scenario("sweep-pcompact-low75", "module", 20, SWEEP,
             "rate sweep, pcompact (20) wmark_low=75 wmark_high=90: rounds go 5 points "
             "below the kernel's low threshold", "wmark_low=75 wmark_high=90"),
]

# Issue 13's compactor CPU per block at proactiveness 80: in the 6.12 bench
# (results/p80-612-current*) node 1's calls of the kernel's compaction took
# about 220 free pages per pageblock their free scanner read, node 0's 310-335,
# and in 10 of 20 boots node 1's first call had its scanners meet with the
# score at 45-82, having migrated as many pages as a call that reached the
# target: frag's frees sit on the per-CPU lists, which the free scanner does
# not read.  Compared with pcompact-p80 (its option base):
# `scripts/bench --scenarios kernel-p80,pcompact-p80,pcompact-p80-drain`;
# at 20, with plain pcompact: `--scenarios kernel,pcompact,pcompact-drain`.
ALL += [
    Scenario(name, "module", proactiveness, ("khugehog", "thp"),
             f"pcompact.ko proactiveness={proactiveness} drain_before_call=1: each call of the "
             "kernel's compaction comes after a drain of the per-CPU lists that hold free pages",
             "drain_before_call=1", "call_drains")
    for name, proactiveness in (("pcompact-p80-drain", 80), ("pcompact-drain", 20))
]

# drain_before_call is on by default since the 6.1 pool at 20 of 20 runs a
# side (results/pool4-61-20-drain/); these measure pcompact as it was before,
# for the comparison with the default: `--scenarios kernel,pcompact,pcompact-nodrain`.
ALL += [
    Scenario(name, "module", proactiveness, ("khugehog", "thp"),
             f"pcompact.ko proactiveness={proactiveness} drain_before_call=0: each call of the "
             "kernel's compaction without a drain of the per-CPU lists first",
             "drain_before_call=0")
    for name, proactiveness in (("pcompact-p80-nodrain", 80), ("pcompact-nodrain", 20))
]


def _sampling_scenarios(tag, module_args, what):
    """The drain, unmovable and sweep scenarios of one sampling pace:
    pcompact-<tag>, pcompact-<tag>-unmovable and sweep-pcompact-<tag>."""
    return [
        Scenario(f"pcompact-{tag}", "module", 20, ("khugehog", "thp"),
                 f"pcompact.ko proactiveness=20 {module_args}: {what}", module_args),
        Scenario(f"pcompact-{tag}-unmovable", "module", 20, ("pin",),
                 f"pcompact (20) {module_args} on unmovable fragmentation: defer, back off",
                 module_args),
        Scenario(f"sweep-pcompact-{tag}", "module", 20, SWEEP,
                 f"rate sweep, pcompact (20) {module_args}: {what}", module_args),
    ]


# Issue 13's reaction to demand: both compactors look at the score every
# 500 ms, and in results/sweep61-below/ a stream at 1000/s emptied a node
# within one interval of pcompact's last look (a sample at exactly the high
# threshold starts nothing, a round ended at the low one waits a whole
# interval).  Sampling every 100 ms, with deferrals kept about as long
# (100 ms << 8 is 25.6 s, 500 << 6 is 32 s) so that unmovable fragmentation
# is not retried five times as often: `scripts/bench --scenarios
# sweep-kernel,sweep-pcompact-int100`; the drain and the unmovable pair for
# its CPU with `kernel,pcompact-int100,kernel-unmovable,pcompact-int100-unmovable`.
ALL += _sampling_scenarios("int100", "interval_ms=100 max_defer_shift=8",
                           "the score sampled every 100 ms")
# Those became the defaults; upstream's pace, the defaults before, stays
# measurable against them: `scripts/bench --scenarios
# sweep-pcompact,sweep-pcompact-int500` and so on.
ALL += _sampling_scenarios("int500", "interval_ms=500 max_defer_shift=6",
                           "the score sampled every 500 ms, as upstream")
# Issue 13's in-stream calls: in 2 of 4 6.1 drains (results/trace61-pcompact/)
# the stream stopped on 100 failures in a row during or right after a
# contig call of 38-90 blocks, up to 334 ms, that held its range isolated.
# One pair a call while allocations stall:
# `scripts/bench --scenarios kernel,pcompact,pcompact-stallrun4`.
ALL += [
    Scenario("pcompact-stallrun4", "module", 20, ("khugehog", "thp"),
             "pcompact.ko proactiveness=20 stall_run_mb=4: one pair a contig call while "
             "allocations stall", "stall_run_mb=4"),
    Scenario("sweep-pcompact-stallrun4", "module", 20, SWEEP,
             "rate sweep, pcompact (20) stall_run_mb=4", "stall_run_mb=4"),
]
SWEEP_SCENARIOS = ["sweep-vanilla", "sweep-kernel", "sweep-pcompact", "sweep-manual",
                   "gfp-vanilla", "gfp-kernel", "gfp-pcompact",
                   "bursts-vanilla", "bursts-kernel", "bursts-pcompact"]
IOA1_SCENARIOS = ["vanilla-ioa1", "kernel-ioa1", "pcompact-ioa1"]

BY_NAME = {s.name: s for s in ALL}


def is_manual(name):
    """Whether the scenario called name compacts by hand (/proc/sys/vm/
    compact_memory): the drain's manual floor or the rate sweep's."""
    scenario = BY_NAME.get(name)
    return scenario is not None and scenario.mechanism == "manual"


def zeroes_pages(name):
    """Whether the scenario called name boots with init_on_alloc=1 whatever
    --init-on-alloc says (the -ioa1 scenarios): its allocations clear every
    page, so it compares only with scenarios that do too."""
    return name.endswith("-ioa1")


def module_options(names):
    """The scenarios among names that are pcompact with module arguments of
    their own (options), in names' order."""
    return [n for n in names if getattr(BY_NAME.get(n), "module_args", "")]


def drain_options(names):
    """The options among names that run the khugehog drain: those compared
    with plain pcompact on its metrics (scripts/bench, scripts/bench-pool)."""
    return [n for n in module_options(names) if "khugehog" in BY_NAME[n].workloads]


def burst_options(names):
    """The options among names that run the bursts workload: those compared
    with bursts-pcompact on the bursts' metrics (scripts/bench,
    scripts/bench-pool)."""
    return [n for n in module_options(names) if "bursts" in BY_NAME[n].workloads]


def sweep_options(names):
    """The options among names that run the rate sweep: those put in
    sweep-pcompact's place in the sweep's targets."""
    return [n for n in module_options(names)
            if any(w.startswith("sweep") for w in BY_NAME[n].workloads)]


def compared_options(names):
    """drain_options() then burst_options(): the option scenarios compared
    with their plain pcompact, in that order (so that a bench's seeds for the
    drain's options do not move when it runs bursts too)."""
    return drain_options(names) + burst_options(names)


def target_options(names):
    """drain_options(), sweep_options() then burst_options(): the option
    scenarios put in their plain pcompact's place in the targets, in the
    order that keeps the seeds a bench gave the first two before bursts
    options were."""
    return drain_options(names) + sweep_options(names) + burst_options(names)


DEFAULT = ["vanilla", "kernel", "pcompact", "manual", "kernel-p80", "pcompact-p80",
           "kernel-unmovable", "pcompact-unmovable"]

# The scenarios the targets compare: these get every run (--runs); the
# others get --extra-runs, so the default bench fits its hour.
TARGET_SCENARIOS = ["vanilla", "kernel", "pcompact", "manual", "kernel-p80", "pcompact-p80",
                    "kernel-ioa1", "pcompact-ioa1"]

# What run.json says of the guests' zeroing with --init-on-alloc 0.
PLAIN_INIT_ON_ALLOC = "0 (init_on_alloc=0 on the command line)"


def init_on_alloc_text(setting, names):
    """The results' init_on_alloc line for a bench of scenarios names whose
    run.json says setting: the -ioa1 scenarios among names are named, as
    they boot with init_on_alloc=1 whatever --init-on-alloc says.  Only the
    reports say it: run.json keeps the setting, which bench-pool compares
    between benches of different scenarios."""
    zeroing = [n for n in names if zeroes_pages(n)]
    if setting != PLAIN_INIT_ON_ALLOC or not zeroing:
        return setting
    return f"{setting}, 1 in {', '.join(zeroing)} (init_on_alloc=1 on theirs)"

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
            if s.name.startswith("sweep-"):
                workloads = s.workloads[::2]   # 0, 200, 1000, 5000 us
            s = s._replace(workloads=workloads)
        out.append(s)
    return out
