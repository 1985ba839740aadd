# SPDX-License-Identifier: GPL-2.0
"""Unit tests of the benchmark's results: a synthetic guest run turned into
a scenario's files and summary, failed runs, the targets and the README,
and the command line of scripts/bench (no VM is booted here)."""

import json
import os
import shutil
import subprocess
import sys

import pytest

SCRIPTS = os.path.join(os.path.dirname(__file__), "..", "..", "scripts")
sys.path.insert(0, SCRIPTS)
from benchlib import csvio, frames, report, scenarios  # noqa: E402
from scriptload import load_script  # noqa: E402


def load_bench():
    return load_script("bench", "bench_cli")


def framed(name, text):
    lines = text.splitlines()
    return f"=== file {name} lines={len(lines)} ===\n" + "".join(
        f"{line}\n" for line in lines) + f"=== end {name} ===\n"


ZONES = ("Node 0, zone      DMA\n        present  4000\n"
         "Node 0, zone    DMA32\n        present  396000\n"
         "Node 1, zone    DMA32\n        present  400000\n")
FRAGMENTED = ("Node 0, zone DMA 0 0 0 0 0 0 1 1 0 1 3\n"
              "Node 0, zone DMA32 4000 4000 0 0 0 0 0 0 0 0 0\n"
              "Node 1, zone DMA32 4000 4000 0 0 0 0 0 0 0 0 0\n")
COMPACTED = ("Node 0, zone DMA 0 0 0 0 0 0 1 1 0 1 3\n"
             "Node 0, zone DMA32 0 0 0 0 0 0 0 0 0 0 6\n"
             "Node 1, zone DMA32 0 0 0 0 0 0 0 0 0 0 6\n")


def vmstat(free, stall, success, migrated):
    return (f"nr_free_pages {free}\ncompact_stall {stall}\ncompact_success {success}\n"
            f"compact_fail {stall - success}\npgmigrate_success {migrated}\n"
            "thp_fault_alloc 0\nthp_fault_fallback 0\n")


def workload_files(w, extra):
    """The files bench-guest.sh sends for one workload."""
    samples = "".join(f"T {10 + i * 0.05:.2f}\n" + "".join(
        f"B {line}\n" for line in (FRAGMENTED if i < 30 else COMPACTED).splitlines())
        for i in range(40))
    files = {
        f"{w}/vmstat_before.txt": vmstat(20000, 0, 0, 0),
        f"{w}/vmstat_after.txt": vmstat(1000, 10, 8, 5120),
        f"{w}/buddyinfo_before.txt": FRAGMENTED,
        f"{w}/buddyinfo_after.txt": COMPACTED,
        f"{w}/kthreads_before.txt": "kcompactd0 40 0 0 1000000\nkcompactd1 41 0 0 0\n",
        f"{w}/kthreads_after.txt": "kcompactd0 40 1 2 5000000\nkcompactd1 41 0 0 0\n",
        f"{w}/pcompact_before.txt": "",
        f"{w}/pcompact_after.txt": "",
        f"{w}/pcp_before.txt": "pcp_pages 480\n",
        f"{w}/pcp_after.txt": "pcp_pages 0\n",
        f"{w}/samples.txt": samples,
        f"{w}/events.txt": "frag_start 2.00\nfrag_ready 9.00\nmech_on 10.50\n"
                           "mech_ready 10.52\nalloc_start 11.00\nalloc_end 11.50\n",
    }
    files.update(extra)
    return files


