# SPDX-License-Identifier: GPL-2.0
"""Split what bench-guest.sh wrote to fd 3 into files.

The protocol (see scripts/bench-guest.sh):

    === file NAME lines=N ===
    ...N lines...
    === end NAME ===
    # bench: progress text
    === error MESSAGE ===
    === done ===

A file is complete only with its end marker and exactly the announced
number of lines; anything else lands in GuestOutput.incomplete, and the
caller must treat the scenario as failed rather than use partial data.
"""

import re

FILE_RE = re.compile(r"^=== file (\S+) lines=(\d+) ===$")
END_RE = re.compile(r"^=== end (\S+) ===$")
ERROR_RE = re.compile(r"^=== error (.*) ===$")
DONE = "=== done ==="
PROGRESS_PREFIX = "# bench: "
EXIT_RE = re.compile(r"^# vm-run: exit (\d+)$")


class GuestOutput:
    """Files and messages recovered from one guest run."""

    def __init__(self):
        self.files = {}
        self.progress = []
        self.errors = []
        self.incomplete = []
        self.done = False
        self.exit_status = None

    @property
    def complete(self):
        """True when the guest finished and every file arrived whole."""
        return self.done and not self.errors and not self.incomplete

    def problems(self):
        """Why the output cannot be used, as sentences (empty if it can)."""
        out = [f"guest error: {e}" for e in self.errors]
        out += [f"file {p}" for p in self.incomplete]
        if not self.done:
            out.append("the guest did not finish (no '=== done ===' marker)")
        return out


def split_frames(text):
    """Parse the results-port text into a GuestOutput."""
    out = GuestOutput()
    name = None
    expected = 0
    body = []

    def abandon(reason):
        out.incomplete.append(f"{name}: {reason} after {len(body)} of {expected} lines")

    for line in text.splitlines():
        if name is not None:
            end = END_RE.match(line)
            if end and end.group(1) == name:
                if len(body) != expected:
                    out.incomplete.append(
                        f"{name}: {expected} lines announced, {len(body)} received")
                else:
                    out.files[name] = "".join(f"{b}\n" for b in body)
                name = None
                continue
            if FILE_RE.match(line) or line == DONE or ERROR_RE.match(line) \
                    or EXIT_RE.match(line):
                abandon("no end marker")
                name = None
                # fall through: the line is a marker of its own
            else:
                body.append(line)
                continue
        match = FILE_RE.match(line)
        if match:
            name, expected, body = match.group(1), int(match.group(2)), []
            continue
        if line == DONE:
            out.done = True
            continue
        match = ERROR_RE.match(line)
        if match:
            out.errors.append(match.group(1))
            continue
        match = EXIT_RE.match(line)
        if match:
            out.exit_status = int(match.group(1))
            continue
        if line.startswith(PROGRESS_PREFIX):
            out.progress.append(line[len(PROGRESS_PREFIX):])
    if name is not None:
        abandon("output ended with no end marker")
    return out


def progress_lines(text):
    """The progress messages in (possibly partial) results-port text."""
    return [line[len(PROGRESS_PREFIX):] for line in text.splitlines()
            if line.startswith(PROGRESS_PREFIX)]
