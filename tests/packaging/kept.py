"""What the release checks keep between runs, so that a developer's second run is fast when
nothing changed: the built sdist and wheel, the fresh virtual environments with the wheel
installed, the fresh Vite app with the npm tarball installed. Each lives in
build/release-checks/<name>/ beside a stamp of its inputs (as scripts/steps.sh does for the
installs and builds of scripts/test.sh) and is made again from nothing when the stamp differs.
The checks themselves (twine, check-wheel-contents, the imports, the README's quick start, tsc
and Vite, publint, attw) run on every run, on what is kept.

A fresh clone (CI) has no build/ folder and makes everything; AUTHMW_RELEASE_CHECKS_FRESH=1 does
the same on a developer's machine (each run then starts from nothing, in a temporary folder)."""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KEPT = ROOT / "build" / "release-checks"
#: Set to 1 to keep nothing (every product made anew, as in CI).
FRESH_VARIABLE = "AUTHMW_RELEASE_CHECKS_FRESH"
#: What the sdist is made of (pyproject.toml's [tool.hatch.build.targets.sdist] include).
SDIST_INPUTS = ("pyproject.toml", "README.md", "LICENSE", "authmw", "adapters", "local")
_SKIPPED = {"__pycache__", "node_modules", ".mypy_cache", ".pytest_cache"}


def fresh() -> bool:
    return os.environ.get(FRESH_VARIABLE, "") not in ("", "0")


def file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def inputs_hash(*paths: str | Path, root: Path = ROOT) -> str:
    """A hash of the named files and folders under `root`: each file's path and contents."""
    digest = hashlib.sha256()
    for name in paths:
        top = root / name
        files = [top] if top.is_file() else sorted(p for p in top.rglob("*") if p.is_file())
        for file in files:
            parts = file.relative_to(root).parts
            if _SKIPPED.intersection(parts) or file.suffix == ".pyc" or any(p.endswith(".egg-info") for p in parts):
                continue
            digest.update(str(file.relative_to(root)).encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()


def stamp_of(*parts: str) -> str:
    """One stamp of several inputs (and of the Python that runs the checks)."""
    return hashlib.sha256("\n".join((sys.version, *parts)).encode()).hexdigest()


def kept(name: str, stamp: str, make: Callable[[Path], None]) -> tuple[Path, bool]:
    """The folder `name`: kept from an earlier run when its stamp is `stamp`, else emptied and
    filled by `make(folder)` (the stamp is written after `make` returns, so a failed make is
    made again next time). Returns the folder and whether it was kept."""
    if fresh():
        folder = Path(tempfile.mkdtemp(prefix=f"authmw-{name}-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        make(folder)
        return folder, False
    folder, stamp_file = KEPT / name, KEPT / f"{name}.stamp"
    if folder.is_dir() and stamp_file.is_file() and stamp_file.read_text() == stamp:
        return folder, True
    stamp_file.unlink(missing_ok=True)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    make(folder)
    stamp_file.write_text(stamp)
    return folder, False