def khugehog_extra():
    samples = "index,t_ns,latency_ns,node,zone,success\n" + "".join(
        f"{i},{i * 1000},{(i + 1) * 1500},0,DMA32,1\n" for i in range(10)) + \
        "10,10000,900,-1,-,0\n"
    return {
        "khugehog/summary.txt": ("mode alloc\norder 9\ncount 10\nfailures 1\nattempts 11\n"
                                 "stop_reason failures\nfree_pages_start 20000\n"
                                 "allocated_pages 5120\nfree_share_pct 25.6\nmargin_pages 4000\n"
                                 "min_us 1.5\np50_us 7.5\np95_us 15.0\nmax_us 15.0\n"
                                 "mean_us 8.2\nstddev_us 4.3\n"),
        "khugehog/samples.csv": samples,
        "khugehog/map_before.csv": "region_pfn,mapped_pages\n0,128\n512,128\n",
        "khugehog/map_after.csv": "region_pfn,mapped_pages\n0,256\n",
        "khugehog/frag_out.txt": "frag: ready kept_pages=256\n",
    }


def guest_text(scenario="vanilla", drop=None):
    files = {"env.txt": f"scenario {scenario}\nrelease 6.12.0-test\n"
                        "cmdline console=ttyS0 init_on_alloc=0\n"
                        "khugehog_args gfp=kernel stop_after_failures=100 keep_free_mb=16\n"
                        "sample_s 0.040\n",
             "zones.txt": ZONES}
    files.update(workload_files("khugehog", khugehog_extra()))
    text = "# bench: khugehog: fragmenting\n"
    for name, content in files.items():
        if name == drop:
            text += f"=== file {name} lines=5 ===\nhalf\n"   # cut off: no end marker
            continue
        text += framed(name, content)
    return text + "=== done ===\n# vm-run: exit 0\n"


VANILLA = scenarios.select("vanilla", quick=True)[0]


def test_build_scenario_summary(tmp_path):
    guest = frames.split_frames(guest_text())
    summary, files = report.build_scenario(VANILLA, guest)
    k = summary["khugehog"]
    assert summary["status"] == "ok" and summary["thresholds"] is None
    assert k["count"] == 10 and k["failures"] == 1 and k["stop_reason"] == "failures"
    # free memory counts the per-cpu pages: 5120 / (20000 + 480)
    assert k["free_share_pct"] == pytest.approx(5120 / 20480 * 100, abs=1e-3)
    assert k["khugehog_free_share_pct"] == 25.6
    assert k["obtainable_share_pct"] == pytest.approx(5120 / 16480 * 100, abs=1e-3)
    assert k["vmstat"]["compact_stall"] == 10 and k["vmstat"]["pgmigrate_success"] == 5120
    assert k["derived"]["compaction_success_pct"] == 80.0
    assert k["derived"]["migrated_per_hugepage"] == 512.0
    assert k["cpu_ms"]["kcompactd"] == 4.0
    assert k["latency"]["p50_us"] == 7.5
    assert k["events_s"]["mech_on"] == -0.5 and k["alloc_s"] == 0.5
    # DMA: 1 order-9 + 3 order-10 blocks = 7; compacted: + 6 order-10 blocks per DMA32
    assert k["free_order9_blocks_before"] == 7 and k["free_order9_blocks_after"] == 31
    # node 1: 400000 * 100 // (400000 + 1) = 99 (node 0: 0 + 396000 * 100 // 400001 = 98)
    assert k["score"]["at_start"] == 99 and k["free_order9_blocks_at_start"] == 7
    assert k["score"]["sample_hz"] == pytest.approx(20.0)

    report.write_scenario(str(tmp_path), summary, files)
    names = sorted(os.listdir(tmp_path))
    for need in ("summary.json", "khugehog_samples.csv", "scores.csv", "buddyinfo_before.txt",
                 "buddyinfo_after.txt", "vmstat_delta.csv", "map_before.csv",
                 "map_after.csv", "kthreads_cpu.csv", "buddyinfo_samples.csv"):
        assert need in names
    rows = csvio.read_table(str(tmp_path / "scores.csv"), ["t_s", "node", "score"],
                            numeric=["t_s", "node", "score"])
    assert len(rows) == 80 and rows[0]["t_s"] == -1.0
    delta = csvio.read_table(str(tmp_path / "vmstat_delta.csv"),
                             ["counter", "before", "after", "delta"],
                             numeric=["before", "after", "delta"])
    assert {r["counter"]: r["delta"] for r in delta}["nr_free_pages"] == -19000
    assert json.load(open(tmp_path / "summary.json"))["khugehog"]["count"] == 10


