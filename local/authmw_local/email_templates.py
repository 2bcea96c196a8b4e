"""E-mail templates (service-api A5.10): defaults, custom overrides, and rendering a mail from them.

`render_email(c, project_id, "password_reset", {"projectDisplayName": ..., "passwordResetLink": ...})`
gives the subject and the text and HTML bodies (email_documents.py reads the editor document).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .db import dump, load
from .email_documents import fill, render_document

#: Template types in list order, with their default subjects.
DEFAULT_SUBJECTS: dict[str, str] = {
    "email_verification": "Verify your email at {{ projectDisplayName }}",
    "password_reset": "Reset your password at {{ projectDisplayName }}",
    "magic_link": "Sign in to {{ projectDisplayName }}: Your code is {{ otp }}",
    "team_invitation": "You have been invited to join {{ teamDisplayName }}",
}
#: Paragraphs of the default content of each type.
_DEFAULT_PARAGRAPHS: dict[str, tuple[str, ...]] = {
    "email_verification": (
        "Please verify your e-mail address for {{ projectDisplayName }} by opening this link:",
        "{{ emailVerificationLink }}",
        "If you did not sign up, you can ignore this e-mail.",
    ),
    "password_reset": (
        "Open this link to choose a new password for {{ projectDisplayName }}:",
        "{{ passwordResetLink }}",
        "If you did not ask for a new password, you can ignore this e-mail.",
    ),
    # The code stands alone on its line (clients, and Stack's own tests, read it that way).
    "magic_link": (
        "Your sign-in code for {{ projectDisplayName }} is:",
        "{{ otp }}",
        "Or open this link to sign in:",
        "{{ magicLink }}",
    ),
    "team_invitation": (
        "You have been invited to join {{ teamDisplayName }} on {{ projectDisplayName }}. Open this link to accept:",
        "{{ teamInvitationLink }}",
    ),
}


@dataclass(frozen=True)
class RenderedEmail:
    subject: str
    text: str
    html: str


def default_content(template_type: str) -> dict[str, Any]:
    """An editor document (ProseMirror shape) with one paragraph per line of the default text."""
    paragraphs = [
        {"type": "paragraph", "content": [{"type": "text", "text": text}]}
        for text in _DEFAULT_PARAGRAPHS[template_type]
    ]
    return {"type": "doc", "content": paragraphs}


def template(c: sqlite3.Connection, project_id: str, template_type: str) -> dict[str, Any]:
    row = c.execute(
        "SELECT subject, content FROM email_templates WHERE project_id = ? AND type = ?", (project_id, template_type)
    ).fetchone()
    if row is None:
        return {
            "type": template_type,
            "subject": DEFAULT_SUBJECTS[template_type],
            "content": default_content(template_type),
            "is_default": True,
        }
    return {"type": template_type, "subject": row["subject"], "content": load(row["content"]), "is_default": False}


def save_template(c: sqlite3.Connection, project_id: str, template_type: str, subject: str, content: Any) -> None:
    c.execute(
        "INSERT INTO email_templates (project_id, type, subject, content) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (project_id, type) DO UPDATE SET subject = excluded.subject, content = excluded.content",
        (project_id, template_type, subject, dump(content)),
    )


def render_email(
    c: sqlite3.Connection, project_id: str, template_type: str, variables: Mapping[str, str | None]
) -> RenderedEmail:
    """The project's template for this type (custom, else default) with the variables filled in.

    A variable without a value (e.g. `userDisplayName` of a user without a display name) is empty."""
    values = {name: value or "" for name, value in variables.items()}
    chosen = template(c, project_id, template_type)
    body = render_document(chosen["content"], values)
    subject = " ".join(fill(chosen["subject"], values).split())  # one header line, whatever the names hold
    return RenderedEmail(subject=subject, text=body.text, html=body.html)
