"""Password sign-up, sign-in, update, set and reset (service-api A5.4.1)."""

from __future__ import annotations

import random
from typing import Any

from ..emails import PASSWORD_RESET, send_password_reset_email, send_verification_email
from ..endpoint import ANY, USER_IN_SCHEMA, EndpointGroup, PerApi, RequestContext
from ..errors import CatalogueError, PlainError, email_taken
from ..password_work import hash_outside, matches_outside
from ..passwords import MIN_LENGTH
from ..schema import Obj, Str, password
from ..sign_in import finish_sign_in
from ..sign_up_rules import check_sign_up, mark_restricted
from ..tokens import revoke_user_refresh_tokens
from ..urls import is_trusted_url
from ..user_updates import create_personal_team, personal_team_name, upgrade_anonymous_user
from ..users import create_user, email_used_for_auth, find_user_by_auth_email, normalise_email
from ..verification import CODE_LENGTH, find_code

group = EndpointGroup()


def _check_new_password(ctx: RequestContext, new_password: str) -> None:
    """The checks every route that stores a new password makes first, in the service's order."""
    if not ctx.project.config["credential_enabled"]:
        raise CatalogueError("PASSWORD_AUTHENTICATION_NOT_ENABLED")
    if len(new_password) < MIN_LENGTH:
        raise CatalogueError("PASSWORD_TOO_SHORT", min_length=MIN_LENGTH)


def _set_password_hash(ctx: RequestContext, user_id: str, password: str) -> None:
    ctx.sql.execute(
        "UPDATE users SET password_hash = ? WHERE project_id = ? AND id = ?",
        (hash_outside(ctx, password), ctx.project.id, user_id),
    )


SIGN_UP_FIELDS: dict[str, Any] = {"email": Str(required=True, strict_email=True), "password": password()}
SIGN_UP_27 = Obj({**SIGN_UP_FIELDS, "verification_callback_url": Str(required=True, url=True)}, required=True)
#: 2.8: the callback URL is optional (but must be trusted when given) and the bot-challenge
#: fields are accepted; the local service has no bot challenge (service-api B14.1).
SIGN_UP_28 = Obj(
    {
        **SIGN_UP_FIELDS,
        "verification_callback_url": Str(url=True),
        "bot_challenge_token": Str(),
        "bot_challenge_phase": Str(one_of=("invisible", "visible")),
        "bot_challenge_unavailable": Str(one_of=("true",)),
    },
    required=True,
)


@group.post("/auth/password/sign-up", tiers=ANY, body=PerApi(v27=SIGN_UP_27, v28=SIGN_UP_28))
def sign_up(ctx: RequestContext) -> dict[str, Any]:
    project = ctx.project
    body = ctx.body
    email, new_password = normalise_email(body["email"]), body["password"]
    callback_url = body.get("verification_callback_url")
    if not project.config["credential_enabled"]:
        raise CatalogueError("PASSWORD_AUTHENTICATION_NOT_ENABLED")
    if ctx.api.anonymous_users:  # 2.8 order (14.1): URL, sign-up enabled, password rules
        if callback_url is not None and not is_trusted_url(project, callback_url):
            raise CatalogueError("REDIRECT_URL_NOT_WHITELISTED")
        if not project.config["sign_up_enabled"]:
            raise CatalogueError("SIGN_UP_NOT_ENABLED")
    if len(new_password) < MIN_LENGTH:
        raise CatalogueError("PASSWORD_TOO_SHORT", min_length=MIN_LENGTH)
    if not project.config["sign_up_enabled"]:
        raise CatalogueError("SIGN_UP_NOT_ENABLED")
    if email_used_for_auth(ctx.sql, project.id, email):
        raise email_taken(email)
    restriction = check_sign_up(project.config, email, "password")
    password_hash = hash_outside(ctx, new_password)
    anonymous = ctx.user if ctx.user is not None and ctx.user["is_anonymous"] else None
    if anonymous is not None:
        # 2.8: the anonymous user of the request's token becomes this account (7.3).
        user_id = anonymous["id"]
        ctx.sql.execute(
            "UPDATE users SET password_hash = ? WHERE project_id = ? AND id = ?", (password_hash, project.id, user_id)
        )
        upgrade_anonymous_user(ctx.sql, project, user_id, email)
    else:
        user_id = create_user(
            ctx.sql, project.id, password_hash=password_hash, primary_email=email, primary_email_auth_enabled=True
        )
        if project.config["create_team_on_sign_up"]:
            create_personal_team(ctx.sql, project, user_id, personal_team_name(None, email))
    mark_restricted(ctx.sql, project.id, user_id, restriction)
    if callback_url is not None:
        send_verification_email(ctx, user_id, email, callback_url)
    return {**ctx.service.new_session(ctx.sql, project.id, user_id), "user_id": user_id}


