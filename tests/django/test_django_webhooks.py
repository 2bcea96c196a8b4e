"""authmw_django.webhook_view through Django's test client, with CSRF checks enforced: a
signed delivery runs its handler once, a retry does not run it again, attacks are refused."""

from __future__ import annotations

import base64
import json
import os
from datetime import datetime, timezone
from typing import Any

import pytest
from django.test import Client, override_settings
from django.urls import path
from svix.webhooks import Webhook as SvixWebhook

from authmw.webhooks import MemorySeenIds, UserUpdated, Webhooks
from authmw_django import webhook_view

SECRET = "whsec_" + base64.b64encode(os.urandom(24)).decode()
NOW = 1_790_000_000.0
CLOCK = [NOW]
RAN: list[str] = []
FAIL: list[Exception] = []

webhooks = Webhooks(SECRET, seen_ids=MemorySeenIds(clock=lambda: CLOCK[0]), clock=lambda: CLOCK[0])


@webhooks.on("user.updated")
def updated(event: UserUpdated) -> None:
    if FAIL:
        raise FAIL.pop()
    RAN.append(f"{event.id}:{event.data.primary_email}")


urlpatterns = [path("webhooks/authmw", webhook_view(webhooks))]


def delivery(data: dict[str, Any], *, msg_id: str = "msg_1", secret: str = SECRET, at: float = NOW) -> tuple[bytes, dict[str, str]]:
    body = json.dumps({"type": "user.updated", "data": data}).encode()
    signature = SvixWebhook(secret).sign(msg_id, datetime.fromtimestamp(at, tz=timezone.utc), body.decode())
    return body, {"svix-id": msg_id, "svix-timestamp": str(int(at)), "svix-signature": signature}


USER = {"id": "u1", "primary_email": "ada@example.com", "primary_email_verified": True}


@pytest.fixture
def client() -> Any:
    RAN.clear()
    FAIL.clear()
    CLOCK[0] = NOW
    webhooks.seen_ids = MemorySeenIds(clock=lambda: CLOCK[0])
    with override_settings(
        ROOT_URLCONF=__name__,
        MIDDLEWARE=["django.middleware.csrf.CsrfViewMiddleware"],
    ):
        yield Client(enforce_csrf_checks=True)


def post(client: Client, body: bytes, headers: dict[str, str]) -> Any:
    return client.post("/webhooks/authmw", data=body, content_type="application/json", headers=headers)


def test_signed_delivery_runs_once_without_a_csrf_token(client: Client) -> None:
    body, headers = delivery(USER)
    assert post(client, body, headers).status_code == 200
    CLOCK[0] = NOW + 120
    retry_body, retry_headers = delivery(USER, at=CLOCK[0])
    assert post(client, retry_body, retry_headers).status_code == 200
    assert RAN == ["msg_1:ada@example.com"]


def test_attacks_are_refused_and_change_nothing(client: Client) -> None:
    body, headers = delivery(USER)
    assert post(client, body.replace(b"ada@", b"eve@"), headers).status_code == 401
    assert post(client, *delivery(USER, secret="whsec_" + base64.b64encode(b"x" * 24).decode())).status_code == 401
    assert post(client, *delivery(USER, at=NOW - 400)).status_code == 401
    assert post(client, body, {}).status_code == 400
    assert client.get("/webhooks/authmw").status_code == 405
    assert RAN == []
    assert post(client, body, headers).status_code == 200 and RAN == ["msg_1:ada@example.com"]  # control


def test_a_failing_handler_answers_500_and_the_retry_is_handled(client: Client) -> None:
    FAIL.append(RuntimeError("database locked"))
    body, headers = delivery(USER)
    response = post(client, body, headers)
    assert response.status_code == 500 and b"database locked" not in response.content and RAN == []
    assert post(client, body, headers).status_code == 200 and RAN == ["msg_1:ada@example.com"]
