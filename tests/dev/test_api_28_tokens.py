"""API 2.8 tokens, key sets and request authentication (service-api B, sections 1.3, 3.1-3.3, 7.2),
each next to what a 2.7 service answers where the two differ."""

from __future__ import annotations

from typing import Any

import httpx
import jwt
import pytest

from authmw.dev import LocalService

from .conftest import Api, assert_known_error, unique_email

ANON = {"x-stack-allow-anonymous-user": "true"}


def _claims(token: str) -> dict[str, Any]:
    return jwt.decode(token, options={"verify_signature": False})


def _header(token: str) -> dict[str, Any]:
    return jwt.get_unverified_header(token)


def _jwks(api: Api, **query: str) -> httpx.Response:
    return api.http.get(f"/api/v1/projects/{api.project_id}/.well-known/jwks.json", params=query)


def _verify(api: Api, token: str, *, audience: str, issuer: str, **query: str) -> dict[str, Any]:
    """Verify `token` the way a 2.8 middleware does: the key by kid from the published set."""
    keys = _jwks(api, **query).json()["keys"]
    jwk = next(k for k in keys if k["kid"] == _header(token)["kid"])
    key = jwt.PyJWK(jwk)
    return jwt.decode(token, key.key, algorithms=["ES256"], audience=audience, issuer=issuer)


@pytest.fixture
def anonymous(api_28: Api) -> dict[str, str]:
    response = api_28.call("POST", "/auth/anonymous/sign-up", json={})
    assert response.status_code == 200, response.text
    return response.json()


def test_a_normal_users_token_carries_the_28_issuer_audience_and_claims(api_28: Api) -> None:
    email = unique_email()
    user = api_28.sign_up(email)
    claims = _verify(
        api_28,
        user["access_token"],
        audience=api_28.project_id,
        issuer=f"{api_28.url}/api/v1/projects/{api_28.project_id}",
    )
    assert claims["sub"] == user["user_id"]
    assert claims["project_id"] == api_28.project_id
    assert claims["branch_id"] == "main"
    assert "branchId" not in claims
    assert claims["role"] == "authenticated"
    assert claims["email"] == email and claims["email_verified"] is False
    assert claims["is_anonymous"] is False and claims["is_restricted"] is False
    assert claims["restricted_reason"] is None
    assert claims["requires_totp_mfa"] is False
    me = api_28.call("GET", "/users/me", token=user["access_token"]).json()
    assert claims["signed_up_at"] == me["signed_up_at_millis"] // 1000  # seconds in 2.8
    sessions = api_28.call("GET", "/auth/sessions", token=user["access_token"], params={"user_id": "me"}).json()
    assert claims["refresh_token_id"] == sessions["items"][0]["id"]


def test_a_27_service_keeps_the_fixed_issuer_and_one_key(api_27: Api) -> None:
    user = api_27.sign_up()
    claims = _claims(user["access_token"])
    assert claims["iss"] == "https://access-token.jwt-signature.stack-auth.com"
    assert claims["aud"] == api_27.project_id
    assert claims["branchId"] == "main"
    assert len(_jwks(api_27).json()["keys"]) == 1
    assert api_27.http.get("/.well-known/jwks.json").status_code == 200


def test_the_28_key_set_has_two_keys_per_audience(api_28: Api) -> None:
    plain = _jwks(api_28)
    assert plain.status_code == 200
    assert plain.headers["cache-control"] == "public, max-age=3600"
    restricted = _jwks(api_28, include_restricted="true").json()["keys"]
    everything = _jwks(api_28, include_anonymous="true").json()["keys"]
    assert len(plain.json()["keys"]) == 2 and len(restricted) == 4 and len(everything) == 6
    assert len({k["kid"] for k in everything}) == 6
    assert everything[:4] == restricted and restricted[:2] == plain.json()["keys"]
    assert all(k["kty"] == "EC" and k["crv"] == "P-256" and k["alg"] == "ES256" for k in everything)
    # A normal user's token is signed by the first key of the plain audience.
    assert _header(api_28.sign_up()["access_token"])["kid"] == plain.json()["keys"][0]["kid"]


