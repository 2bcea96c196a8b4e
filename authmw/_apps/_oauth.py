"""Client-tier OAuth: sign in with a provider, link one, provider access tokens.

::

    start = app.get_oauth_authorize_url("github", redirect_uri="https://app.example.com/oauth-callback")
    # keep start.state and start.code_verifier (a short-lived cookie), send the browser to start.url
    ...
    result = app.sign_in_with_oauth_callback(callback_url, state=kept_state, code_verifier=kept_verifier)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._oauth import OAuthAuthorization, authorize_url, callback_code, callback_params, strip_code_and_state
from .._ops import Op
from .._session import Session
from .._transport import Transport, segment
from ..errors import (
    InvalidServerResponse,
    OAuthCallbackError,
    OAuthConnectionDoesNotHaveRequiredScope,
    OAuthConnectionNotConnectedToUser,
)
from ..models import OAuthSignInResult
from ._base import parse
from ._binding import operation
from ._client_flows import _ClientFlows

__all__ = ["ConnectedAccount", "connected_account_token"]


@dataclass(frozen=True)
class ConnectedAccount:
    """A provider account of the signed-in user with an access token for the provider's API."""

    provider: str
    access_token: str = field(repr=False)


def connected_account_token(
    transport: Transport,
    user_id: str,
    provider: str,
    scopes: str | Iterable[str] | None,
    session: Session | None,
    account_id: str | None = None,
) -> Op[str | None]:
    """``POST /connected-accounts/{user}/{provider}/access-token``: the token, or None when the
    user has no account of that provider or it lacks a scope. With
    ``account_id`` (API 2.8): that one provider account's token."""
    scope = _scope_text(scopes)
    path = f"/connected-accounts/{segment(user_id)}/{segment(provider.lower())}"
    if account_id is not None:
        path += f"/{segment(account_id)}"
    path += "/access-token"
    try:
        answer = yield from transport.call_json(
            "POST", path, json={} if scope is None else {"scope": scope}, session=session
        )
    except (OAuthConnectionNotConnectedToUser, OAuthConnectionDoesNotHaveRequiredScope):
        return None
    token = answer.get("access_token") if isinstance(answer, dict) else None
    if not isinstance(token, str):
        raise InvalidServerResponse("The connected-account answer has no access_token.")
    return token


def _scope_text(scopes: str | Iterable[str] | None) -> str | None:
    if scopes is None:
        return None
    words = scopes.split() if isinstance(scopes, str) else [str(s) for s in scopes]
    return " ".join(words) or None


class _ClientOAuth(_ClientFlows):
    session: Session

    @operation
    def get_oauth_authorize_url(
        self,
        provider: str,
        *,
        redirect_uri: str,
        after_callback_redirect_url: str | None = None,
        error_redirect_url: str | None = None,
        link: bool = False,
        provider_scopes: str | Sequence[str] | None = None,
    ) -> Op[OAuthAuthorization]:
        """Start an OAuth sign-in (or, with ``link=True``, connect a provider to the signed-in user).

        ``redirect_uri`` is the absolute URL of your page that receives ``code`` and
        ``state`` (its ``code``/``state`` parameters and fragment are dropped). Returns the URL
        to send the browser to, and ``state`` and ``code_verifier`` to keep until the callback
        (for at most 10 minutes; keep them where only this browser's requests reach, such as an
        HttpOnly cookie named ``cookie_name``). ``error_redirect_url`` gets the service's
        errors as ``errorCode``/``message``/``details``; ``after_callback_redirect_url`` comes
        back from the code exchange. ``provider_scopes`` (link only) asks the provider for
        more scopes; projects with shared keys refuse them.
        """
        token = None
        if link:
            token = yield from self.session.get_access_token()
            if token is None:
                raise ValueError("Linking a provider needs a signed-in user (this app's session has no tokens).")
        elif provider_scopes:
            raise ValueError("provider_scopes is only sent when linking (link=True), as the official SDK does.")
        return authorize_url(
            self.config,
            provider,
            redirect_uri=redirect_uri,
            error_redirect_url=error_redirect_url,
            after_callback_redirect_url=after_callback_redirect_url,
            link_token=token,
            provider_scope=_scope_text(provider_scopes),
        )

    @operation
    def sign_in_with_oauth_callback(
        self,
        url_or_params: str | Mapping[str, Any] | Iterable[tuple[str, str]],
        *,
        state: str | None,
        code_verifier: str | None,
        redirect_uri: str | None = None,
    ) -> Op[OAuthSignInResult]:
        """Finish an OAuth sign-in: check the callback, exchange its code, keep the session.

        ``url_or_params`` is the full callback URL (or its query parameters; then pass
        ``redirect_uri``, the one given to ``get_oauth_authorize_url``). ``state`` and
        ``code_verifier`` are what you kept; None means nothing was kept for this browser.
        Raises :class:`~authmw.errors.OAuthCallbackError` (``reason``: missing parameters,
        no stored state, state or issuer mismatch, the provider's ``error`` such as
        ``access_denied``), the service's error when it redirected one here (``errorCode``),
        ``InvalidAuthorizationCode``, ``RedirectUrlNotWhitelisted``, or
        ``MultiFactorAuthenticationRequired`` (finish with the TOTP and its ``attempt_code``).
        """
        params = callback_params(url_or_params)
        if redirect_uri is None:
            if not isinstance(url_or_params, str):
                raise ValueError("Pass redirect_uri (the one the flow started with) when giving parameters.")
            redirect_uri = strip_code_and_state(url_or_params)
        if params.get("code") and params.get("state") and not code_verifier and not params.get("errorCode"):
            raise OAuthCallbackError("no_stored_state", "No sign-in was started for this state in this browser.")
        code = callback_code(params, expected_state=state, issuer=self.config.api_url)
        fields = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": strip_code_and_state(redirect_uri),
            "code_verifier": code_verifier or "",
            "client_id": self.config.project_id,
            "client_secret": self.config.publishable_client_key or "",
        }
        body = yield from self._transport.post_form("/auth/oauth/token", fields)
        result = parse(OAuthSignInResult, body)
        self.session.set_tokens(result.access_token, result.refresh_token)
        return result

    @operation
    def get_connected_account(
        self, provider: str, scopes: str | Iterable[str] | None = None
    ) -> Op[ConnectedAccount | None]:
        """The signed-in user's account of ``provider`` with an access token covering ``scopes``.

        None when the user has not connected that provider or not granted the scopes: start
        ``get_oauth_authorize_url(provider, link=True, provider_scopes=scopes, ...)`` then.
        """
        token = yield from connected_account_token(self._transport, "me", provider, scopes, self.session)
        return None if token is None else ConnectedAccount(provider.lower(), token)
