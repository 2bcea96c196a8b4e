"""The public apps: ``ClientApp``, ``ServerApp`` and their ``Async`` twins.

Every API call is written once, as a generator method decorated with ``@operation``. On a
sync app the decorated method runs the generator under the sync driver and returns the
result; on an async app it returns a coroutine that runs it under the async driver::

    class _ClientOps(_CommonOps):
        @operation
        def get_project(self) -> Op[Project]:
            body = yield from self._transport.call_json("GET", "/projects/current")
            return Project.model_validate(body)

    class ClientApp(_ClientOps, SyncRunner): ...          # app.get_project()
    class AsyncClientApp(_ClientOps, AsyncRunner): ...    # await app.get_project()

Namespaces (``server.users``) are built the same way, so later calls slot in as
operations of a namespace class.
"""

from __future__ import annotations

import functools
import inspect
import json
import logging
import weakref
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, ClassVar, Concatenate, Generic, ParamSpec, TypeVar, overload

import pydantic

from ._config import AuthConfig
from ._ops import AsyncDriver, Op, SyncDriver
from ._session import Session
from ._tokens import Claims, TokenVerifier
from ._transport import Tier, Transport, segment
from .errors import CannotGetOwnUserWithoutUser, InvalidServerResponse, UserNotFound
from .models import Project, ServerUser, SignInResult, TokenPair, User, WireModel

if TYPE_CHECKING:
    from typing_extensions import Self  # typing.Self from Python 3.11

__all__ = [
    "AsyncClientApp",
    "AsyncServerApp",
    "ClientApp",
    "ServerApp",
    "operation",
]

P = ParamSpec("P")
T = TypeVar("T")
M = TypeVar("M", bound=WireModel)
C = TypeVar("C", bound=Callable[..., Any])

#: Default lifetime of a server-created session (spec section 9).
DEFAULT_SESSION_MILLIS = 31_536_000_000
#: More open apps than this (each with its own connection pool) earn a warning (spec 9).
OPEN_APPS_WARNING_THRESHOLD = 10

logger = logging.getLogger("authmw")
_open_apps: weakref.WeakSet[Any] = weakref.WeakSet()
_warned_open_apps = False


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


#: "Leave unchanged" in update calls (None means "clear").
UNSET: Any = _Unset()


def parse(model: type[M], body: Any) -> M:
    """The model of a wire body; a body that does not fit is an invalid server response."""
    try:
        return model.model_validate(body)
    except pydantic.ValidationError as exc:
        # Field locations and messages only: the input may hold tokens.
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'body'}: {e['msg']}" for e in exc.errors())
        raise InvalidServerResponse(f"The service's answer is not a valid {model.__name__} ({problems}).") from None


# -- running operations ---------------------------------------------------------------------


class SyncRunner:
    """Runs operations with blocking I/O."""

    _driver: SyncDriver

    def _bind(self, op: operation[..., T]) -> Callable[..., T]:
        fn = op.fn

        def call(*args: Any, **kwargs: Any) -> T:
            return self._driver.run(fn(self, *args, **kwargs))

        return op.describe(call)


class AsyncRunner:
    """Runs operations on the event loop."""

    _driver: AsyncDriver

    def _bind(self, op: operation[..., T]) -> Callable[..., Coroutine[Any, Any, T]]:
        fn = op.fn

        async def call(*args: Any, **kwargs: Any) -> T:
            return await self._driver.run(fn(self, *args, **kwargs))

        return op.describe(call)


class operation(Generic[P, T]):  # lower case: used as a decorator
    """Turns a generator method into a sync or async method depending on the class."""

    def __init__(self, fn: Callable[Concatenate[Any, P], Op[T]]) -> None:
        self.fn = fn
        functools.update_wrapper(self, fn)  # type: ignore[arg-type]
        signature = inspect.signature(fn)
        self.signature = signature.replace(
            parameters=list(signature.parameters.values())[1:], return_annotation=inspect.Signature.empty
        )

    def describe(self, call: C) -> C:
        """Give a bound call the operation's name, docs and signature (without self)."""
        for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
            setattr(call, attr, getattr(self.fn, attr))
        call.__signature__ = self.signature  # type: ignore[attr-defined]
        return call

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> operation[P, T]: ...
    @overload
    def __get__(self, obj: SyncRunner, owner: type | None = None) -> Callable[P, T]: ...
    @overload
    def __get__(self, obj: AsyncRunner, owner: type | None = None) -> Callable[P, Coroutine[Any, Any, T]]: ...
    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        return obj._bind(self)

    def op(self, obj: Any, *args: P.args, **kwargs: P.kwargs) -> Op[T]:
        """The bare operation, for composing inside another operation."""
        return self.fn(obj, *args, **kwargs)


# -- shared construction ------------------------------------------------------------------------


