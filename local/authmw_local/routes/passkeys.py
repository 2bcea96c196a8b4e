"""Passkeys: registration and sign-in (service-api A5.4.4, A6.7, A7.6)."""

from __future__ import annotations

import secrets
from typing import Any

from ..endpoint import ANY, USER_IN_SCHEMA, EndpointGroup, RequestContext
from ..errors import CatalogueError
from ..ids import now_millis
from ..schema import Json, Obj, Str
from ..sign_in import finish_sign_in
from ..users import get_user, primary_email_channel
from ..verification import CHALLENGE_LIFETIME_MILLIS, CODE_LENGTH, create_code, find_code
from ..webauthn import (
    RP_PLACEHOLDER,
    OriginNotAllowed,
    SignatureNotVerified,
    WebAuthnError,
    b64url,
    verify_authentication,
    verify_registration,
)

REGISTRATION = "passkey_registration_challenge"
AUTHENTICATION = "passkey_authentication_challenge"

group = EndpointGroup()
CODE = Str(required=True, min_length=CODE_LENGTH, max_length=CODE_LENGTH)


def _require_enabled(ctx: RequestContext) -> None:
    if not ctx.project.config["passkey_enabled"]:
        raise CatalogueError("PASSKEY_AUTHENTICATION_NOT_ENABLED")


#: The challenge of every ceremony when the service runs with `fixed_passkey_challenge` (testing
#: only): the bytes of "MOCK", as the real backend's with its test switch on, so a recorded
#: ceremony (Stack's suite replays one) verifies.
FIXED_CHALLENGE = b"MOCK"


def _challenge(ctx: RequestContext, code_type: str, data: dict[str, Any]) -> tuple[str, str]:
    raw = FIXED_CHALLENGE if ctx.service.fixed_passkey_challenge else secrets.token_bytes(32)
    challenge = b64url(raw)
    code = create_code(ctx.sql, ctx.project.id, code_type, {**data, "challenge": challenge}, CHALLENGE_LIFETIME_MILLIS)
    return challenge, code


@group.post("/auth/passkey/initiate-passkey-registration", tiers=ANY, needs_user=USER_IN_SCHEMA, body=Json())
def initiate_registration(ctx: RequestContext) -> dict[str, Any]:
    _require_enabled(ctx)
    user = ctx.signed_in_user
    challenge, code = _challenge(ctx, REGISTRATION, {"user_id": user["id"]})
    channel = primary_email_channel(ctx.sql, ctx.project.id, user["id"])
    name = user["display_name"] or (channel["value"] if channel else None) or "Stack Auth User"
    options = {
        "challenge": challenge,
        "rp": {"name": ctx.project.display_name, "id": RP_PLACEHOLDER},
        "user": {"id": b64url(user["id"].encode()), "name": name, "displayName": name},
        "pubKeyCredParams": [
            {"alg": -8, "type": "public-key"},
            {"alg": -7, "type": "public-key"},
            {"alg": -257, "type": "public-key"},
        ],
        "timeout": 60000,
        "attestation": "none",
        "excludeCredentials": [],
        "authenticatorSelection": {
            "residentKey": "required",
            "userVerification": "preferred",
            "requireResidentKey": True,
        },
        "extensions": {"credProps": True},
    }
    return {"options_json": options, "code": code}


@group.post(
    "/auth/passkey/register",
    tiers=ANY,
    needs_user=USER_IN_SCHEMA,
    body=Obj({"credential": Json(required=True), "code": CODE}, required=True),
)
def register(ctx: RequestContext) -> dict[str, Any]:
    found = find_code(ctx, REGISTRATION, ctx.body["code"])
    found.consume()
    _require_enabled(ctx)
    try:
        passkey = verify_registration(ctx.project, ctx.body["credential"], found.data["challenge"])
    except OriginNotAllowed as error:
        message = f"Passkey registration failed because {error}"
        raise CatalogueError(ctx.api.passkey_origin_error, message=message) from None
    except WebAuthnError:
        raise _registration_failed() from None
    user_id = ctx.signed_in_user["id"]
    # A credential id names one passkey of the project: another user's is never replaced.
    holder = ctx.sql.execute(
        "SELECT user_id FROM passkeys WHERE project_id = ? AND credential_id = ?",
        (ctx.project.id, passkey.credential_id),
    ).fetchone()
    if holder is not None and holder["user_id"] != user_id:
        raise CatalogueError(
            "PASSKEY_REGISTRATION_FAILED",
            message="Passkey registration failed because this passkey is already registered to another account",
        )
    # One passkey per user: registering again replaces it (service-api A5.4.4, A7.6).
    ctx.sql.execute("DELETE FROM passkeys WHERE project_id = ? AND user_id = ?", (ctx.project.id, user_id))
    ctx.sql.execute(
        "INSERT INTO passkeys (user_id, project_id, credential_id, public_key, sign_count, rp_id, created_at_millis)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            user_id,
            ctx.project.id,
            passkey.credential_id,
            passkey.public_key,
            passkey.sign_count,
            passkey.rp_id,
            now_millis(),
        ),
    )
    return {"user_handle": passkey.credential_id}


def _registration_failed() -> CatalogueError:
    return CatalogueError(
        "PASSKEY_REGISTRATION_FAILED",
        message="Passkey registration failed because the verification response is invalid",
    )


@group.post("/auth/passkey/initiate-passkey-authentication", tiers=ANY, body=Json())
def initiate_authentication(ctx: RequestContext) -> dict[str, Any]:
    _require_enabled(ctx)
    challenge, code = _challenge(ctx, AUTHENTICATION, {})
    options = {
        "challenge": challenge,
        "timeout": 60000,
        "rpId": RP_PLACEHOLDER,
        "allowCredentials": [],
        "userVerification": "preferred",
    }
    return {"options_json": options, "code": code}


@group.post(
    "/auth/passkey/sign-in",
    tiers=ANY,
    body=Obj({"authentication_response": Json(required=True), "code": CODE}, required=True),
)
def sign_in(ctx: RequestContext) -> dict[str, Any]:
    found = find_code(ctx, AUTHENTICATION, ctx.body["code"])
    found.consume()
    _require_enabled(ctx)
    answer = ctx.body["authentication_response"]
    credential_id = answer.get("id") if isinstance(answer, dict) else None
    passkey = ctx.sql.execute(
        "SELECT * FROM passkeys WHERE project_id = ? AND credential_id = ?", (ctx.project.id, str(credential_id))
    ).fetchone()
    if passkey is None:
        raise CatalogueError("PASSKEY_AUTHENTICATION_FAILED", message="Passkey not found")
    try:
        sign_count = verify_authentication(
            ctx.project, answer, found.data["challenge"], passkey["public_key"], passkey["sign_count"]
        )
    except SignatureNotVerified as error:
        raise CatalogueError("PASSKEY_AUTHENTICATION_FAILED", message=str(error)) from None
    except WebAuthnError as error:
        raise CatalogueError(
            "PASSKEY_AUTHENTICATION_FAILED", message=f"Passkey authentication failed because {error}"
        ) from None
    ctx.sql.execute(
        "UPDATE passkeys SET sign_count = ? WHERE project_id = ? AND credential_id = ?",
        (sign_count, ctx.project.id, passkey["credential_id"]),
    )
    user = get_user(ctx.sql, ctx.project.id, passkey["user_id"])
    assert user is not None
    return finish_sign_in(ctx, user, is_new_user=False)


routes = group.routes
