"""Linked Django users: request.user is a real AUTH_USER_MODEL user linked to the authmw user, so
foreign keys, login_required, has_perm and the admin keep working (AUTHMW["DJANGO_USERS"])."""

from __future__ import annotations

import io
import json
import uuid
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.test import Client, override_settings
from middleware.support import cookie_header

from authmw import AdminApp, ClientApp, ServerApp

LINKED_MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "authmw_django.AuthMiddleware",
]

pytestmark = pytest.mark.usefixtures("database")


@pytest.fixture
def linked(site: Any) -> Any:
    """A Django test client of a site with linked users (staff from the `staff` permission)."""

    def make(**options: Any) -> Client:
        return site.client(middleware=LINKED_MIDDLEWARE, DJANGO_USERS=True, STAFF_PERMISSION="staff", **options)

    return make


def with_session(client: Client, local_service: Any, session: Any) -> Client:
    client.cookies.load(cookie_header(local_service.project_id, session.refresh_token, session.access_token))
    return client


def verified_sign_up(local_service: Any) -> Any:
    s = local_service.sign_up()
    ServerApp(local_service.config).users.update(s.user_id, primary_email_verified=True)  # the e-mailed link, clicked
    return s


def test_first_sign_in_creates_and_links_a_django_user_kept_in_django_session(linked, local_service) -> None:
    from authmw_django.models import AuthmwUserLink

    s = verified_sign_up(local_service)
    client = with_session(linked(), local_service, s)
    first = client.get("/linked/whoami").json()
    assert first["authenticated"] is True
    assert first["authmw_id"] == first["linked_to"] == s.user_id
    assert first["email"] == first["username"] == s.email
    assert AuthmwUserLink.objects.get(authmw_user_id=s.user_id).user_id == first["django_id"]
    assert "sessionid" in client.cookies  # Django's own session now holds the user
    # later requests: the same Django user, no second user made
    assert client.get("/linked/whoami").json()["django_id"] == first["django_id"]
    assert get_user_model().objects.filter(email=s.email).count() == 1


def test_foreign_keys_login_required_and_has_perm_work(linked, local_service) -> None:
    anonymous = linked().get("/linked/notes")
    assert anonymous.status_code == 302 and "/login/" in anonymous["location"]
    s = local_service.sign_up()
    client = with_session(linked(), local_service, s)
    assert client.get("/linked/notes").json() == {"notes": 1, "has_perm": False}
    assert client.get("/linked/notes").json()["notes"] == 2


def test_profile_is_kept_in_step_on_the_next_sign_in(linked, local_service) -> None:
    s = local_service.sign_up()
    client = with_session(linked(), local_service, s)
    assert client.get("/linked/whoami").json()["name"] == ["", ""]
    ServerApp(local_service.config).users.update(s.user_id, display_name="Ada Lovelace")
    again = ServerApp(local_service.config).sessions.create(s.user_id)  # a new sign-in
    fresh = with_session(linked(), local_service, again)
    assert fresh.get("/linked/whoami").json()["name"] == ["Ada", "Lovelace"]


def grant_staff(local_service: Any, user_id: str) -> None:
    admin = AdminApp(local_service.config)
    if not any(d.id == "staff" for d in admin.permission_definitions.list()):
        admin.permission_definitions.create("staff")
    server = ServerApp(local_service.config)
    team = server.teams.create(display_name=f"staff-{uuid.uuid4().hex[:6]}")
    server.teams.add_member(team.id, user_id)
    server.team_permissions.grant(team.id, user_id, "staff")


def test_the_admin_opens_for_staff_and_sends_others_to_the_authmw_sign_in(linked, local_service) -> None:
    outsider = local_service.sign_up()
    refused = with_session(linked(), local_service, outsider).get("/admin/")
    assert refused.status_code == 302
    login = with_session(linked(), local_service, outsider).get(refused["location"])
    assert login.status_code == 302
    assert login["location"] == "/handler/sign-in?after_auth_return_to=%2Fadmin%2F"

    staff = local_service.sign_up()
    grant_staff(local_service, staff.user_id)
    client = with_session(linked(), local_service, staff)
    assert client.get("/linked/whoami").json()["staff"] is True
    assert client.get("/admin/").status_code == 200

    # re-checked on each sign-in: without the permission, the next sign-in is not staff
    server = ServerApp(local_service.config)
    for team in server.teams.list(user_id=staff.user_id):
        server.team_permissions.revoke(team.id, staff.user_id, "staff")
    later = with_session(linked(SUPERUSER_PERMISSION="staff"), local_service, server.sessions.create(staff.user_id))
    assert later.get("/linked/whoami").json()["staff"] is False
    assert later.get("/admin/").status_code == 302


