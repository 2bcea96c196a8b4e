"""OAuth sign-up e-mail merge of API 2.8 (service-api B10): a provider account bringing an
address another user signs in with joins that user only when both sides verified the address.
2.7 never merges."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from authmw.dev import LocalService

from .conftest import Api, unique_email
from .test_oauth_flow import REDIRECT_URI, sign_in, start, through_mock_provider

ERROR_PAGE = "http://localhost:3000/handler/error"


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    with LocalService(tmp_path_factory.mktemp("merge-28"), quiet=True, api="2.8") as service:
        yield Api.of(service)


@pytest.fixture
def strategy(api: Api) -> Iterator[Any]:
    def use(name: str) -> None:
        api.set_config(oauth_account_merge_strategy=name)

    yield use
    api.set_config(oauth_account_merge_strategy="link_method")


def password_user(api: Api, email: str, *, verified: bool) -> str:
    user_id = api.sign_up(email)["user_id"]
    if verified:
        patched = api.call("PATCH", f"/users/{user_id}", "server", json={"primary_email_verified": True})
        assert patched.status_code == 200, patched.text
    return user_id


def oauth_user(api: Api, tokens: dict[str, Any]) -> dict[str, Any]:
    me: dict[str, Any] = api.call("GET", "/users/me", token=tokens["access_token"]).json()
    return me


def refused(api: Api, email: str) -> dict[str, Any]:
    """Run an OAuth sign-in that the service must refuse; the error's parameters, which 2.8 sends
    to the app's (trusted) callback rather than to the error page."""
    back = through_mock_provider(start(api, error_redirect_uri=ERROR_PAGE), email)
    assert back.status_code == 307, back.text
    target = urlsplit(back.headers["location"])
    assert f"{target.scheme}://{target.netloc}{target.path}" == REDIRECT_URI
    query = parse_qs(target.query)
    return {"code": query["errorCode"][0], "details": json.loads(query["details"][0])}


def providers_of(api: Api, user_id: str) -> list[str]:
    user = api.call("GET", f"/users/{user_id}", "server").json()
    return [p["id"] for p in user["oauth_providers"]]


def test_both_verified_the_provider_joins_the_existing_user(api: Api) -> None:
    email = unique_email()
    user_id = password_user(api, email, verified=True)
    tokens = sign_in(api, email)
    assert tokens["is_new_user"] is False
    assert oauth_user(api, tokens)["id"] == user_id
    assert providers_of(api, user_id) == ["github"]
    # and signs in through the link from now on
    assert oauth_user(api, sign_in(api, email))["id"] == user_id


def test_an_unverified_existing_address_is_never_merged(api: Api) -> None:
    """The attack: someone signs up with the victim's address (which they cannot verify) and
    waits for the victim to sign in with the provider; a merge would hand the victim's
    provider sign-in, and everything the victim does afterwards, to the squatter's account."""
    email = unique_email()
    squatter = password_user(api, email, verified=False)
    error = refused(api, email)
    assert error == {
        "code": "CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE",
        "details": {"type": "email", "contact_channel_value": email, "would_work_if_email_was_verified": True},
    }
    assert providers_of(api, squatter) == []
    sessions = api.call("GET", f"/auth/sessions?user_id={squatter}", "server").json()["items"]
    assert len(sessions) == 1  # the squatter's own sign-up session only


def test_raise_error_never_merges(api: Api, strategy: Any) -> None:
    strategy("raise_error")
    email = unique_email()
    user_id = password_user(api, email, verified=True)
    error = refused(api, email)
    assert error["code"] == "CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE"
    assert error["details"]["would_work_if_email_was_verified"] is False
    assert providers_of(api, user_id) == []


def test_allow_duplicates_makes_a_separate_user_without_e_mail_sign_in(api: Api, strategy: Any) -> None:
    strategy("allow_duplicates")
    email = unique_email()
    user_id = password_user(api, email, verified=True)
    tokens = sign_in(api, email)
    assert tokens["is_new_user"] is True
    other = oauth_user(api, tokens)
    assert other["id"] != user_id and other["auth_with_email"] is False
    assert providers_of(api, user_id) == []


def test_the_strategy_is_a_2_8_setting(api: Api, api_27: Api) -> None:
    admin = api.call("GET", "/internal/projects/current", "admin").json()
    assert admin["config"]["oauth_account_merge_strategy"] == "link_method"
    bad = api.call(
        "PATCH", "/internal/projects/current", "admin", json={"config": {"oauth_account_merge_strategy": "x"}}
    )
    assert bad.status_code == 400
    change = {"config": {"oauth_account_merge_strategy": "raise_error"}}
    old = api_27.call("PATCH", "/projects/current", "admin", json=change)
    assert old.status_code == 400 and "unknown properties: oauth_account_merge_strategy" in old.text


def test_2_7_never_merges(api_27: Api) -> None:
    email = unique_email()
    user_id = password_user(api_27, email, verified=True)
    tokens = sign_in(api_27, email)
    assert tokens["is_new_user"] is True
    assert oauth_user(api_27, tokens)["id"] != user_id
