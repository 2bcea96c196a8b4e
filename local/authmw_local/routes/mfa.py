"""Second factor of a sign-in: POST /auth/mfa/sign-in (service-api A5.4.3, A6.8)."""

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
    step = matching_step(secret, ctx.body["totp"]) if secret is not None else None
    if user is None or step is None or _used_already(user, step):
        raise CatalogueError("INVALID_TOTP_CODE")  # the attempt code stays usable
    # RFC 6238 section 5.2: a code finishes one sign-in only; this step is spent for the user.
    ctx.sql.execute(
        "UPDATE users SET totp_last_used_step = ? WHERE project_id = ? AND id = ?", (step, ctx.project.id, user["id"])
    )
    found.consume()
    session = ctx.service.new_session(ctx.sql, ctx.project.id, user["id"])
    return {**session, "is_new_user": bool(found.data.get("is_new_user")), "user_id": user["id"]}


def _used_already(user: Any, step: int) -> bool:
    """This step, or a later one, already finished a sign-in of the user (the clock went back)."""
    last = user["totp_last_used_step"]
    return last is not None and step <= last


def matching_step(secret_base64: str, submitted: str) -> int | None:
    """The RFC 6238 time step (HMAC-SHA-1, 6 digits, 30 s) at the service clock's time when
    `submitted` is its code, else None; only the current step counts (6.8)."""
    try:
        secret = base64.b64decode(secret_base64, validate=True)
    except (binascii.Error, ValueError):
        return None
    totp = pyotp.TOTP(base64.b32encode(secret).decode())
    at = datetime.fromtimestamp(clock.now(), tz=timezone.utc)
    if not totp.verify(submitted, for_time=at, valid_window=0):
        return None
    return totp.timecode(at)


routes = group.routes