def test_the_28_key_set_refuses_other_query_values_and_unknown_projects(api_28: Api) -> None:
    assert_known_error(_jwks(api_28, include_anonymous="yes"), "SCHEMA_ERROR", 400)
    missing = api_28.http.get("/api/v1/projects/no-such-project/.well-known/jwks.json")
    assert missing.status_code == 404 and missing.text == "Project not found"


def test_the_root_key_set_is_gone_in_28(api_28: Api) -> None:
    assert api_28.http.get("/.well-known/jwks.json").status_code == 404


def test_the_anonymous_issuer_alias_redirects_to_the_full_key_set(api_28: Api, api_27: Api) -> None:
    path = f"/api/v1/projects-anonymous-users/{api_28.project_id}/.well-known/jwks.json"
    response = api_28.http.get(path)
    assert response.status_code in (302, 307, 308)
    followed = api_28.http.get(path, follow_redirects=True)
    assert followed.status_code == 200 and len(followed.json()["keys"]) == 6
    assert api_27.http.get(path.replace(api_28.project_id, api_27.project_id)).status_code == 404


def test_an_anonymous_token_is_refused_without_the_allow_header(api_28: Api, anonymous: dict[str, str]) -> None:
    token = anonymous["access_token"]
    claims = _verify(
        api_28,
        token,
        audience=f"{api_28.project_id}:anon",
        issuer=f"{api_28.url}/api/v1/projects-anonymous-users/{api_28.project_id}",
        include_anonymous="true",
    )
    assert claims["is_anonymous"] is True and claims["is_restricted"] is True
    assert claims["restricted_reason"] == {"type": "anonymous"}
    assert _header(token)["kid"] not in {k["kid"] for k in _jwks(api_28).json()["keys"]}
    # The attack: an anonymous session used where a signed-in user is expected.
    refused = api_28.call("GET", "/users/me", token=token)
    assert_known_error(refused, "ANONYMOUS_AUTHENTICATION_NOT_ALLOWED", 401)
    only_restricted = api_28.call("GET", "/users/me", token=token, headers={"x-stack-allow-restricted-user": "true"})
    assert_known_error(only_restricted, "ANONYMOUS_AUTHENTICATION_NOT_ALLOWED", 401)
    # The control: the app opted in.
    me = api_28.call("GET", "/users/me", token=token, headers=ANON)
    assert me.status_code == 200, me.text
    body = me.json()
    assert body["id"] == anonymous["user_id"]
    assert body["is_anonymous"] is True and body["is_restricted"] is True
    assert body["restricted_reason"] == {"type": "anonymous"}
    assert body["primary_email"] is None and body["auth_with_email"] is False


def test_a_token_moved_to_another_audience_is_unparsable(api_28: Api, anonymous: dict[str, str]) -> None:
    """An anonymous user's token re-signed (with the anonymous key) as if for a normal user."""
    service_keys = _service_of(api_28).app.state.service.keys
    anon_key = service_keys.for_audience(f"{api_28.project_id}:anon")[0]
    claims = _claims(anonymous["access_token"])
    forged = anon_key.sign(
        {**claims, "aud": api_28.project_id, "iss": f"{api_28.url}/api/v1/projects/{api_28.project_id}"}
    )
    assert_known_error(api_28.call("GET", "/users/me", token=forged, headers=ANON), "UNPARSABLE_ACCESS_TOKEN", 401)
    # Claims that contradict the audience (a normal-looking user on the :anon audience) are refused too.
    contradicting = anon_key.sign({**claims, "is_anonymous": False, "is_restricted": False, "restricted_reason": None})
    response = api_28.call("GET", "/users/me", token=contradicting, headers=ANON)
    assert_known_error(response, "UNPARSABLE_ACCESS_TOKEN", 401)
    # A 2.7-style token (fixed issuer) is not a 2.8 token.
    plain_key = service_keys.for_project(api_28.project_id)
    legacy_issuer = "https://access-token.jwt-signature.stack-auth.com"
    legacy = plain_key.sign({**claims, "aud": api_28.project_id, "iss": legacy_issuer})
    assert_known_error(api_28.call("GET", "/users/me", token=legacy, headers=ANON), "UNPARSABLE_ACCESS_TOKEN", 401)


