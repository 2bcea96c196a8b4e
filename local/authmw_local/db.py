"""SQLite storage: one file `<data_dir>/authmw.sqlite3`, schema migrated on start.

One connection guarded by a re-entrant lock; `with db.tx() as c:` runs a transaction.
Other areas add tables by appending a script to `MIGRATIONS` (never edit a released one).
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

DB_FILE_NAME = "authmw.sqlite3"

#: Called with the connection inside each transaction, just before it commits (webhooks.py
#: renders the events of the transaction's changes there: the state after the change).
BEFORE_COMMIT: list[Callable[[sqlite3.Connection], None]] = []

MIGRATIONS: list[str] = [
    # 1: projects, keys, users, sessions, teams and permission definitions
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

    CREATE TABLE projects (
        id TEXT PRIMARY KEY,
        display_name TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        created_at_millis INTEGER NOT NULL,
        is_production_mode INTEGER NOT NULL DEFAULT 0,
        config_id TEXT NOT NULL,
        config TEXT NOT NULL
    );

    CREATE TABLE api_key_sets (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        description TEXT NOT NULL,
        created_at_millis INTEGER NOT NULL,
        expires_at_millis INTEGER NOT NULL,
        manually_revoked_at_millis INTEGER,
        publishable_client_key TEXT,
        secret_server_key TEXT,
        super_secret_admin_key TEXT
    );

    CREATE TABLE signing_keys (
        scope TEXT PRIMARY KEY,
        kid TEXT NOT NULL,
        private_key_pem TEXT NOT NULL,
        created_at_millis INTEGER NOT NULL
    );

    CREATE TABLE users (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        display_name TEXT,
        profile_image_url TEXT,
        client_metadata TEXT,
        client_read_only_metadata TEXT,
        server_metadata TEXT,
        password_hash TEXT,
        otp_auth_enabled INTEGER NOT NULL DEFAULT 0,
        totp_secret_base64 TEXT,
        requires_totp_mfa INTEGER NOT NULL DEFAULT 0,
        selected_team_id TEXT,
        signed_up_at_millis INTEGER NOT NULL,
        last_active_at_millis INTEGER NOT NULL
    );
    CREATE INDEX users_by_project ON users(project_id, signed_up_at_millis);

    CREATE TABLE contact_channels (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        type TEXT NOT NULL,
        value TEXT NOT NULL,
        is_primary INTEGER NOT NULL DEFAULT 0,
        is_verified INTEGER NOT NULL DEFAULT 0,
        used_for_auth INTEGER NOT NULL DEFAULT 0,
        created_at_millis INTEGER NOT NULL,
        UNIQUE (user_id, type, value)
    );
    CREATE UNIQUE INDEX contact_channels_auth_unique
        ON contact_channels(project_id, type, value) WHERE used_for_auth = 1;

    CREATE TABLE oauth_accounts (
        project_id TEXT NOT NULL,
        provider_id TEXT NOT NULL,
        account_id TEXT NOT NULL,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        email TEXT,
        created_at_millis INTEGER NOT NULL,
        PRIMARY KEY (project_id, provider_id, account_id)
    );

    CREATE TABLE refresh_tokens (
        token_hash TEXT PRIMARY KEY,
        project_id TEXT NOT NULL,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_at_millis INTEGER NOT NULL,
        expires_at_millis INTEGER NOT NULL
    );
    CREATE INDEX refresh_tokens_by_user ON refresh_tokens(user_id);

    CREATE TABLE teams (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        display_name TEXT NOT NULL,
        profile_image_url TEXT,
        client_metadata TEXT,
        client_read_only_metadata TEXT,
        server_metadata TEXT,
        created_at_millis INTEGER NOT NULL
    );

    CREATE TABLE team_members (
        project_id TEXT NOT NULL,
        team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        display_name TEXT,
        profile_image_url TEXT,
        created_at_millis INTEGER NOT NULL,
        PRIMARY KEY (team_id, user_id)
    );

    CREATE TABLE team_member_permissions (
        project_id TEXT NOT NULL,
        team_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        permission_id TEXT NOT NULL,
        PRIMARY KEY (team_id, user_id, permission_id),
        FOREIGN KEY (team_id, user_id) REFERENCES team_members(team_id, user_id) ON DELETE CASCADE
    );

    CREATE TABLE permission_definitions (
        project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        id TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        contained_permission_ids TEXT NOT NULL DEFAULT '[]',
        created_at_millis INTEGER NOT NULL,
        PRIMARY KEY (project_id, id)
    );
    """,
    # 2: verification codes (service-api A5.3): e-mail links, OTP, MFA attempts, challenges
    """
    CREATE TABLE verification_codes (
        code_hash TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        type TEXT NOT NULL,
        nonce TEXT NOT NULL,
        data TEXT NOT NULL,
        created_at_millis INTEGER NOT NULL,
        expires_at_millis INTEGER NOT NULL,
        used_at_millis INTEGER,
        attempt_count INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX verification_codes_by_nonce ON verification_codes(project_id, nonce);
    """,
    # 3: e-mails the local service "sends" (kept in an outbox instead)
    """
    CREATE TABLE sent_emails (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL,
        recipient TEXT NOT NULL,
        kind TEXT NOT NULL,
        subject TEXT NOT NULL,
        body TEXT NOT NULL,
        link TEXT,
        sent_at_millis INTEGER NOT NULL
    );
    CREATE INDEX sent_emails_by_recipient ON sent_emails(recipient, sent_at_millis);
    """,
    # 4: custom e-mail templates (service-api A5.10)
    """
    CREATE TABLE email_templates (
        project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        type TEXT NOT NULL,
        subject TEXT NOT NULL,
        content TEXT NOT NULL,
        PRIMARY KEY (project_id, type)
    );
    """,
    # 5: provider scopes granted to the (mock) provider accounts, for connected-account tokens
    """
    ALTER TABLE oauth_accounts ADD COLUMN granted_scopes TEXT NOT NULL DEFAULT ''
    """,
    # 6: passkeys, one per user (service-api A5.4.4)
    """
    CREATE TABLE passkeys (
        user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
        project_id TEXT NOT NULL,
        credential_id TEXT NOT NULL,
        public_key BLOB NOT NULL,
        sign_count INTEGER NOT NULL,
        rp_id TEXT NOT NULL,
        created_at_millis INTEGER NOT NULL,
        UNIQUE (project_id, credential_id)
    );
    """,
    # 7: how each outbox e-mail was delivered (outbox-only, pending, sent, failed: <category>)
    """
    ALTER TABLE sent_emails ADD COLUMN delivery TEXT NOT NULL DEFAULT 'outbox-only'
    """,
    # 8: a session id per refresh token (the `refresh_token_id` access-token claim of 2.8 clients)
    """
    ALTER TABLE refresh_tokens ADD COLUMN id TEXT;
    UPDATE refresh_tokens SET id = substr(token_hash, 1, 32) WHERE id IS NULL;
    CREATE UNIQUE INDEX refresh_tokens_by_id ON refresh_tokens(id)
    """,
    # 9: API 2.8 users (anonymous, restricted, country, risk scores) and sessions (impersonation,
    #    last use), service-api B4.1 and B6
    """
    ALTER TABLE users ADD COLUMN is_anonymous INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE users ADD COLUMN restricted_by_admin INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE users ADD COLUMN restricted_by_admin_reason TEXT;
    ALTER TABLE users ADD COLUMN restricted_by_admin_private_details TEXT;
    ALTER TABLE users ADD COLUMN country_code TEXT;
    ALTER TABLE users ADD COLUMN risk_score_bot INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE users ADD COLUMN risk_score_free_trial_abuse INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE refresh_tokens ADD COLUMN is_impersonation INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE refresh_tokens ADD COLUMN last_used_at_millis INTEGER;
    ALTER TABLE refresh_tokens ADD COLUMN last_used_ip_info TEXT
    """,
    # 10: the TOTP time step that last finished a sign-in, refused again (RFC 6238 section 5.2)
    """
    ALTER TABLE users ADD COLUMN totp_last_used_step INTEGER
    """,
    # 11: the HTML part of each outbox e-mail (the Inbucket-compatible mail API serves it)
    """
    ALTER TABLE sent_emails ADD COLUMN html TEXT
    """,
    # 12: webhook endpoints and the messages sent to them (authmw/dev/webhooks.py)
    """
    CREATE TABLE webhook_endpoints (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        url TEXT NOT NULL,
        secret TEXT NOT NULL,
        created_at_millis INTEGER NOT NULL
    );
    CREATE TABLE webhook_messages (
        id TEXT NOT NULL,
        endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
        project_id TEXT NOT NULL,
        type TEXT NOT NULL,
        payload TEXT,
        subject TEXT,
        created_at_millis INTEGER NOT NULL,
        status TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at REAL,
        last_result TEXT,
        PRIMARY KEY (id, endpoint_id)
    );
    CREATE INDEX webhook_messages_due ON webhook_messages(status, next_attempt_at);
    CREATE INDEX webhook_messages_unrendered ON webhook_messages(subject) WHERE payload IS NULL
    """,
    # 13: API 2.8 projects are owned by a team of `internal` (service-api B14.4)
    """
    ALTER TABLE projects ADD COLUMN owner_team_id TEXT
    """,
    # accounts-1: OAuth provider accounts of API 2.8 (service-api B10): each link gets an id and
    #    the sign-in / connected-account flags; a provider account may be linked to several users
    #    but sign in only one (the partial unique index). Notification preferences (11.2).
    """
    CREATE TABLE oauth_links (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL,
        provider_id TEXT NOT NULL,
        account_id TEXT NOT NULL,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        email TEXT,
        created_at_millis INTEGER NOT NULL,
        granted_scopes TEXT NOT NULL DEFAULT '',
        allow_sign_in INTEGER NOT NULL DEFAULT 1,
        allow_connected_accounts INTEGER NOT NULL DEFAULT 1,
        UNIQUE (project_id, user_id, provider_id, account_id)
    );
    INSERT INTO oauth_links (id, project_id, provider_id, account_id, user_id, email, created_at_millis,
                             granted_scopes)
        SELECT lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2)
                     || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2)
                     || '-' || hex(randomblob(6))),
               project_id, provider_id, account_id, user_id, email, created_at_millis, granted_scopes
        FROM oauth_accounts;
    DROP TABLE oauth_accounts;
    ALTER TABLE oauth_links RENAME TO oauth_accounts;
    CREATE UNIQUE INDEX oauth_accounts_sign_in ON oauth_accounts(project_id, provider_id, account_id)
        WHERE allow_sign_in = 1;
    CREATE INDEX oauth_accounts_by_user ON oauth_accounts(project_id, user_id, created_at_millis);

    CREATE TABLE notification_preferences (
        project_id TEXT NOT NULL,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        category_id TEXT NOT NULL,
        enabled INTEGER NOT NULL,
        PRIMARY KEY (user_id, category_id)
    )
    """,
    # (helper `keys`) API 2.8 user and team API keys, project permissions and the scope of a
    # permission definition (team and project definitions share one id namespace), service-api
    # B8 and B9. Keys are stored as the SHA-256 of their value, never the value.
    """
    ALTER TABLE permission_definitions ADD COLUMN scope TEXT NOT NULL DEFAULT 'team';
    CREATE TABLE project_user_permissions (
        project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        permission_id TEXT NOT NULL,
        PRIMARY KEY (project_id, user_id, permission_id)
    );
    CREATE TABLE project_api_keys (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        type TEXT NOT NULL,
        user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
        team_id TEXT REFERENCES teams(id) ON DELETE CASCADE,
        description TEXT NOT NULL,
        is_public INTEGER NOT NULL,
        value_sha256 TEXT NOT NULL,
        last_four TEXT NOT NULL,
        created_at_millis INTEGER NOT NULL,
        expires_at_millis INTEGER,
        manually_revoked_at_millis INTEGER
    );
    CREATE UNIQUE INDEX project_api_keys_by_value ON project_api_keys(project_id, value_sha256);
    CREATE INDEX project_api_keys_by_user ON project_api_keys(project_id, user_id, created_at_millis);
    CREATE INDEX project_api_keys_by_team ON project_api_keys(project_id, team_id, created_at_millis)
    """,
    # (helper `oauth-real`) the tokens of outside OAuth providers kept for connected accounts
    # (outside_oauth.py): access tokens with their expiry, refresh tokens, the scopes granted.
    """
    CREATE TABLE oauth_provider_tokens (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        oauth_account_id TEXT NOT NULL REFERENCES oauth_accounts(id) ON DELETE CASCADE,
        kind TEXT NOT NULL,
        token TEXT NOT NULL,
        scopes TEXT NOT NULL,
        expires_at_millis INTEGER,
        is_valid INTEGER NOT NULL,
        created_at_millis INTEGER NOT NULL
    );
    CREATE INDEX oauth_provider_tokens_by_account ON oauth_provider_tokens(project_id, oauth_account_id)
    """,
    # (helper `emailtpl`) API 2.8's e-mail templates and themes: TSX sources (email_templates_28.py)
    """
    CREATE TABLE email_templates_28 (
        project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        id TEXT NOT NULL,
        display_name TEXT NOT NULL,
        tsx_source TEXT NOT NULL,
        theme_id TEXT,
        PRIMARY KEY (project_id, id)
    );
    CREATE TABLE email_themes (
        project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        id TEXT NOT NULL,
        display_name TEXT NOT NULL,
        tsx_source TEXT NOT NULL,
        PRIMARY KEY (project_id, id)
    )
    """,
    # (helper `fidelity36`) API 2.8's e-mail drafts (email_drafts.py)
    """
    CREATE TABLE email_drafts (
        project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        id TEXT NOT NULL,
        display_name TEXT NOT NULL,
        tsx_source TEXT NOT NULL,
        theme_mode TEXT NOT NULL,
        theme_id TEXT,
        sent_at_millis INTEGER,
        created_at_millis INTEGER NOT NULL,
        updated_at_millis INTEGER NOT NULL,
        PRIMARY KEY (project_id, id)
    )
    """,
    # (helper `fidelity36`) the plan items of customers (payments.py): products a customer holds
    # and changes of an item's quantity; the teams `internal` already has get its free plan
    """
    CREATE TABLE customer_products (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        customer_type TEXT NOT NULL,
        customer_id TEXT NOT NULL,
        product_id TEXT NOT NULL,
        quantity INTEGER NOT NULL,
        created_at_millis INTEGER NOT NULL
    );
    CREATE INDEX customer_products_by_customer ON customer_products(project_id, customer_type, customer_id);
    CREATE TABLE item_quantity_changes (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        customer_type TEXT NOT NULL,
        customer_id TEXT NOT NULL,
        item_id TEXT NOT NULL,
        quantity INTEGER NOT NULL,
        description TEXT,
        expires_at_millis INTEGER,
        created_at_millis INTEGER NOT NULL
    );
    CREATE INDEX item_quantity_changes_by_customer ON item_quantity_changes(project_id, customer_type, customer_id, item_id);
    INSERT INTO customer_products (id, project_id, customer_type, customer_id, product_id, quantity, created_at_millis)
        SELECT 'free-' || id, project_id, 'team', id, 'free', 1, created_at_millis FROM teams WHERE project_id = 'internal'
    """,
]


