# SPDX-License-Identifier: GPL-2.0
"""Strict CSV reading for the plot and report scripts.

read_table() checks the header, the number of fields and the numbers, so a
truncated or malformed file stops the script with one line that names the
file and what is wrong with it, instead of a traceback or a wrong picture.
"""

import csv
import os


class CsvError(Exception):
    """A CSV input is missing, empty, truncated or malformed."""

    def __init__(self, path, message):
        super().__init__(f"{path}: {message}")
        self.path = path


def read_table(path, columns, numeric=(), optional_numeric=(), min_rows=1):
    """Read a CSV whose header holds every name in columns.

    numeric:          columns that must hold a number in every row
    optional_numeric: columns that hold a number or nothing (None)
    Returns a list of dicts (numbers as int or float).
    """
    if not os.path.exists(path):
        raise CsvError(path, "no such file")
    try:
        with open(path, newline="") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as err:
        raise CsvError(path, f"cannot read: {err}") from None
    if not text.strip():
        raise CsvError(path, "empty file")
    if not text.endswith("\n"):
        raise CsvError(path, "truncated: the last line has no newline")
    reader = csv.reader(text.splitlines())
    header = next(reader)
    missing = [c for c in columns if c not in header]
    if missing:
        raise CsvError(path, f"header lacks column(s) {', '.join(missing)} "
                             f"(header: {','.join(header)})")
    rows = []
    for n, fields in enumerate(reader, 2):
        if not fields:
            continue
        if len(fields) != len(header):
            raise CsvError(path, f"line {n} has {len(fields)} fields, the header {len(header)}")
        row = dict(zip(header, fields))
        for col in numeric:
            row[col] = _num(path, n, col, row[col], allow_empty=False)
        for col in optional_numeric:
            if col in row:
                row[col] = _num(path, n, col, row[col], allow_empty=True)
        rows.append(row)
    if len(rows) < min_rows:
        raise CsvError(path, f"{len(rows)} data rows, need at least {min_rows}")
    return rows


def _num(path, line, col, text, allow_empty):
    text = text.strip()
    if not text and allow_empty:
        return None
    try:
        value = float(text)
    except ValueError:
        raise CsvError(path, f"line {line}: {col} '{text}' is not a number") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise CsvError(path, f"line {line}: {col} '{text}' is not a finite number")
    return int(value) if value.is_integer() and "." not in text and "e" not in text.lower() \
        else value


def write_table(path, columns, rows):
    """Write rows (dicts or sequences) under the header columns; None -> ''."""
    with open(path, "w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(columns)
        for row in rows:
            values = [row.get(c) for c in columns] if isinstance(row, dict) else list(row)
            out.writerow(["" if v is None else _fmt(v) for v in values])


def _fmt(value):
    if isinstance(value, float):
        return f"{value:.6g}" if abs(value) < 1e15 else repr(value)
    return str(value)


def parse_labelled(specs, what="--input"):
    """['LABEL=PATH', ...] -> [(label, path)]; raises ValueError on a bad spec."""
    out = []
    for spec in specs:
        label, sep, path = spec.partition("=")
        if not sep or not label or not path:
            raise ValueError(f"{what} '{spec}': expected LABEL=PATH")
        out.append((label, path))
    return out
