"""`GET /dev/outbox[?to=<address>]`: the e-mails the local service sent, newest first, as JSON.

`{"items": [{"id", "project_id", "to", "kind", "subject", "body", "link", "sent_at_millis",
"delivery"}]}` (`delivery`: see mail.py). Not part of the service API (it lives outside /api);
examples and tests read links from it. People read the same mails at `GET /dev/mailbox`.
"""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..mail import outbox
from ..responses import json_response
from ..service import Service


def _read(service: Service, recipient: str | None) -> list[dict[str, Any]]:
    with service.db.tx() as c:
        return outbox(c, recipient)


async def read_outbox(request: Request) -> Response:
    items = await run_in_threadpool(_read, request.app.state.service, request.query_params.get("to"))
    return json_response({"items": items})


routes = [Route("/dev/outbox", read_outbox, methods=["GET"])]