class _Api:
    """What operations see: the config, the transport and (client apps) the session."""

    config: AuthConfig
    _transport: Transport
    _driver: Any


class _App(_Api):
    _tier: ClassVar[Tier]
    _driver_class: ClassVar[type[SyncDriver | AsyncDriver]]

    def __init__(
        self,
        config: AuthConfig | None = None,
        /,
        *,
        driver: SyncDriver | AsyncDriver | None = None,
        timeout: float = 30.0,
        **settings: Any,
    ) -> None:
        """``config``, or ``AuthConfig`` settings as keywords (the rest from ``AUTHMW_*``).

        ``driver`` shares an existing driver (and its connections) instead of opening one;
        the app then leaves closing it to its owner. ``timeout`` is in seconds per request.
        """
        if config is None:
            config = AuthConfig.from_env(**settings)
        elif settings:
            config = config.with_(**settings)
        self.config = config
        self._transport = Transport(config, self._tier)
        self._owns_driver = driver is None
        self._driver = driver if driver is not None else self._driver_class(timeout=timeout)
        if self._owns_driver:
            _opened(self)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(project_id={self.config.project_id!r}, api_url={self.config.api_url!r})"


def _opened(app: _App) -> None:
    global _warned_open_apps
    _open_apps.add(app)
    if len(_open_apps) > OPEN_APPS_WARNING_THRESHOLD and not _warned_open_apps:
        _warned_open_apps = True
        logger.warning(
            "authmw: %d apps are open, each with its own connection pool. Create one app at start-up "
            "and share it (or close apps with `with` / close()).",
            len(_open_apps),
        )


class _SyncApp(_App, SyncRunner):
    _driver_class = SyncDriver

    def close(self) -> None:
        """Close the HTTP connections (only those the app opened itself)."""
        if self._owns_driver:
            _open_apps.discard(self)
            self._driver.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _AsyncApp(_App, AsyncRunner):
    _driver_class = AsyncDriver

    async def aclose(self) -> None:
        """Close the HTTP connections (only those the app opened itself)."""
        if self._owns_driver:
            _open_apps.discard(self)
            await self._driver.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class _CommonOps(_Api):
    """Calls every tier has."""

    @operation
    def get_project(self) -> Op[Project]:
        """The project's public settings (client view, also for the server tier)."""
        body = yield from self._transport.call_json("GET", "/projects/current")
        return parse(Project, body)


# -- client tier ------------------------------------------------------------------------------


