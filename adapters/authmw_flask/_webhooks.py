"""The Flask receiver of the service's webhooks (:class:`authmw.webhooks.Webhooks`)."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request

from authmw.webhooks import Handled, Webhooks


def webhook_blueprint(webhooks: Webhooks, path: str = "/webhooks/authmw", name: str = "authmw_webhooks") -> Blueprint:
    """A blueprint with ``POST path``: verifies each delivery against the raw body, runs the
    sync handlers registered with ``@webhooks.on(...)`` and answers 200 only once they
    succeeded (a body over ``webhooks.max_body_bytes`` is not read past it: 413). With Flask-WTF's CSRFProtect, exempt it (``csrf.exempt(blueprint)``): the
    signature authenticates the sender instead::

        app.register_blueprint(webhook_blueprint(webhooks))
    """
    blueprint = Blueprint(name, __name__)

    @blueprint.post(path)
    def receive() -> tuple[Response, int]:
        body = webhooks.read_body(request.stream.read, request.headers.get("content-length"))
        handled = body if isinstance(body, Handled) else webhooks.handle(body, dict(request.headers))
        return jsonify(handled.body), handled.status

    return blueprint