def test_a_file_without_end_marker_fails_the_scenario():
    guest = frames.split_frames(guest_text(drop="khugehog/vmstat_after.txt"))
    with pytest.raises(report.ScenarioError, match="vmstat_after"):
        report.build_scenario(VANILLA, guest)


def test_a_guest_that_did_not_finish_fails_the_scenario():
    text = guest_text().replace("=== done ===\n", "")
    with pytest.raises(report.ScenarioError, match="did not finish"):
        report.build_scenario(VANILLA, frames.split_frames(text))


def test_malformed_raw_file_fails_the_scenario():
    text = guest_text().replace("compact_stall 10", "compact_stall ten")
    with pytest.raises(report.ScenarioError, match="vmstat"):
        report.build_scenario(VANILLA, frames.split_frames(text))


def test_write_failed_leaves_no_numbers(tmp_path):
    s = report.write_failed(str(tmp_path / "kernel"), scenarios.BY_NAME["kernel"],
                            "timeout", {"wall_s": 900.0})
    assert s["status"] == "failed" and s["reason"] == "timeout"
    assert sorted(os.listdir(tmp_path / "kernel")) == ["FAILED.txt", "summary.json"]


# --- targets ------------------------------------------------------------------

def khh(mean, p50, p95, count, migrated_per_hp, share=97.0):
    return {"status": "ok", "khugehog": {
        "latency": {"mean_us": mean, "p50_us": p50, "p95_us": p95}, "count": count,
        "derived": {"migrated_per_hugepage": migrated_per_hp}, "free_share_pct": share,
        "obtainable_share_pct": share + 2, "margin_share_pct": 3.0, "failures": 0,
        "stop_reason": "margin"}}


def test_targets_met_and_missed():
    summaries = {"vanilla": khh(1000, 1000, 2000, 800, 150),
                 "kernel": khh(600, 300, 2000, 1100, 120),
                 "pcompact": khh(150, 100, 1900, 1100, 110, share=96.0),
                 "manual": khh(160, 1, 80, 1000, 100),
                 "pcompact-p80": khh(20, 3, 50, 1100, 130)}
    targets = report.evaluate_targets(summaries)
    met = {t["target"]: t["met"] for t in targets}
    assert met["pcompact mean <= 0.5 x kernel mean"] is True       # 0.25 x
    assert met["pcompact p50 <= 0.5 x kernel p50"] is True         # 0.33 x
    assert met["pcompact p95 <= 1 x kernel p95"] is True
    assert met["pcompact hugepages obtained >= kernel's"] is True
    assert met["pcompact pages migrated per hugepage <= kernel's"] is True
    assert met["pcompact mean >= 5 x lower than vanilla"] is True  # 6.7 x
    assert met["pcompact p50 >= 5 x lower than vanilla"] is True   # 10 x
    assert met["pcompact (proactiveness 80) p50 <= 2 x manual p50"] is False  # 3 x
    assert met["pcompact obtains >= 95% of free memory as hugepages"] is True
    missed = [t for t in targets if t["met"] is False]
    assert len(missed) == 1 and missed[0]["why"]
    assert all(t["why"] == "" for t in targets if t["met"])


def test_targets_not_measured_without_the_scenarios():
    targets = report.evaluate_targets({"vanilla": khh(1000, 1000, 2000, 800, 150),
                                       "kernel": {"status": "failed"}})
    assert all(t["met"] is None for t in targets)
    assert "not measured" in targets[0]["why"] and "kernel" in targets[0]["why"]


