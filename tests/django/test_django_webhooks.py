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

from authmw.webhooks import MAX_BODY_BYTES, MemorySeenIds, UserUpdated, Webhooks
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


def delivery(
    data: dict[str, Any], *, msg_id: str = "msg_1", secret: str = SECRET, at: float = NOW
) -> tuple[bytes, dict[str, str]]:
    body = json.dumps({"type": "user.updated", "data": data}).encode()
    signature = SvixWebhook(secret).sign(msg_id, datetime.fromtimestamp(at, tz=timezone.utc), body.decode())
    return body, {"svix-id": msg_id, "svix-timestamp": str(int(at)), "svix-signature": signature}


def loop_config(running: Any) -> Any:
    """Every key of the loop's local service project (tests/webhook_loop.py)."""
    from authmw import AuthConfig

    return AuthConfig(
        project_id=running.project_id,
        api_url=running.url,
        publishable_client_key=running.publishable_client_key,
        secret_server_key=running.secret_server_key,
        super_secret_admin_key=running.super_secret_admin_key,
    )


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


def test_a_body_over_the_limit_is_refused_with_413_before_it_is_read(client: Client) -> None:
    """Attack: a huge body to fill the receiver's memory (Django's own 2.5 MB cap is a setting
    an app may lift); the limit holds even for a correctly signed body."""

    def signed(size: int, msg_id: str) -> tuple[bytes, dict[str, str]]:
        body = json.dumps({"type": "user.updated", "data": USER}).encode()
        body += b" " * (size - len(body))  # JSON may end in whitespace; the signature covers it
        when = datetime.fromtimestamp(NOW, tz=timezone.utc)
        return body, {"svix-id": msg_id, "svix-timestamp": str(int(NOW)), "svix-signature": SvixWebhook(SECRET).sign(msg_id, when, body.decode())}

    with override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=None):
        response = post(client, *signed(MAX_BODY_BYTES + 1, "msg_big"))
        assert response.status_code == 413 and response.json()["error"] == "too_large" and RAN == []
        assert post(client, *signed(MAX_BODY_BYTES, "msg_ok")).status_code == 200  # control: at the limit
    assert RAN == ["msg_ok:ada@example.com"]


def test_a_failing_handler_answers_500_and_the_retry_is_handled(client: Client) -> None:
    FAIL.append(RuntimeError("database locked"))
    body, headers = delivery(USER)
    response = post(client, body, headers)
    assert response.status_code == 500 and b"database locked" not in response.content and RAN == []
    assert post(client, body, headers).status_code == 200 and RAN == ["msg_1:ada@example.com"]


def test_the_whole_loop_with_a_django_app_on_a_socket(tmp_path: Any) -> None:
    """The local service's changes POSTed, signed, to Django (WSGIHandler on Werkzeug), with
    CSRF checks on: handlers run once, retries and attacks change nothing (tests/webhook_loop.py)."""
    from types import ModuleType

    from django.core.handlers.wsgi import WSGIHandler
    from webhook_loop import Loop, Received, run_the_loop, serve_wsgi, wsgi_recording

    loop = Loop(tmp_path)
    received = Received()
    urls = ModuleType("webhook_loop_urls")
    urls.urlpatterns = [path("webhooks/authmw", webhook_view(received.make_webhooks(loop.clock)))]  # type: ignore[attr-defined]
    try:
        csrf_only = ["django.middleware.csrf.CsrfViewMiddleware"]
        with (
            override_settings(ROOT_URLCONF=urls, MIDDLEWARE=csrf_only),
            serve_wsgi(wsgi_recording(WSGIHandler(), received)) as url,
        ):
            run_the_loop(loop, url, received)
    finally:
        loop.close()


