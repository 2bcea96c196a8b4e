"""OAuth provider accounts (/oauth-providers) and the connected-account routes of API 2.8
(service-api B10-B10.3), over HTTP; 2.7 has none of them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from authmw.dev import LocalService

from .conftest import Api, assert_known_error, unique_email
from .test_api_keys import new_project
from .test_oauth_flow import sign_in

PROVIDERS = [
    {"id": "github", "type": "shared", "enabled": True},
    {"id": "gitlab", "type": "standard", "enabled": True, "client_id": "id", "client_secret": "s"},
]


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    """A 2.8 service of its own with a shared (github) and an own-keys (gitlab) provider."""
    with LocalService(tmp_path_factory.mktemp("provider-accounts"), quiet=True) as service:
        own = Api.of(service)
        own.set_config(oauth_providers=PROVIDERS)
        yield own


def create(api: Api, user_id: str, account_id: str, *, sign_in: bool = True, connected: bool = True, **extra: Any):
    return api.call(
        "POST",
        "/oauth-providers",
        "server",
        json={
            "user_id": user_id,
            "provider_config_id": extra.pop("provider", "gitlab"),
            "account_id": account_id,
            "allow_sign_in": sign_in,
            "allow_connected_accounts": connected,
            **extra,
        },
    )


def test_create_read_list_update_delete(api: Api) -> None:
    user = api.sign_up()
    created = create(api, user["user_id"], "acct-1", email="a@example.com")
    assert created.status_code == 201, created.text
    link = created.json()
    assert link == {
        "id": link["id"],
        "user_id": user["user_id"],
        "provider_config_id": "gitlab",
        "type": "gitlab",
        "email": "a@example.com",
        "allow_sign_in": True,
        "allow_connected_accounts": True,
        "account_id": "acct-1",
    }
    assert link["id"] != "gitlab" and len(link["id"]) == 36
    # the client view has no account id
    own = api.call("GET", f"/oauth-providers/me/{link['id']}", token=user["access_token"])
    assert own.status_code == 200 and own.json() == {k: v for k, v in link.items() if k != "account_id"}
    listed = api.call("GET", "/oauth-providers?user_id=me", token=user["access_token"]).json()
    assert listed == {"items": [own.json()], "is_paginated": False}
    # the user object keeps its 2.7 shape, with the provider config id as `id`
    me = api.call("GET", "/users/me", token=user["access_token"]).json()
    assert me["oauth_providers"] == [{"id": "gitlab", "account_id": "acct-1", "email": "a@example.com"}]

    path = f"/oauth-providers/me/{link['id']}"
    patched = api.call("PATCH", path, token=user["access_token"], json={"allow_connected_accounts": False})
    assert patched.status_code == 200 and patched.json()["allow_connected_accounts"] is False
    # the client may not change the e-mail or the account id; the server may
    refused = api.call("PATCH", path, token=user["access_token"], json={"email": "x@y.z"})
    assert_known_error(refused, "SCHEMA_ERROR", 400)
    server = api.call(
        "PATCH", f"/oauth-providers/{user['user_id']}/{link['id']}", "server", json={"email": "b@example.com"}
    )
    assert server.status_code == 200 and server.json()["email"] == "b@example.com"

    deleted = api.call("DELETE", f"/oauth-providers/me/{link['id']}", token=user["access_token"])
    assert (deleted.status_code, deleted.json()) == (200, {"success": True})
    assert api.call("GET", "/oauth-providers?user_id=me", token=user["access_token"]).json()["items"] == []
    gone = api.call("GET", f"/oauth-providers/me/{link['id']}", token=user["access_token"])
    assert gone.status_code == 404 and "not found" in gone.text


def test_the_client_acts_on_its_own_links_only(api: Api) -> None:
    owner, other = api.sign_up(), api.sign_up()
    link = create(api, owner["user_id"], unique_email()).json()
    path = f"/oauth-providers/{owner['user_id']}/{link['id']}"
    for method, verb in (("GET", "read"), ("PATCH", "update"), ("DELETE", "delete")):
        response = api.call(method, path, token=other["access_token"], json={} if method == "PATCH" else None)
        assert (response.status_code, response.text) == (
            403,
            f"Client can only {verb} OAuth providers for their own user.",
        )
    listed = api.call("GET", f"/oauth-providers?user_id={owner['user_id']}", token=other["access_token"])
    assert (listed.status_code, listed.text) == (403, "Client can only list OAuth providers for their own user.")
    # another user's link id under one's own user id is simply not found
    mine = api.call("GET", f"/oauth-providers/me/{link['id']}", token=other["access_token"])
    assert mine.status_code == 404
    assert_known_error(api.call("GET", "/oauth-providers?user_id=me"), "CANNOT_GET_OWN_USER_WITHOUT_USER", 400)
    assert_known_error(create(api, "me", "x"), "CANNOT_GET_OWN_USER_WITHOUT_USER", 400)
    missing = "00000000-0000-4000-8000-000000000000"
    assert_known_error(create(api, missing, "x"), "USER_NOT_FOUND", 404)
    # the client tier cannot create links at all
    client_create = api.call(
        "POST",
        "/oauth-providers",
        token=owner["access_token"],
        json={"user_id": "me", "provider_config_id": "gitlab", "account_id": "x"},
    )
    assert_known_error(client_create, "INSUFFICIENT_ACCESS_TYPE", 401)


def test_sign_in_rules(api: Api) -> None:
    user, other = api.sign_up(), api.sign_up()
    first = create(api, user["user_id"], "rules-1").json()
    second_sign_in = create(api, user["user_id"], "rules-2")
    assert (second_sign_in.status_code, second_sign_in.text) == (
        400,
        "The same provider type with sign-in enabled already exists for this user.",
    )
    same_account = create(api, user["user_id"], "rules-1", sign_in=False)
    assert (same_account.status_code, same_account.text) == (
        400,
        "The same provider type with the same account ID already exists for this user.",
    )
    second = create(api, user["user_id"], "rules-2", sign_in=False)
    assert second.status_code == 201
    enable = api.call(
        "PATCH", f"/oauth-providers/{user['user_id']}/{second.json()['id']}", "server", json={"allow_sign_in": True}
    )
    assert enable.status_code == 400
    # another user may link the same provider account for connected-account use, not to sign in
    assert_known_error(
        create(api, other["user_id"], "rules-1"), "OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN", 400
    )
    assert create(api, other["user_id"], "rules-1", sign_in=False).status_code == 201
    off = api.call(
        "PATCH", f"/oauth-providers/{user['user_id']}/{first['id']}", "server", json={"allow_sign_in": False}
    )
    assert off.status_code == 200 and off.json()["allow_sign_in"] is False
    again = api.call(
        "PATCH", f"/oauth-providers/{user['user_id']}/{second.json()['id']}", "server", json={"allow_sign_in": True}
    )
    assert again.status_code == 200 and again.json()["allow_sign_in"] is True
    unknown = create(api, user["user_id"], "x", provider="spotify")
    assert (unknown.status_code, unknown.text) == (404, "OAuth provider spotify not found or not configured")


def test_a_link_with_sign_in_turned_off_no_longer_signs_its_user_in(api: Api) -> None:
    """The attack: someone holding the provider account after the user turned its sign-in off
    must not get into the user's account through it. (Under an address the user signs in with
    and both sides verified, the e-mail merge of 10.4 would join them again: the account below
    comes back under another address, as a taken-over provider account would.)"""
    email, account = unique_email(), f"acct-{unique_email()}"
    tokens = sign_in(api, email, "gitlab", form={"account_id": account})
    victim = api.call("GET", "/users/me", token=tokens["access_token"]).json()
    # control: while sign-in is on, the provider account signs the user in, whatever its address
    again = sign_in(api, unique_email(), "gitlab", form={"account_id": account})
    assert api.call("GET", "/users/me", token=again["access_token"]).json()["id"] == victim["id"]
    link = api.call("GET", "/oauth-providers?user_id=me", token=tokens["access_token"]).json()["items"][0]
    path = f"/oauth-providers/me/{link['id']}"
    off = api.call("PATCH", path, token=tokens["access_token"], json={"allow_sign_in": False})
    assert off.status_code == 200
    later = sign_in(api, unique_email(), "gitlab", form={"account_id": account})
    assert later["is_new_user"] is True
    assert api.call("GET", "/users/me", token=later["access_token"]).json()["id"] != victim["id"]


def test_connected_accounts_list_and_per_account_tokens(api: Api) -> None:
    email = unique_email()
    tokens = sign_in(api, email, "gitlab")
    user_id = api.call("GET", "/users/me", token=tokens["access_token"]).json()["id"]
    create(api, user_id, "second-gitlab", sign_in=False)
    create(api, user_id, "no-tokens", sign_in=False, connected=False)
    listed = api.call("GET", "/connected-accounts/me", token=tokens["access_token"])
    assert listed.status_code == 200
    items = listed.json()["items"]
    assert listed.json()["is_paginated"] is False
    assert [(i["provider"], i["user_id"]) for i in items] == [("gitlab", user_id)] * 2
    assert items[1]["provider_account_id"] == "second-gitlab"
    first_account = items[0]["provider_account_id"]

    def token_for(account: str, **kw: Any):
        return api.call(
            "POST", f"/connected-accounts/me/gitlab/{account}/access-token", json={"scope": ""}, **kw
        )

    ok = token_for(first_account, token=tokens["access_token"])
    assert ok.status_code == 201 and ok.json()["access_token"].startswith("mock_gitlab_")
    for refused in ("no-tokens", "nobody"):
        assert_known_error(
            token_for(refused, token=tokens["access_token"]), "OAUTH_CONNECTION_NOT_CONNECTED_TO_USER", 400
        )
    other = api.sign_up()
    path = f"/connected-accounts/{user_id}/gitlab/{first_account}/access-token"
    someone_else = api.call("POST", path, token=other["access_token"], json={})
    assert someone_else.status_code == 403
    assert api.call("GET", f"/connected-accounts/{user_id}", token=other["access_token"]).status_code == 403
    assert api.call("GET", f"/connected-accounts/{user_id}", "server").json()["items"] == items
    assert_known_error(api.call("GET", "/connected-accounts/me"), "CANNOT_GET_OWN_USER_WITHOUT_USER", 400)
    assert_known_error(api.call("GET", "/connected-accounts/not-a-uuid", "server"), "SCHEMA_ERROR", 400)


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/oauth-providers"),
        ("POST", "/oauth-providers"),
        ("GET", "/oauth-providers/me/00000000-0000-4000-8000-000000000000"),
        ("GET", "/connected-accounts/me"),
        ("POST", "/connected-accounts/me/github/acct/access-token"),
    ],
)
def test_api_27_has_none_of_these_routes(api_27: Api, method: str, path: str) -> None:
    response = api_27.call(method, path, "server", json={} if method == "POST" else None)
    assert response.status_code == 404
    assert "this page does not exist" in response.text


#: Two providers of one type under two config ids, and one of another type (2.8 config records).
SAME_TYPE_RECORDS = {
    f"auth.oauth.providers.{config_id}": {"type": kind, "allowSignIn": True, "allowConnectedAccounts": True}
    for config_id, kind in (("github", "github"), ("github_work", "github"), ("google", "google"))
}


def project_with_two_githubs(api: Api) -> Api:
    """A project of its own whose `github` and `github_work` are both of type github."""
    project = new_project(api)
    override = {"config_override_string": json.dumps(SAME_TYPE_RECORDS)}
    assert project.call("PATCH", "/internal/config/override/branch", "admin", json=override).status_code == 200
    return project


def new_user(api: Api) -> str:
    created = api.call("POST", "/users", "server", json={"primary_email": unique_email()})
    assert created.status_code == 201, created.text
    return str(created.json()["id"])


def patch(api: Api, user_id: str, created: httpx.Response, **body: Any) -> httpx.Response:
    """PATCH the link `created` answered for (server tier)."""
    return api.call("PATCH", f"/oauth-providers/{user_id}/{created.json()['id']}", "server", json=body)


def test_two_config_ids_of_one_type_are_two_providers_to_the_rules(api: Api) -> None:
    """2.8.86 compares the links' config ids (`configOAuthProviderId`), though its messages say
    "provider type": a user may sign in with one account of `github` and one of `github_work`."""
    project = project_with_two_githubs(api)
    user = new_user(project)
    first = create(project, user, "gh-1", provider="github")
    assert first.status_code == 201, first.text
    work = create(project, user, "gh-work-1", provider="github_work")
    assert work.status_code == 201, work.text
    assert (work.json()["provider_config_id"], work.json()["type"]) == ("github_work", "github")
    assert first.json()["type"] == "github"
    # the same account id under the other config id is another link too
    assert create(project, user, "gh-1", provider="github_work", sign_in=False).status_code == 201
    # controls: within one config id the rules hold
    second = create(project, user, "gh-2", provider="github")
    assert (second.status_code, second.text) == (
        400,
        "The same provider type with sign-in enabled already exists for this user.",
    )
    twice = create(project, user, "gh-1", provider="github", sign_in=False)
    assert (twice.status_code, twice.text) == (
        400,
        "The same provider type with the same account ID already exists for this user.",
    )
    listed = project.call("GET", "/oauth-providers", "server", params={"user_id": user}).json()["items"]
    assert [(i["provider_config_id"], i["account_id"], i["allow_sign_in"]) for i in listed] == [
        ("github", "gh-1", True),
        ("github_work", "gh-work-1", True),
        ("github_work", "gh-1", False),
    ]


def test_an_account_id_signs_in_once_across_the_projects_providers(api: Api) -> None:
    """Turning sign-in on, 2.8.86 looks for the account id among the sign-in links of every
    provider of the project (its query names no provider), answering
    OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN; other projects are not looked at."""
    project = project_with_two_githubs(api)
    holder, other = new_user(project), new_user(project)
    held = create(project, holder, "acct-7", provider="github")
    assert held.status_code == 201, held.text
    for config_id in ("github_work", "google"):
        refused = create(project, other, "acct-7", provider=config_id)
        assert_known_error(refused, "OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN", 400)
    # control: the same account id without sign-in is linked, and turning sign-in on is refused
    linked = create(project, other, "acct-7", provider="github_work", sign_in=False)
    assert linked.status_code == 201, linked.text
    on = patch(project, other, linked, allow_sign_in=True)
    assert_known_error(on, "OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN", 400)
    # once the holder's link stops signing in, the account id is free
    off = patch(project, holder, held, allow_sign_in=False)
    assert off.status_code == 200, off.text
    again = patch(project, other, linked, allow_sign_in=True)
    assert again.status_code == 200 and again.json()["allow_sign_in"] is True, again.text
    # a sign-in link moving to that account id meets it per provider (2.8.86's unique index of sign-in methods)
    own = create(project, other, "acct-8", provider="google")
    assert own.status_code == 201, own.text
    moved = patch(project, other, own, account_id="acct-7")
    assert moved.status_code == 200 and moved.json()["account_id"] == "acct-7", moved.text
    assert create(project, holder, "acct-9", provider="google").status_code == 201
    within = patch(project, other, own, account_id="acct-9")
    assert_known_error(within, "OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN", 400)
    # another project with the same providers does not see this one's links
    elsewhere = project_with_two_githubs(api)
    assert create(elsewhere, new_user(elsewhere), "acct-7", provider="google").status_code == 201
