"""The adapters and the local service reach the SDK only through public modules and names
(authmw, authmw.middleware, authmw.adapter, authmw.keyformat, ...), so the seam a fourth adapter
would use is the one the others use, and the service could live in a distribution of its own."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import authmw.adapter

ROOT = Path(__file__).resolve().parents[2]


def private_sdk_imports(folder: Path) -> list[str]:
    """Every import under ``folder`` of a private SDK module or name (a part or name that
    starts with ``_``), as ``file:line: what``."""
    found = []
    for file in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(file.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "authmw":
                parts = node.module.split(".")
                names = [alias.name for alias in node.names]
                if any(part.startswith("_") for part in parts) or any(name.startswith("_") for name in names):
                    found.append(f"{file.relative_to(folder)}:{node.lineno}: from {node.module} import {', '.join(names)}")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    parts = alias.name.split(".")
                    if parts[0] == "authmw" and any(part.startswith("_") for part in parts):
                        found.append(f"{file.relative_to(folder)}:{node.lineno}: import {alias.name}")
    return found


@pytest.mark.parametrize("folder", ["adapters", "local"])
def test_no_adapter_and_not_the_local_service_imports_a_private_name_of_the_sdk(folder: str) -> None:
    assert private_sdk_imports(ROOT / folder) == []


def test_the_scan_finds_a_private_import(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text("from authmw._urls import same_origin_path\nimport authmw._jwt\nfrom authmw import _ops\n")
    assert len(private_sdk_imports(tmp_path)) == 3


def test_the_seam_exports_what_it_lists() -> None:
    missing = [name for name in authmw.adapter.__all__ if not hasattr(authmw.adapter, name)]
    assert missing == []
    assert len(authmw.adapter.__all__) == len(set(authmw.adapter.__all__))
