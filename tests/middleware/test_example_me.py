"""The FastAPI example's /api/me without a secret server key: what the token says (the e-mail
of a 2.8 token), never a call to the service and never a hole where the token has the value;
its /api/export called by a script with a user's API key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from api_sessions import session_headers
from example_apps import load_example
from fastapi.testclient import TestClient

from middleware.keys_support import keys  # noqa: F401 - the fixture


def test_me_without_the_secret_key_shows_the_tokens_email(local_service: Any, tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<!doctype html><!--AUTHMW_CONFIG-->")
    config = local_service.config.with_(secret_server_key=None)
    app = load_example("authmw_example_fastapi_me").create_app(config, web_dist=tmp_path)
    session = local_service.sign_up()
    headers = session_headers("bearer", local_service.project_id, session.access_token, None)
    with TestClient(app) as client:
        r = client.get("/api/me", headers=headers)
    assert r.status_code == 200, r.text
    assert r.json() == {"id": session.user_id, "primary_email": session.email, "display_name": None}


def test_a_script_calls_the_examples_export_with_a_users_key(keys: Any, tmp_path: Path) -> None:
    """The example's /api/export (``Guard(api_keys=True)``): a user's key is its user, a revoked
    key and no credential are refused; an example that does not accept keys refuses the key."""
    (tmp_path / "index.html").write_text("<!doctype html><!--AUTHMW_CONFIG-->")
    example = load_example("authmw_example_fastapi_export")
    with TestClient(example.create_app(keys.config, web_dist=tmp_path)) as client:
        ok = client.get("/api/export", headers=keys.bearer(keys.user_key))
        assert ok.status_code == 200, ok.text
        assert ok.json() == {"id": keys.user_id, "via": "user_api_key", "actions": 0}
        assert client.get("/api/export", headers=keys.bearer(keys.revoked_key)).status_code == 401
        assert client.get("/api/export").status_code == 401
    with TestClient(example.create_app(keys.config.with_(accept_api_keys=False), web_dist=tmp_path)) as client:
        assert client.get("/api/export", headers=keys.bearer(keys.user_key)).status_code == 401