def test_superuser_from_a_permission_in_one_named_team(linked, local_service) -> None:
    s = local_service.sign_up()
    grant_staff(local_service, s.user_id)
    (team,) = ServerApp(local_service.config).teams.list(user_id=s.user_id)
    rule = {"team": team.id, "permission": "staff"}
    client = with_session(linked(SUPERUSER_PERMISSION=rule), local_service, s)
    assert client.get("/linked/whoami").json()["superuser"] is True
    other_team = {"team": str(uuid.uuid4()), "permission": "staff"}
    again = ServerApp(local_service.config).sessions.create(s.user_id)
    assert (
        with_session(linked(SUPERUSER_PERMISSION=other_team), local_service, again)
        .get("/linked/whoami")
        .json()["superuser"]
        is False
    )


def test_the_admin_login_never_sends_people_off_site(linked) -> None:
    for hostile in ("//evil.example/", "/\\evil.example", "https://evil.example/", "javascript:alert(1)"):
        r = linked().get("/admin/login/", {"next": hostile})
        assert r["location"] == "/handler/sign-in?after_auth_return_to=%2F", hostile


def test_signing_out_of_authmw_ends_the_django_session(linked, local_service) -> None:
    s = local_service.sign_up()
    client = with_session(linked(), local_service, s)
    assert client.get("/linked/notes").status_code == 200
    local_service.sign_out(s)  # the refresh token is revoked at the service
    client.cookies.pop("stack-access")  # and the access token is gone: the session cannot go on
    r = client.get("/linked/whoami").json()
    assert r["authenticated"] is False and r["authmw_id"] is None
    assert client.get("/linked/notes").status_code == 302


def test_a_password_signed_in_django_user_is_left_alone(linked, local_service) -> None:
    model = get_user_model()
    admin = model.objects.create_user(username=f"admin-{uuid.uuid4().hex[:6]}", password="pw-123-456")
    client = linked()
    assert client.login(username=admin.username, password="pw-123-456")
    r = client.get("/linked/whoami").json()
    assert r["authenticated"] is True and r["django_id"] == admin.pk and r["authmw_id"] is None


def test_an_api_call_with_x_stack_auth_gets_the_user_without_a_django_session(linked, local_service) -> None:
    """Every session sent in a header is an API call: x-stack-auth, a bearer access token (in
    Authorization or x-stack-access-token) and the 2.8 SDK's ``Bearer stackauth_...``; the
    last three opened a Django session (a sessionid cookie) where x-stack-auth did not. The
    control: the same user's cookies open one (test_first_sign_in_creates_...)."""
    import base64

    from middleware.cross_site import header_sessions

    s = local_service.sign_up()
    pair = json.dumps({"accessToken": s.access_token, "refreshToken": s.refresh_token})
    sdk = {"authorization": "Bearer stackauth_" + base64.b64encode(pair.encode()).decode()}
    for headers in [*header_sessions(s), sdk]:
        client = linked()
        r = client.get("/linked/whoami", headers=headers)
        assert r.json()["linked_to"] == s.user_id, headers
        assert "sessionid" not in client.cookies, headers


def test_linking_command_links_by_verified_e_mail_and_dry_runs_first(linked, local_service, settings_for) -> None:
    from authmw_django.models import AuthmwUserLink

    linked()  # loads the settings the command reads
    server = ServerApp(local_service.config)
    model = get_user_model()
    tag = uuid.uuid4().hex[:8]
    verified = server.users.create(primary_email=f"v-{tag}@example.com", primary_email_verified=True)
    unverified = server.users.create(primary_email=f"u-{tag}@example.com", primary_email_verified=False)
    old_v = model.objects.create_user(username=f"v-{tag}", email=f"V-{tag}@example.com")
    model.objects.create_user(username=f"u-{tag}", email=f"u-{tag}@example.com")

    settings = {"AUTHMW": settings_for(local_service.config, DJANGO_USERS=True), "MIDDLEWARE": LINKED_MIDDLEWARE}
    with override_settings(**settings):
        out = io.StringIO()
        call_command("authmw_link_users", stdout=out)
        assert f"link authmw user {verified.id}" in out.getvalue()
        assert unverified.id not in out.getvalue()
        assert "dry run" in out.getvalue()
        assert not AuthmwUserLink.objects.filter(authmw_user_id=verified.id).exists()

        call_command("authmw_link_users", "--apply", stdout=io.StringIO())
    assert AuthmwUserLink.objects.get(authmw_user_id=verified.id).user_id == old_v.pk
    assert not AuthmwUserLink.objects.filter(authmw_user_id=unverified.id).exists()


