"""The e-mails of the flows (service-api A5.3): a verification code and a link `callback_url?code=...`.

Each mail renders the project's template of its type (2.7: email_templates.py; 2.8: the TSX
templates of email_templates_28.py) with the variables of service-api A5.2: `userDisplayName` and
`projectDisplayName` always, plus the type's link (and `otp`,
`teamDisplayName`). The mail itself goes through mail.send_email (outbox, and SMTP if configured).
"""

from __future__ import annotations

from . import end_user
from .email_templates import render_email
from .email_templates_28 import DEFAULT_THEME_ID, render_mail
from .endpoint import RequestContext
from .ids import new_uuid
from .mail import Mail, send_email
from .urls import is_trusted_url, with_query_param
from .users import find_user_by_auth_email, get_user
from .verification import create_code

EMAIL_VERIFICATION = "email_verification"
PASSWORD_RESET = "password_reset"
MAGIC_LINK = "magic_link"
TEAM_INVITATION = "team_invitation"


def send_verification_email(ctx: RequestContext, user_id: str, email: str, callback_url: str) -> bool:
    """Send the e-mail verification link; an untrusted callback URL just sends nothing (5.4.1)."""
    if not is_trusted_url(ctx.project, callback_url):
        return False
    code = create_code(ctx.sql, ctx.project.id, EMAIL_VERIFICATION, {"user_id": user_id, "email": email})
    link = with_query_param(callback_url, "code", code)
    _send(ctx, EMAIL_VERIFICATION, email, link, {"emailVerificationLink": link}, _display_name(ctx, user_id))
    return True


def send_password_reset_email(ctx: RequestContext, user_id: str, email: str, callback_url: str) -> None:
    code = create_code(ctx.sql, ctx.project.id, PASSWORD_RESET, {"user_id": user_id})
    link = with_query_param(callback_url, "code", code)
    _send(ctx, PASSWORD_RESET, email, link, {"passwordResetLink": link}, _display_name(ctx, user_id))


def send_magic_link_email(ctx: RequestContext, email: str, callback_url: str) -> str:
    """Mail the sign-in link and its 6-character OTP; returns the code."""
    # 2.8: a new user made by the code is from where the code was asked for (not where it is used)
    info = end_user.current()
    country = info.end_user.country_code if info and info.end_user else None
    code = create_code(ctx.sql, ctx.project.id, MAGIC_LINK, {"email": email, "country_code": country})
    link = with_query_param(callback_url, "code", code)
    variables = {"magicLink": link, "otp": code[:6].upper()}
    _send(ctx, MAGIC_LINK, email, link, variables, _display_name_by_email(ctx, email))
    return code


def send_team_invitation_email(ctx: RequestContext, team_id: str, team_name: str, email: str, callback_url: str) -> str:
    """Mail an invitation link; returns the invitation id (kept in the code's data)."""
    invitation_id = new_uuid()
    code = create_code(
        ctx.sql, ctx.project.id, TEAM_INVITATION, {"invitation_id": invitation_id, "team_id": team_id, "email": email}
    )
    link = with_query_param(callback_url, "code", code)
    variables = {"teamInvitationLink": link, "teamDisplayName": team_name}
    _send(ctx, TEAM_INVITATION, email, link, variables, _display_name_by_email(ctx, email))
    return invitation_id


def _send(
    ctx: RequestContext, kind: str, to: str, link: str, variables: dict[str, str], user_display_name: str | None
) -> None:
    if not ctx.api.email_templates:  # 2.8: the project's TSX template (service-api B14.4)
        theme = str(ctx.project.config.get("email_theme") or DEFAULT_THEME_ID)
        mail = render_mail(ctx.sql, ctx.project.id, ctx.project.display_name, theme, kind, user_display_name, variables)
        subject, text, html = mail.subject or "", mail.text, mail.html
    else:
        common = {"userDisplayName": user_display_name, "projectDisplayName": ctx.project.display_name}
        rendered = render_email(ctx.sql, ctx.project.id, kind, {**common, **variables})
        subject, text, html = rendered.subject, rendered.text, rendered.html
    send_email(ctx, Mail(to=to, kind=kind, subject=subject, text=text, html=html, link=link))


def _display_name(ctx: RequestContext, user_id: str) -> str | None:
    user = get_user(ctx.sql, ctx.project.id, user_id)
    return None if user is None else user["display_name"]


def _display_name_by_email(ctx: RequestContext, email: str) -> str | None:
    """The display name of the user signing in with this address, if there is one yet."""
    user = find_user_by_auth_email(ctx.sql, ctx.project.id, email)
    return None if user is None else user["display_name"]
