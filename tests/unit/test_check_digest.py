# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/check's digest of a failed guest run: what a CI log,
which shows only the runner's output, must say about why a VM suite failed."""

import importlib.machinery
import importlib.util
import os

_PATH = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "check")
_LOADER = importlib.machinery.SourceFileLoader("check", _PATH)
_SPEC = importlib.util.spec_from_loader("check", _LOADER)
check = importlib.util.module_from_spec(_SPEC)
_LOADER.exec_module(check)

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
