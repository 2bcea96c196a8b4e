"""The adapters reach the core only through public modules (authmw, authmw.middleware,
authmw.adapter), so the seam a fourth adapter would use is the one the three use."""

from __future__ import annotations

import ast
from pathlib import Path

import authmw.adapter

ADAPTERS = Path(__file__).resolve().parents[2] / "adapters"


def test_no_adapter_imports_a_private_module_of_the_core() -> None:
    private = []
    for file in sorted(ADAPTERS.rglob("*.py")):
        for node in ast.walk(ast.parse(file.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("authmw"):
                if node.module.split(".")[0] == "authmw" and any(
                    part.startswith("_") for part in node.module.split(".")
                ):
                    private.append(f"{file.relative_to(ADAPTERS)}:{node.lineno}: from {node.module}")
    assert private == []


def test_the_seam_exports_what_it_lists() -> None:
    missing = [name for name in authmw.adapter.__all__ if not hasattr(authmw.adapter, name)]
    assert missing == []
    assert len(authmw.adapter.__all__) == len(set(authmw.adapter.__all__))