def test_readme_has_the_command_kernel_shape_and_tables(tmp_path):
    guest = frames.split_frames(guest_text())
    summary, _ = report.build_scenario(VANILLA, guest)
    summary.update({"wall_s": 30.0, "host_load": 1.0})
    summaries = {"vanilla": summary,
                 "kernel": {"status": "failed", "reason": "timeout", "description": "k"}}
    ctx = {"command": "scripts/bench --quick", "release": "6.12.0-test",
           "date": "2026-01-01 00:00 UTC", "total_s": 90.0, "vm": "2048 MiB, 2 NUMA nodes",
           "init_on_alloc": "0", "frag_args": "", "observe_s": 20, "tail_s": 1,
           "idle_s": 5.0, "source": "0123456789ab-dirty"}
    text = report.readme(ctx, summaries, ["vanilla", "kernel"],
                         [("Latency", "plots/latency.png")],
                         report.evaluate_targets(summaries))
    for need in ("`scripts/bench --quick`", "Source: `0123456789ab-dirty`", "6.12.0-test", "2048 MiB, 2 NUMA nodes",
                 "2026-01-01", "init_on_alloc=0", "**FAILED**: timeout", "positive means better",
                 "| Hugepages obtained | higher | 10 (0.00%) |", "![Latency](plots/latency.png)",
                 "100 consecutive"):
        assert need in text, need
    def readme_with_env(key, value):
        summary["env"][key] = value
        return report.readme(ctx, summaries, ["vanilla", "kernel"], [],
                             report.evaluate_targets(summaries))

    # Runs of a guest that loaded pcompact at switch-on do not claim the one-write switch.
    assert "switched on by writing `enabled=Y`" not in text
    text = readme_with_env("module_switch", "enabled")
    assert "loaded with `enabled=0` before the fragmentation and switched on by writing " \
           "`enabled=Y`" in text
    # Only runs whose guest set the per-cpu lists' mark after the stream say so.
    assert "percpu_pagelist_high_fraction" not in text
    text = readme_with_env("pcp_after_stream", "smallest")
    assert "sample 1 s more with the per-cpu lists at their smallest high mark " \
           "(`vm.percpu_pagelist_high_fraction`, back as" in text
    # The value comes from the guest's record, never from the report itself.
    text = readme_with_env("pcp_fraction_after_stream", "4242")
    assert "(`vm.percpu_pagelist_high_fraction` 4242, back as" in text


def test_source_revision_names_the_checkout():
    bench = load_bench()
    rev = bench.source_revision()
    head = subprocess.run(["git", "-C", bench.TOP, "rev-parse", "--short=12", "HEAD"],
                          capture_output=True, text=True).stdout.strip()
    if not head:
        pytest.skip("not a git checkout")
    assert rev is not None and rev.startswith(head)


# --- the command line -----------------------------------------------------------

def test_host_mode_refuses_without_confirmation(capsys):
    bench = load_bench()
    assert bench.main(["--host"]) == 2
    err = capsys.readouterr().err
    assert "--yes-fragment-all-memory" in err and "fragments all memory" in err


def test_unknown_scenario_is_refused(capsys):
    assert load_bench().main(["--scenarios", "vanilla,bogus"]) == 2
    assert "bogus" in capsys.readouterr().err


def test_guest_environment_and_command():
    bench = load_bench()
    args = bench.parse_args(["--quick"])
    s = scenarios.select("pcompact", quick=True)[0]
    env = bench.guest_env(args, s, 1024)
    assert env["BENCH_MECH"] == "module" and env["BENCH_PROACTIVENESS"] == "20"
    assert env["BENCH_WORKLOADS"] == "khugehog"
    assert "stop_after_failures=100" in env["BENCH_KHH_ARGS"]
    assert "keep_free_mb=16" in env["BENCH_KHH_ARGS"]
    assert env["BENCH_SAMPLE_S"] == "0.040" and env["BENCH_IDLE_S"] == "5"
    cmd = bench.guest_command(env)
    assert cmd.endswith(" sh /pc/bench-guest.sh")
    assert "BENCH_KHH_ARGS='gfp=kernel stop_after_failures=100 keep_free_mb=16'" in cmd
    assert env["BENCH_MODULE_ARGS"] == ""
    assert env["BENCH_BLOCK_FLAGS"] == "0"
    assert bench.guest_env(bench.parse_args(["--block-flags"]), s, 1024)["BENCH_BLOCK_FLAGS"] == "1"
    assert env["BENCH_BLOCK_TYPES"] == "0"
    assert bench.guest_env(bench.parse_args(["--block-types"]), s, 1024)["BENCH_BLOCK_TYPES"] == "1"


