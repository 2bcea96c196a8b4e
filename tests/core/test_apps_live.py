"""The apps against the real local service over HTTP, sync and async."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from typing import Any

import deployment
import pytest

from authmw import AsyncClientApp, AsyncServerApp, AuthConfig, ClientApp, ServerApp, TokenVerifier
from authmw._ops import AsyncDriver, SyncDriver
from authmw._session import refresh_access_token
from authmw.errors import (
    EmailPasswordMismatch,
    InvalidAccessToken,
    PasswordTooShort,
    SchemaError,
    UnparsableAccessToken,
    UserEmailAlreadyExists,
)
from authmw.models import ServerUser, SignInResult, TokenPair, User

PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with deployment.running(tmp_path_factory.mktemp("core-live")) as running:
        yield running


@pytest.fixture(scope="module")
def config(service) -> AuthConfig:
    return AuthConfig.from_env(service.config)


@pytest.fixture(scope="module")
def client_config(config) -> AuthConfig:
    return config.with_(secret_server_key=None, super_secret_admin_key=None)


class Sync:
    """Runs app calls as they are."""

    client_class, server_class = ClientApp, ServerApp

    def __call__(self, value: Any) -> Any:
        return value

    def close(self, app: Any) -> None:
        app.close()

    def run(self, op: Any, driver: Any = None) -> Any:
        return (driver or SyncDriver()).run(op)


class Async:
    """Runs app calls to completion on one event loop kept for the test."""

    client_class, server_class = AsyncClientApp, AsyncServerApp

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()

    def __call__(self, value: Any) -> Any:
        return self.loop.run_until_complete(value)

    def close(self, app: Any) -> None:
        self(app.aclose())

    def run(self, op: Any, driver: Any = None) -> Any:
        return self((driver or AsyncDriver()).run(op))


@pytest.fixture(params=["sync", "async"])
def flavour(request) -> Iterator[Sync | Async]:
    runner = Sync() if request.param == "sync" else Async()
    yield runner
    if isinstance(runner, Async):
        runner.loop.close()


@pytest.fixture
def apps(flavour, client_config, config):
    """(client, server): makers of apps of the test's flavour, closed after the test."""
    opened: list[Any] = []

    def client(*, allow_anonymous: bool = False, **kwargs: Any) -> Any:
        opened.append(flavour.client_class(client_config.with_(allow_anonymous=allow_anonymous), **kwargs))
        return opened[-1]

    def server() -> Any:
        opened.append(flavour.server_class(config))
        return opened[-1]

    yield client, server
    for app in opened:
        flavour.close(app)


def new_email() -> str:
    return f"user-{uuid.uuid4().hex[:12]}@example.com"


def test_sign_up_then_get_user(flavour, apps):
    client, _ = apps
    app = client()
    email = new_email()
    result = flavour(app.sign_up_with_password(email, PASSWORD, "http://localhost:3000/handler/email-verification"))
    assert isinstance(result, SignInResult) and result.user_id
    assert app.session.is_signed_in
    user = flavour(app.get_user())
    assert isinstance(user, User)
    assert (user.id, user.primary_email, user.has_password) == (result.user_id, email, True)
    assert user.signed_up_at is not None


def test_sign_in_and_wrong_password(flavour, apps):
    client, _ = apps
    email = new_email()
    flavour(client().sign_up_with_password(email, PASSWORD))
    app = client()
    assert flavour(app.get_user()) is None  # not signed in yet: no call, no user
    result = flavour(app.sign_in_with_password(email, PASSWORD))
    assert flavour(app.get_user()).id == result.user_id
    with pytest.raises(EmailPasswordMismatch) as info:
        flavour(client().sign_in_with_password(email, "wrong password!"))
    assert info.value.message == "Wrong e-mail or password."


def test_duplicate_and_short_password_sign_ups(flavour, apps):
    client, _ = apps
    email = new_email()
    flavour(client().sign_up_with_password(email, PASSWORD))
    with pytest.raises(UserEmailAlreadyExists):
        flavour(client().sign_up_with_password(email, PASSWORD))
    with pytest.raises(PasswordTooShort) as info:
        flavour(client().sign_up_with_password(new_email(), "short"))
    assert info.value.min_length == 8


def test_session_resumed_from_a_refresh_token_refreshes(flavour, apps):
    client, _ = apps
    result = flavour(client().sign_up_with_password(new_email(), PASSWORD))
    resumed = client(refresh_token=result.refresh_token)
    assert resumed.session.access_token is None
    assert flavour(resumed.get_user()).id == result.user_id
    assert resumed.session.access_token is not None


def test_refresh_on_both_paths_gives_verifiable_tokens(flavour, apps, config, client_config):
    client, _ = apps
    result = flavour(client().sign_up_with_password(new_email(), PASSWORD))
    verifier = TokenVerifier(config)
    for cfg in (config, client_config):  # server tier refresh, then the OAuth refresh grant
        access = flavour.run(refresh_access_token(cfg, result.refresh_token))
        claims = flavour.run(verifier.verify(access))
        assert claims.sub == result.user_id and claims.aud == config.project_id


