"""The wheel as a user installs it: built from this tree, installed into a fresh virtual
environment, every public module imported from there (not from the source tree), with its
package data and license metadata."""

from __future__ import annotations

import json
import site
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PUBLIC_MODULES = [
    "authmw",
    "authmw.errors",
    "authmw.models",
    "authmw.middleware",
    "authmw.dev",
    "authmw.cli",
    "authmw_fastapi",
    "authmw_flask",
    "authmw_django",
    "authmw_django.rest_framework",
]

CHECK = """
import importlib, json, sys
from importlib import resources
import django
from django.conf import settings
settings.configure(INSTALLED_APPS=["authmw_django"], AUTHMW={})
django.setup()
found = {}
for name in sys.argv[1:]:
    module = importlib.import_module(name)
    found[name] = module.__file__
data = {
    package: resources.files(package).joinpath(name).is_file()
    for package, name in [("authmw", "catalogue.json"), ("authmw", "py.typed"), ("authmw_fastapi", "py.typed"),
                          ("authmw_django", "py.typed"), ("authmw_flask", "py.typed")]
}
print(json.dumps({"modules": found, "data": data}))
"""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
        check=True,
        capture_output=True,
    )
    [built] = out.glob("authmw-*.whl")
    return built


def test_the_wheel_carries_the_adapters_data_and_an_spdx_license(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    for package in ("authmw", "authmw_fastapi", "authmw_django", "authmw_flask"):
        assert f"{package}/__init__.py" in names and f"{package}/py.typed" in names
    assert "authmw/catalogue.json" in names
    assert any(n.startswith("authmw_django/migrations/") for n in names)
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("/METADATA"))).decode()
    assert "License-Expression: MIT" in metadata
    assert any(n.endswith("/licenses/LICENSE") for n in names)


def test_the_installed_wheel_imports_every_public_module(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", str(wheel)], check=True, capture_output=True
    )
    # The dependencies come from the test environment (read through PYTHONPATH, which does not
    # run its .pth files, so the editable install of this tree stays out of the way).
    deps = ":".join(site.getsitepackages())
    result = subprocess.run(
        [str(python), "-c", CHECK, *PUBLIC_MODULES],
        check=False,
        cwd=tmp_path,
        env={"PYTHONPATH": deps, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.splitlines()[-1])
    for name, file in report["modules"].items():
        assert file.startswith(str(env_dir)), f"{name} was imported from {file}, not from the installed wheel"
    assert all(report["data"].values()), report["data"]
