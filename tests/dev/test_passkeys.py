"""Passkeys with a software authenticator: service-api A5.4.4, A6.7 and A7.6."""

from __future__ import annotations

import base64
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import cbor2
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

from authmw.dev import LocalService

from .conftest import Api, assert_known_error, unique_email

ORIGIN = "http://localhost:3000"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@dataclass
class Authenticator:
    """A platform authenticator holding one ES256 credential."""

    key: ec.EllipticCurvePrivateKey = field(default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))
    credential_id: bytes = field(default_factory=lambda: os.urandom(16))
    sign_count: int = 0

    def auth_data(self, rp_id: str, *, attested: bool) -> bytes:
        self.sign_count += 1
        flags = 0x01 | 0x04 | (0x40 if attested else 0)
        data = hashlib.sha256(rp_id.encode()).digest() + bytes([flags]) + self.sign_count.to_bytes(4, "big")
        if attested:
            numbers = self.key.public_key().public_numbers()
            cose = cbor2.dumps(
                {1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")}
            )
            data += bytes(16) + len(self.credential_id).to_bytes(2, "big") + self.credential_id + cose
        return data

    def create(self, options: dict, origin: str = ORIGIN, rp_id: str = "localhost") -> dict:
        client = json.dumps({"type": "webauthn.create", "challenge": options["challenge"], "origin": origin}).encode()
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": self.auth_data(rp_id, attested=True)})
        return {
            "id": b64url(self.credential_id),
            "rawId": b64url(self.credential_id),
            "type": "public-key",
            "response": {"clientDataJSON": b64url(client), "attestationObject": b64url(attestation)},
            "clientExtensionResults": {},
        }

    def get(self, options: dict, origin: str = ORIGIN, rp_id: str = "localhost") -> dict:
        client = json.dumps({"type": "webauthn.get", "challenge": options["challenge"], "origin": origin}).encode()
        auth_data = self.auth_data(rp_id, attested=False)
        signature = self.key.sign(auth_data + hashlib.sha256(client).digest(), ec.ECDSA(hashes.SHA256()))
        return {
            "id": b64url(self.credential_id),
            "rawId": b64url(self.credential_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64url(client),
                "authenticatorData": b64url(auth_data),
                "signature": b64url(signature),
            },
            "clientExtensionResults": {},
        }


@pytest.fixture
def passkeys_on(project_config) -> None:
    project_config(passkey_enabled=True)


def register(api: Api, token: str, authenticator: Authenticator, **kw: str):
    started = api.call("POST", "/auth/passkey/initiate-passkey-registration", token=token, json={}).json()
    credential = authenticator.create(started["options_json"], **kw)
    return api.call(
        "POST", "/auth/passkey/register", token=token, json={"credential": credential, "code": started["code"]}
    )


def authenticate(api: Api, authenticator: Authenticator, **kw: str):
    started = api.call("POST", "/auth/passkey/initiate-passkey-authentication", json={}).json()
    assert started["options_json"]["rpId"] == "THIS_VALUE_WILL_BE_REPLACED.example.com"
    answer = authenticator.get(started["options_json"], **kw)
    return api.call("POST", "/auth/passkey/sign-in", json={"authentication_response": answer, "code": started["code"]})


def test_register_then_sign_in_with_the_passkey(api: Api, user: dict, passkeys_on: None) -> None:
    started = api.call(
        "POST", "/auth/passkey/initiate-passkey-registration", token=user["access_token"], json={}
    ).json()
    options = started["options_json"]
    assert options["rp"]["id"] == "THIS_VALUE_WILL_BE_REPLACED.example.com"
    assert base64.urlsafe_b64decode(options["user"]["id"] + "==").decode() == user["user_id"]
    assert [p["alg"] for p in options["pubKeyCredParams"]] == [-8, -7, -257]
    authenticator = Authenticator()
    registered = register(api, user["access_token"], authenticator)
    assert registered.status_code == 200, registered.text
    assert registered.json() == {"user_handle": b64url(authenticator.credential_id)}
    me = api.call("GET", "/users/me", token=user["access_token"]).json()
    assert me["passkey_auth_enabled"] is True

    signed_in = authenticate(api, authenticator)
    assert signed_in.status_code == 200, signed_in.text
    body = signed_in.json()
    assert (body["user_id"], body["is_new_user"]) == (user["user_id"], False)


def test_a_wrong_signature_or_unknown_passkey_fails(api: Api, user: dict, passkeys_on: None) -> None:
    authenticator = Authenticator()
    assert register(api, user["access_token"], authenticator).status_code == 200
    impostor = Authenticator(credential_id=authenticator.credential_id, sign_count=9)  # same id, other key
    body = assert_known_error(authenticate(api, impostor), "PASSKEY_AUTHENTICATION_FAILED", 400)
    assert body["error"] == (  # the backend's words, 2.7 and 2.8 alike
        "The signature of the authentication response could not be verified with the stored public key tied"
        " to this credential ID"
    )
    unknown = assert_known_error(authenticate(api, Authenticator()), "PASSKEY_AUTHENTICATION_FAILED", 400)
    assert unknown["error"] == "Passkey not found"


@pytest.mark.parametrize(
    ("version", "code"), [("2.8", "PASSKEY_REGISTRATION_FAILED"), ("2.7", "PASSKEY_AUTHENTICATION_FAILED")]
)
def test_origins_must_be_allowed(api_27: Api, api_28: Api, version: str, code: str) -> None:
    """2.8.86 names the failure a registration failure; 2.7.16 called it an authentication one."""
    api = api_28 if version == "2.8" else api_27
    before = api.call("GET", api.admin_project_path, "admin").json()["config"]["passkey_enabled"]
    api.set_config(passkey_enabled=True)
    try:
        token = api.sign_up(unique_email())["access_token"]
        control = register(api, token, Authenticator())
        assert control.status_code == 200, control.text
        response = register(api, token, Authenticator(), origin="https://evil.example", rp_id="evil.example")
    finally:
        api.set_config(passkey_enabled=before)
    body = assert_known_error(response, code, 400)
    assert body["error"] == "Passkey registration failed because the origin is not allowed"


def test_passkeys_need_the_project_flag(api: Api, user: dict, project_config) -> None:
    project_config(passkey_enabled=False)
    response = api.call("POST", "/auth/passkey/initiate-passkey-authentication", json={})
    assert_known_error(response, "PASSKEY_AUTHENTICATION_NOT_ENABLED", 400)


def test_disabling_passkey_auth_deletes_the_passkey(api: Api, user: dict, passkeys_on: None) -> None:
    authenticator = Authenticator()
    assert register(api, user["access_token"], authenticator).status_code == 200
    off = api.call("PATCH", "/users/me", token=user["access_token"], json={"passkey_auth_enabled": False}).json()
    assert off["passkey_auth_enabled"] is False
    assert_known_error(authenticate(api, authenticator), "PASSKEY_AUTHENTICATION_FAILED", 400)


def test_a_replayed_sign_count_fails(api: Api, user: dict, passkeys_on: None) -> None:
    authenticator = Authenticator()
    assert register(api, user["access_token"], authenticator).status_code == 200
    assert authenticate(api, authenticator).status_code == 200
    authenticator.sign_count = 0  # a clone that still counts from the start
    body = assert_known_error(authenticate(api, authenticator), "PASSKEY_AUTHENTICATION_FAILED", 400)
    assert body["error"].startswith("Passkey authentication failed because the sign count did not increase")


def test_a_tampered_registration_fails(api: Api, user: dict, passkeys_on: None) -> None:
    started = api.call(
        "POST", "/auth/passkey/initiate-passkey-registration", token=user["access_token"], json={}
    ).json()
    credential = Authenticator().create({**started["options_json"], "challenge": b64url(os.urandom(32))})
    response = api.call(
        "POST",
        "/auth/passkey/register",
        token=user["access_token"],
        json={"credential": credential, "code": started["code"]},
    )
    body = assert_known_error(response, "PASSKEY_REGISTRATION_FAILED", 400)
    assert body["error"] == "Passkey registration failed because the verification response is invalid"


def test_registering_again_replaces_the_passkey(api: Api, user: dict, passkeys_on: None) -> None:
    first, second = Authenticator(), Authenticator()
    assert register(api, user["access_token"], first).status_code == 200
    assert register(api, user["access_token"], second).status_code == 200
    assert_known_error(authenticate(api, first), "PASSKEY_AUTHENTICATION_FAILED", 400)
    assert authenticate(api, second).json()["user_id"] == user["user_id"]


def test_another_users_credential_id_cannot_replace_their_passkey(api: Api, passkeys_on: None) -> None:
    """Credential ids are public (every sign-in sends one): an attacker who registers a key of
    their own under the victim's credential id must not delete the victim's passkey."""
    victim, attacker = api.sign_up(), api.sign_up()
    victims_key = Authenticator()
    assert register(api, victim["access_token"], victims_key).status_code == 200
    forged = Authenticator(credential_id=victims_key.credential_id)  # same id, the attacker's key
    body = assert_known_error(register(api, attacker["access_token"], forged), "PASSKEY_REGISTRATION_FAILED", 400)
    assert body["error"] == (
        "Passkey registration failed because this passkey is already registered to another account"
    )
    assert authenticate(api, victims_key).json()["user_id"] == victim["user_id"]
    assert_known_error(authenticate(api, forged), "PASSKEY_AUTHENTICATION_FAILED", 400)
    attacker_me = api.call("GET", "/users/me", token=attacker["access_token"]).json()
    assert attacker_me["passkey_auth_enabled"] is False


def test_registering_the_same_credential_again_replaces_ones_own(api: Api, user: dict, passkeys_on: None) -> None:
    authenticator = Authenticator()
    assert register(api, user["access_token"], authenticator).status_code == 200
    renewed = Authenticator(credential_id=authenticator.credential_id)  # the same id, a new key
    assert register(api, user["access_token"], renewed).status_code == 200
    assert authenticate(api, renewed).json()["user_id"] == user["user_id"]
    assert_known_error(authenticate(api, authenticator), "PASSKEY_AUTHENTICATION_FAILED", 400)


def _challenges(api: Api, token: str) -> list[str]:
    """The challenges of a registration and an authentication, each started twice."""
    out = []
    for _ in range(2):
        started = api.call("POST", "/auth/passkey/initiate-passkey-registration", token=token, json={})
        out.append(started.json()["options_json"]["challenge"])
        started = api.call("POST", "/auth/passkey/initiate-passkey-authentication", json={})
        out.append(started.json()["options_json"]["challenge"])
    return out


def test_challenges_are_random_by_default(api: Api, user: dict, passkeys_on: None) -> None:
    challenges = _challenges(api, user["access_token"])
    assert len(set(challenges)) == 4
    assert all(len(base64.urlsafe_b64decode(c + "==")) == 32 for c in challenges)
    assert b64url(b"MOCK") not in challenges


def test_the_fixed_challenge_switch_gives_the_backends_test_challenge(tmp_path: Path) -> None:
    """`fixed_passkey_challenge=True` (testing only) answers as backend 2.8.86 with
    STACK_ENABLE_HARDCODED_PASSKEY_CHALLENGE_FOR_TESTING: every challenge is the bytes of "MOCK",
    so a ceremony signed over it (as a recorded one is) registers and signs in."""
    with LocalService(tmp_path / "fixed", quiet=True, fixed_passkey_challenge=True) as service:
        api = Api.of(service)
        api.set_config(passkey_enabled=True)
        user = api.sign_up(unique_email())
        assert _challenges(api, user["access_token"]) == ["TU9DSw"] * 4
        authenticator = Authenticator()
        registered = register(api, user["access_token"], authenticator)
        assert registered.status_code == 200, registered.text
        signed_in = authenticate(api, authenticator)
        assert signed_in.status_code == 200, signed_in.text
        assert signed_in.json()["user_id"] == user["user_id"]
        # The ceremony is still checked: a signature over another challenge fails.
        started = api.call("POST", "/auth/passkey/initiate-passkey-authentication", json={}).json()
        answer = authenticator.get({"challenge": b64url(b"MOCK!")})
        response = api.call(
            "POST", "/auth/passkey/sign-in", json={"authentication_response": answer, "code": started["code"]}
        )
        assert_known_error(response, "PASSKEY_AUTHENTICATION_FAILED", 400)


WILDCARD_ORIGIN = "http://localhost:8103"


@pytest.mark.parametrize(
    ("pattern", "trusted"),
    [("http://*:8103", True), ("http://**host:8103", True), ("http://*:9000", False), ("https://*.example.com", False)],
)
def test_2_8_judges_the_origin_by_its_redirect_rule_with_wildcards(
    api_28: Api, config_28, pattern: str, trusted: bool
) -> None:
    """2.8.86 checks a passkey's origin as it checks a redirect URL: a wildcard domain matches
    (ports compared); with localhost not allowed, any other origin is refused."""
    config_28(passkey_enabled=True)
    user, newcomer = api_28.sign_up(unique_email()), api_28.sign_up(unique_email())
    authenticator = Authenticator()
    assert register(api_28, user["access_token"], authenticator, origin=WILDCARD_ORIGIN).status_code == 200
    config_28(allow_localhost=False, domains=[{"domain": pattern, "handler_path": "/"}])
    registered = register(api_28, newcomer["access_token"], Authenticator(), origin=WILDCARD_ORIGIN)
    signed_in = authenticate(api_28, authenticator, origin=WILDCARD_ORIGIN)
    if trusted:
        assert registered.status_code == 200, registered.text
        assert signed_in.json()["user_id"] == user["user_id"]
    else:
        body = assert_known_error(registered, "PASSKEY_REGISTRATION_FAILED", 400)
        assert body["error"] == "Passkey registration failed because the origin is not allowed"
        body = assert_known_error(signed_in, "PASSKEY_AUTHENTICATION_FAILED", 400)
        assert body["error"] == "Passkey authentication failed because the origin is not allowed"


@pytest.mark.parametrize(
    "client_data",
    [
        b"[" * 100_000 + b"]" * 100_000,  # nested deeper than Python's parser goes
        json.dumps({"type": "webauthn.create", "challenge": "x", "origin": "http://[::1"}).encode(),  # no URL
    ],
)
def test_hostile_client_data_is_a_failed_registration(
    api: Api, user: dict, passkeys_on: None, client_data: bytes
) -> None:
    # The attack: any signed-in user's registration with such client data was a 500.
    started = api.call("POST", "/auth/passkey/initiate-passkey-registration", token=user["access_token"], json={})
    credential = Authenticator().create(started.json()["options_json"])
    credential["response"]["clientDataJSON"] = b64url(client_data)
    body = {"credential": credential, "code": started.json()["code"]}
    answer = api.call("POST", "/auth/passkey/register", token=user["access_token"], json=body)
    assert_known_error(answer, "PASSKEY_REGISTRATION_FAILED", 400)
    # The control: the same user registers a real passkey afterwards.
    assert register(api, user["access_token"], Authenticator()).status_code == 200
