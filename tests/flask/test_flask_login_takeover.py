"""The Flask-Login recipe of docs/flask.md, run as documented, against account takeover.

The recipe maps a first-time authmw user to an app's existing user by e-mail. The attacks of
issue 26, each against the real local service (with mock OAuth providers):

- sign up at the service with the victim's address and never verify it;
- after the victim was linked: sign up through an OAuth provider that vouches for the
  victim's address, or add it to one's own account as a contact channel and make it primary;
- two authmw users holding one verified address.

None may be signed in as the victim's row. The control: a verified address that only one
authmw user holds links to the old row, and the link stays when the e-mail changes later.
"""

from __future__ import annotations

import json
import sys
import types
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from authmw import ClientApp, ServerApp

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "correct horse battery"
VERIFY = "http://testserver/handler/email-verification"


def documented_recipe() -> str:
    """The block of docs/flask.md that defines ``load_user``, as the docs' test runs it."""
    from docs.test_snippets import blocks_of  # type: ignore[import-not-found]

    (block,) = [b for b in blocks_of(ROOT / "docs" / "flask.md") if "def load_user" in b.body]
    return block.body


class Shop:
    """The documented shop app on a service, with the victim's old row (user 1)."""

    def __init__(self, service: Any, tmp_path: Path) -> None:
        env = tmp_path / "project.env"
        config = service.config
        env.write_text(
            f"AUTHMW_PROJECT_ID={config.project_id}\nAUTHMW_API_URL={config.api_url}\n"
            f"AUTHMW_PUBLISHABLE_CLIENT_KEY={config.publishable_client_key}\n"
            f"AUTHMW_SECRET_SERVER_KEY={config.secret_server_key}\n"
        )
        code = documented_recipe().replace('".authmw/project.env"', repr(str(env)))
        module = types.ModuleType(f"documented_shop_{uuid.uuid4().hex[:8]}")
        sys.modules[module.__name__] = module  # dataclasses look their module up
        try:
            exec(compile(code, "docs/flask.md", "exec"), module.__dict__)
        finally:
            del sys.modules[module.__name__]
        namespace = module.__dict__
        self.users = namespace["USERS"]
        self.victim = f"victim-{uuid.uuid4().hex[:10]}@example.com"
        self.users[1].email = self.victim  # the recipe's Ada, with an address of this test alone
        self.browser = namespace["shop"].test_client()
        self.service = service

    def orders(self, headers: dict[str, str]) -> Any:
        r = self.browser.get("/orders", headers=headers)
        return r.get_json() if r.status_code == 200 else r.status_code


def verified(service: Any, client: ClientApp, email: str) -> None:
    """What the victim's click on the e-mailed link does."""
    (mail, *_) = service.outbox(email, "email_verification")
    client.verify_email(parse_qs(urlsplit(str(mail["link"])).query)["code"][0])


def session_headers(service: Any, user_id: str) -> dict[str, str]:
    pair = ServerApp(service.config).sessions.create(user_id)
    return {"x-stack-auth": json.dumps({"accessToken": pair.access_token, "refreshToken": pair.refresh_token})}


def oauth_sign_up(service: Any, email: str) -> ClientApp:
    """Sign up through the mock GitHub, which vouches for any address (verified)."""
    app = ClientApp(service.config)
    callback = "http://testserver/handler/oauth-callback"
    flow = app.get_oauth_authorize_url("github", redirect_uri=callback, error_redirect_url=callback)
    back = service.provider_round_trip(flow.url, email)
    app.sign_in_with_oauth_callback(back, state=flow.state, code_verifier=flow.code_verifier)
    return app


@pytest.fixture
def shop(oauth_service: Any, tmp_path: Path) -> Shop:
    return Shop(oauth_service, tmp_path)


def link_the_victim(shop: Shop) -> ClientApp:
    victim = ClientApp(shop.service.config)
    victim.sign_up_with_password(shop.victim, PASSWORD, VERIFY)
    verified(shop.service, victim, shop.victim)
    assert shop.orders(victim.get_auth_headers()) == {"user": 1, "email": shop.victim}
    return victim


def test_signing_up_with_the_victims_address_does_not_sign_in_as_the_victim(shop: Shop) -> None:
    attacker = ClientApp(shop.service.config)
    attacker.sign_up_with_password(shop.victim, PASSWORD, VERIFY)  # the victim never gets to click
    assert attacker.get_user().primary_email == shop.victim  # type: ignore[union-attr]
    assert shop.orders(attacker.get_auth_headers()) == 401
    assert shop.users[1].authmw_id is None  # the victim's row is still free for the victim


@pytest.fixture
def duplicates_allowed(oauth_service: Any) -> Iterator[None]:
    """Two users with one address: API 2.8's default e-mail merge (service-api B10) would join
    a provider account vouching for a verified address to the account that has it; the project
    setting `allow_duplicates` makes the separate user this test needs."""

    def strategy(name: str) -> None:
        oauth_service.set_project_config(oauth_account_merge_strategy=name)

    strategy("allow_duplicates")
    yield
    strategy("link_method")


@pytest.mark.usefixtures("duplicates_allowed")
def test_an_oauth_sign_up_with_the_victims_address_cannot_take_the_row_back(shop: Shop) -> None:
    victim = link_the_victim(shop)
    attacker = oauth_sign_up(shop.service, shop.victim)
    me = attacker.get_user()
    assert me is not None and me.primary_email == shop.victim and me.primary_email_verified  # the provider said so
    got = shop.orders(attacker.get_auth_headers())
    assert got != 401 and got["user"] != 1 and got["email"] is None  # a row of its own: the address is shared
    assert shop.orders(victim.get_auth_headers()) == {"user": 1, "email": shop.victim}
    assert shop.users[1].authmw_id == victim.get_user().id  # type: ignore[union-attr]


def test_an_unverified_channel_made_primary_cannot_take_the_row_back(shop: Shop) -> None:
    victim = link_the_victim(shop)
    attacker = ClientApp(shop.service.config)
    attacker.sign_up_with_password(f"mallory-{uuid.uuid4().hex[:8]}@example.com", PASSWORD, VERIFY)
    channel = attacker.contact_channels.create(shop.victim)
    attacker.contact_channels.update(channel.id, is_primary=True)
    assert attacker.get_user().primary_email == shop.victim  # type: ignore[union-attr]
    assert shop.orders(attacker.get_auth_headers()) == 401
    assert shop.orders(victim.get_auth_headers())["user"] == 1


def test_two_authmw_users_with_one_verified_address_get_rows_of_their_own(shop: Shop) -> None:
    server = ServerApp(shop.service.config)
    first = server.users.create(primary_email=shop.victim, primary_email_verified=True)
    second = server.users.create(primary_email=shop.victim, primary_email_verified=True)
    for user in (first, second):
        got = shop.orders(session_headers(shop.service, user.id))
        assert got["user"] != 1 and got["email"] is None
    assert shop.users[1].authmw_id is None


def test_a_verified_address_of_one_user_links_and_the_link_stays_by_id(shop: Shop) -> None:
    """The control: the victim, once verified, is user 1, and stays user 1 with a new address."""
    victim = link_the_victim(shop)
    channel = victim.contact_channels.create(f"new-{uuid.uuid4().hex[:8]}@example.com")
    victim.contact_channels.update(channel.id, is_primary=True)  # unverified, and not the row's
    assert shop.orders(victim.get_auth_headers()) == {"user": 1, "email": shop.victim}
