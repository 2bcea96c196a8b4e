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
