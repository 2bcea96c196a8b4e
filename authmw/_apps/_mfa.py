"""Client-tier multi-factor sign-in and TOTP enrolment.

A sign-in of a user with TOTP raises ``MultiFactorAuthenticationRequired``; its
``attempt_code`` and the user's 6-digit code finish it::

    try:
        app.sign_in_with_password(email, password)
    except MultiFactorAuthenticationRequired as needed:
        app.sign_in_with_mfa(attempt_code=needed.attempt_code, totp=input("code: "))

Enrolment takes two steps, so a user is never locked out by a secret their authenticator
app does not hold: ``setup = app.enable_totp()`` (show ``setup.uri`` as a QR code and
``setup.secret`` as text), then ``app.verify_totp(code)`` turns TOTP on once a code matches.
"""

from __future__ import annotations

import base64
import os
import re
import time
from collections.abc import Callable

import pyotp

from .._ops import Op
from .._session import Session
from ..errors import InvalidTotpCode
from ..models import SignInResult, TotpSetup, User
from ._base import parse
from ._binding import operation
from ._client_flows import _ClientFlows

__all__: list[str] = []

#: Bytes of a new TOTP secret (as the official SDK: 20, i.e. 160 bits for HMAC-SHA-1).
TOTP_SECRET_BYTES = 20
#: Steps either side of now a code may come from while enrolling (a slow typist at a step
#: boundary). Sign-in accepts only the current step; that check is the service's.
ENROL_WINDOW_STEPS = 1
_SIX_DIGITS = re.compile(r"[0-9]{6}")


def _six_digits(code: str, what: str) -> str:
    code = code.strip() if isinstance(code, str) else code
    if not isinstance(code, str) or not _SIX_DIGITS.fullmatch(code):
        raise ValueError(f"{what} must be the 6-digit code the authenticator app shows, got {code!r}.")
    return code


class _ClientMfa(_ClientFlows):
    session: Session
    #: Seconds since the epoch for the enrolment check (tests replace it on an instance).
    _totp_clock: Callable[[], float] = staticmethod(time.time)
    _pending_totp: TotpSetup | None = None

    @operation
    def sign_in_with_mfa(self, *, attempt_code: str, totp: str) -> Op[SignInResult]:
        """Finish a sign-in that raised ``MultiFactorAuthenticationRequired``.

        ``attempt_code`` is the exception's ``attempt_code`` (valid 5 minutes), ``totp`` the
        user's current 6-digit code. A wrong code raises ``InvalidTotpCode`` and the attempt
        code stays usable; an expired or used one raises a ``VerificationCodeError``.
        """
        if not isinstance(attempt_code, str) or not attempt_code:
            raise ValueError("attempt_code must be the attempt_code of the MultiFactorAuthenticationRequired error.")
        body = {"code": attempt_code, "type": "totp", "totp": _six_digits(totp, "totp")}
        answer = yield from self._transport.call_json("POST", "/auth/mfa/sign-in", json=body)
        return self._sign_in(answer)

    @operation
    def enable_totp(self) -> Op[TotpSetup]:
        """Start turning TOTP on: a new secret and its ``otpauth://`` URI (issuer = the
        project's name, account = the user's e-mail). Nothing changes until ``verify_totp``."""
        project = yield from self._transport.call_json("GET", "/projects/current")
        user = yield from self._transport.call_json("GET", "/users/me", session=self.session)
        account = user.get("primary_email") or user.get("display_name") or user.get("id") or "user"
        issuer = project.get("display_name") or project.get("id") or "authmw"
        secret = os.urandom(TOTP_SECRET_BYTES)
        text = base64.b32encode(secret).decode().rstrip("=")
        setup = TotpSetup(
            secret=text,
            secret_base64=base64.b64encode(secret).decode(),
            uri=pyotp.TOTP(text).provisioning_uri(name=account, issuer_name=issuer),
        )
        self._pending_totp = setup
        return setup

    @operation
    def verify_totp(self, code: str) -> Op[User]:
        """Turn TOTP on with the secret of the last ``enable_totp()`` once ``code`` matches it.

        Raises ``InvalidTotpCode`` for a code that does not match (try again with a new one).
        """
        setup = self._pending_totp
        if setup is None:
            raise ValueError("Call enable_totp() first: verify_totp(code) confirms the secret it returned.")
        code = _six_digits(code, "code")
        if not pyotp.TOTP(setup.secret).verify(code, for_time=self._totp_clock(), valid_window=ENROL_WINDOW_STEPS):
            raise InvalidTotpCode()
        body = yield from self._transport.call_json(
            "PATCH", "/users/me", json={"totp_secret_base64": setup.secret_base64}, session=self.session
        )
        self._pending_totp = None
        return parse(User, body)

    @operation
    def disable_totp(self) -> Op[User]:
        """Turn TOTP off: sign-ins no longer ask for a code."""
        self._pending_totp = None
        body = yield from self._transport.call_json(
            "PATCH", "/users/me", json={"totp_secret_base64": None}, session=self.session
        )
        return parse(User, body)
