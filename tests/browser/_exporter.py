"""``notebooks/_export/export_notebooks.py`` (the code ``make demo`` runs) as a module.

It is a script beside the notebooks, not part of the package: the browser tests load it by path.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

SCRIPT = Path(__file__).resolve().parents[2] / "notebooks" / "_export" / "export_notebooks.py"


def load_exporter() -> ModuleType:
    spec = importlib.util.spec_from_file_location("export_notebooks", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


exporter = load_exporter()
