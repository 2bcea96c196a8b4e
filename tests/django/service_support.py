"""Helpers over the local service shared by the Django and Flask suites (the Flask
conftest loads this file by path): teams made over the server API, and sessions whose
access token has already expired (re-signed with the service's key: no waiting).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest

from authmw import AuthConfig, ClientApp

#: Calls the team guards make, and calls the tests need to set up teams.
NEEDED = (
    "GET /teams?user_id=",
    "GET /team-permissions",
    "POST /teams",
    "POST /team-memberships/{team_id}/{user_id}",
    "POST /team-permissions/{team_id}/{user_id}/{permission_id}",
)


class Teams:
    def __init__(self, service: Any) -> None:
        config = service.config
        self.base = f"{config.api_url}/api/v1"
        self.headers = {
            "x-stack-project-id": config.project_id,
            "x-stack-access-type": "server",
            "x-stack-secret-server-key": config.secret_server_key or "",
            "content-type": "application/json",
        }

    def _call(self, method: str, path: str, json: Any = None) -> httpx.Response:
        return httpx.request(method, self.base + path, headers=self.headers, json=json if json is not None else {})

    def available(self) -> bool:
        """Whether the service has team endpoints (an unknown route is a plain-text 404)."""
        r = httpx.get(f"{self.base}/teams", headers=self.headers, params={"user_id": str(uuid.uuid4())})
        return not (r.status_code == 404 and not r.headers.get("content-type", "").startswith("application/json"))

    def create(self) -> str:
        r = self._call("POST", "/teams", {"display_name": f"team {uuid.uuid4().hex[:8]}"})
        assert r.status_code == 201, r.text
        return r.json()["id"]  # type: ignore[no-any-return]

    def add_member(self, team_id: str, user_id: str) -> None:
        r = self._call("POST", f"/team-memberships/{team_id}/{user_id}")
        assert r.status_code == 201, r.text

    def grant(self, team_id: str, user_id: str, permission_id: str) -> None:
        r = self._call("POST", f"/team-permissions/{team_id}/{user_id}/{permission_id}")
        assert r.status_code == 201, r.text


_available: dict[str, bool] = {}


def teams_or_fail(service: Any) -> Teams:
    """The helper; a local service without the team endpoints fails the test, naming them."""
    teams = Teams(service)
    if service.url not in _available:
        _available[service.url] = teams.available()
    if not _available[service.url]:
        pytest.fail("the local service has no team endpoints; team guards need: " + ", ".join(NEEDED))
    return teams


@dataclass(frozen=True)
class BriefService:
    """A local service that hands out sessions whose access token has already expired."""

    url: str
    config: AuthConfig
    service: Any  # the LocalService, whose key re-signs the tokens

    @property
    def project_id(self) -> str:
        return self.config.project_id

    def expired_session(self) -> tuple[str, str, str]:
        """(user id, refresh token, access token) with the access token 5 s past its expiry."""
        with ClientApp(self.config) as app:
            result = app.sign_up_with_password(f"user-{uuid.uuid4().hex[:12]}@example.com", "correct horse battery")
        claims = jwt.decode(result.access_token, options={"verify_signature": False})
        claims["exp"] = int(time.time()) - 5
        claims["iat"] = claims["exp"] - 600
        keys = self.service.app.state.service.keys
        return result.user_id, result.refresh_token, keys.for_project(self.project_id).sign(claims)


def brief_service(data_dir: Path) -> Iterator[BriefService]:
    from authmw.dev import LocalService

    service = LocalService(data_dir, port=0, quiet=True).start()
    try:
        yield BriefService(service.url, AuthConfig.from_env_file(service.env_file, api_url=service.url), service)
    finally:
        service.stop()
