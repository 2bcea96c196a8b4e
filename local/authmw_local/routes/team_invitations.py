"""Team invitations by e-mailed code (contract 5.6, flow 6.9)."""

from __future__ import annotations

from typing import Any

from ..db import load
from ..emails import TEAM_INVITATION, send_team_invitation_email
from ..endpoint import ANY, EndpointGroup, RequestContext
from ..errors import CatalogueError, PlainError
from ..ids import now_millis
from ..schema import Obj, Str, Uuid
from ..team_access import client_user_id, existing_team, require_membership, require_permission
from ..teams import add_member, is_member
from ..urls import is_trusted_url
from ..verification import CODE_LENGTH, find_code

group = EndpointGroup()
CODE_BODY = Obj({"code": Str(required=True, min_length=CODE_LENGTH, max_length=CODE_LENGTH)}, required=True)
TEAM_QUERY = Obj({"team_id": Uuid(required=True)})


@group.post(
    "/team-invitations/send-code",
    tiers=ANY,
    body=Obj(
        {
            "team_id": Uuid(required=True),
            "email": Str(required=True, email=True),
            "callback_url": Str(required=True, url=True),
        },
        required=True,
    ),
)
def send_code(ctx: RequestContext) -> dict[str, Any]:
    team_id = ctx.body["team_id"]
    if ctx.tier == "client":
        require_membership(ctx, team_id, client_user_id(ctx))
        require_permission(ctx, team_id, "$invite_members")
    team = existing_team(ctx, team_id)
    if not is_trusted_url(ctx.project, ctx.body["callback_url"]):
        raise CatalogueError("REDIRECT_URL_NOT_WHITELISTED")
    invitation_id = send_team_invitation_email(
        ctx, team_id, team["display_name"], ctx.body["email"], ctx.body["callback_url"]
    )
    return {"success": True, "id": invitation_id}


def _pending(ctx: RequestContext, team_id: str) -> list[dict[str, Any]]:
    rows = ctx.sql.execute(
        "SELECT data, expires_at_millis FROM verification_codes WHERE project_id = ? AND type = ?"
        " AND used_at_millis IS NULL AND expires_at_millis > ? AND json_extract(data, '$.team_id') = ?"
        " ORDER BY created_at_millis, rowid",
        (ctx.project.id, TEAM_INVITATION, now_millis(), team_id),
    ).fetchall()
    invitations = []
    for row in rows:
        data = load(row["data"])
        invitations.append(
            {
                "id": data["invitation_id"],
                "team_id": team_id,
                "expires_at_millis": row["expires_at_millis"],
                "recipient_email": data["email"],
            }
        )
    return invitations


@group.get("/team-invitations", tiers=ANY, query=TEAM_QUERY)
def list_invitations(ctx: RequestContext) -> dict[str, Any]:
    team_id = ctx.query["team_id"]
    if ctx.tier == "client":
        require_membership(ctx, team_id, client_user_id(ctx))
        require_permission(ctx, team_id, "$read_members")
        require_permission(ctx, team_id, "$invite_members")
    return {"items": _pending(ctx, team_id), "is_paginated": False}


@group.delete(
    "/team-invitations/{invitation_id}", tiers=ANY, query=TEAM_QUERY, params=Obj({"invitation_id": Uuid(required=True)})
)
def revoke_invitation(ctx: RequestContext) -> dict[str, bool]:
    team_id, invitation_id = ctx.query["team_id"], ctx.params["invitation_id"]
    if ctx.tier == "client":
        require_membership(ctx, team_id, client_user_id(ctx))
        require_permission(ctx, team_id, "$remove_members")
    deleted = ctx.sql.execute(
        "DELETE FROM verification_codes WHERE project_id = ? AND type = ?"
        " AND json_extract(data, '$.invitation_id') = ? AND json_extract(data, '$.team_id') = ?",
        (ctx.project.id, TEAM_INVITATION, invitation_id, team_id),
    ).rowcount
    if not deleted:
        raise PlainError(404, "Team invitation not found")
    return {"success": True}


@group.post("/team-invitations/accept/check-code", tiers=ANY, body=CODE_BODY)
def check_code(ctx: RequestContext) -> dict[str, bool]:
    find_code(ctx, TEAM_INVITATION, ctx.body["code"])
    return {"is_code_valid": True}


# Both check the code before the user, as the real service does: an unknown code is
# VERIFICATION_CODE_NOT_FOUND (404) even without a signed-in user; a good code without one is
# USER_AUTHENTICATION_REQUIRED and stays unused.
@group.post("/team-invitations/accept/details", tiers=ANY, body=CODE_BODY)
def details(ctx: RequestContext) -> dict[str, str]:
    found = find_code(ctx, TEAM_INVITATION, ctx.body["code"])
    client_user_id(ctx)
    team = existing_team(ctx, found.data["team_id"])
    return {"team_id": team["id"], "team_display_name": team["display_name"]}


@group.post("/team-invitations/accept", tiers=ANY, body=CODE_BODY)
def accept(ctx: RequestContext) -> dict[str, Any]:
    found = find_code(ctx, TEAM_INVITATION, ctx.body["code"])
    user_id = client_user_id(ctx)
    found.consume()
    team = existing_team(ctx, found.data["team_id"])
    if not is_member(
        ctx.sql, ctx.project.id, team["id"], user_id
    ):  # the recipient e-mail is not compared (contract 5.6)
        add_member(ctx.sql, ctx.project, team["id"], user_id, as_creator=False)
    return {}


routes = group.routes
