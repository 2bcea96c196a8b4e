"""Password sign-up and sign-in (contract 5.4.1)."""

from __future__ import annotations

from ..endpoint import ANY, Ctx, EndpointGroup
from ..errors import KnownError
from ..passwords import MIN_LENGTH, hash_password, verify_password
from ..schema import Obj, Str, password
from ..teams import create_team
from ..users import create_user, email_used_for_auth, find_user_by_auth_email

group = EndpointGroup()


@group.post(
    "/auth/password/sign-up",
    tiers=ANY,
    body=Obj(
        {
            "email": Str(required=True, strict_email=True),
            "password": password(),
            "verification_callback_url": Str(required=True, url=True),
        },
        required=True,
    ),
)
def sign_up(ctx: Ctx) -> dict:
    project = ctx.project
    email, new_password = ctx.body["email"], ctx.body["password"]
    if not project.config["credential_enabled"]:
        raise KnownError("PASSWORD_AUTHENTICATION_NOT_ENABLED")
    if len(new_password) < MIN_LENGTH:
        raise KnownError("PASSWORD_TOO_SHORT", min_length=MIN_LENGTH)
    if not project.config["sign_up_enabled"]:
        raise KnownError("SIGN_UP_NOT_ENABLED")
    if email_used_for_auth(ctx.c, project.id, email):
        raise KnownError("USER_EMAIL_ALREADY_EXISTS")
    user_id = create_user(
        ctx.c,
        project.id,
        password_hash=hash_password(new_password),
        primary_email=email,
        primary_email_auth_enabled=True,
    )
    if project.config["create_team_on_sign_up"]:
        create_team(ctx.c, project, f"{email}'s Team", creator_user_id=user_id)
    # The verification e-mail is not sent: the local service has no mail transport yet.
    return {**ctx.service.new_session(ctx.c, project.id, user_id), "user_id": user_id}


@group.post(
    "/auth/password/sign-in",
    tiers=ANY,
    body=Obj({"email": Str(required=True, email=True), "password": password()}, required=True),
)
def sign_in(ctx: Ctx) -> dict:
    project = ctx.project
    if not project.config["credential_enabled"]:
        raise KnownError("PASSWORD_AUTHENTICATION_NOT_ENABLED")
    user = find_user_by_auth_email(ctx.c, project.id, ctx.body["email"])
    stored = None if user is None else user["password_hash"]
    if not verify_password(ctx.body["password"], stored) or user is None:
        raise KnownError("EMAIL_PASSWORD_MISMATCH")
    # TODO(mfa): users with TOTP get MULTI_FACTOR_AUTHENTICATION_REQUIRED once /auth/mfa exists.
    return {**ctx.service.new_session(ctx.c, project.id, user["id"]), "user_id": user["id"]}


routes = group.routes
