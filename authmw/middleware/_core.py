"""The middleware's decision of who sent a request, free of any web framework.

Three modules, one job each: :mod:`._refusal` (the answer instead of the app),
:mod:`._credentials` (reading a request's credentials into :class:`Tokens`, no I/O) and this
one (:class:`Authenticator`: verifying, refreshing, confirming keys, and its caches).

The request handler (:class:`~authmw.middleware._resolver.SessionResolver`, which every
middleware and adapter calls) makes the same two calls per request, and nothing else::

    decided = core.decide(cookie, auth_header, bearer, scheme, forwarded_proto)  # Refusal (400)
    outcome = decided if isinstance(decided, Outcome) else driver.run(core.settle(decided))  # Refusal (401, 503)

``decide`` answers without I/O whenever it can (no session, a Cookie value already decided, a
verified token still fresh, a session this process just refreshed); otherwise it returns the
:class:`Tokens` read from the request, and ``settle`` checks them: key-set fetches and refresh
calls are effects yielded to the caller's driver (sync or async).

The caches, all owned by :class:`Authenticator` and its :class:`TokenVerifier`, are each a
:class:`authmw._bounded.BoundedMap`: one policy, the oldest entry dropped first when full, and
an entry that must expire keeps its deadline and is dropped when read past it:

==========================  ===================================  ==============================
what                        key -> value                          bound; expiry
==========================  ===================================  ==============================
decided outcomes            Cookie value -> signed-in Outcome     MEMO_SIZE; its token's
                                                                  refresh deadline
cookie reads                Cookie value -> stored session        MEMO_SIZE
header reads                x-stack-auth value -> Tokens          MEMO_SIZE
                            (and Authorization: Bearer stackauth_…)
fresh tokens                refresh token -> access token         FRESH_CACHE_SIZE; the margin
refused refresh tokens      refresh token -> refused until        REFUSED_CACHE_SIZE; REFUSED_TTL
unwanted sessions           refresh token -> until                REFUSED_CACHE_SIZE; the exp of
                            (refreshed into a token the verifier  the token it gave
                            refuses: an anonymous user's, ...)
verified tokens (verifier)  access token -> Claims                VERIFIED_CACHE_SIZE; exp
last parse (verifier)       access token -> its parse             one entry
key set (verifier)          kid -> key                            refetched after JWKS_TTL
API keys (``keys``)         key value -> the key the service      KEY_CACHE_SIZE; KEY_TTL
                            confirmed (API 2.8, ``_api_keys``)
refused API keys            key value -> the service's refusal    REFUSED_KEY_CACHE_SIZE;
                                                                  REFUSED_KEY_TTL
==========================  ===================================  ==============================

Values longer than MEMO_MAX_KEY are never memoized, so the memos hold at most about 4 MiB each.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable
from typing import Literal, NamedTuple

from authmw._bounded import BoundedMap
from authmw._config import AuthConfig
from authmw._ops import Op, Shared
from authmw._refresh_policy import ShortLivedWarning, refresh_endpoint
from authmw._session import refresh_access_token
from authmw._tokens import Claims, TokenVerifier, UnknownSigningKey, has_validity, usable_until
from authmw.errors import (
    AccessTokenExpired,
    AnonymousAuthenticationNotAllowed,
    ConfigurationError,
    InvalidAccessToken,
    KnownError,
    RestrictedUserNotAllowed,
    UnparsableAccessToken,
)

from ._api_keys import ApiKeyResolver, ConfirmedKey
from ._cookies import (
    DEFAULT_ATTRIBUTES,
    CookieAttributes,
    redacted_repr,
    session_cookie_deletions,
    session_cookie_writes,
)
from ._credentials import (
    AUTHORIZATION_PREFIXES,
    MALFORMED_AUTHORIZATION,
    MEMO_MAX_KEY,
    MEMO_SIZE,
    CredentialReader,
    Tokens,
    bearer_token,
    is_sdk_session,
    is_secure,
)
from ._outage import ServiceWatch, failure_reason, is_transient
from ._refusal import Refusal

__all__ = [
    "MALFORMED_AUTHORIZATION",
    "NO_SESSION",
    "Authenticator",
    "OnRefreshUnavailable",
    "Outcome",
    "Refresher",
    "Refusal",
    "Tokens",
    "bearer_token",
    "is_sdk_session",
    "is_secure",
]

logger = logging.getLogger("authmw.middleware")

#: How many refresh tokens keep their freshly fetched access token for reuse.
FRESH_CACHE_SIZE = 4096
#: Refresh tokens the service refused are remembered so that a client
#: repeating one (a stale or made-up cookie) costs one refresh call, not one per request:
#: at most this many, each for REFUSED_TTL seconds. A refused token never becomes valid again;
#: the bound only keeps the memory small.
REFUSED_CACHE_SIZE = 4096
REFUSED_TTL = 300.0
#: Refused tokens up to this length are remembered as they are; longer ones as a digest.
REFUSED_KEY_MAX = 256

#: Errors of a token whose kind the app does not sign in (anonymous or restricted users):
#: such a request is not signed in, its session is neither refreshed nor signed out.
UNWANTED_KIND = (AnonymousAuthenticationNotAllowed, RestrictedUserNotAllowed)

OnRefreshUnavailable = Literal["anonymous", "error"]
Refresher = Callable[[AuthConfig, str], Op["str | None"]]


class Outcome(NamedTuple):
    claims: Claims | None = None
    access_token: str | None = None
    refresh_token: str | None = None
    #: ``Set-Cookie`` values to add to the response.
    cookies: tuple[str, ...] = ()
    #: The session came from the browser's cookies (so the cross-site check applies to it).
    from_cookies: bool = False
    #: A user's or team's API key the service confirmed (no claims, no tokens then).
    api_key: ConfirmedKey | None = None
    #: A session of a user the app does not sign in (an anonymous or restricted user's):
    #: not signed in, and this is why (``AnonymousAuthenticationNotAllowed`` or
    #: ``RestrictedUserNotAllowed``); guards send a restricted user to verify their e-mail.
    refused: KnownError | None = None

    def __repr__(self) -> str:
        return redacted_repr(self, ("access_token", "refresh_token", "cookies", "api_key"))


#: No session, or none the app signs in.
NO_SESSION = Outcome()
#: A session or key that could not be checked (the service did not answer): not signed in for
#: this request, and nothing ended (told from NO_SESSION by identity).
UNCONFIRMED_SESSION = Outcome()


class Authenticator:
    """Reads a request's session, decides who the user is, says which cookies to write.

    Holds no connection: one instance serves a sync and an async driver alike. Its state is
    the caches the module docstring lists (six maps here: decided outcomes, cookie reads,
    header reads, fresh tokens, refused and unwanted refresh tokens; and the verifier's), each
    a bounded :class:`~authmw._bounded.BoundedMap`. A new kind of credential is read in
    :meth:`read` (and its header listed in ``_resolver.READ_HEADERS``, read by
    ``SessionResolver.credentials``) and decided in :meth:`settle`.
    """

    def __init__(
        self,
        config: AuthConfig,
        *,
        verifier: TokenVerifier | None = None,
        refresher: Refresher | None = None,
        on_refresh_unavailable: OnRefreshUnavailable = "anonymous",
        clock: Callable[[], float] = time.time,
        startup_check: bool = True,
        cookie_attributes: CookieAttributes = DEFAULT_ATTRIBUTES,
    ) -> None:
        if on_refresh_unavailable not in ("anonymous", "error"):
            raise ValueError("on_refresh_unavailable must be 'anonymous' or 'error'")
        if refresher is None and not (config.secret_server_key or config.publishable_client_key):
            raise ConfigurationError(
                "The auth middleware refreshes sessions and needs the secret server key "
                "(AUTHMW_SECRET_SERVER_KEY) or at least the publishable client key "
                "(AUTHMW_PUBLISHABLE_CLIENT_KEY); the local service writes both to project.env."
            )
        if config.accept_api_keys and refresher is None and not config.secret_server_key:
            raise ConfigurationError(
                "accept_api_keys needs the secret server key (AUTHMW_SECRET_SERVER_KEY): API keys are "
                "checked with the service's server tier."
            )
        self.config = config
        self.verifier = verifier or TokenVerifier(config, clock=clock)
        #: API keys of machine clients (API 2.8): confirmed and refused ones, remembered.
        self.keys = ApiKeyResolver(config, clock)
        self.on_refresh_unavailable = on_refresh_unavailable
        self._refresher = refresher or refresh_access_token
        self._clock = clock
        self.cookie_attributes = cookie_attributes
        #: Outages of the service: one warning each (naming the URL), one when it is back.
        self.watch = ServiceWatch(config)
        if startup_check:
            self.watch.check_in_background()  # the only I/O of this class, in its own thread
        self._refresh_url = config.api_base + refresh_endpoint(config)[1]
        #: Reads the credentials of a request (cookies, headers, keys) into Tokens.
        self.credentials = CredentialReader(config)
        self._fresh: BoundedMap[str, tuple[str, Claims]] = BoundedMap(FRESH_CACHE_SIZE)
        self._short_lived = ShortLivedWarning(logger)
        #: Refused refresh token (or its digest) -> the time until which it is refused.
        self._refused: BoundedMap[str, float] = BoundedMap(REFUSED_CACHE_SIZE)
        #: Refresh token -> the time until which it is known to give a kind of token the app
        #: does not sign in (an anonymous user's, say): not refreshed again before then.
        self._unwanted: BoundedMap[str, tuple[float, KnownError | None]] = BoundedMap(REFUSED_CACHE_SIZE)
        #: Cookie value -> (its signed-in outcome, the time until which it holds).
        self._decided: BoundedMap[str, tuple[Outcome, float]] = BoundedMap(MEMO_SIZE, MEMO_MAX_KEY)

    # -- reading ---------------------------------------------------------------------

    def read(self, *, cookie: str | None, auth_header: str | None, secure: bool, bearer: str | None = None) -> Tokens:
        """The request's tokens (:meth:`CredentialReader.read`). Raises :class:`Refusal`."""
        return self.credentials.read(cookie=cookie, auth_header=auth_header, secure=secure, bearer=bearer)

    # -- the decision ----------------------------------------------------------------

    def decide(
        self,
        cookie: str | None,
        auth_header: str | None,
        bearer: str | None = None,
        scheme: str = "http",
        forwarded_proto: str | None = None,
    ) -> Outcome | Tokens:
        """Who sent the request, as far as can be told without I/O.

        The :class:`Outcome` when it is known: no session at all, a Cookie value decided
        before whose token needs no refresh yet, a verified token still fresh, a session this
        process has just refreshed, a refresh token the service refused. Otherwise the
        :class:`Tokens` read from the request, for :meth:`settle`. ``x-stack-auth`` wins over
        cookies, which win over a bearer token (see :func:`bearer_token`). ``scheme`` and
        ``X-Forwarded-Proto`` say whether cookies written back must be ``Secure``
        (:func:`is_secure`). Raises :class:`Refusal` for a malformed ``x-stack-auth`` (400),
        bearer token or 2.8 SDK ``Bearer stackauth_...`` session (401).
        """
        if auth_header is None:
            if cookie:
                if bearer is None or not bearer.startswith(AUTHORIZATION_PREFIXES):  # (which wins)
                    hit = self._decided.get(cookie)  # the steady state: one lookup, one clock read
                    if hit is not None and self._clock() <= hit[1]:  # has_validity, its deadline kept
                        return hit[0]
            elif bearer is None:
                return NO_SESSION
            elif self.keys.has_answers:  # a machine client repeating its API key: one lookup
                known = self.keys.cached(bearer)
                if known is not None:
                    return _key_outcome(known)
        tokens = self.read(
            cookie=cookie, auth_header=auth_header, secure=is_secure(scheme, forwarded_proto), bearer=bearer
        )
        outcome = self._without_io(tokens)
        return tokens if outcome is None else self._finished(tokens, outcome)

    def settle(self, tokens: Tokens) -> Op[Outcome]:
        """The decision :meth:`decide` left open: verify the access token (fetching the key set
        if needed) and refresh the session when it must be. Raises :class:`Refusal` (503 when
        configured so during an outage; 401 for a bearer token that is not valid)."""
        # decide() has just looked for an answer without I/O; settle goes on from there.
        if tokens.api_key is not None:
            return (yield from self._api_key(tokens))
        outcome = yield from (self._bearer(tokens) if tokens.bearer else self._with_io(tokens))
        return self._finished(tokens, outcome)

    def _finished(self, tokens: Tokens, outcome: Outcome) -> Outcome:
        claims = outcome.claims
        if not tokens.from_cookies or claims is None:
            return outcome  # (the cross-site check concerns signed-in cookie sessions only)
        outcome = Outcome(
            claims, outcome.access_token, outcome.refresh_token, outcome.cookies, True
        )  # (not _replace: 3x slower)
        cookie = tokens.cookie
        # Kept for the next request with the same Cookie value: signed in, nothing to write.
        if cookie is not None and not outcome.cookies:
            self._decided.put(cookie, (outcome, usable_until(claims.exp)))
        return outcome

    def _without_io(self, tokens: Tokens) -> Outcome | None:
        """The outcome when it needs no I/O and no signature check, else None."""
        if tokens.api_key is not None:
            known = self.keys.cached(tokens.access_token or "")
            return None if known is None else _key_outcome(known)
        if tokens.access_token is None and tokens.refresh_token is None:
            return NO_SESSION
        if tokens.refresh_token is not None and self._was_refused(tokens.refresh_token):
            return self._signed_out(tokens)
        now = self._clock()
        if tokens.access_token is not None:
            claims = self.verifier.verify_cached(tokens.access_token)
            if claims is not None and has_validity(claims.exp, now):
                return Outcome(claims, tokens.access_token, tokens.refresh_token)
            refused = self.verifier.refused_kind(tokens.access_token)
            if refused is not None:
                return self._unwanted_session(tokens, self._expiry_or(tokens.access_token, now), refused)
        if tokens.refresh_token is not None:
            unwanted = self._unwanted.get(tokens.refresh_token) if self._unwanted else None
            if unwanted is not None and now < unwanted[0]:
                return self._unwanted_session(tokens, *unwanted)
            fresh = self._fresh_token(tokens.refresh_token, now)
            if fresh is not None:
                return self._refreshed(tokens, *fresh)
        return None

    def _with_io(self, tokens: Tokens) -> Op[Outcome]:
        """The decision once :meth:`_without_io` has found no answer: verify, else refresh."""
        access, refresh = tokens.access_token, tokens.refresh_token
        # Without a refresh token a short-lived access token is still better than nothing.
        if access is not None and (refresh is None or self._fresh_enough(access)):
            try:
                claims = yield from self.verifier.verify(access)
            except InvalidAccessToken:
                access = None  # tampered, expired or another project's: as if there were none
            except Exception as exc:
                # The key set could not be fetched, so the token cannot be checked.
                return self._unavailable(exc, "verifying the access token", self.verifier.jwks_url)
            else:
                # The verifier tolerates clock skew; the service does not accept expired tokens.
                if claims.exp > self._clock():
                    return Outcome(claims, access, refresh)
                access = None
        if refresh is None:
            return NO_SESSION
        try:
            fresh = yield Shared(
                ("authmw.middleware.refresh", self.config.project_id, refresh),
                lambda: self._refresh(refresh),
            )
        except Exception as exc:
            # An access token that is short of the margin but unexpired still holds.
            held = self.verifier.verify_cached(access) if access is not None else None
            if held is not None and held.exp > self._clock():
                self._report(exc, "refreshing the session", self._refresh_url, "using the current access token")
                return Outcome(held, access, refresh)
            return self._unavailable(exc, "refreshing the session", self._refresh_url)
        self.watch.answered()
        if fresh is None:
            unwanted = self._unwanted_until(refresh, self._clock())
            if unwanted is not None:  # a session, but of a user the app does not sign in
                return NO_SESSION if unwanted[1] is None else Outcome(refused=unwanted[1])
            return self._signed_out(tokens)
        return self._refreshed(tokens, *fresh)

    def _api_key(self, tokens: Tokens) -> Op[Outcome]:
        """A user's or team's API key: confirmed by the service (once; then remembered), or
        refused with 401 and the service's code."""
        value, parsed = tokens.access_token, tokens.api_key
        assert value is not None and parsed is not None
        try:
            found = yield from self.keys.resolve(value, parsed)
        except Exception as exc:
            return self._unavailable(exc, "checking an API key", self.config.api_base + f"/{parsed.type}-api-keys/check")
        self.watch.answered()
        return _key_outcome(found)

    def _bearer(self, tokens: Tokens) -> Op[Outcome]:
        access = tokens.access_token
        assert access is not None
        claims = self.verifier.verify_cached(access)
        if claims is None:
            try:
                claims = yield from self.verifier.verify(access)
            except InvalidAccessToken as exc:
                raise Refusal.bearer(exc) from None
            except UNWANTED_KIND as exc:
                return Outcome(refused=exc)  # an anonymous or restricted user: not signed in, not refused
            except Exception as exc:
                return self._unavailable(exc, "verifying a bearer token", self.verifier.jwks_url)
        if claims.exp <= self._clock():  # the verifier tolerates skew; the service does not
            raise Refusal.bearer(AccessTokenExpired(details={"expired_at_millis": int(claims.exp * 1000)}))
        return Outcome(claims, access, None)

    def _fresh_enough(self, access_token: str) -> bool:
        try:
            exp = self.verifier.expiry(access_token)
        except Exception:
            return True  # let verification say what is wrong with it
        return has_validity(exp, self._clock())

    def _refresh(self, refresh_token: str) -> Op[tuple[str, Claims] | None]:
        # A caller that missed the fresh token just before another caller's refresh landed
        # leads a new flight; it must not refresh the same session twice.
        fresh = self._fresh_token(refresh_token, self._clock())
        if fresh is not None:
            return fresh
        if self._was_refused(refresh_token) or self._unwanted_until(refresh_token, self._clock()) is not None:
            return None
        access = yield from self._refresher(self.config, refresh_token)
        if access is None:
            self._refused_now(refresh_token)
            return None
        try:
            claims = yield from self.verifier.verify(access)
        except (*UNWANTED_KIND, InvalidAccessToken) as exc:
            # Refreshing again would give a token refused alike (a user of a kind the app does
            # not sign in; or a misconfiguration, e.g. a service reached by another URL than
            # the one it signs with): not before this one expires. The cookies stay.
            if isinstance(exc, InvalidAccessToken):
                logger.warning("authmw: the service's fresh access token was refused (%s); not signed in", type(exc).__name__)
            refused = None if isinstance(exc, InvalidAccessToken) else exc
            now = self._clock()
            until = self._expiry_or(access, now + REFUSED_TTL)
            if isinstance(exc, UnknownSigningKey):
                # A key the service may have added since the key set was fetched: asked again
                # once the key set may be fetched again, not only when this token expires.
                until = min(until, now + exc.retry_in)
            self._unwanted.put(refresh_token, (until, refused))
            return None
        self._remember(refresh_token, access, claims)
        return access, claims

    def _expiry_or(self, access_token: str, default: float) -> float:
        try:
            exp = self.verifier.expiry(access_token)
        except UnparsableAccessToken:
            return default
        return default if exp is None else exp

    def _unwanted_until(self, refresh_token: str, now: float) -> tuple[float, KnownError | None] | None:
        """(until, why) while ``refresh_token`` is known to give a token the app does not sign in."""
        unwanted = self._unwanted.get(refresh_token)
        if unwanted is None:
            return None
        if now < unwanted[0]:
            return unwanted
        self._unwanted.drop(refresh_token)
        return None

    def _unwanted_session(self, tokens: Tokens, until: float, refused: KnownError | None) -> Outcome:
        """Not signed in, the session left as it is (no refresh, no cookie written or
        deleted: it belongs to the 2.8 browser SDK); the same Cookie value is decided by a
        lookup until ``until``."""
        outcome = NO_SESSION if refused is None else Outcome(refused=refused)
        if tokens.cookie is not None:
            self._decided.put(tokens.cookie, (outcome, until))
        return outcome

    def _refreshed(self, tokens: Tokens, access: str, claims: Claims) -> Outcome:
        refresh = tokens.refresh_token
        assert refresh is not None
        cookies: tuple[str, ...] = ()
        if tokens.from_cookies:
            cookies = session_cookie_writes(
                self.config.project_id,
                refresh,
                access,
                now=self._clock(),
                secure=tokens.secure,
                cookie_format=self.config.cookie_format,  # type: ignore[arg-type]
                stored=tokens.stored,
                attributes=self.cookie_attributes,
            )
        return Outcome(claims, access, refresh, cookies)

    def _signed_out(self, tokens: Tokens) -> Outcome:
        if not tokens.from_cookies:
            return NO_SESSION
        return Outcome(
            cookies=session_cookie_deletions(
                self.config.project_id,
                tokens.refresh_token,
                secure=tokens.secure,
                stored=tokens.stored,
                attributes=self.cookie_attributes,
            )
        )

    def _unavailable(self, exc: Exception, doing: str, url: str) -> Outcome:
        status = _status(exc)
        refuse = _transient(exc, status) and self.on_refresh_unavailable == "error"
        self._report(exc, doing, url, "answering 503" if refuse else "continuing as anonymous")
        if refuse:
            raise Refusal(503, "The authentication service is unavailable; try again shortly.")
        return UNCONFIRMED_SESSION if _transient(exc, status) else NO_SESSION

    def _report(self, exc: Exception, doing: str, url: str, consequence: str) -> None:
        # Type and status only: messages of some errors quote request details.
        status = _status(exc)
        if _transient(exc, status):
            self.watch.failed(url, failure_reason(exc, status), consequence)
        else:
            logger.warning("authmw: %s failed (%s); %s", doing, failure_reason(exc, status), consequence)

    # -- refresh tokens the service refused ------------------------------------------

    def _was_refused(self, refresh_token: str) -> bool:
        if not self._refused:  # the usual case: one length check
            return False
        key = _refused_key(refresh_token)
        until = self._refused.get(key)
        if until is None:
            return False
        if self._clock() < until:
            return True
        self._refused.drop(key)
        return False

    def _refused_now(self, refresh_token: str) -> None:
        """Forget everything that signed this refresh token in; refuse it from now on."""
        self._refused.put(_refused_key(refresh_token), self._clock() + REFUSED_TTL)
        self._fresh.drop(refresh_token)
        for cookie, (outcome, _) in list(self._decided.items()):
            if outcome.refresh_token == refresh_token:
                self._decided.drop(cookie)

    # -- access tokens fetched by this process, reused for late requests -------------

    def _fresh_token(self, refresh_token: str, now: float) -> tuple[str, Claims] | None:
        """The access token this process fetched for ``refresh_token``, while it needs no
        refresh itself (never hand out one with less than 20 s left)."""
        entry = self._fresh.get(refresh_token)
        if entry is None:
            return None
        if has_validity(entry[1].exp, now):
            return entry
        self._fresh.drop(refresh_token)
        return None

    def _remember(self, refresh_token: str, access: str, claims: Claims) -> None:
        # Reused by later requests still carrying the old cookies, for as long as
        # :meth:`_fresh_token` allows. A token minted with less than the margin left (a
        # service with very short-lived tokens, or a skewed clock) serves only the requests
        # that shared its refresh; the next request refreshes again.
        self._short_lived.check((claims.exp - self._clock()) * 1000)
        self._fresh.put(refresh_token, (access, claims))


def _key_outcome(found: ConfirmedKey | KnownError) -> Outcome:
    if isinstance(found, KnownError):
        raise Refusal.bearer(found)
    return Outcome(api_key=found)


def _refused_key(refresh_token: str) -> str:
    # The service's refresh tokens (45 characters) are their own key: a str caches its hash, so
    # a repeated token costs no hashing. Longer (made-up) values are kept as a SHA-256 digest
    # (64 hex digits), which bounds the memory of REFUSED_CACHE_SIZE entries to about 2 MiB.
    if len(refresh_token) <= REFUSED_KEY_MAX:
        return refresh_token
    return "sha256:" + hashlib.sha256(refresh_token.encode()).hexdigest()


def _transient(exc: Exception, status: int) -> bool:
    return is_transient(exc, status)


def _status(exc: Exception) -> int:
    status = getattr(exc, "status", None)
    return status if isinstance(status, int) else 0