def test_the_token_of_another_project_names_both_projects(api_28: Api) -> None:
    service = _service_of(api_28)
    internal = Api.of(service, service.bootstrap.internal)
    owner = internal.sign_up()
    response = api_28.call("GET", "/users/me", token=owner["access_token"])
    body = assert_known_error(response, "INVALID_PROJECT_FOR_ACCESS_TOKEN", 401)
    assert body["details"] == {"expected_project_id": api_28.project_id, "actual_project_id": "internal"}


def test_without_an_access_type_the_token_is_not_read(api_28: Api, api_27: Api) -> None:
    """2.8 step 2: no access type means an anonymous request, even with a garbage token."""
    response = api_28.http.get("/api/v1", headers={"x-stack-access-token": "garbage", "x-stack-project-id": "x"})
    assert response.status_code == 200, response.text
    old = api_27.http.get(
        "/api/v1", headers={"x-stack-access-token": "garbage", "x-stack-project-id": api_27.project_id}
    )
    assert_known_error(old, "UNPARSABLE_ACCESS_TOKEN", 401)


def test_an_unknown_project_is_current_project_not_found(api_28: Api, api_27: Api) -> None:
    headers = {"x-stack-project-id": "no-such-project", "x-stack-access-type": "client"}
    body = assert_known_error(
        api_28.http.get("/api/v1/projects/current", headers=headers), "CURRENT_PROJECT_NOT_FOUND", 400
    )
    assert body["details"] == {"project_id": "no-such-project"}
    old = api_27.http.get("/api/v1/projects/current", headers=headers)
    assert_known_error(old, "CLIENT_AUTHENTICATION_REQUIRED", 401)


def test_the_publishable_key_is_required_unless_the_project_says_otherwise(api_28: Api, config_28: Any) -> None:
    headers = {"x-stack-project-id": api_28.project_id, "x-stack-access-type": "client"}
    refused = api_28.http.get("/api/v1/projects/current", headers=headers)
    body = assert_known_error(refused, "PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT", 401)
    assert body["details"] == {"project_id": api_28.project_id}
    config_28(require_publishable_client_key=False)
    assert api_28.http.get("/api/v1/projects/current", headers=headers).status_code == 200
    # A wrong key is still wrong when none is required.
    wrong = api_28.http.get(
        "/api/v1/projects/current", headers={**headers, "x-stack-publishable-client-key": "pck_wrong"}
    )
    assert_known_error(wrong, "INVALID_PUBLISHABLE_CLIENT_KEY", 401)
    # Server and admin keys stay required.
    server = api_28.http.get("/api/v1/users", headers={**headers, "x-stack-access-type": "server"})
    assert_known_error(server, "SERVER_AUTHENTICATION_REQUIRED", 401)


def test_an_owners_admin_token_and_the_override_key_open_a_project_in_28(api_28: Api) -> None:
    service = _service_of(api_28)
    internal = Api.of(service, service.bootstrap.internal)
    owner = internal.sign_up()
    created = internal.create_owned_project(owner, {"display_name": "O"})
    assert created.status_code == 201, created.text
    project_id = created.json()["id"]
    headers = {"x-stack-project-id": project_id, "x-stack-access-type": "admin"}
    with_token = api_28.http.get(
        "/api/v1/internal/projects/current", headers={**headers, "x-stack-admin-access-token": owner["access_token"]}
    )
    assert with_token.status_code == 200 and with_token.json()["id"] == project_id
    # Another owner's token is not admin of it (the attack), the override key is (development only).
    stranger = internal.sign_up()
    refused = api_28.http.get(
        "/api/v1/internal/projects/current", headers={**headers, "x-stack-admin-access-token": stranger["access_token"]}
    )
    assert_known_error(refused, "ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN", 401)
    override = {**headers, "x-stack-development-override-key": service.bootstrap.internal.super_secret_admin_key}
    assert api_28.http.get("/api/v1/internal/projects/current", headers=override).status_code == 200
    wrong = api_28.http.get(
        "/api/v1/internal/projects/current", headers={**headers, "x-stack-development-override-key": "sak_wrong"}
    )
    assert wrong.status_code == 401


