"""Access tokens: claims, JWKS, and their verification on every request (3.1, 3.3, 1.3 step 1)."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator

import jwt
import pytest

from authmw.dev import LocalService

from .conftest import Api, assert_known_error

#: API 2.7's tokens and key sets (2.8's: test_api_28_tokens.py).
API_VERSION = "2.7"

ISSUER = "https://access-token.jwt-signature.stack-auth.com"


def _segment(token: str, index: int) -> dict:
    part = token.split(".")[index]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def test_access_token_header_and_claims_match_the_contract(api: Api, user: dict) -> None:
    token = user["access_token"]
    header = _segment(token, 0)
    assert header == {"alg": "ES256", "kid": header["kid"]}
    assert len(header["kid"]) == 12
    claims = _segment(token, 1)
    assert set(claims) == {"iss", "aud", "sub", "iat", "exp", "branchId"}  # 2.8's claims: test_access_token_claims_28.py
    assert claims["iss"] == ISSUER
    assert claims["aud"] == api.project_id
    assert claims["sub"] == user["user_id"]
    assert claims["branchId"] == "main"
    assert claims["exp"] - claims["iat"] == 600


def test_project_jwks_has_one_p256_key_that_verifies_tokens(api: Api, user: dict) -> None:
    response = api.http.get(f"/api/v1/projects/{api.project_id}/.well-known/jwks.json")
    assert response.status_code == 200
    keys = response.json()["keys"]
    assert len(keys) == 1
    jwk = keys[0]
    assert set(jwk) == {"kty", "alg", "crv", "x", "y", "kid"}
    assert (jwk["kty"], jwk["alg"], jwk["crv"]) == ("EC", "ES256", "P-256")
    assert jwk["kid"] == _segment(user["access_token"], 0)["kid"]
    key = jwt.PyJWK(jwk).key
    claims = jwt.decode(user["access_token"], key, algorithms=["ES256"], audience=api.project_id, issuer=ISSUER)
    assert claims["sub"] == user["user_id"]


def test_pyjwt_jwks_client_verifies_tokens(api: Api, user: dict) -> None:
    client = jwt.PyJWKClient(f"{api.url}/api/v1/projects/{api.project_id}/.well-known/jwks.json")
    key = client.get_signing_key_from_jwt(user["access_token"])
    jwt.decode(user["access_token"], key.key, algorithms=["ES256"], audience=api.project_id, issuer=ISSUER)


def test_jwks_of_an_unknown_project_is_a_plain_404(api: Api) -> None:
    response = api.http.get("/api/v1/projects/00000000-0000-4000-8000-000000000000/.well-known/jwks.json")
    assert response.status_code == 404
    assert response.text == "Project not found"
    assert "x-stack-known-error" not in response.headers


def test_legacy_global_jwks_has_a_key_and_a_deprecation_message(api: Api) -> None:
    body = api.http.get("/.well-known/jwks.json").json()
    assert len(body["keys"]) == 1 and body["keys"][0]["crv"] == "P-256"
    assert body["message"].startswith("This is deprecated.")


def test_a_tampered_access_token_is_unparsable(api: Api, user: dict) -> None:
    header, payload, signature = user["access_token"].split(".")
    claims = _segment(user["access_token"], 1)
    claims["sub"] = "00000000-0000-4000-8000-000000000000"
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    for token in (f"{header}.{forged}.{signature}", "not-a-jwt", user["access_token"][:-4] + "AAAA"):
        assert_known_error(api.call("GET", "/users/me", token=token), "UNPARSABLE_ACCESS_TOKEN", 401)


def test_access_tokens_are_checked_even_on_sign_in_and_without_access_type(api: Api, user: dict) -> None:
    sign_in = api.call(
        "POST",
        "/auth/password/sign-in",
        token="garbage",
        json={"email": user["email"], "password": user["password"]},
    )
    assert_known_error(sign_in, "UNPARSABLE_ACCESS_TOKEN", 401)
    anonymous = api.http.get(
        "/api/v1", headers={"x-stack-project-id": api.project_id, "x-stack-access-token": "garbage"}
    )
    assert_known_error(anonymous, "UNPARSABLE_ACCESS_TOKEN", 401)


def test_a_token_of_another_project_is_invalid_for_this_project(api: Api, internal_api: Api) -> None:
    other = internal_api.sign_up()
    response = api.call("GET", "/users/me", token=other["access_token"])
    assert_known_error(response, "INVALID_PROJECT_FOR_ACCESS_TOKEN", 401)


def test_a_token_signed_by_an_unrelated_key_is_unparsable(api: Api, user: dict) -> None:
    from cryptography.hazmat.primitives.asymmetric import ec

    claims = _segment(user["access_token"], 1)
    foreign = jwt.encode(claims, ec.generate_private_key(ec.SECP256R1()), algorithm="ES256")
    assert_known_error(api.call("GET", "/users/me", token=foreign), "UNPARSABLE_ACCESS_TOKEN", 401)


def test_a_signed_out_access_token_keeps_working_until_it_expires(api: Api, user: dict) -> None:
    signed_out = api.call("DELETE", "/auth/sessions/current", headers={"x-stack-refresh-token": user["refresh_token"]})
    assert signed_out.status_code == 200
    assert api.call("GET", "/users/me", token=user["access_token"]).status_code == 200


def test_a_token_of_a_deleted_user_means_no_user(api: Api, user: dict) -> None:
    assert api.call("DELETE", f"/users/{user['user_id']}", "server").status_code == 200
    response = api.call("GET", "/users/me", token=user["access_token"])
    assert_known_error(response, "CANNOT_GET_OWN_USER_WITHOUT_USER", 400)


@pytest.fixture(scope="module")
def own_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Api, LocalService]]:
    with LocalService(tmp_path_factory.mktemp("expired-tokens"), quiet=True, api="2.7") as service:
        yield Api.of(service), service


def test_an_expired_access_token_says_when_it_expired(own_service: tuple[Api, LocalService]) -> None:
    api, service = own_service
    tokens = api.sign_up()
    # The service's own token, re-signed with its key 5 s past expiry: nothing waits for time.
    claims = _segment(tokens["access_token"], 1)
    claims["exp"] = int(time.time()) - 5
    claims["iat"] = claims["exp"] - 600
    project_key = service.app.state.service.keys.for_project(service.project_id)
    tokens["access_token"] = project_key.sign(claims)
    response = api.call("GET", "/users/me", token=tokens["access_token"])
    body = assert_known_error(response, "ACCESS_TOKEN_EXPIRED", 401)
    assert body["details"] == {"expired_at_millis": claims["exp"] * 1000}
    assert body["error"].startswith(
        "Access token has expired. Please refresh it and try again. (The access token expired at "
    )
    assert body["error"].endswith(".000Z.)")
    # a refresh gives a working token again
    refreshed = api.call(
        "POST", "/auth/sessions/current/refresh", headers={"x-stack-refresh-token": tokens["refresh_token"]}
    )
    assert api.call("GET", "/users/me", token=refreshed.json()["access_token"]).status_code == 200
