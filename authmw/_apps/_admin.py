"""The admin tier (project owners): project settings, API keys, e-mail templates, team
permission definitions, metrics, the webhook token and the test e-mail, on
top of everything the server tier does.

An admin app authenticates with the super secret admin key, or (``owner_session=``) with
the admin access token of a project owner signed in on the ``internal`` project; see
``ClientApp.admin_app``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pydantic

from .._config import AuthConfig
from .._ops import Op, Response
from .._production import DEFAULT_DASHBOARD_URL, ProductionModeError, production_mode_errors
from .._session import Session
from .._transport import Transport, parse_json, segment
from ..errors import HttpStatusError, InvalidServerResponse
from ..models import (
    AdminProject,
    AdminProjectConfigUpdate,
    AdminProjectUpdate,
    EmailConfig,
    Metrics,
    PermissionDefinition,
    TestEmailResult,
)
from ._api_keys import AdminApiKeys
from ._base import UNSET, _Namespace, changes, namespace, parse, parse_items
from ._binding import AsyncRunner, R, SyncRunner, Twin, operation
from ._email_sources import AdminEmailThemes, AdminTsxEmailTemplates
from ._email_templates import AdminEmailTemplates
from ._server import AsyncServerApp, ServerApp
from ._sign_up_rules import AdminSignUpRules, ConfigCalls, ConfigLevel

__all__ = [
    "AdminApp",
    "AdminPermissionDefinitions",
    "AdminProjectPermissionDefinitions",
    "AsyncAdminApp",
    "project_update_body",
]

_SMTP_FIELDS = ("host", "port", "username", "password", "sender_name", "sender_email")


def project_update_body(update: AdminProjectUpdate | Mapping[str, Any] | None = None, **fields: Any) -> dict[str, Any]:
    """The PATCH/POST body of a project change: a model, a dict, or keywords (UNSET left out).

    Every input goes through :class:`AdminProjectUpdate`, so a misspelt setting is an error
    naming it, not a change silently dropped.
    """
    given = {name: value for name, value in fields.items() if value is not UNSET}
    if isinstance(update, AdminProjectUpdate):
        data: dict[str, Any] = {name: getattr(update, name) for name in update.model_fields_set}
    elif update is None:
        data = {}
    elif isinstance(update, Mapping):
        data = dict(update)
    else:
        raise TypeError(f"update must be an AdminProjectUpdate or a dict, not {type(update).__name__}.")
    data.update(given)
    if isinstance(data.get("config"), AdminProjectConfigUpdate):
        config = data["config"]
        data["config"] = {name: getattr(config, name) for name in config.model_fields_set}
    try:
        return AdminProjectUpdate.model_validate(data).wire()
    except pydantic.ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise ValueError(f"Invalid project settings ({problems}).") from None


def _smtp_body(email_config: EmailConfig | Mapping[str, Any]) -> dict[str, Any]:
    values = email_config.model_dump() if isinstance(email_config, EmailConfig) else dict(email_config)
    missing = [name for name in _SMTP_FIELDS if values.get(name) in (None, "")]
    if missing:
        raise ValueError(f"email_config needs {', '.join(missing)} (an SMTP server: {', '.join(_SMTP_FIELDS)}).")
    return {name: values[name] for name in _SMTP_FIELDS}


class _PermissionDefinitionsOps(_Namespace):
    _path = "/team-permission-definitions"

    @operation
    def create(
        self, permission_id: str, *, description: str = UNSET, contained_permission_ids: Sequence[str] = UNSET
    ) -> Op[PermissionDefinition]:
        """Define a permission (id: lower-case letters, digits, ``_`` and ``:``; team and
        project permissions share ids: ``PermissionIdAlreadyExists`` on API 2.8).

        Holding it also grants every permission in ``contained_permission_ids`` (and what
        they contain); raises ``ContainedPermissionNotFound`` for an unknown one.
        """
        body = {"id": permission_id, **changes(description=description)}
        if contained_permission_ids is not UNSET:
            body["contained_permission_ids"] = list(contained_permission_ids)
        answer = yield from self._transport.call_json("POST", self._path, json=body)
        return parse(PermissionDefinition, answer)

    @operation
    def update(
        self,
        permission_id: str,
        *,
        new_id: str = UNSET,
        description: str = UNSET,
        contained_permission_ids: Sequence[str] = UNSET,
    ) -> Op[PermissionDefinition]:
        """Rename (``new_id``), describe, or replace the contained permissions."""
        body = changes(id=new_id, description=description)
        if contained_permission_ids is not UNSET:
            body["contained_permission_ids"] = list(contained_permission_ids)
        path = f"{self._path}/{segment(permission_id)}"
        answer = yield from self._transport.call_json("PATCH", path, json=body)
        return parse(PermissionDefinition, answer)

    @operation
    def delete(self, permission_id: str) -> Op[None]:
        """Delete a definition (``PermissionNotFound`` if there is none)."""
        yield from self._transport.call("DELETE", f"{self._path}/{segment(permission_id)}")

    @operation
    def list(self) -> Op[list[PermissionDefinition]]:
        """Every definition, sorted by id (team ones: system permissions ``$...`` included)."""
        body = yield from self._transport.call_json("GET", self._path)
        return parse_items(PermissionDefinition, body)


class AdminPermissionDefinitions(_PermissionDefinitionsOps, Twin[R]):
    """``admin.permission_definitions``: the project's team permissions."""


