"""Multi-factor sign-in and TOTP enrolment of the client tier (issue 11) against the real
local service, sync and async. The service's clock stands still, so codes never race a step."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from urllib.parse import parse_qs, unquote, urlsplit

import pyotp
import pytest
from deployment import LiveService

from authmw.errors import (
    EmailPasswordMismatch,
    InvalidTotpCode,
    MultiFactorAuthenticationRequired,
    VerificationCodeAlreadyUsed,
    VerificationCodeExpired,
)
from authmw.models import SignInResult, TotpSetup

from .test_client_flows_live import HANDLER, PASSWORD, Flavour, new_email

dev = pytest.importorskip("authmw_local")


@pytest.fixture(scope="module")
def clock() -> dev.Clock:
    return dev.Clock()


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory, clock: dev.Clock) -> Iterator[LiveService]:
    with dev.LocalService(tmp_path_factory.mktemp("mfa"), quiet=True, clock=clock) as running:
        service = LiveService(running)
        service.set_project_config(magic_link_enabled=True)
        yield service


@pytest.fixture
def now(clock: dev.Clock) -> Iterator[float]:
    """The service's clock, stopped for the test (real time again afterwards)."""
    try:
        yield clock.freeze()
    finally:
        clock.reset()


@pytest.fixture(params=["sync", "async"])
def flow(request: pytest.FixtureRequest, live: LiveService) -> Iterator[Flavour]:
    flavour = Flavour(request.param, live)
    yield flavour
    flavour.close()


def code_at(setup: TotpSetup, at: float) -> str:
    return pyotp.TOTP(setup.secret).at(int(at))


def wrong(code: str) -> str:
    return "000000" if code != "000000" else "111111"


def enrolled(flow: Flavour, now: float) -> tuple[str, TotpSetup]:
    """A new password user with TOTP turned on through enable_totp + verify_totp."""
    app, email = flow.signed_in()
    app._totp_clock = lambda: now
    setup = flow(app.enable_totp())
    user = flow(app.verify_totp(code_at(setup, now)))
    assert user.is_multi_factor_required is True
    return email, setup


def test_enable_totp_gives_an_otpauth_uri_and_changes_nothing_until_a_code_matches(flow, live, now):
    app, email = flow.signed_in()
    app._totp_clock = lambda: now
    setup = flow(app.enable_totp())
    parts = urlsplit(setup.uri)
    project = flow(app.get_project())
    assert (parts.scheme, parts.netloc) == ("otpauth", "totp")
    assert unquote(parts.path) == f"/{project.display_name}:{email}"
    query = parse_qs(parts.query)
    assert query["secret"] == [setup.secret] and query["issuer"] == [project.display_name]
    assert len(base64.b64decode(setup.secret_base64)) == 20
    assert base64.b32decode(setup.secret + "=" * (-len(setup.secret) % 8)) == base64.b64decode(setup.secret_base64)
    assert setup.secret not in repr(setup)

    with pytest.raises(InvalidTotpCode):
        flow(app.verify_totp(wrong(code_at(setup, now))))
    assert flow(app.get_user()).is_multi_factor_required is False
    with pytest.raises(ValueError, match="6-digit code"):
        flow(app.verify_totp("12345"))

    assert flow(app.verify_totp(code_at(setup, now))).is_multi_factor_required is True
    assert flow(app.disable_totp()).is_multi_factor_required is False
    signed_in = flow(flow.client().sign_in_with_password(email, PASSWORD))
    assert isinstance(signed_in, SignInResult)


def test_verify_totp_needs_enable_totp_first(flow, live):
    app, _ = flow.signed_in()
    with pytest.raises(ValueError, match=r"enable_totp\(\) first"):
        flow(app.verify_totp("123456"))


def test_password_sign_in_of_a_totp_user_needs_the_second_factor(flow, live, now):
    email, setup = enrolled(flow, now)
    app = flow.client()
    with pytest.raises(MultiFactorAuthenticationRequired) as raised:
        flow(app.sign_in_with_password(email, PASSWORD))
    attempt_code = raised.value.attempt_code
    assert isinstance(attempt_code, str) and len(attempt_code) == 45
    assert not app.session.is_signed_in

    with pytest.raises(InvalidTotpCode) as refused:
        flow(app.sign_in_with_mfa(attempt_code=attempt_code, totp=wrong(code_at(setup, now))))
    assert refused.value.message == "The TOTP code is invalid. Please try again."
    assert not app.session.is_signed_in

    result = flow(app.sign_in_with_mfa(attempt_code=attempt_code, totp=code_at(setup, now)))
    assert result.is_new_user is False and app.session.is_signed_in
    assert flow(app.get_user()).primary_email == email
    with pytest.raises(VerificationCodeAlreadyUsed):
        flow(flow.client().sign_in_with_mfa(attempt_code=attempt_code, totp=code_at(setup, now)))


def test_an_attempt_code_expires_after_five_minutes(flow, live, clock, now):
    email, setup = enrolled(flow, now)
    app = flow.client()
    with pytest.raises(MultiFactorAuthenticationRequired) as raised:
        flow(app.sign_in_with_password(email, PASSWORD))
    clock.advance(5 * 60)
    with pytest.raises(VerificationCodeExpired):
        flow(app.sign_in_with_mfa(attempt_code=raised.value.attempt_code, totp=code_at(setup, clock())))
    assert not app.session.is_signed_in


def test_a_magic_link_sign_in_of_a_totp_user_needs_the_second_factor(flow, live, now):
    email, callback = new_email(), HANDLER + "/magic-link-callback"
    app = flow.client()
    flow(app.send_magic_link_email(email, callback))
    assert flow(app.sign_in_with_magic_link(live.last_code(email, "magic_link"))).is_new_user is True
    app._totp_clock = lambda: now
    setup = flow(app.enable_totp())
    flow(app.verify_totp(code_at(setup, now)))

    again = flow.client()
    flow(again.send_magic_link_email(email, callback))
    with pytest.raises(MultiFactorAuthenticationRequired) as raised:
        flow(again.sign_in_with_magic_link(live.last_code(email, "magic_link")))
    flow(again.sign_in_with_mfa(attempt_code=raised.value.attempt_code, totp=code_at(setup, now)))
    assert flow(again.get_user()).primary_email == email


def test_sign_in_with_mfa_checks_its_arguments(flow, live):
    app = flow.client()
    with pytest.raises(ValueError, match="6-digit code"):
        flow(app.sign_in_with_mfa(attempt_code="x" * 45, totp="abcdef"))
    with pytest.raises(ValueError, match="attempt_code"):
        flow(app.sign_in_with_mfa(attempt_code="", totp="123456"))
    with pytest.raises(EmailPasswordMismatch):
        flow(app.sign_in_with_password(new_email(), PASSWORD))
