"""`GET /dev/mailbox[?to=<address>]` and `GET /dev/mailbox/{id}`: the outbox as web pages.

For people (tests read `GET /dev/outbox`, routes/outbox.py). Newest first; each message shows
its recipient, time, subject, body and working link. Not part of the service API.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from ..mail import outbox, outbox_count, outbox_item
from ..mailbox_page import list_page, message_page, not_found_page
from ..service import Service

#: Messages shown on the list page (the JSON outbox has them all).
PAGE_LIMIT = 200

#: The pages are self-contained: inline style, no script, no other origin.
HEADERS = {
    "content-security-policy": (
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    ),
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
}


def _recipient(request: Request) -> str | None:
    return request.query_params.get("to", "").strip() or None


async def mailbox(request: Request) -> Response:
    service: Service = request.app.state.service
    recipient = _recipient(request)

    def read() -> tuple[list[dict[str, Any]], int]:
        with service.db.tx() as c:
            return outbox(c, recipient, limit=PAGE_LIMIT), outbox_count(c, recipient)

    items, total = await run_in_threadpool(read)
    return HTMLResponse(list_page(items, recipient, total), headers=HEADERS)


async def mailbox_message(request: Request) -> Response:
    service: Service = request.app.state.service
    email_id = request.path_params["email_id"]

    def read() -> dict[str, Any] | None:
        with service.db.tx() as c:
            return outbox_item(c, email_id)

    item = await run_in_threadpool(read)
    if item is None:
        return HTMLResponse(not_found_page(), 404, headers=HEADERS)
    recipient = _recipient(request)
    back = f"?{urlencode({'to': recipient})}" if recipient else ""
    return HTMLResponse(message_page(item, back), headers=HEADERS)


routes = [
    Route("/dev/mailbox", mailbox, methods=["GET"]),
    Route("/dev/mailbox/{email_id}", mailbox_message, methods=["GET"]),
]