@group.post(
    "/auth/password/sign-in",
    tiers=ANY,
    body=PerApi(
        v27=Obj({"email": Str(required=True, email=True), "password": password()}, required=True),
        # 2.8 (service-api B14.5): the e-mail must be non-empty
        v28=Obj({"email": Str(required=True, email=True, non_empty=True), "password": password()}, required=True),
    ),
)
def sign_in(ctx: RequestContext) -> dict[str, Any]:
    project = ctx.project
    if not project.config["credential_enabled"]:
        raise CatalogueError("PASSWORD_AUTHENTICATION_NOT_ENABLED")
    user = find_user_by_auth_email(ctx.sql, project.id, ctx.body["email"])
    stored = None if user is None else user["password_hash"]
    if not matches_outside(ctx, ctx.body["password"], stored) or user is None:
        raise CatalogueError("EMAIL_PASSWORD_MISMATCH")
    return finish_sign_in(ctx, user)


@group.post(
    "/auth/password/update",
    tiers=ANY,
    needs_user=USER_IN_SCHEMA,
    body=Obj({"old_password": password(), "new_password": password()}, required=True),
)
def update_password(ctx: RequestContext) -> dict[str, Any]:
    user = ctx.signed_in_user
    _check_new_password(ctx, ctx.body["new_password"])
    if user["password_hash"] is None:
        raise CatalogueError("USER_DOES_NOT_HAVE_PASSWORD")
    if not matches_outside(ctx, ctx.body["old_password"], user["password_hash"]):
        raise CatalogueError("PASSWORD_CONFIRMATION_MISMATCH")
    _set_password_hash(ctx, user["id"], ctx.body["new_password"])
    # Every other session ends; the one in x-stack-refresh-token (if any) survives.
    revoke_user_refresh_tokens(
        ctx.sql, ctx.project.id, user["id"], keep=ctx.request.headers.get("x-stack-refresh-token") or None
    )
    return {"success": True}


@group.post(
    "/auth/password/set", tiers=ANY, needs_user=USER_IN_SCHEMA, body=Obj({"password": password()}, required=True)
)
def set_password(ctx: RequestContext) -> dict[str, Any]:
    user = ctx.signed_in_user
    _check_new_password(ctx, ctx.body["password"])
    if user["password_hash"] is not None:
        raise PlainError(400, "User already has a password set.")
    _set_password_hash(ctx, user["id"], ctx.body["password"])
    return {"success": True}


#: An unknown e-mail answers send-reset-code after a random 2-3 s, like the hosted service.
UNKNOWN_EMAIL_DELAY_SECONDS = (2.0, 3.0)
RESET_CODE_BODY = Obj({"code": Str(required=True, min_length=CODE_LENGTH, max_length=CODE_LENGTH)}, required=True)


@group.post(
    "/auth/password/send-reset-code",
    tiers=ANY,
    body=Obj({"email": Str(required=True, email=True), "callback_url": Str(required=True, url=True)}, required=True),
)
def send_reset_code(ctx: RequestContext) -> dict[str, Any]:
    project = ctx.project
    if not project.config["credential_enabled"]:
        raise CatalogueError("PASSWORD_AUTHENTICATION_NOT_ENABLED")
    user = find_user_by_auth_email(ctx.sql, project.id, ctx.body["email"])
    if user is None:
        ctx.response_delay = random.uniform(*UNKNOWN_EMAIL_DELAY_SECONDS)
    else:
        if not is_trusted_url(project, ctx.body["callback_url"]):
            raise CatalogueError("REDIRECT_URL_NOT_WHITELISTED")
        send_password_reset_email(ctx, user["id"], ctx.body["email"], ctx.body["callback_url"])
    return {"success": "maybe, only if user with e-mail exists"}


@group.post("/auth/password/reset/check-code", tiers=ANY, body=RESET_CODE_BODY)
def check_reset_code(ctx: RequestContext) -> dict[str, Any]:
    find_code(ctx, PASSWORD_RESET, ctx.body["code"])
    return {"is_code_valid": True}


@group.post(
    "/auth/password/reset",
    tiers=ANY,
    body=Obj(
        {"code": Str(required=True, min_length=CODE_LENGTH, max_length=CODE_LENGTH), "password": password()},
        required=True,
    ),
)
def reset_password(ctx: RequestContext) -> dict[str, Any]:
    found = find_code(ctx, PASSWORD_RESET, ctx.body["code"])
    found.consume()  # used up even when the checks below fail (service-api A5.3)
    _check_new_password(ctx, ctx.body["password"])
    user_id = found.data["user_id"]
    _set_password_hash(ctx, user_id, ctx.body["password"])
    revoke_user_refresh_tokens(ctx.sql, ctx.project.id, user_id)
    return {"success": True}


routes = group.routes