def test_a_project_made_through_the_api_needs_no_publishable_key_until_its_config_says_so(api_28: Api) -> None:
    """2.8 leaves `project.requirePublishableClientKey` unset on a project made through the API,
    which means not required; the config override turns the requirement on (and off)."""
    service = _service_of(api_28)
    internal = Api.of(service, service.bootstrap.internal)
    created = internal.create_owned_project(internal.sign_up(), {"display_name": "Keyless"})
    assert created.status_code == 201, created.text
    project_id = created.json()["id"]
    headers = {"x-stack-project-id": project_id, "x-stack-access-type": "client"}
    answer = api_28.http.get("/api/v1/projects/current", headers=headers)
    assert answer.status_code == 200 and answer.json()["id"] == project_id
    override_key = {"x-stack-development-override-key": service.bootstrap.internal.super_secret_admin_key}
    changed = api_28.http.patch(
        "/api/v1/internal/config/override/project",
        headers={**headers, "x-stack-access-type": "admin", **override_key},
        json={"config_override_string": '{"project.requirePublishableClientKey": true}'},
    )
    assert changed.status_code == 200, changed.text
    refused = api_28.http.get("/api/v1/projects/current", headers=headers)
    assert_known_error(refused, "PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT", 401)
    # control: the service's own project (made at its first start) requires the key
    own = {"x-stack-project-id": api_28.project_id, "x-stack-access-type": "client"}
    assert_known_error(api_28.http.get("/api/v1/projects/current", headers=own), "PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT", 401)


def test_an_unknown_branch_is_refused(api_28: Api) -> None:
    response = api_28.call("GET", "/projects/current", headers={"x-stack-branch-id": "feature"})
    body = assert_known_error(response, "BRANCH_DOES_NOT_EXIST", 400)
    assert body["details"] == {"branch_id": "feature"}
    assert api_28.call("GET", "/projects/current", headers={"x-stack-branch-id": "main"}).status_code == 200


def test_an_expired_token_names_its_ids_in_28(api_28: Api, api_27: Api, user_28: dict[str, str]) -> None:
    service = _service_of(api_28)
    claims = _claims(user_28["access_token"])
    key = service.app.state.service.keys.for_audience(api_28.project_id)[0]
    expired = key.sign({**claims, "exp": claims["iat"] - 10, "iat": claims["iat"] - 20})
    body = assert_known_error(api_28.call("GET", "/users/me", token=expired), "ACCESS_TOKEN_EXPIRED", 401)
    assert body["details"]["user_id"] == user_28["user_id"]
    assert body["details"]["refresh_token_id"] == claims["refresh_token_id"]
    assert body["details"]["project_id"] == api_28.project_id
    old_user = api_27.sign_up()
    old_claims = _claims(old_user["access_token"])
    old_key = _service_of(api_27).app.state.service.keys.for_project(api_27.project_id)
    old_expired = old_key.sign({**old_claims, "exp": old_claims["iat"] - 10, "iat": old_claims["iat"] - 20})
    old_body = assert_known_error(api_27.call("GET", "/users/me", token=old_expired), "ACCESS_TOKEN_EXPIRED", 401)
    assert set(old_body["details"]) == {"expired_at_millis"}


@pytest.fixture
def user_28(api_28: Api) -> dict[str, str]:
    return api_28.sign_up()


def _service_of(api: Api) -> LocalService:
    assert api.running is not None
    return api.running


def test_the_cli_offers_the_versions_the_service_has() -> None:
    from authmw.cli import API_VERSIONS, DEFAULT_API_VERSION, build_parser
    from authmw_local.api_version import DEFAULT_API, VERSIONS

    assert set(API_VERSIONS) == set(VERSIONS)
    assert DEFAULT_API_VERSION == DEFAULT_API
    assert build_parser().parse_args(["dev", "--api", "2.7"]).api == "2.7"
    with pytest.raises(SystemExit):
        build_parser().parse_args(["dev", "--api", "3.0"])


def test_an_unknown_version_is_refused_with_the_known_ones(tmp_path: Any) -> None:
    with pytest.raises(ValueError, match="2.7, 2.8"):
        LocalService(tmp_path, quiet=True, api="2.9")
