"""Team invitations by e-mailed code (service-api A5.6, flow 6.9)."""

from __future__ import annotations

from typing import Any

from ..db import load
from ..emails import TEAM_INVITATION, send_team_invitation_email
from ..endpoint import ANY, EndpointGroup, PerApi, RequestContext
from ..errors import CatalogueError, PlainError
from ..ids import now_millis
from ..payments import require_free_seat
from ..schema import Obj, Str, Uuid
from ..team_access import client_user_id, existing_team, require_membership, require_permission
from ..teams import add_member, is_member
from ..urls import is_trusted_url
from ..users import restricted_reason
from ..verification import CODE_LENGTH, find_code

group = EndpointGroup()
CODE_BODY = Obj({"code": Str(required=True, min_length=CODE_LENGTH, max_length=CODE_LENGTH)}, required=True)
TEAM_QUERY = Obj({"team_id": Uuid(required=True)})
#: 2.8 lists a team's invitations or a user's (service-api B14.5).
LIST_QUERY = PerApi(v27=TEAM_QUERY, v28=Obj({"team_id": Uuid(), "user_id": Uuid(allow_me=True)}))


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


def _pending(ctx: RequestContext, condition: str, value: str) -> list[dict[str, Any]]:
    """The project's unused, unexpired invitations whose data field `condition` equals `value`,
    oldest first; 2.8 adds each team's display name and leaves out invitations to deleted teams."""
    rows = ctx.sql.execute(
        "SELECT data, expires_at_millis FROM verification_codes WHERE project_id = ? AND type = ?"
        f" AND used_at_millis IS NULL AND expires_at_millis > ? AND json_extract(data, '$.{condition}') = ?"
        " ORDER BY created_at_millis, rowid",
        (ctx.project.id, TEAM_INVITATION, now_millis(), value),
    ).fetchall()
    team_names: dict[str, str | None] = {}
    invitations = []
    for row in rows:
        data = load(row["data"])
        item = {
            "id": data["invitation_id"],
            "team_id": data["team_id"],
            "expires_at_millis": row["expires_at_millis"],
            "recipient_email": data["email"],
        }
        if ctx.api.team_invitations_28:
            if data["team_id"] not in team_names:
                team = ctx.sql.execute(
                    "SELECT display_name FROM teams WHERE project_id = ? AND id = ?", (ctx.project.id, data["team_id"])
                ).fetchone()
                team_names[data["team_id"]] = None if team is None else team["display_name"]
            name = team_names[data["team_id"]]
            if name is None:
                continue
            item["team_display_name"] = name
        invitations.append(item)
    return invitations


def _verified_emails(ctx: RequestContext, user_id: str) -> list[str]:
    rows = ctx.sql.execute(
        "SELECT value FROM contact_channels WHERE project_id = ? AND user_id = ? AND type = 'email' AND is_verified",
        (ctx.project.id, user_id),
    ).fetchall()
    return [row["value"] for row in rows]


def _refuse_restricted(ctx: RequestContext, user: Any) -> None:
    """2.8 refuses anonymous and restricted users team invitations (service-api B7.4)."""
    if not ctx.api.team_invitations_28:
        return
    reason = restricted_reason(ctx.sql, user)
    if reason is not None:
        raise CatalogueError(
            "TEAM_INVITATION_RESTRICTED_USER_NOT_ALLOWED", restricted_reason={"type": reason}, reason=reason
        )


@group.get("/team-invitations", tiers=ANY, query=LIST_QUERY)
def list_invitations(ctx: RequestContext) -> dict[str, Any]:
    team_id, user_id = ctx.query.get("team_id"), ctx.query.get("user_id")
    if team_id is not None and user_id is not None:
        raise PlainError(400, "Cannot specify both team_id and user_id")
    if user_id is not None:
        return {"items": _user_invitations(ctx, user_id), "is_paginated": False}
    if team_id is None:
        raise PlainError(400, "Must specify either team_id or user_id")
    if ctx.tier == "client":
        require_membership(ctx, team_id, client_user_id(ctx))
        require_permission(ctx, team_id, "$read_members")
        require_permission(ctx, team_id, "$invite_members")
    elif ctx.api.team_invitations_28:
        existing_team(ctx, team_id)
    return {"items": _pending(ctx, "team_id", team_id), "is_paginated": False}