class _ProjectDefinitionsOps(_PermissionDefinitionsOps):
    # The same calls on the project's own permissions (API 2.8): ids share one namespace with
    # team permissions (PermissionIdAlreadyExists), and may contain only project permissions.
    _path = "/project-permission-definitions"


class AdminProjectPermissionDefinitions(_ProjectDefinitionsOps, Twin[R]):
    """``admin.project_permission_definitions``: permissions users hold without a team (API 2.8)."""


#: The admin view of the project: API 2.8 moved it (its ``/projects/current`` answers every
#: tier with the client view, and refuses PATCH and DELETE with 405), API 2.7 has it at
#: ``/projects/current``. Only the new path tells the versions apart (a 2.7 service answers
#: it with a plain 404, with no side effect for any method), so it is tried first, once per
#: app, and the path that answered is kept.
PROJECT_PATH_2_8 = "/internal/projects/current"
PROJECT_PATH_2_7 = "/projects/current"


def _body_2_8(body: dict[str, Any]) -> dict[str, Any]:
    """A project update for API 2.8, whose OAuth providers have no ``enabled`` (a listed
    provider is enabled: a disabled one is left out) and which has no legacy JWT signing."""
    config = body.get("config")
    if not isinstance(config, dict):
        return body
    config = {name: value for name, value in config.items() if name != "legacy_global_jwt_signing"}
    providers = config.get("oauth_providers")
    if isinstance(providers, list):
        config["oauth_providers"] = [
            {name: value for name, value in provider.items() if name != "enabled"}
            for provider in providers
            if provider.get("enabled", True)
        ]
    return {**body, "config": config}


#: Project settings API 2.7 does not have (its service refuses them as unknown properties).
SETTINGS_2_8 = (
    "allow_user_api_keys",
    "allow_team_api_keys",
    "user_default_permissions",
    "oauth_account_merge_strategy",
    "require_email_verification",
)


def _refuse_2_8_settings(body: dict[str, Any]) -> None:
    """A clear error, before the call, for settings of API 2.8 sent to a 2.7 service."""
    config = body.get("config")
    named = [name for name in SETTINGS_2_8 if isinstance(config, dict) and name in config]
    if named:
        raise ValueError(
            f"{', '.join(named)}: only API 2.8 has {'this setting' if len(named) == 1 else 'these settings'}, and "
            "this service speaks API 2.7. Leave it out, or use a 2.8 service (locally: `authmw dev --api 2.8`)."
        )


