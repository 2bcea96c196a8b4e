"""E-mail templates (contract 5.10): defaults, custom overrides, and `{{ variable }}` rendering."""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from .db import dump, load

#: Template types in list order, with their default subjects.
DEFAULT_SUBJECTS: dict[str, str] = {
    "email_verification": "Verify your email at {{ projectDisplayName }}",
    "password_reset": "Reset your password at {{ projectDisplayName }}",
    "magic_link": "Sign in to {{ projectDisplayName }}: Your code is {{ otp }}",
    "team_invitation": "You have been invited to join {{ teamDisplayName }}",
}
_DEFAULT_TEXT = {
    "email_verification": "Please verify your e-mail address: {{ emailVerificationLink }}",
    "password_reset": "Choose a new password: {{ passwordResetLink }}",
    "magic_link": "Your sign-in code is {{ otp }}, or open {{ magicLink }}",
    "team_invitation": "Join {{ teamDisplayName }}: {{ teamInvitationLink }}",
}
_VARIABLE = re.compile(r"\{\{\s*(\w+)\s*\}\}")


def default_content(template_type: str) -> dict[str, Any]:
    """A minimal editor document: one paragraph of text."""
    paragraph = {"type": "paragraph", "content": [{"type": "text", "text": _DEFAULT_TEXT[template_type]}]}
    return {"type": "doc", "content": [paragraph]}


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


def render(text: str, variables: dict[str, str]) -> str:
    return _VARIABLE.sub(lambda m: variables.get(m.group(1), m.group(0)), text)


def rendered_subject(c: sqlite3.Connection, project_id: str, template_type: str, variables: dict[str, str]) -> str:
    return render(template(c, project_id, template_type)["subject"], variables)
