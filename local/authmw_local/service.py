"""The state one running local service shares across requests."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from . import end_user
from .api_version import DEFAULT_API, ApiVersion, api_version
from .db import Database
from .errors import CatalogueError
from .keys import KeyStore
from .tokens import (
    REFRESH_TOKEN_LIFETIME_MILLIS,
    AccessTokenSubject,
    RefreshSession,
    TokenRules,
    create_refresh_token,
    mark_session_used,
)
from .users import get_user, primary_email_channel, restricted_reason, touch_last_active

#: The issuer base when neither a public URL nor a request says otherwise.
FALLBACK_BASE_URL = "http://localhost"


@dataclass
class Service:
    db: Database
    keys: KeyStore
    access_token_ttl: float = 600
    #: Which backend the service answers as (api_version.py).
    api: ApiVersion = field(default_factory=lambda: api_version(DEFAULT_API))
    #: The service's public base URL (the base of 2.8 token issuers); None: the request's own.
    public_url: str | None = None
    #: An OIDC server standing in for the shared OAuth apps (outside_oauth.py); None: the mock.
    shared_oauth_server: str | None = None
    #: Testing only: every passkey challenge is the fixed "MOCK" (routes/passkeys.py), as the
    #: real backend's with STACK_ENABLE_HARDCODED_PASSKEY_CHALLENGE_FOR_TESTING set. Off: random.
    fixed_passkey_challenge: bool = False

    @property
    def base_url(self) -> str:
        """The service's public base URL: `public_url`, else that of the request being served."""
        if self.public_url is not None:
            return self.public_url
        info = end_user.current()
        return info.base_url if info is not None else FALLBACK_BASE_URL

    @property
    def tokens(self) -> TokenRules:
        """How this service signs and reads access tokens, for the request being served."""
        return TokenRules(self.keys, self.api, self.base_url)

    def access_token(self, c: sqlite3.Connection, project_id: str, session: RefreshSession) -> str:
        """Issue an access token for a session and record the user's and the session's activity
        (service-api A3.1; 2.8: 3.4)."""
        touch_last_active(c, project_id, session.user_id)
        user = get_user(c, project_id, session.user_id)
        if user is None:
            raise CatalogueError("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED")
        info = end_user.current()
        mark_session_used(c, project_id, session.id, info.end_user.ip_info() if info and info.end_user else None)
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
            is_anonymous=bool(user["is_anonymous"]),
            restricted_reason=restricted_reason(c, user, channel),
        )
        return self.tokens.issue(project_id, subject, self.access_token_ttl)

    def new_session(
        self,
        c: sqlite3.Connection,
        project_id: str,
        user_id: str,
        lifetime_millis: int = REFRESH_TOKEN_LIFETIME_MILLIS,
        *,
        is_impersonation: bool = False,
    ) -> dict[str, str]:
        refresh_token, session_id = create_refresh_token(
            c, project_id, user_id, lifetime_millis, is_impersonation=is_impersonation
        )
        session = RefreshSession(id=session_id, user_id=user_id)
        return {"access_token": self.access_token(c, project_id, session), "refresh_token": refresh_token}