#: The database holds every project's keys and sessions in clear: only its owner reads it.
OWNER_ONLY = 0o600


def keep_private(path: Path) -> None:
    """Create `path` empty if missing, readable by its owner only; an existing one (from an
    older version, or copied) loses any group and other permissions."""
    os.close(os.open(path, os.O_CREAT | os.O_WRONLY, OWNER_ONLY))
    if path.stat().st_mode & 0o077:
        path.chmod(OWNER_ONLY)


class Database:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        # SQLite gives its -wal and -shm files the database file's permissions.
        for file in (self.path, *(self.path.with_name(self.path.name + end) for end in ("-wal", "-shm"))):
            if file is self.path or file.exists():
                keep_private(file)
        #: Guards the one connection; hold it for anything that must not interleave with requests.
        self.lock = threading.RLock()
        self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._conn.row_factory = sqlite3.Row
        self._conn.execute("PRAGMA foreign_keys = ON")
        self._conn.execute("PRAGMA journal_mode = WAL")
        self._conn.execute("PRAGMA synchronous = NORMAL")  # WAL-safe; no fsync per commit
        self._conn.execute("PRAGMA busy_timeout = 5000")
        self._migrate()

    @classmethod
    def in_dir(cls, data_dir: str | Path) -> Database:
        folder = Path(data_dir)
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)  # a new data folder: its owner's only
        return cls(folder / DB_FILE_NAME)

    def _migrate(self) -> None:
        with self.tx() as c:
            version = c.execute("PRAGMA user_version").fetchone()[0]
            for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
                for statement in _statements(script):
                    c.execute(statement)
                c.execute(f"PRAGMA user_version = {number}")

    @contextmanager
    def tx(self) -> Iterator[sqlite3.Connection]:
        """A transaction (nested calls join the outer one)."""
        with self.lock:
            if self._conn.in_transaction:
                yield self._conn
                return
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
                for hook in BEFORE_COMMIT:
                    hook(self._conn)
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def close(self) -> None:
        with self.lock:
            self._conn.close()


def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]


def dump(value: Any) -> str | None:
    """JSON column value (None stays SQL NULL)."""
    return None if value is None else json.dumps(value, separators=(",", ":"))


def load(text: str | None) -> Any:
    return None if text is None else json.loads(text)