@pytest.mark.parametrize(
    ("change", "names"),
    [
        ({"MIDDLEWARE": ["authmw_django.AuthMiddleware"]}, "SessionMiddleware"),
        ({"AUTHENTICATION_BACKENDS": ["django.contrib.auth.backends.ModelBackend"]}, "AuthmwBackend"),
        ({"INSTALLED_APPS": ["django.contrib.auth", "django.contrib.contenttypes"]}, "INSTALLED_APPS"),
    ],
)
def test_a_missing_piece_of_linked_users_is_named(site, settings_for, change: dict[str, Any], names: str) -> None:
    from authmw_django import _settings

    settings = {"AUTHMW": settings_for(site.config, DJANGO_USERS=True), "MIDDLEWARE": LINKED_MIDDLEWARE, **change}
    with override_settings(**settings), pytest.raises(ImproperlyConfigured, match=names):
        _settings.load()


def test_staff_permission_without_linked_users_is_a_configuration_error(site, settings_for) -> None:
    from authmw_django import _settings

    with override_settings(AUTHMW=settings_for(site.config, STAFF_PERMISSION="staff")):
        with pytest.raises(ImproperlyConfigured, match="DJANGO_USERS"):
            _settings.load()


# -- account takeover through e-mail (issue 26): the linking rule of authmw.adapter ------------


def test_an_unverified_address_is_never_copied_into_the_django_user(linked, local_service) -> None:
    """The attack: sign up at the service with the address of an existing Django user."""
    model = get_user_model()
    victim_email = f"victim-{uuid.uuid4().hex[:8]}@example.com"
    victim = model.objects.create_user(username=f"victim-{uuid.uuid4().hex[:6]}", email=victim_email)
    attacker = local_service.sign_up(victim_email)  # never verified: the victim gets the mail
    me = with_session(linked(), local_service, attacker).get("/linked/whoami").json()
    assert me["django_id"] != victim.pk
    assert me["email"] == "" and me["username"] == f"authmw-{attacker.user_id}"
    assert list(model.objects.filter(email__iexact=victim_email).values_list("pk", flat=True)) == [victim.pk]
    assert not model.objects.filter(username__iexact=victim_email).exists()


def test_an_unverified_channel_made_primary_is_not_copied_at_the_next_sign_in(linked, local_service) -> None:
    model = get_user_model()
    victim_email = f"victim-{uuid.uuid4().hex[:8]}@example.com"
    attacker = verified_sign_up(local_service)
    first = with_session(linked(), local_service, attacker).get("/linked/whoami").json()
    assert first["email"] == attacker.email
    server = ServerApp(local_service.config)
    channel = server.contact_channels.create(attacker.user_id, victim_email)  # unverified
    server.contact_channels.update(attacker.user_id, channel.id, is_primary=True)
    again = with_session(linked(), local_service, server.sessions.create(attacker.user_id)).get("/linked/whoami")
    assert again.json()["django_id"] == first["django_id"] and again.json()["email"] == attacker.email
    assert not model.objects.filter(email__iexact=victim_email).exists()


def test_an_oauth_sign_up_with_a_linked_victims_address_gets_neither_the_row_nor_the_address(
    oauth_service, make_site, settings_for
) -> None:
    """The mock provider vouches for any address, so the attacker's copy is verified too:
    the address is then held by two authmw users and names neither."""
    from authmw_django.models import AuthmwUserLink

    model = get_user_model()
    victim_email = f"victim-{uuid.uuid4().hex[:8]}@example.com"
    server = ServerApp(oauth_service.config)
    victim = server.users.create(primary_email=victim_email, primary_email_verified=True)
    old_row = model.objects.create_user(username=f"victim-{uuid.uuid4().hex[:6]}", email=victim_email)
    site = make_site(oauth_service.config)
    site.client(middleware=LINKED_MIDDLEWARE, DJANGO_USERS=True)  # loads the settings the command reads
    with override_settings(AUTHMW=settings_for(oauth_service.config, DJANGO_USERS=True), MIDDLEWARE=LINKED_MIDDLEWARE):
        call_command("authmw_link_users", "--apply", stdout=io.StringIO())
    assert AuthmwUserLink.objects.get(authmw_user_id=victim.id).user_id == old_row.pk

    attacker = ClientApp(oauth_service.config)
    callback = "http://testserver/handler/oauth-callback"
    flow = attacker.get_oauth_authorize_url("github", redirect_uri=callback, error_redirect_url=callback)
    attacker.sign_in_with_oauth_callback(
        oauth_service.provider_round_trip(flow.url, victim_email), state=flow.state, code_verifier=flow.code_verifier
    )
    assert attacker.get_user().primary_email_verified  # type: ignore[union-attr]
    client = site.client(middleware=LINKED_MIDDLEWARE, DJANGO_USERS=True)
    client.cookies.load(cookie_header(oauth_service.project_id, attacker.session.refresh_token))
    me = client.get("/linked/whoami").json()
    assert me["authenticated"] and me["django_id"] != old_row.pk and me["email"] == ""
    victim_client = with_session(
        site.client(middleware=LINKED_MIDDLEWARE, DJANGO_USERS=True), oauth_service, server.sessions.create(victim.id)
    )
    assert victim_client.get("/linked/whoami").json()["django_id"] == old_row.pk  # the control: still hers


