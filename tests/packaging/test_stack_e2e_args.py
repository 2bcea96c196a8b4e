"""scripts/stack_e2e.py's command line: test paths may come before or after the run options."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "stack_e2e.py"


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch) -> tuple[Any, list[Any]]:
    spec = importlib.util.spec_from_file_location("stack_e2e_under_test", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    seen: list[Any] = []
    monkeypatch.setattr(module, "run", lambda args: seen.append(args) or 0)
    return module, seen


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "S", "auth/otp", "users.test.ts", "--workers", "1"],
        ["run", "S", "--workers", "1", "auth/otp", "users.test.ts"],
        ["run", "S", "auth/otp", "--workers", "1", "users.test.ts"],
    ],
)
def test_paths_before_or_after_the_options(runner, argv):
    module, seen = runner
    assert module.main(argv) == 0
    assert seen[0].paths == ["auth/otp", "users.test.ts"] and seen[0].workers == 1


def test_an_unknown_option_is_still_refused(runner, capsys):
    module, seen = runner
    with pytest.raises(SystemExit) as stopped:
        module.main(["run", "S", "--workers", "1", "--bogus", "auth/otp"])
    assert stopped.value.code == 2 and "--bogus" in capsys.readouterr().err and not seen


def _copy_with_private_dir(root: Path, *, private_engine: bool) -> Path:
    private = root / "apps" / "backend" / "src" / "private"
    (private / "implementation").mkdir(parents=True)  # an unchecked-out submodule is an empty folder
    (private / "implementation-fallback").mkdir()
    (private / "implementation-fallback" / "index.ts").write_text("export {};\n")
    if private_engine:
        (private / "implementation" / "index.ts").write_text("export {};\n")
    return private / "implementation.generated.ts"


@pytest.mark.parametrize(("private_engine", "engine"), [(False, "implementation-fallback"), (True, "implementation")])
def test_the_risk_engine_entry_is_written_as_the_backend_build_writes_it(runner, tmp_path, private_engine, engine):
    module, _ = runner
    entry = _copy_with_private_dir(tmp_path, private_engine=private_engine)
    module.ensure_risk_engine_entry(tmp_path)
    text = entry.read_text()
    assert f'export * from "../private/{engine}/index";' in text
    # risk-scores.test.ts expects the private engine's scores exactly when this substring is there
    assert ("../private/implementation/index" in text) is private_engine


def test_an_existing_risk_engine_entry_is_left_alone(runner, tmp_path):
    module, _ = runner
    entry = _copy_with_private_dir(tmp_path, private_engine=False)
    entry.write_text('export * from "../private/implementation/index";\n')
    module.ensure_risk_engine_entry(tmp_path)
    assert entry.read_text() == 'export * from "../private/implementation/index";\n'
