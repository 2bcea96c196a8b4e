"""Second factor of a sign-in: POST /auth/mfa/sign-in (contract 5.4.3, 6.8)."""

from __future__ import annotations

import base64
import binascii
from datetime import datetime, timezone
from typing import Any

import pyotp

from .. import clock
from ..endpoint import ANY, EndpointGroup, RequestContext
from ..errors import CatalogueError
from ..schema import Obj, Str
from ..sign_in import MFA_ATTEMPT
from ..users import get_user
from ..verification import CODE_LENGTH, find_code

group = EndpointGroup()


@group.post(
    "/auth/mfa/sign-in",
    tiers=ANY,
    body=Obj(
        {
            "code": Str(required=True, min_length=CODE_LENGTH, max_length=CODE_LENGTH),
            "type": Str(required=True, one_of=("totp",)),
            "totp": Str(required=True),
        },
        required=True,
    ),
)
def mfa_sign_in(ctx: RequestContext) -> dict[str, Any]:
    found = find_code(ctx, MFA_ATTEMPT, ctx.body["code"])
    user = get_user(ctx.sql, ctx.project.id, found.data["user_id"])
    secret = None if user is None else user["totp_secret_base64"]
    if user is None or secret is None or not totp_matches(secret, ctx.body["totp"]):
        raise CatalogueError("INVALID_TOTP_CODE")  # the attempt code stays usable
    found.consume()
    session = ctx.service.new_session(ctx.sql, ctx.project.id, user["id"])
    return {**session, "is_new_user": bool(found.data.get("is_new_user")), "user_id": user["id"]}


def totp_matches(secret_base64: str, submitted: str) -> bool:
    """RFC 6238 (HMAC-SHA-1, 6 digits, 30 s) at the service clock's time; only the current step counts (6.8)."""
    try:
        secret = base64.b64decode(secret_base64, validate=True)
    except (binascii.Error, ValueError):
        return False
    at = datetime.fromtimestamp(clock.now(), tz=timezone.utc)
    return pyotp.TOTP(base64.b32encode(secret).decode()).verify(submitted, for_time=at, valid_window=0)


routes = group.routes
