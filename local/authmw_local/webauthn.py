"""Passkey checks (service-api A5.4.4, A7.6): the service's origin rules, then py_webauthn verifies
the ceremony (client data, authenticator data, attestation, signature, sign count)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import webauthn
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
from webauthn.helpers.exceptions import InvalidAuthenticationResponse, WebAuthnException

from .api_version import current_api
from .projects import Project
from .urls import trusted_redirect_2_8

RP_PLACEHOLDER = "THIS_VALUE_WILL_BE_REPLACED.example.com"
b64url = bytes_to_base64url


class WebAuthnError(ValueError):
    """Carries the reason of PASSKEY_REGISTRATION_FAILED / PASSKEY_AUTHENTICATION_FAILED."""


class OriginNotAllowed(WebAuthnError):
    """The browser origin is not one this project trusts (PASSKEY_AUTHENTICATION_FAILED either way)."""


class SignatureNotVerified(WebAuthnError):
    """The assertion's signature does not verify with the stored key: the whole message of
    PASSKEY_AUTHENTICATION_FAILED, in the backend's words (2.7.16 and 2.8.86 alike)."""

    def __init__(self) -> None:
        super().__init__(
            "The signature of the authentication response could not be verified with the stored public key"
            " tied to this credential ID"
        )


@dataclass(frozen=True)
class Registered:
    credential_id: str  # base64url
    public_key: bytes  # COSE key as the authenticator sent it
    sign_count: int
    rp_id: str


def _origin_and_rp_id(project: Project, credential: Any) -> tuple[str, str]:
    """The credential's browser origin and the RP id it must be for: 2.7 by the rules of A7.6
    (localhost, or a trusted domain exactly); 2.8 by its redirect-URL trust rule, wildcard
    domains included (urls.trusted_redirect_2_8), the RP id being the origin's host."""
    try:
        data = json.loads(base64url_to_bytes(credential["response"]["clientDataJSON"]))
        origin = str(data["origin"])
    except (KeyError, TypeError, ValueError, RecursionError):
        raise WebAuthnError("the client data is malformed") from None
    try:
        host = urlsplit(origin).hostname or ""
    except ValueError:  # not a URL at all ("http://[::1"): no origin anyone trusts
        raise OriginNotAllowed("the origin is not allowed") from None
    if current_api().oauth_28:
        config = project.config
        if trusted_redirect_2_8(origin, config["domains"], allow_localhost=bool(config["allow_localhost"])):
            return origin, host
        raise OriginNotAllowed("the origin is not allowed")
    if host == "localhost":
        if not project.config["allow_localhost"]:
            raise OriginNotAllowed("localhost is not allowed")
        return origin, "localhost"
    if any(domain["domain"].rstrip("/") == origin for domain in project.config["domains"]):
        return origin, host
    raise OriginNotAllowed("the origin is not allowed")


def verify_registration(project: Project, credential: Any, challenge: str) -> Registered:
    origin, rp_id = _origin_and_rp_id(project, credential)
    try:
        verified = webauthn.verify_registration_response(
            credential=credential,
            expected_challenge=base64url_to_bytes(challenge),
            expected_rp_id=rp_id,
            expected_origin=origin,
            require_user_verification=False,  # "preferred" in the options, not required (7.6)
        )
    except (WebAuthnException, KeyError, TypeError, ValueError) as error:
        raise WebAuthnError(str(error) or "the registration response is invalid") from None
    return Registered(b64url(verified.credential_id), verified.credential_public_key, verified.sign_count, rp_id)


def verify_authentication(project: Project, credential: Any, challenge: str, public_key: bytes, sign_count: int) -> int:
    """Check a sign-in ceremony against the stored key; returns the authenticator's new sign count."""
    origin, rp_id = _origin_and_rp_id(project, credential)
    try:
        verified = webauthn.verify_authentication_response(
            credential=credential,
            expected_challenge=base64url_to_bytes(challenge),
            expected_rp_id=rp_id,
            expected_origin=origin,
            credential_public_key=public_key,
            credential_current_sign_count=sign_count,
            require_user_verification=False,
        )
    except InvalidAuthenticationResponse as error:
        if "signature" in str(error).lower():
            raise SignatureNotVerified() from None
        raise WebAuthnError(_reason(str(error))) from None
    except (WebAuthnException, KeyError, TypeError, ValueError):
        raise WebAuthnError("the authentication response is malformed") from None
    return verified.new_sign_count


def _reason(library_text: str) -> str:
    """py_webauthn's message as the end of "Passkey authentication failed because ..."."""
    lowered = library_text.lower()
    if "sign count" in lowered:
        return "the sign count did not increase (the authenticator may have been cloned)"
    return library_text[:1].lower() + library_text[1:]
