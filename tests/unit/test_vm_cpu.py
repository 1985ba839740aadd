# SPDX-License-Identifier: GPL-2.0
"""Unit tests of the guests' CPU model: make check boots its guests without
the fast-string flags (see CHECK_CPU in scripts/check), and scripts/vm-run
refuses a --cpu that is not a QEMU CPU model before it fetches or boots."""

import os
import subprocess

import pytest

from scriptload import load_script

check = load_script("check")
bench = load_script("bench")
from benchlib import pool as bench_pool  # noqa: E402

VM_RUN = os.path.join(check.TOP, "scripts", "vm-run")


def recorded_commands(monkeypatch, status):
    """check.run replaced by one that answers status to every command: the
    list the commands are recorded in."""
    commands = []

    def record(cmd, log_path, timeout, env=None, cwd=None):
        commands.append(cmd)
        return status, ""
    monkeypatch.setattr(check, "run", record)
    return commands


def test_check_boots_its_guests_without_erms_and_fsrm(tmp_path, monkeypatch):
    commands = recorded_commands(monkeypatch, 4)
    monkeypatch.setattr(check, "vm_payload", lambda release, out: str(tmp_path / "payload"))
    check.vm_suite("6.1.0-0-amd64", str(tmp_path), "", "2048M", 2, 2, 0)
    (vm_run_cmd,) = commands
    assert vm_run_cmd[0] == VM_RUN
    model = vm_run_cmd[vm_run_cmd.index("--cpu") + 1].split(",")
    assert model[0] == "max"
    assert "-erms" in model and "-fsrm" in model


@pytest.mark.parametrize("model", ["", "max;reboot", "max erms", "$(id)"])
def test_vm_run_refuses_a_cpu_that_is_no_model_name(tmp_path, model):
    out = tmp_path / "out"
    done = subprocess.run([VM_RUN, "--kernel", "6.1", "--out", str(out), "--cpu", model],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode != 0
    assert "--cpu takes a QEMU CPU model" in done.stderr
    assert not out.exists()


@pytest.mark.parametrize("option, env", [(["--tcg-threads", "one"], {}),
                                         ([], {"PCOMPACT_TCG_THREADS": "singel"})])
def test_vm_run_refuses_tcg_threads_other_than_single_or_multi(tmp_path, option, env):
    out = tmp_path / "out"
    done = subprocess.run([VM_RUN, "--kernel", "6.1", "--out", str(out), *option],
                          capture_output=True, text=True, timeout=60, check=False,
                          env={**os.environ, **env})
    assert done.returncode != 0
    assert "--tcg-threads takes single or multi" in done.stderr
    assert not out.exists()


def test_check_runs_the_bench_smoke_test_on_its_guests_cpu(tmp_path, monkeypatch):
    commands = recorded_commands(monkeypatch, 1)
    check.bench_suite(str(tmp_path))
    (bench_cmd,) = commands
    assert "--quick" in bench_cmd
    assert bench_cmd[bench_cmd.index("--cpu") + 1] == check.CHECK_CPU


def test_bench_boots_max_unless_told_and_names_another_model_in_the_shape():
    args = bench.parse_args([])
    cmd = bench.vm_command(args, "rel", "p", bench.scenarios.BY_NAME["kernel"], 512, "o")
    assert cmd[cmd.index("--cpu") + 1] == "max"
    assert bench.vm_shape(args) == "3072 MiB, 2 NUMA nodes, 2 CPUs, tcg"
    other = bench.parse_args(["--cpu", "max,-erms"])
    cmd = bench.vm_command(other, "rel", "p", bench.scenarios.BY_NAME["kernel"], 512, "o")
    assert cmd[cmd.index("--cpu") + 1] == "max,-erms"
    assert bench.vm_shape(other).endswith(", CPU model max,-erms")
    kvm = bench.parse_args(["--cpu", "max,-erms", "--accel", "kvm"])
    assert "CPU model" not in bench.vm_shape(kvm)


def test_bench_pool_pools_an_explicit_max_with_none_and_refuses_another_model():
    plain = bench_pool.measured_options("scripts/bench --kernel 6.1 --runs 5")
    assert bench_pool.measured_options("scripts/bench --kernel 6.1 --cpu max") == plain
    assert bench_pool.measured_options("scripts/bench --kernel 6.1 --cpu=max") == plain
    assert bench_pool.measured_options("scripts/bench --kernel 6.1 --cpu max,-erms") != plain


def test_bench_pool_knows_the_defaults_bench_takes():
    defaults = bench.parse_args([])
    for option, value in bench_pool.DEFAULT_VALUES.items():
        assert str(getattr(defaults, option[2:].replace("-", "_"))) == value, option
    plain = bench_pool.measured_options("scripts/bench --kernel 6.1")
    given = " ".join(f"{option} {value}" for option, value in bench_pool.DEFAULT_VALUES.items())
    assert bench_pool.measured_options(f"scripts/bench --kernel 6.1 {given}") == plain
    assert bench_pool.measured_options("scripts/bench --kernel 6.1 --nodes 1") != plain


@pytest.mark.parametrize("model", ["", "max;reboot", "max erms", "$(id)"])
def test_bench_refuses_a_cpu_that_is_no_model_name(model, capsys):
    with pytest.raises(SystemExit) as exit_info:
        bench.parse_args(["--cpu", model])
    assert exit_info.value.code == 2
    assert "--cpu" in capsys.readouterr().err
