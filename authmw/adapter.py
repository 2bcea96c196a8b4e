"""The seam for framework adapters: what authmw_fastapi, authmw_django and authmw_flask use
from the core, under public names. A fourth adapter (Litestar, Quart, Sanic, ...) needs only
this module, :mod:`authmw` and :mod:`authmw.middleware`; docs/architecture.md ("Writing an
adapter") walks through one.

- Reading a request's session: :class:`SessionResolver` (sync and async) gives a
  :class:`Resolved` (the user, the cookies to write back, a refusal) from the headers of
  :data:`READ_HEADERS`; :func:`is_secure` decides ``Secure`` cookies;
  :func:`with_session_cookies` adds the ``Set-Cookie`` headers to a response.
- Settings: :func:`read_settings` turns a framework's settings mapping (:data:`KEYS`) into
  :class:`AdapterSettings` (:class:`Options`: the cross-site :class:`OriginPolicy`, cookies,
  ``api_paths``).
- Guards: one access decision for every framework. An adapter's ``Guard`` is a
  :class:`GuardBase` (a :class:`Rule`: the route's :class:`TeamRequirement` /
  :class:`PermissionRequirement` and :class:`AccessOptions`); it asks :func:`decide` (run on
  the resolver's driver) and translates the :class:`Denial` it may get
  (:meth:`Denial.refusal`, :func:`wants_page`). :func:`guard_decorators` and
  :func:`permission_decorator` build the decorators over that ``Guard``.
- Linking to an app's own users by e-mail: :func:`linkable_email` (the one rule: verified at
  the service, held by no other authmw user) and :class:`EmailLinkRefused`.
- Serving the built React app: :class:`WebBuild` answers a path with a :class:`WebFile` (or
  None), with the cache headers; the adapter sends the file.
- Server-rendered OAuth: :class:`OAuthRoutes` returns :class:`Reply` values the adapter turns
  into responses; run its operations with :class:`SyncDriver` or :class:`AsyncDriver`.
"""

from __future__ import annotations

from ._linking import EmailLinkRefused, linkable_email
from ._oauth_flow import OAuthRoutes, Reply
from ._ops import AsyncDriver, Op, SyncDriver
from ._tokens import Claims
from ._urls import same_origin_path
from ._web_build import WebBuild, WebFile
from .middleware._access import (
    DEFAULT_TEAM_ARG,
    AccessOptions,
    Denial,
    GuardBase,
    PermissionRequirement,
    Rule,
    TeamRequirement,
    TeamSource,
    ViewFunction,
    decide,
    guard_decorators,
    permission_decorator,
    sign_in_url,
    wants_page,
)
from .middleware._cookies import ACCESS_COOKIE, with_session_cookies
from .middleware._credentials import is_secure
from .middleware._origin import OriginPolicy, WebSocketCrossSite
from .middleware._resolver import READ_HEADERS, Resolved, SessionRequest, SessionResolver
from .middleware._settings import (
    KEYS,
    AdapterKeywords,
    AdapterSettings,
    Options,
    SettingKeywords,
    given_settings,
    read_settings,
)
from .middleware._user import ANONYMOUS

__all__ = [
    "ACCESS_COOKIE",
    "ANONYMOUS",
    "DEFAULT_TEAM_ARG",
    "KEYS",
    "READ_HEADERS",
    "AccessOptions",
    "AdapterKeywords",
    "AdapterSettings",
    "AsyncDriver",
    "Claims",
    "Denial",
    "EmailLinkRefused",
    "GuardBase",
    "OAuthRoutes",
    "Op",
    "Options",
    "OriginPolicy",
    "PermissionRequirement",
    "Reply",
    "Resolved",
    "Rule",
    "SessionRequest",
    "SessionResolver",
    "SettingKeywords",
    "SyncDriver",
    "TeamRequirement",
    "TeamSource",
    "ViewFunction",
    "WebBuild",
    "WebFile",
    "WebSocketCrossSite",
    "decide",
    "given_settings",
    "guard_decorators",
    "is_secure",
    "linkable_email",
    "permission_decorator",
    "read_settings",
    "same_origin_path",
    "sign_in_url",
    "wants_page",
    "with_session_cookies",
]