@pytest.mark.usefixtures("database")
@pytest.mark.parametrize("on_delete", ["deactivate", "delete"])
def test_linked_django_users_follow_the_service(tmp_path: Any, make_site: Any, on_delete: str) -> None:
    """Django users mode: a name changed at the service reaches the linked Django user; a user
    deleted at the service is deactivated (or deleted) here and no longer signed in, found by
    the link to its authmw id (the webhooks travel over HTTP from the local service)."""
    from types import ModuleType

    import authmw_django_testsite
    from django.contrib.auth import get_user_model
    from django.core.handlers.wsgi import WSGIHandler
    from middleware.support import cookie_header
    from webhook_loop import SECRET as LOOP_SECRET, Loop, Received, serve_wsgi, wsgi_recording

    from authmw import ServerApp
    from authmw_django.webhooks import keep_linked_users

    loop = Loop(tmp_path)
    try:
        running = loop.service
        config = loop_config(running)
        received = Received()
        server = ServerApp(config)
        hooks = keep_linked_users(Webhooks(LOOP_SECRET, clock=loop.clock), on_delete=on_delete, server=server)
        hooks.on("*")(received.handler)  # after the linked-user handlers: tells the test they ran
        urls = ModuleType("linked_webhook_urls")
        urls.urlpatterns = [*authmw_django_testsite.urlpatterns, path("webhooks/authmw", webhook_view(hooks))]  # type: ignore[attr-defined]
        ada = server.users.create(primary_email=f"ada-{on_delete}@example.com", primary_email_auth_enabled=True)
        session = server.sessions.create(ada.id)
        middleware = [
            "django.contrib.sessions.middleware.SessionMiddleware",
            "django.contrib.auth.middleware.AuthenticationMiddleware",
            "authmw_django.AuthMiddleware",
        ]
        with override_settings(ROOT_URLCONF=urls):
            client = make_site(config).client(middleware=middleware, DJANGO_USERS=True)
            client.cookies.load(cookie_header(running.project_id, session.refresh_token, session.access_token))
            first = client.get("/linked/whoami").json()
            assert first["authenticated"] is True and first["authmw_id"] == ada.id
            with override_settings(MIDDLEWARE=["django.middleware.csrf.CsrfViewMiddleware"]):
                app = WSGIHandler()
            with serve_wsgi(wsgi_recording(app, received)) as url:
                running.add_webhook(url + "/webhooks/authmw", LOOP_SECRET)
                server.users.update(ada.id, display_name="Ada Lovelace")
                received.wait(lambda: any(e.type == "user.updated" for e in received.handled), "user.updated")
                django_user = get_user_model().objects.get(pk=first["django_id"])
                assert (django_user.first_name, django_user.last_name) == ("Ada", "Lovelace")

                server.users.delete(ada.id)
                received.wait(lambda: any(e.type == "user.deleted" for e in received.handled), "user.deleted")
            remaining = get_user_model().objects.filter(pk=first["django_id"])
            if on_delete == "delete":
                assert not remaining.exists()
            else:
                assert remaining.get().is_active is False
            assert client.get("/linked/whoami").json()["authenticated"] is False  # Django's session too
    finally:
        loop.close()


