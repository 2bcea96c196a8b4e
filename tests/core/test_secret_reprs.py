"""No secret in any repr, str or log line of a public object.

Secrets: access and refresh tokens, the three project keys, PKCE verifiers, TOTP secrets, OAuth
client secrets, SMTP passwords, MFA attempt codes, provider access tokens. Objects: every
class exported by authmw's public modules and the adapters. The walk finds each exported class
that can hold a secret (a field or argument with a secret's name) and demands an example of
it below, made with real secrets (a real session of the local service where there is one), so
a new class holding a secret cannot slip by without being checked.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import logging
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from authmw import AdminApp, AsyncClientApp, AsyncServerApp, AuthConfig, ClientApp, ServerApp
from authmw.adapter import OAuthRoutes, Options, Resolved, SessionResolver
from authmw.errors import MultiFactorAuthenticationRequired
from authmw.middleware import ApiKeyTeam, ApiKeyUser, AuthMiddleware, AuthUser, WSGIAuthMiddleware

MODULES = ["authmw", "authmw.models", "authmw.adapter", "authmw.middleware", "authmw.errors", "authmw.dev"]
ADAPTERS = ["authmw_fastapi", "authmw_flask", "authmw_django", "authmw_quart"]
#: Names of fields and arguments that hold a secret (``*_last_four`` and ``has_*`` do not).
SECRET_NAME = re.compile(r"(^|_)(token|secret|key|password|verifier|cookies?)(_|$)|^url$|attempt_code")
NOT_SECRET = re.compile(r"_last_four$|^has_|_enabled$|cookie_(same_site|secure|format|attributes)$|^from_cookies$")

PKCE = "pkce-verifier-0123456789-abcdefghijklmnopqrstuvwxyz-ABCDEFGHIJKL"
TOTP = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
CLIENT_SECRET = "oauth-client-secret-7f3a9c"
SMTP_PASSWORD = "smtp-password-5be21d"
ATTEMPT = "mfa-attempt-code-91c7e2"
PROVIDER_TOKEN = "gho_provider-access-token-4d1e"


def public_classes() -> Iterator[tuple[str, type]]:
    for name in MODULES + ADAPTERS:
        module = importlib.import_module(name)
        for attr in getattr(module, "__all__", ()):
            obj = getattr(module, attr)
            if inspect.isclass(obj):
                yield f"{name}.{attr}", obj


def field_names(cls: type) -> list[str]:
    if dataclasses.is_dataclass(cls):
        return [f.name for f in dataclasses.fields(cls)]
    if hasattr(cls, "model_fields"):
        return list(cls.model_fields)
    if hasattr(cls, "_fields"):
        return list(cls._fields)
    names = list(getattr(cls, "__slots__", ()))
    try:
        names += list(inspect.signature(cls.__init__).parameters)[1:]
    except (TypeError, ValueError):
        pass
    return names


def holds_secret(cls: type) -> bool:
    return any(SECRET_NAME.search(n) and not NOT_SECRET.search(n) for n in field_names(cls))


@pytest.fixture(scope="module")
def examples(local_service: Any) -> dict[type, Callable[[], list[Any]]]:
    """One or more instances per class that can hold a secret, each holding real secrets."""
    from flask import Flask

    from authmw import ConnectedAccount, OAuthAuthorization, Session
    from authmw._oauth import authorize_url
    from authmw.dev import LocalService
    from authmw.errors import HttpStatusError, NotInServiceVersion, ServiceUnreachable
    from authmw.models import (
        AdminOAuthProvider,
        EmailConfig,
        NewApiKey,
        NewProjectApiKey,
        OAuthSignInResult,
        SignInResult,
        TokenPair,
        TotpSetup,
    )
    from authmw_flask import AuthMW
    from authmw_local.routes.api_keys import make_api_key

    config = local_service.config
    client = ClientApp(config)
    signed_in = client.sign_up_with_password(f"repr-{time.time_ns()}@example.com", "correct horse battery")
    access, refresh = signed_in.access_token, signed_in.refresh_token
    claims = ServerApp(config).verify_access_token(access)
    link = client.get_oauth_authorize_url("github", redirect_uri="http://localhost/cb", link=True)
    sign_in = authorize_url(config, "github", redirect_uri="http://localhost/cb", code_verifier=PKCE)
    key = AdminApp(config).api_keys.create(description="repr test", expires_at_millis=int(time.time() + 3600) * 1000)
    session = Session(config, refresh_token=refresh, access_token=access)
    # a user API key as the create call answers it (tests/core/test_api_keys_live.py makes real ones)
    user_key_id = "7b0c6a52-2f4e-4c7e-9a55-3c1d8e6f0a11"
    user_key = NewProjectApiKey.model_validate(
        {
            "id": user_key_id,
            "type": "user",
            "user_id": claims.sub,
            "description": "repr test",
            "created_at_millis": 0,
            "is_public": False,
            "value": make_api_key(user_key_id, "user"),
        }
    )
    resolver = SessionResolver(config)
    cookies = tuple(f"{name}={value}; Path=/" for name, value in [("stack-access", json.dumps([refresh, access]))])
    flask_app = Flask(__name__)
    wire = {"access_token": access, "refresh_token": refresh, "user_id": claims.sub}
    return {
        AuthConfig: lambda: [config],
        ClientApp: lambda: [client, ClientApp(config, refresh_token=refresh, access_token=access)],
        AsyncClientApp: lambda: [AsyncClientApp(config, refresh_token=refresh, access_token=access)],
        ServerApp: lambda: [ServerApp(config)],
        AsyncServerApp: lambda: [AsyncServerApp(config)],
        AdminApp: lambda: [AdminApp(config)],
        Session: lambda: [session],
        OAuthAuthorization: lambda: [link, sign_in],
        ConnectedAccount: lambda: [ConnectedAccount("github", PROVIDER_TOKEN)],
        TokenPair: lambda: [TokenPair.model_validate(wire)],
        SignInResult: lambda: [signed_in],
        OAuthSignInResult: lambda: [OAuthSignInResult.model_validate({**wire, "is_new_user": True})],
        NewApiKey: lambda: [key],
        NewProjectApiKey: lambda: [user_key],
        AdminOAuthProvider: lambda: [
            AdminOAuthProvider.model_validate(
                {"id": "github", "type": "standard", "enabled": True, "client_id": "id", "client_secret": CLIENT_SECRET}
            )
        ],
        EmailConfig: lambda: [
            EmailConfig.model_validate(
                {"type": "standard", "host": "smtp", "port": 587, "username": "u", "password": SMTP_PASSWORD}
            )
        ],
        TotpSetup: lambda: [TotpSetup(uri=f"otpauth://totp/x?secret={TOTP}", secret=TOTP, secret_base64=TOTP)],
        AuthUser: lambda: [AuthUser(claims, access, refresh, ServerApp(config))],
        # the principals of API keys hold the key as listed (here the create answer, value included)
        ApiKeyUser: lambda: [ApiKeyUser(user_key, ServerApp(config))],
        ApiKeyTeam: lambda: [ApiKeyTeam(user_key)],
        Resolved: lambda: [Resolved(AuthUser(claims, access, refresh), cookies, True)],
        SessionResolver: lambda: [resolver],
        Options: lambda: [resolver.options, Options(verifier=resolver.core.verifier)],
        OAuthRoutes: lambda: [OAuthRoutes(config)],
        AuthMiddleware: lambda: [AuthMiddleware(lambda *a: None, config=config)],
        WSGIAuthMiddleware: lambda: [WSGIAuthMiddleware(lambda *a: [], config)],
        AuthMW: lambda: [AuthMW(flask_app, config=config)],
        MultiFactorAuthenticationRequired: lambda: [MultiFactorAuthenticationRequired(details={"attempt_code": ATTEMPT})],
        HttpStatusError: lambda: [HttpStatusError(401, "nope", method="POST", url=f"{config.api_url}/api/v1/x")],
        NotInServiceVersion: lambda: [
            NotInServiceVersion("Not in API 2.8.", method="GET", url=f"{config.api_url}/api/v1/email-templates")
        ],
        ServiceUnreachable: lambda: [
            ServiceUnreachable(
                method="POST",
                url=f"{config.api_url}/api/v1/auth/sessions/current/refresh",
                attempts=3,
                cause="ConnectError",
                health="down",
                api_url=config.api_url,
            )
        ],
        LocalService: lambda: [local_service.service],
        "secrets": lambda: [
            access,
            refresh,
            config.secret_server_key,
            config.super_secret_admin_key,
            key.secret_server_key,
            key.publishable_client_key,
            user_key.api_key,
            link.code_verifier,
            PKCE,
            TOTP,
            CLIENT_SECRET,
            SMTP_PASSWORD,
            ATTEMPT,
            PROVIDER_TOKEN,
        ],
    }  # type: ignore[dict-item]


def leaks(text: str, secrets: list[str]) -> list[str]:
    return [s[:12] + "..." for s in secrets if s and (s in text or s[-24:] in text)]


def test_every_public_class_that_holds_a_secret_has_an_example(examples: dict[Any, Any]) -> None:
    missing = [name for name, cls in public_classes() if holds_secret(cls) and cls not in examples]
    assert not missing, f"add an example of each to this test: {missing}"


def test_no_repr_or_str_shows_a_secret(examples: dict[Any, Any]) -> None:
    secrets = [s for s in examples["secrets"]() if s]
    found = {}
    for cls, make in examples.items():
        if cls == "secrets":
            continue
        for obj in make():
            for show in (repr, str):
                bad = leaks(show(obj), secrets)
                if bad:
                    found[f"{show.__name__}({getattr(cls, '__name__', cls)})"] = bad
    assert not found, sorted(found)


def test_the_link_flows_authorization_keeps_the_token_out_of_repr_but_in_url(examples: dict[Any, Any]) -> None:
    """The attack of issue 26: a link flow's repr showed the access token inside ``url``."""
    from authmw import OAuthAuthorization

    link, _ = examples[OAuthAuthorization]()
    access = examples["secrets"]()[0]
    assert f"token={access}" in link.url  # the browser still gets it
    for shown in (repr(link), str(link), f"{link}", f"{link!r}"):
        assert access not in shown and link.code_verifier not in shown
        assert "redirect_uri" in shown  # still says which flow it is


