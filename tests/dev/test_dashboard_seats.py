"""The seats of the `internal` project's teams (API 2.8, service-api B15): the free plan's one
`dashboard_admins` seat of a new team, invitations that need a free seat, and the payments item
routes that read and change seats, over HTTP."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from authmw.dev import LocalService
from authmw_local.db import DB_FILE_NAME, MIGRATIONS

from .conftest import Api, assert_known_error, unique_email
from .test_teams import invitation_code, invite, server_team

SEATS = "dashboard_admins"


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalService]:
    with LocalService(tmp_path_factory.mktemp("seats"), quiet=True) as running:
        yield running


@pytest.fixture(scope="module")
def internal(service: LocalService) -> Api:
    return Api.of(service, service.bootstrap.internal)


@pytest.fixture(scope="module")
def app(service: LocalService) -> Api:
    return Api.of(service)


def seats(api: Api, team_id: str, tier: str = "server", token: str | None = None):
    return api.call("GET", f"/payments/items/team/{team_id}/{SEATS}", tier, token=token)


def add_seats(api: Api, team_id: str, delta: int, allow_negative: bool = False):
    return api.call(
        "POST",
        f"/payments/items/team/{team_id}/{SEATS}/update-quantity",
        "server",
        params={"allow_negative": str(allow_negative).lower()},
        json={"delta": delta},
    )


def accept(api: Api, email: str, token: str):
    return api.call("POST", "/team-invitations/accept", token=token, json={"code": invitation_code(api, email)})


def test_a_new_team_of_internal_has_the_free_plans_one_seat(internal: Api) -> None:
    owner = internal.sign_up()
    team = server_team(internal, creator_user_id=owner["user_id"])
    assert seats(internal, team["id"]).json() == {"id": SEATS, "display_name": "Dashboard Admins", "quantity": 1}
    listed = internal.call("GET", f"/payments/products/team/{team['id']}", "server").json()
    assert listed["is_paginated"] is True and listed["pagination"] == {"next_cursor": None}
    [plan] = listed["items"]
    assert (plan["id"], plan["quantity"], plan["product"]["display_name"]) == ("free", 1, "Free")
    assert plan["product"]["included_items"][SEATS]["quantity"] == 1
    # also at /api/latest, where Stack's suite asks
    latest = internal.http.get(f"/api/latest/payments/items/team/{team['id']}/{SEATS}", headers=internal.headers("server"))
    assert latest.json()["quantity"] == 1


def test_an_invitation_needs_a_free_seat(internal: Api) -> None:
    owner = internal.sign_up()
    team = server_team(internal, creator_user_id=owner["user_id"])
    invitee = internal.sign_up()
    email = internal.call("GET", "/users/me", token=invitee["access_token"]).json()["primary_email"]
    assert invite(internal, team["id"], email).status_code == 200
    full = accept(internal, email, invitee["access_token"])
    body = assert_known_error(full, "ITEM_QUANTITY_INSUFFICIENT_AMOUNT", 400)
    assert body["details"] == {"item_id": SEATS, "customer_id": team["id"], "quantity": -1}
    assert body["error"] == (
        f'The item with ID "{SEATS}" has an insufficient quantity for the customer with ID "{team["id"]}".'
        " An attempt was made to charge -1 credits."
    )
    members = internal.call("GET", "/users", "server", params={"team_id": team["id"]}).json()["items"]
    assert [m["id"] for m in members] == [owner["user_id"]]
    # the refused code is used up, as on 2.8.86; control: with one more seat a new one is taken
    assert add_seats(internal, team["id"], 1).status_code == 200
    assert seats(internal, team["id"]).json()["quantity"] == 2
    assert invite(internal, team["id"], email).status_code == 200
    joined = accept(internal, email, invitee["access_token"])
    assert joined.status_code == 200, joined.text
    members = internal.call("GET", "/users", "server", params={"team_id": team["id"]}).json()["items"]
    assert {m["id"] for m in members} == {owner["user_id"], invitee["user_id"]}


def test_changing_seats(internal: Api) -> None:
    team = server_team(internal)
    below = add_seats(internal, team["id"], -2)
    assert assert_known_error(below, "ITEM_QUANTITY_INSUFFICIENT_AMOUNT", 400)["details"]["quantity"] == -2
    assert seats(internal, team["id"]).json()["quantity"] == 1
    assert add_seats(internal, team["id"], -2, allow_negative=True).status_code == 200
    assert seats(internal, team["id"]).json()["quantity"] == -1
    not_integer = internal.call(
        "POST", f"/payments/items/team/{team['id']}/{SEATS}/update-quantity", "server",
        params={"allow_negative": "false"}, json={"delta": 1.5},
    )  # fmt: skip
    assert_known_error(not_integer, "SCHEMA_ERROR", 400)
    no_flag = internal.call("POST", f"/payments/items/team/{team['id']}/{SEATS}/update-quantity", "server", json={"delta": 1})
    assert_known_error(no_flag, "SCHEMA_ERROR", 400)


def test_item_errors(internal: Api, app: Api) -> None:
    user = internal.sign_up()
    mismatch = internal.call("GET", f"/payments/items/user/{user['user_id']}/{SEATS}", "server")
    details = assert_known_error(mismatch, "ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH", 400)["details"]
    assert (details["item_customer_type"], details["actual_customer_type"]) == ("team", "user")
    missing_team = seats(internal, "00000000-0000-4000-8000-000000000000")
    assert_known_error(missing_team, "TEAM_NOT_FOUND", 404)
    unknown = internal.call("GET", "/payments/items/team/x/credits", "server")
    assert assert_known_error(unknown, "ITEM_NOT_FOUND", 404)["error"] == 'Item with ID "credits" not found.'
    # an app's own project has no items, and its teams take any number of members
    team = server_team(app)
    assert_known_error(seats(app, team["id"]), "ITEM_NOT_FOUND", 404)
    for _ in range(2):
        invitee = app.sign_up()
        email = app.call("GET", "/users/me", token=invitee["access_token"]).json()["primary_email"]
        invite(app, team["id"], email)
        assert accept(app, email, invitee["access_token"]).status_code == 200


def test_the_client_tier_sees_seats_of_teams_it_administers(internal: Api) -> None:
    owner = internal.sign_up()
    team = server_team(internal, creator_user_id=owner["user_id"])
    mine = seats(internal, team["id"], "client", owner["access_token"])
    assert mine.status_code == 200 and mine.json()["quantity"] == 1
    stranger = internal.sign_up()
    refused = seats(internal, team["id"], "client", stranger["access_token"])
    assert_known_error(refused, "TEAM_PERMISSION_REQUIRED", 401)
    assert_known_error(seats(internal, team["id"], "client"), "USER_AUTHENTICATION_REQUIRED", 401)
    change = internal.call(
        "POST", f"/payments/items/team/{team['id']}/{SEATS}/update-quantity", "client", token=owner["access_token"],
        params={"allow_negative": "false"}, json={"delta": 5},
    )  # fmt: skip
    assert_known_error(change, "INSUFFICIENT_ACCESS_TYPE", 401)
    assert seats(internal, team["id"]).json()["quantity"] == 1


def test_api_27_has_no_seats(api_27: Api) -> None:
    team = server_team(api_27)
    assert seats(api_27, team["id"]).status_code == 404
    # and its invitations need none
    invitee = api_27.sign_up(unique_email())
    email = api_27.call("GET", "/users/me", token=invitee["access_token"]).json()["primary_email"]
    invite(api_27, team["id"], email)
    assert accept(api_27, email, invitee["access_token"]).status_code == 200


def test_teams_made_before_seats_existed_get_the_free_plan(tmp_path: Path) -> None:
    """A data folder from before the seats: the migration that adds them gives `internal`'s
    teams their free plan. (Run here on a folder whose teams lost theirs, so that migrations
    added after it cannot get in the way.)"""
    with LocalService(tmp_path, quiet=True) as running:
        internal = Api.of(running, running.bootstrap.internal)
        team = server_team(internal)
        other_team = server_team(Api.of(running))
    script = next(m for m in MIGRATIONS if "CREATE TABLE customer_products" in m)
    grant = next(part for part in script.split(";") if "INSERT INTO customer_products" in part)
    with sqlite3.connect(tmp_path / DB_FILE_NAME) as db:
        db.execute("DELETE FROM customer_products")
        db.execute(grant)
        held = db.execute("SELECT customer_id, product_id, quantity FROM customer_products").fetchall()
    assert (team["id"], "free", 1) in held and other_team["id"] not in [row[0] for row in held]
    with LocalService(tmp_path, quiet=True) as running:
        assert seats(Api.of(running, running.bootstrap.internal), team["id"]).json()["quantity"] == 1