class _AdminOps(ConfigCalls):
    _owner_session: Session | None = None
    #: The admin project path this app's service answered (None: not called yet).
    _project_path: str | None = None

    def __init__(self, config: AuthConfig | None = None, /, *, owner_session: Session | None = None, **kwargs: Any):
        self._owner_session = owner_session
        super().__init__(config, **kwargs)  # type: ignore[call-arg]

    def _new_transport(self, config: AuthConfig) -> Transport:
        if self._owner_session is None:
            return Transport(config, "admin")
        # A project owner: the admin access token replaces the key (refreshed and retried when refused).
        return Transport(config, "admin", require_key=False, admin_session=self._owner_session)

    @operation
    def get_project(self) -> Op[AdminProject]:
        """The project with every setting (the admin view)."""
        response = yield from self._project_call("GET")
        return parse(AdminProject, parse_json(response))

    @operation
    def update_project(
        self,
        update: AdminProjectUpdate | Mapping[str, Any] | None = None,
        /,
        *,
        display_name: str = UNSET,
        description: str | None = UNSET,
        is_production_mode: bool = UNSET,
        config: AdminProjectConfigUpdate | Mapping[str, Any] = UNSET,
    ) -> Op[AdminProject]:
        """Change the project: an :class:`AdminProjectUpdate`, a dict of the same fields, or keywords.

        ``config`` changes only the settings it names; ``domains`` and ``oauth_providers``
        replace their whole list. The service does not run the production checks when
        ``is_production_mode`` is switched on: see :meth:`production_mode_errors`.
        """
        body = project_update_body(
            update,
            display_name=display_name,
            description=description,
            is_production_mode=is_production_mode,
            config=config,
        )
        if self._project_path is None:
            yield from self._project_call("GET")  # which version: the body differs (below)
        if self._project_path == PROJECT_PATH_2_8:
            body = _body_2_8(body)
        else:
            _refuse_2_8_settings(body)
        response = yield from self._project_call("PATCH", json=body)
        return parse(AdminProject, parse_json(response))

    @operation
    def update_config(self, values: Mapping[str, Any], /, *, level: ConfigLevel = "environment") -> Op[None]:
        """Change settings the API 2.8 way: a config override of dotted keys of the 2.8 config,
        e.g. ``{"onboarding.requireEmailVerification": True}`` (``None`` puts a key's default
        back). A key the service does not know is refused naming it. API 2.8 only
        (:class:`~authmw.errors.NotInServiceVersion` from a 2.7 service)."""
        yield from self._update_config(values, level)

    @operation
    def get_config(self) -> Op[dict[str, Any]]:
        """The project's config in the 2.8 shape (nested keys), as the service renders it."""
        return (yield from self._get_config())

    @operation
    def delete_project(self) -> Op[None]:
        """Delete the project and all its data (users, teams, keys). There is no undo."""
        yield from self._project_call("DELETE")

    def _project_call(self, method: str, **kwargs: Any) -> Op[Response]:
        """The admin project call at the path of the service's API version (see PROJECT_PATH_2_8)."""
        if self._project_path is not None:
            return (yield from self._transport.call(method, self._project_path, **kwargs))
        try:
            response = yield from self._transport.call(method, PROJECT_PATH_2_8, **kwargs)
        except HttpStatusError as exc:
            if exc.status != 404:
                raise
            response = yield from self._transport.call(method, PROJECT_PATH_2_7, **kwargs)
            self._project_path = PROJECT_PATH_2_7
            return response
        self._project_path = PROJECT_PATH_2_8
        return response

    @operation
    def production_mode_errors(self, *, dashboard_url: str = DEFAULT_DASHBOARD_URL) -> Op[list[ProductionModeError]]:
        """What stands between the project and production mode; empty when ready."""
        project = yield from _AdminOps.get_project.op(self)
        return production_mode_errors(project, dashboard_url=dashboard_url)

    @operation
    def send_test_email(
        self, *, recipient_email: str, email_config: EmailConfig | Mapping[str, Any]
    ) -> Op[TestEmailResult]:
        """Send a test e-mail through an SMTP server; ``success`` False with ``error_message`` when it fails."""
        body = {"recipient_email": recipient_email, "email_config": _smtp_body(email_config)}
        answer = yield from self._transport.call_json("POST", "/internal/send-test-email", json=body)
        return parse(TestEmailResult, answer)

    @operation
    def get_metrics(self) -> Op[Metrics]:
        """User counts, daily sign-ups and activity, recent users, sign-in methods."""
        answer = yield from self._transport.call_json("GET", "/internal/metrics")
        return parse(Metrics, answer)

    @operation
    def create_svix_token(self) -> Op[str]:
        """A token for the webhook provider's app portal (the project id is the app id)."""
        answer = yield from self._transport.call_json("POST", "/webhooks/svix-token", json={})
        token = answer.get("token") if isinstance(answer, dict) else None
        if not isinstance(token, str) or not token:
            raise InvalidServerResponse("The webhook token answer has no token.")
        return token


class AdminApp(_AdminOps, ServerApp):
    """A project owner's access: the super secret admin key, or an owner's session.

    Everything :class:`ServerApp` does, plus the project's settings (``get_project``,
    ``update_project``, ``delete_project``, ``production_mode_errors``), ``api_keys``,
    ``email_templates`` (API 2.7), ``tsx_email_templates`` and ``email_themes`` (API 2.8),
    ``permission_definitions`` (team permissions),
    ``project_permission_definitions`` (API 2.8), ``sign_up_rules`` and ``update_config`` /
    ``get_config`` (API 2.8), ``get_metrics``, ``send_test_email`` and ``create_svix_token``.
    """

    _tier = "admin"
    api_keys = namespace(AdminApiKeys[SyncRunner])
    email_templates = namespace(AdminEmailTemplates[SyncRunner])
    tsx_email_templates = namespace(AdminTsxEmailTemplates[SyncRunner])
    email_themes = namespace(AdminEmailThemes[SyncRunner])
    permission_definitions = namespace(AdminPermissionDefinitions[SyncRunner])
    project_permission_definitions = namespace(AdminProjectPermissionDefinitions[SyncRunner])
    sign_up_rules = namespace(AdminSignUpRules[SyncRunner])


class AsyncAdminApp(_AdminOps, AsyncServerApp):
    """:class:`AdminApp` for asyncio: every call returns a coroutine."""

    _tier = "admin"
    api_keys = namespace(AdminApiKeys[AsyncRunner])
    email_templates = namespace(AdminEmailTemplates[AsyncRunner])
    tsx_email_templates = namespace(AdminTsxEmailTemplates[AsyncRunner])
    email_themes = namespace(AdminEmailThemes[AsyncRunner])
    permission_definitions = namespace(AdminPermissionDefinitions[AsyncRunner])
    project_permission_definitions = namespace(AdminProjectPermissionDefinitions[AsyncRunner])
    sign_up_rules = namespace(AdminSignUpRules[AsyncRunner])
