"""Contact channels: service-api A5.7."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from .conftest import Api, assert_known_error, unique_email

CALLBACK = "http://localhost:3000/handler/email-verification"


def add(api: Api, token: str, value: str, **fields):
    body = {"user_id": "me", "type": "email", "value": value, "used_for_auth": False, **fields}
    return api.call("POST", "/contact-channels", token=token, json=body)


def test_client_adds_lists_updates_and_deletes_its_channels(api: Api, user: dict) -> None:
    value = unique_email()
    created = add(api, user["access_token"], value)
    assert created.status_code == 201, created.text
    channel = created.json()
    assert channel == {
        "user_id": user["user_id"],
        "id": channel["id"],
        "value": value,
        "type": "email",
        "used_for_auth": False,
        "is_verified": False,
        "is_primary": False,
    }
    listed = api.call("GET", "/contact-channels", token=user["access_token"], params={"user_id": "me"}).json()
    assert [c["value"] for c in listed["items"]] == [user["email"], value]  # oldest first
    path = f"/contact-channels/me/{channel['id']}"
    primary = api.call("PATCH", path, token=user["access_token"], json={"is_primary": True}).json()
    assert primary["is_primary"] is True
    me = api.call("GET", "/users/me", token=user["access_token"]).json()
    assert me["primary_email"] == value
    assert api.call("DELETE", path, token=user["access_token"]).json() == {"success": True}
    gone = api.call("GET", path, token=user["access_token"])
    assert (gone.status_code, gone.text) == (404, "Contact channel not found.")


def test_channel_errors(api: Api, user: dict) -> None:
    value = unique_email()
    assert add(api, user["access_token"], value).status_code == 201
    duplicate = add(api, user["access_token"], value)
    assert (duplicate.status_code, duplicate.text) == (400, "Contact channel already exists")
    taken = add(api, user["access_token"], user["email"] + ".other", used_for_auth=True)
    assert taken.status_code == 201
    other = api.sign_up()
    clash = add(api, other["access_token"], user["email"], used_for_auth=True)
    assert assert_known_error(clash, "CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE", 409)["details"] == {
        "type": "email",
        "contact_channel_value": user["email"],
        "would_work_if_email_was_verified": False,
    }
    foreign = api.call(
        "POST",
        "/contact-channels",
        token=other["access_token"],
        json={"user_id": user["user_id"], "type": "email", "value": unique_email(), "used_for_auth": False},
    )
    assert (foreign.status_code, foreign.text) == (403, "Client can only create contact channels for their own user.")
    client_verified = add(api, user["access_token"], unique_email(), is_verified=True)
    assert_known_error(client_verified, "SCHEMA_ERROR", 400)
    listing = api.call("GET", "/contact-channels", token=user["access_token"])
    assert listing.status_code == 403


def test_verification_code_for_a_channel(api: Api, user: dict) -> None:
    value = unique_email()
    channel = add(api, user["access_token"], value).json()
    sent = api.call(
        "POST",
        f"/contact-channels/me/{channel['id']}/send-verification-code",
        token=user["access_token"],
        json={"callback_url": CALLBACK},
    )
    assert sent.json() == {"success": True}
    mail = api.http.get("/dev/outbox", params={"to": value}).json()["items"][0]
    code = parse_qs(urlsplit(mail["link"]).query)["code"][0]
    assert api.call("POST", "/contact-channels/verify", json={"code": code}).json() == {"success": True}
    again = api.call(
        "POST",
        f"/contact-channels/me/{channel['id']}/send-verification-code",
        token=user["access_token"],
        json={"callback_url": CALLBACK},
    )
    assert_known_error(again, "EMAIL_ALREADY_VERIFIED", 409)


def test_deprecated_send_needs_the_primary_email(api: Api, user: dict) -> None:
    def send(email: str, token: str | None = user["access_token"]):
        return api.call(
            "POST",
            "/contact-channels/send-verification-code",
            token=token,
            json={"email": email, "callback_url": CALLBACK},
        )

    wrong = send("other@example.com")
    body = assert_known_error(wrong, "EMAIL_IS_NOT_PRIMARY_EMAIL", 400)
    assert body["details"] == {"email": "other@example.com", "primary_email": user["email"]}
    assert send(user["email"]).json() == {"success": True}
    assert "auth.user must be defined" in assert_known_error(send(user["email"], None), "SCHEMA_ERROR", 400)["error"]


def test_server_manages_channels_of_any_user(api: Api, user: dict) -> None:
    created = api.call(
        "POST",
        "/contact-channels",
        "server",
        json={
            "user_id": user["user_id"],
            "type": "email",
            "value": unique_email(),
            "used_for_auth": False,
            "is_verified": True,
        },
    )
    assert created.status_code == 201 and created.json()["is_verified"] is True
    changed = api.call(
        "PATCH", f"/contact-channels/{user['user_id']}/{created.json()['id']}", "server", json={"value": unique_email()}
    )
    assert changed.json()["is_verified"] is False  # a new value resets verification
    unknown = api.call(
        "POST",
        "/contact-channels/00000000-0000-4000-8000-000000000000/00000000-0000-4000-8000-000000000001/send-verification-code",
        "server",
        json={"callback_url": CALLBACK},
    )
    assert_known_error(unknown, "USER_ID_DOES_NOT_EXIST", 400)


def test_adding_ones_own_sign_in_address_again_is_a_plain_duplicate(api: Api, user: dict) -> None:
    again = add(api, user["access_token"], user["email"], used_for_auth=True)
    assert (again.status_code, again.text) == (400, "Contact channel already exists")
    other = api.sign_up()  # someone else's sign-in address is still the known error
    clash = add(api, other["access_token"], user["email"], used_for_auth=True)
    assert_known_error(clash, "CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE", 409)


def test_changing_a_channel_to_another_of_ones_own_addresses_is_a_plain_duplicate(api: Api, user: dict) -> None:
    """2.8.86 runs into its unique index there (a 500); the local service answers as the same
    duplicate is answered when adding it."""
    channel = add(api, user["access_token"], unique_email()).json()
    path = f"/contact-channels/me/{channel['id']}"
    for value in (user["email"], user["email"].upper()):
        clash = api.call("PATCH", path, token=user["access_token"], json={"value": value})
        assert (clash.status_code, clash.text) == (400, "Contact channel already exists")
    server = api.call("PATCH", f"/contact-channels/{user['user_id']}/{channel['id']}", "server", json={"value": user["email"]})
    assert (server.status_code, server.text) == (400, "Contact channel already exists")
    # control: its own address again, and a new one, are fine
    same = api.call("PATCH", path, token=user["access_token"], json={"value": channel["value"]})
    assert same.status_code == 200 and same.json()["value"] == channel["value"]
    fresh = unique_email()
    assert api.call("PATCH", path, token=user["access_token"], json={"value": fresh}).json()["value"] == fresh


def test_sending_a_channel_code_without_a_user_names_the_missing_user(api: Api, user: dict) -> None:
    channel = add(api, user["access_token"], unique_email()).json()
    path = f"/contact-channels/{user['user_id']}/{channel['id']}/send-verification-code"
    anonymous = api.call("POST", path, json={"callback_url": CALLBACK})
    assert_known_error(anonymous, "CANNOT_GET_OWN_USER_WITHOUT_USER", 400)
    other = api.sign_up()
    foreign = api.call("POST", path, token=other["access_token"], json={"callback_url": CALLBACK})
    assert (foreign.status_code, foreign.text) == (400, "Client can only send verification codes for their own user.")
    own = api.call("POST", path, token=user["access_token"], json={"callback_url": CALLBACK})
    assert own.json() == {"success": True}
    server = api.call("POST", path, "server", json={"callback_url": CALLBACK})  # no user needed on the server
    assert server.json() == {"success": True}


@pytest.mark.parametrize("version", ["2.8", "2.7"])
def test_someone_elses_sign_in_address_names_itself_in_2_8(api_27: Api, api_28: Api, version: str) -> None:
    """2.8.86 names the address (normalised) in the details and the message when a channel is
    created, none when one is changed to it (its update passes no value), and adds
    `would_work_if_email_was_verified: false`; 2.7.16 had only the type."""
    api = api_28 if version == "2.8" else api_27
    api.sign_up(address := unique_email())  # the address's owner
    other = api.sign_up()
    given = address.upper() if version == "2.8" else address  # 2.8 lower-cases addresses
    created = add(api, other["access_token"], given, used_for_auth=True)
    body = assert_known_error(created, "CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE", 409)
    channel = add(api, other["access_token"], unique_email(), used_for_auth=True).json()
    path = f"/contact-channels/me/{channel['id']}"
    changed = api.call("PATCH", path, token=other["access_token"], json={"value": address})
    changed_body = assert_known_error(changed, "CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE", 409)
    if version == "2.7":
        assert body["details"] == changed_body["details"] == {"type": "email"}
        assert body["error"] == changed_body["error"] == "This email is already used for authentication by another account."
        return
    assert body["details"] == {"type": "email", "contact_channel_value": address, "would_work_if_email_was_verified": False}
    assert body["error"] == f'This email "({address})" is already used for authentication by another account.'
    assert changed_body["details"] == {"type": "email", "contact_channel_value": None, "would_work_if_email_was_verified": False}
    assert changed_body["error"] == "This email  is already used for authentication by another account."


def test_a_changed_address_is_stored_as_2_8_stores_addresses(api_28: Api) -> None:
    # The attack: a channel changed to a differently cased copy of an address ("Ada@X") was kept
    # as written, so the address's owner could still sign up with "ada@x": two users signing
    # in with one address, and the password reset of "Ada@X" went to the owner for the other.
    address = unique_email()
    squatter = api_28.sign_up()
    channel = add(api_28, squatter["access_token"], unique_email(), used_for_auth=True).json()
    path = f"/contact-channels/me/{channel['id']}"
    changed = api_28.call("PATCH", path, token=squatter["access_token"], json={"value": address.upper()})
    assert changed.status_code == 200, changed.text
    assert changed.json()["value"] == address
    body = {"email": address, "password": "correct horse", "verification_callback_url": CALLBACK}
    signed_up = api_28.call("POST", "/auth/password/sign-up", json=body)
    assert_known_error(signed_up, "USER_EMAIL_ALREADY_EXISTS", 409)
    # and one's own address again in other letters is the plain duplicate
    again = add(api_28, squatter["access_token"], address.upper())
    assert (again.status_code, again.text) == (400, "Contact channel already exists")


def test_a_changed_address_keeps_its_letters_in_2_7(api_27: Api) -> None:
    # The control: 2.7 stored addresses as given; its channels keep them so.
    user = api_27.sign_up()
    channel = add(api_27, user["access_token"], unique_email()).json()
    address = unique_email().replace("user", "User")
    path = f"/contact-channels/me/{channel['id']}"
    changed = api_27.call("PATCH", path, token=user["access_token"], json={"value": address})
    assert changed.status_code == 200, changed.text
    assert changed.json()["value"] == address
