"""ES256 signing keys, JWKS and JWTs.

API 2.7: one key per project plus the legacy global key. API 2.8 (service-api B3.3): two keys
per audience (`{projectId}`, `{projectId}:restricted`, `{projectId}:anon`); the first signs, the
second is only published. The first key of the plain project audience is the 2.7 project key,
so normal users' tokens keep their `kid` across the switch.

Keys are generated once and kept in the database, so tokens stay verifiable across restarts.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from .db import Database
from .ids import now_millis

GLOBAL_SCOPE = "$global"
#: The audience suffixes of the token kinds (authmw/token_kinds.json).
AUDIENCE_SUFFIXES = ("", ":restricted", ":anon")


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@dataclass(frozen=True)
class SigningKey:
    kid: str
    private_key: ec.EllipticCurvePrivateKey

    @property
    def public_key(self) -> ec.EllipticCurvePublicKey:
        return self.private_key.public_key()

    def jwk(self) -> dict[str, str]:
        numbers = self.public_key.public_numbers()
        return {
            "kty": "EC",
            "alg": "ES256",
            "crv": "P-256",
            "x": _b64url(numbers.x.to_bytes(32, "big")),
            "y": _b64url(numbers.y.to_bytes(32, "big")),
            "kid": self.kid,
        }

    def sign(self, claims: dict[str, Any], *, with_kid: bool = True) -> str:
        headers = {"kid": self.kid} if with_kid else {}
        # pyjwt adds "typ": "JWT" unless told otherwise; the service's tokens carry none.
        return jwt.encode(claims, self.private_key, algorithm="ES256", headers={**headers, "typ": None})


def _new_key() -> SigningKey:
    private_key = ec.generate_private_key(ec.SECP256R1())
    der = private_key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return SigningKey(kid=_b64url(hashlib.sha256(der).digest())[:12], private_key=private_key)


class KeyStore:
    def __init__(self, db: Database) -> None:
        self._db = db
        self._cache: dict[str, SigningKey] = {}

    def for_project(self, project_id: str) -> SigningKey:
        return self._get(f"project:{project_id}")

    def for_audience(self, audience: str) -> tuple[SigningKey, SigningKey]:
        """The signing key and the second (published, never signing) key of a 2.8 audience."""
        return self._get(f"project:{audience}"), self._get(f"project-second:{audience}")

    def global_key(self) -> SigningKey:
        return self._get(GLOBAL_SCOPE)

    def _get(self, scope: str) -> SigningKey:
        # The database lock, not a second one: requests already hold it when they sign tokens.
        with self._db.lock:
            key = self._cache.get(scope)
            if key is None:
                key = self._load_or_create(scope)
                self._cache[scope] = key
            return key

    def _load_or_create(self, scope: str) -> SigningKey:
        with self._db.tx() as c:
            row = c.execute("SELECT kid, private_key_pem FROM signing_keys WHERE scope = ?", (scope,)).fetchone()
            if row is not None:
                private_key = serialization.load_pem_private_key(row["private_key_pem"].encode(), None)
                assert isinstance(private_key, ec.EllipticCurvePrivateKey)
                return SigningKey(kid=row["kid"], private_key=private_key)
            key = _new_key()
            pem = key.private_key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            ).decode()
            c.execute(
                "INSERT INTO signing_keys (scope, kid, private_key_pem, created_at_millis) VALUES (?, ?, ?, ?)",
                (scope, key.kid, pem, now_millis()),
            )
            return key

    def forget(self, project_id: str) -> None:
        """Drop every key of a project (all audiences)."""
        audiences = [project_id + suffix for suffix in AUDIENCE_SUFFIXES]
        scopes = [f"{prefix}:{aud}" for aud in audiences for prefix in ("project", "project-second")]
        with self._db.tx() as c:
            for scope in scopes:
                self._cache.pop(scope, None)
                c.execute("DELETE FROM signing_keys WHERE scope = ?", (scope,))
