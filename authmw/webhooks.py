"""Webhooks of the service: verify a delivery, get a typed event, refuse replays.

The service sends each change (a user deleted in the dashboard, a membership removed, a
permission granted) as a POST signed the Svix way (HMAC-SHA256, timestamp within 5 minutes)::

    from authmw.webhooks import verify, UserDeleted

    event = verify(raw_body, request.headers, "whsec_...")
    if isinstance(event, UserDeleted):
        deactivate(event.data.id)

:func:`verify` checks the signature against the raw body (before any JSON parsing), the
timestamp (within five minutes of now, either way, as Svix's receiver), and that the message
id was not seen before; it then parses ``{"type", "data"}`` into the event class of the type
(:data:`EVENT_TYPES`), or :class:`UnknownEvent` for a type this version does not know. Every
refusal is one :class:`InvalidWebhook` whose ``reason`` names what failed.

The HMAC itself is computed by the ``standardwebhooks`` package (the library Svix's own
Python receiver wraps); authmw reads the ``svix-*`` headers (or ``webhook-*``), checks the
timestamp against an injectable clock and compares every ``v1`` entry in constant time.

Receivers for the three frameworks (:class:`Webhooks` holds the handlers) are in
``authmw_fastapi.webhook_router``, ``authmw_django.webhook_view`` and
``authmw_flask.webhook_blueprint``.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import inspect
import json
import logging
import re
import threading
import time
from collections.abc import AsyncIterable, Awaitable, Callable, Generator, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, ClassVar, Literal, Protocol, TypeVar

from cachetools import TTLCache
from pydantic import BaseModel, ConfigDict, ValidationError
from standardwebhooks.webhooks import Webhook as _StandardWebhook

from .errors import AuthmwError
from .models import ServerTeam, ServerUser

__all__ = [
    "EVENT_TYPES",
    "MAX_BODY_BYTES",
    "TOLERANCE_SECONDS",
    "Handled",
    "InvalidWebhook",
    "MemorySeenIds",
    "ProjectPermissionCreated",
    "ProjectPermissionDeleted",
    "SeenIds",
    "TeamCreated",
    "TeamDeleted",
    "TeamMembershipCreated",
    "TeamMembershipDeleted",
    "TeamPermissionCreated",
    "TeamPermissionDeleted",
    "TeamUpdated",
    "UnknownEvent",
    "UserCreated",
    "UserDeleted",
    "UserUpdated",
    "WebhookEvent",
    "Webhooks",
    "parse_event",
    "sign",
    "verify",
]

_log = logging.getLogger("authmw.webhooks")

TOLERANCE_SECONDS = 5 * 60
"""How far a delivery's timestamp may be from the receiver's clock, either way (Svix's value)."""

MAX_BODY_BYTES = 1024 * 1024
"""The largest delivery body accepted (1 MiB; the service's events are a few kilobytes). The
receivers refuse a larger one (413) before reading it whole, so an unsigned flood of bytes
cannot fill the receiver's memory; ``Webhooks(max_body_bytes=...)`` changes it."""

# A message id must be remembered for as long as its timestamp can still pass: a timestamp up to
# TOLERANCE_SECONDS in the future stays acceptable until TOLERANCE_SECONDS after it.
_REPLAY_TTL = 2 * TOLERANCE_SECONDS + 60


class InvalidWebhook(AuthmwError, ValueError):
    """A delivery that must not be acted on. ``reason`` is one of :data:`REASONS`:

    ``headers`` (a ``svix-id``/``svix-timestamp``/``svix-signature`` header missing or
    malformed), ``too_large`` (a body over the limit, :data:`MAX_BODY_BYTES` unless told
    otherwise: refused before any work on it), ``signature`` (no ``v1`` entry matches: wrong
    secret or a changed body), ``stale`` / ``future`` (timestamp more than five minutes from now), ``replayed`` (this
    message id was already accepted), ``malformed`` (signed, but not ``{"type", "data"}`` of
    the declared shape). The message never contains the secret or the body.
    """

    REASONS = ("headers", "too_large", "signature", "stale", "future", "replayed", "malformed")

    def __init__(self, reason: str, message: str) -> None:
        self.reason = reason
        super().__init__(message)

    def __reduce__(self) -> Any:
        return (type(self), (self.reason, str(self)))


# --- Events -------------------------------------------------------------------------------


class _Data(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class DeletedUser(_Data):
    id: str
    teams: list[TeamRef] = []


class TeamRef(_Data):
    id: str


class MembershipData(_Data):
    team_id: str
    user_id: str


class TeamPermissionData(_Data):
    id: str
    team_id: str
    user_id: str


class ProjectPermissionData(_Data):
    id: str
    user_id: str


DeletedUser.model_rebuild()


class WebhookEvent(BaseModel):
    """One verified delivery: ``id`` (the ``svix-id`` header, the same on every retry of one
    message: the key for idempotency), ``timestamp`` (when this attempt was signed), ``type``
    and ``data``."""

    model_config = ConfigDict(frozen=True)

    TYPE: ClassVar[str] = ""
    id: str
    timestamp: datetime
    type: str
    data: Any


class UserCreated(WebhookEvent):
    TYPE: ClassVar[str] = "user.created"
    type: Literal["user.created"]
    data: ServerUser


class UserUpdated(WebhookEvent):
    TYPE: ClassVar[str] = "user.updated"
    type: Literal["user.updated"]
    data: ServerUser


class UserDeleted(WebhookEvent):
    """Preceded by one ``team_membership.deleted`` per team of the user."""

    TYPE: ClassVar[str] = "user.deleted"
    type: Literal["user.deleted"]
    data: DeletedUser


class TeamCreated(WebhookEvent):
    TYPE: ClassVar[str] = "team.created"
    type: Literal["team.created"]
    data: ServerTeam


class TeamUpdated(WebhookEvent):
    TYPE: ClassVar[str] = "team.updated"
    type: Literal["team.updated"]
    data: ServerTeam


class TeamDeleted(WebhookEvent):
    TYPE: ClassVar[str] = "team.deleted"
    type: Literal["team.deleted"]
    data: TeamRef


class TeamMembershipCreated(WebhookEvent):
    TYPE: ClassVar[str] = "team_membership.created"
    type: Literal["team_membership.created"]
    data: MembershipData


class TeamMembershipDeleted(WebhookEvent):
    TYPE: ClassVar[str] = "team_membership.deleted"
    type: Literal["team_membership.deleted"]
    data: MembershipData


class TeamPermissionCreated(WebhookEvent):
    TYPE: ClassVar[str] = "team_permission.created"
    type: Literal["team_permission.created"]
    data: TeamPermissionData


class TeamPermissionDeleted(WebhookEvent):
    TYPE: ClassVar[str] = "team_permission.deleted"
    type: Literal["team_permission.deleted"]
    data: TeamPermissionData


class ProjectPermissionCreated(WebhookEvent):
    TYPE: ClassVar[str] = "project_permission.created"
    type: Literal["project_permission.created"]
    data: ProjectPermissionData


class ProjectPermissionDeleted(WebhookEvent):
    TYPE: ClassVar[str] = "project_permission.deleted"
    type: Literal["project_permission.deleted"]
    data: ProjectPermissionData


class UnknownEvent(WebhookEvent):
    """A type this version of authmw does not know (a newer service): ``data`` as sent."""


EVENT_TYPES: dict[str, type[WebhookEvent]] = {
    cls.TYPE: cls
    for cls in (
        UserCreated,
        UserUpdated,
        UserDeleted,
        TeamCreated,
        TeamUpdated,
        TeamDeleted,
        TeamMembershipCreated,
        TeamMembershipDeleted,
        TeamPermissionCreated,
        TeamPermissionDeleted,
        ProjectPermissionCreated,
        ProjectPermissionDeleted,
    )
}
"""Every event type the service sends and its class."""


def parse_event(payload: Any, *, event_id: str, timestamp: datetime) -> WebhookEvent:
    """The typed event for a verified, JSON-parsed ``{"type", "data"}``; raises
    :class:`InvalidWebhook` (``malformed``) when it does not have that shape."""
    if not isinstance(payload, Mapping) or not isinstance(payload.get("type"), str) or "data" not in payload:
        raise InvalidWebhook("malformed", 'The webhook body is not {"type": ..., "data": ...}.')
    cls = EVENT_TYPES.get(payload["type"], UnknownEvent)
    try:
        return cls.model_validate(
            {"id": event_id, "timestamp": timestamp, "type": payload["type"], "data": payload["data"]}
        )
    except ValidationError as exc:
        fields = sorted({".".join(str(p) for p in err["loc"]) for err in exc.errors()})
        raise InvalidWebhook(
            "malformed",
            f"The {payload['type']} webhook's data does not have the contract's shape (fields: {', '.join(fields)}).",
        ) from None


# --- Replay protection -------------------------------------------------------------------


class SeenIds(Protocol):
    """Where accepted message ids are remembered. The default keeps them in this process
    (:class:`MemorySeenIds`); an app served by several processes passes a shared store (for
    example Redis ``SET key 1 NX EX ttl``, or a table with a unique id column).

    ``add`` records ``event_id`` for ``ttl`` seconds and returns False when it was already
    there (atomically: two workers adding the same id get one True). ``discard`` forgets an id
    (a handler failed, so the sender's retry must be handled)."""

    def add(self, event_id: str, ttl: float) -> bool: ...

    def discard(self, event_id: str) -> None: ...


class MemorySeenIds:
    """A bounded, expiring set of message ids for one process (``cachetools.TTLCache``).

    ``ttl`` is at least the time a delivery's timestamp stays acceptable (11 minutes), after
    which the timestamp check refuses a replay anyway; pass a longer one to also skip the
    sender's later retries of a message already handled. ``clock`` is for tests."""

    def __init__(
        self, maxsize: int = 100_000, *, ttl: float = _REPLAY_TTL, clock: Callable[[], float] = time.time
    ) -> None:
        self._ttl = max(ttl, _REPLAY_TTL)
        self._ids: TTLCache[str, bool] = TTLCache(maxsize=maxsize, ttl=self._ttl, timer=clock)
        self._lock = threading.Lock()

    def add(self, event_id: str, ttl: float) -> bool:
        with self._lock:
            self._ids.expire()
            if event_id in self._ids:
                return False
            self._ids[event_id] = True
            return True

    def discard(self, event_id: str) -> None:
        with self._lock:
            self._ids.pop(event_id, None)

    def __repr__(self) -> str:
        return f"MemorySeenIds({len(self._ids)} ids, ttl={self._ttl:g}s)"


_PROCESS_SEEN_IDS = MemorySeenIds()


# --- Signature ---------------------------------------------------------------------------


def _library(secret: str) -> _StandardWebhook:
    if not isinstance(secret, str) or not secret.startswith("whsec_") or len(secret) <= len("whsec_"):
        raise ValueError(
            "The webhook secret must be the endpoint's signing secret as the dashboard shows it "
            "('whsec_' followed by base64); pass it from your settings, e.g. os.environ['AUTHMW_WEBHOOK_SECRET']."
        )
    if not re.fullmatch(r"[A-Za-z0-9+/]+={0,2}", secret[len("whsec_") :]):
        raise ValueError("The webhook secret is not 'whsec_' followed by base64; copy it again from the dashboard.")
    return _StandardWebhook(secret)


def _header(headers: Mapping[str, str], name: str) -> str:
    lowered = {k.lower(): v for k, v in headers.items()}
    value = lowered.get(f"svix-{name}") or lowered.get(f"webhook-{name}")
    if not value:
        raise InvalidWebhook(
            "headers", f"The webhook request has no svix-{name} header; it was not sent by the service."
        )
    return value


def sign(body: bytes | str, secret: str, *, msg_id: str, timestamp: float) -> dict[str, str]:
    """The three ``svix-*`` headers for ``body`` (what the service sends; the local service and
    tests use it)."""
    text = body.decode() if isinstance(body, bytes) else body
    signature = _library(secret).sign(msg_id, datetime.fromtimestamp(int(timestamp), tz=timezone.utc), text)
    return {"svix-id": msg_id, "svix-timestamp": str(int(timestamp)), "svix-signature": signature}


def _too_large(limit: int) -> InvalidWebhook:
    return InvalidWebhook(
        "too_large", f"The webhook body is larger than {limit} bytes, so it was not read; the service never sends one."
    )


def _check(
    body: bytes | str, headers: Mapping[str, str], secret: str, now: float, max_body_bytes: int
) -> tuple[str, datetime, Any]:
    library = _library(secret)
    if len(body if isinstance(body, bytes) else body.encode()) > max_body_bytes:
        raise _too_large(max_body_bytes)
    msg_id = _header(headers, "id")
    raw_timestamp = _header(headers, "timestamp")
    signatures = _header(headers, "signature")
    # ASCII digits only (str.isdigit also takes '²', which int() refuses), and at most 12 of
    # them (Unix seconds until the year 33658; int() refuses over 4,300 digits).
    if not (0 < len(raw_timestamp) <= 12 and raw_timestamp.isascii() and raw_timestamp.isdigit()):
        raise InvalidWebhook("headers", "The webhook's svix-timestamp header is not Unix seconds.")
    timestamp = int(raw_timestamp)
    if timestamp < now - TOLERANCE_SECONDS:
        raise InvalidWebhook(
            "stale", "The webhook's timestamp is more than five minutes old (a replay, or a clock far off)."
        )
    if timestamp > now + TOLERANCE_SECONDS:
        raise InvalidWebhook(
            "future", "The webhook's timestamp is more than five minutes ahead (check this machine's clock)."
        )
    try:
        text = body.decode() if isinstance(body, bytes) else body
    except UnicodeDecodeError:
        raise InvalidWebhook(
            "signature", "The webhook body is not UTF-8, so it was not signed by the service."
        ) from None
    when = datetime.fromtimestamp(timestamp, tz=timezone.utc)
    expected = base64.b64decode(library.sign(msg_id, when, text).split(",", 1)[1])
    matched = False
    for entry in signatures.split(" "):
        version, _, value = entry.partition(",")
        if version != "v1":
            continue  # other signature versions are ignored (Svix scheme)
        try:
            candidate = base64.b64decode(value, validate=True)
        except binascii.Error:
            continue
        matched |= hmac.compare_digest(expected, candidate)
    if not matched:
        raise InvalidWebhook(
            "signature", "The webhook's signature does not match: a wrong secret for this endpoint, or a changed body."
        )
    try:
        payload = json.loads(text)
    except ValueError:
        raise InvalidWebhook("malformed", "The webhook body is signed but is not JSON.") from None
    return msg_id, when, payload


def verify(
    body: bytes | str,
    headers: Mapping[str, str],
    secret: str,
    *,
    seen_ids: SeenIds | None = _PROCESS_SEEN_IDS,
    clock: Callable[[], float] = time.time,
    max_body_bytes: int = MAX_BODY_BYTES,
) -> WebhookEvent:
    """Verify one delivery and return its typed event, or raise :class:`InvalidWebhook`.

    ``body`` is the raw request body (bytes as received: parsing and re-serialising the JSON
    first breaks the signature); ``headers`` any mapping of the request headers. ``seen_ids``
    remembers accepted message ids (the default: this process); pass ``None`` to skip the
    replay check, or a shared :class:`SeenIds` store when several processes receive. ``clock``
    gives Unix seconds (tests move it). A body over ``max_body_bytes`` is refused (``too_large``)
    before its signature is computed."""
    msg_id, when, payload = _check(body, headers, secret, clock(), max_body_bytes)
    event = parse_event(payload, event_id=msg_id, timestamp=when)
    if seen_ids is not None and not seen_ids.add(msg_id, _REPLAY_TTL):
        raise InvalidWebhook(
            "replayed", "This webhook message id was already accepted (a replay or a repeated delivery)."
        )
    return event


# --- Handlers ----------------------------------------------------------------------------


def _attempt_key(event: WebhookEvent) -> str:
    """One signed attempt of a message: its id and the second it was signed."""
    return f"{event.id}@{int(event.timestamp.timestamp())}"


#: Bytes asked of a request stream at a time.
_READ_SIZE = 64 * 1024


class _Collected:
    """A request body read chunk by chunk up to a limit (`Webhooks.read_body`)."""

    def __init__(self, limit: int, content_length: str | None) -> None:
        self.limit = limit
        self.body = bytearray()
        try:
            declared = int(content_length) if content_length else 0
        except ValueError:
            declared = 0  # the framework refuses a malformed header itself
        self.too_large = declared > limit
        self.done = self.too_large

    def add(self, chunk: bytes) -> bool:
        """Take one chunk (b"": the end); whether reading is done."""
        self.body += chunk
        self.too_large = len(self.body) > self.limit
        self.done = self.too_large or not chunk
        return self.done

    def result(self) -> bytes | Handled:
        if self.too_large:
            return Webhooks._refused(_too_large(self.limit))
        return bytes(self.body)


E = TypeVar("E", bound=WebhookEvent)
Handler = Callable[[Any], None | Awaitable[None]]


@dataclass(frozen=True)
class Handled:
    """What a receiver answers: ``status`` (200 handled or already handled, 400/401 refused,
    413 a body over the limit, 500 a handler failed: logged, and the sender retries) and a
    short JSON body without internals."""

    status: int
    body: dict[str, str]


class Webhooks:
    """The handlers of one endpoint, by event type, and the checks before them::

        webhooks = Webhooks(secret=os.environ["AUTHMW_WEBHOOK_SECRET"])

        @webhooks.on("user.deleted")
        def user_deleted(event: UserDeleted) -> None:
            User.objects.filter(authmw_id=event.data.id).update(is_active=False)

    A framework receiver (``webhook_router``, ``webhook_view``, ``webhook_blueprint``) passes
    each request to :meth:`handle` (sync handlers) or :meth:`handle_async` (async handlers
    too). A message id is remembered only after its handlers succeeded: a handler that raises
    gives a 500, the id is forgotten, and the sender's retry runs the handlers again; a retry
    of a message already handled (a new attempt, signed anew) answers 200 without running them
    (idempotency by event id, for as long as ``seen_ids`` keeps ids), and the same signed
    request received again (a replay) answers 401 and runs nothing. ``on("*")`` receives every event, including
    :class:`UnknownEvent`; a type without a handler is acknowledged (200) and ignored. A body
    over ``max_body_bytes`` (:data:`MAX_BODY_BYTES`) answers 413: the receivers stop reading it
    there (:meth:`read_body` for a receiver of your own).
    """

    def __init__(
        self,
        secret: str,
        *,
        seen_ids: SeenIds | None = None,
        clock: Callable[[], float] = time.time,
        max_body_bytes: int = MAX_BODY_BYTES,
    ) -> None:
        _library(secret)  # a malformed secret is a configuration error, raised at start-up
        if isinstance(max_body_bytes, bool) or not isinstance(max_body_bytes, int) or max_body_bytes <= 0:
            raise ValueError(f"max_body_bytes must be a positive number of bytes (default {MAX_BODY_BYTES}).")
        self.max_body_bytes = max_body_bytes
        self._secret = secret
        self._clock = clock
        self.seen_ids: SeenIds = seen_ids if seen_ids is not None else MemorySeenIds(clock=clock)
        self._handlers: dict[str, list[Handler]] = {}

    def __repr__(self) -> str:
        return f"Webhooks(types={sorted(self._handlers)}, secret='whsec_***')"

    def on(self, event_type: str) -> Callable[[Callable[[E], Any]], Callable[[E], Any]]:
        """Register a handler for ``event_type`` (one of :data:`EVENT_TYPES`, or ``"*"``)."""
        if event_type != "*" and event_type not in EVENT_TYPES:
            raise ValueError(
                f"Unknown webhook event type {event_type!r}; known: {', '.join(sorted(EVENT_TYPES))}, or '*'."
            )

        def register(handler: Callable[[E], Any]) -> Callable[[E], Any]:
            self._handlers.setdefault(event_type, []).append(handler)
            return handler

        return register

    @property
    def is_async(self) -> bool:
        """Whether any handler is a coroutine function (receivers then await them)."""
        return any(inspect.iscoroutinefunction(h) for hs in self._handlers.values() for h in hs)

    def _handlers_for(self, event: WebhookEvent) -> list[Handler]:
        return [*self._handlers.get(event.type, []), *self._handlers.get("*", [])]

    def read_body(self, read: Callable[[int], bytes], content_length: str | None = None) -> bytes | Handled:
        """A request's body through its stream's ``read(size)``, never past ``max_body_bytes``:
        the bytes, or the 413 answer (at once when ``content_length`` already says too much)."""
        collected = _Collected(self.max_body_bytes, content_length)
        while not collected.done:
            collected.add(read(_READ_SIZE))
        return collected.result()

    async def read_body_async(self, chunks: AsyncIterable[bytes], content_length: str | None = None) -> bytes | Handled:
        """:meth:`read_body` of an async request stream (ASGI's chunks)."""
        collected = _Collected(self.max_body_bytes, content_length)
        if not collected.done:
            async for chunk in chunks:
                if collected.add(chunk):
                    break
        return collected.result()

    @staticmethod
    def _refused(exc: InvalidWebhook) -> Handled:
        status = {"headers": 400, "malformed": 400, "too_large": 413}.get(exc.reason, 401)
        return Handled(status, {"error": exc.reason, "message": str(exc)})

    def _begin(self, body: bytes, headers: Mapping[str, str]) -> WebhookEvent | Handled:
        try:
            event = verify(
                body, headers, self._secret, seen_ids=None, clock=self._clock, max_body_bytes=self.max_body_bytes
            )
        except InvalidWebhook as exc:
            return self._refused(exc)
        # The sender signs each attempt anew, so one signed request received twice is a replay:
        # refused. A new attempt of a message already handled (its answer was lost) is
        # acknowledged without a second run: the sender needs a 2xx to stop.
        if not self.seen_ids.add(_attempt_key(event), _REPLAY_TTL):
            return Handled(401, {"error": "replayed", "message": "This signed request was already received."})
        if not self.seen_ids.add(event.id, _REPLAY_TTL):
            return Handled(200, {"status": "already handled"})
        return event

    def _forget(self, event: WebhookEvent) -> None:
        """A delivery whose handlers failed changed nothing: its retry (even the same request)
        must run them."""
        self.seen_ids.discard(event.id)
        self.seen_ids.discard(_attempt_key(event))

    def _run(self, body: bytes, headers: Mapping[str, str]) -> Generator[object, None, Handled]:
        """The steps of one delivery; yields each handler's result for the driver to await."""
        begun = self._begin(body, headers)
        if isinstance(begun, Handled):
            return begun
        try:
            for handler in self._handlers_for(begun):
                yield handler(begun)
        except Exception:  # noqa: BLE001 - any handler failure: logged, answered 500, retried by the sender
            self._forget(begun)  # not handled: the sender's retry must run it
            _log.exception("The handler of webhook %s (%s) failed; the sender will retry it", begun.id, begun.type)
            return Handled(500, {"error": "handler_failed", "message": "The webhook was not handled; send it again."})
        except BaseException:
            self._forget(begun)
            raise
        return Handled(200, {"status": "handled"})

    def handle(self, body: bytes, headers: Mapping[str, str]) -> Handled:
        """Verify and run the (sync) handlers; what to answer."""
        steps = self._run(body, headers)
        try:
            result = next(steps)
            while True:
                if inspect.isawaitable(result):
                    if inspect.iscoroutine(result):
                        result.close()
                    result = steps.throw(
                        TypeError("An async webhook handler was registered; this receiver runs sync handlers only.")
                    )
                else:
                    result = steps.send(None)
        except StopIteration as done:
            handled: Handled = done.value
            return handled

    async def handle_async(self, body: bytes, headers: Mapping[str, str]) -> Handled:
        """Verify and run the handlers, awaiting the async ones; what to answer."""
        steps = self._run(body, headers)
        try:
            result = next(steps)
            while True:
                if inspect.isawaitable(result):
                    try:
                        await result
                    except BaseException as exc:  # noqa: BLE001 - handed to the steps, which decide
                        result = steps.throw(exc)
                        continue
                result = steps.send(None)
        except StopIteration as done:
            handled: Handled = done.value
            return handled
