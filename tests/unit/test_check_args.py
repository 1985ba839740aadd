# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/check's refusal of --tests globs that match no guest
test: run-suite would run nothing for them and the suite would still pass."""

import pytest

from scriptload import load_script

check = load_script("check")

NAMES = ["10-pcompact-load", "40-pcompact-compacts", "58-pcompact-node-sysfs"]


def test_bare_numbers_match_no_test_name():
    assert check.unmatched_globs("40 58", NAMES) == ["40", "58"]


def test_globs_that_match_are_accepted():
    assert check.unmatched_globs("40-* 5?-* 10-pcompact-load", NAMES) == []


def test_only_the_unmatched_globs_are_named():
    assert check.unmatched_globs("40-* 61-*", NAMES) == ["61-*"]


def test_no_globs_is_no_restriction():
    assert check.unmatched_globs("", NAMES) == []


def test_the_repository_default_smoke_tests_all_match():
    assert check.unmatched_globs(check.SMOKE_TESTS, check.guest_test_names()) == []


@pytest.fixture
def no_real_run(monkeypatch):
    """A check that got past its arguments stops at its first fetch."""
    def went_on(kernels):
        raise AssertionError(f"check went on to fetch {kernels}")
    monkeypatch.setattr(check, "prefetch", went_on)


def test_main_refuses_an_unmatched_glob_before_creating_anything(tmp_path, capsys,
                                                                 no_real_run):
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as stop:
        check.main(["--tests", "40 58-*", "--out", str(out)])
    assert stop.value.code == 2
    assert "--tests: 40 matches no test" in capsys.readouterr().err
    assert not out.exists()


def test_globs_match_as_the_guest_shell_matches_them():
    # busybox `case`: [^...] negates, POSIX classes and escapes work.
    assert check.unmatched_globs("[^1]0-pcompact-load", NAMES) == ["[^1]0-pcompact-load"]
    assert check.unmatched_globs("[[:digit:]]0-* 40\\-*", NAMES) == []


def test_main_refuses_a_blank_smoke_subset(tmp_path, capsys, no_real_run):
    with pytest.raises(SystemExit) as stop:
        check.main(["--smoke-tests", " ", "--out", str(tmp_path / "out")])
    assert stop.value.code == 2
    assert "--smoke-tests: no glob given" in capsys.readouterr().err
