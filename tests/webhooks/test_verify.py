"""authmw.webhooks.verify: signatures made by Svix's own library verify, authmw's signatures
verify with Svix's library, and every attack is refused with one InvalidWebhook reason."""

from __future__ import annotations

import base64
import json
import os
import time
from datetime import datetime, timezone

import pytest
from svix.webhooks import Webhook as SvixWebhook, WebhookVerificationError

from authmw import webhooks
from authmw.webhooks import (
    EVENT_TYPES,
    InvalidWebhook,
    MemorySeenIds,
    ProjectPermissionCreated,
    TeamCreated,
    TeamMembershipDeleted,
    TeamPermissionCreated,
    UnknownEvent,
    UserCreated,
    UserDeleted,
    verify,
)

SECRET = "whsec_" + base64.b64encode(os.urandom(24)).decode()
OTHER_SECRET = "whsec_" + base64.b64encode(os.urandom(24)).decode()
NOW = 1_790_000_000.0

USER = {
    "id": "1b2c3d4e-0000-4000-8000-000000000001",
    "display_name": "Ada",
    "primary_email": "ada@example.com",
    "primary_email_verified": True,
    "profile_image_url": None,
    "signed_up_at_millis": 1_789_000_000_000,
    "client_metadata": None,
    "client_read_only_metadata": None,
    "server_metadata": {"plan": "pro"},
    "has_password": True,
    "auth_with_email": True,
    "otp_auth_enabled": False,
    "passkey_auth_enabled": False,
    "requires_totp_mfa": False,
    "oauth_providers": [],
    "selected_team_id": None,
    "selected_team": None,
    "last_active_at_millis": 1_789_000_000_000,
    "primary_email_auth_enabled": True,
    "is_anonymous": False,
    "is_restricted": False,
    "restricted_reason": None,
}
TEAM = {
    "id": "7e000000-0000-4000-8000-000000000002",
    "display_name": "Lab",
    "profile_image_url": None,
    "client_metadata": None,
    "client_read_only_metadata": None,
    "server_metadata": None,
    "created_at_millis": 1_789_000_000_000,
}

PAYLOADS = {
    "user.created": USER,
    "user.updated": USER,
    "user.deleted": {"id": USER["id"], "teams": [{"id": TEAM["id"]}]},
    "team.created": TEAM,
    "team.updated": TEAM,
    "team.deleted": {"id": TEAM["id"]},
    "team_membership.created": {"team_id": TEAM["id"], "user_id": USER["id"]},
    "team_membership.deleted": {"team_id": TEAM["id"], "user_id": USER["id"]},
    "team_permission.created": {"id": "team_member", "team_id": TEAM["id"], "user_id": USER["id"]},
    "team_permission.deleted": {"id": "team_member", "team_id": TEAM["id"], "user_id": USER["id"]},
    "project_permission.created": {"id": "read_reports", "user_id": USER["id"]},
    "project_permission.deleted": {"id": "read_reports", "user_id": USER["id"]},
}


def body_of(event_type: str, data: object = None) -> bytes:
    return json.dumps({"type": event_type, "data": PAYLOADS[event_type] if data is None else data}).encode()


def svix_headers(body: bytes, secret: str = SECRET, msg_id: str = "msg_1", timestamp: float = NOW) -> dict[str, str]:
    """Headers signed by Svix's own library (the peer implementation)."""
    signature = SvixWebhook(secret).sign(msg_id, datetime.fromtimestamp(timestamp, tz=timezone.utc), body.decode())
    return {"svix-id": msg_id, "svix-timestamp": str(int(timestamp)), "svix-signature": signature}


def check(body: bytes, headers: dict[str, str], *, now: float = NOW, seen: MemorySeenIds | None = None):  # type: ignore[no-untyped-def]
    return verify(body, headers, SECRET, seen_ids=seen if seen is not None else MemorySeenIds(), clock=lambda: now)


def test_the_contract_types_are_all_known() -> None:
    assert set(EVENT_TYPES) == set(PAYLOADS)


@pytest.mark.parametrize("event_type", sorted(PAYLOADS))
def test_a_svix_signed_event_of_every_type_verifies_to_its_class(event_type: str) -> None:
    body = body_of(event_type)
    event = check(body, svix_headers(body))
    assert type(event) is EVENT_TYPES[event_type]
    assert event.type == event_type and event.id == "msg_1"
    assert event.timestamp == datetime.fromtimestamp(NOW, tz=timezone.utc)


