"""OAuth sign-in in the Python client: authorize URL, callback checks, code exchange (flow 6.5)."""

from __future__ import annotations

import base64
import hashlib
import uuid
from urllib.parse import parse_qs, urlsplit

import pytest

from authmw import AsyncClientApp, AuthConfig, ClientApp
from authmw._oauth import (
    authorize_url,
    callback_code,
    outer_cookie_name,
    strip_code_and_state,
    verifier_from_cookies,
)
from authmw.errors import (
    InvalidAuthorizationCode,
    OAuthCallbackError,
    OAuthProviderAccessDenied,
    RedirectUrlNotWhitelisted,
)
from authmw.middleware._cookies import parse_cookie_header

CONFIG = AuthConfig(
    project_id=str(uuid.uuid4()), api_url="https://api.example.com", publishable_client_key="pck_public"
)
CALLBACK = "http://testserver/handler/oauth-callback"


def _query(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query, keep_blank_values=True).items()}


# -- authorize URL ---------------------------------------------------------------------------


def test_authorize_url_carries_every_parameter_of_spec_section_7() -> None:
    flow = authorize_url(
        CONFIG,
        "GitHub",
        redirect_uri=CALLBACK + "?after_auth_return_to=%2Fx&code=old&state=old#frag",
        error_redirect_url="http://testserver/handler/error",
        after_callback_redirect_url="/after",
    )
    parts = urlsplit(flow.url)
    assert (
        f"{parts.scheme}://{parts.netloc}{parts.path}" == "https://api.example.com/api/v1/auth/oauth/authorize/github"
    )
    assert _query(flow.url) == {
        "client_id": CONFIG.project_id,
        "client_secret": "pck_public",
        "redirect_uri": CALLBACK + "?after_auth_return_to=%2Fx",
        "scope": "legacy",
        "state": flow.state,
        "grant_type": "authorization_code",
        "code_challenge": base64.urlsafe_b64encode(hashlib.sha256(flow.code_verifier.encode()).digest())
        .rstrip(b"=")
        .decode(),
        "code_challenge_method": "S256",
        "response_type": "code",
        "type": "authenticate",
        "error_redirect_url": "http://testserver/handler/error",
        "after_callback_redirect_url": "http://testserver/after",
    }
    assert 43 <= len(flow.code_verifier) <= 128 and len(flow.state) >= 20
    assert flow.cookie_name == f"stack-oauth-outer-{flow.state}"
    assert flow.code_verifier not in repr(flow)


def test_each_flow_gets_its_own_state_and_verifier() -> None:
    first, second = (authorize_url(CONFIG, "github", redirect_uri=CALLBACK) for _ in range(2))
    assert first.state != second.state and first.code_verifier != second.code_verifier


def test_link_urls_carry_the_token_and_provider_scope() -> None:
    flow = authorize_url(CONFIG, "gitlab", redirect_uri=CALLBACK, link_token="tok", provider_scope="read_user api")
    query = _query(flow.url)
    assert query["type"] == "link" and query["token"] == "tok" and query["provider_scope"] == "read_user api"


@pytest.mark.parametrize(
    ("provider", "redirect_uri"),
    [("git hub", CALLBACK), ("../x", CALLBACK), ("github", "/handler/oauth-callback"), ("github", "javascript:x")],
)
def test_bad_arguments_are_refused_with_the_reason(provider: str, redirect_uri: str) -> None:
    with pytest.raises(ValueError, match="provider|redirect_uri"):
        authorize_url(CONFIG, provider, redirect_uri=redirect_uri)


def test_strip_code_and_state_keeps_the_rest() -> None:
    assert strip_code_and_state("https://a.example/cb?code=1&x=2&state=3#f") == "https://a.example/cb?x=2"


# -- the outer cookie ------------------------------------------------------------------------


