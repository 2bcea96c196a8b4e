from __future__ import annotations

import importlib.util
import json
import pickle
from pathlib import Path

import pytest

import authmw
from authmw import errors
from authmw.errors import (
    AuthmwError,
    ConfigurationError,
    HttpStatusError,
    KnownError,
    NetworkError,
    ServiceUnreachable,
    UnsupportedError,
    error_from_response,
)
from authmw.middleware import Refusal

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = json.loads((ROOT / "authmw" / "catalogue.json").read_text())["errors"]
BY_CODE = {e["code"]: e for e in CATALOGUE}
#: Every known error of backend 2.8.86 and its status (None: a parent, never sent).
BACKEND_2_8_86 = json.loads((ROOT / "tests" / "data" / "backend-2.8.86-known-errors.json").read_text())["codes"]


def _generator():
    spec = importlib.util.spec_from_file_location("gen_errors", ROOT / "scripts" / "gen_errors.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gen = _generator()

SAMPLE = {"string": "s", "number": 8, "number|null": 8, "string|null": None, "string[]": ["a"], "object[]": [{}]}


def test_generated_file_is_up_to_date():
    current = (ROOT / "authmw" / "_errors_gen.py").read_text()
    assert current == gen.generate(), "authmw/_errors_gen.py is stale: run python scripts/gen_errors.py"


def test_class_names_follow_the_sdk():
    assert gen.class_name("VERIFICATION_ERROR") == "VerificationCodeError"
    assert gen.class_name("INVALID_OAUTH_CLIENT_ID_OR_SECRET") == "InvalidOAuthClientIdOrSecret"
    assert gen.class_name("MULTI_FACTOR_AUTHENTICATION_REQUIRED") == "MultiFactorAuthenticationRequired"


@pytest.mark.parametrize("entry", CATALOGUE, ids=[e["code"] for e in CATALOGUE])
def test_catalogue_entry(entry):
    cls = getattr(errors, gen.class_name(entry["code"]))
    assert cls.__name__ in errors.__all__
    assert issubclass(cls, KnownError) and issubclass(cls, AuthmwError)
    assert (cls.code, cls.status, cls.message_template) == (entry["code"], entry["status"], entry["message"])
    assert cls.abstract == bool(entry.get("abstract"))
    # the parent chain of the catalogue is the class hierarchy
    parent = entry["parent"]
    expected_base = getattr(errors, gen.class_name(parent)) if parent else KnownError
    assert cls.__bases__ == (expected_base,)
    while parent:
        assert issubclass(cls, getattr(errors, gen.class_name(parent)))
        parent = BY_CODE[parent]["parent"]
    # detail fields as typed properties
    details = {key: SAMPLE.get(spec, "v") for key, spec in entry["details"].items()}
    assert cls.detail_fields == tuple(entry["details"])
    error = cls(details=details)
    for key in entry["details"]:
        assert getattr(error, gen.property_name(entry["code"], key)) == details[key]
    # a wire body of the code parses to this class
    body = {"code": entry["code"], "error": "the message", "details": details}
    headers = {"x-stack-known-error": entry["code"]}
    parsed = error_from_response(entry["status"], headers, json.dumps(body).encode())
    if entry["code"] == "UNSUPPORTED_ERROR":
        assert type(parsed) is UnsupportedError
        return
    assert type(parsed) is cls
    assert parsed.message == "the message" and parsed.details == details
    # ...and answers with the same wire body (the one error body: Refusal.body)
    assert json.loads(Refusal.of(parsed).body) == (
        {k: v for k, v in body.items() if k != "details"} | ({"details": details} if details else {})
    )
    again = pickle.loads(pickle.dumps(parsed))
    assert type(again) is cls and again.details == details


def test_parent_catches_children():
    with pytest.raises(errors.InvalidAccessToken):
        raise errors.AccessTokenExpired()
    with pytest.raises(errors.VerificationCodeError):
        raise errors.VerificationCodeExpired()
    with pytest.raises(errors.ProjectAuthenticationError):
        raise errors.UnparsableAdminAccessToken()


def test_typed_detail_properties():
    mfa = KnownError.from_body(
        {"code": "MULTI_FACTOR_AUTHENTICATION_REQUIRED", "error": "m", "details": {"attempt_code": "a" * 45}}
    )
    assert isinstance(mfa, errors.MultiFactorAuthenticationRequired) and mfa.attempt_code == "a" * 45
    short = errors.PasswordTooShort(details={"min_length": 8})
    assert short.min_length == 8 and str(short) == "PASSWORD_TOO_SHORT: Password too short. Minimum length is 8."
    assert errors.PasswordTooLong(details={"maxLength": 70}).max_length == 70
    assert errors.PasswordTooShort().min_length is None  # missing details never crash


def test_message_defaults_to_the_filled_template():
    assert errors.TeamNotFound(details={"team_id": "t1"}).message == "Team t1 not found."
    assert errors.AccessTokenExpired().message == "Access token has expired. Please refresh it and try again."


def test_unknown_code_keeps_the_original_code():
    error = KnownError.from_body({"code": "SOMETHING_NEW", "error": "hello"})
    assert type(error) is UnsupportedError and error.original_code == "SOMETHING_NEW"
    assert "SOMETHING_NEW" in error.message and "hello" in error.message


def test_the_catalogue_knows_every_error_of_backend_2_8_86():
    assert len(BACKEND_2_8_86) == 144
    assert sorted(set(BACKEND_2_8_86) - set(BY_CODE)) == []


@pytest.mark.parametrize("code", sorted(BACKEND_2_8_86))
def test_every_2_8_86_error_reads_as_its_class_with_its_status(code):
    status = BACKEND_2_8_86[code]
    cls = KnownError.from_body({"code": code}).__class__
    assert cls is not UnsupportedError or code == "UNSUPPORTED_ERROR"
    assert cls.code == code
    if status is None:  # a parent: caught, never sent
        assert cls.abstract
        return
    assert (BY_CODE[code]["status"], cls.status) == (status, status)
    body = json.dumps({"code": code, "error": "as the service words it"}).encode()
    error = error_from_response(status, {"x-stack-known-error": code}, body)
    assert type(error) is cls and error.status == status
    if code != "UNSUPPORTED_ERROR":  # (that one's message names the code it stands for)
        assert error.message == "as the service words it"


def test_an_unknown_code_keeps_the_services_status():
    body = {"code": "SOMETHING_NEWER", "error": "Not enough of it.", "details": {"quantity": 3}}
    error = error_from_response(400, {"x-stack-known-error": "SOMETHING_NEWER"}, json.dumps(body).encode())
    assert type(error) is UnsupportedError and error.status == 400
    assert error.original_code == "SOMETHING_NEWER" and error.details["quantity"] == 3
    assert "Not enough of it." in error.message
    again = pickle.loads(pickle.dumps(error))
    assert (type(again), again.status, again.original_code) == (UnsupportedError, 400, "SOMETHING_NEWER")
    # control: without a status (a body read on its own) the catalogue's 500 stands
    assert KnownError.from_body(body).status == UnsupportedError.status == 500


def test_the_code_of_the_report_is_known_with_its_status():
    """The case of the report: 2.8.86's ITEM_QUANTITY_INSUFFICIENT_AMOUNT, once read as a 500."""
    body = {"code": "ITEM_QUANTITY_INSUFFICIENT_AMOUNT", "error": "m", "details": {"item_id": "i", "customer_id": "c", "quantity": 2}}
    error = error_from_response(400, {"x-stack-known-error": body["code"]}, json.dumps(body).encode())
    assert isinstance(error, errors.ItemQuantityInsufficientAmount)
    assert (error.status, error.item_id, error.customer_id, error.quantity) == (400, "i", "c", 2)


def test_a_known_code_answered_with_another_status_keeps_the_services():
    body = json.dumps({"code": "TEAM_NOT_FOUND", "error": "gone", "details": {"team_id": "t"}}).encode()
    error = error_from_response(410, {"x-stack-known-error": "TEAM_NOT_FOUND"}, body)
    assert type(error) is errors.TeamNotFound and error.status == 410 and errors.TeamNotFound.status == 404
    assert pickle.loads(pickle.dumps(error)).status == 410


def test_other_errors():
    status = HttpStatusError(502, b"bad gateway body", method="GET", url="http://x/api/v1/y")
    assert (status.status, status.reason) == (502, "Bad Gateway")
    assert str(status) == "HTTP 502 Bad Gateway from GET http://x/api/v1/y: bad gateway body"
    assert HttpStatusError(599).reason == "Unknown Status"
    assert pickle.loads(pickle.dumps(status)).status == 502
    assert issubclass(ServiceUnreachable, NetworkError) and issubclass(NetworkError, ConnectionError)
    assert issubclass(ConfigurationError, ValueError)
    for cls in (ConfigurationError, KnownError, HttpStatusError, NetworkError, errors.InvalidServerResponse):
        assert issubclass(cls, AuthmwError)
    assert authmw.ConfigurationError is ConfigurationError


def test_docstring_draws_the_tree():
    for name in (
        "AuthmwError",
        "KnownError",
        "UnsupportedError",
        "InvalidServerResponse",
        "HttpStatusError",
        "ServiceUnreachable",
        "ConfigurationError",
    ):
        assert name in errors.__doc__


def test_every_error_survives_pickling():
    samples = [
        ServiceUnreachable(
            method="GET", url="http://x/api/v1/y", attempts=5, cause="refused", health="HTTP 200", api_url="http://x"
        ),
        HttpStatusError(503, "down", method="GET", url="http://x"),
        errors.InvalidServerResponse("bad"),
        errors.InvalidJwt("expired", "The token has expired."),
        ConfigurationError("missing"),
        NetworkError("reset"),
        errors.TeamNotFound(details={"team_id": "t"}),
    ]
    for error in samples:
        again = pickle.loads(pickle.dumps(error))
        assert type(again) is type(error) and str(again) == str(error)
