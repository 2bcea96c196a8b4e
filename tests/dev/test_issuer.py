"""The 2.8 token issuer is the service's public URL: with `--host 0.0.0.0` it names localhost,
never 0.0.0.0, and a configured public URL keeps it (and the tokens) the same across restarts
on other ports."""

from __future__ import annotations

from pathlib import Path

import httpx
import jwt

from authmw.dev import LocalService


def issuer_of(service: LocalService) -> str:
    """The issuer of a new access token, asked for at the port the service listens on."""
    keys = service.bootstrap.project
    response = httpx.post(
        f"http://127.0.0.1:{service.port}/api/v1/auth/anonymous/sign-up",
        headers={
            "x-stack-project-id": keys.project_id,
            "x-stack-access-type": "client",
            "x-stack-publishable-client-key": keys.publishable_client_key,
        },
        json={},
    )
    assert response.status_code == 200, response.text
    issuer: str = jwt.decode(response.json()["access_token"], options={"verify_signature": False})["iss"]
    return issuer


def test_every_address_is_served_as_localhost(tmp_path: Path) -> None:
    with LocalService(tmp_path, host="0.0.0.0", port=0, quiet=True, api="2.8") as service:
        assert service.url == f"http://localhost:{service.port}"
        issuer = issuer_of(service)
    assert "0.0.0.0" not in issuer and issuer.startswith(f"http://localhost:{service.port}/api/v1/")


def test_a_public_url_keeps_the_issuer_across_ports(tmp_path: Path) -> None:
    issuers = []
    for _ in range(2):  # two starts of one data folder, each on a free port of its own
        with LocalService(tmp_path, port=0, quiet=True, api="2.8", public_url="http://auth.localhost:8102") as service:
            issuers.append(issuer_of(service))
    assert issuers[0] == issuers[1] and issuers[0].startswith("http://auth.localhost:8102/api/v1/projects")
