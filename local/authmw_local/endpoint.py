"""Declaring API endpoints: tiers, request schemas and the handler, in one decorator.

    group = EndpointGroup()

    @group.post("/auth/password/sign-in", tiers=ANY, body=Obj({...}, required=True))
    def sign_in(ctx: RequestContext) -> dict: ...

    routes = group.routes   # each route module exposes this list

The wrapper parses the body, resolves authentication (auth.py), checks the tier
(INSUFFICIENT_ACCESS_TYPE), validates params / query / headers / body (SCHEMA_ERROR), runs the
handler inside one database transaction and renders the result. Slow work that needs no
database (password hashing) is done between two passes of the handler, outside any
transaction (`RequestContext.outside`), so that other requests need not wait for it.
"""

from __future__ import annotations

import json
import math
import re
import sqlite3
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from .api_version import ApiVersion
from .auth import TIERS, Auth, resolve
from .errors import CatalogueError, ServiceError, schema_error
from .projects import Project
from .responses import AfterCommit, Created, json_response
from .schema import MISSING, Obj, Spec, Uuid
from .service import Service

ANY = frozenset(TIERS)
SERVER_OR_ADMIN = frozenset({"server", "admin"})
ADMIN = frozenset({"admin"})

API_PREFIX = "/api/v1"


def also_at_latest(routes: list[Route]) -> list[Route]:
    """`routes` and the same endpoints under `/api/latest`, the prefix the backend gives its
    newest version (Stack's e2e suite calls some areas there)."""
    return routes + [
        Route("/api/latest" + route.path.removeprefix(API_PREFIX), route.endpoint, methods=route.methods)
        for route in routes
    ]

#: Whether a version has an endpoint (`when=` of a route): a feature of api_version.ApiVersion.
Availability = Callable[[ApiVersion], bool]

NOT_FOUND_TEXT = (
    "404 — this page does not exist in Stack Auth's API.\n\n"
    "Please see the API documentation at https://docs.stack-auth.com, or visit the authmw local"
    " service's source if you believe this is a bug.\n\nURL: {url}"
)

Handler = Callable[["RequestContext"], Any]

#: Passes of a handler that asks for work outside the transaction (`RequestContext.outside`)
#: before the work is done inside it instead: a request whose data keeps changing between
#: passes still ends.
OUTSIDE_PASSES = 3


class _WorkOutside(Exception):
    """Raised by `RequestContext.outside` to leave the transaction for slow work."""

    def __init__(self, key: tuple[object, ...], work: Callable[[], object]) -> None:
        super().__init__(key[0])
        self.key = key
        self.work = work


@dataclass(frozen=True)
class NeedsUser:
    """How an endpoint that needs a signed-in user answers a request without one.

    `code`: a catalogue code answered after validation (e.g. CANNOT_GET_OWN_USER_WITHOUT_USER);
    None: a SCHEMA_ERROR whose problems include `auth.user must be defined`, as the real
    service's request schemas answer.
    """

    code: str | None


#: Without a user: SCHEMA_ERROR "auth.user must be defined" (with the request's other problems).
USER_IN_SCHEMA = NeedsUser(None)


def names_me(spec: Spec | None, values: Any) -> bool:
    """Whether a field of `spec` that takes a user id or "me" (service-api A1.4) says "me"."""
    return (
        isinstance(spec, Obj)
        and isinstance(values, Mapping)
        and any(
            isinstance(field, Uuid) and field.allow_me and values.get(name) == "me"
            for name, field in spec.fields.items()
        )
    )