@pytest.mark.usefixtures("database")
def test_linked_staff_flag_follows_team_changes_between_sign_ins(tmp_path: Any, make_site: Any) -> None:
    """STAFF_PERMISSION under webhooks: a permission revoked at the service takes the Django
    admin away without a new sign-in; granted again, it comes back; the team deleted, it goes
    (the service sends no membership events then). A user with nothing to do with the team
    keeps their flag (the control)."""
    from types import ModuleType

    import authmw_django_testsite
    from django.contrib.auth import get_user_model
    from django.core.handlers.wsgi import WSGIHandler
    from middleware.support import cookie_header
    from webhook_loop import SECRET as LOOP_SECRET, Loop, Received, serve_wsgi, wsgi_recording

    from authmw import AdminApp, ServerApp
    from authmw_django.webhooks import keep_linked_users

    loop = Loop(tmp_path)
    try:
        running = loop.service
        config = loop_config(running)
        server = ServerApp(config)
        AdminApp(config).permission_definitions.create("staff")
        received = Received()
        urls = ModuleType("flag_webhook_urls")
        urls.urlpatterns = [*authmw_django_testsite.urlpatterns]  # type: ignore[attr-defined]
        middleware = [
            "django.contrib.sessions.middleware.SessionMiddleware",
            "django.contrib.auth.middleware.AuthenticationMiddleware",
            "authmw_django.AuthMiddleware",
        ]

        def signed_in(user_id: str) -> int:
            client = make_site(config).client(middleware=middleware, DJANGO_USERS=True, STAFF_PERMISSION="staff")
            session = server.sessions.create(user_id)
            client.cookies.load(cookie_header(running.project_id, session.refresh_token, session.access_token))
            who = client.get("/linked/whoami").json()
            assert who["authenticated"] is True
            return int(who["django_id"])

        staff_team = server.teams.create(display_name="Staff")
        other_team = server.teams.create(display_name="Others")
        ada = server.users.create(primary_email="ada-flags@example.com", primary_email_auth_enabled=True)
        bob = server.users.create(primary_email="bob-flags@example.com", primary_email_auth_enabled=True)
        for user, team in ((ada, staff_team), (bob, other_team)):
            server.teams.add_member(team.id, user.id)
            server.team_permissions.grant(team.id, user.id, "staff")
        with override_settings(ROOT_URLCONF=urls):
            ada_pk, bob_pk = signed_in(ada.id), signed_in(bob.id)
        is_staff = lambda pk: get_user_model().objects.get(pk=pk).is_staff  # noqa: E731
        assert is_staff(ada_pk) and is_staff(bob_pk)

        from authmw_django._linked import LinkedUsers, PermissionRule

        hooks = keep_linked_users(
            Webhooks(LOOP_SECRET, clock=loop.clock), server=server, rules=LinkedUsers(staff=PermissionRule("staff"))
        )
        hooks.on("*")(received.handler)  # after the linked-user handlers: tells the test they ran
        urls.urlpatterns.append(path("webhooks/authmw", webhook_view(hooks)))  # type: ignore[attr-defined]
        with (
            override_settings(ROOT_URLCONF=urls, MIDDLEWARE=["django.middleware.csrf.CsrfViewMiddleware"]),
            serve_wsgi(wsgi_recording(WSGIHandler(), received)) as url,
        ):
            running.add_webhook(url + "/webhooks/authmw", LOOP_SECRET)

            def after(event_type: str) -> None:
                received.wait(lambda: any(e.type == event_type for e in received.handled[seen:]), event_type)

            seen = len(received.handled)
            server.team_permissions.revoke(staff_team.id, ada.id, "staff")
            after("team_permission.deleted")
            assert not is_staff(ada_pk) and is_staff(bob_pk)

            seen = len(received.handled)
            server.team_permissions.grant(staff_team.id, ada.id, "staff")
            after("team_permission.created")
            assert is_staff(ada_pk)

            seen = len(received.handled)
            server.teams.delete(staff_team.id)
            after("team.deleted")
            assert not is_staff(ada_pk) and is_staff(bob_pk)
    finally:
        loop.close()


@pytest.mark.usefixtures("database")
def test_the_database_store_is_shared_by_every_worker(client: Client) -> None:
    """DatabaseSeenIds: two workers (two Webhooks, each with its own store object over one
    table) never both run a message; a handler failure lets the retry run; ids expire."""
    from authmw_django.models import SeenWebhookMessage
    from authmw_django.webhooks import DatabaseSeenIds

    SeenWebhookMessage.objects.all().delete()
    worker_a = DatabaseSeenIds(clock=lambda: CLOCK[0])
    worker_b = DatabaseSeenIds(clock=lambda: CLOCK[0])
    assert worker_a.add("msg_x", 60) is True
    assert worker_b.add("msg_x", 60) is False  # the other process already has it
    worker_b.discard("msg_x")
    assert worker_a.add("msg_x", 60) is True  # forgotten: handled again
    CLOCK[0] = NOW + 61
    assert worker_b.add("msg_x", 60) is True  # expired, and cleaned up on the way
    assert SeenWebhookMessage.objects.count() == 1

    webhooks.seen_ids = worker_a
    body, headers = delivery(USER, msg_id="msg_db")
    CLOCK[0] = NOW
    assert post(client, body, headers).status_code == 200
    webhooks.seen_ids = worker_b  # the same request reaching the other worker
    assert post(client, body, headers).status_code == 401
    CLOCK[0] = NOW + 120
    assert post(client, *delivery(USER, msg_id="msg_db", at=CLOCK[0])).status_code == 200  # a retry: acknowledged
    assert RAN == ["msg_db:ada@example.com"]
    assert "secret" not in repr(worker_a).lower()