def test_the_request_records_of_the_middleware_show_no_secret(local_service: Any) -> None:
    """Not public, but what a request is decided from: the session its cookies hold, the
    credentials read, the outcome with the cookies to write. Each is made by the middleware's
    own readers and decision from a real session, and none shows a token in its repr or str
    (a log line or a traceback's locals)."""
    from authmw._ops import SyncDriver
    from authmw.middleware._cookies import SessionCookieReader
    from authmw.middleware._core import Authenticator
    from authmw.middleware._credentials import Tokens

    config = local_service.config
    result = ClientApp(config).sign_up_with_password(f"records-{time.time_ns()}@example.com", "correct horse battery")
    secrets = [result.access_token, result.refresh_token]
    cookie = f"stack-refresh-{config.project_id}={result.refresh_token}"  # no access token: a refresh
    core = Authenticator(config, startup_check=False)
    decided = core.decide(cookie, None)
    assert isinstance(decided, Tokens) and decided.refresh_token == result.refresh_token
    outcome = SyncDriver().run(core.settle(decided))
    assert outcome.access_token and outcome.cookies  # refreshed: new cookies to write
    secrets.append(outcome.access_token)
    stored = SessionCookieReader(config.project_id).read(cookie)
    assert stored.refresh_token == result.refresh_token
    for record in (stored, decided, outcome):
        for show in (repr, str):
            assert not leaks(show(record), secrets), f"{show.__name__}({type(record).__name__})"
            assert "..." in show(record)  # says there is something, without showing it


