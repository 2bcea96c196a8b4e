"""The e-mail verification gate's building blocks over HTTP against the local service, in
both API versions: ``update_project(require_email_verification=...)`` and the server tier's
``restricted_by_admin`` (with its public and private reasons), sync and async; a 2.7 service,
which has neither, gets a clear error naming the version."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import deployment
import httpx
import pytest

from authmw import AdminApp, AsyncAdminApp, AsyncServerApp, ServerApp
from authmw.models import AdminProjectConfigUpdate


def _email() -> str:
    return f"gate-{uuid.uuid4().hex[:12]}@example.com"


def test_require_email_verification_restricts_unverified_users(service_28: Any) -> None:
    with AdminApp(service_28.config) as admin, ServerApp(service_28.config) as server:
        unverified = server.users.create(primary_email=_email(), primary_email_verified=False)
        verified = server.users.create(primary_email=_email(), primary_email_verified=True)
        try:
            admin.update_project(config=AdminProjectConfigUpdate(require_email_verification=True))
            user = server.users.get(unverified.id)
            assert user is not None and user.is_restricted and user.restricted_reason == "email_not_verified"
            other = server.users.get(verified.id)
            assert other is not None and not other.is_restricted and other.restricted_reason is None
            server.users.update(unverified.id, primary_email_verified=True)  # verifying lifts it
            assert server.users.get(unverified.id).restricted_reason is None  # type: ignore[union-attr]
            server.users.update(unverified.id, primary_email_verified=False)
        finally:
            admin.update_project(config={"require_email_verification": False})
        # control: with the setting off, the same unverified user is not restricted
        user = server.users.get(unverified.id)
        assert user is not None and not user.is_restricted


def test_require_email_verification_async(service_28: Any) -> None:
    async def run() -> None:
        async with AsyncAdminApp(service_28.config) as admin, AsyncServerApp(service_28.config) as server:
            user = await server.users.create(primary_email=_email())
            try:
                await admin.update_project(config={"require_email_verification": True})
                seen = await server.users.get(user.id)
                assert seen is not None and seen.restricted_reason == "email_not_verified"
            finally:
                await admin.update_project(config={"require_email_verification": False})
            seen = await server.users.get(user.id)
            assert seen is not None and not seen.is_restricted

    asyncio.run(run())


def test_a_2_7_service_gets_a_clear_error_for_the_setting(service_27: Any) -> None:
    with AdminApp(service_27.config) as admin:
        with pytest.raises(ValueError, match=r"require_email_verification: only API 2.8 .* speaks API 2.7"):
            admin.update_project(config={"require_email_verification": True})
        # control: a setting 2.7 has still changes
        name = admin.get_project().display_name
        assert admin.update_project(display_name=name + " (gate)").display_name == name + " (gate)"
        admin.update_project(display_name=name)


def test_restricted_by_admin_with_reasons(service_28: Any) -> None:
    with ServerApp(service_28.config) as server:
        user = server.users.create(
            primary_email=_email(),
            primary_email_verified=True,
            restricted_by_admin=True,
            restricted_by_admin_reason="Your account is under review.",
            restricted_by_admin_private_details="chargeback 2026-11",
        )
        assert user.is_restricted and user.restricted_reason == "restricted_by_administrator"
        assert user.restricted_by_admin_reason == "Your account is under review."
        assert user.restricted_by_admin_private_details == "chargeback 2026-11"
        # the client tier sees the public reason only
        session = server.sessions.create(user.id)
        headers = {
            **deployment.client_headers(service_28.running),
            "x-stack-access-token": session.access_token,
            "x-stack-allow-anonymous-user": "true",  # the client tier admits restricted users only so
        }
        client_view = httpx.get(f"{service_28.url}/api/v1/users/me", headers=headers).json()
        assert client_view["restricted_by_admin_reason"] == "Your account is under review."
        assert "restricted_by_admin_private_details" not in client_view

        changed = server.users.update(user.id, restricted_by_admin=True, restricted_by_admin_reason="Still under review.")
        assert changed.restricted_by_admin_reason == "Still under review."
        lifted = server.users.update(user.id, restricted_by_admin=False)
        assert not lifted.is_restricted and lifted.restricted_by_admin_reason is None
        assert lifted.restricted_by_admin_private_details is None
        restricted_again = server.users.update(user.id, restricted_by_admin=True)
        assert restricted_again.restricted_reason == "restricted_by_administrator"
        assert restricted_again.restricted_by_admin_reason is None


def test_restricted_by_admin_async(service_28: Any) -> None:
    async def run() -> None:
        async with AsyncServerApp(service_28.config) as server:
            user = await server.users.create(primary_email=_email(), restricted_by_admin=True)
            assert user.restricted_by_admin and user.restricted_reason == "restricted_by_administrator"
            lifted = await server.users.update(user.id, restricted_by_admin=False)
            assert not lifted.is_restricted

    asyncio.run(run())


def test_a_reason_without_the_restriction_is_refused_before_any_call(service_28: Any) -> None:
    with ServerApp(service_28.config) as server:
        user = server.users.create(primary_email=_email(), restricted_by_admin=True)
        with pytest.raises(ValueError, match="restricted_by_admin_reason needs restricted_by_admin=True"):
            server.users.update(user.id, restricted_by_admin_reason="why")
        with pytest.raises(ValueError, match="restricted_by_admin_private_details needs"):
            server.users.create(primary_email=_email(), restricted_by_admin_private_details="x")
        # control: None clears a reason without restricting anyone
        assert server.users.update(user.id, restricted_by_admin_reason=None).restricted_by_admin


def test_a_2_7_service_has_no_restricted_users(service_27: Any) -> None:
    with ServerApp(service_27.config) as server:
        with pytest.raises(ValueError, match="only API 2.8 has restricted users"):
            server.users.create(primary_email=_email(), restricted_by_admin=True)
        user = server.users.create(primary_email=_email())  # control: the same call without it
        with pytest.raises(ValueError, match="speaks API 2.7"):
            server.users.update(user.id, restricted_by_admin=False)
        assert server.users.update(user.id, display_name="Ada").display_name == "Ada"
