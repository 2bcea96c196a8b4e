"""The client tier's e-mail flows, teams, invitations and contact channels (issue 5) against
the real local service over HTTP, sync and async. Codes are read from the local outbox."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from typing import Any

import deployment
import pytest
from deployment import LiveService

from authmw import AsyncClientApp, AsyncServerApp, ClientApp, ServerApp
from authmw._ops import SyncDriver
from authmw._session import refresh_access_token
from authmw.errors import (
    EmailAlreadyVerified,
    HttpStatusError,
    PasswordConfirmationMismatch,
    PasswordTooShort,
    RedirectUrlNotWhitelisted,
    TeamMembershipNotFound,
    TeamPermissionRequired,
    UserAuthenticationRequired,
    UserDoesNotHavePassword,
    VerificationCodeAlreadyUsed,
    VerificationCodeError,
    VerificationCodeNotFound,
)
from authmw.models import (
    ContactChannel,
    ReceivedTeamInvitation,
    SignInResult,
    Team,
    TeamInvitation,
    TeamInvitationDetails,
)

PASSWORD = "correct horse battery"
NEW_PASSWORD = "battery staple horse"
HANDLER = "http://localhost:3000/handler"
UNTRUSTED = "https://attacker.example.net/handler/x"
ADMIN_CONTAINS = {"$delete_team", "$invite_members", "$read_members", "$remove_members", "$update_team"}


def new_email() -> str:
    return f"flow-{uuid.uuid4().hex[:12]}@example.com"


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    with deployment.running(tmp_path_factory.mktemp("client-flows")) as running:
        service = LiveService(running)
        service.set_project_config(magic_link_enabled=True, client_team_creation_enabled=True)
        yield service


class Flavour:
    def __init__(self, name: str, live: LiveService) -> None:
        self.is_async = name == "async"
        self.live = live
        self.loop = asyncio.new_event_loop() if self.is_async else None
        self.opened: list[Any] = []

    def __call__(self, value: Any) -> Any:
        return self.loop.run_until_complete(value) if self.loop else value

    def client(self, **tokens: Any) -> Any:
        app = (AsyncClientApp if self.is_async else ClientApp)(self.live.client_config, **tokens)
        self.opened.append(app)
        return app

    def server(self) -> Any:
        app = (AsyncServerApp if self.is_async else ServerApp)(self.live.config)
        self.opened.append(app)
        return app

    def signed_in(self, email: str | None = None) -> tuple[Any, str]:
        """A client app signed in as a new password user, and its e-mail."""
        email = email or new_email()
        app = self.client()
        self(app.sign_up_with_password(email, PASSWORD, HANDLER + "/email-verification"))
        return app, email

    def close(self) -> None:
        for app in self.opened:
            self(app.aclose()) if self.is_async else app.close()
        if self.loop:
            self.loop.close()


@pytest.fixture(params=["sync", "async"])
def flow(request: pytest.FixtureRequest, live: LiveService) -> Iterator[Flavour]:
    flavour = Flavour(request.param, live)
    yield flavour
    flavour.close()


# -- magic link ---------------------------------------------------------------------------


def test_magic_link_signs_up_a_new_user_then_signs_them_in_with_the_typed_code(flow, live):
    email = new_email()
    app = flow.client()
    nonce = flow(app.send_magic_link_email(email, HANDLER + "/magic-link-callback"))
    assert isinstance(nonce, str) and len(nonce) == 39
    result = flow(app.sign_in_with_magic_link(live.last_code(email, "magic_link")))
    assert isinstance(result, SignInResult) and result.is_new_user is True
    user = flow(app.get_user())
    assert (user.id, user.primary_email, user.primary_email_verified, user.otp_auth_enabled) == (
        result.user_id,
        email,
        True,
        True,
    )
    again = flow.client()
    nonce = flow(again.send_magic_link_email(email, HANDLER + "/magic-link-callback"))
    otp = live.outbox(email, "magic_link")[0]["subject"].rsplit(" ", 1)[-1]
    assert len(otp) == 6 and otp == otp.upper()
    second = flow(again.sign_in_with_magic_link(otp, nonce=nonce))
    assert (second.user_id, second.is_new_user) == (result.user_id, False)
    assert again.session.is_signed_in


def test_magic_link_code_errors(flow, live):
    email = new_email()
    app = flow.client()
    flow(app.send_magic_link_email(email, HANDLER + "/magic-link-callback"))
    code = live.last_code(email, "magic_link")
    flow(app.sign_in_with_magic_link(code))
    with pytest.raises(VerificationCodeAlreadyUsed) as used:
        flow(flow.client().sign_in_with_magic_link(code))
    assert isinstance(used.value, VerificationCodeError) and used.value.status == 409
    with pytest.raises(VerificationCodeNotFound):
        flow(flow.client().sign_in_with_magic_link("0" * 45))
    with pytest.raises(ValueError, match="6-character"):
        flow(flow.client().sign_in_with_magic_link(code, nonce="x" * 39))


def test_magic_link_callback_rules(flow):
    app = flow.client()
    with pytest.raises(RedirectUrlNotWhitelisted):
        flow(app.send_magic_link_email(new_email(), UNTRUSTED))
    with pytest.raises(ValueError, match="callback_url is required"):
        flow(app.send_magic_link_email(new_email(), None))
    with pytest.raises(ValueError, match="absolute"):
        flow(app.send_magic_link_email(new_email(), "/handler/magic-link-callback"))


# -- passwords ------------------------------------------------------------------------------


def test_forgot_password_check_then_reset(flow, live):
    app, email = flow.signed_in()
    old_refresh = app.session.refresh_token
    flow(flow.client().send_forgot_password_email(email, HANDLER + "/password-reset"))
    code = live.last_code(email, "password_reset")
    assert flow(flow.client().verify_password_reset_code(code)) is None
    flow(flow.client().verify_password_reset_code(code))  # checking does not use the code
    flow(flow.client().reset_password(code, NEW_PASSWORD))
    assert flow(flow.client().sign_in_with_password(email, NEW_PASSWORD)).user_id
    assert SyncDriver().run(refresh_access_token(live.config, old_refresh)) is None  # sessions ended
    with pytest.raises(VerificationCodeAlreadyUsed):
        flow(flow.client().verify_password_reset_code(code))
    with pytest.raises(VerificationCodeAlreadyUsed):
        flow(flow.client().reset_password(code, NEW_PASSWORD))


def test_reset_password_errors(flow, live):
    _, email = flow.signed_in()
    flow(flow.client().send_forgot_password_email(email, HANDLER + "/password-reset"))
    with pytest.raises(PasswordTooShort):
        flow(flow.client().reset_password(live.last_code(email, "password_reset"), "short"))
    with pytest.raises(VerificationCodeNotFound):
        flow(flow.client().reset_password("1" * 45, NEW_PASSWORD))
    with pytest.raises(RedirectUrlNotWhitelisted):
        flow(flow.client().send_forgot_password_email(email, UNTRUSTED))
    with pytest.raises(ValueError, match="callback_url is required"):
        flow(flow.client().send_forgot_password_email(email, ""))


def test_forgot_password_for_an_unknown_address_looks_the_same(live):
    with ClientApp(live.client_config) as app:
        assert app.send_forgot_password_email(new_email(), HANDLER + "/password-reset") is None


def test_update_password_keeps_this_session_and_ends_the_others(flow, live):
    app, email = flow.signed_in()
    other = flow.client()
    flow(other.sign_in_with_password(email, PASSWORD))
    with pytest.raises(PasswordConfirmationMismatch):
        flow(app.update_password("not the password", NEW_PASSWORD))
    with pytest.raises(PasswordTooShort):
        flow(app.update_password(PASSWORD, "short"))
    flow(app.update_password(PASSWORD, NEW_PASSWORD))
    driver = SyncDriver()
    assert driver.run(refresh_access_token(live.config, app.session.refresh_token)) is not None
    assert driver.run(refresh_access_token(live.config, other.session.refresh_token)) is None
    assert flow(flow.client().sign_in_with_password(email, NEW_PASSWORD)).user_id


def test_set_password_for_a_user_without_one(flow, live):
    email = new_email()
    app = flow.client()
    flow(app.send_magic_link_email(email, HANDLER + "/magic-link-callback"))
    flow(app.sign_in_with_magic_link(live.last_code(email, "magic_link")))
    assert not flow(app.get_user()).has_password
    with pytest.raises(UserDoesNotHavePassword):
        flow(app.update_password(PASSWORD, NEW_PASSWORD))
    with pytest.raises(PasswordTooShort):
        flow(app.set_password("short"))
    flow(app.set_password(PASSWORD))
    assert flow(app.get_user()).has_password
    with pytest.raises(HttpStatusError) as info:
        flow(app.set_password(PASSWORD))
    assert info.value.status == 400 and "already has a password" in info.value.body


# -- e-mail verification ----------------------------------------------------------------------


def test_send_verification_email_then_verify(flow, live):
    app, email = flow.signed_in()
    flow(app.send_verification_email(HANDLER + "/email-verification"))
    code = live.last_code(email, "email_verification")
    flow(flow.client().verify_email(code))  # no sign-in needed
    assert flow(app.get_user()).primary_email_verified
    with pytest.raises(EmailAlreadyVerified) as info:
        flow(app.send_verification_email(HANDLER + "/email-verification"))
    assert info.value.status == 409
    with pytest.raises(VerificationCodeAlreadyUsed):
        flow(app.verify_email(code))
    with pytest.raises(ValueError, match="callback_url"):
        flow(app.send_verification_email(""))


# -- contact channels ------------------------------------------------------------------------


def test_contact_channels_of_the_signed_in_user(flow, live):
    app, email = flow.signed_in()
    channels = app.contact_channels
    [primary] = flow(channels.list())
    assert (primary.value, primary.is_primary, primary.used_for_auth) == (email, True, True)
    extra = new_email()
    channel = flow(channels.create(extra))
    assert isinstance(channel, ContactChannel) and not channel.is_verified and not channel.used_for_auth
    assert [c.id for c in flow(channels.list())] == [primary.id, channel.id]
    assert flow(channels.get(channel.id)) == channel
    flow(channels.send_verification_code(channel.id, HANDLER + "/email-verification"))
    flow(channels.verify(live.last_code(extra, "email_verification")))
    assert flow(channels.get(channel.id)).is_verified
    with pytest.raises(EmailAlreadyVerified):
        flow(channels.send_verification_code(channel.id, HANDLER + "/email-verification"))
    updated = flow(channels.update(channel.id, is_primary=True, used_for_auth=True))
    assert updated.is_primary and updated.used_for_auth
    assert flow(app.get_user()).primary_email == extra
    flow(channels.delete(primary.id))
    assert [c.id for c in flow(channels.list())] == [channel.id]
    assert flow(channels.get(primary.id)) is None
    unverified = flow(channels.create(new_email()))
    with pytest.raises(RedirectUrlNotWhitelisted):
        flow(channels.send_verification_code(unverified.id, UNTRUSTED))


# -- teams -------------------------------------------------------------------------------------


def test_teams_create_update_list_delete(flow):
    app, _ = flow.signed_in()
    teams = app.teams
    team = flow(teams.create("Mine", client_metadata={"c": 1}))
    assert isinstance(team, Team) and team.client_metadata == {"c": 1}
    assert not hasattr(team, "server_metadata")
    assert [t.id for t in flow(teams.list())] == [team.id]
    assert flow(teams.get(team.id)) == team
    updated = flow(teams.update(team.id, display_name="Renamed"))
    assert updated.display_name == "Renamed" and updated.client_metadata == {"c": 1}
    assert flow(app.select_team(team.id)).selected_team_id == team.id
    assert flow(app.select_team(None)).selected_team_id is None
    flow(teams.delete(team.id))
    assert flow(teams.list()) == []


def test_my_permissions_member_profiles_and_leaving(flow):
    owner, _ = flow.signed_in()
    member, _ = flow.signed_in()
    team = flow(owner.teams.create("Shared"))
    member_id = flow(member.get_user()).id
    flow(flow.server().teams.add_member(team.id, member_id))

    creator_role, _ = flow.live.team_roles
    # 2.8's team_admin also contains $manage_api_keys
    admin_contains = ADMIN_CONTAINS | ({"$manage_api_keys"} if creator_role == "team_admin" else set())
    assert {p.id for p in flow(owner.team_permissions.list(team.id))} == {creator_role} | admin_contains
    assert {p.id for p in flow(owner.team_permissions.list(team.id, recursive=False))} == {creator_role}
    assert flow(member.team_permissions.has(team.id, "$read_members"))
    assert not flow(member.team_permissions.has(team.id, "$update_team"))
    with pytest.raises(TeamPermissionRequired) as info:
        flow(member.teams.update(team.id, display_name="Mine now"))
    assert info.value.details["permission_id"] == "$update_team"

    profiles = flow(member.team_member_profiles.list(team.id))
    assert len(profiles) == 2
    mine = flow(member.team_member_profiles.update(team.id, display_name="Member M"))
    assert (mine.user_id, mine.display_name) == (member_id, "Member M")
    assert flow(owner.team_member_profiles.get(team.id, member_id)).display_name == "Member M"

    flow(member.teams.leave(team.id))
    assert flow(member.teams.list()) == []
    with pytest.raises(TeamMembershipNotFound):
        flow(member.teams.leave(team.id))
    with pytest.raises(TeamMembershipNotFound):
        flow(member.teams.get(team.id))


def test_client_team_creation_can_be_turned_off(live):
    live.set_project_config(client_team_creation_enabled=False)
    try:
        with ClientApp(live.client_config) as app:
            app.sign_up_with_password(new_email(), PASSWORD, HANDLER + "/email-verification")
            with pytest.raises(HttpStatusError) as info:
                app.teams.create("Not allowed")
            assert info.value.status == 403
    finally:
        live.set_project_config(client_team_creation_enabled=True)


# -- invitations -------------------------------------------------------------------------------


def test_invite_check_details_accept(flow, live):
    owner, _ = flow.signed_in()
    team = flow(owner.teams.create("Invited to"))
    guest, guest_email = flow.signed_in()
    invitations = owner.team_invitations
    invitation_id = flow(invitations.send(team.id, guest_email, HANDLER + "/team-invitation"))
    [pending] = flow(invitations.list(team.id))
    assert isinstance(pending, TeamInvitation)
    assert (pending.id, pending.recipient_email, pending.team_id) == (invitation_id, guest_email, team.id)
    assert pending.expires_at is not None

    code = live.last_code(guest_email, "team_invitation")
    assert flow(flow.client().team_invitations.check_code(code)) is None  # no sign-in needed
    with pytest.raises(UserAuthenticationRequired):
        flow(flow.client().team_invitations.get_details(code))
    details = flow(guest.team_invitations.get_details(code))
    assert details == TeamInvitationDetails(team_id=team.id, team_display_name="Invited to")
    flow(guest.team_invitations.accept(code))
    assert [t.id for t in flow(guest.teams.list())] == [team.id]
    member_role = flow.live.team_roles[1]
    assert {p.id for p in flow(guest.team_permissions.list(team.id, recursive=False))} == {member_role}
    assert flow(invitations.list(team.id)) == []
    with pytest.raises(VerificationCodeAlreadyUsed):
        flow(guest.team_invitations.accept(code))


def test_revoke_and_invitation_errors(flow, live):
    owner, _ = flow.signed_in()
    team = flow(owner.teams.create("Revoking"))
    email = new_email()
    invitation_id = flow(owner.team_invitations.send(team.id, email, HANDLER + "/team-invitation"))
    flow(owner.team_invitations.revoke(team.id, invitation_id))
    assert flow(owner.team_invitations.list(team.id)) == []
    with pytest.raises(VerificationCodeNotFound):
        flow(flow.client().team_invitations.check_code(live.last_code(email, "team_invitation")))
    with pytest.raises(RedirectUrlNotWhitelisted):
        flow(owner.team_invitations.send(team.id, email, UNTRUSTED))
    with pytest.raises(ValueError, match="callback_url is required"):
        flow(owner.team_invitations.send(team.id, email, ""))
    outsider, _ = flow.signed_in()
    with pytest.raises(TeamMembershipNotFound):
        flow(outsider.team_invitations.send(team.id, new_email(), HANDLER + "/team-invitation"))


def verified(flow: Flavour, live: LiveService) -> tuple[Any, str]:
    """A signed-in client app whose primary e-mail is verified, and that e-mail."""
    app, email = flow.signed_in()
    flow(app.send_verification_email(HANDLER + "/email-verification"))
    flow(app.verify_email(live.last_code(email, "email_verification")))
    return app, email


def test_received_invitations_listed_and_accepted_by_id(flow, live):
    owner, _ = flow.signed_in()
    team = flow(owner.teams.create("Received"))
    guest, guest_email = verified(flow, live)
    invitation_id = flow(owner.team_invitations.send(team.id, guest_email, HANDLER + "/team-invitation"))
    other_team = flow(owner.teams.create("Other"))
    flow(owner.team_invitations.send(other_team.id, new_email(), HANDLER + "/team-invitation"))  # not the guest's

    [received] = flow(guest.team_invitations.list_received())
    assert isinstance(received, ReceivedTeamInvitation)
    assert (received.id, received.team_id, received.team_display_name, received.recipient_email) == (
        invitation_id,
        team.id,
        "Received",
        guest_email,
    )
    assert received.expires_at is not None
    assert flow(owner.team_invitations.list_received()) == []  # the owner was not invited

    outsider, _ = verified(flow, live)
    with pytest.raises(VerificationCodeNotFound):  # not addressed to them: nothing happens
        flow(outsider.team_invitations.accept_by_id(invitation_id))
    assert flow(guest.team_invitations.accept_by_id(invitation_id)) is None
    assert [t.id for t in flow(guest.teams.list())] == [team.id]
    assert flow(guest.team_invitations.list_received()) == []
    with pytest.raises(VerificationCodeNotFound):  # used
        flow(guest.team_invitations.accept_by_id(invitation_id))


def test_received_invitations_of_any_user_on_the_server_tier(flow, live):
    owner, _ = flow.signed_in()
    team = flow(owner.teams.create("Server side"))
    guest, guest_email = verified(flow, live)
    unverified, unverified_email = flow.signed_in()
    for email in (guest_email, unverified_email):
        flow(owner.team_invitations.send(team.id, email, HANDLER + "/team-invitation"))
    server = flow.server()
    guest_id, unverified_id = flow(guest.get_user()).id, flow(unverified.get_user()).id
    [received] = flow(server.team_invitations.list_received(guest_id))
    assert received.team_display_name == "Server side"
    assert flow(server.team_invitations.list_received(unverified_id)) == []  # only verified addresses count
    flow(server.team_invitations.accept(received.id, guest_id))
    assert [t.id for t in flow(guest.teams.list())] == [team.id]


def test_received_invitations_on_2_7_are_a_clear_not_in_service_version(tmp_path_factory):
    from authmw.errors import NotInServiceVersion

    with deployment.running(tmp_path_factory.mktemp("invitations-27"), api="2.7") as running:
        live_27 = LiveService(running)
        app = ClientApp(live_27.client_config)
        try:
            app.sign_up_with_password(new_email(), PASSWORD, HANDLER + "/email-verification")
            with pytest.raises(NotInServiceVersion, match="API 2.8.*accept\\(code\\)") as info:
                app.team_invitations.list_received()
            assert info.value.status == 400  # what 2.7 answered (a schema error)
            with pytest.raises(NotInServiceVersion, match="API 2.8"):
                app.team_invitations.accept_by_id(str(uuid.uuid4()))
        finally:
            app.close()


def test_a_code_is_dead_after_twenty_wrong_tries_of_its_nonce(flow, live):
    from authmw.errors import VerificationCodeMaxAttemptsReached

    email = new_email()
    app = flow.client()
    nonce = flow(app.send_magic_link_email(email, HANDLER + "/magic-link-callback"))
    code = live.last_code(email, "magic_link")
    wrong = "zzzzzz" if not code.startswith("zzzzzz") else "yyyyyy"
    for _ in range(20):
        with pytest.raises(VerificationCodeNotFound):
            flow(app.sign_in_with_magic_link(wrong, nonce=nonce))
    with pytest.raises(VerificationCodeMaxAttemptsReached) as info:
        flow(app.sign_in_with_magic_link(code))
    assert isinstance(info.value, VerificationCodeError) and info.value.status == 400
    assert not app.session.is_signed_in
