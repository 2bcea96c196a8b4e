"""Contact channels: e-mail verification by code (contract 5.7, flow 6.4).

The channel CRUD routes belong here too when they are added.
"""

from __future__ import annotations

from ..emails import EMAIL_VERIFICATION
from ..endpoint import ANY, Ctx, EndpointGroup
from ..schema import Obj, Str
from ..verification import CODE_LENGTH, find_code

group = EndpointGroup()
CODE_BODY = Obj({"code": Str(required=True, min_length=CODE_LENGTH, max_length=CODE_LENGTH)}, required=True)


@group.post("/contact-channels/verify", tiers=ANY, body=CODE_BODY)
def verify(ctx: Ctx) -> dict:
    found = find_code(ctx, EMAIL_VERIFICATION, ctx.body["code"])
    found.consume()
    ctx.c.execute(
        "UPDATE contact_channels SET is_verified = 1 WHERE user_id = ? AND type = 'email' AND value = ?",
        (found.data["user_id"], found.data["email"]),
    )
    return {"success": True}


@group.post("/contact-channels/verify/check-code", tiers=ANY, body=CODE_BODY)
def check_code(ctx: Ctx) -> dict:
    find_code(ctx, EMAIL_VERIFICATION, ctx.body["code"])
    return {"is_code_valid": True}


routes = group.routes
