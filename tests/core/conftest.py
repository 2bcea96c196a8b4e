from __future__ import annotations

import base64
import json
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from authmw import AuthConfig
from authmw._ops import AsyncDriver, SyncDriver
from authmw._tokens import ACCESS_TOKEN_ISSUER

# tests/faultserver.py is a standalone script; make it importable.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unsigned_token(payload: Any, header: Any = None) -> str:
    """A JWT-shaped string with arbitrary JSON parts and a junk signature."""
    header = {"alg": "ES256", "kid": "k"} if header is None else header
    return ".".join([b64url(json.dumps(header).encode()), b64url(json.dumps(payload).encode()), "c2ln"])


@dataclass
class SigningKey:
    """An ES256 key pair as the service would hold it for one project."""

    kid: str = "testkid00001"
    private: ec.EllipticCurvePrivateKey = field(default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))

    def jwk(self) -> dict[str, Any]:
        data = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(self.private.public_key()))
        return {**data, "kid": self.kid, "alg": "ES256"}

    def jwks(self) -> dict[str, Any]:
        return {"keys": [self.jwk()]}

    def sign(self, claims: dict[str, Any], headers: dict[str, Any] | None = None) -> str:
        # PyJWS, not jwt.encode: tests need claims of the wrong type too.
        payload = json.dumps(claims).encode()
        return jwt.PyJWS().encode(
            payload, self.private, algorithm="ES256", headers={"kid": self.kid, **(headers or {})}
        )


@pytest.fixture
def project_id() -> str:
    return str(uuid.uuid4())


@pytest.fixture
def config(project_id: str) -> AuthConfig:
    return AuthConfig(
        project_id=project_id,
        api_url="http://auth.test",
        publishable_client_key="pck_" + "a" * 45,
        secret_server_key="ssk_" + "b" * 45,
        super_secret_admin_key="sak_" + "c" * 45,
    )


@pytest.fixture
def key() -> SigningKey:
    return SigningKey()


@pytest.fixture
def mint(key: SigningKey, project_id: str) -> Callable[..., str]:
    """mint(**claim_overrides) -> a valid access token of the project, 10 minutes left."""

    def mint(*, signer: SigningKey | None = None, headers: dict[str, Any] | None = None, **overrides: Any) -> str:
        now = int(time.time())
        claims: dict[str, Any] = {
            "sub": str(uuid.uuid4()),
            "aud": project_id,
            "iss": ACCESS_TOKEN_ISSUER,
            "iat": now,
            "exp": now + 600,
            "branchId": "main",
        }
        claims.update(overrides)
        claims = {k: v for k, v in claims.items() if v is not None}
        return (signer or key).sign(claims, headers)

    return mint


class Recorder:
    """A driver-level fake of the network: answers Send effects from a handler, records them."""

    def __init__(self, handler: Callable[[httpx.Request], httpx.Response]) -> None:
        self.handler = handler
        self.requests: list[httpx.Request] = []
        self.sleeps: list[float] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.handler(request)

    def sync_driver(self) -> SyncDriver:
        return SyncDriver(httpx.Client(transport=httpx.MockTransport(self)), sleep=self.sleeps.append)

    def async_driver(self) -> AsyncDriver:
        async def sleep(seconds: float) -> None:
            self.sleeps.append(seconds)

        async def handle(request: httpx.Request) -> httpx.Response:
            return self(request)

        return AsyncDriver(httpx.AsyncClient(transport=httpx.MockTransport(handle)), sleep=sleep)


@pytest.fixture
def jwks_server(key: SigningKey) -> Recorder:
    """Answers the project JWKS with the test key."""
    return Recorder(lambda request: httpx.Response(200, json=key.jwks()))


def known_error(
    request: httpx.Request, code: str, status: int, message: str = "", details: Any = None
) -> httpx.Response:
    """A known-error answer as the service sends it (override-error-status honoured)."""
    body: dict[str, Any] = {"code": code, "error": message or code}
    if details is not None:
        body["details"] = details
    headers = {"x-stack-known-error": code}
    if "x-stack-override-error-status" in request.headers:
        headers["x-stack-actual-status"] = str(status)
        status = 200
    return httpx.Response(status, json=body, headers=headers)
