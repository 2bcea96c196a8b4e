"""Django views called by machine clients with API keys (API 2.8): a user's key, a team's key,
a revoked key; views whose guard accepts keys and views whose guard does not (views in
authmw_django_testsite.py)."""

from __future__ import annotations

from typing import Any

import pytest
from middleware.keys_support import HELD, MISSING, Keys, keys  # noqa: F401 - the fixture


def auth(value: str) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {value}"}


@pytest.fixture
def site(make_site: Any, keys: Keys) -> Any:
    """The test site on the keys' project (a service answering as API 2.8)."""
    return make_site(keys.config)


def test_user_key_team_key_and_revoked_key(site: Any, keys: Keys) -> None:
    assert (HELD, MISSING) == ("keys_docs_write", "keys_docs_admin")  # as the test site's guards name them
    client = site.client(ACCEPT_API_KEYS=True)
    # a user's key is its user where the guard accepts keys
    ok = client.get("/keys/export", **auth(keys.user_key))
    assert ok.status_code == 200 and ok.json() == {"id": keys.user_id, "via": "user_api_key"}
    assert client.get("/keys/docs", **auth(keys.user_key)).json() == {"editor": keys.user_id}
    lacking = client.get("/keys/admin-docs", **auth(keys.user_key), HTTP_ACCEPT="application/json")
    assert lacking.status_code == 403 and lacking.json()["code"] == "PROJECT_PERMISSION_REQUIRED"
    refused = client.get("/api/me", **auth(keys.user_key))  # @user_required(): sessions only
    assert refused.status_code == 401 and refused.json()["code"] == "API_KEY_NOT_ACCEPTED"
    # a team's key: its own team's guard only (an async view)
    own = client.get(f"/keys/teams/{keys.team_id}/sync", **auth(keys.team_key))
    assert own.status_code == 200 and own.json() == {"team": keys.team_id, "via": "team_api_key"}
    other = client.get(f"/keys/teams/{keys.other_team_id}/sync", **auth(keys.team_key), HTTP_ACCEPT="application/json")
    assert other.status_code == 403 and other.json()["code"] == "TEAM_MEMBERSHIP_NOT_FOUND"
    not_a_user = client.get("/keys/export", **auth(keys.team_key), HTTP_ACCEPT="application/json")
    assert not_a_user.status_code == 401 and not_a_user.json()["code"] == "USER_AUTHENTICATION_REQUIRED"
    # a revoked key: refused before any view
    for path in ("/keys/export", "/api/me", "/whoami"):
        answer = client.get(path, **auth(keys.revoked_key))
        assert answer.status_code == 401 and answer.json()["code"] == "API_KEY_REVOKED"


def test_a_site_that_does_not_accept_keys_refuses_them(site: Any, keys: Keys) -> None:
    answer = site.client().get("/keys/export", **auth(keys.user_key))
    assert answer.status_code == 401 and answer.json()["code"] == "API_KEY_NOT_ACCEPTED"
