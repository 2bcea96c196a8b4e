"""Client-tier e-mail flows: magic link, passwords, e-mail verification.

Codes arrive by e-mail as links ``callback_url?code=<45 characters>``; the page at
``callback_url`` passes the code to the matching call here. Bad codes raise the
``VerificationCodeError`` family (not found, expired, already used, too many attempts).
"""

from __future__ import annotations

from typing import Any

from .._ops import Op
from .._session import Session
from ..errors import InvalidServerResponse
from ..models import SignInResult
from ._base import _CommonOps, parse, require_callback_url
from ._binding import operation

__all__: list[str] = []

#: Length of the one-time password shown in magic-link e-mails (the rest is the nonce).
OTP_LENGTH = 6


class _ClientFlows(_CommonOps):
    session: Session

    def _sign_in(self, body: Any) -> SignInResult:
        result = parse(SignInResult, body)
        self.session.set_tokens(result.access_token, result.refresh_token)
        return result

    # -- magic link ----------------------------------------------------------------------

    @operation
    def send_magic_link_email(self, email: str, callback_url: str) -> Op[str]:
        """E-mail a sign-in link (``callback_url?code=...``) and a 6-character code; the nonce.

        Signs up a new user at sign-in when nobody uses the address yet. Keep the returned
        nonce to sign in with the typed code: ``sign_in_with_magic_link(otp, nonce=nonce)``.
        Raises ``RedirectUrlNotWhitelisted``, ``UserEmailAlreadyExists`` (the address signs
        in another way and is unverified) or ``SignUpNotEnabled``; a project without magic
        links answers with ``HttpStatusError`` 403.
        """
        body = {"email": email, "callback_url": require_callback_url(callback_url, page="magic-link-callback")}
        answer = yield from self._transport.call_json("POST", "/auth/otp/send-sign-in-code", json=body)
        nonce = answer.get("nonce") if isinstance(answer, dict) else None
        if not isinstance(nonce, str):
            raise InvalidServerResponse("The magic-link answer has no nonce.")
        return nonce

    @operation
    def sign_in_with_magic_link(self, code: str, *, nonce: str | None = None) -> Op[SignInResult]:
        """Sign in with the link's code, or with the typed 6-character code and its ``nonce``.

        ``result.is_new_user`` tells whether the user was just created (send them to your
        after-sign-up page). Raises a ``VerificationCodeError`` for a bad code and
        ``MultiFactorAuthenticationRequired`` for users with TOTP.
        """
        if nonce is not None:
            if len(code) != OTP_LENGTH:
                raise ValueError(f"With a nonce, code must be the {OTP_LENGTH}-character code from the e-mail.")
            code = code.lower() + nonce
        body = yield from self._transport.call_json("POST", "/auth/otp/sign-in", json={"code": code})
        return self._sign_in(body)

    # -- passwords -----------------------------------------------------------------------

    @operation
    def send_forgot_password_email(self, email: str, callback_url: str) -> Op[None]:
        """E-mail a password-reset link (``callback_url?code=...``) if someone signs in with ``email``.

        Answers the same whether or not the address is known (so it cannot be probed).
        """
        body = {"email": email, "callback_url": require_callback_url(callback_url, page="password-reset")}
        yield from self._transport.call("POST", "/auth/password/send-reset-code", json=body)

    @operation
    def verify_password_reset_code(self, code: str) -> Op[None]:
        """Check a reset code without using it; raises a ``VerificationCodeError``."""
        yield from self._transport.call("POST", "/auth/password/reset/check-code", json={"code": code})

    @operation
    def reset_password(self, code: str, password: str) -> Op[None]:
        """Set a new password with a reset code; every session of the user ends.

        Raises a ``VerificationCodeError`` or ``PasswordTooShort``.
        """
        yield from self._transport.call("POST", "/auth/password/reset", json={"code": code, "password": password})

    @operation
    def update_password(self, old_password: str, new_password: str) -> Op[None]:
        """Change the signed-in user's password; their other sessions end, this one stays.

        Raises ``PasswordConfirmationMismatch`` (wrong old password), ``PasswordTooShort``
        or ``UserDoesNotHavePassword``.
        """
        body = {"old_password": old_password, "new_password": new_password}
        yield from self._transport.call(
            "POST", "/auth/password/update", json=body, session=self.session, send_refresh_token=True
        )

    @operation
    def set_password(self, password: str) -> Op[None]:
        """Give a password to a signed-in user who has none (``PasswordTooShort``)."""
        yield from self._transport.call("POST", "/auth/password/set", json={"password": password}, session=self.session)

    # -- e-mail verification -------------------------------------------------------------

    @operation
    def send_verification_email(self, callback_url: str) -> Op[None]:
        """E-mail a verification link for the signed-in user's primary address.

        Raises ``EmailAlreadyVerified`` if it is verified. The page at ``callback_url`` calls
        ``verify_email(code)``. Other addresses: ``contact_channels.send_verification_code``.
        """
        callback_url = require_callback_url(callback_url, page="email-verification")
        user = yield from self._transport.call_json("GET", "/users/me", session=self.session)
        email = user.get("primary_email") if isinstance(user, dict) else None
        if not email:
            raise ValueError("The signed-in user has no primary e-mail address to verify.")
        body = {"email": email, "callback_url": callback_url}
        yield from self._transport.call(
            "POST", "/contact-channels/send-verification-code", json=body, session=self.session
        )

    @operation
    def verify_email(self, code: str) -> Op[None]:
        """Mark the e-mailed address verified (no sign-in needed); ``VerificationCodeError``."""
        yield from self._transport.call("POST", "/contact-channels/verify", json={"code": code})