def test_no_log_line_of_a_session_shows_a_secret(local_service: Any, caplog: pytest.LogCaptureFixture) -> None:
    """Sign-up, refresh, the middleware reading and refreshing a session, a refused token:
    everything authmw and httpx log at DEBUG."""
    from middleware.support import cookie_header, make_app
    from starlette.testclient import TestClient

    caplog.set_level(logging.DEBUG)
    client = ClientApp(local_service.config)
    result = client.sign_up_with_password(f"log-{time.time_ns()}@example.com", "correct horse battery")
    again = ClientApp(local_service.config, refresh_token=result.refresh_token)
    assert again.get_user() is not None  # a refresh call first: the app has no access token
    fresh = json.loads(again.get_auth_headers()["x-stack-auth"])["accessToken"]
    app = make_app(local_service.config)
    with TestClient(app) as web:
        web.get("/maybe", headers={"cookie": cookie_header(local_service.project_id, result.refresh_token)})
        web.get("/maybe", headers={"authorization": f"Bearer {result.access_token}x"})
    text = "\n".join(record.getMessage() for record in caplog.records)
    secrets = [result.access_token, result.refresh_token, local_service.config.secret_server_key or ""]
    secrets.append(fresh)
    assert caplog.records, "nothing was logged: the test would prove nothing"
    assert not leaks(text, secrets)
