"""The FastAPI receiver of the service's webhooks (:class:`authmw.webhooks.Webhooks`)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from authmw.webhooks import Handled, Webhooks


def webhook_router(webhooks: Webhooks, path: str = "/webhooks/authmw") -> APIRouter:
    """A router with ``POST path``: verifies each delivery against the raw body and runs the
    handlers registered with ``@webhooks.on(...)``; async handlers are awaited, and when every
    handler is sync they run in the thread pool (as FastAPI runs sync endpoints). Answers 200
    only once they succeeded; a body over ``webhooks.max_body_bytes`` is not read past it (413)::

        app.include_router(webhook_router(webhooks))
    """
    router = APIRouter()

    @router.post(path, include_in_schema=False)
    async def receive(request: Request) -> JSONResponse:
        body = await webhooks.read_body_async(request.stream(), request.headers.get("content-length"))
        if isinstance(body, Handled):
            return JSONResponse(body.body, status_code=body.status)
        headers = dict(request.headers)
        if webhooks.is_async:
            handled = await webhooks.handle_async(body, headers)
        else:
            handled = await run_in_threadpool(webhooks.handle, body, headers)
        return JSONResponse(handled.body, status_code=handled.status)

    return router