def test_typed_fields() -> None:
    created = check(body_of("user.created"), svix_headers(body_of("user.created")))
    assert isinstance(created, UserCreated)
    assert created.data.primary_email == "ada@example.com" and created.data.server_metadata == {"plan": "pro"}
    deleted = check(body_of("user.deleted"), svix_headers(body_of("user.deleted")))
    assert isinstance(deleted, UserDeleted) and [t.id for t in deleted.data.teams] == [TEAM["id"]]
    team = check(body_of("team.created"), svix_headers(body_of("team.created")))
    assert isinstance(team, TeamCreated) and team.data.display_name == "Lab"
    gone = check(body_of("team_membership.deleted"), svix_headers(body_of("team_membership.deleted")))
    assert isinstance(gone, TeamMembershipDeleted) and gone.data.user_id == USER["id"]
    grant = check(body_of("team_permission.created"), svix_headers(body_of("team_permission.created")))
    assert isinstance(grant, TeamPermissionCreated) and grant.data.id == "team_member"
    project = check(body_of("project_permission.created"), svix_headers(body_of("project_permission.created")))
    assert isinstance(project, ProjectPermissionCreated) and project.data.id == "read_reports"


def test_an_unknown_type_is_a_generic_event_not_a_crash() -> None:
    body = json.dumps({"type": "api_key.created", "data": {"id": "k1", "extra": [1]}}).encode()
    event = check(body, svix_headers(body))
    assert isinstance(event, UnknownEvent)
    assert event.type == "api_key.created" and event.data == {"id": "k1", "extra": [1]}


def test_authmw_signatures_verify_with_svix_library() -> None:
    body = body_of("user.deleted")
    now = time.time()  # Svix's library reads the real clock; five minutes of tolerance either way
    headers = webhooks.sign(body, SECRET, msg_id="msg_authmw", timestamp=now)
    SvixWebhook(SECRET).verify(body, headers)
    with pytest.raises(WebhookVerificationError):
        SvixWebhook(OTHER_SECRET).verify(body, headers)
    with pytest.raises(WebhookVerificationError):
        SvixWebhook(SECRET).verify(body.replace(b"user.deleted", b"user.created"), headers)


