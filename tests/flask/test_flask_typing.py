"""The Flask extension's keyword arguments as a type checker sees them: every documented
setting in lower case passes mypy --strict, and a misspelt one is caught before the app runs
(at run time too: tests/flask/test_flask_cross_site.py)."""

from __future__ import annotations

from pathlib import Path

from mypy import api

GOOD = """
from flask import Flask
from authmw_flask import AuthMW

AuthMW(
    Flask(__name__),
    project_id="p",
    api_url="http://127.0.0.1:8102",
    publishable_client_key="pck",
    secret_server_key="ssk",
    handler_path="/handler",
    allow_anonymous=False,
    allow_restricted=False,
    accept_api_keys=True,
    env_file=".authmw/project.env",
    csrf_check=True,
    trusted_origins=["https://app.example"],
    cookie_same_site="Lax",
    cookie_secure=None,
    on_refresh_unavailable="anonymous",
)
"""

BAD = """
from flask import Flask
from authmw_flask import AuthMW

AuthMW(Flask(__name__), csrf_chek=False)
"""


def _mypy(tmp_path: Path, source: str) -> tuple[str, int]:
    path = tmp_path / "app.py"
    path.write_text(source)
    out, err, status = api.run(["--strict", "--no-incremental", "--cache-dir", str(tmp_path / "cache"), str(path)])
    return out + err, status


def test_every_setting_in_lower_case_type_checks(tmp_path: Path) -> None:
    out, status = _mypy(tmp_path, GOOD)
    assert status == 0, out


def test_a_misspelt_setting_is_a_type_error(tmp_path: Path) -> None:
    out, status = _mypy(tmp_path, BAD)
    assert status == 1 and 'Unexpected keyword argument "csrf_chek"' in out, out
