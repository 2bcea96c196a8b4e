"""`stack-access` is a pair [refresh token, access token]: its access token counts only next to
the refresh token it names (service-api A4.1, as the official SDK reads it). Two real users."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from authmw.middleware import WSGIAuthMiddleware


def whoami(environ: dict[str, Any], start_response: Any) -> list[bytes]:
    user = environ["authmw.user"]
    start_response("200 OK", [("content-type", "application/json")])
    body = {"id": user.id, "refresh": getattr(user, "refresh_token", None)}
    return [json.dumps(body).encode()]


def pair(refresh: str, access: str) -> str:
    return quote(json.dumps([refresh, access], separators=(",", ":")), safe="")


@pytest.mark.parametrize("refresh_cookie", ["stack-refresh-{pid}", "stack-refresh"])
def test_another_users_pair_next_to_a_refresh_cookie_is_ignored(local_service, refresh_cookie: str) -> None:
    a, b = local_service.sign_up(), local_service.sign_up()
    name = refresh_cookie.format(pid=local_service.project_id)
    app = WSGIAuthMiddleware(whoami, local_service.config)
    client = httpx.Client(transport=httpx.WSGITransport(app=app), base_url="http://testserver")
    cookie = f"{name}={a.refresh_token}; stack-access={pair(b.refresh_token, b.access_token)}"
    r = client.get("/", headers={"cookie": cookie})
    # B's access token is absent: A's refresh token is refreshed, and A is signed in.
    assert r.json() == {"id": a.user_id, "refresh": a.refresh_token}
    written = [v for v in r.headers.get_list("set-cookie") if v.startswith("stack-access=")]
    assert len(written) == 1 and a.refresh_token in written[0] and b.access_token not in written[0]
