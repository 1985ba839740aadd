# SPDX-License-Identifier: GPL-2.0
"""benchlib: the data handling of `scripts/bench` (no drawing here).

frames    split the guest's framed output (fd 3) into files
parse     read the guest's raw files (buddyinfo, vmstat, khugehog, frag...)
metrics   node scores, deltas, derived metrics, percentiles
csvio     strict CSV reading with one-line errors that name the file
table     the mmtests-style comparison table
report    per-scenario summaries, the targets and the README
pool      which runs of a bench count, and whether benches can pool
scenarios what each scenario switches on
"""