def test_sign_out_revokes_the_refresh_token(flavour, apps, config):
    client, _ = apps
    app = client()
    result = flavour(app.sign_up_with_password(new_email(), PASSWORD))
    flavour(app.sign_out())
    assert app.session.is_known_invalid and app.session.refresh_token is None
    assert flavour(app.get_user()) is None
    assert flavour.run(refresh_access_token(config, result.refresh_token)) is None
    stale = client(refresh_token=result.refresh_token)
    assert flavour(stale.get_user()) is None
    assert stale.session.is_known_invalid
    flavour(stale.sign_out())  # nothing to revoke: fine


def test_update_user(flavour, apps):
    client, _ = apps
    app = client()
    flavour(app.sign_up_with_password(new_email(), PASSWORD))
    user = flavour(app.update_user(display_name="Ada", client_metadata={"theme": "dark"}))
    assert (user.display_name, user.client_metadata) == ("Ada", {"theme": "dark"})
    user = flavour(app.update_user(display_name=None))
    assert user.display_name is None and user.client_metadata == {"theme": "dark"}


def test_server_app(flavour, apps):
    client, server = apps
    email = new_email()
    result = flavour(client().sign_up_with_password(email, PASSWORD))
    srv = server()
    user = flavour(srv.get_user(result.user_id))
    assert isinstance(user, ServerUser) and user.primary_email == email
    assert user.primary_email_auth_enabled and user.last_active_at is not None
    assert flavour(srv.users.get(result.user_id)) == user
    assert flavour(srv.get_user(str(uuid.uuid4()))) is None
    with pytest.raises(SchemaError):
        flavour(srv.get_user("not-a-uuid"))
    pair = flavour(srv.create_session(result.user_id))
    assert isinstance(pair, TokenPair)
    minted = client(access_token=pair.access_token, refresh_token=pair.refresh_token)
    assert flavour(minted.get_user()).id == result.user_id
    claims = flavour(srv.verify_access_token(pair.access_token))
    assert claims.sub == result.user_id


def test_get_project(flavour, apps, config):
    client, server = apps
    for app in (client(), server()):
        project = flavour(app.get_project())
        assert project.id == config.project_id
        assert project.config.sign_up_enabled is True


def test_token_verifier_against_the_real_jwks(flavour, apps, config):
    client, _ = apps
    result = flavour(client().sign_up_with_password(new_email(), PASSWORD))
    verifier = TokenVerifier(config)
    claims = flavour.run(verifier.verify(result.access_token))
    assert claims.sub == result.user_id
    assert verifier.verify_cached(result.access_token) == claims
    header, payload, signature = result.access_token.split(".")
    tampered = ".".join([header, payload, signature[:-4] + ("AAAA" if signature[-4:] != "AAAA" else "BBBB")])
    with pytest.raises(UnparsableAccessToken):
        flavour.run(verifier.verify(tampered))
    other = TokenVerifier(config.with_(project_id="internal"))  # another project of the service
    with pytest.raises(InvalidAccessToken):
        flavour.run(other.verify(result.access_token))


def test_delete_user_invalidates_the_session(flavour, apps, service):
    client, server = apps
    app = client()
    result = flavour(app.sign_up_with_password(new_email(), PASSWORD))
    # Client-side deletion is off by default; an owner turns it on (admin tier).
    deployment.set_project_config(service, client_user_deletion_enabled=True)
    try:
        flavour(app.delete_user())
        assert app.session.is_known_invalid
        assert flavour(server().get_user(result.user_id)) is None
    finally:
        deployment.set_project_config(service, client_user_deletion_enabled=False)


def test_delete_user_refused_keeps_the_session(flavour, apps):
    from authmw.errors import HttpStatusError

    client, _ = apps
    app = client()
    flavour(app.sign_up_with_password(new_email(), PASSWORD))
    with pytest.raises(HttpStatusError) as info:
        flavour(app.delete_user())
    assert info.value.status == 400 and "deletion is not enabled" in info.value.body
    assert app.session.is_signed_in


def test_wrong_keys_are_typed_errors(flavour, client_config, config):
    from authmw.errors import InvalidPublishableClientKey, InvalidSecretServerKey, ProjectAuthenticationError

    app = flavour.client_class(client_config.with_(publishable_client_key="pck_" + "0" * 45))
    server = flavour.server_class(config.with_(secret_server_key="ssk_" + "0" * 45))
    try:
        with pytest.raises(InvalidPublishableClientKey) as info:
            flavour(app.get_project())
        assert isinstance(info.value, ProjectAuthenticationError) and info.value.status == 401
        with pytest.raises(InvalidSecretServerKey):
            flavour(server.get_user(str(uuid.uuid4())))
    finally:
        flavour.close(app)
        flavour.close(server)


def test_check_feature_support_always_ends_in_the_services_error(config):
    from authmw.errors import FeatureNotSupported

    for app in (ClientApp(config), ServerApp(config)):
        with app, pytest.raises(FeatureNotSupported) as info:
            app.check_feature_support("passkey sign-up", where="sign-up page")
        assert info.value.feature == "passkey sign-up"
        assert str(info.value) == (
            "passkey sign-up is not yet supported. Please reach out to Stack support for more information."
        )
    with ClientApp(config) as app, pytest.raises(ValueError, match="feature must name"):
        app.check_feature_support(" ")


def test_check_feature_support_async(config):
    from authmw.errors import FeatureNotSupported

    async def main() -> None:
        async with AsyncClientApp(config) as app:
            with pytest.raises(FeatureNotSupported, match="^teams in the sidebar is not yet supported"):
                await app.check_feature_support("teams in the sidebar")

    asyncio.run(main())
