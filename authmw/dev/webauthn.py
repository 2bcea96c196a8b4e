"""Just enough WebAuthn for passkeys (contract 5.4.4, 7.6): parse, check origin, verify signatures."""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa

from . import cbor
from .projects import Project

RP_PLACEHOLDER = "THIS_VALUE_WILL_BE_REPLACED.example.com"


class WebAuthnError(ValueError):
    """Carries the text of PASSKEY_REGISTRATION_FAILED / PASSKEY_AUTHENTICATION_FAILED."""


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def client_data(encoded: str, expected_type: str, challenge: str) -> dict[str, Any]:
    try:
        data = json.loads(b64url_decode(encoded))
    except ValueError:
        raise WebAuthnError("the client data is not valid JSON") from None
    if data.get("type") != expected_type:
        raise WebAuthnError(f"the client data type is not {expected_type}")
    if data.get("challenge") != challenge:
        raise WebAuthnError("the challenge does not match")
    return data


def expected_rp_id(project: Project, origin: str) -> str:
    """The RP id for a browser origin, or WebAuthnError when the origin is not allowed (7.6)."""
    parts = urlsplit(origin)
    host = parts.hostname or ""
    if host == "localhost":
        if not project.config["allow_localhost"]:
            raise WebAuthnError("localhost is not allowed")
        return "localhost"
    for domain in project.config["domains"]:
        if domain["domain"].rstrip("/") == origin:
            return host
    raise WebAuthnError("the origin is not allowed")


@dataclass(frozen=True)
class AuthenticatorData:
    rp_id_hash: bytes
    flags: int
    sign_count: int
    credential_id: bytes | None = None
    public_key: bytes | None = None  # the COSE key, CBOR-encoded as the authenticator sent it
    raw: bytes = b""

    @classmethod
    def parse(cls, raw: bytes, *, with_credential: bool) -> AuthenticatorData:
        if len(raw) < 37:
            raise WebAuthnError("the authenticator data is too short")
        flags = raw[32]
        sign_count = int.from_bytes(raw[33:37], "big")
        if not with_credential:
            return cls(raw[:32], flags, sign_count, raw=raw)
        if not flags & 0x40 or len(raw) < 55:
            raise WebAuthnError("the authenticator data has no credential")
        id_length = int.from_bytes(raw[53:55], "big")
        credential_id = raw[55 : 55 + id_length]
        start = 55 + id_length
        try:
            _, end = cbor.decode_prefix(raw, start)
        except cbor.CBORError as error:
            raise WebAuthnError(f"the credential public key is not valid CBOR ({error})") from None
        return cls(raw[:32], flags, sign_count, credential_id, raw[start:end], raw)

    def check(self, rp_id: str) -> None:
        if self.rp_id_hash != hashlib.sha256(rp_id.encode()).digest():
            raise WebAuthnError("the RP id does not match")
        if not self.flags & 0x01:
            raise WebAuthnError("the user was not present")


def attestation_auth_data(attestation_object: str) -> AuthenticatorData:
    try:
        attestation = cbor.decode(b64url_decode(attestation_object))
    except (cbor.CBORError, ValueError) as error:
        raise WebAuthnError(f"the attestation object is not valid CBOR ({error})") from None
    if not isinstance(attestation, dict) or not isinstance(attestation.get("authData"), bytes):
        raise WebAuthnError("the attestation object has no authenticator data")
    # Attestation statements are not verified: the options ask for "none".
    return AuthenticatorData.parse(attestation["authData"], with_credential=True)


def verify_signature(cose_key_cbor: bytes, signature: bytes, signed: bytes) -> None:
    """Verify with a COSE public key: ES256 (-7), EdDSA (-8) or RS256 (-257)."""
    try:
        cose_key = cbor.decode(cose_key_cbor)
        algorithm = cose_key.get(3)
        if algorithm == -7:
            x, y = cose_key[-2], cose_key[-3]
            key = ec.EllipticCurvePublicNumbers(
                int.from_bytes(x, "big"), int.from_bytes(y, "big"), ec.SECP256R1()
            ).public_key()
            key.verify(signature, signed, ec.ECDSA(hashes.SHA256()))
        elif algorithm == -8:
            ed25519.Ed25519PublicKey.from_public_bytes(cose_key[-2]).verify(signature, signed)
        elif algorithm == -257:
            numbers = rsa.RSAPublicNumbers(int.from_bytes(cose_key[-2], "big"), int.from_bytes(cose_key[-1], "big"))
            numbers.public_key().verify(signature, signed, padding.PKCS1v15(), hashes.SHA256())
        else:
            raise WebAuthnError(f"unsupported key algorithm {algorithm}")
    except InvalidSignature:
        raise WebAuthnError("the signature could not be verified") from None
    except WebAuthnError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError):
        raise WebAuthnError("the public key is malformed") from None