@dataclass
class RequestContext:
    """One API request as a handler sees it: the service, the request's SQLite transaction
    (`sql`), its project authentication, and the validated body, query and path parameters."""

    service: Service
    sql: sqlite3.Connection
    request: Request
    auth: Auth | None
    body: Any = None
    raw_body: Any = None
    query: dict[str, Any] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict)
    kept_on_error: list[Callable[[sqlite3.Connection], object]] = field(default_factory=list)
    committed_callbacks: list[Callable[[], object]] = field(default_factory=list)
    #: Seconds to wait before answering, after the transaction (so no lock is held meanwhile).
    response_delay: float = 0.0
    #: Results of work done outside the transaction, by key (`outside`).
    done_outside: dict[tuple[object, ...], object] = field(default_factory=dict)
    last_pass: bool = False

    @property
    def api(self) -> ApiVersion:
        """The backend version the service answers as (api_version.py)."""
        return self.service.api

    @property
    def project(self) -> Project:
        assert self.auth is not None, "endpoint declared without tiers has no project"
        return self.auth.project

    @property
    def tier(self) -> str:
        assert self.auth is not None, "endpoint declared without tiers has no tier"
        return self.auth.tier

    @property
    def user(self) -> sqlite3.Row | None:
        return None if self.auth is None else self.auth.user

    @property
    def signed_in_user(self) -> sqlite3.Row:
        """The user, on endpoints declared with `needs_user`."""
        assert self.user is not None, "endpoint declared without needs_user may have no user"
        return self.user

    def keep_on_error(self, write: Callable[[sqlite3.Connection], object]) -> None:
        """Run `write` now, and again in its own transaction if the request fails.

        A failing request rolls back all its writes; some must survive (e.g. attempt counters
        of verification codes, service-api A5.3)."""
        write(self.sql)
        self.kept_on_error.append(write)

    def on_commit(self, callback: Callable[[], object]) -> None:
        """Run `callback` once the request's transaction has committed (never if the request fails).

        For quick hand-offs of slow work that must not hold the database, e.g. queueing an
        e-mail for SMTP delivery (mail.py)."""
        self.committed_callbacks.append(callback)

    def outside(self, key: tuple[object, ...], work: Callable[[], Any]) -> Any:
        """The result of `work`, slow CPU work that needs no database (a password hash),
        computed with no lock held.

        The first time a key is asked for, the request's transaction is rolled back, `work`
        runs outside it (other requests use the database meanwhile; scrypt releases the GIL),
        and the handler runs again from the start in a new transaction, where this call
        returns the result. `key` must name everything the result depends on, so that a pass
        that reads other data asks for other work (e.g. ("verify", password, stored_hash)).
        On the last pass the work runs here, inside the transaction."""
        if key in self.done_outside:
            return self.done_outside[key]
        if self.last_pass:
            return work()
        raise _WorkOutside(key, work)

    def validate(self, spec: Spec, value: Any, where: str = "body") -> Any:
        """Validate inside a handler (for schemas that depend on the tier)."""
        if self.user is None and names_me(spec, value):
            raise CatalogueError("CANNOT_GET_OWN_USER_WITHOUT_USER")  # first, as on 2.8.86 (Endpoint._pass)
        problems: list[str] = []
        cleaned = spec.check(MISSING if value is None else value, where, problems)
        if problems:
            raise schema_error(self.request.method, self.request.url.path, problems)
        return None if cleaned is MISSING else cleaned

    def user_id_or_me(self, value: str) -> str:
        """Resolve a "user id or me" field (service-api A1.4)."""
        if value != "me":
            return value
        if self.user is None:
            raise CatalogueError("CANNOT_GET_OWN_USER_WITHOUT_USER")
        user_id: str = self.user["id"]
        return user_id


@dataclass(frozen=True)
class PerApi:
    """A request schema that differs between API versions: `PerApi(v27=..., v28=...)`."""

    v27: Spec
    v28: Spec

    def for_api(self, api: ApiVersion) -> Spec:
        return self.v28 if api.name == "2.8" else self.v27