def test_module_args_reach_the_guest():
    bench = load_bench()
    args = bench.parse_args([])
    env = bench.guest_env(args, scenarios.BY_NAME["pcompact-wake"], 1024)
    assert env["BENCH_MECH"] == "module" and env["BENCH_MODULE_ARGS"] == "stall_wake_ms=100"
    assert "BENCH_MODULE_ARGS=stall_wake_ms=100" in bench.guest_command(env)
    assert "pcompact-wake" not in scenarios.DEFAULT


def test_defaults_full_and_quick():
    bench = load_bench()
    full, quick = bench.parse_args([]), bench.parse_args(["--quick"])
    assert full.mem == "3G" and full.nodes == 2 and full.cpus == 2 and full.accel == "tcg"
    assert full.init_on_alloc == "0" and full.out.endswith("results")
    assert quick.mem == "2G" and "bench-quick" in quick.out
    assert [s.name for s in scenarios.select("", quick=False)] == scenarios.DEFAULT
    assert all(s.workloads == ("khugehog",) for s in scenarios.select("", quick=True))
    assert bench.mem_mib("3G") == 3072 and bench.mem_mib("1536M") == 1536


def test_progress_estimate_scales_with_finished_scenarios():
    bench = load_bench()
    sel = scenarios.select("vanilla,kernel", quick=True)
    p = bench.Progress(sel, observe_s=20, idle_s=5)
    first = p.left(0, 0)
    assert first == pytest.approx(2 * p.estimate(sel[0]))
    p.done.append((p.estimate(sel[0]), 2 * p.estimate(sel[0])))   # twice as slow
    assert p.left(1, 0) == pytest.approx(2 * p.estimate(sel[1]))


def test_guest_script_is_valid_shell():
    busybox = shutil.which("busybox")
    if not busybox:
        pytest.skip("no busybox")
    rc = subprocess.run([busybox, "sh", "-n", os.path.join(SCRIPTS, "bench-guest.sh")])
    assert rc.returncode == 0


def write_vanilla_run(release_dir):
    summary, files = report.build_scenario(VANILLA, frames.split_frames(guest_text()))
    report.write_scenario(str(release_dir / "vanilla"), summary, files)
    ctx = {"command": "scripts/bench", "release": "6.12.0-test", "date": "2026-01-01",
           "total_s": 60.0, "vm": "3072 MiB", "init_on_alloc": "0", "frag_args": "",
           "observe_s": 45, "tail_s": 1, "idle_s": 10.0, "order": ["vanilla"]}
    (release_dir / "run.json").write_text(json.dumps(ctx))


def test_report_only_rebuilds_readme_and_plots(tmp_path):
    bench = load_bench()
    release_dir = tmp_path / "6.12.0-test"
    write_vanilla_run(release_dir)
    args = bench.parse_args(["--out", str(tmp_path)])
    assert bench.report_only(args, "6.12.0-test") == 0
    text = (release_dir / "README.md").read_text()
    for plot in ("latency_percentiles.png", "latency_scatter.png", "scores_khugehog.png",
                 "free_blocks_khugehog.png", "occupancy.png"):
        assert (release_dir / "plots" / plot).stat().st_size > 1000, plot
        assert f"(plots/{plot})" in text