def test_svix_documented_test_vector() -> None:
    # The example of Svix's verification documentation (a fixed secret, id, time and body)
    headers = {
        "svix-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
        "svix-timestamp": "1614265330",
        "svix-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
    }
    body = b'{"test": 2432232314}'
    with pytest.raises(InvalidWebhook) as caught:  # signed, but not {"type", "data"}
        verify(body, headers, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", seen_ids=None, clock=lambda: 1614265330)
    assert caught.value.reason == "malformed"
    with pytest.raises(InvalidWebhook) as wrong:
        verify(body + b" ", headers, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", seen_ids=None, clock=lambda: 1614265330)
    assert wrong.value.reason == "signature"


def test_webhook_prefixed_headers_and_several_signature_entries() -> None:
    body = body_of("team.deleted")
    good = svix_headers(body)
    headers = {
        "Webhook-Id": good["svix-id"],
        "Webhook-Timestamp": good["svix-timestamp"],
        # a rotated old secret's entry, a future version, then the current one
        "Webhook-Signature": f"{svix_headers(body, OTHER_SECRET)['svix-signature']} v2,abc {good['svix-signature']}",
    }
    assert check(body, headers).type == "team.deleted"


def reason(body: bytes, headers: dict[str, str], **kwargs: object) -> str:
    with pytest.raises(InvalidWebhook) as caught:
        check(body, headers, **kwargs)  # type: ignore[arg-type]
    assert SECRET not in str(caught.value) and body.decode() not in str(caught.value)
    return caught.value.reason


def test_tampered_body_is_refused() -> None:
    body = body_of("project_permission.created")
    headers = svix_headers(body)
    assert reason(body.replace(b"read_reports", b"admin_everything"), headers) == "signature"
    assert check(body, headers).type == "project_permission.created"  # control


def test_wrong_secret_is_refused() -> None:
    body = body_of("user.deleted")
    assert reason(body, svix_headers(body, OTHER_SECRET)) == "signature"


def test_changed_id_or_timestamp_breaks_the_signature() -> None:
    body = body_of("user.deleted")
    headers = svix_headers(body)
    assert reason(body, {**headers, "svix-id": "msg_2"}) == "signature"
    assert reason(body, {**headers, "svix-timestamp": str(int(NOW) + 1)}, now=NOW) == "signature"


def test_stale_and_future_timestamps_are_refused_within_tolerance_accepted() -> None:
    body = body_of("user.deleted")
    headers = svix_headers(body)
    assert reason(body, headers, now=NOW + 301) == "stale"
    assert reason(body, headers, now=NOW - 301) == "future"
    assert check(body, headers, now=NOW + 300).type == "user.deleted"
    assert check(body, headers, now=NOW - 300).type == "user.deleted"


def test_a_replayed_id_is_refused_until_its_timestamp_could_not_pass_anyway() -> None:
    clock = [NOW]
    seen = MemorySeenIds(clock=lambda: clock[0])
    body = body_of("team_membership.created")
    headers = svix_headers(body)
    assert check(body, headers, seen=seen).id == "msg_1"
    assert reason(body, headers, seen=seen) == "replayed"
    clock[0] = NOW + 299  # still within the timestamp's tolerance: still refused
    assert reason(body, headers, seen=seen, now=clock[0]) == "replayed"
    assert check(body, svix_headers(body, msg_id="msg_other"), seen=seen).id == "msg_other"  # control


def test_missing_or_malformed_headers() -> None:
    body = body_of("user.deleted")
    headers = svix_headers(body)
    for name in headers:
        assert reason(body, {k: v for k, v in headers.items() if k != name}) == "headers"
    assert reason(body, {**headers, "svix-timestamp": "soon"}) == "headers"
    assert reason(body, {**headers, "svix-signature": "v1"}) == "signature"
    assert reason(body, {**headers, "svix-signature": "v1,!!!"}) == "signature"


def test_a_timestamp_int_refuses_is_a_malformed_header_not_an_error() -> None:
    """Attack (issue 38 item 4): '²' passes str.isdigit and int() raises; 4,301 digits pass
    it and int() raises too. Each was an uncaught ValueError (a 500 from every receiver)."""
    body = body_of("user.deleted")
    headers = svix_headers(body)
    for value in ("\u00b2", "1\u00b2", "\u0661\u0662", "9" * 4301, "1" * 13, ""):
        assert reason(body, {**headers, "svix-timestamp": value}) == "headers"
    assert check(body, headers).type == "user.deleted"  # control: the real timestamp still passes


def test_malformed_signed_bodies() -> None:
    for body in (
        b"not json",
        b"[]",
        b'{"type": "user.deleted"}',
        json.dumps({"type": "user.deleted", "data": {}}).encode(),
    ):
        assert reason(body, svix_headers(body)) == "malformed"


def test_a_bad_secret_is_a_configuration_error() -> None:
    for secret in ("", "whsec_", "sk_live_abc", "whsec_not base64!"):
        with pytest.raises(ValueError, match="whsec_"):
            verify(b"{}", {}, secret)


def test_a_body_over_max_body_bytes_is_refused_before_its_signature_is_computed() -> None:
    body = body_of("team.deleted", {"id": TEAM["id"]})
    padded = body + b" " * (webhooks.MAX_BODY_BYTES + 1 - len(body))  # signed, valid JSON, one byte too many
    with pytest.raises(InvalidWebhook) as refused:
        verify(padded, svix_headers(padded), SECRET, seen_ids=None, clock=lambda: NOW)
    assert refused.value.reason == "too_large" and "too_large" in InvalidWebhook.REASONS
    with pytest.raises(InvalidWebhook, match="larger than 10 bytes"):  # a str counts its UTF-8 bytes
        verify("é" * 6, svix_headers(b"x"), SECRET, seen_ids=None, clock=lambda: NOW, max_body_bytes=10)
    event = verify(padded, svix_headers(padded), SECRET, seen_ids=None, clock=lambda: NOW, max_body_bytes=len(padded))
    assert event.type == "team.deleted"  # control: a raised limit takes it