def _own_user_id(ctx: RequestContext, user_id: str) -> str:
    """`user_id` resolved; the client tier may name only its own user (2.8 answers
    CANNOT_GET_OWN_USER_WITHOUT_USER for anyone else)."""
    resolved = ctx.user_id_or_me(user_id)
    if ctx.tier == "client" and (ctx.user is None or resolved != ctx.user["id"]):
        raise CatalogueError("CANNOT_GET_OWN_USER_WITHOUT_USER")
    return resolved


def _user_invitations(ctx: RequestContext, user_id: str) -> list[dict[str, Any]]:
    """The pending invitations addressed to one of the user's verified e-mails (2.8, 14.5)."""
    emails = _verified_emails(ctx, _own_user_id(ctx, user_id))
    found = [item for email in set(emails) for item in _pending(ctx, "email", email)]
    return sorted(found, key=lambda item: (item["expires_at_millis"], item["id"]))


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
    _refuse_restricted(ctx, ctx.user)
    team = existing_team(ctx, found.data["team_id"])
    return {"team_id": team["id"], "team_display_name": team["display_name"]}


@group.post("/team-invitations/accept", tiers=ANY, body=CODE_BODY)
def accept(ctx: RequestContext) -> dict[str, Any]:
    found = find_code(ctx, TEAM_INVITATION, ctx.body["code"])
    user_id = client_user_id(ctx)
    _refuse_restricted(ctx, ctx.user)  # before the code is used: once verified, the user may still join
    found.consume()
    team = existing_team(ctx, found.data["team_id"])
    require_free_seat(ctx.sql, ctx.project.id, team["id"])  # a team of `internal` (service-api B15)
    if not is_member(
        ctx.sql, ctx.project.id, team["id"], user_id
    ):  # the recipient e-mail is not compared (service-api A5.6)
        add_member(ctx.sql, ctx.project, team["id"], user_id, as_creator=False)
    return {}


@group.post(
    "/team-invitations/{invitation_id}/accept",
    tiers=ANY,
    params=Obj({"invitation_id": Uuid(required=True)}),
    query=Obj({"user_id": Uuid(required=True, allow_me=True)}, required=True),
    when=lambda api: api.team_invitations_28,
)
def accept_by_id(ctx: RequestContext) -> dict[str, Any]:
    """Accept by invitation id (2.8, 14.5): the user must own a verified e-mail equal to the
    recipient; an unknown, used or expired invitation reads the same."""
    user_id = _own_user_id(ctx, ctx.query["user_id"])
    if ctx.tier == "client":
        _refuse_restricted(ctx, ctx.user)
    row = ctx.sql.execute(
        "SELECT rowid, data FROM verification_codes WHERE project_id = ? AND type = ? AND used_at_millis IS NULL"
        " AND expires_at_millis > ? AND json_extract(data, '$.invitation_id') = ?",
        (ctx.project.id, TEAM_INVITATION, now_millis(), ctx.params["invitation_id"]),
    ).fetchone()
    if row is None:
        raise CatalogueError("VERIFICATION_CODE_NOT_FOUND")
    data = load(row["data"])
    if data["email"] not in _verified_emails(ctx, user_id):
        raise CatalogueError("VERIFICATION_CODE_NOT_FOUND")
    ctx.sql.execute(
        "UPDATE verification_codes SET used_at_millis = ? WHERE project_id = ? AND rowid = ?",
        (now_millis(), ctx.project.id, row["rowid"]),
    )
    team = existing_team(ctx, data["team_id"])
    require_free_seat(ctx.sql, ctx.project.id, team["id"])
    if not is_member(ctx.sql, ctx.project.id, team["id"], user_id):
        add_member(ctx.sql, ctx.project, team["id"], user_id, as_creator=False)
    return {}


routes = group.routes
