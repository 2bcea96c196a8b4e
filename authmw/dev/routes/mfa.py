"""Second factor of a sign-in: POST /auth/mfa/sign-in (contract 5.4.3, 6.8)."""

from __future__ import annotations

from typing import Any

from ..endpoint import ANY, Ctx, EndpointGroup
from ..errors import KnownError
from ..schema import Obj, Str
from ..sign_in import MFA_ATTEMPT
from ..totp import verify_totp
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
def mfa_sign_in(ctx: Ctx) -> dict[str, Any]:
    found = find_code(ctx, MFA_ATTEMPT, ctx.body["code"])
    user = get_user(ctx.c, ctx.project.id, found.data["user_id"])
    secret = None if user is None else user["totp_secret_base64"]
    if user is None or secret is None or not verify_totp(secret, ctx.body["totp"]):
        raise KnownError("INVALID_TOTP_CODE")  # the attempt code stays usable
    found.consume()
    session = ctx.service.new_session(ctx.c, ctx.project.id, user["id"])
    return {**session, "is_new_user": bool(found.data.get("is_new_user")), "user_id": user["id"]}


routes = group.routes
