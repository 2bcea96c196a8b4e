"""The e-mails of the flows (contract 5.3): a verification code and a link `callback_url?code=...`."""

from __future__ import annotations

import sqlite3

from .email_templates import rendered_subject
from .ids import new_uuid
from .mail import send_email
from .projects import Project
from .urls import is_trusted_url, with_query_param
from .verification import create_code

EMAIL_VERIFICATION = "email_verification"
PASSWORD_RESET = "password_reset"
MAGIC_LINK = "magic_link"
TEAM_INVITATION = "team_invitation"


def send_verification_email(
    c: sqlite3.Connection, project: Project, user_id: str, email: str, callback_url: str
) -> bool:
    """Send the e-mail verification link; an untrusted callback URL just sends nothing (5.4.1)."""
    if not is_trusted_url(project, callback_url):
        return False
    code = create_code(c, project.id, EMAIL_VERIFICATION, {"user_id": user_id, "email": email})
    link = with_query_param(callback_url, "code", code)
    send_email(
        c,
        project.id,
        email,
        EMAIL_VERIFICATION,
        rendered_subject(c, project.id, EMAIL_VERIFICATION, {"projectDisplayName": project.display_name}),
        f"Please verify your e-mail address by opening this link:\n\n{link}\n",
        link=link,
    )
    return True


def send_password_reset_email(
    c: sqlite3.Connection, project: Project, user_id: str, email: str, callback_url: str
) -> None:
    code = create_code(c, project.id, PASSWORD_RESET, {"user_id": user_id})
    link = with_query_param(callback_url, "code", code)
    send_email(
        c,
        project.id,
        email,
        PASSWORD_RESET,
        rendered_subject(c, project.id, PASSWORD_RESET, {"projectDisplayName": project.display_name}),
        f"Open this link to choose a new password:\n\n{link}\n",
        link=link,
    )


def send_magic_link_email(c: sqlite3.Connection, project: Project, email: str, callback_url: str) -> str:
    """Mail the sign-in link and its 6-character OTP; returns the code."""
    code = create_code(c, project.id, MAGIC_LINK, {"email": email})
    link = with_query_param(callback_url, "code", code)
    otp = code[:6].upper()
    send_email(
        c,
        project.id,
        email,
        MAGIC_LINK,
        rendered_subject(c, project.id, MAGIC_LINK, {"projectDisplayName": project.display_name, "otp": otp}),
        f"Your sign-in code is {otp}, or open this link:\n\n{link}\n",
        link=link,
    )
    return code


def send_team_invitation_email(
    c: sqlite3.Connection, project: Project, team_id: str, team_name: str, email: str, callback_url: str
) -> str:
    """Mail an invitation link; returns the invitation id (kept in the code's data)."""
    invitation_id = new_uuid()
    code = create_code(
        c, project.id, TEAM_INVITATION, {"invitation_id": invitation_id, "team_id": team_id, "email": email}
    )
    link = with_query_param(callback_url, "code", code)
    send_email(
        c,
        project.id,
        email,
        TEAM_INVITATION,
        rendered_subject(
            c, project.id, TEAM_INVITATION, {"projectDisplayName": project.display_name, "teamDisplayName": team_name}
        ),
        f"Open this link to join {team_name} on {project.display_name}:\n\n{link}\n",
        link=link,
    )
    return invitation_id
