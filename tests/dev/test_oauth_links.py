"""The link flow (`type=link`, a signed-in user connecting a provider account) with the mock
provider, over HTTP. API 2.8 links a second account of a provider (config id) as one more link of
the user, as backend 2.8.86's callback does (it only refuses an account that signs another user
in); API 2.7 refuses it with USER_ALREADY_CONNECTED_TO_ANOTHER_OAUTH_CONNECTION (service-api
A5.4.6)."""

from __future__ import annotations

import secrets
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .conftest import Api, unique_email
from .test_api_keys import new_project
from .test_oauth_flow import REDIRECT_URI, exchange, sign_in, start, through_mock_provider

ERROR_PAGE = "http://localhost:3000/handler/error"


def account() -> str:
    return f"acct-{secrets.token_hex(6)}"


def link(api: Api, user: dict[str, str], account_id: str) -> dict[str, Any]:
    """Link `account_id` (at the mock provider) to `user` as the app that started the flow does:
    callback, then code exchange. The callback's redirect must carry a code, not an error."""
    flow = start(api, type="link", token=user["access_token"], error_redirect_uri=ERROR_PAGE)
    back = through_mock_provider(flow, unique_email(), account_id=account_id)
    target = urlsplit(back.headers.get("location", ""))
    query = parse_qs(target.query)
    assert "errorCode" not in query, query["errorCode"]
    assert back.status_code == (303 if api.version == "2.8" else 307), back.text
    assert f"{target.scheme}://{target.netloc}{target.path}" == REDIRECT_URI
    exchanged = exchange(api, query["code"][0], flow.verifier)
    assert exchanged.status_code == 200, exchanged.text
    tokens: dict[str, Any] = exchanged.json()
    assert tokens["is_new_user"] is False
    return tokens


def refused_link(api: Api, user: dict[str, str], account_id: str) -> str:
    """Run a link flow that the callback refuses; the error code it sends the browser back with
    (2.8: to the app's redirect_uri; 2.7: to the error_redirect_uri)."""
    flow = start(api, type="link", token=user["access_token"], error_redirect_uri=ERROR_PAGE)
    back = through_mock_provider(flow, unique_email(), account_id=account_id)
    assert back.status_code == 307, back.text
    target = urlsplit(back.headers["location"])
    where = REDIRECT_URI if api.version == "2.8" else ERROR_PAGE
    assert f"{target.scheme}://{target.netloc}{target.path}" == where
    query = parse_qs(target.query)
    assert "code" not in query
    return query["errorCode"][0]


def links(api: Api, user_id: str) -> list[tuple[str, str, bool]]:
    """The user's provider links as the server lists them (2.8): (config id, account id, signs in)."""
    listed = api.call("GET", "/oauth-providers", "server", params={"user_id": user_id})
    assert listed.status_code == 200, listed.text
    return sorted((i["provider_config_id"], i["account_id"], i["allow_sign_in"]) for i in listed.json()["items"])


def me_accounts(api: Api, user: dict[str, str]) -> list[str]:
    """The github account ids of the user object (both versions)."""
    me = api.call("GET", "/users/me", token=user["access_token"]).json()
    return sorted(p["account_id"] for p in me["oauth_providers"] if p["id"] == "github")


def user_of(api: Api, tokens: dict[str, Any]) -> str:
    return str(api.call("GET", "/users/me", token=tokens["access_token"]).json()["id"])


# -- API 2.8 ---------------------------------------------------------------------------------


def test_a_second_account_of_a_provider_is_one_more_link(api_28: Api) -> None:
    user = api_28.sign_up()
    first, second = account(), account()
    link(api_28, user, first)
    link(api_28, user, second)
    assert links(api_28, user["user_id"]) == sorted([("github", first, True), ("github", second, True)])
    assert me_accounts(api_28, user) == sorted([first, second])
    connected = api_28.call("GET", "/connected-accounts/me", token=user["access_token"]).json()["items"]
    assert sorted(i["provider_account_id"] for i in connected) == sorted([first, second])
    # each account signs its user in (2.8.86 makes the linked account a sign-in link too)
    for account_id in (first, second):
        tokens = sign_in(api_28, unique_email(), form={"account_id": account_id})
        assert (tokens["is_new_user"], user_of(api_28, tokens)) == (False, user["user_id"])


