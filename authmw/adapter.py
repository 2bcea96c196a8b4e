"""The seam for framework adapters: what authmw_fastapi, authmw_django and authmw_flask use
from the core, under public names. A fourth adapter (Litestar, Quart, Sanic, ...) needs only
this module, :mod:`authmw` and :mod:`authmw.middleware`; docs/architecture.md ("Writing an
adapter") walks through one.

- Reading a request's session: :class:`SessionResolver` (sync and async) gives a
  :class:`Resolved` (the user, the cookies to write back, a refusal) from the Cookie header,
  the ``x-stack-auth`` header and :func:`bearer_token`; :func:`is_secure` decides ``Secure``
  cookies; :func:`with_session_cookies` adds the ``Set-Cookie`` headers to a response.
- Settings: :func:`read_settings` turns a framework's settings mapping (:data:`KEYS`) into
  :class:`AdapterSettings`; :func:`secret_key_needed` explains a missing server key.
- Cross-site requests: :class:`OriginPolicy` and :func:`own_origin`.
- Guards: :func:`guard_decorators` builds ``user_required`` / ``team_member_required`` /
  ``team_permission_required`` from three framework callbacks; :func:`sign_in_url`,
  :func:`is_json_request`, :func:`forbidden` and :func:`team_refusal` decide the answers.
- Server-rendered OAuth: :class:`OAuthRoutes` returns :class:`Reply` values the adapter turns
  into responses; run its operations with :class:`SyncDriver` or :class:`AsyncDriver`.
"""

from __future__ import annotations

from ._oauth_flow import OAuthRoutes, Reply
from ._ops import AsyncDriver, Op, SyncDriver
from ._tokens import Claims
from ._urls import same_origin_path
from .middleware._access import (
    DEFAULT_TEAM_ARG,
    TeamSource,
    V,
    forbidden,
    guard_decorators,
    is_json_request,
    sign_in_url,
    team_refusal,
)
from .middleware._cookies import ACCESS_COOKIE, with_session_cookies
from .middleware._core import OnRefreshUnavailable, bearer_token, is_secure
from .middleware._origin import OriginPolicy, own_origin
from .middleware._resolver import Resolved, SessionResolver
from .middleware._settings import KEYS, AdapterSettings, read_settings, secret_key_needed
from .middleware._user import ANONYMOUS

__all__ = [
    "ACCESS_COOKIE",
    "ANONYMOUS",
    "DEFAULT_TEAM_ARG",
    "KEYS",
    "AdapterSettings",
    "AsyncDriver",
    "Claims",
    "OAuthRoutes",
    "OnRefreshUnavailable",
    "Op",
    "OriginPolicy",
    "Reply",
    "Resolved",
    "SessionResolver",
    "SyncDriver",
    "TeamSource",
    "V",
    "bearer_token",
    "forbidden",
    "guard_decorators",
    "is_json_request",
    "is_secure",
    "own_origin",
    "read_settings",
    "same_origin_path",
    "secret_key_needed",
    "sign_in_url",
    "team_refusal",
    "with_session_cookies",
]
