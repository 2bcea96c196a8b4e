"""Transport rules every answer follows: contract sections 1.1, 1.4-1.7."""

from __future__ import annotations

import json
import re
import uuid

import pytest

from .conftest import Api, assert_known_error


def test_health_answers_ok_with_open_cors(api: Api) -> None:
    response = api.http.get("/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert response.headers["access-control-allow-origin"] == "*"
    assert api.http.get("/health?db=1").json() == {"status": "ok"}


def test_every_response_has_request_id_and_no_store(api: Api) -> None:
    for response in (api.http.get("/health"), api.call("GET", "/users/me"), api.http.get("/api/v1/nope")):
        assert re.fullmatch(r"[a-z0-9]{16}", response.headers["x-stack-request-id"])
        assert response.headers["cache-control"] == "no-store, max-age=0"


@pytest.mark.parametrize(("version", "indent"), [("2.7", 9), ("2.8", 2)])
def test_api_root_says_who_is_calling_as_each_version_words_it(
    version: str, indent: int, request: pytest.FixtureRequest
) -> None:
    api: Api = request.getfixturevalue(f"api_{version.replace('.', '')}")
    user = api.sign_up()
    email = api.call("GET", "/users/me", token=user["access_token"]).json()["primary_email"]
    welcome = "Welcome to the Stack API endpoint! Please refer to the documentation at https://docs.stack-auth.com."
    anonymous = api.http.get("/api/v1")
    assert (anonymous.status_code, anonymous.text) == (200, f"{welcome}\n\nAuthentication: None")
    signed_in = api.call("GET", "/", "server", token=user["access_token"])
    pad = " " * indent  # 2.7.16's template indented these lines by 9 (Stack's e2e suite 2.7.16 snapshots it)
    assert signed_in.text == f"{welcome}\n\nAuthentication: Server\n{pad}Project: {api.project_id}\n{pad}User: {email}"


def test_api_root_rejects_query_parameters(api: Api) -> None:
    response = api.http.get("/api/v1", params={"x": "1"})
    body = assert_known_error(response, "SCHEMA_ERROR", 400)
    assert body["error"] == "Request validation failed on GET /api/v1:\n  - query contains unknown properties: x"


def test_unknown_api_path_is_a_plain_404_naming_the_url(api: Api) -> None:
    response = api.http.get("/api/v1/does-not-exist?a=1")
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/plain")
    assert "x-stack-known-error" not in response.headers
    assert response.text.startswith("404 — this page does not exist in Stack Auth's API.")
    assert response.text.endswith(f"URL: {api.url}/api/v1/does-not-exist?a=1")


def test_unsupported_methods_get_a_plain_405(api: Api) -> None:
    for method in ("TRACE", "PUT"):
        response = api.http.request(method, "/api/v1/users/me")
        assert response.status_code == 405
        assert response.text == "Method not allowed"


def test_preflight_answers_at_once_with_the_cors_headers(api: Api) -> None:
    response = api.http.options(
        "/api/v1/users/me",
        headers={"origin": "http://localhost:3000", "access-control-request-method": "PATCH"},
    )
    assert response.status_code == 200
    assert response.content == b""
    headers = response.headers
    assert headers["access-control-allow-origin"] == "*"
    assert headers["access-control-allow-methods"] == "GET, POST, PUT, PATCH, DELETE, OPTIONS"
    assert headers["access-control-max-age"] == "86400"
    assert headers["access-control-expose-headers"] == "content-type, x-stack-actual-status, x-stack-known-error"
    allowed = [h.strip() for h in headers["access-control-allow-headers"].split(",")]
    assert allowed[:3] == ["content-type", "authorization", "x-stack-project-id"]
    assert {"x-stack-access-token", "x-stack-refresh-token", "x-stack-admin-access-token", "sentry-trace"} <= set(
        allowed
    )


def test_preflight_allows_the_2_8_sdk_headers_and_their_hexclave_names(api: Api) -> None:
    response = api.http.options(
        "/api/v1/users/me",
        headers={
            "origin": "http://localhost:3000",
            "access-control-request-method": "GET",
            "access-control-request-headers": "x-stack-allow-anonymous-user, x-hexclave-project-id",
        },
    )
    allowed = {h.strip() for h in response.headers["access-control-allow-headers"].split(",")}
    assert {"x-stack-allow-anonymous-user", "x-hexclave-allow-anonymous-user", "ngrok-skip-browser-warning"} <= allowed
    assert {"x-stack-branch-id", "x-vercel-protection-bypass"} <= allowed  # service-api B1.4
    for name in ("project-id", "access-type", "publishable-client-key", "access-token", "refresh-token"):
        assert {f"x-stack-{name}", f"x-hexclave-{name}"} <= allowed


def test_hexclave_request_headers_are_read_as_their_stack_twins(api: Api) -> None:
    user = api.sign_up()
    hexclave = {
        name.replace("x-stack-", "x-hexclave-"): value
        for name, value in api.headers("client", access_token=user["access_token"]).items()
    }
    response = api.http.get("/api/v1/users/me", headers={**hexclave, "x-hexclave-allow-anonymous-user": "true"})
    assert response.status_code == 200, response.text
    assert response.json()["id"] == user["user_id"]
    # The x-stack-* name wins where a request carries both.
    mixed = {**hexclave, "x-stack-access-type": "nonsense"}
    assert api.http.get("/api/v1/users/me", headers=mixed).json()["code"] == "INVALID_ACCESS_TYPE"


def test_api_responses_carry_cors_headers(api: Api) -> None:
    response = api.call("GET", "/projects/current")
    assert response.headers["access-control-allow-origin"] == "*"
    assert "x-stack-known-error" in response.headers["access-control-expose-headers"]


def test_override_error_status_turns_errors_into_200_with_actual_status(api: Api) -> None:
    response = api.call(
        "POST",
        "/auth/password/sign-in",
        headers={"x-stack-override-error-status": "true"},
        json={"email": "nobody@example.com", "password": "whatever1"},
    )
    assert response.status_code == 200
    assert response.headers["x-stack-actual-status"] == "400"
    assert response.headers["x-stack-known-error"] == "EMAIL_PASSWORD_MISMATCH"
    assert response.json()["code"] == "EMAIL_PASSWORD_MISMATCH"


def test_override_error_status_works_by_presence_and_leaves_success_alone(api: Api) -> None:
    error = api.http.get("/api/v1/nope", headers={"x-stack-override-error-status": ""})
    assert error.status_code == 200 and error.headers["x-stack-actual-status"] == "404"
    ok = api.call("GET", "/projects/current", headers={"x-stack-override-error-status": "true"})
    assert ok.status_code == 200 and "x-stack-actual-status" not in ok.headers


def test_invalid_json_is_a_body_parsing_error(api: Api) -> None:
    response = api.call(
        "POST", "/auth/password/sign-in", content=b"{not json", headers={"content-type": "application/json"}
    )
    body = assert_known_error(response, "BODY_PARSING_ERROR", 400)
    assert body == {"code": "BODY_PARSING_ERROR", "error": "Invalid JSON in request body"}


def test_unknown_content_type_is_a_body_parsing_error(api: Api) -> None:
    response = api.call(
        "POST", "/auth/password/sign-in", content=b"<a/>", headers={"content-type": "application/xml; charset=x"}
    )
    body = assert_known_error(response, "BODY_PARSING_ERROR", 400)
    assert body["error"] == "Unknown content type in request body: application/xml"


def test_wrong_json_types_are_schema_errors_not_crashes(api: Api) -> None:
    for payload in ([1, 2], "text", {"email": 5, "password": None}):
        response = api.call("POST", "/auth/password/sign-in", json=payload)
        assert_known_error(response, "SCHEMA_ERROR", 400)


def _escaped_json(api: Api, method: str, path: str, tier: str, body: dict, token: str | None = None):
    """`body` as JSON text with every non-ASCII character escaped (\\uXXXX), as a client may send it."""
    content = json.dumps(body).encode()
    return api.call(method, path, tier, token=token, content=content, headers={"content-type": "application/json"})


def test_lone_surrogates_in_json_strings_are_no_crash(api: Api, user: dict) -> None:
    # The attack: JSON may escape half of a UTF-16 pair (\ud800); such a string cannot be
    # written as UTF-8, and every write of one to SQLite (and every hash of one) was a 500.
    # The service's JavaScript runtime writes U+FFFD for it; so does the local service.
    lone = "a\ud800b\udfff"
    definition = {"id": f"lone_{uuid.uuid4().hex}", "description": lone}
    answers = [
        _escaped_json(api, "PATCH", "/users/me", "client", {"display_name": lone}, user["access_token"]),
        _escaped_json(api, "POST", "/users", "server", {"display_name": lone, "password": lone}),
        _escaped_json(api, "POST", "/teams", "server", {"display_name": lone}),
        _escaped_json(api, "POST", "/auth/password/sign-in", "client", {"email": "a@b.example", "password": lone}),
        _escaped_json(api, "POST", "/auth/cli/poll", "client", {"polling_code": lone}),
        _escaped_json(api, "POST", "/team-permission-definitions", "admin", definition),
    ]
    statuses = [(a.status_code, a.headers.get("x-stack-known-error")) for a in answers]
    assert statuses == [
        (200, None),
        (201, None),
        (201, None),
        (400, "EMAIL_PASSWORD_MISMATCH"),
        (400, "INVALID_POLLING_CODE"),
        (201, None),
    ], [a.text[:200] for a in answers]
    assert answers[0].json()["display_name"] == "a\ufffdb\ufffd"
    assert api.call("GET", "/users/me", token=user["access_token"]).json()["display_name"] == "a\ufffdb\ufffd"


def test_escaped_surrogate_pairs_stay_the_character_they_spell(api: Api, user: dict) -> None:
    # The control: an escaped pair (json.dumps writes the emoji as \ud83d\ude00) is one character.
    answer = _escaped_json(api, "PATCH", "/users/me", "client", {"display_name": "x\U0001f600"}, user["access_token"])
    assert answer.status_code == 200, answer.text
    assert answer.json()["display_name"] == "x\U0001f600"


def test_json_is_indented_for_browsers(api: Api) -> None:
    response = api.call("GET", "/projects/current", headers={"accept": "text/html"})
    assert response.text.startswith("{\n  ")
    assert response.headers["content-type"] == "application/json; charset=utf-8"


def test_one_trailing_slash_is_ignored(api: Api) -> None:
    assert api.call("GET", "/projects/current/").status_code == 200
