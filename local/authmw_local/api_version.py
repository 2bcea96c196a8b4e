"""Which backend the local service answers as: 2.8.86 (the default) or 2.7.16.

Everything that differs between the two is named here, once, as a field of `ApiVersion`;
handlers ask `ctx.api.<feature>` instead of comparing version strings. The token kinds
(audience suffix, issuer path) come from `authmw/token_kinds.json`, the table the Python
verifier and the React package read too.

    LocalService(data_dir)               # answers as 2.8.86
    LocalService(data_dir, api="2.7")    # answers as 2.7.16
    authmw dev --api 2.7
"""

from __future__ import annotations

import json
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

#: Kinds of access token (service-api B3.1 and B7.2).
USER, RESTRICTED, ANONYMOUS = "user", "restricted", "anonymous"
TOKEN_KINDS = (USER, RESTRICTED, ANONYMOUS)


@lru_cache(maxsize=1)
def token_kinds() -> dict[str, Any]:
    text = resources.files("authmw").joinpath("token_kinds.json").read_text(encoding="utf-8")
    table: dict[str, Any] = json.loads(text)
    return table


def audience(project_id: str, kind: str) -> str:
    """`{projectId}`, `{projectId}:restricted` or `{projectId}:anon`."""
    return project_id + str(token_kinds()["kinds"][kind]["audience_suffix"])


def kind_of_audience(aud: str) -> tuple[str, str]:
    """(project id, kind) of a 2.8 audience."""
    for kind in (RESTRICTED, ANONYMOUS):
        suffix = str(token_kinds()["kinds"][kind]["audience_suffix"])
        if aud.endswith(suffix):
            return aud[: -len(suffix)], kind
    return aud, USER


@dataclass(frozen=True)
class ApiVersion:
    """The behaviour of one backend version, as features the handlers ask about."""

    name: str
    #: Access tokens: per-project issuer derived from the service's URL and the user's kind, the
    #: audience suffixes, anonymous / restricted users, `signed_up_at` in seconds, no `branchId`
    #: (2.8, service-api B3.1); else the fixed 2.7 issuer and the plain project audience.
    per_project_issuer: bool
    #: Access tokens carry the 2.8 claims beyond iss/aud/sub/iat/exp (project_id, branch_id,
    #: refresh_token_id, role, name, email, email_verified, selected_team_id, signed_up_at,
    #: the anonymous / restricted marks, requires_totp_mfa; 2.8 3.1); a 2.7 token has only
    #: those five and `branchId` (service-api A3.1: "Not present: ... email").
    token_profile_claims: bool
    #: Two published keys per audience, `include_restricted` / `include_anonymous` (3.2).
    jwks_per_audience: bool
    #: GET /.well-known/jwks.json at the server root (2.7 only).
    root_jwks: bool
    #: Request authentication as 2.8 orders it (1.3): the token is read only when an access
    #: type is sent, anonymous and restricted tokens need the allow header, an unknown project
    #: is CURRENT_PROJECT_NOT_FOUND, the publishable key is optional per project.
    auth_order_28: bool
    #: DELETE /auth/sessions/current ends the access token's session (3.5); 2.7: the refresh token's.
    sign_out_by_access_token: bool
    #: Session list / revoke routes, `is_impersonation` (6).
    session_routes: bool
    #: Anonymous sign-up and restricted users (7), the user fields of 4.1, GET /users filtering (5.1).
    anonymous_users: bool
    #: E-mails stored trimmed and lower-cased, sign-in look-ups retry the normalised value (5.4).
    normalise_emails: bool
    #: PATCH primary_email adds a new primary channel and keeps the old one (5.3); 2.7 overwrote it.
    keeps_old_primary_email: bool
    #: The personal team made at sign-up is selected (5.2).
    selects_personal_team: bool
    #: /projects/current is the client view on every tier; the admin view and updates live at
    #: /internal/projects/current (14.4).
    admin_project_at_internal: bool
    #: /email-templates (2.7 only; 14.4).
    email_templates: bool
    #: OAuth authorize as 2.8 (14.2-14.3): unknown query parameters accepted, the JSON response
    #: mode, a trusted after_callback_redirect_url, and redirect trust that compares ports and
    #: ignores paths.
    oauth_28: bool
    #: OAuth provider accounts (/oauth-providers), the connected-account list and per-account
    #: access tokens (10.1-10.3).
    oauth_provider_accounts: bool
    #: Notification preferences, unsubscribe links and POST /emails/send-email (11).
    notification_preferences: bool
    #: User and team API keys (`/user-api-keys`, `/team-api-keys`, service-api B8).
    api_keys: bool
    #: Project permissions and their definitions, the system team permission `$manage_api_keys`,
    #: 2.8's default team definitions for new projects, PERMISSION_ID_ALREADY_EXISTS and
    #: WRONG_PERMISSION_SCOPE (service-api B9).
    project_permissions: bool
    #: Spaces before the `Project:` and `User:` lines of the GET /api/v1 text: 2.7.16's template
    #: indented them by 9 (a nested deindent), 2.8.86 by 2.
    root_text_indent: int
    #: What the service calls e-mail code sign-in in its messages ("... is not enabled for this
    #: project"): "Magic link" (2.7.16), "OTP sign-in" (2.8.86).
    otp_name: str
    #: Team invitations as 2.8 has them (14.5): listing a user's pending invitations, accepting
    #: by id, `team_display_name` on items, restricted users refused (7.4).
    team_invitations_28: bool
    #: The error of a passkey registration the origin check refuses: 2.7.16 answered
    #: PASSKEY_AUTHENTICATION_FAILED, 2.8.86 PASSKEY_REGISTRATION_FAILED.
    passkey_origin_error: str
    #: A URL field holding a space gets the problem line "<path> contains spaces" before "<path>
    #: is not a valid URL" (2.8.86's URL schema checks both; 2.7.16's only the second).
    url_space_problem: bool
    #: A project update listing one trusted domain twice is refused ("Duplicated domain found",
    #: 2.7.16); 2.8.86 keeps domains as a record under fresh ids and takes both entries.
    refuses_duplicate_domains: bool
    #: A signed-in user's link flow (`type=link`) for another account of a provider (config id)
    #: the user already has is refused with USER_ALREADY_CONNECTED_TO_ANOTHER_OAUTH_CONNECTION
    #: (2.7.16); 2.8.86 adds it as one more link of the user.
    one_account_per_provider: bool
    #: The seats of the `internal` project's teams (`dashboard_admins`, 2.8.86's seeded plan
    #: items): a new team gets the free plan's one seat, an invitation needs a free seat, and
    #: the payments item routes read and change them (service-api B15). 2.7.16 has none.
    dashboard_seats: bool

    def issuer(self, base_url: str, project_id: str, kind: str = USER) -> str:
        table = token_kinds()
        if not self.per_project_issuer:
            return str(table["legacy_issuer"])
        path = str(table["kinds"][kind]["issuer_path"]).format(project_id=project_id)
        return base_url.rstrip("/") + path

    def audience(self, project_id: str, kind: str = USER) -> str:
        return audience(project_id, kind) if self.per_project_issuer else project_id


