"""authmw_fastapi: dependencies and guards."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from fastapi import Depends, FastAPI
from fastapi.testclient import TestClient

import authmw_fastapi
from authmw.errors import ConfigurationError, KnownError
from authmw.middleware import AuthMiddleware, AuthUser, Refusal
from authmw_fastapi import (
    CurrentUser,
    Guard,
    PageUser,
    current_user,
    install,
    require_user,
)

from .support import cookie_header


def test_exported_members() -> None:
    assert authmw_fastapi.__all__ == sorted(authmw_fastapi.__all__)
    for name in authmw_fastapi.__all__:
        assert hasattr(authmw_fastapi, name)


def test_without_the_middleware_the_error_names_it() -> None:
    app = FastAPI()

    @app.get("/me")
    async def me(user: CurrentUser) -> dict[str, Any]:
        return {}

    with TestClient(app) as client, pytest.raises(ConfigurationError, match="AuthMiddleware is not installed"):
        client.get("/me")


def test_require_user_with_depends_in_a_sync_route(local_service) -> None:
    app = FastAPI()
    app.add_middleware(AuthMiddleware, config=local_service.config)

    @app.get("/me")
    def me(user: AuthUser = Depends(require_user)) -> dict[str, Any]:  # noqa: B008 - the README's style
        return {"id": user.id}

    s = local_service.sign_up()
    with TestClient(app) as client:
        cookie = cookie_header(local_service.project_id, s.refresh_token, s.access_token)
        assert client.get("/me", headers={"cookie": cookie}).json() == {"id": s.user_id}
        r = client.get("/me")
        assert r.status_code == 401
        assert r.json() == {
            "code": "USER_AUTHENTICATION_REQUIRED",
            "error": "User authentication required for this endpoint.",
        }


class NotTheUser(KnownError):
    code = "TEST_NOT_THE_USER"
    status = 403
    message_template = "Not you."


def test_guard_checks_slot_in(local_service) -> None:
    allowed: set[str] = set()

    async def listed(user: AuthUser, conn: Any) -> None:
        if user.id not in allowed:
            raise Refusal.of(NotTheUser())

    app = FastAPI()
    install(app, local_service.config)

    @app.get("/listed")
    async def only_listed(user: AuthUser = Depends(Guard(listed))) -> dict[str, Any]:  # noqa: B008
        return {"id": user.id}

    s = local_service.sign_up()
    cookie = cookie_header(local_service.project_id, s.refresh_token, s.access_token)
    with TestClient(app) as client:
        r = client.get("/listed", headers={"cookie": cookie})
        assert r.status_code == 403
        assert r.json() == {"code": "TEST_NOT_THE_USER", "error": "Not you."}
        assert r.headers["x-stack-known-error"] == "TEST_NOT_THE_USER"
        assert client.get("/listed").json()["code"] == "USER_AUTHENTICATION_REQUIRED"
        allowed.add(s.user_id)
        assert client.get("/listed", headers={"cookie": cookie}).json() == {"id": s.user_id}


def test_current_user_reads_the_scope(local_service) -> None:
    class Conn:
        scope: ClassVar[dict[str, Any]] = {"user": "someone else's user object"}

    with pytest.raises(ConfigurationError):
        current_user(Conn())  # type: ignore[arg-type]


def test_a_refused_signed_in_user_still_gets_the_refreshed_cookies(short_service, expiring) -> None:
    async def nobody(user: AuthUser, conn: Any) -> None:
        raise Refusal.of(NotTheUser())

    app = FastAPI()
    install(app, short_service.config)

    @app.get("/nobody")
    async def only_nobody(user: AuthUser = Depends(Guard(nobody))) -> dict[str, Any]:  # noqa: B008
        return {}

    s = expiring
    with TestClient(app) as client:
        r = client.get(
            "/nobody", headers={"cookie": cookie_header(short_service.project_id, s.refresh_token, s.access_token)}
        )
    assert r.status_code == 403
    assert "stack-access=" in r.headers["set-cookie"]


def test_pages_send_anonymous_visitors_to_sign_in_and_back(local_service) -> None:
    app = FastAPI()
    install(app, local_service.config.with_(handler_path="/auth"))
    either = Guard(api=None)

    @app.get("/page")
    async def page(user: PageUser) -> dict[str, Any]:
        return {"id": user.id}

    @app.get("/{path:path}")
    async def anything(path: str, user: AuthUser = Depends(either)) -> dict[str, Any]:  # noqa: B008
        return {"id": user.id}

    with TestClient(app, follow_redirects=False) as client:
        r = client.get("/page?x=1")
        assert r.status_code == 303
        assert r.headers["location"] == "/auth/sign-in?after_auth_return_to=%2Fpage%3Fx%3D1"
        # a path whose decoded form would resolve to //evil.example comes back as the path it is
        hostile = client.get("/%2e%2f%2fevil.example", headers={"accept": "text/html"})
        assert hostile.headers["location"] == "/auth/sign-in?after_auth_return_to=%2F%252e%252f%252fevil.example"
        for path in ("/.//evil.example", "/a/..//evil.example"):
            r = client.get(path, headers={"accept": "text/html"})
            assert r.headers["location"] in ("/auth/sign-in", "/auth/sign-in?after_auth_return_to=%2F"), path
        html = {"accept": "text/html,application/xhtml+xml"}
        assert client.get("/other", headers=html).status_code == 303
        assert client.get("/other", headers={"accept": "application/json"}).status_code == 401
        assert client.get("/api/other", headers=html).status_code == 401
        s = local_service.sign_up()
        cookie = {"cookie": cookie_header(local_service.project_id, s.refresh_token, s.access_token)}
        assert client.get("/page", headers=cookie).json() == {"id": s.user_id}
