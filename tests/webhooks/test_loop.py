"""The whole loop with a FastAPI app (uvicorn) and a Flask app (Werkzeug) on real sockets:
the local service's changes arrive signed, handlers run once, retries and attacks change
nothing (tests/webhook_loop.py; Django: tests/django/test_django_webhooks.py)."""

from __future__ import annotations

from fastapi import FastAPI
from flask import Flask
from webhook_loop import Loop, Received, asgi_recording, run_the_loop, serve_asgi, serve_wsgi, wsgi_recording

from authmw_fastapi import webhook_router
from authmw_flask import webhook_blueprint


def test_fastapi_app(loop: Loop) -> None:
    received = Received()
    app = FastAPI()
    app.include_router(webhook_router(received.make_webhooks(loop.clock)))
    with serve_asgi(asgi_recording(app, received)) as url:
        run_the_loop(loop, url, received)


def test_flask_app(loop: Loop) -> None:
    received = Received()
    app = Flask(__name__)
    app.register_blueprint(webhook_blueprint(received.make_webhooks(loop.clock)))
    with serve_wsgi(wsgi_recording(app, received)) as url:
        run_the_loop(loop, url, received)
