"""Admin tools: webhook portal token, usage metrics, test e-mail (service-api A5.12)."""

from __future__ import annotations

import datetime as dt
from email.message import EmailMessage
from typing import Any

from ..endpoint import ADMIN, EndpointGroup, RequestContext
from ..ids import random_code
from ..responses import AfterCommit, Created
from ..schema import Num, Obj, Str
from ..smtp import SmtpFailure, SmtpSettings, deliver
from ..users import user_view

group = EndpointGroup()
DAYS = 31


@group.post("/webhooks/svix-token", tiers=ADMIN, body=Obj({}, required=True))
def svix_token(ctx: RequestContext) -> Created:
    # No webhook provider runs locally; the token only has the right shape.
    return Created({"token": random_code()})


@group.get("/internal/metrics", tiers=ADMIN)
def metrics(ctx: RequestContext) -> dict[str, Any]:
    """Usage figures. Daily activity counts users by their latest activity (the local service keeps
    no event history), and there is no geo lookup, so `users_by_country` stays empty."""
    project_id = ctx.project.id
    rows = ctx.sql.execute("SELECT * FROM users WHERE project_id = ?", (project_id,)).fetchall()
    today = dt.datetime.now(dt.timezone.utc).date()
    days = [today - dt.timedelta(days=offset) for offset in range(DAYS - 1, -1, -1)]

    def per_day(column: str) -> list[dict[str, Any]]:
        counts: dict[dt.date, int] = {}
        for row in rows:
            day = dt.datetime.fromtimestamp(row[column] / 1000, dt.timezone.utc).date()
            counts[day] = counts.get(day, 0) + 1
        return [{"date": day.isoformat(), "activity": counts.get(day, 0)} for day in days]

    def newest(column: str) -> list[dict[str, Any]]:
        ordered = sorted(rows, key=lambda row: row[column], reverse=True)[:5]
        return [user_view(ctx.sql, row, "server") for row in ordered]

    return {
        "total_users": len(rows),
        "daily_users": per_day("signed_up_at_millis"),
        "daily_active_users": per_day("last_active_at_millis"),
        "users_by_country": {},
        "recently_registered": newest("signed_up_at_millis"),
        "recently_active": newest("last_active_at_millis"),
        "login_methods": _login_methods(ctx),
    }


def _login_methods(ctx: RequestContext) -> list[dict[str, Any]]:
    project_id = ctx.project.id
    counts = {
        "password": ctx.sql.execute(
            "SELECT COUNT(*) FROM users WHERE project_id = ? AND password_hash IS NOT NULL", (project_id,)
        ).fetchone()[0],
        "otp": ctx.sql.execute(
            "SELECT COUNT(*) FROM users WHERE project_id = ? AND otp_auth_enabled = 1", (project_id,)
        ).fetchone()[0],
    }
    for row in ctx.sql.execute(
        "SELECT provider_id, COUNT(*) AS n FROM oauth_accounts WHERE project_id = ? GROUP BY provider_id", (project_id,)
    ):
        counts[row["provider_id"].lower()] = row["n"]
    return [{"method": method, "count": count} for method, count in counts.items() if count]


SMTP_CONFIG = Obj(
    {
        "host": Str(required=True),
        "port": Num(required=True, integer=True, min_value=0, max_value=65535),
        "username": Str(required=True),
        "password": Str(required=True),
        "sender_name": Str(required=True),
        "sender_email": Str(required=True, email=True),
    },
    required=True,
)


@group.post(
    "/internal/send-test-email",
    tiers=ADMIN,
    body=Obj({"recipient_email": Str(required=True, email=True), "email_config": SMTP_CONFIG}, required=True),
)
def send_test_email(ctx: RequestContext) -> AfterCommit:
    recipient, config = ctx.body["recipient_email"], ctx.body["email_config"]
    return AfterCommit(lambda: _try_smtp(recipient, config))


def _try_smtp(recipient: str, config: dict[str, Any]) -> dict[str, Any]:
    settings = SmtpSettings.of(config)
    message = EmailMessage()
    message["Subject"] = "Test Email from Stack Auth"
    message["To"] = recipient
    message.set_content("This is a test e-mail from the authmw local service.")
    try:
        deliver(settings, message)
    except SmtpFailure as failure:
        return {"success": False, "error_message": failure.message}
    return {"success": True}


routes = group.routes
