"""API clients: ``Authorization: Bearer`` and ``x-stack-access-token`` access tokens, verified
like any access token, never refreshed, refused with 401 and ``WWW-Authenticate: Bearer``."""

from __future__ import annotations

import base64
import json
import time
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

from authmw.middleware import WSGIAuthMiddleware

from .support import CountingSyncTransport, CountingTransport, cookie_header, make_app


def asgi(config: Any, **options: Any) -> tuple[Any, CountingTransport]:
    counting = CountingTransport()
    return make_app(config, http=lambda: httpx.AsyncClient(transport=counting), **options), counting


def call(app: Any, path: str = "/maybe", **headers: str) -> httpx.Response:
    with TestClient(app) as client:
        return client.get(path, headers=headers)


def tampered(token: str) -> str:
    header, payload, signature = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    claims["sub"] = "00000000-0000-4000-8000-000000000000"
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    return f"{header}.{forged}.{signature}"


def test_a_valid_bearer_token_signs_the_caller_in(local_service) -> None:
    s = local_service.sign_up()
    app, _ = asgi(local_service.config)
    assert call(app, authorization=f"Bearer {s.access_token}").json()["id"] == s.user_id
    assert call(app, authorization=f"bearer   {s.access_token}").json()["id"] == s.user_id  # scheme is case-blind
    assert call(app, **{"x-stack-access-token": s.access_token}).json()["id"] == s.user_id
    assert call(app, "/me", authorization=f"Bearer {s.access_token}").json()["id"] == s.user_id


@pytest.mark.parametrize("kind", ["expired", "forged", "other project", "garbage", "empty"])
def test_a_bad_bearer_token_is_a_401_naming_the_error_and_never_a_refresh(
    kind: str, local_service, request: pytest.FixtureRequest
) -> None:
    s = local_service.sign_up()
    options: dict[str, Any] = {}
    token = s.access_token
    if kind == "expired":
        options["clock"] = lambda: time.time() + 3600  # the token is an hour old for this middleware
    elif kind == "forged":
        token = tampered(token)
    elif kind == "other project":
        token = request.getfixturevalue("other_service").sign_up().access_token
    elif kind == "garbage":
        token = "not-a-jwt"
    else:
        token = ""
    app, counting = asgi(local_service.config, **options)
    r = call(app, authorization=f"Bearer {token}")
    assert r.status_code == 401, r.text
    challenge = r.headers["www-authenticate"]
    assert challenge.startswith('Bearer realm="authmw", error="invalid_token", error_description="')
    assert r.json()["code"] == r.headers["x-stack-known-error"]
    expected = "ACCESS_TOKEN_EXPIRED" if kind == "expired" else "UNPARSABLE_ACCESS_TOKEN"
    assert r.json()["code"] == expected
    assert counting.refreshes == 0


def test_cookies_win_over_a_bearer_token_and_other_schemes_are_the_apps(local_service) -> None:
    a, b = local_service.sign_up(), local_service.sign_up()
    app, _ = asgi(local_service.config)
    cookie = cookie_header(local_service.project_id, a.refresh_token, a.access_token)
    assert call(app, cookie=cookie, authorization=f"Bearer {b.access_token}").json()["id"] == a.user_id
    # cookies without a session leave the bearer token in charge
    assert call(app, cookie="theme=dark", authorization=f"Bearer {b.access_token}").json()["id"] == b.user_id
    assert call(app, authorization="Basic dXNlcjpwYXNz").json()["id"] is None


def test_wsgi_bearer_tokens_and_their_refusal(local_service) -> None:
    from flask import Flask

    s = local_service.sign_up()
    flask_app = Flask(__name__)

    @flask_app.get("/maybe")
    def maybe() -> Any:
        from flask import request

        return {"id": request.environ["authmw.user"].id}

    counting = CountingSyncTransport()
    flask_app.wsgi_app = WSGIAuthMiddleware(  # type: ignore[method-assign]
        flask_app.wsgi_app, local_service.config, http=lambda: httpx.Client(transport=counting)
    )
    client = flask_app.test_client()
    assert client.get("/maybe", headers={"Authorization": f"Bearer {s.access_token}"}).json["id"] == s.user_id
    refused = client.get("/maybe", headers={"Authorization": f"Bearer {tampered(s.access_token)}"})
    assert refused.status_code == 401 and refused.headers["WWW-Authenticate"].startswith("Bearer ")
    assert counting.refreshes == 0


def test_fastapi_openapi_declares_the_schemes_on_guarded_operations_only(local_service) -> None:
    from fastapi import Depends

    from authmw_fastapi import require_team_member

    app, _ = asgi(local_service.config)

    @app.get("/teams/{team_id}/home")
    async def team_home(user: Any = Depends(require_team_member())) -> dict[str, Any]:
        return {"id": user.id}

    schema = app.openapi()
    schemes = schema["components"]["securitySchemes"]
    assert schemes["bearerAuth"] == {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "JWT",
        "description": schemes["bearerAuth"]["description"],
    }
    assert schemes["sessionCookie"]["type"] == "apiKey" and schemes["sessionCookie"]["in"] == "cookie"
    for path in ("/me", "/teams/{team_id}/home"):
        assert schema["paths"][path]["get"]["security"] == [{"bearerAuth": []}, {"sessionCookie": []}], path
    assert "security" not in schema["paths"]["/maybe"]["get"]
    # what /docs' Authorize button sends works against the guarded route
    s = local_service.sign_up()
    assert call(app, "/me", authorization=f"Bearer {s.access_token}").json()["id"] == s.user_id


def test_the_python_client_produces_either_header_form(local_service) -> None:
    from authmw import ClientApp

    s = local_service.sign_up()
    client = ClientApp(local_service.config, refresh_token=s.refresh_token)
    app, _ = asgi(local_service.config)
    bearer = client.get_auth_headers(form="bearer")
    assert bearer["authorization"].startswith("Bearer ")
    assert call(app, "/me", **bearer).json()["id"] == s.user_id
    assert call(app, "/me", **client.get_auth_headers()).json()["id"] == s.user_id
    with pytest.raises(ValueError, match="form"):
        client.get_auth_headers(form="cookie")  # type: ignore[arg-type]


@pytest.mark.parametrize("mode, status", [("anonymous", 200), ("error", 503)])
def test_a_bearer_token_while_the_key_set_is_unreachable(local_service, mode: str, status: int) -> None:
    """Not a 500: the outage rule of cookies (anonymous, or 503 when configured)."""
    from .test_asgi import closed_port

    s = local_service.sign_up()
    config = local_service.config.with_(api_url=f"http://127.0.0.1:{closed_port()}")
    app, _ = asgi(config, on_refresh_unavailable=mode)
    r = call(app, authorization=f"Bearer {s.access_token}")
    assert r.status_code == status
    if status == 200:
        assert r.json()["id"] is None
