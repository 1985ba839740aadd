# SPDX-License-Identifier: GPL-2.0
"""The repository's scripts as modules for the unit tests: scripts/check,
scripts/bench and scripts/bench-compare have no .py suffix, so the import
system needs to be told they are Python."""

import importlib.machinery
import importlib.util
import os

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts")


def load_script(file_name, module_name=None):
    """A fresh module run from scripts/<file_name>, named module_name
    (default: file_name without .py, - as _)."""
    name = module_name or file_name.removesuffix(".py").replace("-", "_")
    loader = importlib.machinery.SourceFileLoader(name, os.path.join(SCRIPTS, file_name))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader))
    loader.exec_module(module)
    return module