@pytest.mark.parametrize("prefix", ["stack-oauth-outer-", "hexclave-oauth-outer-"])
def test_both_cookie_names_of_the_official_sdks_are_read(prefix: str) -> None:
    # The official SDKs write the raw verifier (URL-safe characters) under either name.
    header = f"other=1; {prefix}st4te=v3rifier_-abc; stack-oauth-outer-another=nope"
    cookies = parse_cookie_header(header, frozenset({"stack-oauth-outer-st4te", "hexclave-oauth-outer-st4te"}))
    assert verifier_from_cookies(cookies, "st4te") == "v3rifier_-abc"
    assert verifier_from_cookies(cookies, "another") is None
    assert outer_cookie_name("s") == "stack-oauth-outer-s"


# -- callback checks -------------------------------------------------------------------------


def test_callback_checks() -> None:
    ok = {"code": "c0de", "state": "s"}
    assert callback_code(ok, expected_state="s", issuer="https://api.example.com") == "c0de"
    assert callback_code(
        {**ok, "iss": "https://api.example.com/"}, expected_state="s", issuer="https://api.example.com"
    )
    cases = [
        ({"state": "s"}, "s", "missing_parameters"),
        ({"code": "c"}, "s", "missing_parameters"),
        (ok, "another", "state_mismatch"),
        (ok, None, "state_mismatch"),
        ({**ok, "iss": "https://evil.example"}, "s", "issuer_mismatch"),
        ({**ok, "access_token": "t"}, "s", "implicit_response"),
        ({"error": "access_denied", "state": "s"}, "s", "provider_error"),
    ]
    for params, expected, reason in cases:
        with pytest.raises(OAuthCallbackError) as caught:
            callback_code(params, expected_state=expected, issuer="https://api.example.com")
        assert caught.value.reason == reason, params
    with pytest.raises(OAuthCallbackError) as denied:
        callback_code({"error": "access_denied"}, expected_state="s", issuer="x")
    assert denied.value.error == "access_denied"


def test_a_service_error_redirected_to_the_callback_is_raised_as_that_error() -> None:
    params = {"errorCode": "OAUTH_PROVIDER_ACCESS_DENIED", "message": "Access denied.", "details": "{}"}
    with pytest.raises(OAuthProviderAccessDenied):
        callback_code(params, expected_state="s", issuer="x")


def test_callback_without_a_kept_verifier_signs_nobody_in() -> None:
    app = ClientApp(CONFIG)
    with pytest.raises(OAuthCallbackError) as caught:
        app.sign_in_with_oauth_callback(CALLBACK + "?code=c&state=s", state=None, code_verifier=None)
    assert caught.value.reason == "no_stored_state"
    assert app.session.refresh_token is None
    with pytest.raises(ValueError, match="redirect_uri"):
        app.sign_in_with_oauth_callback({"code": "c", "state": "s"}, state="s", code_verifier="v")


# -- against the local service ---------------------------------------------------------------


def test_sign_up_then_sign_in_again_through_the_mock_provider(oauth_service) -> None:  # type: ignore[no-untyped-def]
    email = f"oauth-{uuid.uuid4().hex[:8]}@example.com"
    with ClientApp(oauth_service.config) as app:
        flow = app.get_oauth_authorize_url("github", redirect_uri=CALLBACK, after_callback_redirect_url="/welcome")
        back = oauth_service.provider_round_trip(flow.url, email)
        assert _query(back)["state"] == flow.state
        result = app.sign_in_with_oauth_callback(back, state=flow.state, code_verifier=flow.code_verifier)
        assert result.is_new_user is True and result.after_callback_redirect_url == "http://testserver/welcome"
        user = app.get_user()
        assert user is not None and user.primary_email == email
        assert [p.id for p in user.oauth_providers] == ["github"]
        # the code is single-use
        with pytest.raises(InvalidAuthorizationCode):
            app.sign_in_with_oauth_callback(back, state=flow.state, code_verifier=flow.code_verifier)
    with ClientApp(oauth_service.config) as again:
        flow = again.get_oauth_authorize_url("github", redirect_uri=CALLBACK)
        back = oauth_service.provider_round_trip(flow.url, email)
        second = again.sign_in_with_oauth_callback(back, state=flow.state, code_verifier=flow.code_verifier)
        assert second.is_new_user is False
        assert again.get_user().id == user.id  # type: ignore[union-attr]


