"""The state one running local service shares across requests."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from .db import Database
from .errors import CatalogueError
from .keys import KeyStore
from .tokens import (
    REFRESH_TOKEN_LIFETIME_MILLIS,
    AccessTokenSubject,
    RefreshSession,
    create_refresh_token,
    issue_access_token,
)
from .users import get_user, primary_email_channel, touch_last_active


@dataclass
class Service:
    db: Database
    keys: KeyStore
    access_token_ttl: float = 600

    def access_token(self, c: sqlite3.Connection, project_id: str, session: RefreshSession) -> str:
        """Issue an access token for a session and record the user's activity (contract 3.1)."""
        touch_last_active(c, project_id, session.user_id)
        user = get_user(c, project_id, session.user_id)
        if user is None:
            raise CatalogueError("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED")
        channel = primary_email_channel(c, project_id, session.user_id)
        subject = AccessTokenSubject(
            user_id=session.user_id,
            refresh_token_id=session.id,
            name=user["display_name"],
            email=channel["value"] if channel else None,
            email_verified=bool(channel and channel["is_verified"]),
            selected_team_id=user["selected_team_id"],
            signed_up_at_millis=user["signed_up_at_millis"],
            requires_totp_mfa=bool(user["requires_totp_mfa"]),
        )
        return issue_access_token(self.keys, project_id, subject, self.access_token_ttl)

    def new_session(
        self,
        c: sqlite3.Connection,
        project_id: str,
        user_id: str,
        lifetime_millis: int = REFRESH_TOKEN_LIFETIME_MILLIS,
    ) -> dict[str, str]:
        refresh_token, session_id = create_refresh_token(c, project_id, user_id, lifetime_millis)
        session = RefreshSession(id=session_id, user_id=user_id)
        return {"access_token": self.access_token(c, project_id, session), "refresh_token": refresh_token}
