"""Numbers no JavaScript client could send are schema errors, never a 500 (issue 18).

Every number field of the service (found from the route specs, so a new one is covered) gets
huge integers, 1e400, 64-bit overflows and numbers too long for Python's int parser, written as
raw JSON text the way an attacker would send them.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from authmw_local.endpoint import PerApi
from authmw_local.schema import MAX_SAFE_INTEGER, Num, Obj, Spec

from .conftest import Api, assert_known_error

HOSTILE = ["1" + "0" * 400, "-" + "9" * 400, "1e400", "-1e400", str(2**63), str(-(2**63) - 1), "9" * 5000]

SMTP = '{"type": "standard", "host": "localhost", "port": %s, "username": "u", "password": "p",'
SMTP += ' "sender_name": "S", "sender_email": "s@example.com"}'

#: method, path, tier, the JSON text with %s where the number goes (or a query).
FIELDS = [
    (
        "POST",
        "/auth/sessions",
        "server",
        '{"user_id": "00000000-0000-4000-8000-000000000000", "expires_in_millis": %s}',
    ),
    (
        "POST",
        "/internal/api-keys",
        "admin",
        (
            '{"description": "x", "expires_at_millis": %s, "has_publishable_client_key": true,'
            ' "has_secret_server_key": false, "has_super_secret_admin_key": false}'
        ),
    ),
    (
        "POST",
        "/internal/send-test-email",
        "admin",
        '{"recipient_email": "a@example.com", "email_config": ' + SMTP + "}",
    ),
    ("GET", "/users?limit=%s", "server", None),
    ("POST", "/internal/projects", "owner", '{"display_name": "n", "config": {"email_config": ' + SMTP + "}}"),
]
#: Number fields only API 2.7 has (checked against a 2.7 service).
FIELDS_27 = [("PATCH", "/projects/current", "admin", '{"config": {"email_config": ' + SMTP + "}}")]
#: Number fields only API 2.8 has (checked against a 2.8 service).
FIELDS_28 = [
    (
        "POST",
        "/payments/items/team/00000000-0000-4000-8000-000000000000/dashboard_admins/update-quantity?allow_negative=false",
        "server",
        '{"delta": %s}',
    ),
    ("POST", "/users", "server", '{"risk_scores": {"sign_up": {"bot": %s, "free_trial_abuse": 0}}}'),
    (
        "PATCH",
        "/users/00000000-0000-4000-8000-000000000000",
        "server",
        '{"risk_scores": {"sign_up": {"bot": 0, "free_trial_abuse": %s}}}',
    ),
    ("PATCH", "/internal/projects/current", "admin", '{"config": {"email_config": ' + SMTP + "}}"),
    ("POST", "/emails/send-email", "server", '{"user_ids": [], "html": "x", "scheduled_at_millis": %s}'),
    ("POST", "/auth/cli", "client", '{"expires_in_millis": %s}'),
    (
        "POST",
        "/internal/sign-up-rules-test",
        "admin",
        '{"email": "a@example.com", "auth_method": "password", "oauth_provider": null, "country_code": null,'
        ' "risk_scores": {"bot": %s, "free_trial_abuse": 0}}',
    ),
    # the users query schema of 2.8 is shared by the list and the routes of one user
    ("GET", "/users/00000000-0000-4000-8000-000000000000?limit=%s", "server", None),
    ("DELETE", "/users/00000000-0000-4000-8000-000000000000?limit=%s", "server", None),
    (
        "POST",
        "/user-api-keys",
        "server",
        '{"user_id": "00000000-0000-4000-8000-000000000000", "description": "x", "expires_at_millis": %s}',
    ),
    (
        "POST",
        "/team-api-keys",
        "server",
        '{"team_id": "00000000-0000-4000-8000-000000000000", "description": "x", "expires_at_millis": %s}',
    ),
]


def _num_fields(spec: Spec, path: str = "") -> list[str]:
    if isinstance(spec, Num):
        return [path]
    if isinstance(spec, Obj):
        return [found for name, child in spec.fields.items() for found in _num_fields(child, f"{path}.{name}")]
    return []


def _versions_of(spec: Spec | PerApi | None) -> list[Spec | None]:
    return [spec.v27, spec.v28] if isinstance(spec, PerApi) else [spec]


def test_the_list_names_every_number_field_of_the_service() -> None:
    from authmw_local.routes import ROUTE_MODULES

    found = set()
    for module in ROUTE_MODULES:
        for endpoint in getattr(getattr(module, "group", None), "endpoints", []):
            specs = [s for spec in (endpoint.body, endpoint.query) for s in _versions_of(spec)]
            for spec in specs:
                if spec is not None and _num_fields(spec):
                    found.add((endpoint.method, "/" + endpoint.path.lstrip("/")))
    listed = {(method, path.split("?")[0]) for method, path, _, _ in FIELDS + FIELDS_27 + FIELDS_28}
    # A route's {parameters} stand for any one segment of a listed (concrete) path.
    fits = {(m, p): [r for r in found if r[0] == m and _route(r[1]).fullmatch(p)] for m, p in listed}
    unknown = sorted(entry for entry, routes in fits.items() if not routes)
    unlisted = sorted(set(found) - {r for routes in fits.values() for r in routes})
    assert (unlisted, unknown) == ([], [])


def _route(path: str) -> re.Pattern[str]:
    return re.compile(re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(path)))


@pytest.fixture(scope="module")
def owner(internal_api: Api) -> dict[str, str]:
    """A user of the internal project: the one who may create projects."""
    return internal_api.sign_up()


def _send(api: Api, owner: tuple[Api, str], method: str, path: str, tier: str, template: str | None, number: str):
    if template is None:
        return api.call(method, path % number, tier)
    token = None
    if tier == "owner":
        (api, token), tier = owner, "client"
    headers = {"content-type": "application/json"}
    return api.call(method, path, tier, token=token, content=template % number, headers=headers)


@pytest.mark.parametrize("number", HOSTILE)
@pytest.mark.parametrize(("method", "path", "tier", "template"), FIELDS)
def test_hostile_numbers_are_schema_errors(api, internal_api, owner, method, path, tier, template, number) -> None:
    response = _send(api, (internal_api, owner["access_token"]), method, path, tier, template, number)
    assert response.status_code == 400, response.text
    assert response.headers.get("x-stack-known-error") == "SCHEMA_ERROR", response.text


@pytest.mark.parametrize("number", HOSTILE)
@pytest.mark.parametrize(
    ("version", "method", "path", "tier", "template"),
    [("2.7", *field) for field in FIELDS_27] + [("2.8", *field) for field in FIELDS_28],
)
def test_hostile_numbers_are_schema_errors_in_fields_of_one_version(
    api_27: Api, api_28: Api, version, method, path, tier, template, number
) -> None:
    api = api_27 if version == "2.7" else api_28
    response = _send(api, (api, ""), method, path, tier, template, number)
    assert response.status_code == 400, response.text
    assert response.headers.get("x-stack-known-error") == "SCHEMA_ERROR", response.text


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(min_value=MAX_SAFE_INTEGER + 1) | st.integers(max_value=-MAX_SAFE_INTEGER - 1))
def test_any_integer_beyond_the_safe_range_is_refused(api: Api, number: int) -> None:
    response = _send(api, (api, ""), *FIELDS[0], str(number))
    body = assert_known_error(response, "SCHEMA_ERROR", 400)
    assert "expires_in_millis" in body["error"]


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_non_json_number_literals_are_parsing_errors(api: Api, literal: str) -> None:
    response = _send(api, (api, ""), *FIELDS[0], literal)
    assert_known_error(response, "BODY_PARSING_ERROR", 400)