def test_a_wrong_verifier_or_foreign_state_is_refused(oauth_service) -> None:  # type: ignore[no-untyped-def]
    with ClientApp(oauth_service.config) as app:
        flow = app.get_oauth_authorize_url("github", redirect_uri=CALLBACK)
        back = oauth_service.provider_round_trip(flow.url, f"x-{uuid.uuid4().hex[:8]}@example.com")
        with pytest.raises(OAuthCallbackError) as foreign:
            app.sign_in_with_oauth_callback(back, state="another-state", code_verifier=flow.code_verifier)
        assert foreign.value.reason == "state_mismatch"
        with pytest.raises(InvalidAuthorizationCode):
            app.sign_in_with_oauth_callback(back, state=flow.state, code_verifier="not-the-verifier-" * 3)
        assert app.session.refresh_token is None


def test_untrusted_redirect_uri_is_refused(oauth_service) -> None:  # type: ignore[no-untyped-def]
    with ClientApp(oauth_service.config) as app:
        flow = app.get_oauth_authorize_url(
            "github", redirect_uri="https://evil.example/cb", error_redirect_url=CALLBACK
        )
        back = oauth_service.provider_round_trip(flow.url, f"x-{uuid.uuid4().hex[:8]}@example.com")
        with pytest.raises(RedirectUrlNotWhitelisted):
            app.sign_in_with_oauth_callback(back, state=flow.state, code_verifier=flow.code_verifier)


async def test_async_app_links_a_second_provider_and_gets_its_token(oauth_service) -> None:  # type: ignore[no-untyped-def]
    email = f"link-{uuid.uuid4().hex[:8]}@example.com"
    async with AsyncClientApp(oauth_service.config) as app:
        flow = await app.get_oauth_authorize_url("github", redirect_uri=CALLBACK)
        back = oauth_service.provider_round_trip(flow.url, email)
        await app.sign_in_with_oauth_callback(back, state=flow.state, code_verifier=flow.code_verifier)
        assert await app.get_connected_account("gitlab") is None
        link = await app.get_oauth_authorize_url("gitlab", redirect_uri=CALLBACK, link=True, provider_scopes=["api"])
        assert _query(link.url)["type"] == "link" and _query(link.url)["provider_scope"] == "api"
        back = oauth_service.provider_round_trip(link.url, email)
        linked = await app.sign_in_with_oauth_callback(back, state=link.state, code_verifier=link.code_verifier)
        assert linked.is_new_user is False
        account = await app.get_connected_account("gitlab", ["api"])
        assert account is not None and account.provider == "gitlab" and account.access_token
        assert account.access_token not in repr(account)
        assert await app.get_connected_account("gitlab", "api not_granted") is None
        user = await app.get_user()
        assert sorted(p.id for p in user.oauth_providers) == ["github", "gitlab"]  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "hostile",
    [
        "//evil.example",
        "/\\evil.example",
        "\\\\evil.example",
        "/\t/evil.example",
        "/\n/evil.example",
        "https://evil.example/",
        "javascript:alert(1)",
        "/.//evil.example",
        "",
    ],
)
def test_server_flow_return_paths_never_leave_the_site(hostile: str) -> None:
    from authmw._oauth_flow import safe_return_path

    assert safe_return_path(hostile) is None


@pytest.mark.parametrize(
    ("odd", "path"), [("evil.example", "/evil.example"), ("/\x00/evil.example", "/%00/evil.example")]
)
def test_server_flow_return_paths_that_stay_are_kept_as_the_browser_reads_them(odd: str, path: str) -> None:
    from authmw._oauth_flow import safe_return_path

    assert safe_return_path(odd) == path  # a path of this site, as a browser resolves it


def test_server_flow_return_paths_keep_query_and_fragment() -> None:
    from authmw._oauth_flow import safe_return_path

    assert safe_return_path("/a/b?c=1#d") == "/a/b?c=1#d"


# -- account rules (service-api A5.4.6) ----------------------------------------------------------