@dataclass(frozen=True)
class Endpoint:
    method: str
    path: str
    handler: Handler
    tiers: frozenset[str] | None
    body: Spec | PerApi | None
    query: Obj | PerApi | None
    params: Obj | None
    headers: Obj | None
    needs_user: NeedsUser | None
    #: Whether the service's version has this endpoint (None: every version) and the status of
    #: the others (404 for a path they do not have, 405 for a method they refuse on a path they have).
    when: Availability | None = None
    absent_status: int = 404

    async def __call__(self, request: Request) -> Response:
        service: Service = request.app.state.service
        if self.when is not None and not self.when(service.api):
            if self.absent_status == 405:
                return PlainTextResponse("Method not allowed", 405)
            return PlainTextResponse(NOT_FOUND_TEXT.format(url=str(request.url)), 404)
        try:
            body = await _parse_body(request)
            return await run_in_threadpool(self._run, service, request, body)
        except ServiceError as error:
            return error.to_response()

    def _run(self, service: Service, request: Request, body: Any) -> Response:
        done_outside: dict[tuple[object, ...], object] = {}
        for number in range(1, OUTSIDE_PASSES + 1):
            try:
                ctx, result = self._pass(service, request, body, done_outside, last=number == OUTSIDE_PASSES)
                break
            except _WorkOutside as asked:
                done_outside[asked.key] = asked.work()
        else:  # pragma: no cover - the last pass does its work inside
            raise AssertionError("no pass of the handler ended")
        for callback in ctx.committed_callbacks:
            callback()
        if ctx.response_delay > 0:
            time.sleep(ctx.response_delay)
        if isinstance(result, AfterCommit):
            result = result.fn()
        return _render(result, indent="text/html" in request.headers.get("accept", ""))

    def _pass(
        self, service: Service, request: Request, body: Any, done_outside: dict[tuple[object, ...], object], last: bool
    ) -> tuple[RequestContext, Any]:
        """One run of the handler in one transaction."""
        ctx: RequestContext | None = None
        try:
            with service.db.tx() as c:
                auth = resolve(c, service.tokens, request.headers)
                if auth is not None and auth.user is None and self._names_me(service.api, request, body):
                    # 2.8.86 swaps "me" for the user's id while it validates the request and stops
                    # there when there is no user: before the tier check and any other problem.
                    raise CatalogueError("CANNOT_GET_OWN_USER_WITHOUT_USER")
                self._check_tier(auth)
                ctx = RequestContext(
                    service=service,
                    sql=c,
                    request=request,
                    auth=auth,
                    raw_body=body,
                    headers=request.headers,
                    done_outside=done_outside,
                    last_pass=last,
                )
                self._validate(ctx, request, body)
                if self.needs_user is not None and self.needs_user.code is not None and ctx.user is None:
                    raise CatalogueError(self.needs_user.code)
                return ctx, self.handler(ctx)
        except ServiceError:
            if ctx is not None and ctx.kept_on_error:
                with service.db.tx() as c:
                    for write in ctx.kept_on_error:
                        write(c)
            raise

    def _names_me(self, api: ApiVersion, request: Request, body: Any) -> bool:
        """Whether a field that takes "me" (a user id or "me", service-api A1.4) says "me" in the
        path, the query or the body."""
        body_spec = self.body.for_api(api) if isinstance(self.body, PerApi) else self.body
        query_spec = self.query.for_api(api) if isinstance(self.query, PerApi) else self.query
        return (
            names_me(self.params, request.path_params)
            or names_me(query_spec, request.query_params)
            or names_me(body_spec, body)
        )

    def _check_tier(self, auth: Auth | None) -> None:
        if self.tiers is None:
            return
        if auth is None:
            raise CatalogueError("ACCESS_TYPE_REQUIRED")
        if auth.tier not in self.tiers:
            allowed = [tier for tier in TIERS if tier in self.tiers]
            raise CatalogueError(
                "INSUFFICIENT_ACCESS_TYPE",
                actual_access_type=auth.tier,
                allowed_access_types=allowed,
                allowed=" or ".join(f"'{tier}'" for tier in allowed),
            )

    def _validate(self, ctx: RequestContext, request: Request, body: Any) -> None:
        problems: list[str] = []
        if self.needs_user == USER_IN_SCHEMA and ctx.user is None:
            problems.append("auth.user must be defined")
        if self.params is not None:
            ctx.params = self.params.check(dict(request.path_params), "params", problems)
        else:
            ctx.params = dict(request.path_params)
        if self.headers is not None:
            present = {name: request.headers[name] for name in self.headers.fields if request.headers.get(name)}
            ctx.headers = {**request.headers, **self.headers.check(present, "headers", problems)}
        query_spec = self.query.for_api(ctx.api) if isinstance(self.query, PerApi) else self.query
        if query_spec is not None:
            ctx.query = query_spec.check(dict(request.query_params), "query", problems, query=True)
        body_spec = self.body.for_api(ctx.api) if isinstance(self.body, PerApi) else self.body
        if body_spec is not None:
            cleaned = body_spec.check(MISSING if body is None else body, "body", problems)
            ctx.body = None if cleaned is MISSING else cleaned
        if problems:
            raise schema_error(request.method, request.url.path, problems)


def _render(result: Any, *, indent: bool) -> Response:
    if isinstance(result, Response):
        return result
    if isinstance(result, Created):
        return json_response(result.body, 201, indent=indent)
    if isinstance(result, str):
        return PlainTextResponse(result)
    return json_response(result, indent=indent)