@pytest.mark.parametrize("damage", ["truncated", "empty", "bad header"])
def test_report_only_fails_on_a_damaged_csv(tmp_path, capsys, damage):
    bench = load_bench()
    release_dir = tmp_path / "6.12.0-test"
    write_vanilla_run(release_dir)
    samples = release_dir / "vanilla" / "khugehog_samples.csv"
    text = samples.read_text()
    samples.write_text({"truncated": text[:len(text) // 2].rstrip("\n"), "empty": "",
                        "bad header": "a,b\n1,2\n"}[damage])
    args = bench.parse_args(["--out", str(tmp_path)])
    assert bench.report_only(args, "6.12.0-test") == 1
    err = capsys.readouterr().err
    assert "khugehog_samples.csv" in err and "Traceback" not in err
    assert "latency_scatter.png" in err
    # What could be drawn still is: the README goes without the bad plots.
    text = (release_dir / "README.md").read_text()
    assert "(plots/latency_scatter.png)" not in text
    assert "(plots/scores_khugehog.png)" in text


def test_unmovable_run_is_void_only_if_the_compactor_did_not_try():
    # pin frees no block by design: the head start asks for CPU spent by the
    # mechanism's thread in the observation window, not for blocks gained.
    unmovable = scenarios.select("pcompact-unmovable", quick=False)[0]
    assert unmovable.workloads[0] == "pin" and unmovable.mechanism == "module"
    nodes = {"0": {"score_on": 99, "blocks_on": 0, "score_alloc": 99, "blocks_alloc": 0,
                   "best_blocks": 0}}
    tried = {w: {"head_start": nodes,
                 "head_start_cpu_ms": {"kcompactd": 0.0, "pcompactd": 250.0, "kswapd": 0.0}}
             for w in unmovable.workloads}
    assert [r for r in report.void_reasons(unmovable, tried) if r.startswith("pin:")] == []
    idle = {w: dict(v, head_start_cpu_ms={"kcompactd": 0.0, "pcompactd": 0.0, "kswapd": 0.0})
            for w, v in tried.items()}
    assert any("pcompactd used no CPU" in r for r in report.void_reasons(unmovable, idle))


def test_head_start_tried_counts_what_each_compactor_did():
    w = "khugehog"
    files = {f"{w}/vmstat_before.txt": "compact_daemon_migrate_scanned 10\n"
                                       "compact_daemon_free_scanned 100\n",
             f"{w}/vmstat_start.txt": "compact_daemon_migrate_scanned 4106\n"
                                      "compact_daemon_free_scanned 700100\n",
             f"{w}/pcompact_before.txt": "node0/rounds 2\nnode1/rounds 1\n",
             f"{w}/pcompact_start.txt": "node0/rounds 3\nnode1/rounds 1\n"}
    assert report.head_start_tried(files, w, "start") == {"kcompactd": 704096, "pcompactd": 1}
    # Without pcompact loaded there is no pcompactd count; without the
    # vmstat snapshots nothing is known.
    del files[f"{w}/pcompact_start.txt"]
    assert report.head_start_tried(files, w, "start") == {"kcompactd": 704096}
    del files[f"{w}/vmstat_start.txt"]
    assert report.head_start_tried(files, w, "start") is None


def test_kernel_run_whose_kcompactd_compacted_in_vain_counts():
    kernel = scenarios.select("kernel", quick=False)[0]
    nodes = {"0": {"score_on": 95, "blocks_on": 29, "score_alloc": 95, "blocks_alloc": 29,
                   "best_blocks": 29}}
    ran = {w: {"head_start": nodes, "head_start_tried": {"kcompactd": 1543210},
               "head_start_cpu_ms": {"kcompactd": 11.0, "pcompactd": 0.0, "kswapd": 0.0}}
           for w in kernel.workloads}
    assert [r for r in report.void_reasons(kernel, ran) if "head start" in r] == []
    never = {w: dict(v, head_start_tried={"kcompactd": 0}) for w, v in ran.items()}
    assert any("did not act" in r for r in report.void_reasons(kernel, never))


# A head start that gained blocks: no void reason but the option's own.
GAINED_HEAD_START = {"0": {"score_on": 95, "blocks_on": 30, "score_alloc": 80,
                           "blocks_alloc": 230, "best_blocks": 230}}


def option_run(option, counters, head_start=GAINED_HEAD_START):
    """A run summary of an option's scenario: every workload with that head
    start and those pcompact counters."""
    return {w: {"head_start": head_start, "pcompact": dict(counters)} for w in option.workloads}


def test_option_scenario_is_void_when_its_option_never_acted():
    # pcompact-reserve in a drain where the reserve never started a round
    # (results/reserve/, 5 of 5 runs) measured plain pcompact.
    reserve = scenarios.BY_NAME["pcompact-reserve"]
    acted = option_run(reserve, {"rounds": 6, "reserve_rounds": 2})
    assert not [r for r in report.void_reasons(reserve, acted) if "reserve_rounds" in r]
    idle = {w: dict(v, pcompact={"rounds": 6, "reserve_rounds": 0}) for w, v in acted.items()}
    assert any(r.startswith("khugehog: reserve_rounds stayed 0")
               for r in report.void_reasons(reserve, idle))
    # Plain pcompact has no option under test.
    plain = scenarios.BY_NAME["pcompact"]
    assert not [r for r in report.void_reasons(plain, idle) if "stayed 0" in r]


def test_intent_to_treat_counts_a_run_whose_option_never_acted_and_nothing_else():
    # results/afterfallback-1x2/: contig_after_fallback acted only in the
    # boots whose head start hit the wall; judging it as a default needs
    # every boot, so --intent-to-treat keeps the others.
    option = scenarios.BY_NAME["pcompact-afterfallback"]
    idle = option_run(option, {"rounds": 6, "fallback_contig_rounds": 0})
    report.judge(option, idle)
    assert idle["not_acted"] and set(idle["not_acted"]) <= set(idle["void"])
    void, kept = report.intent_to_treat_split(idle, True)
    assert void == [] and kept == idle["not_acted"]
    void, kept = report.intent_to_treat_split(idle, False)
    assert void == idle["void"] and kept == []
    # Another reason still voids the run under intent to treat.
    flat = {"0": dict(GAINED_HEAD_START["0"], score_on=40)}
    unfragmented = option_run(option, {"rounds": 6, "fallback_contig_rounds": 0}, flat)
    report.judge(option, unfragmented)
    void, kept = report.intent_to_treat_split(unfragmented, True)
    assert kept and void and not set(void) & set(kept)
    # An option that acted leaves nothing to keep.
    acted = option_run(option, {"rounds": 6, "fallback_contig_rounds": 2})
    report.judge(option, acted)
    assert acted["not_acted"] == [] and report.intent_to_treat_split(acted, True) == (
        acted["void"], [])


def test_sweep_option_scenario_is_void_only_when_idle_at_every_rate():
    # A reserve may rightly stay idle at the low rates and back to back
    # (the score starts the rounds there); it must act somewhere.
    reserve = scenarios.BY_NAME["sweep-pcompact-reserve"]
    steps = list(reserve.workloads)
    some = {w: {"head_start": GAINED_HEAD_START,
                "pcompact": {"rounds": 3, "reserve_rounds": 1 if w == steps[2] else 0}}
            for w in steps}
    assert not [r for r in report.void_reasons(reserve, some) if "stayed 0" in r]
    none = {w: dict(v, pcompact={"rounds": 3, "reserve_rounds": 0}) for w, v in some.items()}
    reasons = [r for r in report.void_reasons(reserve, none) if "stayed 0" in r]
    assert reasons == ["reserve_rounds stayed 0 at every rate: reserve_ms=2000 never acted, "
                       "so the run measured pcompact without it"]


def test_only_the_manual_scenarios_compact_by_hand():
    assert scenarios.is_manual("manual") and scenarios.is_manual("sweep-manual")
    assert not scenarios.is_manual("kernel") and not scenarios.is_manual("sweep-pcompact")
    assert not scenarios.is_manual("no-such-scenario") and not scenarios.is_manual(None)
