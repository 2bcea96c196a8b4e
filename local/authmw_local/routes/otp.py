"""Magic link / one-time-password sign-in (service-api A5.4.2, flow 6.2)."""

from __future__ import annotations

from typing import Any

from ..emails import MAGIC_LINK, send_magic_link_email
from ..endpoint import ANY, EndpointGroup, PerApi, RequestContext
from ..errors import CatalogueError, PlainError, email_taken
from ..schema import Obj, Spec, Str
from ..sign_in import finish_sign_in
from ..sign_up_rules import check_sign_up, mark_restricted
from ..urls import is_trusted_url
from ..user_updates import create_personal_team, personal_team_name, upgrade_anonymous_user
from ..users import create_user, find_user_by_auth_email, get_user, normalise_email
from ..verification import CODE_LENGTH, NONCE_LENGTH, find_code

group = EndpointGroup()
CODE_BODY = Obj({"code": Str(required=True, min_length=CODE_LENGTH, max_length=CODE_LENGTH)}, required=True)


SEND_FIELDS: dict[str, Spec] = {
    "email": Str(required=True, strict_email=True),
    "callback_url": Str(required=True, url=True),
}
#: 2.8 clients send the service's bot challenge; the local service has none, so the fields are
#: accepted and a request is never refused for its token.
BOT_CHALLENGE_FIELDS: dict[str, Spec] = {"bot_challenge_token": Str(), "bot_challenge_phase": Str()}


@group.post(
    "/auth/otp/send-sign-in-code",
    tiers=ANY,
    body=PerApi(
        v27=Obj(SEND_FIELDS, required=True),
        v28=Obj({**SEND_FIELDS, **BOT_CHALLENGE_FIELDS}, required=True),
    ),
)
def send_sign_in_code(ctx: RequestContext) -> dict[str, Any]:
    project = ctx.project
    email = ctx.body["email"]
    if not project.config["magic_link_enabled"]:
        raise PlainError(403, f"{ctx.api.otp_name} is not enabled for this project")
    if not is_trusted_url(project, ctx.body["callback_url"]):
        raise CatalogueError("REDIRECT_URL_NOT_WHITELISTED")
    user = find_user_by_auth_email(ctx.sql, project.id, email)
    if user is None and not project.config["sign_up_enabled"]:
        raise CatalogueError("SIGN_UP_NOT_ENABLED")
    if user is not None and not _auth_channel_is_verified(ctx, user["id"], email):
        # Someone signed up with this address (e.g. by password) and never proved they own it:
        # a code sent there must not open their account.
        raise email_taken(email, would_work_if_email_was_verified=True)
    code = send_magic_link_email(ctx, email, ctx.body["callback_url"])
    return {"nonce": code[-NONCE_LENGTH:]}


def _auth_channel_is_verified(ctx: RequestContext, user_id: str, email: str) -> bool:
    """Is the user's sign-in address `email` verified? Primary or not: a verified secondary
    address used for sign-in receives codes too, as the service sends them."""
    row = ctx.sql.execute(
        "SELECT is_verified FROM contact_channels WHERE project_id = ? AND user_id = ? AND type = 'email'"
        " AND value IN (?, ?) AND used_for_auth = 1",
        (ctx.project.id, user_id, email, normalise_email(email)),
    ).fetchone()
    return row is not None and bool(row["is_verified"])


@group.post("/auth/otp/sign-in/check-code", tiers=ANY, body=CODE_BODY)
def check_code(ctx: RequestContext) -> dict[str, Any]:
    find_code(ctx, MAGIC_LINK, ctx.body["code"])
    return {"is_code_valid": True}


@group.post("/auth/otp/sign-in", tiers=ANY, body=CODE_BODY)
def sign_in(ctx: RequestContext) -> dict[str, Any]:
    found = find_code(ctx, MAGIC_LINK, ctx.body["code"])
    found.consume()
    project = ctx.project
    email = found.data["email"]
    user = find_user_by_auth_email(ctx.sql, project.id, email)
    if user is not None:
        if not _auth_channel_is_verified(ctx, user["id"], email):
            # Checked again, as the service does: someone may have signed up with this address
            # since the code was sent (it was nobody's then) without proving they own it.
            raise email_taken(email, would_work_if_email_was_verified=True)
        if not user["otp_auth_enabled"]:
            ctx.sql.execute(
                "UPDATE users SET otp_auth_enabled = 1 WHERE project_id = ? AND id = ?", (project.id, user["id"])
            )
        return finish_sign_in(ctx, user, is_new_user=False)
    if not project.config["sign_up_enabled"]:
        raise CatalogueError("SIGN_UP_NOT_ENABLED")
    country = found.data.get("country_code")  # where the code was asked for
    restriction = check_sign_up(project.config, email, "otp", country_code=country)
    anonymous = ctx.user if ctx.api.anonymous_users and ctx.user is not None and ctx.user["is_anonymous"] else None
    if anonymous is not None:
        # 2.8: a new account made by OTP sign-in is the anonymous user of the request's token
        # (7.3; an address that has an account signs into it above instead).
        ctx.sql.execute(
            "UPDATE users SET otp_auth_enabled = 1 WHERE project_id = ? AND id = ?", (project.id, anonymous["id"])
        )
        upgrade_anonymous_user(ctx.sql, project, anonymous["id"], email, email_verified=True)
        mark_restricted(ctx.sql, project.id, anonymous["id"], restriction)
        upgraded = get_user(ctx.sql, project.id, anonymous["id"])
        assert upgraded is not None
        return finish_sign_in(ctx, upgraded, is_new_user=True)
    user_id = create_user(
        ctx.sql,
        project.id,
        otp_auth_enabled=True,
        primary_email=email,
        primary_email_verified=True,
        primary_email_auth_enabled=True,
        country_code=country if ctx.api.anonymous_users else None,
    )
    mark_restricted(ctx.sql, project.id, user_id, restriction)
    if project.config["create_team_on_sign_up"]:
        create_personal_team(ctx.sql, project, user_id, personal_team_name(None, email))  # 2.8 selects it
    new_user = get_user(ctx.sql, project.id, user_id)
    assert new_user is not None
    return finish_sign_in(ctx, new_user, is_new_user=True)


routes = group.routes