def _parse_int(text: str) -> int | float:
    """JSON integers as JavaScript reads them: too long for an exact int, they are +/-Infinity
    (a schema error later) rather than a parse failure of Python's digit limit."""
    if len(text) > 1000:
        return -math.inf if text.startswith("-") else math.inf
    return int(text)


#: A JSON escape of a UTF-16 surrogate (`\ud800`): json.loads pairs them, a lone one stays.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def without_lone_surrogates(value: Any) -> Any:
    """`value` with each lone surrogate as U+FFFD. JavaScript strings can hold one (the
    service's JSON.parse makes it), UTF-8 cannot, so neither can SQLite; Node writes U+FFFD
    for one when it encodes a string as UTF-8."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [without_lone_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {without_lone_surrogates(k): without_lone_surrogates(v) for k, v in value.items()}
    return value


def _refuse_constant(name: str) -> float:
    """NaN and Infinity are not JSON (JavaScript's JSON.parse refuses them too)."""
    raise ValueError(f"{name} is not JSON")


async def _parse_body(request: Request) -> Any:
    raw = await request.body()
    if not raw:
        return None
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type == "application/json":
        try:
            parsed = json.loads(raw, parse_int=_parse_int, parse_constant=_refuse_constant)
            return without_lone_surrogates(parsed) if _SURROGATE_ESCAPE.search(raw) else parsed
        except (ValueError, UnicodeDecodeError, RecursionError):
            raise CatalogueError("BODY_PARSING_ERROR", message="Invalid JSON in request body") from None
    if content_type == "application/x-www-form-urlencoded":
        try:
            return dict(parse_qsl(raw.decode(), keep_blank_values=True))
        except UnicodeDecodeError:
            raise CatalogueError("BODY_PARSING_ERROR", message="Invalid form data in request body") from None
    if content_type == "text/plain":
        return raw.decode(errors="replace")
    if content_type == "application/octet-stream":
        return raw
    raise CatalogueError("BODY_PARSING_ERROR", message=f"Unknown content type in request body: {content_type}")


def _as_function(endpoint: Endpoint) -> Callable[[Request], Any]:
    # Starlette treats callables that are not functions as raw ASGI apps.
    async def handle(request: Request) -> Response:
        return await endpoint(request)

    handle.__name__ = endpoint.handler.__name__
    return handle


class EndpointGroup:
    """The endpoints of one route module; paths are relative to /api/v1."""

    def __init__(self) -> None:
        self.endpoints: list[Endpoint] = []

    @property
    def routes(self) -> list[Route]:
        return [
            Route(API_PREFIX + e.path if e.path != "/" else API_PREFIX, _as_function(e), methods=[e.method])
            for e in self.endpoints
        ]

    def route(
        self,
        method: str,
        path: str,
        *,
        tiers: frozenset[str] | None,
        body: Spec | PerApi | None = None,
        query: Obj | PerApi | None = None,
        params: Obj | None = None,
        headers: Obj | None = None,
        needs_user: NeedsUser | None = None,
        when: Availability | None = None,
        absent_status: int = 404,
    ) -> Callable[[Handler], Handler]:
        """`body` / `query`: request schemas, or `PerApi` ones when the versions differ.
        `needs_user`: how a request without a signed-in user is answered (None: the handler
        decides). `when`: the feature of the API version that brings the endpoint (None: every
        version has it); the others answer `absent_status` (404, or 405 when they have the path
        with other methods)."""

        def register(handler: Handler) -> Handler:
            self.endpoints.append(
                Endpoint(
                    method, path, handler, tiers, body, query, params, headers, needs_user, when, absent_status
                )
            )
            return handler

        return register

    def get(self, path: str, **kw: Any) -> Callable[[Handler], Handler]:
        return self.route("GET", path, **kw)

    def post(self, path: str, **kw: Any) -> Callable[[Handler], Handler]:
        return self.route("POST", path, **kw)

    def patch(self, path: str, **kw: Any) -> Callable[[Handler], Handler]:
        return self.route("PATCH", path, **kw)

    def put(self, path: str, **kw: Any) -> Callable[[Handler], Handler]:
        return self.route("PUT", path, **kw)

    def delete(self, path: str, **kw: Any) -> Callable[[Handler], Handler]:
        return self.route("DELETE", path, **kw)