class _ClientOps(_CommonOps):
    session: Session

    def __init__(
        self,
        config: AuthConfig | None = None,
        /,
        *,
        access_token: str | None = None,
        refresh_token: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(config, **kwargs)  # type: ignore[call-arg]
        self.session = Session(self.config, access_token=access_token, refresh_token=refresh_token)

    def _sign_in(self, body: Any) -> SignInResult:
        result = parse(SignInResult, body)
        self.session.set_tokens(result.access_token, result.refresh_token)
        return result

    @operation
    def sign_up_with_password(
        self, email: str, password: str, verification_callback_url: str | None = None
    ) -> Op[SignInResult]:
        """Create a user with e-mail and password and sign in as them.

        The service e-mails a verification link to ``verification_callback_url`` (your
        front end's e-mail verification page). Without one, a link to
        ``{api_url}{handler_path}/email-verification`` is used, which the service only
        sends if it trusts that domain.
        """
        callback = verification_callback_url or f"{self.config.api_url}{self.config.handler_path}/email-verification"
        body = yield from self._transport.call_json(
            "POST",
            "/auth/password/sign-up",
            json={"email": email, "password": password, "verification_callback_url": callback},
        )
        return self._sign_in(body)

    @operation
    def sign_in_with_password(self, email: str, password: str) -> Op[SignInResult]:
        """Sign in; raises ``EmailPasswordMismatch`` for a wrong e-mail or password."""
        body = yield from self._transport.call_json(
            "POST", "/auth/password/sign-in", json={"email": email, "password": password}
        )
        return self._sign_in(body)

    @operation
    def sign_out(self) -> Op[None]:
        """Revoke the session's refresh token and forget both tokens."""
        yield from self.session.sign_out(self._transport)

    @operation
    def get_access_token(self) -> Op[str | None]:
        """An access token valid for at least 20 s (refreshed if needed), or None."""
        return (yield from self.session.get_access_token())

    @operation
    def get_auth_headers(self) -> Op[dict[str, str]]:
        """``{"x-stack-auth": ...}`` to forward this session to your own back end.

        The access token is refreshed first if needed. The authmw middleware (and the
        official SDKs) read the header; it wins over cookies.
        """
        access = yield from self.session.get_access_token()
        value = {"accessToken": access, "refreshToken": self.session.refresh_token}
        return {"x-stack-auth": json.dumps(value, separators=(",", ":"))}

    @operation
    def get_user(self) -> Op[User | None]:
        """The signed-in user, or None."""
        if not self.session.is_signed_in:
            return None
        try:
            body = yield from self._transport.call_json("GET", "/users/me", session=self.session)
        except CannotGetOwnUserWithoutUser:
            return None
        return parse(User, body)

    @operation
    def update_user(
        self,
        *,
        display_name: str | None = UNSET,
        client_metadata: Any = UNSET,
        selected_team_id: str | None = UNSET,
        profile_image_url: str | None = UNSET,
        otp_auth_enabled: bool = UNSET,
        passkey_auth_enabled: bool = UNSET,
        totp_secret_base64: str | None = UNSET,
    ) -> Op[User]:
        """Change the fields the client tier may change; pass None to clear a field."""
        changes = {
            "display_name": display_name,
            "client_metadata": client_metadata,
            "selected_team_id": selected_team_id,
            "profile_image_url": profile_image_url,
            "otp_auth_enabled": otp_auth_enabled,
            "passkey_auth_enabled": passkey_auth_enabled,
            "totp_secret_base64": totp_secret_base64,
        }
        payload = {k: v for k, v in changes.items() if v is not UNSET}
        body = yield from self._transport.call_json("PATCH", "/users/me", json=payload, session=self.session)
        return parse(User, body)

    @operation
    def delete_user(self) -> Op[None]:
        """Delete the signed-in user (if the project allows it); the session becomes invalid."""
        yield from self._transport.call("DELETE", "/users/me", json={}, session=self.session)
        self.session.invalidate()


class ClientApp(_ClientOps, _SyncApp):
    """A user's view of the project: sign up, sign in, the user's own data.

    ``ClientApp(config)``, ``ClientApp(project_id=..., publishable_client_key=...)`` or
    ``ClientApp()`` to read ``AUTHMW_*`` variables. Pass ``access_token`` and
    ``refresh_token`` to resume a session; ``app.session`` holds the tokens.
    """

    _tier = "client"


class AsyncClientApp(_ClientOps, _AsyncApp):
    """:class:`ClientApp` for asyncio: every call returns a coroutine."""

    _tier = "client"


# -- server tier ----------------------------------------------------------------------------------


class _Namespace(_Api):
    """A group of calls of an app (``server.users``); shares the app's transport and driver."""

    def __init__(self, app: _Api) -> None:
        self.config = app.config
        self._transport = app._transport
        self._driver = app._driver


class _ServerUsersOps(_Namespace):
    @operation
    def get(self, user_id: str) -> Op[ServerUser | None]:
        """The user with this id, or None."""
        try:
            body = yield from self._transport.call_json("GET", f"/users/{segment(user_id)}")
        except UserNotFound:
            return None
        return parse(ServerUser, body)


class ServerUsers(_ServerUsersOps, SyncRunner):
    pass


class AsyncServerUsers(_ServerUsersOps, AsyncRunner):
    pass


class _ServerOps(_CommonOps):
    _users_class: ClassVar[type[_ServerUsersOps]]
    _verifier: TokenVerifier | None = None

    def __init__(self, config: AuthConfig | None = None, /, **kwargs: Any) -> None:
        super().__init__(config, **kwargs)  # type: ignore[call-arg]
        self.users = self._users_class(self)

    @property
    def token_verifier(self) -> TokenVerifier:
        """Verifies this project's access tokens (created on first use, then cached)."""
        if self._verifier is None:
            self._verifier = TokenVerifier(self.config)
        return self._verifier

    @operation
    def get_user(self, user_id: str) -> Op[ServerUser | None]:
        """The user with this id, or None (same as ``users.get``)."""
        return (yield from _ServerUsersOps.get.op(self, user_id))

    @operation
    def create_session(self, user_id: str, expires_in_millis: int = DEFAULT_SESSION_MILLIS) -> Op[TokenPair]:
        """Mint a session for a user (e.g. to sign them in after your own checks)."""
        body = yield from self._transport.call_json(
            "POST", "/auth/sessions", json={"user_id": user_id, "expires_in_millis": expires_in_millis}
        )
        return parse(TokenPair, body)

    @operation
    def verify_access_token(self, access_token: str) -> Op[Claims]:
        """Check an access token's signature and claims; raises ``InvalidAccessToken``."""
        return (yield from self.token_verifier.verify(access_token))


class ServerApp(_ServerOps, _SyncApp):
    """Trusted back-end access with the secret server key: any user, sessions, the project."""

    _tier = "server"
    _users_class = ServerUsers
    users: ServerUsers


class AsyncServerApp(_ServerOps, _AsyncApp):
    """:class:`ServerApp` for asyncio: every call returns a coroutine."""

    _tier = "server"
    _users_class = AsyncServerUsers
    users: AsyncServerUsers
