# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/check's digest of a failed guest run: what a CI log,
which shows only the runner's output, must say about why a VM suite failed."""

import os

from scriptload import load_script

check = load_script("check")

CONSOLE = """\
[    1.0] booting
=== test 1 10-load (limit 120s) ===
# loaded fine
=== test 1 10-load: exit 0 after 1s ===
=== test 2 31-contrast (limit 300s) ===
[   50.1] khugehog: count 200
# after compact_memory: 200 hugepages, 40 stalls
FAIL: 40 stalls for 200 hugepages after compact_memory
=== test 2 31-contrast: exit 1 after 62s ===
=== test 3 45-free-pairs (limit 400s) ===
# frag occupies 291 regions
[  417.2] int3: 0000 [#1] PREEMPT SMP NOPTI
[  417.3] RIP: 0010:__schedule+0x30c/0x1080
"""


def test_digest_names_failed_and_unfinished_tests_with_their_notes():
    digest = check.vm_digest(CONSOLE).splitlines()
    assert digest[0] == check.DIGEST
    assert "test 31-contrast (exit 1):" in digest
    assert "  FAIL: 40 stalls for 200 hugepages after compact_memory" in digest
    assert "  # after compact_memory: 200 hugepages, 40 stalls" in digest
    assert "test 45-free-pairs did not finish; its notes:" in digest
    assert "  # frag occupies 291 regions" in digest
    assert not any("10-load" in line or "loaded fine" in line for line in digest)


def test_digest_starts_the_splat_at_its_first_line():
    digest = check.vm_digest(CONSOLE).splitlines()
    at = digest.index("first kernel splat:")
    assert digest[at + 1].endswith("int3: 0000 [#1] PREEMPT SMP NOPTI")
    assert digest[at + 2].endswith("RIP: 0010:__schedule+0x30c/0x1080")


def test_clean_console_has_no_splat():
    clean = CONSOLE.split("=== test 2")[0]
    assert "first kernel splat:" not in check.vm_digest(clean)


def test_tail_keeps_the_whole_digest_after_the_last_lines():
    log = "\n".join(f"line {i}" for i in range(100)) + "\n" + check.vm_digest(CONSOLE)
    shown = check.tail(log, lines=5).splitlines()
    assert shown[:5] == [f"# line {i}" for i in range(95, 100)]
    assert "# " + check.DIGEST in shown
    assert "#   FAIL: 40 stalls for 200 hugepages after compact_memory" in shown
    assert shown[-1].endswith("RIP: 0010:__schedule+0x30c/0x1080")


def test_once_tests_run_whole_on_exactly_one_full_kernel():
    kernels = check.FULL_KERNELS.split()
    for glob_ in check.ONCE_TESTS:
        homes = [k for k in kernels if glob_ not in check.once_skips(k, kernels).split()]
        assert len(homes) == 1, (glob_, homes)


def test_once_tests_go_to_the_first_kernel_when_their_own_is_not_chosen():
    assert check.once_skips("6.1", ["6.1"]) == ""
    assert check.once_skips("6.12", ["6.1", "6.12"]) == " ".join(check.ONCE_TESTS)


BOOT_CRASH = """\
[    1.3] clocksource: Switched to clocksource hpet
[    1.3] Oops: int3: 0000 [#1] SMP NOPTI
[    1.3] RIP: 0010:set_next_task_fair+0x609/0x780
[    1.3] Kernel panic - not syncing: Fatal exception in interrupt
"""


def test_a_crash_before_the_first_test_may_be_booted_again():
    assert check.crashed_before_tests(BOOT_CRASH)
    assert check.first_splat(BOOT_CRASH) == "[    1.3] Oops: int3: 0000 [#1] SMP NOPTI"


def test_a_crash_once_a_test_started_is_never_retried():
    assert not check.crashed_before_tests(CONSOLE)


def test_a_clean_console_is_not_a_crash():
    clean = "[    1.0] booting\n=== test 1 10-load (limit 120s) ===\n"
    assert not check.crashed_before_tests(clean)
    assert not check.crashed_before_tests("[    1.0] booting\n")
    assert check.first_splat(clean) == ""


def _vm_suite_with_boots(tmp_path, monkeypatch, consoles):
    """vm_suite with vm-run replaced by boots that leave these consoles and
    exit 2 (crash) or 0 (a KTAP line in results.log)."""
    boots = list(consoles)
    calls = []

    def fake_run(cmd, log_path, timeout, env=None, cwd=None):
        console = boots.pop(0)
        os.makedirs(tmp_path / "vm", exist_ok=True)
        (tmp_path / "vm" / "console.log").write_text(console)
        results = tmp_path / "vm" / "results.log"
        crashed = check.first_splat(console) != ""
        results.write_text("" if crashed else "KTAP version 1\n1..1\nok 1 10-load\n")
        calls.append(cmd)
        return (2 if crashed else 0), ""

    monkeypatch.setattr(check, "run", fake_run)
    monkeypatch.setattr(check, "vm_payload", lambda release, out: "payload")
    suite, _ = check.vm_suite("7.3.4", str(tmp_path), "", "2G", 2, 2, 1)
    return suite, calls


def test_vm_suite_boots_again_after_a_crash_before_the_first_test(tmp_path, monkeypatch):
    ok = "=== test 1 10-load (limit 120s) ===\n=== test 1 10-load: exit 0 after 1s ===\n"
    suite, calls = _vm_suite_with_boots(tmp_path, monkeypatch, [BOOT_CRASH, ok])
    assert len(calls) == 2
    assert [r.status for r in suite.results] == ["pass", "pass"]
    assert "int3" in suite.results[0].detail
    assert (tmp_path / "vm" / "console-boot1.log").read_text() == BOOT_CRASH


def test_vm_suite_fails_when_the_second_boot_crashes_too(tmp_path, monkeypatch):
    suite, calls = _vm_suite_with_boots(tmp_path, monkeypatch, [BOOT_CRASH, BOOT_CRASH])
    assert len(calls) == 2
    assert any(r.status == "fail" for r in suite.results)
    assert sum("booted again" in r.name for r in suite.results) == 1
    # The digest of the failure reads the second boot's console.
    assert (tmp_path / "vm" / "console.log").exists()


def test_vm_suite_does_not_boot_again_after_a_crash_in_a_test(tmp_path, monkeypatch):
    suite, calls = _vm_suite_with_boots(tmp_path, monkeypatch, [CONSOLE])
    assert len(calls) == 1
    assert any(r.status == "fail" for r in suite.results)
