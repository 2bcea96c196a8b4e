"""The local development service: a SQLite-backed implementation of the service API.

A package of its own beside the SDK (the SDK knows nothing of it; it uses only the SDK's public
names, which tests/core/test_adapter_seam.py checks), shipped in the same distribution with the
``local`` extra. ``authmw.dev`` re-exports its public names under the first name.

In-process (tests, examples)::

    from authmw_local import LocalService      # or: from authmw.dev import LocalService

    with LocalService(".authmw", port=0, access_token_ttl=600) as service:
        service.url, service.project_id, service.secret_server_key, service.config

Tests that need time to stand still or jump (TOTP steps, code expiry) pass
``clock=Clock()`` and call ``clock.freeze()`` / ``clock.advance(seconds)`` (clock.py).

OAuth: the service's mock provider page stands in for GitHub, Google, ...;
``sign_in_at_mock_provider(authorize_url, email=...)`` plays the browser through it (mock_browser.py).

From a shell: ``authmw dev --port 8102 --data-dir .authmw`` (also ``python -m authmw dev``).
``api="2.8"`` / ``api="2.7"`` (``authmw dev --api``) picks the backend version it answers as;
what differs between them is one object, api_version.py.
`create_app(data_dir, access_token_ttl=600, api_url=None)` gives the bare ASGI app.

Adding endpoints: write ``routes/<area>.py`` with an ``EndpointGroup`` (see endpoint.py),
declare each endpoint's tiers, user requirement and request schemas (schema.py), raise
``CatalogueError(code, **args)`` / ``PlainError(status, text)`` (errors.py), expose
``routes = group.routes`` and add the module to ``routes.ROUTE_MODULES``. New tables are a
new script at the end of ``db.MIGRATIONS``. Codes sent by e-mail: verification.py and emails.py
(rendered by email_templates.py on 2.7, by the TSX templates of email_templates_28.py through
tsx_render.py on 2.8; kept in the outbox and handed to SMTP by mail.py, delivery.py,
smtp.py; shown at ``/dev/outbox`` and ``/dev/mailbox``). User documentation: docs/local-service.md.
Section numbers in the local service's comments ("service-api A5.7", "service-api B8.2") are
sections of docs/service-api.md, the project's reference of the service API.
"""

from .app import create_app
from .clock import Clock
from .mock_browser import MockProviderError, sign_in_at_mock_provider
from .server import LocalService

__all__ = ["Clock", "LocalService", "MockProviderError", "create_app", "sign_in_at_mock_provider"]
