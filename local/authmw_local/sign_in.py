"""Finishing a sign-in: tokens, or the MFA step for users with TOTP (service-api A6.8)."""

from __future__ import annotations

import sqlite3
from typing import Any

from .endpoint import RequestContext
from .errors import CatalogueError
from .ids import random_code
from .projects import Project
from .verification import MFA_ATTEMPT_LIFETIME_MILLIS, create_code

MFA_ATTEMPT = "mfa_attempt"


def finish_sign_in(
    ctx: RequestContext, user: sqlite3.Row, *, is_new_user: bool | None = None, project: Project | None = None
) -> dict[str, Any]:
    """Tokens plus `user_id` (and `is_new_user` when given); MULTI_FACTOR_AUTHENTICATION_REQUIRED
    with a fresh attempt code when the user has TOTP enabled. `project` defaults to the request's."""
    project_id = (project or ctx.project).id
    if user["totp_secret_base64"] is not None and user["requires_totp_mfa"]:
        code = random_code()
        data = {"user_id": user["id"], "is_new_user": bool(is_new_user)}
        # The error below rolls the request back; the attempt code must outlive it.
        ctx.keep_on_error(
            lambda c: create_code(c, project_id, MFA_ATTEMPT, data, MFA_ATTEMPT_LIFETIME_MILLIS, code=code)
        )
        raise CatalogueError("MULTI_FACTOR_AUTHENTICATION_REQUIRED", attempt_code=code)
    body: dict[str, Any] = ctx.service.new_session(ctx.sql, project_id, user["id"])
    if is_new_user is not None:
        body["is_new_user"] = is_new_user
    body["user_id"] = user["id"]
    return body