def test_the_same_account_linked_again_stays_one_link(api_28: Api) -> None:
    user, account_id = api_28.sign_up(), account()
    link(api_28, user, account_id)
    again = link(api_28, user, account_id)
    assert user_of(api_28, again) == user["user_id"]
    assert links(api_28, user["user_id"]) == [("github", account_id, True)]


def test_an_account_that_signs_another_user_in_is_refused(api_28: Api) -> None:
    holder_tokens = sign_in(api_28, unique_email(), form={"account_id": (taken := account())})
    holder = user_of(api_28, holder_tokens)
    user = api_28.sign_up()
    own = account()
    link(api_28, user, own)
    assert refused_link(api_28, user, taken) == "OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER"
    assert links(api_28, user["user_id"]) == [("github", own, True)]
    assert links(api_28, holder) == [("github", taken, True)]


def test_an_account_another_user_holds_without_sign_in_is_linked(api_28: Api) -> None:
    """2.8.86 looks only among the links that sign in: another user's link of the account for
    connected-account use alone does not stop this user linking it (to sign in with it)."""
    holder, user, shared = api_28.sign_up(), api_28.sign_up(), account()
    made = api_28.call(
        "POST",
        "/oauth-providers",
        "server",
        json={
            "user_id": holder["user_id"],
            "provider_config_id": "github",
            "account_id": shared,
            "allow_sign_in": False,
            "allow_connected_accounts": True,
        },
    )
    assert made.status_code == 201, made.text
    link(api_28, user, shared)
    assert links(api_28, user["user_id"]) == [("github", shared, True)]
    assert links(api_28, holder["user_id"]) == [("github", shared, False)]
    assert user_of(api_28, sign_in(api_28, unique_email(), form={"account_id": shared})) == user["user_id"]


def test_links_are_scoped_to_their_project(api_28: Api) -> None:
    """An account that signs a user of one project in is free to link in another project, and a
    project's links are not another project's."""
    taken = account()
    holder = user_of(api_28, sign_in(api_28, unique_email(), form={"account_id": taken}))
    other = new_project(api_28, oauth_providers=[{"id": "github", "type": "shared", "enabled": True}])
    user = other.sign_up()
    link(other, user, taken)
    link(other, user, second := account())
    assert links(other, user["user_id"]) == sorted([("github", taken, True), ("github", second, True)])
    assert links(api_28, holder) == [("github", taken, True)]
    # each project's sign-in with the account finds its own user
    assert user_of(other, sign_in(other, unique_email(), form={"account_id": taken})) == user["user_id"]
    assert user_of(api_28, sign_in(api_28, unique_email(), form={"account_id": taken})) == holder
    # one project's user id is not found through another project's keys
    assert other.call("GET", "/oauth-providers", "server", params={"user_id": holder}).status_code != 200


# -- API 2.7 keeps one account per provider ----------------------------------------------------


def test_api_27_refuses_a_second_account_of_a_provider(api_27: Api) -> None:
    user, first = api_27.sign_up(), account()
    link(api_27, user, first)
    assert refused_link(api_27, user, account()) == "USER_ALREADY_CONNECTED_TO_ANOTHER_OAUTH_CONNECTION"
    assert me_accounts(api_27, user) == [first]
    # control: the same account again is no second account
    link(api_27, user, first)
    assert me_accounts(api_27, user) == [first]


def test_api_27_refuses_an_account_of_another_user(api_27: Api) -> None:
    taken = account()
    holder = sign_in(api_27, unique_email(), form={"account_id": taken})
    user = api_27.sign_up()
    assert refused_link(api_27, user, taken) == "OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER"
    assert me_accounts(api_27, user) == []
    assert user_of(api_27, sign_in(api_27, unique_email(), form={"account_id": taken})) == user_of(api_27, holder)
