"""authmw_fastapi: dependencies and guards."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import Depends, FastAPI
from fastapi.testclient import TestClient

import authmw_fastapi
from authmw.errors import ConfigurationError, KnownError
from authmw.middleware import AuthMiddleware, AuthUser
from authmw_fastapi import CurrentUser, Guard, GuardError, current_user, install, require_user

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
    def me(user: AuthUser = Depends(require_user)) -> dict[str, Any]:
        return {"id": user.id}

    s = local_service.sign_up()
    with TestClient(app) as client:
        cookie = cookie_header(local_service.project_id, s.refresh_token, s.access_token)
        assert client.get("/me", headers={"cookie": cookie}).json() == {"id": s.user_id}
        # Without install() the guard still answers 401, in FastAPI's own shape.
        assert client.get("/me").status_code == 401


class NotTheUser(KnownError):
    code = "TEST_NOT_THE_USER"
    status = 403
    message_template = "Not you."


def test_guard_checks_slot_in(local_service) -> None:
    allowed: set[str] = set()

    async def listed(user: AuthUser, conn: Any) -> None:
        if user.id not in allowed:
            raise GuardError(NotTheUser())

    app = FastAPI()
    install(app, local_service.config)

    @app.get("/listed")
    async def only_listed(user: AuthUser = Depends(Guard(listed))) -> dict[str, Any]:
        return {"id": user.id}

    s = local_service.sign_up()
    cookie = cookie_header(local_service.project_id, s.refresh_token, s.access_token)
    with TestClient(app) as client:
        r = client.get("/listed", headers={"cookie": cookie})
        assert r.status_code == 403
        assert r.json() == {"code": "TEST_NOT_THE_USER", "error": "Not you."}
        assert client.get("/listed").json()["code"] == "USER_AUTHENTICATION_REQUIRED"
        allowed.add(s.user_id)
        assert client.get("/listed", headers={"cookie": cookie}).json() == {"id": s.user_id}


def test_current_user_reads_the_scope(local_service) -> None:
    class Conn:
        scope: dict[str, Any] = {}

    with pytest.raises(ConfigurationError):
        current_user(Conn())  # type: ignore[arg-type]
