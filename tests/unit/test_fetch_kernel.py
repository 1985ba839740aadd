# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/fetch-kernel's argument check: what is neither a
series nor a whole kernel release is refused before apt sees it, since apt
reads a package name that matches no package as a regular expression."""

import os
import subprocess
import tempfile

import pytest

_SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "scripts",
                       "fetch-kernel")


def fetch(spec, cache):
    # A mirror nothing answers on: were the check to let a spec through,
    # apt fails at once instead of downloading.
    env = dict(os.environ, PCOMPACT_CACHE=cache,
               PCOMPACT_MIRROR="http://127.0.0.1:9/debian",
               PCOMPACT_SECURITY_MIRROR="http://127.0.0.1:9/debian-security")
    return subprocess.run([_SCRIPT, spec], capture_output=True, text=True,
                          env=env, timeout=60)


@pytest.mark.parametrize("spec", ["6.1.0", "6.12.117+deb12", "6.1.0-56",
                                  "7.3.4+deb13-cloud", "linux-image-6.1.0-56-amd64"])
def test_partial_release_is_refused_and_fetches_nothing(spec):
    with tempfile.TemporaryDirectory() as cache:
        done = fetch(spec, cache)
        assert done.returncode == 1
        assert f"not a whole kernel release: '{spec}'" in done.stderr
        assert done.stdout == ""
        assert os.listdir(cache) == []


@pytest.mark.parametrize("spec", ["6.1.0-56-amd64;rm", "", "6.1 6.12"])
def test_release_with_other_characters_is_refused(spec):
    with tempfile.TemporaryDirectory() as cache:
        done = fetch(spec, cache)
        assert done.returncode == 1
        assert "not a kernel release" in done.stderr
        assert os.listdir(cache) == []


@pytest.mark.parametrize("release", ["6.1.0-56-amd64", "6.12.117+deb12-amd64",
                                     "6.12.118+deb13-rt-amd64", "7.3.4+deb13-cloud-amd64"])
def test_whole_release_passes_the_check(release):
    # A release already complete in the cache is answered without apt.
    with tempfile.TemporaryDirectory() as cache:
        kdir = os.path.join(cache, "kernels", release)
        os.makedirs(kdir)
        open(os.path.join(kdir, ".complete"), "w").close()
        done = fetch(release, cache)
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines()[-1] == release


def test_a_long_apt_cache_answer_still_finds_the_package():
    # apt-cache show lists every version (bookworm has five
    # linux-source-6.12): an answer that outlasts the pipe must not read as
    # "no such package" (a pipe into grep -q under pipefail did, at random).
    with tempfile.TemporaryDirectory() as cache:
        release = "6.1.0-56-amd64"
        kdir = os.path.join(cache, "kernels", release)
        os.makedirs(kdir)
        open(os.path.join(kdir, ".complete"), "w").close()
        with open(os.path.join(kdir, "apt-group"), "w") as f:
            f.write("bookworm\n")
        os.makedirs(os.path.join(cache, "apt", "bookworm"))
        open(os.path.join(cache, "apt", "bookworm", ".updated"), "w").close()
        bindir = os.path.join(cache, "bin")
        os.makedirs(bindir)
        with open(os.path.join(bindir, "apt-cache"), "w") as f:
            f.write("#!/bin/sh\necho 'Package: linux-source-6.1'\n"
                    "head -c 2000000 /dev/zero | tr '\\0' 'x' | fold -w 80\n")
        with open(os.path.join(bindir, "apt-get"), "w") as f:
            f.write("#!/bin/sh\necho 'fake apt-get refuses' >&2\nexit 1\n")
        for tool in ("apt-cache", "apt-get"):
            os.chmod(os.path.join(bindir, tool), 0o755)
        env = dict(os.environ, PCOMPACT_CACHE=cache,
                   PATH=bindir + os.pathsep + os.environ["PATH"])
        done = subprocess.run([_SCRIPT, "--source", release], capture_output=True,
                              text=True, env=env, timeout=60)
        assert "no linux-source-6.1 in" not in done.stderr
        assert "apt-get download linux-source-6.1 failed: fake apt-get refuses" in done.stderr
