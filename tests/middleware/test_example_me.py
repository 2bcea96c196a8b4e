"""The FastAPI example's /api/me without a secret server key: what the token says (the e-mail
of a 2.8 token), never a call to the service and never a hole where the token has the value."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from api_sessions import session_headers
from example_apps import load_example
from fastapi.testclient import TestClient


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
