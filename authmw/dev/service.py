"""The state one running local service shares across requests."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from .db import Database
from .keys import KeyStore
from .tokens import REFRESH_TOKEN_LIFETIME_MILLIS, create_refresh_token, issue_access_token
from .users import touch_last_active


@dataclass
class Service:
    db: Database
    keys: KeyStore
    access_token_ttl: float = 600

    def access_token(self, c: sqlite3.Connection, project_id: str, user_id: str) -> str:
        """Issue an access token and record the user's activity (contract 3.1)."""
        touch_last_active(c, user_id)
        return issue_access_token(self.keys, project_id, user_id, self.access_token_ttl)

    def new_session(
        self,
        c: sqlite3.Connection,
        project_id: str,
        user_id: str,
        lifetime_millis: int = REFRESH_TOKEN_LIFETIME_MILLIS,
    ) -> dict[str, str]:
        refresh_token = create_refresh_token(c, project_id, user_id, lifetime_millis)
        return {"access_token": self.access_token(c, project_id, user_id), "refresh_token": refresh_token}