def _sign_in(service, app, provider: str, email: str, *, link: bool = False, **form: str):  # type: ignore[no-untyped-def]
    flow = app.get_oauth_authorize_url(provider, redirect_uri=CALLBACK, error_redirect_url=CALLBACK, link=link)
    back = service.provider_round_trip(flow.url, email, **form)
    return app.sign_in_with_oauth_callback(back, state=flow.state, code_verifier=flow.code_verifier)


def test_linking_an_account_of_another_user_is_refused(oauth_service) -> None:  # type: ignore[no-untyped-def]
    """An account that signs another user in is refused; on API 2.8 a second account of the same
    provider is one more link, as backend 2.8.86's link flow makes it (2.7's refusal:
    tests/dev/test_oauth_links.py)."""
    from authmw.errors import OAuthConnectionAlreadyConnectedToAnotherUser

    taken = f"taken-{uuid.uuid4().hex[:8]}@example.com"
    with ClientApp(oauth_service.config) as owner, ClientApp(oauth_service.config) as other:
        _sign_in(oauth_service, owner, "gitlab", taken)
        _sign_in(oauth_service, other, "github", f"other-{uuid.uuid4().hex[:8]}@example.com")
        with pytest.raises(OAuthConnectionAlreadyConnectedToAnotherUser):
            _sign_in(oauth_service, other, "gitlab", taken, link=True)
        _sign_in(oauth_service, other, "gitlab", f"mine-{uuid.uuid4().hex[:8]}@example.com", link=True)
        _sign_in(oauth_service, other, "gitlab", f"second-{uuid.uuid4().hex[:8]}@example.com", link=True)
        user = other.get_user()
        assert user is not None
        assert sorted(p.id for p in user.oauth_providers) == ["github", "gitlab", "gitlab"]


def test_an_unverified_address_of_a_password_account_is_not_merged(oauth_service) -> None:  # type: ignore[no-untyped-def]
    """API 2.8 (service-api B10): the OAuth sign-up is refused, saying the merge would work
    once the address is verified; the provider never joins the unverified account."""
    from authmw.errors import ContactChannelAlreadyUsedForAuthBySomeoneElse

    email = f"pw-{uuid.uuid4().hex[:8]}@example.com"
    with ClientApp(oauth_service.config) as password_user, ClientApp(oauth_service.config) as oauth_user:
        password_user.sign_up_with_password(email, "correct horse battery", "http://localhost/verify")
        with pytest.raises(ContactChannelAlreadyUsedForAuthBySomeoneElse) as info:
            _sign_in(oauth_service, oauth_user, "github", email)
        assert info.value.would_work_if_email_was_verified is True
        assert not oauth_user.session.is_signed_in
        assert password_user.get_user().oauth_providers == []  # type: ignore[union-attr]


def test_the_mock_browser_says_what_went_wrong(oauth_service) -> None:  # type: ignore[no-untyped-def]
    from authmw.dev import MockProviderError, sign_in_at_mock_provider

    with pytest.raises(MockProviderError, match="without sending the browser to the local service.s mock provider"):
        sign_in_at_mock_provider(f"{oauth_service.url}/api/v1/health", email="a@example.com")
    with ClientApp(oauth_service.config) as app:
        flow = app.get_oauth_authorize_url("github", redirect_uri=CALLBACK)
        with pytest.raises(MockProviderError, match="refused the sign-in \\(400\\)"):
            sign_in_at_mock_provider(flow.url, email="not an address")
        # no error_redirect_url: 2.8 sends the denial to the app's own (trusted) callback
        denied = sign_in_at_mock_provider(flow.url, email="a@example.com", deny=True)
        assert denied.startswith(CALLBACK) and "errorCode=OAUTH_PROVIDER_ACCESS_DENIED" in denied
        flow = app.get_oauth_authorize_url("github", redirect_uri=CALLBACK, error_redirect_url=CALLBACK)
        denied = sign_in_at_mock_provider(flow.url, email="a@example.com", deny=True)
        assert denied.startswith(CALLBACK) and "OAUTH_PROVIDER_ACCESS_DENIED" in denied
