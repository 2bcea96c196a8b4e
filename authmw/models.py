"""Wire shapes of the service as pydantic models with Pythonic names.

Parse with ``User.model_validate(wire_json)``. Unknown wire fields are ignored (a newer
service may add some), missing optional ones get defaults, ``*_millis`` times become aware
``datetime`` objects, and a few fields take their SDK names (``auth_with_email`` ->
``email_auth_enabled``, ``requires_totp_mfa`` -> ``is_multi_factor_required``).
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import (
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

__all__ = [
    "AdminOAuthProvider",
    "AdminProject",
    "AdminProjectConfig",
    "AdminProjectConfigUpdate",
    "AdminProjectUpdate",
    "ApiKey",
    "ConnectedAccountLink",
    "ContactChannel",
    "DailyActivity",
    "EmailConfig",
    "EmailTemplate",
    "EmailTheme",
    "EmailThemeSummary",
    "EndUserIpInfo",
    "LoginMethodCount",
    "Metrics",
    "NewApiKey",
    "NewProjectApiKey",
    "NotificationPreference",
    "OAuthProvider",
    "OAuthSignInResult",
    "Page",
    "PermissionDefinition",
    "PermissionRef",
    "Project",
    "ProjectApiKey",
    "ProjectConfig",
    "ProjectDomain",
    "ProjectOAuthProvider",
    "ProjectPermission",
    "ProviderAccount",
    "ReceivedTeamInvitation",
    "RiskScores",
    "ServerTeam",
    "ServerTeamMemberProfile",
    "ServerUser",
    "SessionInfo",
    "SignInResult",
    "SignUpRule",
    "SignUpRules",
    "Team",
    "TeamInvitation",
    "TeamInvitationDetails",
    "TeamMemberProfile",
    "TeamMembership",
    "TeamPermission",
    "TestEmailResult",
    "TokenPair",
    "TotpSetup",
    "TsxEmailTemplate",
    "User",
]


def _from_millis(value: Any) -> Any:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return _dt.datetime.fromtimestamp(value / 1000, tz=_dt.timezone.utc)
        except (OverflowError, OSError, ValueError):
            raise ValueError(f"{value} is not a time in milliseconds") from None
    return value


#: A time sent as milliseconds since the epoch.
Millis = Annotated[_dt.datetime, BeforeValidator(_from_millis)]
#: Any JSON value (metadata fields).
Json = Any


def _wire(name: str, python_name: str | None = None) -> Any:
    """Accept the wire name and, when constructing by hand, the Python name."""
    return AliasChoices(name, python_name) if python_name else name


class WireModel(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)


class OAuthProvider(WireModel):
    """A provider account linked to a user."""

    id: str
    account_id: str | None = None
    email: str | None = None


class ProviderAccount(WireModel):
    """A user's link to an OAuth provider account (API 2.8, ``/oauth-providers``).

    ``id`` is the link's own id (not the provider's name, which is ``provider_config_id``);
    ``allow_sign_in`` makes the account a way to sign in, ``allow_connected_accounts`` lets the
    app use its provider access tokens. ``account_id`` (the provider's id of the account) is
    given to the server tier only.
    """

    id: str
    user_id: str
    provider_config_id: str
    type: str
    email: str | None = None
    allow_sign_in: bool
    allow_connected_accounts: bool
    account_id: str | None = None


class ConnectedAccountLink(WireModel):
    """A provider account whose access tokens the app may ask for (``/connected-accounts``)."""

    user_id: str
    provider: str
    provider_account_id: str


class NotificationPreference(WireModel):
    """Whether a user gets e-mail of one notification category (API 2.8).

    ``can_disable`` is False for ``Transactional`` mail (which is always sent)."""

    category_id: str = Field(validation_alias=_wire("notification_category_id", "category_id"))
    category_name: str = Field(validation_alias=_wire("notification_category_name", "category_name"))
    enabled: bool
    can_disable: bool


class EndUserIpInfo(WireModel):
    """Where a session was last used from, as far as the service knows."""

    ip: str | None = None
    country_code: str | None = Field(None, validation_alias=_wire("countryCode", "country_code"))
    region_code: str | None = Field(None, validation_alias=_wire("regionCode", "region_code"))
    city_name: str | None = Field(None, validation_alias=_wire("cityName", "city_name"))
    tz_identifier: str | None = Field(None, validation_alias=_wire("tzIdentifier", "tz_identifier"))
    latitude: float | None = None
    longitude: float | None = None


class SessionInfo(WireModel):
    """One of a user's active sessions (API 2.8, ``/auth/sessions``); no tokens, only facts."""

    id: str
    user_id: str
    created_at: Millis
    last_used_at: Millis | None = None
    is_impersonation: bool = False
    is_current_session: bool = False
    last_used_from: EndUserIpInfo | None = Field(
        None, validation_alias=_wire("last_used_at_end_user_ip_info", "last_used_from")
    )


class Team(WireModel):
    id: str
    display_name: str = ""
    profile_image_url: str | None = None
    client_metadata: Json = None
    client_read_only_metadata: Json = None


class ServerTeam(Team):
    created_at: Millis | None = Field(None, validation_alias=_wire("created_at_millis", "created_at"))
    server_metadata: Json = None


class User(WireModel):
    """A user as the client tier sees it (``GET /users/me``)."""

    id: str
    display_name: str | None = None
    primary_email: str | None = None
    primary_email_verified: bool = False
    profile_image_url: str | None = None
    signed_up_at: Millis | None = Field(None, validation_alias=_wire("signed_up_at_millis", "signed_up_at"))
    client_metadata: Json = None
    client_read_only_metadata: Json = None
    has_password: bool = False
    email_auth_enabled: bool = Field(False, validation_alias=_wire("auth_with_email", "email_auth_enabled"))
    otp_auth_enabled: bool = False
    passkey_auth_enabled: bool = False
    is_multi_factor_required: bool = Field(
        False, validation_alias=_wire("requires_totp_mfa", "is_multi_factor_required")
    )
    oauth_providers: list[OAuthProvider] = Field(default_factory=list)
    selected_team_id: str | None = None
    selected_team: Team | None = None
    # API 2.8 (absent from a 2.7 answer: the defaults describe a 2.7 user)
    #: An anonymous user (no e-mail, no password), made by the 2.8 SDK or ``/auth/anonymous/sign-up``.
    is_anonymous: bool = False
    #: Anonymous, e-mail not verified (when the project requires it) or restricted by an admin.
    is_restricted: bool = False
    #: Why: ``"anonymous"``, ``"email_not_verified"`` or ``"restricted_by_administrator"``.
    restricted_reason: str | None = None
    #: Restricted by an administrator (or a sign-up rule), with the reason shown to the user.
    restricted_by_admin: bool = False
    restricted_by_admin_reason: str | None = None

    @field_validator("restricted_reason", mode="before")
    @classmethod
    def _reason_type(cls, value: Any) -> Any:
        # The wire form is {"type": ...}; the type alone is what there is to know.
        return value.get("type") if isinstance(value, dict) else value


class RiskScores(WireModel):
    """Scores (0-100) the 2.8 service computes at sign-up."""

    bot: int = 0
    free_trial_abuse: int = 0


class ServerUser(User):
    """A user as the server and admin tiers see it."""

    server_metadata: Json = None
    last_active_at: Millis | None = Field(None, validation_alias=_wire("last_active_at_millis", "last_active_at"))
    primary_email_auth_enabled: bool = False
    selected_team: ServerTeam | None = None
    # API 2.8 (absent from a 2.7 answer)
    #: Not shown to the user; must be None unless ``restricted_by_admin``.
    restricted_by_admin_private_details: str | None = None
    #: Two upper-case letters, from the sign-up request's location (best effort).
    country_code: str | None = None
    #: ``{"sign_up": RiskScores}``; None from a 2.7 service.
    risk_scores: dict[str, RiskScores] | None = None


class TokenPair(WireModel):
    """A session's tokens (``POST /auth/sessions``)."""

    # Tokens are secrets: kept out of repr and str.
    access_token: str = Field(repr=False)
    refresh_token: str = Field(repr=False)


class SignInResult(TokenPair):
    """Answer of the sign-in style endpoints: the tokens, ``user_id`` and ``is_new_user``."""

    user_id: str | None = None
    is_new_user: bool | None = None


class OAuthSignInResult(SignInResult):
    """Answer of the OAuth code exchange: the tokens, ``is_new_user`` and the
    ``after_callback_redirect_url`` given when the flow started."""

    after_callback_redirect_url: str | None = None


class ProjectOAuthProvider(WireModel):
    id: str


class ProjectConfig(WireModel):
    sign_up_enabled: bool = True
    credential_enabled: bool = True
    magic_link_enabled: bool = False
    passkey_enabled: bool = False
    client_team_creation_enabled: bool = False
    client_user_deletion_enabled: bool = False
    oauth_providers: list[ProjectOAuthProvider] = Field(
        default_factory=list, validation_alias=AliasChoices("enabled_oauth_providers", "oauth_providers")
    )
    #: API 2.8: whether users / teams may have API keys (always False from a 2.7 service).
    allow_user_api_keys: bool = False
    allow_team_api_keys: bool = False


class Project(WireModel):
    """The project as the client and server tiers see it (``GET /projects/current``)."""

    id: str
    display_name: str = ""
    config: ProjectConfig = Field(default_factory=ProjectConfig)


ItemT = TypeVar("ItemT")


class Page(WireModel, Generic[ItemT]):
    """One page of a list: ``items`` and the cursor of the next page (None on the last)."""

    items: list[ItemT] = Field(default_factory=list)
    next_cursor: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _flatten_pagination(cls, data: Any) -> Any:
        # Wire: {"items", "is_paginated", "pagination"?: {"next_cursor"}}
        if isinstance(data, dict) and isinstance(data.get("pagination"), dict) and "next_cursor" not in data:
            return {**data, "next_cursor": data["pagination"].get("next_cursor")}
        return data


class TeamMembership(WireModel):
    team_id: str
    user_id: str


class TeamMemberProfile(WireModel):
    """A member as the team sees them; name and image fall back to the user's own."""

    team_id: str
    user_id: str
    display_name: str | None = None
    profile_image_url: str | None = None


class ServerTeamMemberProfile(TeamMemberProfile):
    user: ServerUser | None = None


class TeamPermission(WireModel):
    """A permission a user holds in a team (granted, or contained in a granted one)."""

    id: str
    team_id: str
    user_id: str


class ProjectPermission(WireModel):
    """A project permission a user holds (API 2.8): granted, or contained in a granted one."""

    id: str
    user_id: str


class PermissionDefinition(WireModel):
    id: str
    description: str = ""
    contained_permission_ids: list[str] = Field(default_factory=list)


class TeamInvitation(WireModel):
    """A pending invitation (``GET /team-invitations``)."""

    id: str
    team_id: str
    recipient_email: str | None = None
    expires_at: Millis | None = Field(None, validation_alias=_wire("expires_at_millis", "expires_at"))


class ReceivedTeamInvitation(WireModel):
    """An invitation addressed to one of the user's verified e-mail addresses (API 2.8,
    ``GET /team-invitations?user_id=...``); accept it by ``id``."""

    id: str
    team_id: str
    team_display_name: str = ""
    recipient_email: str | None = None
    expires_at: Millis | None = Field(None, validation_alias=_wire("expires_at_millis", "expires_at"))


class TeamInvitationDetails(WireModel):
    """What an invitation code leads to (``POST /team-invitations/accept/details``)."""

    team_id: str
    team_display_name: str = ""


class ContactChannel(WireModel):
    """An e-mail address of a user; ``used_for_auth`` lets it sign in."""

    id: str
    user_id: str | None = None
    value: str
    type: str = "email"
    is_verified: bool = False
    is_primary: bool = False
    used_for_auth: bool = False


# -- admin tier (projects, API key sets, e-mail templates, permission definitions) ---------


class AdminOAuthProvider(WireModel):
    """An OAuth provider of the project: shared (the service's keys) or standard (yours)."""

    id: str
    #: API 2.8 lists enabled providers only and drops the field: absent means enabled.
    enabled: bool = True
    type: Literal["shared", "standard"] = "shared"
    client_id: str | None = None
    client_secret: str | None = Field(None, repr=False)
    facebook_config_id: str | None = None
    microsoft_tenant_id: str | None = None
    #: Local service only (docs/local-service.md): sign in at the real provider with these
    #: keys instead of the built-in mock; ``oidc_issuer_url`` names any OpenID Connect issuer.
    real_provider: bool | None = None
    oidc_issuer_url: str | None = None


class EmailConfig(WireModel):
    """How the project sends e-mail: the service's shared sender, or your SMTP server."""

    type: Literal["shared", "standard"] = "shared"
    host: str | None = None
    port: int | None = None
    username: str | None = None
    password: str | None = Field(None, repr=False)
    sender_name: str | None = None
    sender_email: str | None = None


class ProjectDomain(WireModel):
    """A trusted domain (``https://app.example.com``) and its handler path."""

    domain: str
    handler_path: str = "/handler"


class PermissionRef(WireModel):
    id: str


class AdminProjectConfig(ProjectConfig):
    """The project's settings as the admin tier sees them."""

    id: str | None = None
    allow_localhost: bool = True
    legacy_global_jwt_signing: bool = False
    create_team_on_sign_up: bool = False
    oauth_providers: list[AdminOAuthProvider] = Field(default_factory=list)  # type: ignore[assignment]
    enabled_oauth_providers: list[ProjectOAuthProvider] = Field(default_factory=list)
    domains: list[ProjectDomain] = Field(default_factory=list)
    email_config: EmailConfig = Field(default_factory=lambda: EmailConfig())
    team_creator_default_permissions: list[PermissionRef] = Field(default_factory=list)
    team_member_default_permissions: list[PermissionRef] = Field(default_factory=list)
    #: API 2.8: project permissions every new user is granted.
    user_default_permissions: list[PermissionRef] = Field(default_factory=list)
    #: API 2.8: what an OAuth sign-up does with an e-mail another user signs in with.
    oauth_account_merge_strategy: Literal["link_method", "raise_error", "allow_duplicates"] = "link_method"
    #: API 2.8: users whose primary e-mail is not verified are restricted. None when the
    #: answer does not say: the service's admin view (2.8.86) takes the setting but never
    #: shows it.
    require_email_verification: bool | None = None


class AdminProject(Project):
    """The project as the admin tier sees it (``GET /projects/current``, ``/internal/projects``).

    Secrets (OAuth client secrets, the SMTP password) are kept out of ``repr``.
    """

    description: str = ""
    created_at: Millis | None = Field(None, validation_alias=_wire("created_at_millis", "created_at"))
    #: None from an API 2.8 service, whose admin view no longer counts users.
    user_count: int | None = None
    is_production_mode: bool = False
    config: AdminProjectConfig = Field(default_factory=AdminProjectConfig)


class _Update(BaseModel):
    # Input, not wire answers: an unknown field is a mistake to report, not to drop.
    model_config = ConfigDict(extra="forbid", frozen=True)


class AdminProjectConfigUpdate(_Update):
    """Settings to change with ``update_project(config=...)``; fields left out stay as they are.

    ``domains`` and ``oauth_providers`` replace the whole list (``oauth_providers`` must
    name every provider already configured).
    """

    sign_up_enabled: bool | None = None
    credential_enabled: bool | None = None
    magic_link_enabled: bool | None = None
    passkey_enabled: bool | None = None
    client_team_creation_enabled: bool | None = None
    client_user_deletion_enabled: bool | None = None
    allow_localhost: bool | None = None
    create_team_on_sign_up: bool | None = None
    legacy_global_jwt_signing: Literal[False] | None = None
    domains: list[ProjectDomain] | None = None
    oauth_providers: list[AdminOAuthProvider] | None = None
    email_config: EmailConfig | None = None
    team_creator_default_permissions: list[PermissionRef] | None = None
    team_member_default_permissions: list[PermissionRef] | None = None
    # API 2.8 only (a 2.7 service refuses them as unknown properties)
    allow_user_api_keys: bool | None = None
    allow_team_api_keys: bool | None = None
    user_default_permissions: list[PermissionRef] | None = None
    #: An OAuth sign-up bringing an e-mail another user signs in with: attach the provider to
    #: that user when both e-mails are verified (``link_method``, the default), refuse
    #: (``raise_error``), or make a separate user (``allow_duplicates``).
    oauth_account_merge_strategy: Literal["link_method", "raise_error", "allow_duplicates"] | None = None
    #: Restrict users until their primary e-mail is verified (``is_restricted``, reason
    #: ``email_not_verified``): they sign in, but apps that do not accept restricted users
    #: send them to the handler's onboarding page.
    require_email_verification: bool | None = None


class AdminProjectUpdate(_Update):
    """A project change (``PATCH /projects/current``); the same fields create a project."""

    display_name: str | None = None
    description: str | None = None
    is_production_mode: bool | None = None
    config: AdminProjectConfigUpdate | None = None

    def wire(self) -> dict[str, Any]:
        """The request body: only the fields that were set (``description=None`` clears it).

        Domains, providers and the e-mail config are sent whole (defaults included, unset
        optional fields left out), as the service expects.
        """
        body = {name: getattr(self, name) for name in self.model_fields_set if name != "config"}
        if self.config is not None:
            body["config"] = {name: _whole(getattr(self.config, name)) for name in self.config.model_fields_set}
        return body


def _whole(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, list):
        return [_whole(item) for item in value]
    return value


_KEY_FIELDS = ("publishable_client_key", "secret_server_key", "super_secret_admin_key")


class _Revocable(WireModel):
    """A key that works until it expires or is revoked; ``why_invalid()`` says which."""

    id: str
    description: str = ""
    created_at: Millis | None = Field(None, validation_alias=_wire("created_at_millis", "created_at"))
    #: None: never expires.
    expires_at: Millis | None = Field(None, validation_alias=_wire("expires_at_millis", "expires_at"))
    manually_revoked_at: Millis | None = Field(
        None, validation_alias=_wire("manually_revoked_at_millis", "manually_revoked_at")
    )

    def why_invalid(self, now: _dt.datetime | None = None) -> Literal["expired", "manually-revoked"] | None:
        """``"expired"``, ``"manually-revoked"``, or None while the key works."""
        now = now or _dt.datetime.now(_dt.timezone.utc)
        if self.expires_at is not None and self.expires_at < now:
            return "expired"
        if self.manually_revoked_at is not None:
            return "manually-revoked"
        return None

    def is_valid(self, now: _dt.datetime | None = None) -> bool:
        return self.why_invalid(now) is None


class ApiKey(_Revocable):
    """A set of API keys as listed: only the last four characters of each key.

    Valid while not expired and not revoked; ``why_invalid()`` says which.
    """

    publishable_client_key_last_four: str | None = None
    secret_server_key_last_four: str | None = None
    super_secret_admin_key_last_four: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _last_fours(cls, data: Any) -> Any:
        # Wire: {"secret_server_key": {"last_four": "abcd"}}, or the full key once at creation.
        if not isinstance(data, dict):
            return data
        data = dict(data)
        for name in _KEY_FIELDS:
            value = data.get(name)
            if isinstance(value, dict):
                data.setdefault(f"{name}_last_four", value.get("last_four"))
                del data[name]
            elif isinstance(value, str):
                data.setdefault(f"{name}_last_four", value[-4:])
        return data


class NewApiKey(ApiKey):
    """A just-created key set with the full key values: the only time they are shown."""

    publishable_client_key: str | None = Field(None, repr=False)
    secret_server_key: str | None = Field(None, repr=False)
    super_secret_admin_key: str | None = Field(None, repr=False)


class ProjectApiKey(_Revocable):
    """A user's or a team's API key (API 2.8) as listed: its last four characters only.

    ``type`` is ``"user"`` (``user_id`` set) or ``"team"`` (``team_id`` set). A public key
    (``is_public``, value ``pk_...``) is meant to be seen, e.g. in a browser; a secret one
    (``sk_...``) is not.
    """

    type: Literal["user", "team"]
    user_id: str | None = None
    team_id: str | None = None
    is_public: bool = False
    last_four: str = ""

    @model_validator(mode="before")
    @classmethod
    def _value(cls, data: Any) -> Any:
        # Wire: "value": {"last_four": "..."} when listed, the whole key once at creation.
        if isinstance(data, dict) and "value" in data:
            data = dict(data)
            value = data.pop("value")
            if isinstance(value, dict):
                data.setdefault("last_four", value.get("last_four", ""))
            elif isinstance(value, str):
                data.setdefault("last_four", value[-4:])
                data.setdefault("api_key", value)
        return data


class NewProjectApiKey(ProjectApiKey):
    """A just-created user or team API key with its value: the only time it is shown. Hand
    ``api_key`` to its user; it is kept out of ``repr``."""

    api_key: str = Field(repr=False)


class EmailTemplate(WireModel):
    """An e-mail template; ``content`` is the editor document, ``is_default`` until changed."""

    type: Literal["email_verification", "password_reset", "magic_link", "team_invitation"]
    subject: str = ""
    content: Json = None
    is_default: bool = False


class TsxEmailTemplate(WireModel):
    """An API 2.8 e-mail template: a TSX module exporting ``EmailTemplate`` (rendered by React
    Email on the service; by a documented subset on the local service). ``theme_id`` is a theme's
    id, ``False`` for no theme, or ``None`` for the project's theme."""

    id: str
    display_name: str
    tsx_source: str
    theme_id: str | bool | None = None


class EmailThemeSummary(WireModel):
    """An API 2.8 e-mail theme as listed (``get`` gives its source)."""

    id: str
    display_name: str


class EmailTheme(WireModel):
    """An API 2.8 e-mail theme: a TSX module exporting ``EmailTheme``, wrapping every template."""

    id: str = ""
    display_name: str
    tsx_source: str


class SignUpRule(WireModel):
    """A sign-up rule (API 2.8): when ``condition`` (a CEL expression over ``email``,
    ``emailDomain``, ``authMethod``, ``oauthProvider``, ``countryCode``) matches a sign-up,
    ``action`` happens: ``allow`` or ``reject`` decide, ``restrict`` makes the new user restricted
    by the administrator and lets the next rules decide, ``log`` only counts. ``message`` is for the
    project's staff; the user refused only sees that a rule refused them."""

    condition: str | None = None
    action: Literal["allow", "reject", "restrict", "log"] = "allow"
    #: A rule set through the SDK is on unless said otherwise (the config's own default is off).
    enabled: bool = True
    priority: int = 0
    display_name: str | None = Field(default=None, alias="displayName")
    message: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _from_wire(cls, data: Any) -> Any:
        # Wire: {"action": {"type", "message"?}, ...}
        if isinstance(data, dict) and isinstance(data.get("action"), dict):
            action = data["action"]
            return {**data, "action": action.get("type"), "message": action.get("message")}
        return data

    def to_wire(self) -> dict[str, Any]:
        action: dict[str, Any] = {"type": self.action}
        if self.message is not None:
            action["message"] = self.message
        wire: dict[str, Any] = {"enabled": self.enabled, "priority": self.priority, "action": action}
        if self.condition is not None:
            wire["condition"] = self.condition
        if self.display_name is not None:
            wire["displayName"] = self.display_name
        return wire


class SignUpRules(WireModel):
    """The project's sign-up rules in the order they are tried (highest ``priority`` first,
    then by id) and what happens when none decides."""

    rules: dict[str, SignUpRule] = Field(default_factory=dict)
    default_action: Literal["allow", "reject"] = "allow"


class TestEmailResult(WireModel):
    """The answer of ``send_test_email``: ``error_message`` says what failed."""

    __test__ = False  # not a pytest test class

    success: bool
    error_message: str | None = None


class DailyActivity(WireModel):
    date: _dt.date
    activity: int = 0


class LoginMethodCount(WireModel):
    method: str
    count: int = 0


class Metrics(WireModel):
    """Usage figures of the project (``GET /internal/metrics``)."""

    total_users: int = 0
    daily_users: list[DailyActivity] = Field(default_factory=list)
    daily_active_users: list[DailyActivity] = Field(default_factory=list)
    users_by_country: dict[str, int] = Field(default_factory=dict)
    recently_registered: list[ServerUser] = Field(default_factory=list)
    recently_active: list[ServerUser] = Field(default_factory=list)
    login_methods: list[LoginMethodCount] = Field(default_factory=list)


@dataclass(frozen=True)
class TotpSetup:
    """A TOTP secret being set up (``ClientApp.enable_totp``); the secret stays out of ``repr``.

    ``uri`` is the ``otpauth://totp/...`` URI to show as a QR code, ``secret`` the same secret
    in base32 for typing into an authenticator app, ``secret_base64`` what the service stores.
    """

    uri: str = field(repr=False)
    secret: str = field(repr=False)
    secret_base64: str = field(repr=False)
