"""The packages as a user gets them: `python -m build` makes the sdist and then the wheel from
that sdist (so a file the sdist forgets breaks the wheel); the wheel is installed into a fresh
virtual environment and every public module imported from there (not from the source tree),
with its package data, license metadata and the pytest plugin's entry point.

The built files and the virtual environments are kept in build/release-checks/ while their
inputs are unchanged (kept.py): the sources for the build, the wheel's hash for an environment
(and, for the quick start's, the wheel's dependencies: a changed wheel with the same ones is
installed again into the kept environment, without its dependencies). The checks run every time."""

from __future__ import annotations

import json
import site
import subprocess
import sys
import tarfile
import venv
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from .kept import ROOT, SDIST_INPUTS, file_hash, inputs_hash, kept, stamp_of

PUBLIC_MODULES = [
    "authmw",
    "authmw.errors",
    "authmw.models",
    "authmw.middleware",
    "authmw.dev",
    "authmw_local",
    "authmw.cli",
    "authmw.pytest_plugin",
    "authmw_fastapi",
    "authmw_flask",
    "authmw_quart",
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
from importlib.metadata import entry_points
plugins = {e.name: e.value for e in entry_points(group="pytest11")}
print(json.dumps({"modules": found, "data": data, "pytest11": plugins}))
"""


@pytest.fixture(scope="module")
def built() -> Path:
    """The folder holding the sdist and the wheel built from it (kept while the sources are unchanged)."""

    def build(out: Path) -> None:
        result = subprocess.run(
            [sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
            check=False,
            capture_output=True,
            text=True,
        )
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]

    out, _ = kept("dist", stamp_of(inputs_hash(*SDIST_INPUTS)), build)
    return out


@pytest.fixture(scope="module")
def wheel(built: Path) -> Path:
    [found] = built.glob("authmw-*.whl")
    return found


def test_the_sdist_carries_the_sources_license_and_readme(built: Path) -> None:
    [sdist] = built.glob("authmw-*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    for expected in (
        "pyproject.toml",
        "README.md",
        "LICENSE",
        "authmw/catalogue.json",
        "authmw/py.typed",
        "authmw/dev/__init__.py",
        "adapters/authmw_fastapi/py.typed",
        "adapters/authmw_django/migrations/0001_initial.py",
        "adapters/authmw_flask/__init__.py",
    ):
        assert expected in names, f"{expected} is missing from {sdist.name}"
    assert not any(name.startswith(("js/node_modules", ".venv")) for name in names)


def test_the_wheel_carries_the_adapters_data_and_an_spdx_license(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    for package in ("authmw", "authmw_fastapi", "authmw_django", "authmw_flask", "authmw_quart"):
        assert f"{package}/__init__.py" in names and f"{package}/py.typed" in names
    assert "authmw/catalogue.json" in names
    assert any(n.startswith("authmw_django/migrations/") for n in names)
    # the local service's shipped TSX e-mail templates and themes (read at run time)
    assert {"authmw_local/email_sources/email_verification.tsx", "authmw_local/email_sources/theme_light.tsx"} <= set(
        names
    )
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("/METADATA"))).decode()
    assert "License-Expression: MIT" in metadata
    assert any(n.endswith("/licenses/LICENSE") for n in names)


def _venv_with(wheel: Path, *pip_args: str) -> Callable[[Path], None]:
    """Makes a fresh virtual environment in a folder and installs the wheel into it."""

    def make(env_dir: Path) -> None:
        venv.EnvBuilder(with_pip=True).create(env_dir)
        install = subprocess.run(
            [str(env_dir / "bin" / "python"), "-m", "pip", "install", "-q", *pip_args],
            check=False,
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert install.returncode == 0, install.stderr[-3000:]

    return make


def _requirements(wheel: Path) -> str:
    """The wheel's dependency set: its Requires-Dist and Provides-Extra lines."""
    with zipfile.ZipFile(wheel) as archive:
        metadata = archive.read(next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    return "\n".join(line for line in metadata.splitlines() if line.startswith(("Requires-Dist:", "Provides-Extra:")))


def test_the_installed_wheel_imports_every_public_module(wheel: Path, tmp_path: Path) -> None:
    env_dir, _ = kept("venv-wheel", stamp_of(file_hash(wheel)), _venv_with(wheel, "--no-deps", str(wheel)))
    python = env_dir / "bin" / "python"
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
    assert report["pytest11"].get("authmw") == "authmw.pytest_plugin", report["pytest11"]


def test_the_sdist_and_the_wheel_pass_the_publishing_checks(built: Path) -> None:
    """What PyPI would refuse (twine check: metadata, the README as rendered) and what makes a
    wheel wrong (check-wheel-contents: duplicate or stray files, an empty package)."""
    files = sorted(str(path) for path in built.iterdir())
    assert len(files) == 2, files
    checks = [
        [sys.executable, "-m", "twine", "check", "--strict", *files],
        [sys.executable, "-m", "check_wheel_contents", *(f for f in files if f.endswith(".whl"))],
    ]
    for command in checks:
        done = subprocess.run(command, cwd=ROOT, check=False, capture_output=True, text=True)  # its pyproject settings
        assert done.returncode == 0, f"{' '.join(command[2:4])}:\n{done.stdout}\n{done.stderr}"


def test_the_readme_quick_start_runs_against_the_installed_wheel(wheel: Path, tmp_path: Path) -> None:
    """A fresh virtual environment with the wheel and the quick start's extras (its dependencies
    from the package index, as a user gets them), then the README's tested blocks with that
    environment's `authmw`, `uvicorn`, `flask` and Python."""
    from docs.test_snippets import DOC_PORTS, run_blocks
    from ports import free_port

    extras = "[local,fastapi,django,flask]"
    # Kept while the wheel's dependencies are the same; a wheel built since replaces the one in it.
    def make(env_dir: Path) -> None:
        _venv_with(wheel, f"{wheel}{extras}")(env_dir)
        (env_dir / ".authmw-wheel").write_text(file_hash(wheel))

    env_dir, _ = kept("venv-quick-start", stamp_of(_requirements(wheel), extras), make)
    python = env_dir / "bin" / "python"
    installed = env_dir / ".authmw-wheel"
    if installed.read_text() != file_hash(wheel):
        again = subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall", str(wheel)],
            check=False, capture_output=True, text=True,
        )
        assert again.returncode == 0, again.stderr[-3000:]
        installed.write_text(file_hash(wheel))
    where = subprocess.run(
        [str(python), "-c", "import authmw, authmw_local; print(authmw.__file__, authmw_local.__file__)"],
        check=True, capture_output=True, text=True, cwd=tmp_path,
    ).stdout.split()
    assert all(path.startswith(str(env_dir)) for path in where), where  # the wheel's, not this tree's
    folder = tmp_path / "app"
    folder.mkdir()
    run_blocks(ROOT / "README.md", folder, {port: str(free_port()) for port in DOC_PORTS}, str(python))