def test_linking_command_refuses_an_address_that_several_authmw_users_hold(linked, local_service, settings_for) -> None:
    from authmw_django.models import AuthmwUserLink

    linked()
    server = ServerApp(local_service.config)
    model = get_user_model()
    tag = uuid.uuid4().hex[:8]
    shared = f"shared-{tag}@example.com"
    first = server.users.create(primary_email=shared, primary_email_verified=True)
    second = server.users.create(primary_email=shared.upper(), primary_email_verified=True)
    secondary = f"second-{tag}@example.com"  # verified as another user's non-primary address
    owner = server.users.create(primary_email=secondary, primary_email_verified=True)
    other = server.users.create(primary_email=f"other-{tag}@example.com", primary_email_verified=True)
    server.contact_channels.create(other.id, secondary, is_verified=True)
    model.objects.create_user(username=f"shared-{tag}", email=shared)
    model.objects.create_user(username=f"second-{tag}", email=secondary)

    settings = {"AUTHMW": settings_for(local_service.config, DJANGO_USERS=True), "MIDDLEWARE": LINKED_MIDDLEWARE}
    with override_settings(**settings):
        out, err = io.StringIO(), io.StringIO()
        call_command("authmw_link_users", "--apply", stdout=out, stderr=err)
    for refused in (first, second, owner):
        assert not AuthmwUserLink.objects.filter(authmw_user_id=refused.id).exists()
        assert f"skip authmw user {refused.id}: another authmw user holds its e-mail" in err.getvalue()
    assert "e-mail shared by several authmw users" in out.getvalue()


def test_an_outage_of_the_service_never_ends_the_django_session(make_site, tmp_path) -> None:
    """The service is really stopped (tests/middleware/test_outage_log.py's Outage) while a
    linked user's access token needs refreshing: the request is nobody's, as every framework
    answers during an outage, but Django's session (the user's sign-in and whatever the app
    keeps in it) was flushed by a logout. A transient error never signs a user out: once the
    service answers again the same Django session goes on. The control: the authmw session
    ending for real does end it (test_signing_out_of_authmw_ends_the_django_session)."""
    from django.contrib.sessions.backends.db import SessionStore
    from middleware.test_outage_log import Outage

    outage = Outage(tmp_path)
    try:
        refresh = outage.sign_up()
        site = make_site(outage.config)
        cookie = cookie_header(outage.config.project_id, refresh)  # no access token: each new process refreshes
        first = site.client(middleware=LINKED_MIDDLEWARE, DJANGO_USERS=True)
        first.cookies.load(cookie)
        signed_in = first.get("/linked/whoami").json()
        assert signed_in["authenticated"] is True
        session_key = first.cookies["sessionid"].value
        store = SessionStore(session_key=session_key)
        store["cart"] = ["book"]  # what the app keeps in Django's session
        store.save()

        # Another process (fresh caches) gets the same browser's cookies while the service is down.
        during = site.client(middleware=LINKED_MIDDLEWARE, DJANGO_USERS=True)
        during.cookies.load(cookie)
        during.cookies["sessionid"] = session_key
        outage.stop()
        r = during.get("/linked/whoami")
        assert r.json()["authenticated"] is False  # nobody's request: the session cannot be checked
        assert "sessionid" not in r.cookies, r.cookies["sessionid"].OutputString()  # not deleted, not replaced
        assert SessionStore(session_key=session_key).load().get("cart") == ["book"]

        outage.start()
        again = during.get("/linked/whoami").json()
        assert again["authenticated"] is True and again["django_id"] == signed_in["django_id"]
        assert during.cookies["sessionid"].value == session_key
        assert SessionStore(session_key=session_key).load().get("cart") == ["book"]
    finally:
        outage.stop()