API_27 = ApiVersion(
    name="2.7",
    per_project_issuer=False,
    token_profile_claims=False,
    jwks_per_audience=False,
    root_jwks=True,
    auth_order_28=False,
    sign_out_by_access_token=False,
    session_routes=False,
    anonymous_users=False,
    normalise_emails=False,
    keeps_old_primary_email=False,
    selects_personal_team=False,
    admin_project_at_internal=False,
    email_templates=True,
    oauth_28=False,
    oauth_provider_accounts=False,
    notification_preferences=False,
    api_keys=False,
    project_permissions=False,
    root_text_indent=9,
    otp_name="Magic link",
    team_invitations_28=False,
    passkey_origin_error="PASSKEY_AUTHENTICATION_FAILED",
    url_space_problem=False,
    refuses_duplicate_domains=True,
    one_account_per_provider=True,
    dashboard_seats=False,
)

API_28 = ApiVersion(
    name="2.8",
    per_project_issuer=True,
    token_profile_claims=True,
    jwks_per_audience=True,
    root_jwks=False,
    auth_order_28=True,
    sign_out_by_access_token=True,
    session_routes=True,
    anonymous_users=True,
    normalise_emails=True,
    keeps_old_primary_email=True,
    selects_personal_team=True,
    admin_project_at_internal=True,
    email_templates=False,
    oauth_28=True,
    oauth_provider_accounts=True,
    notification_preferences=True,
    api_keys=True,
    project_permissions=True,
    root_text_indent=2,
    otp_name="OTP sign-in",
    team_invitations_28=True,
    passkey_origin_error="PASSKEY_REGISTRATION_FAILED",
    url_space_problem=True,
    refuses_duplicate_domains=False,
    one_account_per_provider=False,
    dashboard_seats=True,
)

VERSIONS = {version.name: version for version in (API_27, API_28)}
#: What `LocalService`, `create_app` and `authmw dev` answer as unless told otherwise.
DEFAULT_API = "2.8"


def api_version(name: str) -> ApiVersion:
    """The version called `name` ("2.7" or "2.8"); a clear error for anything else."""
    try:
        return VERSIONS[name]
    except KeyError:
        known = ", ".join(sorted(VERSIONS))
        raise ValueError(f"unknown API version {name!r}: the local service answers as {known}") from None


_current: ContextVar[ApiVersion] = ContextVar("authmw_dev_api", default=VERSIONS[DEFAULT_API])


def current_api() -> ApiVersion:
    """The version of the service serving the current request (the default outside one), for
    code that has no request context at hand (user views, user creation)."""
    return _current.get()


class ApiVersionMiddleware:
    """Makes `current_api()` answer `api` while a request of this app is served."""

    def __init__(self, app: ASGIApp, api: ApiVersion) -> None:
        self.app = app
        self.api = api

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        token = _current.set(self.api)
        try:
            await self.app(scope, receive, send)
        finally:
            _current.reset(token)
