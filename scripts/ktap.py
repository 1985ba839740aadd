# SPDX-License-Identifier: GPL-2.0
"""Read and write KTAP (Documentation/dev-tools/ktap.rst) for the test runner.

Only what the runner needs: the top-level result lines of one or more KTAP
documents in a stream that may also hold unrelated lines (console noise,
build output), with the plan checked against the results.
"""

import re
from dataclasses import dataclass, field

_RESULT = re.compile(r"^(not ok|ok) (\d+)(?: -)?(?: ([^#]*?))?\s*(?:#\s*(.*))?$")
_PLAN = re.compile(r"^1\.\.(\d+)\s*$")
_HEADER = re.compile(r"^(KTAP version \d+|TAP version \d+)\s*$")


@dataclass
class Result:
    """One test result: passed, failed or skipped."""
    name: str
    status: str  # "pass", "fail" or "skip"
    detail: str = ""


@dataclass
class Document:
    """One KTAP document: its plan and its top-level results."""
    plan: int = -1
    results: list = field(default_factory=list)

    def problems(self):
        """Why the document cannot be trusted as complete, if it cannot."""
        if self.plan < 0:
            return ["no plan line"]
        if self.plan != len(self.results):
            return [f"plan says {self.plan} tests, {len(self.results)} reported"]
        return []


def _status(verdict, directive):
    word = directive.split()[0].upper() if directive.strip() else ""
    if verdict == "ok":
        return "skip" if word == "SKIP" else "pass"
    return "fail"


def parse(text):
    """Parse every top-level (unindented) KTAP document in text.

    Indented lines (subtests) and lines that are not KTAP are ignored, as the
    KTAP spec allows.  Returns a list of Document.
    """
    docs = []
    current = None
    for raw in text.splitlines():
        line = raw.rstrip("\r")
        if _HEADER.match(line):
            current = Document()
            docs.append(current)
            continue
        if current is None:
            continue
        plan = _PLAN.match(line)
        if plan and current.plan < 0:
            current.plan = int(plan.group(1))
            continue
        result = _RESULT.match(line)
        if result:
            verdict, _, name, directive = result.groups()
            directive = directive or ""
            status = _status(verdict, directive)
            detail = directive.strip()
            if status == "skip":
                # The reason only: result_line() writes the SKIP itself.
                detail = detail[len("SKIP"):].strip()
            current.results.append(Result((name or "").strip(), status, detail))
    return docs


def result_line(number, result, indent=""):
    """Format one KTAP result line."""
    verdict = "ok" if result.status in ("pass", "skip") else "not ok"
    line = f"{indent}{verdict} {number} {result.name}"
    if result.status == "skip":
        line += " # SKIP" + (f" {result.detail}" if result.detail else "")
    elif result.detail:
        line += f" # {result.detail}"
    return line


def summary_line(results):
    """The plain closing line CI reads: 'N passed, N failed, N skipped'."""
    counts = {"pass": 0, "fail": 0, "skip": 0}
    for result in results:
        counts[result.status] += 1
    return (f"{counts['pass']} passed, {counts['fail']} failed, "
            f"{counts['skip']} skipped")
