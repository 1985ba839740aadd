# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/scan-console: which console lines make vm-run fail a
guest run (and void a benchmark boot), and which it must let through."""

import os
import subprocess
import tempfile

_SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "scripts",
                       "scan-console")


def scan(console_text):
    with tempfile.NamedTemporaryFile("w", suffix=".log") as log:
        log.write(console_text)
        log.flush()
        done = subprocess.run([_SCRIPT, log.name], capture_output=True,
                              text=True, check=True)
    return done.stdout.splitlines()


CLEAN = """\
[    0.0] Linux version 7.3.4+deb13-amd64
[   12.1] pcompact: version 0.9 loaded: proactiveness 20, thresholds 80/90
[   30.4] pcompact: unloaded
"""


def test_clean_console_prints_nothing():
    assert scan(CLEAN) == []


def test_warning_and_trace_are_reported():
    lines = scan(CLEAN + "[   40.0] WARNING: CPU: 1 PID: 90 at mm/compaction.c:1\n"
                 "[   40.1] Call Trace:\n")
    assert len(lines) == 2


def test_our_modules_on_a_deprecated_workqueue_are_reported():
    # 7.2 and later: a pr_warn_once without a WARNING: prefix.
    line = ("[   15.8] workqueue: work func pcompact_sysfs_watch_fn [pcompact] "
            "enqueued on deprecated workqueue. Use system_{percpu|dfl}_wq "
            "instead.")
    assert scan(CLEAN + line + "\n") == [line]


def test_another_modules_deprecated_workqueue_is_not_ours():
    line = ("[    9.2] workqueue: work func deferred_probe_timeout_work_func "
            "enqueued on deprecated workqueue. Use system_{percpu|dfl}_wq "
            "instead.")
    assert scan(CLEAN + line + "\n") == []
