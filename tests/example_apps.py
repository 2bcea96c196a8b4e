"""The example apps as modules, for tests (examples/ is not a package)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def load_example(name: str = "authmw_example_fastapi") -> Any:
    """examples/fastapi_app/app.py, loaded under module name ``name``."""
    path = ROOT / "examples" / "fastapi_app" / "app.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
